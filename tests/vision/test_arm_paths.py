"""Arm paths on a real rendered table's calibration: an arm drawn from an open cell to a
player's seat moves that player's path most; the scene reports paths to open cells only."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest
from scene_truth import calibration_of, grid_of, truth_detections

from models.synth.frame import render_frame
from models.synth.settings import SynthSettings
from vision.stages.arm_paths import ArmPaths, seat_mm
from vision.stages.motion import MotionMask
from vision.stages.scene import SceneReader

SCALE = 4


@pytest.fixture(scope="module")
def rendered() -> tuple[np.ndarray, dict[str, Any]]:
    """One full-size rendered table frame and its scene record."""
    frame = render_frame(SynthSettings(), seed=11, index=3)
    return frame.image, frame.scene


def _arm(image: np.ndarray, ends_px: np.ndarray) -> MotionMask:
    """Motion along an arm (about 8 cm wide) between two points in frame px."""
    h, w = image.shape[:2]
    arm = np.zeros((h // SCALE, w // SCALE), np.uint8)
    a, b = (tuple(int(v) for v in np.round(p / SCALE)) for p in ends_px)
    cv2.line(arm, a, b, 1, thickness=20)
    return MotionMask(arm > 0, SCALE)


def test_an_arm_from_a_seat_to_a_cell_moves_that_players_path_most(
    rendered: tuple[np.ndarray, dict[str, Any]],
) -> None:
    image, scene = rendered
    calibration, grid = calibration_of(scene), grid_of(scene)
    players = tuple(z["colour"] for z in scene["zones"])
    paths = ArmPaths(calibration, players)
    for cell in ((1, 0), (0, -1)):
        centre = np.array(grid.cell_centre(cell))
        for zone in calibration.zones:
            seat = seat_mm(np.asarray(zone.polygon_mm), grid.origin_mm)
            motion = _arm(image, calibration.table_to_image_px(np.array([centre, seat])))
            shares = paths.moved(motion, grid, [cell])[cell]
            assert set(shares) == set(players)
            best = max(shares, key=lambda p: shares[p])
            others = max(s for p, s in shares.items() if p != zone.player)
            assert best == zone.player and shares[best] > 1.1 * others, (cell, shares)


def test_nothing_moved_is_no_path(rendered: tuple[np.ndarray, dict[str, Any]]) -> None:
    image, scene = rendered
    calibration, grid = calibration_of(scene), grid_of(scene)
    players = tuple(z["colour"] for z in scene["zones"])
    h, w = image.shape[:2]
    still = MotionMask(np.zeros((h // SCALE, w // SCALE), bool), SCALE)
    assert ArmPaths(calibration, players).moved(still, grid, [(1, 0)]) == {}


def test_the_scene_tells_paths_to_the_cells_beside_the_engines_temple_only(
    rendered: tuple[np.ndarray, dict[str, Any]],
) -> None:
    image, scene = rendered
    calibration, grid = calibration_of(scene), grid_of(scene)
    players = [z["colour"] for z in scene["zones"]]
    reader = SceneReader(calibration, players, grid=grid)
    h, w = image.shape[:2]
    everywhere = MotionMask(np.ones((h // SCALE, w // SCALE), bool), SCALE)
    before = reader.observe(image, truth_detections(scene), 1, 0.0, motion=everywhere)
    assert before.arm_paths == {}  # no game followed yet: no temple to lay beside
    reader.follow({(0, 0): "start", (1, 0): "chamber-1"})
    seen = reader.observe(image, truth_detections(scene), 2, 0.1, motion=everywhere)
    assert set(seen.arm_paths) == {(-1, 0), (0, 1), (0, -1), (2, 0), (1, 1), (1, -1)}
    assert all(share > 0.9 for shares in seen.arm_paths.values() for share in shares.values())
