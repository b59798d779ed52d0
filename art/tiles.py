"""Chamber tile art: stone floor, walls and doorways, stairway, entry icons, gem sockets, backs."""

from __future__ import annotations

import zlib
from functools import lru_cache

import cv2
import numpy as np

from art.icons import face_icon
from art.noise import smooth_noise
from art.tile_marks import draw_marks
from rules.catalog import TileDef

WALL = 0.15
"""Wall thickness as a fraction of the tile edge."""
DOOR = (0.32, 0.68)
"""Where a doorway opens along an edge (fractions of the edge)."""

_AA = cv2.LINE_AA


def gem_spots(tile: TileDef) -> tuple[tuple[float, float], ...]:
    """Return the gem icons' centres in the tile's own texture frame (u east, v south, 0..1)."""
    if tile.gems is None:
        return ()
    if tile.gems.count == 1:
        return ((0.5, 0.64),)
    return ((0.3, 0.62), (0.5, 0.68), (0.7, 0.62))


def _seeded(name: str) -> np.random.Generator:
    """Return a generator fixed by a name, so a tile looks the same in every frame."""
    return np.random.default_rng(zlib.crc32(name.encode("utf-8")))


def _fixed(points: list[tuple[float, float]] | np.ndarray) -> np.ndarray:
    """Return points as OpenCV fixed-point coordinates."""
    return (np.asarray(points, dtype=np.float64) * 16).round().astype(np.int32)


def _stones(rng: np.random.Generator, size: int, base: np.ndarray, spread: float) -> np.ndarray:
    """Return a floor of flagstones in rows of uneven stones with dark joints."""
    img = np.zeros((size, size, 3), np.float32)
    rows = rng.integers(4, 6)
    row_h = size / rows
    joint = max(1, size // 110)
    for r in range(rows):
        x = -rng.uniform(0, row_h)
        while x < size:
            w = rng.uniform(0.7, 1.5) * row_h
            tone = base * rng.uniform(1 - spread, 1 + spread) * rng.uniform(0.96, 1.04, 3)
            y0, y1 = int(r * row_h), int((r + 1) * row_h)
            cv2.rectangle(img, (int(x), y0), (int(x + w), y1), tone.tolist(), -1)
            cv2.rectangle(img, (int(x), y0), (int(x + w), y1), (base * 0.45).tolist(), joint)
            x += w
    noise = (
        1
        + 0.06 * smooth_noise(rng, size, size, size / 40)
        + 0.04 * smooth_noise(rng, size, size, 1.5)
    )
    return np.clip(img * noise[..., None], 0, 1)


def _walls(img: np.ndarray, rng: np.random.Generator, tile: TileDef, stone: np.ndarray) -> None:
    """Draw walls on every edge, with doorways on the open sides and a stairway on S."""
    size = img.shape[0]
    b = round(WALL * size)
    d0, d1 = int(DOOR[0] * size), int(DOOR[1] * size)
    wall = np.zeros((size, size), np.uint8)
    cv2.rectangle(wall, (0, 0), (size - 1, size - 1), 255, 2 * b)
    cut = {
        "N": ((d0, 0), (d1, b)),
        "S": ((d0, size - b), (d1, size - 1)),
        "W": ((0, d0), (b, d1)),
        "E": ((size - b, d0), (size - 1, d1)),
    }
    for side in tile.own_open_sides:
        cv2.rectangle(wall, *cut[side], 0, -1)
    blocks = _stones(rng, size, stone * 0.85, 0.15)
    m = (wall > 0)[..., None]
    img[:] = np.where(m, blocks, img)
    # The wall's inner face casts a soft shadow onto the floor; its top edge catches the light.
    shadow = cv2.GaussianBlur(wall.astype(np.float32) / 255, (0, 0), size / 50)
    img *= np.where(m, 1.0, 1 - 0.55 * shadow[..., None])
    edge = cv2.morphologyEx(wall, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)) > 0
    img[edge] = np.clip(stone * 1.5, 0, 1)
    steps = 5
    tread = np.clip(stone * 1.6, 0, 1)
    for i in range(steps):
        y0, y1 = size - b + i * b // steps, size - b + (i + 1) * b // steps
        img[y0:y1, d0:d1] = tread * (1.0 - 0.13 * i)
        img[y0 : y0 + max(1, size // 100), d0:d1] = stone * 0.4
    img[size - b :, d0 : d0 + max(1, size // 100)] = stone * 0.4
    img[size - b :, d1 - max(1, size // 100) : d1] = stone * 0.4


def _entry_frame(img: np.ndarray, icons: tuple[str, ...], centre: tuple[float, float]) -> None:
    """Draw the red frame holding the icons needed to enter the chamber."""
    if not icons:
        return
    size = img.shape[0]
    w, h = 0.44 * size, 0.22 * size
    cx, cy = centre[0] * size, centre[1] * size
    x0, y0, x1, y1 = int(cx - w / 2), int(cy - h / 2), int(cx + w / 2), int(cy + h / 2)
    cv2.rectangle(img, (x0, y0), (x1, y1), (0.93, 0.88, 0.74), -1)
    cv2.rectangle(img, (x0, y0), (x1, y1), (0.72, 0.08, 0.07), max(2, size // 45))
    icon = int(h * 0.92)
    for i, face in enumerate(icons):
        rgb, alpha = face_icon(face, icon)
        ix = int(cx - w / 4 + i * w / 2 - icon / 2) if len(icons) > 1 else int(cx - icon / 2)
        iy = int(cy - icon / 2)
        sub = img[iy : iy + icon, ix : ix + icon]
        a = alpha[: sub.shape[0], : sub.shape[1], None]
        sub[:] = sub * (1 - a) + rgb[: sub.shape[0], : sub.shape[1]] * a


def _gem_sockets(img: np.ndarray, tile: TileDef) -> None:
    """Draw a pale green gem icon where each activated gem will sit."""
    size = img.shape[0]
    r = 0.075 * size
    for u, v in gem_spots(tile):
        cx, cy = u * size, v * size
        diamond = [(cx, cy - r * 1.25), (cx + r, cy), (cx, cy + r * 1.25), (cx - r, cy)]
        cv2.fillPoly(img, [_fixed(diamond)], (0.55, 0.85, 0.55), _AA, 4)
        cv2.polylines(img, [_fixed(diamond)], True, (0.1, 0.4, 0.15), 2, _AA, 4)
    if tile.gems is not None:
        icon = int(0.13 * size)
        rgb, alpha = face_icon(tile.gems.icon, icon)
        x, y = int(0.84 * size - icon / 2), int(0.78 * size - icon / 2)
        sub = img[y : y + icon, x : x + icon]
        sub[:] = sub * (1 - alpha[..., None]) + rgb * alpha[..., None]


def _golden_disc(img: np.ndarray) -> None:
    """Draw the starting chamber's large golden disc with a ring of rays."""
    size = img.shape[0]
    c = (size * 8, size * 8)
    for k in range(16):
        a = 2 * np.pi * k / 16
        tip = (size / 2 + 0.34 * size * np.cos(a), size / 2 + 0.34 * size * np.sin(a))
        left = (size / 2 + 0.2 * size * np.cos(a - 0.12), size / 2 + 0.2 * size * np.sin(a - 0.12))
        r = (size / 2 + 0.2 * size * np.cos(a + 0.12), size / 2 + 0.2 * size * np.sin(a + 0.12))
        cv2.fillPoly(img, [_fixed([left, tip, r])], (0.85, 0.66, 0.2), _AA, 4)
    cv2.circle(img, c, int(0.25 * size * 16), (0.95, 0.76, 0.22), -1, _AA, 4)
    cv2.circle(img, c, int(0.25 * size * 16), (0.6, 0.42, 0.08), max(2, size // 60), _AA, 4)
    cv2.circle(img, c, int(0.16 * size * 16), (0.7, 0.52, 0.12), max(1, size // 90), _AA, 4)


def _exit_doorway(img: np.ndarray) -> None:
    """Draw the exit's doorway in the north wall and the cone of light falling from it."""
    size = img.shape[0]
    cone = np.zeros((size, size), np.float32)
    top = WALL * size
    pts = [(0.4 * size, top), (0.6 * size, top), (0.8 * size, 0.9 * size), (0.2 * size, 0.9 * size)]
    cv2.fillPoly(cone, [_fixed(pts)], 1.0, _AA, 4)
    ys = np.linspace(1, 0.2, size, dtype=np.float32)[:, None]
    cone = cv2.GaussianBlur(cone, (0, 0), size / 50) * ys
    img += cone[..., None] * np.array([0.75, 0.68, 0.42], np.float32)
    x0, x1 = int(0.38 * size), int(0.62 * size)
    cv2.rectangle(img, (x0, 0), (x1, int(top)), (0.96, 0.92, 0.7), -1)
    cv2.ellipse(
        img,
        (size // 2, int(top)),
        ((x1 - x0) // 2, int(top * 0.5)),
        0,
        180,
        360,
        (0.96, 0.92, 0.7),
        -1,
        _AA,
    )
    np.clip(img, 0, 1, out=img)


@lru_cache(maxsize=64)
def tile_texture(tile: TileDef, size: int) -> np.ndarray:
    """Return the RGB art of any chamber tile in its own frame (stairway at the bottom, S),
    with its modules' badges (purple mask, treasure, quest, trap, time, Queenie feature...)."""
    rng = _seeded(tile.tile_id)
    if tile.kind == "start":
        floor, stone = np.array([0.56, 0.56, 0.57]), np.array([0.42, 0.42, 0.44])
    elif tile.kind == "exit":
        floor, stone = np.array([0.2, 0.2, 0.22]), np.array([0.12, 0.12, 0.13])
    else:
        floor = np.array([0.62, 0.52, 0.38]) * rng.uniform(0.9, 1.1)
        stone = np.array([0.40, 0.31, 0.22]) * rng.uniform(0.9, 1.1)
    img = _stones(rng, size, floor.astype(np.float32), 0.1)
    if tile.kind == "exit":
        _exit_doorway(img)
    _walls(img, rng, tile, stone.astype(np.float32))
    if tile.kind == "start":
        _golden_disc(img)
    _entry_frame(img, tile.enter, (0.5, 0.78) if tile.kind == "exit" else (0.5, 0.34))
    _gem_sockets(img, tile)
    draw_marks(img, tile)
    cv2.rectangle(img, (0, 0), (size - 1, size - 1), (0.15, 0.12, 0.1), max(1, size // 120))
    return np.clip(img, 0, 1).astype(np.float32)


@lru_cache(maxsize=4)
def tile_back_texture(size: int) -> np.ndarray:
    """Return the back of a chamber tile (all alike): ochre with a stepped-pyramid emblem."""
    rng = _seeded("tile-back")
    base = np.array([0.55, 0.36, 0.16], np.float32)
    img = base * (1 + 0.05 * smooth_noise(rng, size, size, size / 30))[..., None]
    c = size / 2
    for k, scale in enumerate((0.46, 0.4, 0.3)):
        tone = (0.35, 0.22, 0.1) if k % 2 == 0 else (0.7, 0.5, 0.24)
        r = scale * size
        cv2.rectangle(
            img, (int(c - r), int(c - r)), (int(c + r), int(c + r)), tone, max(2, size // 40)
        )
    for step in range(4):
        w = (0.26 - 0.055 * step) * size
        y = c + 0.16 * size - step * 0.08 * size
        cv2.rectangle(
            img, (int(c - w), int(y - 0.08 * size)), (int(c + w), int(y)), (0.3, 0.18, 0.08), -1
        )
    cv2.rectangle(img, (0, 0), (size - 1, size - 1), (0.2, 0.12, 0.05), max(1, size // 100))
    return np.clip(img, 0, 1).astype(np.float32)


@lru_cache(maxsize=4)
def depot_texture(width: int, height: int) -> np.ndarray:
    """Return the gem depot board: dark stone with a raised rim and a gem emblem."""
    rng = _seeded("depot")
    img = _stones(rng, max(width, height), np.array([0.3, 0.3, 0.28], np.float32), 0.08)
    img = np.ascontiguousarray(img[:height, :width])
    rim = max(3, min(width, height) // 14)
    cv2.rectangle(img, (0, 0), (width - 1, height - 1), (0.45, 0.34, 0.2), 2 * rim)
    cv2.rectangle(img, (rim, rim), (width - rim, height - rim), (0.12, 0.1, 0.08), max(1, rim // 3))
    return img.astype(np.float32)
