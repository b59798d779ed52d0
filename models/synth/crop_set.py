"""Many crops at once: `render_set` draws crops 0..n-1 of a seed, in worker processes.

The result is arrays (what training and evaluation use): images (n, S, S, 3) BGR uint8 and
labels (n,) indices into `LABELS`, -1 for a die whose face cannot be read (`UNKNOWN`). Crop i
depends only on (seed, i), so the same call gives the same arrays whatever the workers.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from models.synth.crop_look import Look
from models.synth.crops import LABELS, UNKNOWN, render_crop

RENDER_VERSION = 7
"""Change it with the crop renderer, so that cached sets are drawn again."""
CHUNK = 250
"""Crops a worker renders per job."""


@dataclass
class CropSet:
    """Rendered crops: images, label indices (-1: unreadable die) and what each shows."""

    images: np.ndarray
    labels: np.ndarray
    infos: list[dict[str, Any]]

    def __len__(self) -> int:
        """Return the number of crops."""
        return len(self.labels)


def label_index(label: str) -> int:
    """Return a crop label's index in `LABELS`, -1 for `UNKNOWN`."""
    return -1 if label == UNKNOWN else LABELS.index(label)


def _chunk(args: tuple[int, int, int, Look, int, float]) -> CropSet:
    """Render crops [start, stop) of a seed (in a worker)."""
    import cv2

    cv2.setNumThreads(1)
    seed, start, stop, look, imgsz, crop_scale = args
    crops = [render_crop(seed, i, look, imgsz, crop_scale) for i in range(start, stop)]
    return CropSet(
        np.stack([c.image for c in crops]),
        np.array([label_index(c.label) for c in crops], dtype=np.int64),
        [c.info for c in crops],
    )


def render_set(
    n: int,
    seed: int,
    look: Look,
    imgsz: int,
    crop_scale: float,
    workers: int = 2,
    log: Callable[[str], None] | None = None,
    chunk: int = CHUNK,
    progress: Callable[[int, int], None] | None = None,
) -> CropSet:
    """Render crops 0..n-1 of `seed` in `look` with `workers` processes (0: in this one);
    `progress(done, n)` is told after every chunk."""
    jobs = [(seed, s, min(n, s + chunk), look, imgsz, crop_scale) for s in range(0, n, chunk)]
    started = time.monotonic()
    parts: list[CropSet] = []

    def note(done: int) -> None:
        if progress is not None:
            progress(done, n)
        if log is not None:
            rate = done / max(time.monotonic() - started, 1e-6)
            log(f"crops: {done}/{n} rendered, {rate:.0f}/s")

    if workers <= 0 or len(jobs) == 1:
        for job in jobs:
            parts.append(_chunk(job))
            note(sum(len(p) for p in parts))
    else:
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            for part in pool.map(_chunk, jobs):
                parts.append(part)
                note(sum(len(p) for p in parts))
    if not parts:
        return CropSet(np.zeros((0, imgsz, imgsz, 3), np.uint8), np.zeros(0, np.int64), [])
    return CropSet(
        np.concatenate([p.images for p in parts]),
        np.concatenate([p.labels for p in parts]),
        [info for p in parts for info in p.infos],
    )
