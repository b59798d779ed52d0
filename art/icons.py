"""The five die-face icons, drawn procedurally: distinct silhouettes, each in its own colour."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import cv2
import numpy as np

__all__ = ["FACE_COLOURS", "face_icon"]

FACE_COLOURS: dict[str, tuple[float, float, float]] = {
    "adventurer": (0.12, 0.58, 0.22),
    "key": (0.10, 0.32, 0.78),
    "torch": (0.82, 0.12, 0.10),
    "golden_mask": (0.93, 0.70, 0.12),
    "black_mask": (0.07, 0.07, 0.08),
}
"""RGB colour of each icon's paint."""

_S = 256  # drawing resolution; icons are shrunk from it with area averaging
_AA = cv2.LINE_AA


def _pts(points: list[tuple[float, float]]) -> np.ndarray:
    """Return drawing points as fixed-point int32 (4 fractional bits)."""
    return (np.array(points, dtype=np.float64) * 16).round().astype(np.int32)


def _line(mask: np.ndarray, a: tuple[float, float], b: tuple[float, float], width: int) -> None:
    """Draw a thick segment with round caps."""
    cv2.line(mask, tuple(_pts([a])[0]), tuple(_pts([b])[0]), 255, width, _AA, 4)


def _poly(mask: np.ndarray, points: list[tuple[float, float]], value: int = 255) -> None:
    """Fill a polygon."""
    cv2.fillPoly(mask, [_pts(points)], value, _AA, 4)


def _adventurer(mask: np.ndarray) -> None:
    """A running figure: head, leaning torso, swinging arms, striding legs."""
    cv2.circle(mask, (150 * 16, 48 * 16), 24 * 16, 255, -1, _AA, 4)
    _line(mask, (142, 84), (116, 150), 30)
    _line(mask, (138, 96), (178, 120), 18)
    _line(mask, (178, 120), (206, 96), 16)
    _line(mask, (132, 98), (96, 112), 18)
    _line(mask, (96, 112), (70, 142), 16)
    _line(mask, (116, 150), (156, 182), 20)
    _line(mask, (156, 182), (148, 232), 18)
    _line(mask, (116, 150), (86, 186), 20)
    _line(mask, (86, 186), (44, 196), 18)


def _key(mask: np.ndarray) -> None:
    """An old key lying diagonally: ring bow, long shaft, two bits."""
    cv2.circle(mask, (76 * 16, 84 * 16), 44 * 16, 255, 24, _AA, 4)
    _line(mask, (108, 116), (214, 222), 24)
    _poly(mask, [(170, 178), (186, 162), (222, 198), (206, 214)])
    _poly(mask, [(190, 198), (162, 226), (176, 240), (204, 212)])
    _poly(mask, [(160, 168), (132, 196), (146, 210), (174, 182)])


def _torch(mask: np.ndarray) -> None:
    """A torch: tapered handle, a band, and a broad flame with a notch."""
    _poly(mask, [(106, 240), (128, 246), (156, 140), (128, 134)])
    _poly(mask, [(108, 124), (176, 138), (170, 160), (102, 146)])
    flame = [(150, 6), (190, 52), (204, 96), (184, 126), (146, 134), (106, 124)]
    flame += [(92, 92), (104, 54), (122, 76), (130, 40)]
    _poly(mask, flame)
    _poly(mask, [(152, 56), (172, 96), (156, 118), (132, 110), (136, 84)], 0)


def _golden_mask(mask: np.ndarray) -> None:
    """A round sun mask: a crown of rays, a broad face, almond eyes and an open mouth."""
    for angle in np.linspace(-150, -30, 7):
        a = np.radians(angle)
        tip = (128 + 118 * np.cos(a), 136 + 118 * np.sin(a))
        left = (128 + 78 * np.cos(a - 0.16), 136 + 78 * np.sin(a - 0.16))
        right = (128 + 78 * np.cos(a + 0.16), 136 + 78 * np.sin(a + 0.16))
        _poly(mask, [left, tip, right])
    cv2.ellipse(mask, (128 * 16, 140 * 16), (84 * 16, 92 * 16), 0, 0, 360, 255, -1, _AA, 4)
    for side in (-1, 1):
        cv2.ellipse(
            mask, ((128 + 36 * side) * 16, 118 * 16), (22 * 16, 11 * 16), 0, 0, 360, 0, -1, _AA, 4
        )
    cv2.ellipse(mask, (128 * 16, 182 * 16), (30 * 16, 14 * 16), 0, 0, 360, 0, -1, _AA, 4)
    _poly(mask, [(122, 126), (134, 126), (140, 160), (116, 160)], 0)
    _poly(mask, [(124, 132), (132, 132), (136, 154), (120, 154)])


def _black_mask(mask: np.ndarray) -> None:
    """A horned, angular demon mask: pointed chin, big slanted eyes, a jagged mouth."""
    _poly(mask, [(40, 30), (92, 64), (58, 84)])
    _poly(mask, [(216, 30), (164, 64), (198, 84)])
    face = [(56, 62), (200, 62), (218, 132), (180, 204), (128, 242), (76, 204), (38, 132)]
    _poly(mask, face)
    _poly(mask, [(66, 100), (120, 124), (112, 150), (74, 134)], 0)
    _poly(mask, [(190, 100), (136, 124), (144, 150), (182, 134)], 0)
    mouth = [(92, 176), (110, 186), (128, 176), (146, 186), (164, 176), (150, 204), (106, 204)]
    _poly(mask, mouth, 0)


_DRAW: dict[str, Callable[[np.ndarray], None]] = {
    "adventurer": _adventurer,
    "key": _key,
    "torch": _torch,
    "golden_mask": _golden_mask,
    "black_mask": _black_mask,
}


@lru_cache(maxsize=64)
def face_icon(
    face: str,
    size: int,
    paint: str | None = None,
    colour: tuple[float, float, float] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Return (rgb, alpha) of an embossed icon, `size` px square, float32 in [0, 1].

    `paint` names the face whose colour to use (a misprinted die may swap key and torch);
    `colour` is another print's colour for it (default: `FACE_COLOURS[paint]`).
    """
    mask = np.zeros((_S, _S), np.uint8)
    _DRAW[face](mask)
    alpha = mask.astype(np.float32) / 255
    # Emboss: paint lit on the upper-left rim and shaded on the lower-right one.
    soft = cv2.GaussianBlur(alpha, (0, 0), 3)
    relief = np.roll(soft, (3, 3), axis=(0, 1)) - np.roll(soft, (-3, -3), axis=(0, 1))
    paint = paint or face
    colour = np.array(colour or FACE_COLOURS[paint], dtype=np.float32)
    tone = 1 + 0.5 * relief[..., None] if paint != "black_mask" else 1 + 1.2 * relief[..., None]
    rgb = np.clip(colour * tone + (0.12 * relief[..., None] if paint == "black_mask" else 0), 0, 1)
    inner = cv2.erode(mask, np.ones((5, 5), np.uint8)).astype(np.float32) / 255
    rgb = rgb * (0.7 + 0.3 * inner[..., None])
    shrink = cv2.INTER_AREA
    pad = round(_S * 0.1)
    big_rgb = cv2.copyMakeBorder(rgb, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    big_alpha = cv2.copyMakeBorder(alpha, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    small_alpha = cv2.resize(big_alpha, (size, size), interpolation=shrink)
    small_rgb = cv2.resize(big_rgb * big_alpha[..., None], (size, size), interpolation=shrink)
    small_rgb = small_rgb / np.maximum(small_alpha[..., None], 1e-4)
    return np.clip(small_rgb, 0, 1).astype(np.float32), small_alpha.astype(np.float32)
