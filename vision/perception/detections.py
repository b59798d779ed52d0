"""`Detections`: the one value every detector produces and every later stage reads.

Boxes are (x1, y1, x2, y2) floats in image pixels of the frame the detector was given. Box
geometry shared by the detector and the evaluation (`box_iou`, `nms`) lives here too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

_EPS = 1e-9


def box_area(xyxy: np.ndarray) -> np.ndarray:
    """Return the areas (N,) of boxes (N, 4); inverted boxes have area 0."""
    xyxy = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
    return np.clip(xyxy[:, 2] - xyxy[:, 0], 0, None) * np.clip(xyxy[:, 3] - xyxy[:, 1], 0, None)


def box_intersection(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return the intersection areas (N, M) of boxes a (N, 4) and b (M, 4)."""
    a = np.asarray(a, dtype=np.float64).reshape(-1, 4)
    b = np.asarray(b, dtype=np.float64).reshape(-1, 4)
    w = np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0])
    h = np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1])
    return np.clip(w, 0, None) * np.clip(h, 0, None)


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return the intersection over union (N, M) of boxes a (N, 4) and b (M, 4)."""
    inter = box_intersection(a, b)
    union = box_area(a)[:, None] + box_area(b)[None, :] - inter
    return inter / np.maximum(union, _EPS)


NMS_MATRIX_MAX = 512
"""Up to this many boxes, `nms` measures every pair's overlap at once (a frame's dice: about
0.05 ms instead of 0.5); more (an evaluation's thousands of faint candidates) go one kept box at
a time, so memory stays small. Both ways keep the same boxes."""


def nms(
    xyxy: np.ndarray,
    scores: np.ndarray,
    iou_threshold: float,
    class_id: np.ndarray | None = None,
) -> np.ndarray:
    """Greedy non-maximum suppression; return kept indices, best score first.

    With `class_id`, boxes only suppress boxes of their own class. A box is dropped when it
    overlaps a kept, higher-scoring box by more than `iou_threshold` (ties keep the lower index).
    """
    boxes = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
    scores = np.asarray(scores, dtype=np.float64).reshape(-1)
    if len(boxes) == 0:
        return np.zeros(0, dtype=np.int64)
    if class_id is not None:
        # Shift each class to its own region of the plane: boxes of different classes never meet.
        span = float(np.abs(boxes).max()) * 2 + 1
        boxes = boxes + np.asarray(class_id, dtype=np.float64).reshape(-1, 1) * span
    order = np.argsort(-scores, kind="stable")
    if len(boxes) <= NMS_MATRIX_MAX:
        return _nms_by_matrix(boxes, order, iou_threshold)
    return _nms_one_by_one(boxes, order, iou_threshold)


def _pair_iou(boxes: np.ndarray, areas: np.ndarray, best: Any, rest: np.ndarray) -> np.ndarray:
    """Return the overlap of box(es) `best` with boxes `rest` (indices into `boxes`, whose
    areas are `areas`)."""
    w = np.minimum(boxes[best, 2], boxes[rest, 2]) - np.maximum(boxes[best, 0], boxes[rest, 0])
    h = np.minimum(boxes[best, 3], boxes[rest, 3]) - np.maximum(boxes[best, 1], boxes[rest, 1])
    inter = np.clip(w, 0, None) * np.clip(h, 0, None)
    return inter / np.maximum(areas[best] + areas[rest] - inter, _EPS)


def _nms_by_matrix(boxes: np.ndarray, order: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Greedy suppression in score `order` with every pair's overlap measured at once."""
    every = np.arange(len(boxes))
    over = _pair_iou(boxes, box_area(boxes), every[:, None], every[None, :]) > iou_threshold
    dropped = np.zeros(len(boxes), dtype=bool)
    keep: list[int] = []
    for index in order.tolist():
        if not dropped[index]:
            keep.append(index)
            dropped |= over[index]
    return np.asarray(keep, dtype=np.int64)


def _nms_one_by_one(boxes: np.ndarray, order: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Greedy suppression in score `order`, one kept box's overlaps at a time."""
    areas = box_area(boxes)
    keep: list[int] = []
    while order.size:
        best, rest = order[0], order[1:]
        keep.append(int(best))
        if not rest.size:
            break
        order = rest[_pair_iou(boxes, areas, best, rest) <= iou_threshold]
    return np.asarray(keep, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class Detections:
    """Boxes found in one image: xyxy (N, 4) px, confidence (N,), class_id (N,) into class_names."""

    xyxy: np.ndarray
    confidence: np.ndarray
    class_id: np.ndarray
    class_names: tuple[str, ...]
    guess: np.ndarray | None = None
    """A die read unsurely (`die_unreadable`): the class id of the face the reader finds
    likeliest, and -1 for every other box (N,); None given: all -1."""
    guess_share: np.ndarray | None = None
    """That face's share of the die's face probabilities (N,), 0 where there is no guess."""

    def __post_init__(self) -> None:
        xyxy = np.asarray(self.xyxy, dtype=np.float32).reshape(-1, 4)
        confidence = np.asarray(self.confidence, dtype=np.float32).reshape(-1)
        class_id = np.asarray(self.class_id, dtype=np.int64).reshape(-1)
        if not len(xyxy) == len(confidence) == len(class_id):
            raise ValueError(
                f"Detections: {len(xyxy)} boxes, {len(confidence)} confidences and "
                f"{len(class_id)} class ids must be as many"
            )
        names = tuple(str(n) for n in self.class_names)
        if len(class_id) and (class_id.min() < 0 or class_id.max() >= len(names)):
            raise ValueError(f"Detections: class ids must lie in 0..{len(names) - 1}")
        object.__setattr__(self, "xyxy", xyxy)
        object.__setattr__(self, "confidence", confidence)
        object.__setattr__(self, "class_id", class_id)
        object.__setattr__(self, "class_names", names)
        guess = np.full(len(xyxy), -1, np.int64) if self.guess is None else self.guess
        share = np.zeros(len(xyxy), np.float32) if self.guess_share is None else self.guess_share
        guess = np.asarray(guess, dtype=np.int64).reshape(-1)
        share = np.asarray(share, dtype=np.float32).reshape(-1)
        if not len(guess) == len(share) == len(xyxy):
            raise ValueError("Detections: one guess and one guess share a box")
        if len(guess) and (guess.min() < -1 or guess.max() >= len(names)):
            raise ValueError(f"Detections: guessed class ids must lie in -1..{len(names) - 1}")
        object.__setattr__(self, "guess", guess)
        object.__setattr__(self, "guess_share", share)

    @classmethod
    def empty(cls, class_names: Sequence[str]) -> Detections:
        """Return no detections for a model with `class_names`."""
        return cls(np.zeros((0, 4)), np.zeros(0), np.zeros(0, dtype=np.int64), tuple(class_names))

    @classmethod
    def concatenate(cls, items: Iterable[Detections]) -> Detections:
        """Join detections of the same image and model into one value."""
        items = list(items)
        if not items:
            raise ValueError("Detections.concatenate needs at least one Detections value")
        names = items[0].class_names
        if any(d.class_names != names for d in items):
            raise ValueError("Detections.concatenate: the values come from different class lists")
        return cls(
            np.concatenate([d.xyxy for d in items]),
            np.concatenate([d.confidence for d in items]),
            np.concatenate([d.class_id for d in items]),
            names,
            np.concatenate([d.guesses for d in items]),
            np.concatenate([d.shares for d in items]),
        )

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index: int | slice | np.ndarray | Sequence[int]) -> Detections:
        """Select detections by position, slice, index array or boolean mask."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return Detections(
            self.xyxy[index],
            self.confidence[index],
            self.class_id[index],
            self.class_names,
            self.guesses[index],
            self.shares[index],
        )

    @property
    def guesses(self) -> np.ndarray:
        """Return each box's guessed class id (-1: none), as an array (N,)."""
        assert self.guess is not None  # set in __post_init__
        return self.guess

    @property
    def shares(self) -> np.ndarray:
        """Return each box's guess share, as an array (N,)."""
        assert self.guess_share is not None  # set in __post_init__
        return self.guess_share

    def guessed_name(self, row: int) -> tuple[str | None, float]:
        """Return the face guessed for box `row` of a die read unsurely and its share, or
        (None, 0.0)."""
        guess = int(self.guesses[row])
        return (None, 0.0) if guess < 0 else (self.class_names[guess], float(self.shares[row]))

    @property
    def names(self) -> list[str]:
        """Return each detection's class name."""
        return [self.class_names[i] for i in self.class_id]

    @property
    def area(self) -> np.ndarray:
        """Return each box's area in square pixels."""
        return box_area(self.xyxy)

    def above(self, confidence: float) -> Detections:
        """Keep the detections whose confidence is at least `confidence`."""
        return self[self.confidence >= confidence]

    def with_classes(self, names: Iterable[str]) -> Detections:
        """Keep the detections of the named classes (names the model lacks select nothing)."""
        wanted = [i for i, n in enumerate(self.class_names) if n in set(names)]
        return self[np.isin(self.class_id, wanted)]

    def sorted(self) -> Detections:
        """Return the detections, most confident first."""
        return self[np.argsort(-self.confidence, kind="stable")]

    def nms(self, iou_threshold: float, agnostic: bool = False) -> Detections:
        """Suppress overlapping duplicates (within a class unless `agnostic`); best first."""
        keep = nms(self.xyxy, self.confidence, iou_threshold, None if agnostic else self.class_id)
        return self[keep]

    def clip(self, width: int, height: int) -> Detections:
        """Clip the boxes to an image of `width` x `height` pixels."""
        xyxy = self.xyxy.copy()
        xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clip(0, width)
        xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clip(0, height)
        return replace(self, xyxy=xyxy)

    def to_json(self, digits: int = 1) -> list[dict[str, Any]]:
        """Return `[{"class", "conf", "box": [x1, y1, x2, y2]}]`, boxes rounded to `digits`."""
        return [
            {
                "class": self.class_names[c],
                "conf": round(float(s), 3),
                "box": [round(float(v), digits) for v in box],
            }
            for box, s, c in zip(self.xyxy, self.confidence, self.class_id, strict=True)
        ]
