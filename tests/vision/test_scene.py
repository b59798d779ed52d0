"""The scene stage on a real rendered frame, fed its ground-truth boxes as saved detections."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from calibration.table import PlayerZone, TableCalibration
from models.synth.frame import render_frame
from models.synth.settings import SynthSettings
from vision.detections import Detections
from vision.grid import Grid, locate_grid
from vision.scene import DIE_CLASSES, SceneReader


@pytest.fixture(scope="module")
def rendered() -> tuple[np.ndarray, dict[str, Any]]:
    """One full-size rendered table frame and its scene record."""
    frame = render_frame(SynthSettings(), seed=11, index=3)
    return frame.image, frame.scene


def truth_detections(scene: dict[str, Any]) -> Detections:
    """Every labelled thing of the scene record, as a detector would report it."""
    names = tuple(scene["classes"])
    boxes, classes = [], []
    things = [*scene["dice"], *scene["tiles"], *scene["gems"]["items"], *scene["figures"]]
    things += scene["hands"]
    for thing in things:
        if thing.get("label"):
            boxes.append(thing["box"])
            classes.append(names.index(thing["label"]))
    return Detections(np.array(boxes, float), np.full(len(boxes), 0.9), np.array(classes), names)


def calibration_of(scene: dict[str, Any]) -> TableCalibration:
    """The calibration a perfect board would give for this camera (from the renderer's truth)."""
    camera = scene["camera"]
    f, cx, cy = camera["focal"], camera["cx"], camera["cy"]
    zones = [
        PlayerZone(
            player=z["colour"],
            polygon_mm=[
                [z["rect_mm"][0], z["rect_mm"][1]],
                [z["rect_mm"][2], z["rect_mm"][1]],
                [z["rect_mm"][2], z["rect_mm"][3]],
                [z["rect_mm"][0], z["rect_mm"][3]],
            ],
        )
        for z in scene["zones"]
    ]
    calibration = TableCalibration(
        image_size=(camera["width"], camera["height"]),
        table_to_image=camera["homography"],
        camera_matrix=[[f, 0, cx], [0, f, cy], [0, 0, 1]],
        dist_coeffs=[camera["k1"], camera["k2"], 0.0, 0.0],
        zones=zones,
    )
    depot_boxes = [g["box"] for g in scene["gems"]["items"] if g["where"] == "depot"]
    if depot_boxes:
        corners = np.array(
            [[b[0], b[1]] for b in depot_boxes] + [[b[2], b[3]] for b in depot_boxes]
        )
        lo, hi = (
            calibration.image_to_table(corners).min(0) - 8,
            calibration.image_to_table(corners).max(0) + 8,
        )
        calibration.depot_mm = [[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]]
    return calibration


def grid_of(scene: dict[str, Any]) -> Grid:
    """The temple grid as the renderer laid it."""
    start = next(t for t in scene["tiles"] if t["id"] == "start")
    centres = np.array([t["centre_mm"] for t in scene["tiles"]])
    return locate_grid(start["centre_mm"], centres, 100.0)


def test_dice_are_read_per_player_zone(rendered: tuple[np.ndarray, dict[str, Any]]) -> None:
    image, scene = rendered
    players = [z["colour"] for z in scene["zones"]]
    reader = SceneReader(calibration_of(scene), players, grid=grid_of(scene))
    obs = reader.observe(image, truth_detections(scene), seq=1, t=0.0)
    for zone in scene["zones"]:
        player = zone["colour"]
        dice = [d for d in scene["dice"] if d["zone"] == zone["index"] and d["label"]]
        seen = obs.dice[player]
        assert Counter(d.face for d in seen) == Counter(
            None if d["label"] == "die_unreadable" else d["label"] for d in dice
        )
        unreadable = any(d["label"] == "die_unreadable" for d in dice)
        assert (player in obs.busy) >= unreadable
    assert set(DIE_CLASSES) >= {d["label"] for d in scene["dice"] if d["label"]}


def test_gems_and_figures_land_in_their_cells(rendered: tuple[np.ndarray, dict[str, Any]]) -> None:
    image, scene = rendered
    players = [z["colour"] for z in scene["zones"]]
    reader = SceneReader(calibration_of(scene), players, grid=grid_of(scene))
    obs = reader.observe(image, truth_detections(scene), seq=1, t=0.0)
    items = scene["gems"]["items"]
    on_cells = Counter(tuple(g["cell"]) for g in items if g["where"] == "cell" and g["label"])
    assert dict(obs.gems) == dict(on_cells)
    assert obs.depot_gems == sum(1 for g in items if g["where"] == "depot" and g["label"])
    expected = {f["colour"]: tuple(f["cell"]) for f in scene["figures"] if f["label"]}
    assert expected and {c: obs.figures.get(c) for c in expected} == expected


def test_a_tile_reader_names_the_tiles_and_anchors_the_grid(
    rendered: tuple[np.ndarray, dict[str, Any]],
) -> None:
    image, scene = rendered
    calibration = calibration_of(scene)
    truth = {tuple(t["cell"]): t for t in scene["tiles"]}
    grid = grid_of(scene)
    reads: list[tuple[int, int]] = []

    def reader_by_position(frame: np.ndarray, corners_px: list[list[float]]) -> Any:
        # stands in for the enrolled-tile matcher: names the tile whose centre the cell holds
        from vision.observation import SeenTile

        centre_mm = calibration.image_to_table(np.mean(corners_px, axis=0, keepdims=True))[0]
        cell = grid.cell_of(centre_mm)
        reads.append(cell)
        tile = truth.get(cell)
        return None if tile is None else SeenTile(tile["id"], tile["stairs"], 0.8)

    players = [z["colour"] for z in scene["zones"]]
    scene_reader = SceneReader(calibration, players, tile_reader=reader_by_position)
    first = scene_reader.observe(image, truth_detections(scene), seq=1, t=0.0)
    assert scene_reader.grid is not None
    assert np.allclose(scene_reader.grid.origin_mm, grid.origin_mm, atol=5.0)
    for _ in range(len(truth) + 2):
        obs = scene_reader.observe(image, truth_detections(scene), seq=2, t=0.1)
    labelled = {c: (t["id"], t["stairs"]) for c, t in truth.items() if t["label"]}
    assert {c: (s.tile, s.stairs) for c, s in obs.tiles.items()} == labelled
    assert len(first.tiles) == len(labelled)
    assert len(reads) <= 2 * len(truth) + 2  # recognised tiles are remembered, not re-read
