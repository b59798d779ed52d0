"""Ground truth of rendered frames as the vision stages take it: detections, calibration, grid."""

from __future__ import annotations

from typing import Any

import numpy as np

from calibration.table import PlayerZone, TableCalibration
from vision.perception.detections import Detections
from vision.stages.grid import Grid, locate_grid


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
    depot_boxes = [g["box"] for g in scene["gems"]["items"] if g["where"] == "depot" and g["box"]]
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
