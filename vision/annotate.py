"""Draw what vision sees onto the frame: boxes and faces, player zones, temple cells."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.table import TableCalibration
from vision.classes import DIE_UNREADABLE
from vision.figures import FIGURE_RGB
from vision.grid import Grid
from vision.observation import Observation
from vision.pipeline import FrameResult

CLASS_BGR: dict[str, tuple[int, int, int]] = {
    "adventurer": (60, 170, 40),
    "key": (220, 120, 30),
    "torch": (40, 40, 220),
    "golden_mask": (20, 200, 240),
    "black_mask": (30, 30, 30),
    "die_unreadable": (160, 160, 160),
    "gem": (120, 255, 120),
    "tile": (200, 200, 200),
    "tile_back": (120, 120, 120),
    "figure": (255, 0, 255),
    "hand": (90, 140, 255),
}
"""Box colour of each detector class (BGR)."""


def _player_bgr(player: str) -> tuple[int, int, int]:
    r, g, b = FIGURE_RGB.get(player, (0.9, 0.9, 0.9))
    return int(b * 255), int(g * 255), int(r * 255)


def annotate(
    image: np.ndarray,
    result: FrameResult,
    calibration: TableCalibration,
    grid: Grid | None,
    width: int = 960,
) -> np.ndarray:
    """Return a copy of the frame, `width` px wide, with zones, cells and boxes drawn on it."""
    scale = width / image.shape[1]
    canvas = cv2.resize(image, (width, round(image.shape[0] * scale)), interpolation=cv2.INTER_AREA)
    obs: Observation = result.observation
    for zone in calibration.zones:
        polygon = calibration.table_to_image_px(np.asarray(zone.polygon_mm)) * scale
        busy = zone.player in obs.busy
        colour = _player_bgr(zone.player)
        cv2.polylines(canvas, [polygon.astype(np.int32)], True, colour, 3 if busy else 1)
        dice = obs.dice.get(zone.player, ())
        unsure = sum(d.face is None for d in dice)
        label = zone.player + (
            ": rolling" if busy else f": {len(dice)} dice" + (f", {unsure} ?" if unsure else "")
        )
        x, y = polygon.min(axis=0)
        _text(canvas, label, (int(x) + 4, int(y) + 16), colour)
    if grid is not None:
        for cell, seen in obs.tiles.items():
            corners = calibration.table_to_image_px(grid.cell_corners(cell)) * scale
            cv2.polylines(canvas, [corners.astype(np.int32)], True, (255, 255, 255), 1)
            x, y = corners.mean(axis=0)
            gems = obs.gems.get(cell, 0)
            text = f"{cell[0]},{cell[1]} {seen.tile}" + (f" +{gems}" if gems else "")
            _text(canvas, text, (int(x) - 40, int(y)), (255, 255, 255))
    detections = result.detections
    for box, name in zip(detections.xyxy * scale, detections.names, strict=True):
        x0, y0, x1, y1 = (int(v) for v in box)
        colour = CLASS_BGR.get(name, (255, 255, 255))
        cv2.rectangle(canvas, (x0, y0), (x1, y1), colour, 1)
        if name == DIE_UNREADABLE:  # a die read below the face reader's threshold
            _text(canvas, "?", (x0, max(y0 - 3, 10)), (255, 255, 255))
    for x0, y0, x1, y1 in result.gate.windows if not result.gate.full else ():
        cv2.rectangle(
            canvas,
            (int(x0 * scale), int(y0 * scale)),
            (int(x1 * scale), int(y1 * scale)),
            (0, 200, 255),
            1,
            lineType=cv2.LINE_4,
        )
    return canvas


def _text(canvas: np.ndarray, text: str, at: tuple[int, int], colour: tuple[int, int, int]) -> None:
    cv2.putText(canvas, text, at, cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(canvas, text, at, cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv2.LINE_AA)


def to_jpeg(image: np.ndarray, quality: int = 75) -> bytes:
    """Encode a picture as JPEG bytes (for the dashboard's MJPEG stream)."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("could not encode the frame as JPEG")
    return data.tobytes()
