"""Smooth random noise, the grain under every procedural surface (tiles, tables, dice)."""

from __future__ import annotations

import cv2
import numpy as np


def smooth_noise(rng: np.random.Generator, height: int, width: int, cell: float) -> np.ndarray:
    """Return zero-mean noise of unit-ish amplitude whose features are about `cell` px wide."""
    gh, gw = max(2, int(height / cell) + 2), max(2, int(width / cell) + 2)
    grid = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(grid, (width, height), interpolation=cv2.INTER_CUBIC)
