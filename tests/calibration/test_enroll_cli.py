"""`templecam enroll` on a temporary data folder: list, add, edit, show, reset and bad input."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from tile_scenes import photo_of_tile, table_patch

from base.paths import data_dir
from calibration.enrollment import LIBRARY_FILE, TileLibrary, tiles_dir
from calibration.table import TableCalibration
from rules.every_tile import every_tile
from rules.temple import quarter_turns_for
from templecam.cli import main

CORNERS = [(300, 150), (640, 180), (660, 560), (280, 520)]


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["enroll", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def _photo(tmp_path, tile_id: str, stairs: str, name: str = "tile.jpg") -> str:
    """Photograph a default tile lying with its stairway on the photo's `stairs` side."""
    art = TileLibrary.default().tile(tile_id).appearance.image
    lying = np.ascontiguousarray(np.rot90(art, k=-quarter_turns_for(stairs)))
    path = tmp_path / name
    cv2.imwrite(str(path), photo_of_tile(lying, CORNERS, seed=1))
    return str(path)


def test_list_shows_the_packaged_tiles(capsys):
    status, out, _ = _run(capsys, "list")
    assert status == 0
    assert out.splitlines()[1].split()[:3] == ["start", "start", "N,E,W"]
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[1:] if line.strip()}
    assert rows["gem3-key-1"][:4] == ["chamber", "N,E,W", "adventurer+key", "3:key:4,7,10"]
    assert rows["time-prohibition-1"][:3] == ["chamber", "N,E,W", "adventurer+key"]
    assert f"{len(every_tile())} tiles in" in out
    status, out, _ = _run(capsys, "list", "--json")
    data = json.loads(out)
    assert status == 0 and list(data["tiles"]) == list(every_tile()) and data["changed"] == []


def test_add_a_photo_with_the_stairway_side_given(capsys, tmp_path):
    status, out, _ = _run(
        capsys, "add", "chamber-3", "--image", _photo(tmp_path, "chamber-3", "W"), "--stairs", "w"
    )
    assert status == 0, out
    assert "enrolled chamber-3" in out and "stairway on side W" in out
    assert sorted(p.name for p in tiles_dir().iterdir()) == ["chamber-3.png", LIBRARY_FILE]
    assert "your photo (changed)" in _run(capsys, "list")[1]


def test_add_guesses_the_stairway_from_the_enrolled_picture(capsys, tmp_path):
    status, out, _ = _run(
        capsys, "add", "gem1-torch-2", "--image", _photo(tmp_path, "gem1-torch-2", "N")
    )
    assert status == 0, out
    assert "stairway on side N, guessed from the enrolled picture" in out
    library = TileLibrary.load()
    assert library.tile("gem1-torch-2").appearance.photo


def test_add_a_new_tile_then_give_its_properties(capsys, tmp_path):
    status, out, _ = _run(
        capsys, "add", "crypt", "--new", "--image", _photo(tmp_path, "exit", "S"), "--stairs", "S"
    )
    assert status == 0 and "templecam enroll edit crypt" in out
    assert "also looks like exit" in out  # the same tile under another id
    status, out, _ = _run(
        capsys,
        "edit",
        "crypt",
        "--doors",
        "N,E",
        "--enter",
        "torch,torch",
        "--gems",
        "1:torch:5",
        "--name",
        "Crypt",
    )
    assert status == 0
    definition = TileLibrary.load().tile("crypt").definition
    assert definition.doors == frozenset({"N", "E"}) and definition.enter == ("torch", "torch")
    assert definition.gems is not None and definition.gems.costs == (5,)
    assert TileLibrary.load().catalog_overrides()["crypt"]["name"] == "Crypt"


def test_add_from_a_calibrated_camera_frame(capsys, tmp_path):
    table = np.array([[-300, 200], [300, 200], [300, -200], [-300, -200]], np.float32)
    image = np.array([[190, 90], [770, 90], [900, 650], [60, 650]], np.float32)
    matrix = cv2.getPerspectiveTransform(table, image)
    calibration = TableCalibration(image_size=(960, 720), table_to_image=matrix.tolist())
    calibration.save(data_dir() / "calibration.json")
    art = TileLibrary.default().tile("chamber-7").appearance.image
    lying = np.ascontiguousarray(np.rot90(art, k=-quarter_turns_for("E")))
    corners = calibration.table_to_image_px(np.array([[-50, 50], [50, 50], [50, -50], [-50, -50]]))
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), photo_of_tile(lying, [tuple(p) for p in corners], seed=2))
    status, out, err = _run(capsys, "add", "chamber-7", "--image", str(frame), "--calibration")
    assert status == 0, err
    assert "stairway on side E, guessed" in out
    wrong_size = tmp_path / "small.png"
    cv2.imwrite(str(wrong_size), cv2.resize(cv2.imread(str(frame)), (480, 360)))
    status, _, err = _run(capsys, "add", "chamber-7", "--image", str(wrong_size), "--calibration")
    assert status == 2 and "made for 960x720 frames but the camera gives 480x360" in err


def test_edit_checks_what_it_is_given(capsys):
    status, _, err = _run(capsys, "edit", "chamber-1", "--enter", "adventurer,banana")
    assert status == 2 and "'enter' must be a list of icons" in err and "nothing was changed" in err
    status, _, err = _run(capsys, "edit", "chamber-1", "--gems", "3:key")
    assert status == 2 and "write COUNT:ICON:COSTS" in err
    status, _, err = _run(capsys, "edit", "chamber-1", "--gems", "3:key:4,7")
    assert status == 2 and "costs' must list 3" in err
    assert not (tiles_dir() / LIBRARY_FILE).exists()


def test_show_draws_the_tile_with_its_properties(capsys, tmp_path):
    out_file = tmp_path / "card.png"
    status, out, _ = _run(capsys, "show", "gem3-torch-1", "--out", str(out_file))
    assert status == 0 and str(out_file) in out
    card = cv2.imread(str(out_file))
    art = TileLibrary.default().tile("gem3-torch-1").appearance.image
    assert card is not None and card.shape[0] > art.shape[0] and card.shape[1] > art.shape[1]
    # The enrolled picture is on the card, scaled up.
    found = cv2.matchTemplate(card, cv2.resize(art, (480, 480)), cv2.TM_CCOEFF_NORMED).max()
    assert found > 0.95
    status, _, err = _run(capsys, "show", "gem3-torch-1", "--out", str(tmp_path / "card.txt"))
    assert status == 2 and ".png or .jpg" in err


def test_reset_one_tile_and_every_tile(capsys, tmp_path):
    _run(capsys, "edit", "chamber-2", "--doors", "none")
    _run(capsys, "add", "chamber-4", "--image", _photo(tmp_path, "chamber-4", "S"), "--stairs", "S")
    assert TileLibrary.load().changed() == ["chamber-2", "chamber-4"]
    assert _run(capsys, "reset", "chamber-2")[0] == 0
    assert TileLibrary.load().changed() == ["chamber-4"]
    status, out, _ = _run(capsys, "reset")
    assert status == 0 and "every tile" in out
    assert TileLibrary.load().changed() == []
    assert list(tiles_dir().iterdir()) == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["add", "chamber-99", "--image", "x.jpg"],
            "no tile 'chamber-99' is enrolled; known tiles: start",
        ),
        (["add", "chamber-1", "--image", "missing.jpg"], "no picture at missing.jpg"),
        (["edit", "nope", "--doors", "N"], "known tiles: start, exit"),
        (["show", "nope", "--out", "x.png"], "no tile 'nope'"),
        (["reset", "nope"], "no tile 'nope'"),
        (["add", "no spaces", "--new", "--image", "x.jpg"], "cannot be a tile id"),
    ],
)
def test_bad_ids_and_files_are_explained(capsys, argv, message):
    status, _, err = _run(capsys, *argv)
    assert status == 2 and message in err and "Traceback" not in err


def test_a_picture_without_a_tile_is_explained(capsys, tmp_path):
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), table_patch(3, 500))
    status, _, err = _run(capsys, "add", "chamber-1", "--image", str(path), "--stairs", "S")
    assert status == 2 and "no tile found in the picture" in err and "--whole" in err
    (tmp_path / "notes.jpg").write_text("not a picture")
    status, _, err = _run(capsys, "add", "chamber-1", "--image", str(tmp_path / "notes.jpg"))
    assert status == 2 and "not a picture OpenCV can read" in err


def test_a_corrupt_library_is_reported_not_raised(capsys):
    tiles_dir().mkdir(parents=True)
    (tiles_dir() / LIBRARY_FILE).write_text(
        '{"format": "templecam-tiles/1", "tiles": {"chamber-1": 5}}'
    )
    status, _, err = _run(capsys, "list")
    assert status == 2 and "tile 'chamber-1': the entry must be a JSON object" in err
    assert "templecam enroll reset chamber-1" in err
    assert _run(capsys, "reset", "chamber-1")[0] == 0  # the advice works
    assert _run(capsys, "list")[0] == 0
    (tiles_dir() / LIBRARY_FILE).write_text("{broken")
    status, _, err = _run(capsys, "reset", "chamber-1")
    assert status == 2 and "run `templecam enroll reset` with no id" in err
    assert _run(capsys, "reset")[0] == 0


def test_no_stairway_side_and_no_terminal_asks_for_stairs(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    art = table_patch(9, 256)  # a "tile" with nothing in common with its enrolled art
    cv2.rectangle(art, (0, 0), (255, 255), (20, 20, 20), 6)
    scan = tmp_path / "scan.png"
    cv2.imwrite(str(scan), art)
    status, _, err = _run(capsys, "add", "chamber-5", "--image", str(scan), "--whole")
    assert status == 2 and "pass --stairs N, E, S or W" in err
