"""Draw what vision sees onto the frame: boxes and faces, player zones, temple cells.

The picture is published 1280 px wide (the game page shows it enlarged at that size) and its
labels are drawn to read there: white or coloured text on a dark plate, player names and
chamber names (never ids or cells), their size following the picture's width.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from calibration.table import TableCalibration
from rules.catalog import basic_catalog
from rules.narrative import chamber_label
from vision.perception.classes import DIE_UNREADABLE
from vision.pipeline import FrameResult
from vision.stages.figures import FIGURE_RGB
from vision.stages.grid import Grid
from vision.stages.observation import Observation

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
WIDTH = 1280
"""The annotated picture's width in px."""
FONT = cv2.FONT_HERSHEY_SIMPLEX
LABEL_SCALE = 0.75
"""The labels' font scale at 1280 px wide (letters about 16 px tall); scaled with the width."""


@lru_cache(maxsize=256)
def tile_name(tile_id: str) -> str:
    """Name a tile as players do ("Gem chamber", "Exit"); "Chamber" for one not in the basic set."""
    tile = basic_catalog().get(tile_id)
    return chamber_label(tile) if tile is not None else "Chamber"


def _player_bgr(player: str) -> tuple[int, int, int]:
    r, g, b = FIGURE_RGB.get(player, (0.9, 0.9, 0.9))
    return int(b * 255), int(g * 255), int(r * 255)


def annotate(
    image: np.ndarray,
    result: FrameResult,
    calibration: TableCalibration,
    grid: Grid | None,
    width: int = WIDTH,
) -> np.ndarray:
    """Return a copy of the frame, `width` px wide, with zones, cells and boxes drawn on it."""
    scale = width / image.shape[1]
    size = LABEL_SCALE * width / WIDTH
    canvas = cv2.resize(image, (width, round(image.shape[0] * scale)), interpolation=cv2.INTER_AREA)
    obs: Observation = result.observation
    for zone in calibration.zones:
        polygon = calibration.table_to_image_px(np.asarray(zone.polygon_mm)) * scale
        busy = zone.player in obs.busy
        colour = _player_bgr(zone.player)
        cv2.polylines(canvas, [polygon.astype(np.int32)], True, colour, 3 if busy else 1)
        dice = obs.dice.get(zone.player, ())
        unsure = sum(d.face is None for d in dice)
        label = zone.player.capitalize() + (
            " rolling" if busy else f" {len(dice)} dice" + (f", {unsure} unsure" if unsure else "")
        )
        x, y = polygon.min(axis=0)
        at = (int(x) + 4, int(y) + 4)
        _text(canvas, label, at, _ink(colour), size, above=False, plate=colour)
    if grid is not None:
        for cell, seen in obs.tiles.items():
            corners = calibration.table_to_image_px(grid.cell_corners(cell)) * scale
            cv2.polylines(canvas, [corners.astype(np.int32)], True, (255, 255, 255), 1)
            x, y = corners.mean(axis=0)
            gems = obs.gems.get(cell, 0)
            name = tile_name(seen.tile)
            lines = name.split(" ", 1) if len(name) > 9 else [name]  # two short lines fit a tile
            if gems:
                lines.append(f"+{gems} active")
            step = int(26 * size)
            top = int(y) - (len(lines) - 1) * step // 2
            for n, line in enumerate(lines):
                at = (int(x), top + n * step)
                _text(canvas, line, at, (255, 255, 255), size * 0.7, centred=True)
    detections = result.detections
    for box, name in zip(detections.xyxy * scale, detections.names, strict=True):
        x0, y0, x1, y1 = (int(v) for v in box)
        colour = CLASS_BGR.get(name, (255, 255, 255))
        cv2.rectangle(canvas, (x0, y0), (x1, y1), colour, 1)
        if name == DIE_UNREADABLE:  # a die read below the face reader's threshold
            _text(canvas, "?", (x0, max(y0 - 3, 10)), (255, 255, 255), size)
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


def _text(
    canvas: np.ndarray,
    text: str,
    at: tuple[int, int],
    colour: tuple[int, int, int],
    size: float = LABEL_SCALE,
    *,
    above: bool = True,
    centred: bool = False,
    plate: tuple[int, int, int] | None = None,
) -> None:
    """Write `text` on a dark plate: its baseline at `at` (`above`), or its top there; centred
    on `at` when `centred`; the plate in `plate`'s colour if given. It stays in the picture."""
    thickness = max(1, round(size * 2.5))
    (w, h), base = cv2.getTextSize(text, FONT, size, thickness)
    pad = max(2, round(h * 0.3))
    x, y = at
    if centred:
        x, y = x - w // 2, y + h // 2
    elif not above:
        y += h + pad
    x = min(max(x, pad), canvas.shape[1] - w - pad)
    y = min(max(y, h + pad), canvas.shape[0] - base - pad)
    box = canvas[y - h - pad : y + base + pad, x - pad : x + w + pad]
    if plate is None:
        box[:] = (box * 0.3).astype(canvas.dtype)  # dark, the picture still shows through
    else:
        box[:] = plate
    cv2.putText(canvas, text, (x, y), FONT, size, colour, thickness, cv2.LINE_AA)


def _ink(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    """Black or white, whichever reads better on a plate of `colour` (BGR)."""
    b, g, r = colour
    return (0, 0, 0) if 0.299 * r + 0.587 * g + 0.114 * b > 140 else (255, 255, 255)


def to_jpeg(image: np.ndarray, quality: int = 75) -> bytes:
    """Encode a picture as JPEG bytes (for the dashboard's MJPEG stream)."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("could not encode the frame as JPEG")
    return data.tobytes()
