"""`templecam calibrate` end to end on written pictures and a written video."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from board_scenes import SIZE, board_view, lens_views, overhead_homography

from base.paths import data_dir
from calibration.table import TableCalibration
from templecam.cli import main


@pytest.fixture(scope="module")
def pictures(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pictures")
    homography = overhead_homography()
    paths = {
        "board": board_view(homography, seed=0),
        "empty": board_view(homography, board=False, seed=0, grain_seed=5),
        "moved": board_view(overhead_homography(offset_mm=(55.0, 150.0)), board=False, seed=0),
    }
    for name, image in paths.items():
        cv2.imwrite(str(folder / f"{name}.png"), image)
    return {name: str(folder / f"{name}.png") for name in paths} | {"folder": folder}


def test_calibrate_from_a_photo_writes_a_loadable_calibration(pictures, tmp_path, capsys):
    out = tmp_path / "cal.json"
    args = ["calibrate", "--image", pictures["board"], "--players", "red,blue", "--seats", "s,n"]
    assert main([*args, "--tile-mm", "95", "--die-mm", "15", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "reprojection error" in said and "saved" in said
    calibration = TableCalibration.load(out, image_size=SIZE)
    assert [zone.player for zone in calibration.zones] == ["red", "blue"]
    assert calibration.tile_mm == 95.0 and calibration.die_mm == 15.0
    assert calibration.depot_mm is not None
    assert calibration.reprojection_px < 0.3
    assert (tmp_path / "cal.reference.png").is_file()
    truth = overhead_homography()
    point = np.array([[200.0, 100.0]])
    expected = cv2.perspectiveTransform(point.reshape(1, 1, 2), truth).reshape(1, 2)
    assert calibration.table_to_image_px(point) == pytest.approx(expected, abs=1.0)


def test_default_file_is_in_the_data_folder_and_check_uses_it(pictures, capsys):
    assert main(["calibrate", "--image", pictures["board"]]) == 0
    assert (data_dir() / "calibration.json").is_file()
    capsys.readouterr()
    assert main(["calibrate", "check", "--image", pictures["empty"]]) == 0
    assert "in place" in capsys.readouterr().out
    assert main(["calibrate", "check", "--image", pictures["moved"]]) == 1
    assert "the camera moved by" in capsys.readouterr().out


def test_explicit_zone_and_depot(pictures, tmp_path):
    out = tmp_path / "cal.json"
    args = ["calibrate", "--image", pictures["board"], "--out", str(out), "--players", "red"]
    assert main([*args, "--zone", "red=-400,-200,-200,-120", "--depot", "none"]) == 0
    calibration = TableCalibration.load(out)
    assert calibration.zone_of((-300.0, -150.0)) == "red"
    assert calibration.depot_mm is None


def test_lens_from_three_or_more_photos(tmp_path, capsys):
    paths = []
    for i, image in enumerate(lens_views()):
        paths += ["--image", str(tmp_path / f"view{i}.png")]
        cv2.imwrite(paths[-1], image)
    out = tmp_path / "cal.json"
    assert main(["calibrate", *paths, "--out", str(out)]) == 0
    assert "lens: k1" in capsys.readouterr().out
    calibration = TableCalibration.load(out)
    assert calibration.dist_coeffs is not None and calibration.dist_coeffs[0] < -0.05


def test_camera_spec_reads_frames_from_a_video(pictures, tmp_path):
    video = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, SIZE)
    board = cv2.imread(pictures["board"])
    for _ in range(12):
        writer.write(board)
    writer.release()
    out = tmp_path / "cal.json"
    assert main(["calibrate", "--camera", str(video), "--players", "red", "--out", str(out)]) == 0
    assert TableCalibration.load(out, image_size=SIZE).reprojection_px < 0.5


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--tile-mm", "5"], "--tile-mm 5: give a value from 40 to 250"),
        (["--die-mm", "nan"], "--die-mm nan"),
        (["--zone", "red:1,2,3,4"], "PLAYER=x0,y0,x1,y1"),
        (["--zone", "red=1,2,3"], "four numbers"),
        (["--depot", "5,5,1,1"], "x0 must be below x1"),
        (["--players", "red,red"], "red given twice"),
        (["--players", "red,blue", "--seats", "S"], "one seat per player"),
        (["--players", "red", "--seats", "Q"], "N, E, S or W"),
    ],
)
def test_bad_options_are_clear_errors(pictures, tmp_path, capsys, extra, message):
    out = tmp_path / "cal.json"
    code = main(["calibrate", "--image", pictures["board"], "--out", str(out), *extra])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert not out.exists()


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (["--image", "missing.png"], "no such file"),
        (["--image", "NOT_AN_IMAGE"], "not an image"),
        (["--image", "EMPTY"], "no calibration board found"),
        (["--camera", "NO_VIDEO"], "no video file or image folder"),
    ],
)
def test_bad_sources_are_clear_errors(pictures, tmp_path, capsys, source, message):
    text = tmp_path / "notes.png"
    text.write_text("hello")
    names = {"NOT_AN_IMAGE": str(text), "EMPTY": pictures["empty"]}
    names["NO_VIDEO"] = str(tmp_path / "none.avi")
    source = [names.get(item, item) for item in source]
    code = main(["calibrate", *source, "--out", str(tmp_path / "cal.json")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
