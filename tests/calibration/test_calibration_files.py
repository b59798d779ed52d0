"""Calibration files: round trip, and clear errors for another camera, damage, another format."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from board_scenes import SIZE, overhead_homography

from calibration.table import CalibrationError, TableCalibration
from calibration.zones import default_layout
from templecam.cli import main


@pytest.fixture
def saved(tmp_path):
    calibration = TableCalibration(
        image_size=SIZE, table_to_image=overhead_homography().tolist(), tile_mm=95.0, die_mm=15.0
    )
    calibration = default_layout(calibration, ["red", "blue"])
    return calibration, calibration.save(tmp_path / "calibration.json")


def test_round_trip_keeps_geometry_zones_and_sizes(saved):
    calibration, path = saved
    loaded = TableCalibration.load(path, image_size=SIZE)
    assert loaded == calibration
    point = np.array([[123.0, -45.0]])
    assert loaded.table_to_image_px(point) == pytest.approx(calibration.table_to_image_px(point))


def test_file_from_another_camera_size(saved):
    _, path = saved
    with pytest.raises(CalibrationError, match=r"1280x720 frames but the camera gives 1920x1080"):
        TableCalibration.load(path, image_size=(1920, 1080))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"format": "templecam-calibration/1", "image_si', "damaged"),
        (b"\xff\xfe\x00garbage", "damaged"),
        (b'{"format": "templecam-game/1", "events": []}', "not a templecam calibration"),
        (b"[1, 2, 3]", "not a templecam calibration"),
    ],
)
def test_damaged_or_foreign_files(tmp_path, content, message):
    path = tmp_path / "calibration.json"
    path.write_bytes(content)
    with pytest.raises(CalibrationError, match=message):
        TableCalibration.load(path)


def test_out_of_range_values_are_refused(saved, tmp_path):
    _, path = saved
    data = json.loads(path.read_text())
    data["tile_mm"] = 5000
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="tile_mm"):
        TableCalibration.load(bad)


def test_command_line_turns_load_errors_into_plain_messages(tmp_path, capsys):
    frame = tmp_path / "frame.png"

    cv2.imwrite(str(frame), np.zeros((SIZE[1], SIZE[0], 3), np.uint8))
    broken = tmp_path / "calibration.json"
    broken.write_text("{not json")
    code = main(["calibrate", "check", "--image", str(frame), "--calibration", str(broken)])
    err = capsys.readouterr().err
    assert code == 2
    assert "damaged" in err and "Traceback" not in err
    missing = tmp_path / "none.json"
    assert main(["calibrate", "check", "--image", str(frame), "--calibration", str(missing)]) == 2
    assert "run `templecam calibrate`" in capsys.readouterr().err
