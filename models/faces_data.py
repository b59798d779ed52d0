"""The reader's training data: rendered crop sets cached on disk, and batches as torch sees them.

A crop set (`models.synth.crop_set`) is rendered once per (seed, size, look, input size, crop
scale, renderer version) and cached as `.npz` in the run folder, so a resumed run and the
evaluation reuse it. Batches are the reader's input
(`vision.perception.face_reader.crops_to_tensor`: RGB, 0..1); training batches also get a random
quarter turn and a mild colour change per crop, and soft targets: label smoothing, and an even share
over the five faces for a die whose face cannot be read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from base.files import write_atomically
from models.synth.crop_look import Look
from models.synth.crop_set import RENDER_VERSION, CropSet, render_set
from models.synth.crops import LABELS, NOT_DIE

FACE_COUNT = LABELS.index(NOT_DIE)
"""The faces come first in `LABELS`; `not_die` after them."""


def cache_name(kind: str, n: int, seed: int, look: Look, imgsz: int, crop_scale: float) -> str:
    """Return the file name of a cached crop set."""
    key = f"{RENDER_VERSION}|{n}|{seed}|{look.describe()}|{imgsz}|{crop_scale}"
    return f"{kind}-{n}-s{seed}-{hashlib.sha1(key.encode()).hexdigest()[:10]}.npz"


def cached_set(
    folder: Path,
    kind: str,
    n: int,
    seed: int,
    look: Look,
    imgsz: int,
    crop_scale: float,
    workers: int,
    log: Callable[[str], None],
    progress: Callable[[int, int], None] | None = None,
) -> CropSet:
    """Return crop set (seed, n, look) from `folder`, rendering and caching it when missing
    (`progress(done, n)` follows the rendering)."""
    path = folder / cache_name(kind, n, seed, look, imgsz, crop_scale)
    if path.is_file():
        with np.load(path) as data:
            log(f"crops: {kind} set of {n} from {path}")
            return CropSet(data["images"], data["labels"], [])
    log(f"crops: rendering the {kind} set ({n} crops, seed {seed}, look {look.describe()})")
    crops = render_set(n, seed, look, imgsz, crop_scale, workers, log, progress=progress)
    folder.mkdir(parents=True, exist_ok=True)
    import io

    buffer = io.BytesIO()
    np.savez(buffer, images=crops.images, labels=crops.labels)
    write_atomically(path, buffer.getvalue())
    return crops


def to_tensor(images: np.ndarray) -> torch.Tensor:
    """Return BGR uint8 crops (N, S, S, 3) as RGB uint8 (N, 3, S, S) (scaled per batch)."""
    return torch.from_numpy(np.ascontiguousarray(images[..., ::-1].transpose(0, 3, 1, 2)))


def as_input(batch: torch.Tensor) -> torch.Tensor:
    """Return uint8 RGB crops as the reader's float input in 0..1."""
    return batch.float().div_(255.0)


_TO_YIQ = torch.tensor([[0.299, 0.587, 0.114], [0.596, -0.274, -0.322], [0.211, -0.523, 0.312]])
_FROM_YIQ = torch.linalg.inv(_TO_YIQ)
HUE_DEGREES = 20.0
"""Largest hue turn of the colour augmentation (half the crops)."""


def colour_matrices(n: int, generator: torch.Generator) -> torch.Tensor:
    """Return per-crop RGB transforms (n, 3, 3): a hue turn, a saturation and a brightness change.

    Half the crops turn hue by up to `HUE_DEGREES` (the wood and the paint together, so that
    shape, not the exact colour, tells the faces apart); saturation 0.7-1.3, brightness +-12 %.
    """
    turn = (torch.rand(n, generator=generator) * 2 - 1) * HUE_DEGREES
    turn = turn * (torch.rand(n, generator=generator) < 0.5)
    angle = torch.deg2rad(turn)
    saturation = 0.7 + 0.6 * torch.rand(n, generator=generator)
    brightness = 1 + 0.12 * (torch.rand(n, generator=generator) * 2 - 1)
    yiq = torch.zeros(n, 3, 3)
    yiq[:, 0, 0] = 1.0
    yiq[:, 1, 1] = torch.cos(angle) * saturation
    yiq[:, 1, 2] = -torch.sin(angle) * saturation
    yiq[:, 2, 1] = torch.sin(angle) * saturation
    yiq[:, 2, 2] = torch.cos(angle) * saturation
    return brightness[:, None, None] * (_FROM_YIQ @ yiq @ _TO_YIQ)


def augment(batch: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Turn each crop by a random quarter turn and change its colour (`colour_matrices`)."""
    n = batch.shape[0]
    turns = torch.randint(0, 4, (n,), generator=generator)
    out = batch.clone()
    for k in range(1, 4):
        pick = turns == k
        if pick.any():
            out[pick] = torch.rot90(batch[pick], k, dims=(2, 3))
    tint = 1 + 0.05 * (torch.rand(n, 3, 1, 1, generator=generator) * 2 - 1)
    mixed = torch.einsum("nij,njhw->nihw", colour_matrices(n, generator), out)
    return (mixed * tint).clamp_(0.0, 1.0)


def soft_targets(labels: torch.Tensor, classes: int, smoothing: float) -> torch.Tensor:
    """Return target distributions: smoothed one-hot, or an even share of the faces for -1."""
    targets = torch.zeros(len(labels), classes)
    known = labels >= 0
    targets[known] = torch.nn.functional.one_hot(labels[known], classes).float()
    targets[~known, :FACE_COUNT] = 1.0 / FACE_COUNT
    return targets * (1 - smoothing) + smoothing / classes
