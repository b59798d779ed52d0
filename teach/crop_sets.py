"""The face reader's crops of a reviewed capture folder: jittered for training, exact to compare.

Crops are cut as the pipeline cuts them (`vision.perception.face_reader.crops_for`), so the taught
reader sees at run time what it was taught on. A training crop is cut around its box moved and
resized a little (`JITTER`), as the localiser's boxes wander from frame to frame; each die gives
`copies` of them. Held-back photos (`teach.prompted.held_back`) give one exact crop per die.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from teach.errors import TeachError
from teach.review import LABELS, Review, ReviewedDie
from vision.perception.classes import NOT_DIE
from vision.perception.face_reader import crops_for, jitter_box

JITTER = 0.08
"""Largest shift of a training crop's box, and its largest size change, as a share of its side."""


@dataclass(frozen=True)
class Crops:
    """Crops (N, S, S, 3) BGR uint8, their labels (indices into `teach.review.LABELS`), and
    which review die each came from."""

    images: np.ndarray
    labels: np.ndarray
    sources: np.ndarray

    def __len__(self) -> int:
        """Return the number of crops."""
        return len(self.labels)


def _empty(size: int) -> Crops:
    """Return a set of no crops."""
    return Crops(np.zeros((0, size, size, 3), np.uint8), np.zeros(0, np.int64), np.zeros(0, int))


def _occluded(
    crop: np.ndarray, image: np.ndarray, crop_scale: float, rng: np.random.Generator
) -> np.ndarray:
    """Return `crop` with a band from one side covered by a piece of elsewhere in the photo.

    Prompted photos show every die whole; at the table a neighbour, a tile edge or a hand
    often hides part of one (the reader then hesitates). Half the die at most is covered.
    """
    out = crop.copy()
    size = crop.shape[0]
    box = size / crop_scale
    margin = (size - box) / 2
    depth = round(margin + box * rng.uniform(0.15, 0.45))
    h, w = image.shape[:2]
    sx, sy = int(rng.integers(0, max(1, w - size))), int(rng.integers(0, max(1, h - size)))
    cover = cv2.resize(image[sy : sy + size, sx : sx + size], (size, size))
    side = int(rng.integers(4))
    if side == 0:
        out[:depth] = cover[:depth]
    elif side == 1:
        out[-depth:] = cover[-depth:]
    elif side == 2:
        out[:, :depth] = cover[:, :depth]
    else:
        out[:, -depth:] = cover[:, -depth:]
    return out


def cut_crops(
    folder: Path,
    review: Review,
    pick: Callable[[ReviewedDie], bool],
    size: int,
    crop_scale: float,
    copies: int = 1,
    seed: int = 0,
    occlude: float = 0.0,
) -> Crops:
    """Return crops of the review's dice that `pick` keeps (`copies` jittered ones each, or one
    exact crop when `copies` is 1); a share `occlude` of the jittered dice crops are partly
    covered (`_occluded`)."""
    rng = np.random.default_rng(seed)
    images, labels, sources = [], [], []
    by_image: dict[str, list[int]] = {}
    for index, die in enumerate(review.dice):
        if pick(die):
            by_image.setdefault(die.image, []).append(index)
    for file, indices in by_image.items():
        image = cv2.imread(str(Path(folder) / file), cv2.IMREAD_COLOR)
        if image is None:
            raise TeachError(f"{file} can no longer be read: replace or delete it")
        for index in indices:
            die = review.dice[index]
            if copies == 1:
                boxes = np.array([die.box], dtype=np.float64)
            else:
                boxes = np.array([jitter_box(die.box, rng, JITTER, JITTER) for _ in range(copies)])
            cut = crops_for(image, boxes, size, crop_scale)
            if copies > 1 and die.label != NOT_DIE:
                cut = [
                    _occluded(c, image, crop_scale, rng) if rng.random() < occlude else c
                    for c in cut
                ]
            images += cut
            labels += [LABELS.index(die.label)] * len(boxes)
            sources += [index] * len(boxes)
    if not images:
        return _empty(size)
    return Crops(np.stack(images), np.array(labels, np.int64), np.array(sources, int))
