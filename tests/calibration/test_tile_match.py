"""Identifying enrolled tiles and their stairway side in top-down cell pictures."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from tile_scenes import blurred, cell_picture, hand_over, jpeg, relit, table_patch

from art.tiles import tile_texture
from calibration.enrollment import BACK, TileLibrary, canonical
from calibration.table import TableCalibration
from calibration.tile_bench import bench_identify
from calibration.tile_match import SURE, MatchSettings, identify, stairs_for
from rules.catalog import basic_catalog, parse_tile
from rules.temple import quarter_turns_for
from rules.vocabulary import SIDES

TILE_PX = 200
"""A 100 mm tile seen at 2 px/mm, in a 240 px cell picture."""

DEMO = Path(__file__).resolve().parents[2] / "vision" / "data"


@pytest.fixture(scope="module")
def library() -> TileLibrary:
    """The tiles a basic game reads (the camera narrows the library to the game's tiles)."""
    return TileLibrary.default().only(basic_catalog())


def _tile_ids() -> list[str]:
    return list(basic_catalog())


def test_stairs_side_is_the_rules_rotation_read_backwards():
    for side in SIDES:
        assert stairs_for(quarter_turns_for(side)) == side


@pytest.mark.parametrize("tile_id", _tile_ids())
def test_every_default_tile_in_every_quarter_turn(library, tile_id):
    art = library.tile(tile_id).appearance.image
    for turns, wobble in zip(range(4), (3.0, -2.5, 2.0, -3.5), strict=True):
        cell = cell_picture(art, 90 * turns + wobble, seed=turns, tile_px=TILE_PX)
        match = identify(library, cell, tile_px=TILE_PX)
        assert match is not None, f"{tile_id} turned {turns} times was not recognised"
        assert (match.tile, match.stairs) == (tile_id, stairs_for(turns))
        assert match.quarter_turns == turns
        assert abs((match.angle_deg - 90 * turns - wobble + 180) % 360 - 180) < 1.5


CONDITIONS = {
    "10 % smaller": dict(scale=0.9),
    "10 % larger": dict(scale=1.1),
    "dim, warm light": dict(change=lambda im, k: relit(im, 0.55, (0.85, 0.95, 1.1))),
    "bright, cold light": dict(change=lambda im, k: relit(im, 1.3, (1.15, 1.0, 0.85))),
    "out of focus": dict(change=lambda im, k: blurred(im, 2.5)),
    "JPEG quality 25": dict(change=lambda im, k: jpeg(im, 25)),
    "hand over 20 %": dict(change=lambda im, k: hand_over(im, 0.2 * TILE_PX**2, seed=k)),
    "shifted 8 px": dict(shift=(8.0, -6.0)),
}


@pytest.mark.parametrize("condition", list(CONDITIONS))
def test_every_default_tile_under_changed_conditions(library, condition):
    spec = CONDITIONS[condition]
    misses = []
    for k, tile_id in enumerate(_tile_ids()):
        turns = k % 4
        cell = cell_picture(
            library.tile(tile_id).appearance.image,
            90 * turns + (2.0 if k % 2 else -2.0),
            seed=100 + k,
            tile_px=TILE_PX * spec.get("scale", 1.0),
            shift_px=spec.get("shift", (0.0, 0.0)),
        )
        if "change" in spec:
            cell = spec["change"](cell, k)
        match = identify(library, cell, tile_px=TILE_PX)
        if match is None or (match.tile, match.stairs) != (tile_id, stairs_for(turns)):
            misses.append((tile_id, stairs_for(turns), match))
    assert misses == []


def test_the_tile_back_is_recognised_as_back(library):
    cell = cell_picture(library.back.image, 87.0, seed=3, tile_px=TILE_PX)
    match = identify(library, cell, tile_px=TILE_PX)
    assert match is not None and match.tile == BACK


@pytest.mark.parametrize("seed", range(6))
def test_an_empty_table_is_no_tile(library, seed):
    assert identify(library, table_patch(seed, 240), tile_px=TILE_PX) is None


def test_a_tile_that_was_never_enrolled_is_not_named(library):
    # Same art generator, other doors and icons: it shares much with the enrolled chambers.
    stranger = parse_tile("crypt", {"doors": ["E"], "enter": ["torch", "torch"]})
    art = canonical(cv2.cvtColor(tile_texture(stranger, 256), cv2.COLOR_RGB2BGR))
    for turns in range(4):
        cell = cell_picture(art, 90 * turns + 2, seed=turns, tile_px=TILE_PX)
        assert identify(library, cell, tile_px=TILE_PX) is None
        guess = identify(library, cell, tile_px=TILE_PX, settings=MatchSettings(min_confidence=0))
        assert guess is None or guess.confidence < SURE


def test_without_tile_px_the_tile_is_taken_to_fill_most_of_the_cell(library):
    art = library.tile("gem1-key-2").appearance.image
    cell = cell_picture(art, 180 + 2, seed=5, cell_px=300, tile_px=230)
    match = identify(library, cell)
    assert match is not None and (match.tile, match.stairs) == ("gem1-key-2", "N")


def _demo_cell(frame: np.ndarray, calibration: TableCalibration, centre_mm) -> np.ndarray:
    """Cut a 130 mm square, north up, at 2 px/mm around a table point (as the scene stage does)."""
    n, side = 260, 130.0
    u = (np.arange(n) + 0.5) / 2.0 - side / 2
    xs, ys = centre_mm[0] + np.tile(u, n), centre_mm[1] - np.repeat(u, n)
    pixels = calibration.table_to_image_px(np.column_stack([xs, ys])).astype(np.float32)
    pixels = pixels.reshape(n, n, 2)
    return cv2.remap(frame, pixels[..., 0], pixels[..., 1], cv2.INTER_LINEAR)


def test_the_bundled_demo_recordings_tiles_are_recognised(library):
    calibration = TableCalibration.load(DEMO / "demo-calibration.json")
    truth = json.loads((DEMO / "demo-truth.json").read_text("utf-8"))
    lines = [json.loads(line) for line in (DEMO / "demo-game.jsonl").read_text().splitlines()]
    placed = {tuple(t["cell"]): (t["tile"], t["stairs"]) for t in lines[0]["temple"]}
    for line in lines:
        if line["type"] == "discover":
            placed[tuple(line["cell"])] = (line["tile"], line["stairs"])
    video = cv2.VideoCapture(str(DEMO / "demo-game.mp4"))
    video.set(cv2.CAP_PROP_POS_FRAMES, truth["frames"] - 1)
    ok, frame = video.read()
    video.release()
    assert ok
    origin, pitch = np.array(truth["grid"]["origin_mm"]), truth["grid"]["tile_mm"]
    seen = {}
    for cell in placed:
        match = identify(library, _demo_cell(frame, calibration, origin + pitch * np.array(cell)))
        seen[cell] = (match.tile, match.stairs) if match else None
    assert seen == placed


def test_bench_identify_reports_its_timings_and_answers(library):
    report = bench_identify(library, repeats=1)
    assert report["cells"] == len(library) + 1  # every tile and the back
    assert report["right"] == report["runs"] == report["cells"]
    assert 0 < report["ms_min"] <= report["ms_median"] <= report["ms_p90"]
