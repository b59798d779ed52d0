"""Procedural surfaces: table tops and die wood, float32 RGB in [0, 1] (noise: `art.noise`)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from art.noise import smooth_noise

TABLE_MATERIALS = ("oak", "walnut", "pine", "felt", "laminate", "playmat", "cloth")
"""The table tops the renderer draws."""

_WOODS = {
    "oak": ((0.72, 0.56, 0.38), 0.10),
    "walnut": ((0.42, 0.28, 0.18), 0.12),
    "pine": ((0.86, 0.72, 0.52), 0.08),
}
_FLAT = {
    "felt": [(0.16, 0.38, 0.24), (0.14, 0.24, 0.42), (0.42, 0.14, 0.14), (0.30, 0.30, 0.32)],
    "laminate": [(0.90, 0.90, 0.88), (0.78, 0.78, 0.76), (0.55, 0.55, 0.55)],
    "playmat": [(0.12, 0.12, 0.13), (0.18, 0.16, 0.22), (0.10, 0.17, 0.20)],
    "cloth": [(0.86, 0.84, 0.78), (0.70, 0.20, 0.18), (0.55, 0.62, 0.72)],
}


def streaky_noise(
    rng: np.random.Generator, height: int, width: int, cell_y: float, cell_x: float
) -> np.ndarray:
    """Return smooth noise stretched along x: features `cell_x` long and `cell_y` high."""
    gh, gw = max(2, int(height / cell_y) + 2), max(2, int(width / cell_x) + 2)
    grid = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(grid, (width, height), interpolation=cv2.INTER_CUBIC)


def _jitter(rng: np.random.Generator, colour: tuple[float, ...], amount: float) -> np.ndarray:
    """Return `colour` with a random brightness and tint change."""
    rgb = np.array(colour, dtype=np.float32) * rng.uniform(1 - amount, 1 + amount)
    rgb *= rng.uniform(1 - amount / 2, 1 + amount / 2, 3).astype(np.float32)
    return np.clip(rgb, 0.02, 0.98)


def table_texture(
    rng: np.random.Generator, height: int, width: int, px_per_mm: float
) -> tuple[np.ndarray, dict[str, Any]]:
    """Draw a table top of `height` x `width` px; return it and what was drawn."""
    material = str(rng.choice(TABLE_MATERIALS, p=[0.2, 0.12, 0.12, 0.14, 0.16, 0.14, 0.12]))
    if material in _WOODS:
        base, grain = _WOODS[material]
        colour = _jitter(rng, base, 0.15)
        image = _wood(rng, height, width, px_per_mm, colour, grain)
    else:
        options = _FLAT[material]
        colour = _jitter(rng, options[rng.integers(len(options))], 0.12)
        shade = 1 + 0.04 * smooth_noise(rng, height, width, 60 * px_per_mm)
        fine = 1 + 0.05 * rng.standard_normal((height, width)).astype(np.float32)
        if material == "felt":
            fine = cv2.GaussianBlur(fine, (0, 0), 0.8)
        texture = shade * fine
        if material == "cloth" and rng.random() < 0.5:
            texture *= _weave(height, width, px_per_mm, rng)
        image = texture[..., None] * colour
    return np.clip(image, 0, 1).astype(np.float32), {
        "material": material,
        "colour": np.round(colour.astype(np.float64), 3).tolist(),
    }


def _wood(
    rng: np.random.Generator,
    height: int,
    width: int,
    px_per_mm: float,
    colour: np.ndarray,
    grain: float,
) -> np.ndarray:
    """Draw planks running along x with wavy grain and seams between planks."""
    plank = rng.uniform(90, 200) * px_per_mm
    ys = np.arange(height, dtype=np.float32)[:, None]
    warp = 6 * px_per_mm * streaky_noise(rng, height, width, 40 * px_per_mm, 300 * px_per_mm)
    period = rng.uniform(3.0, 7.0) * px_per_mm
    rings = np.sin(2 * np.pi * (ys + warp) / period)
    streaks = streaky_noise(rng, height, width, 1.5 * px_per_mm, 60 * px_per_mm)
    blotches = smooth_noise(rng, height, width, 80 * px_per_mm)
    tone = 1 + grain * (0.35 * rings + 0.45 * streaks + 0.4 * blotches)
    plank_index = np.floor(ys / plank).astype(np.int32)
    plank_tone = rng.uniform(0.88, 1.12, plank_index.max() + 2).astype(np.float32)[plank_index]
    seam = np.abs(((ys + plank / 2) % plank) - plank / 2) < 0.6 * px_per_mm
    tone = tone * plank_tone * np.where(seam, 0.6, 1.0)
    return tone[..., None] * colour


def _weave(height: int, width: int, px_per_mm: float, rng: np.random.Generator) -> np.ndarray:
    """Return a faint checked tablecloth pattern."""
    step = rng.uniform(20, 40) * px_per_mm
    ys = np.arange(height, dtype=np.float32)[:, None]
    xs = np.arange(width, dtype=np.float32)[None, :]
    checks = ((ys // step) + (xs // step)) % 2
    return (1 - 0.12 * checks).astype(np.float32)


@lru_cache(maxsize=16)
def die_grain(variant: int, size: int) -> np.ndarray:
    """Return a grey wood-grain multiplier (`size` x `size`) for die faces; variants differ."""
    rng = np.random.default_rng([7919, variant])
    ys = np.arange(size, dtype=np.float32)[:, None] / size
    warp = 0.15 * smooth_noise(rng, size, size, size / 3)
    period = rng.uniform(0.12, 0.3)
    rings = np.sin(2 * np.pi * (ys + warp) / period)
    fine = smooth_noise(rng, size, size, 2.0)
    grain = 1 + 0.06 * rings + 0.03 * fine
    return grain.astype(np.float32)


@lru_cache(maxsize=8)
def face_bevel(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (shade, alpha) of a die face with rounded corners and softly darkened edges."""
    coords = (np.arange(size, dtype=np.float32) + 0.5) / size
    u, v = np.meshgrid(coords, coords)
    edge = np.minimum(np.minimum(u, 1 - u), np.minimum(v, 1 - v))
    shade = 0.78 + 0.22 * np.clip(edge / 0.12, 0, 1) ** 0.6
    radius = 0.07
    du = np.clip(np.maximum(radius - u, u - (1 - radius)), 0, None)
    dv = np.clip(np.maximum(radius - v, v - (1 - radius)), 0, None)
    outside = np.sqrt(du * du + dv * dv) - radius
    alpha = np.clip(0.5 - outside * size, 0, 1)
    return shade.astype(np.float32), alpha.astype(np.float32)
