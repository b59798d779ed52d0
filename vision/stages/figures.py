"""Which adventurer a figure is: its colour, read from the pixels inside its box."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

FIGURE_RGB: dict[str, tuple[float, float, float]] = {
    "red": (0.78, 0.08, 0.07),
    "blue": (0.08, 0.22, 0.75),
    "green": (0.10, 0.55, 0.18),
    "yellow": (0.95, 0.80, 0.08),
    "purple": (0.45, 0.15, 0.62),
    "orange": (0.96, 0.45, 0.06),
}
"""Default figure colours (red and blue are in the rulebook; the others are guesses)."""


def _hue_of(rgb: tuple[float, float, float]) -> float:
    pixel = np.uint8([[[round(rgb[2] * 255), round(rgb[1] * 255), round(rgb[0] * 255)]]])
    return float(cv2.cvtColor(pixel, cv2.COLOR_BGR2HSV_FULL)[0, 0, 0]) * 360.0 / 256.0


def _hue_distance(a: np.ndarray, b: float) -> np.ndarray:
    d = np.abs(a - b) % 360.0
    return np.minimum(d, 360.0 - d)


def figure_colour(
    frame_bgr: np.ndarray,
    box: Sequence[float],
    players: Sequence[str],
    colours: dict[str, tuple[float, float, float]] | None = None,
) -> str | None:
    """Return the player whose colour fills the figure's box best, or None if none fits.

    Only strongly coloured pixels vote (the tile art under a figure is dull stone), each for the
    player colour nearest in hue; players without a known colour never match.
    """
    palette = {p: (colours or FIGURE_RGB)[p] for p in players if p in (colours or FIGURE_RGB)}
    if not palette:
        return None
    h, w = frame_bgr.shape[:2]
    x0, y0, x1, y1 = (round(float(v)) for v in box)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    hsv = cv2.cvtColor(frame_bgr[y0:y1, x0:x1], cv2.COLOR_BGR2HSV_FULL).reshape(-1, 3)
    strong = hsv[(hsv[:, 1] > 110) & (hsv[:, 2] > 50)]
    if len(strong) < 6:
        return None
    hues = strong[:, 0].astype(np.float64) * 360.0 / 256.0
    names = list(palette)
    distances = np.stack([_hue_distance(hues, _hue_of(palette[n])) for n in names])
    votes = np.bincount(np.argmin(distances, axis=0), minlength=len(names))
    best = int(np.argmax(votes))
    return names[best] if votes[best] >= 0.4 * len(strong) else None
