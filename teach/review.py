"""The labels of a prompted capture folder: found automatically, reviewed by the user.

`auto_label` runs the localiser over every capture: each die found in a photo of `key/` is
labelled `key` (the prompt is the label), unless the shipped reader is sure it is no die at all
(tile art, a gem); everything die-like found on the empty table, and the gems and figures there,
are `not_die` (hard negatives: the user's own table, pieces and light). The review is kept in
`review.json` beside the photos (format `templecam-teach-review/1`, written atomically), so a
half-finished review survives a crash and the fine-tune reads what the user corrected.

Each found die also keeps what the shipped reader reads it as (`read`): when the reader
disagrees with most of a face's labels, the photos of that face probably show another face (or
the dice were not turned), which `Review.disagreement` tells. `done` is the user's word that the
labels were checked; labelling new photos clears it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from base.files import write_atomically
from teach.errors import TeachError
from teach.prompted import EMPTY, Capture, read_prompted
from vision.perception.classes import DIE_CLASSES, FACES, NOT_DIE

REVIEW_FILE = "review.json"
REVIEW_FORMAT = "templecam-teach-review/1"
LABELS: tuple[str, ...] = (*FACES, NOT_DIE)
"""What a reviewed die may be labelled."""
READ_AS: tuple[str, ...] = (*FACES, NOT_DIE)
"""What the shipped reader's reading of a crop may be, when it says something."""
SOURCES = ("found", "added", "piece")
"""found: by the localiser; added: by a click in the review; piece: a gem or figure on the
empty table, a hard negative."""
FOUND_CONF = 0.3
"""Lowest localiser score of a die labelled with the prompt."""
EMPTY_CONF = 0.1
"""Lowest localiser score of a die-like box on the empty table kept as a hard negative."""
NOT_DIE_SURE = 0.9
"""A found die that the shipped reader calls no die this surely is labelled not_die."""
PIECES_PER_EMPTY = 20
"""Most gems and figures of one empty-table photo kept as hard negatives."""


@dataclass
class ReviewedDie:
    """One crop of the review: where it is, what it is labelled, who said so."""

    image: str
    box: tuple[float, float, float, float]
    label: str
    source: str = "found"
    conf: float = 1.0
    read: str | None = None
    """What the shipped reader reads this crop as (None: not asked, as for an added die)."""

    def to_json(self) -> dict[str, Any]:
        """Return the die as review.json stores it."""
        out: dict[str, Any] = {
            "image": self.image,
            "box": [round(float(v), 1) for v in self.box],
            "label": self.label,
            "source": self.source,
            "conf": round(float(self.conf), 3),
        }
        if self.read is not None:
            out["read"] = self.read
        return out


@dataclass
class Review:
    """The captures of a folder and every die crop's label."""

    captures: list[Capture]
    dice: list[ReviewedDie] = field(default_factory=list)
    done: bool = False
    """The user said the labels are checked."""

    def to_json(self) -> dict[str, Any]:
        """Return the review as review.json stores it."""
        return {
            "format": REVIEW_FORMAT,
            "images": [c.to_json() for c in self.captures],
            "dice": [d.to_json() for d in self.dice],
            "done": self.done,
        }

    def disagreement(self) -> dict[str, tuple[int, int]]:
        """Return, per face, how many of its crops the shipped reader reads as something else
        and how many it read at all (a die it calls unreadable, or one never asked, is not
        counted)."""
        out = {}
        for face in FACES:
            reads = [d.read for d in self.dice if d.label == face and d.read in READ_AS]
            out[face] = (sum(1 for read in reads if read != face), len(reads))
        return out

    def save(self, folder: Path) -> Path:
        """Write `folder/review.json` atomically; return its path."""
        path = Path(folder) / REVIEW_FILE
        write_atomically(path, (json.dumps(self.to_json(), indent=1) + "\n").encode("utf-8"))
        return path

    def capture(self, file: str) -> Capture:
        """Return the capture named `file`."""
        for capture in self.captures:
            if capture.file == file:
                return capture
        raise TeachError(f"no photo {file!r} in this capture folder")

    def relabel(self, index: int, label: str) -> None:
        """Move crop `index` to another face, or to `not_die`."""
        if label not in LABELS:
            raise TeachError(f"{label!r}: give one of {', '.join(LABELS)}")
        if not 0 <= index < len(self.dice):
            raise TeachError(f"no crop {index}: the review has {len(self.dice)}")
        self.dice[index].label = label

    def add(self, image: str, x: float, y: float, label: str | None = None) -> int:
        """Add a die the localiser missed, centred on (x, y) of `image`; return its index.

        Its box has the median size of the dice found (or 30 px), its label the photo's prompt.
        """
        capture = self.capture(image)
        if not (0 <= x < capture.width and 0 <= y < capture.height):
            raise TeachError(
                f"({x:.0f}, {y:.0f}) lies outside the {capture.width}x{capture.height} photo"
            )
        label = label or (capture.prompt if capture.prompt != EMPTY else NOT_DIE)
        if label not in LABELS:
            raise TeachError(f"{label!r}: give one of {', '.join(LABELS)}")
        box = square_around(x, y, self.die_side())
        self.dice.append(ReviewedDie(image, box, label, "added", 1.0))
        return len(self.dice) - 1

    def die_side(self) -> float:
        """Return the median side of the dice found (30 px when none)."""
        return median_side([d.box for d in self.dice if d.source != "piece"])

    def counts(self) -> dict[str, int]:
        """Return how many crops carry each label."""
        return {label: sum(1 for d in self.dice if d.label == label) for label in LABELS}


def load_review(folder: Path) -> Review | None:
    """Return the review saved in `folder`, or None when there is none yet.

    A review whose photos changed since (added, removed) keeps the labels of the photos still
    there; new photos are labelled by the next `auto_label`.
    """
    path = Path(folder) / REVIEW_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text("utf-8"))
        if data.get("format") != REVIEW_FORMAT:
            raise ValueError(f"format {data.get('format')!r}, not {REVIEW_FORMAT}")
        captures = [
            Capture(str(c["file"]), str(c["prompt"]), int(c["width"]), int(c["height"]))
            for c in data["images"]
        ]
        dice = [
            ReviewedDie(
                str(d["image"]),
                tuple(float(v) for v in d["box"]),  # type: ignore[arg-type]
                str(d["label"]),
                str(d.get("source", "found")),
                float(d.get("conf", 1.0)),
                str(d["read"]) if d.get("read") is not None else None,
            )
            for d in data["dice"]
        ]
        done = bool(data.get("done", False))
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise TeachError(
            f"{path} is damaged ({error}): delete it to label the photos afresh"
        ) from None
    bad = [d.label for d in dice if d.label not in LABELS]
    if bad:
        raise TeachError(f"{path}: unknown labels {', '.join(sorted(set(bad)))}")
    return Review(captures, dice, done)


def auto_label(
    folder: Path,
    localiser: Any,
    progress: Callable[[int, int], None] | None = None,
    keep: Review | None = None,
) -> Review:
    """Label every capture of `folder` (see the module docstring); photos that `keep` already
    labels keep their reviewed labels."""
    captures = read_prompted(folder)
    known = {c.file for c in keep.captures} if keep else set()
    dice = [d for d in keep.dice if d.image in {c.file for c in captures}] if keep else []
    todo = [c for c in captures if c.file not in known]
    for done, capture in enumerate(todo, start=1):
        image = cv2.imread(str(Path(folder) / capture.file), cv2.IMREAD_COLOR)
        if image is None:
            raise TeachError(f"{capture.file} can no longer be read: replace or delete it")
        dice += label_capture(image, capture, localiser)
        if progress is not None:
            progress(done, len(todo))
    order = {c.file: i for i, c in enumerate(captures)}
    dice.sort(key=lambda d: order[d.image])
    same = keep is not None and not todo and len(captures) == len(keep.captures)
    return Review(captures, dice, done=bool(same and keep.done))


def label_capture(image: np.ndarray, capture: Capture, localiser: Any) -> list[ReviewedDie]:
    """Return the labelled crops of one capture (see the module docstring)."""
    empty = capture.prompt == EMPTY
    found = localiser.locate(image, EMPTY_CONF if empty else FOUND_CONF)
    names = found.names
    is_die = np.array([n in DIE_CLASSES for n in names], dtype=bool)
    dice_boxes = found.xyxy[is_die]
    scores = found.confidence[is_die]
    out: list[ReviewedDie] = []
    if empty:
        out += [
            ReviewedDie(capture.file, _box(b), NOT_DIE, "found", float(s))
            for b, s in zip(dice_boxes, scores, strict=True)
        ]
        out += _pieces(found, capture, median_side(dice_boxes))
        return out
    not_die, reads = _shipped_reads(localiser, image, dice_boxes)
    for box, score, share, read in zip(dice_boxes, scores, not_die, reads, strict=True):
        label = NOT_DIE if share >= NOT_DIE_SURE else capture.prompt
        out.append(ReviewedDie(capture.file, _box(box), label, "found", float(score), read))
    return out


def _box(box: Sequence[float]) -> tuple[float, float, float, float]:
    """Return a box as a tuple of four floats."""
    x1, y1, x2, y2 = (float(v) for v in box)
    return (x1, y1, x2, y2)


def median_side(boxes: Sequence[Sequence[float]] | np.ndarray) -> float:
    """Return the median longer side of boxes (x1, y1, x2, y2) (30 px when none)."""
    if not len(boxes):
        return 30.0
    xyxy = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    return float(np.median(np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])))


def square_around(cx: float, cy: float, side: float) -> tuple[float, float, float, float]:
    """Return the square box of `side` px centred on (cx, cy): a die-sized crop's box."""
    return (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)


def _pieces(found: Any, capture: Capture, side: float) -> list[ReviewedDie]:
    """Return die-sized crops centred on the gems and figures of an empty-table photo."""
    out = []
    for box, name, score in zip(found.xyxy, found.names, found.confidence, strict=True):
        if name not in ("gem", "figure") or score < FOUND_CONF:
            continue
        square = square_around(float(box[0] + box[2]) / 2, float(box[1] + box[3]) / 2, side)
        out.append(ReviewedDie(capture.file, square, NOT_DIE, "piece", float(score)))
    return out[:PIECES_PER_EMPTY]


def _shipped_reads(
    localiser: Any, image: np.ndarray, boxes: np.ndarray
) -> tuple[np.ndarray, list[str | None]]:
    """Return the shipped reader's not_die probability for each box (0 without a reader) and
    what it reads each box as (None without a reader)."""
    reader = getattr(localiser, "faces", None)
    if reader is None or not len(boxes) or NOT_DIE not in reader.names:
        return np.zeros(len(boxes)), [None] * len(boxes)
    probabilities = reader.probabilities(image, boxes)
    names = list(reader.names)
    reads = [str(names[int(i)]) for i in np.argmax(probabilities, axis=1)]
    return probabilities[:, names.index(NOT_DIE)], reads
