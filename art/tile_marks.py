"""The module marks printed on a chamber tile: purple mask, treasure, illusion, special, quest,
trap, time and Queenie feature badges, each a coloured disc with its own glyph."""

from __future__ import annotations

import zlib
from collections.abc import Callable

import cv2
import numpy as np

from rules.catalog import TileDef

SLOTS = ((0.23, 0.23), (0.77, 0.23), (0.23, 0.5), (0.77, 0.5))
"""Where the badges sit (u east, v south, 0..1): the floor's upper corners, then its sides."""
RADIUS = 0.07
"""A badge's radius as a fraction of the tile edge."""

_AA = cv2.LINE_AA
_LIGHT = (0.96, 0.93, 0.86)
_DARK = (0.12, 0.08, 0.06)
Glyph = Callable[[np.ndarray, float, float, float], None]
"""Draws a badge's picture: (tile art, centre x, centre y, radius), in pixels."""


def _fixed(points: list[tuple[float, float]]) -> np.ndarray:
    return (np.asarray(points, dtype=np.float64) * 16).round().astype(np.int32)


def _circle(img: np.ndarray, x: float, y: float, r: float, colour: tuple, width: int) -> None:
    cv2.circle(img, (round(x * 16), round(y * 16)), round(r * 16), colour, width, _AA, 4)


def _mask(img: np.ndarray, x: float, y: float, r: float) -> None:
    cv2.ellipse(img, (round(x), round(y)), (round(r * 0.6), round(r * 0.5)), 0, 0, 360, _LIGHT, -1)
    for dx in (-0.25, 0.25):
        _circle(img, x + dx * r, y - 0.1 * r, 0.12 * r, (0.45, 0.15, 0.55), -1)


def _chest(img: np.ndarray, x: float, y: float, r: float) -> None:
    a, b = (round(x - 0.55 * r), round(y - 0.35 * r)), (round(x + 0.55 * r), round(y + 0.4 * r))
    cv2.rectangle(img, a, b, (0.45, 0.26, 0.1), -1)
    cv2.line(img, (a[0], round(y)), (b[0], round(y)), _DARK, max(1, round(r / 8)))


def _rings(img: np.ndarray, x: float, y: float, r: float) -> None:
    _circle(img, x, y, 0.55 * r, _LIGHT, max(1, round(r / 7)))
    _circle(img, x, y, 0.25 * r, _LIGHT, max(1, round(r / 7)))


def _chain(img: np.ndarray, x: float, y: float, r: float) -> None:
    _circle(img, x - 0.22 * r, y, 0.35 * r, _LIGHT, max(1, round(r / 7)))
    _circle(img, x + 0.22 * r, y, 0.35 * r, _LIGHT, max(1, round(r / 7)))


def _wall(img: np.ndarray, x: float, y: float, r: float) -> None:
    cv2.rectangle(
        img,
        (round(x - 0.6 * r), round(y - 0.15 * r)),
        (round(x + 0.6 * r), round(y + 0.15 * r)),
        _LIGHT,
        -1,
    )


def _cup(img: np.ndarray, x: float, y: float, r: float) -> None:
    bowl = [(x - 0.5 * r, y - 0.5 * r), (x + 0.5 * r, y - 0.5 * r), (x, y + 0.1 * r)]
    cv2.fillPoly(img, [_fixed(bowl)], _DARK, _AA, 4)
    cv2.line(img, (round(x), round(y)), (round(x), round(y + 0.5 * r)), _DARK, max(1, round(r / 6)))
    cv2.line(
        img,
        (round(x - 0.3 * r), round(y + 0.5 * r)),
        (round(x + 0.3 * r), round(y + 0.5 * r)),
        _DARK,
        max(1, round(r / 6)),
    )


def _spikes(img: np.ndarray, x: float, y: float, r: float) -> None:
    for k in (-1, 0, 1):
        cx = x + k * 0.4 * r
        spike = [(cx - 0.2 * r, y + 0.4 * r), (cx + 0.2 * r, y + 0.4 * r), (cx, y - 0.45 * r)]
        cv2.fillPoly(img, [_fixed(spike)], _DARK, _AA, 4)


def _hourglass(img: np.ndarray, x: float, y: float, r: float) -> None:
    top = [(x - 0.45 * r, y - 0.55 * r), (x + 0.45 * r, y - 0.55 * r), (x, y)]
    bottom = [(x - 0.45 * r, y + 0.55 * r), (x + 0.45 * r, y + 0.55 * r), (x, y)]
    cv2.fillPoly(img, [_fixed(top), _fixed(bottom)], _LIGHT, _AA, 4)


def _text(word: str) -> Glyph:
    def draw(img: np.ndarray, x: float, y: float, r: float) -> None:
        scale = r / 22
        thick = max(1, round(r / 9))
        (w, h), _ = cv2.getTextSize(word, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        origin = (round(x - w / 2), round(y + h / 2))
        ink = np.zeros(img.shape[:2], np.uint8)  # putText draws on 8-bit pictures only
        cv2.putText(ink, word, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, 255, thick, _AA)
        alpha = (ink.astype(np.float32) / 255)[..., None]
        img[:] = img * (1 - alpha) + np.array(_LIGHT, np.float32) * alpha

    return draw


def _hue(word: str) -> tuple[float, float, float]:
    """Return a strong colour fixed by a word (each Queenie feature gets its own)."""
    hsv = np.array([[[zlib.crc32(word.encode("utf-8")) % 180, 200, 150]]], np.uint8)
    r, g, b = cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)[0, 0] / 255
    return (float(r), float(g), float(b))


def marks(tile: TileDef) -> list[tuple[tuple[float, float, float], Glyph]]:
    """Return the badges a tile shows (colour, glyph), in the order they are laid out."""
    found: list[tuple[tuple[float, float, float], Glyph]] = []
    if tile.curse:
        found.append(((0.45, 0.15, 0.55), _mask))
    if tile.treasure:
        found.append(((0.9, 0.7, 0.2), _chest))
    if tile.illusion:
        found.append(((0.45, 0.7, 0.85), _rings))
    special = {"linked": ((0.85, 0.45, 0.1), _chain), "double": ((0.35, 0.35, 0.4), _wall)}
    if tile.special is not None:
        found.append(special.get(tile.special, ((0.95, 0.8, 0.3), _cup)))
    if tile.quest is not None:
        found.append(((0.15, 0.55, 0.25), _text("?")))
    if tile.trap is not None:
        found.append(((0.8, 0.15, 0.1), _spikes))
    if tile.time is not None:
        found.append(((0.15, 0.3, 0.7), _hourglass))
    if tile.feature is not None:
        found.append((_hue(tile.feature), _text(tile.feature[:2].upper())))
    return found


def draw_marks(img: np.ndarray, tile: TileDef) -> None:
    """Draw the tile's module badges on its RGB float art (in place, own frame)."""
    size = img.shape[0]
    r = RADIUS * size
    for (u, v), (colour, glyph) in zip(SLOTS, marks(tile), strict=False):
        x, y = u * size, v * size
        _circle(img, x, y, r, colour, -1)
        _circle(img, x, y, r, _DARK, max(1, size // 120))
        glyph(img, x, y, r)
