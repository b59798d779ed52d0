"""Tile identification speed on this machine: median milliseconds per cell picture."""

from __future__ import annotations

import statistics
import time
from typing import Any

import cv2
import numpy as np

from calibration.enrollment import BACK, TileLibrary
from calibration.tile_match import identify, stairs_for


def bench_cell(
    art_bgr: np.ndarray, clockwise_deg: float, rng: np.random.Generator, cell_px: int, tile_px: int
) -> np.ndarray:
    """Lay a tile picture, turned clockwise, in the middle of a plain noisy table patch."""
    colour = rng.uniform(60, 200, 3)
    noise = rng.normal(0, 12, (cell_px, cell_px, 1)).astype(np.float32)
    table = np.clip(cv2.GaussianBlur(colour + noise, (0, 0), 1.5), 0, 255).astype(np.uint8)
    n = art_bgr.shape[0]
    matrix = cv2.getRotationMatrix2D((n / 2, n / 2), -clockwise_deg, tile_px / n)
    matrix[:, 2] += cell_px / 2 - n / 2
    size = (cell_px, cell_px)
    tile = cv2.warpAffine(art_bgr, matrix, size, flags=cv2.INTER_AREA)
    mask = cv2.warpAffine(np.full((n, n), 255, np.uint8), matrix, size)
    return np.where(mask[..., None] > 127, tile, table)


def bench_identify(
    library: TileLibrary | None = None,
    *,
    repeats: int = 3,
    cell_px: int = 260,
    tile_px: int = 200,
    seed: int = 0,
) -> dict[str, Any]:
    """Time `identify` on every enrolled picture laid in a cell at a random quarter turn.

    Cells are 2 px/mm views of a 100 mm tile with a 15 mm margin by default. Returns the
    median, 90th percentile and best wall-clock ms per identification, the CPU ms, how many
    answers were right, and how long computing the library's features took (once per library).
    """
    library = library if library is not None else TileLibrary.default()
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    for _, appearance in library.references():
        _ = appearance.features, appearance.thumb
    setup_ms = (time.perf_counter() - start) * 1000
    cells = []
    for tile_id, appearance in library.references():
        turns = int(rng.integers(4))
        angle = 90 * turns + float(rng.uniform(-3, 3))
        cells.append(
            (tile_id, stairs_for(turns), bench_cell(appearance.image, angle, rng, cell_px, tile_px))
        )
    wall, cpu = [], []
    right = wrong = unknown = 0
    for _ in range(max(1, repeats)):
        for tile_id, stairs, cell in cells:
            t0, c0 = time.perf_counter(), time.process_time()
            match = identify(library, cell, tile_px=tile_px)
            wall.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            if match is None:
                unknown += 1
            elif match.tile == tile_id and (tile_id == BACK or match.stairs == stairs):
                right += 1
            else:
                wrong += 1
    wall.sort()
    return {
        "cells": len(cells),
        "runs": len(wall),
        "cell_px": cell_px,
        "tile_px": tile_px,
        "ms_median": round(statistics.median(wall), 2),
        "ms_p90": round(wall[min(len(wall) - 1, int(0.9 * len(wall)))], 2),
        "ms_min": round(wall[0], 2),
        "cpu_ms_median": round(statistics.median(cpu), 2),
        "right": right,
        "wrong": wrong,
        "unknown": unknown,
        "library_setup_ms": round(setup_ms, 1),
        "opencv_threads": cv2.getNumThreads(),
    }
