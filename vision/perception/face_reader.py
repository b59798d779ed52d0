"""A second look at every die: a small classifier on full-resolution crops (ONNX Runtime, no torch).

The detector finds dice 25-35 px across but often names the wrong face, and sees dice in tile art
or gems. `FaceReader` cuts a square around each box from the full frame (`CROP_SCALE` times the
box's longer side, centred on it, grey beyond the frame's edges), resizes it to the classifier's
input and reads one of the five faces or `not_die` (an older reader also `unreadable`; the
shipped one has no such class: a die whose face cannot be read spreads its share over the five
faces, and voting over settled frames waits for it). `reread_dice` applies it to a
detector's output: overlapping dice merge into one, each is renamed to the face read, and the ones
the classifier is sure are no die are dropped. The crops made here are the ones the classifier is
trained on (`models.synth.crops` cuts its rendered crops with these functions, `models.faces`
trains on them), so training and run time see the same pixels.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.perception.classes import (
    DIE_CLASSES,
    DIE_UNREADABLE,
    NOT_DIE,
    READER_CLASSES,
    detection_class,
)
from vision.perception.classes import READER_UNREADABLE as UNREADABLE
from vision.perception.detections import Detections, nms
from vision.perception.letterbox import PAD_VALUE, to_tensor
from vision.perception.model_contract import FaceReaderCard, props_of, sidecar_metadata
from vision.perception.onnx_model import ModelError, default_threads, open_session
from vision.perception.shipped import FACES, FACES_INT8, running_copy, shipped_path

CROP_SCALE = 1.3
"""Crop side over the box's longer side: a margin for boxes that cut a die short."""
MIN_CROP = 8
"""Smallest crop side in frame px."""
CLASSES = READER_CLASSES
"""What the classifier tells apart (`vision.perception.classes.READER_CLASSES`)."""
DROP_CONF = 0.5
"""A die-like detection is dropped when the reader gives `not_die` more than this."""
MERGE_IOU = 0.3
"""Die boxes of any die class overlapping more than this are one die (dice seldom overlap)."""
UNREADABLE_CONF = 0.6
"""A die is unreadable only when the reader says so this surely; else its likeliest face."""
UNSURE_FACE = 0.5
"""A die whose likeliest face has less than this share of its face probabilities is reported
`die_unreadable` (shown as "?"): the stability stage waits for a surer frame."""
CANDIDATE_CONF = 0.05
"""The detector passes die-like boxes down to this confidence to the reader (see `reread_dice`)."""
CHUNK = 64
"""Crops per ONNX Runtime call when the model takes any batch size."""
SECOND_LOOK_CONF = 0.15
"""Only dice the localiser is at least this sure of get a second look (its candidates go down
to `CANDIDATE_CONF`, and most faint ones are no die)."""
SECOND_LOOKS = (
    (0.8, 0.0, 0.0),
    (1.25, 0.0, 0.0),
    (1.0, -0.15, 0.0),
    (1.0, 0.15, 0.0),
    (1.0, 0.0, -0.15),
    (1.0, 0.0, 0.15),
)
"""How a die read unsurely is looked at again: (box scale, shift x, shift y as a share of the
box side); the reader's probabilities over these crops and the first are averaged."""
READ_TURNS = 4
"""A crop read unsurely is read turned by this many quarter turns (0 to 3) and the readings
averaged: the reader learnt dice turned every way, and its mistakes on one turn seldom agree
with those on the others (`README.md`, *Perception*, "Each unsure crop read four ways")."""
TURN_BELOW = 0.8
"""Only crops whose likeliest class has less than this probability are read turned (a quarter
of a game's crops): on resting dice of ten rendered games this read exactly as many right as
turning every crop (0.6 misread 11 more)."""


READER_CHOICES = ("auto", "int8", "float", "off")
"""The readers a `faces=` setting names by word (`open_face_reader`); anything else is a path."""


class FaceModelError(Exception):
    """The face classifier file cannot be used; the message says why."""


def default_faces_path() -> Path:
    """Return where the shipped die-face classifier lives (`vision.perception.shipped`)."""
    return shipped_path(FACES)


def open_face_reader(
    choice: str = "auto", threads: int | None = None, spin: bool = False, turns: int = READ_TURNS
) -> FaceReader | None:
    """Open the face reader a `faces=` setting names: "auto" (the shipped reader's int8 copy,
    else the shipped reader; None when neither is installed), "int8" (that copy), "float" (the
    shipped reader itself), "off" (None) or the path of a reader .onnx. The one way the
    localiser and the detector open it; ModelError, naming the setting, when it does not
    open."""
    if choice == "off":
        return None
    if choice == "auto":
        path = running_copy(shipped_path(FACES), shipped_path(FACES_INT8))
        if not path.is_file():
            return None
    else:
        shipped = {"int8": FACES_INT8, "float": FACES}
        path = shipped_path(shipped[choice]) if choice in shipped else Path(choice).expanduser()
    try:
        return FaceReader(path, threads, spin, turns)
    except FaceModelError as error:
        raise ModelError(f"faces={choice}: {error}") from None


def crop_window(box: Sequence[float], scale: float = CROP_SCALE) -> tuple[int, int, int, int]:
    """Return the square (x0, y0, x1, y1), in frame px, that a box (x1, y1, x2, y2) is read in.

    Centred on the box, its side is `scale` times the box's longer side (at least `MIN_CROP`); it
    may reach beyond the frame (`crop_square` pads there).
    """
    x1, y1, x2, y2 = (float(v) for v in box)
    side = max(MIN_CROP, round(max(x2 - x1, y2 - y1) * scale))
    x0 = round((x1 + x2) / 2 - side / 2)
    y0 = round((y1 + y2) / 2 - side / 2)
    return x0, y0, x0 + side, y0 + side


def jitter_box(
    box: Sequence[float], rng: np.random.Generator, shift: float, zoom: float
) -> list[float]:
    """Move a box's centre by up to `shift` of its longer side and scale it by 1 +- `zoom`
    (training crops: the boxes a localiser gives wander from frame to frame)."""
    x1, y1, x2, y2 = (float(v) for v in box)
    side = max(x2 - x1, y2 - y1)
    dx, dy = rng.uniform(-shift, shift, 2) * side
    k = rng.uniform(1 - zoom, 1 + zoom)
    cx, cy = (x1 + x2) / 2 + dx, (y1 + y2) / 2 + dy
    hw, hh = (x2 - x1) * k / 2, (y2 - y1) * k / 2
    return [cx - hw, cy - hh, cx + hw, cy + hh]


def crop_square(image: np.ndarray, window: Sequence[int], size: int) -> np.ndarray:
    """Cut `window` out of a BGR image, grey where it leaves the image, resized to `size` px."""
    x0, y0, x1, y1 = (int(v) for v in window)
    height, width = image.shape[:2]
    inside = image[max(0, y0) : max(0, min(y1, height)), max(0, x0) : max(0, min(x1, width))]
    if inside.shape[:2] == (y1 - y0, x1 - x0):  # wholly in the frame: read it where it lies
        crop = inside
    else:
        crop = np.full((y1 - y0, x1 - x0, 3), PAD_VALUE, dtype=np.uint8)
        if inside.size:
            top, left = max(0, -y0), max(0, -x0)
            crop[top : top + inside.shape[0], left : left + inside.shape[1]] = inside
    if crop.shape[0] == size:
        return crop.copy()
    shrink = crop.shape[0] > size
    return cv2.resize(
        crop, (size, size), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR
    )


def crops_for(
    image: np.ndarray, boxes_xyxy: np.ndarray, size: int, scale: float = CROP_SCALE
) -> list[np.ndarray]:
    """Return the classifier input crop (`size` px, BGR) of each box in a frame."""
    boxes = np.asarray(boxes_xyxy, dtype=np.float64).reshape(-1, 4)
    return [crop_square(image, crop_window(box, scale), size) for box in boxes]


def crops_to_tensor(crops: Sequence[np.ndarray]) -> np.ndarray:
    """Stack BGR uint8 crops into a float32 RGB batch (N, 3, S, S) in 0..1, as Ultralytics does
    (the detector's `letterbox.to_tensor`)."""
    return to_tensor(crops)


class FaceReader:
    """A die-face classifier on ONNX Runtime: `read(image_bgr, boxes)` names each box's face."""

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        threads: int | None = None,
        spin: bool = False,
        turns: int = READ_TURNS,
    ) -> None:
        """Open the classifier (.onnx, exported by `templecam train --faces`); each crop it reads
        unsurely is read again at `turns` quarter turns in all (1: only as it is)."""
        self.model_path = Path(model_path)
        self.turns = max(1, min(4, turns))
        self.turn_below = TURN_BELOW
        """Only a crop whose likeliest class is less sure than this is read turned too."""
        if not self.model_path.is_file():
            raise FaceModelError(f"no face classifier at {self.model_path}")
        try:
            self.session = open_session(self.model_path, threads or default_threads(), spin)
        except ModelError as error:
            raise FaceModelError(str(error)) from None
        inputs = self.session.get_inputs()
        shape = list(inputs[0].shape) if len(inputs) == 1 else []
        square = len(shape) == 4 and isinstance(shape[2], int) and shape[2] == shape[3]
        if not square:
            raise FaceModelError(
                f"{self.model_path}: not a die-face classifier: expected one square image "
                f"input (batch, 3, S, S), got {shape}"
            )
        self.input_name: str = inputs[0].name
        self.imgsz: int = int(shape[2])
        self.batch: int | None = shape[0] if isinstance(shape[0], int) and shape[0] > 0 else None
        self.card: FaceReaderCard = FaceReaderCard.from_props(
            props_of(self.session), sidecar_metadata(self.model_path)
        )
        """What the model says about itself (`vision.perception.model_contract`)."""
        names = self.card.names
        if not names or any(n not in CLASSES for n in names) or set(names) == {NOT_DIE}:
            raise FaceModelError(
                f"{self.model_path}: not a die-face classifier (its classes are {names}; "
                f"expected some of {', '.join(CLASSES)})"
            )
        self.names: tuple[str, ...] = tuple(names)
        self.crop_scale: float = self.card.crop_scale or CROP_SCALE
        self.candidate_conf: float = CANDIDATE_CONF
        """How low a die-like detection's confidence may be to be re-read (`reread_dice`)."""

    def predict(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        """Return class probabilities (N, classes) of BGR crops already at the input size."""
        if not len(crops):
            return np.zeros((0, len(self.names)), dtype=np.float32)
        step = self.batch or CHUNK
        out = []
        for start in range(0, len(crops), step):
            chunk = list(crops[start : start + step])
            real = len(chunk)
            if self.batch is not None and real < self.batch:
                chunk += [np.full_like(chunk[0], PAD_VALUE)] * (self.batch - real)
            raw = self.session.run(None, {self.input_name: crops_to_tensor(chunk)})[0]
            out.append(np.asarray(raw, dtype=np.float32).reshape(len(chunk), -1)[:real])
        probs = np.concatenate(out)
        if probs.shape[1] != len(self.names):
            raise FaceModelError(
                f"{self.model_path}: {probs.shape[1]} outputs for {len(self.names)} class names"
            )
        if (probs < 0).any() or not np.allclose(probs.sum(axis=1), 1.0, atol=1e-3):
            exp = np.exp(probs - probs.max(axis=1, keepdims=True))  # logits: make them a softmax
            probs = exp / exp.sum(axis=1, keepdims=True)
        return probs

    def probabilities(
        self, image_bgr: np.ndarray, boxes_xyxy: np.ndarray, turn: bool = True
    ) -> np.ndarray:
        """Return class probabilities (N, classes) of the crops around boxes (N, 4) in a frame;
        with `turn`, each crop read less surely than `turn_below` is averaged over the reader's
        quarter turns."""
        crops = crops_for(image_bgr, boxes_xyxy, self.imgsz, self.crop_scale)
        probs = self.predict(crops)
        if not turn or self.turns == 1:
            return probs
        rows = np.flatnonzero(probs.max(axis=1) < self.turn_below)
        if not len(rows):
            return probs
        turned = [np.rot90(crops[row], k) for k in range(1, self.turns) for row in rows]
        again = self.predict(turned).reshape(self.turns - 1, len(rows), -1)
        out = probs.copy()
        out[rows] = (probs[rows] + again.sum(axis=0)) / self.turns
        return out

    def read(self, image_bgr: np.ndarray, boxes_xyxy: np.ndarray) -> tuple[list[str], np.ndarray]:
        """Return each box's most likely class (a face, `unreadable` or `not_die`) and its share."""
        probs = self.probabilities(image_bgr, boxes_xyxy)
        best = probs.argmax(axis=1) if len(probs) else np.zeros(0, dtype=np.int64)
        return [self.names[i] for i in best], probs[np.arange(len(best)), best]

    def reread(self, dets: Detections, image_bgr: np.ndarray, conf: float) -> Detections:
        """Re-read the die-like detections of a frame (`reread_dice`) at confidence `conf`."""
        return reread_dice(dets, image_bgr, self, conf)


def _second_look(
    probs: np.ndarray,
    boxes: np.ndarray,
    image_bgr: np.ndarray,
    reader: FaceReader,
    face_cols: np.ndarray,
    looks: Sequence[tuple[float, float, float]] = SECOND_LOOKS,
    worth: np.ndarray | None = None,
) -> np.ndarray:
    """Read again, from several crops around the box, each die the first crop left unsure (no
    face with `UNSURE_FACE` of the face probabilities): a die leaning on another is boxed with
    its support's edge or its own side, and a crop a little tighter, wider or off-centre often
    shows its top plainly. `worth` (bool per box; None: all) leaves out boxes not worth the
    crops (a faint candidate the reader calls `not_die`). Returns the probabilities, averaged
    over the looks for those dice."""
    if not len(probs) or not looks:
        return probs
    faces = probs[:, face_cols]
    unsure = faces.max(axis=1) / np.maximum(faces.sum(axis=1), 1e-9) < UNSURE_FACE
    if UNREADABLE in reader.names:
        unsure |= probs.argmax(axis=1) == reader.names.index(UNREADABLE)
    rows = np.flatnonzero(unsure if worth is None else unsure & worth)
    if not len(rows):
        return probs
    centre = (boxes[rows, :2] + boxes[rows, 2:]) / 2
    side = boxes[rows, 2:] - boxes[rows, :2]
    boxes_again = []
    for scale, dx, dy in looks:
        middle = centre + side * np.array([dx, dy])
        half = side * scale / 2
        boxes_again.append(np.concatenate([middle - half, middle + half], axis=1))
    # each look read once: its crops already differ, and turning them too read no more right
    again = reader.probabilities(image_bgr, np.concatenate(boxes_again), turn=False)
    out = probs.copy()
    every = np.concatenate([probs[rows][None], again.reshape(len(looks), len(rows), -1)])
    out[rows] = every.mean(axis=0)
    return out


def reread_dice(
    dets: Detections,
    image_bgr: np.ndarray,
    reader: FaceReader,
    conf: float = 0.0,
    drop: float = DROP_CONF,
    merge_iou: float = MERGE_IOU,
    unreadable_conf: float = UNREADABLE_CONF,
    second_looks: Sequence[tuple[float, float, float]] = SECOND_LOOKS,
) -> Detections:
    """Re-read the die-like detections of a frame with `reader`; leave the others as they are.

    `dets` may hold die-like candidates below `conf` (down to `CANDIDATE_CONF`): the detector
    spreads a die's score over six die classes, so a die it is unsure of the face of scores low.
    Die boxes of any die classes overlapping by more than `merge_iou` are one die (the most
    confident box stays); each die then becomes the face the reader sees most likely, or
    `die_unreadable` when the reader is at least `unreadable_conf` sure of that, and is dropped
    when the reader gives `not_die` more than `drop`. A die whose likeliest face has less than
    `UNSURE_FACE` of its face probabilities is looked at again from the crops of
    `second_looks` (`_second_look`), and stays `die_unreadable` (shown as "?") if it is still
    unsure, its likeliest face kept as its guess (`Detections.guess`). Its confidence becomes
    sqrt(detector confidence x the reader's probability of that face), and dice under `conf`
    are left out.
    """
    names = dets.class_names
    die_ids = [i for i, n in enumerate(names) if n in DIE_CLASSES]
    is_die = np.isin(dets.class_id, die_ids)
    if not is_die.any():
        return dets
    dice = dets[is_die]
    dice = dice[nms(dice.xyxy, dice.confidence, merge_iou)]
    probs = reader.probabilities(image_bgr, dice.xyxy)
    face_cols = np.array([j for j, n in enumerate(reader.names) if n != NOT_DIE])
    worth = dice.confidence >= max(conf, SECOND_LOOK_CONF)
    if NOT_DIE in reader.names:
        worth &= probs[:, reader.names.index(NOT_DIE)] <= drop
    probs = _second_look(probs, dice.xyxy, image_bgr, reader, face_cols, second_looks, worth)
    best = face_cols[probs[:, face_cols].argmax(axis=1)]
    real_cols = np.array([j for j in face_cols if reader.names[j] != UNREADABLE])
    if UNREADABLE in reader.names:  # a face it half sees is a better guess than none
        unreadable = reader.names.index(UNREADABLE)
        unsure = (best == unreadable) & (probs[:, unreadable] < unreadable_conf)
        best = np.where(unsure, real_cols[probs[:, real_cols].argmax(axis=1)], best)
    faces_total = np.maximum(probs[:, face_cols].sum(axis=1), 1e-9)
    doubtful = probs[np.arange(len(dice)), best] / faces_total < UNSURE_FACE
    score = np.sqrt(dice.confidence * probs[np.arange(len(dice)), best])
    keep = score >= conf
    if NOT_DIE in reader.names:
        keep &= probs[:, reader.names.index(NOT_DIE)] <= drop
    class_id = dice.class_id.copy()
    guess = np.full(len(dice), -1, np.int64)
    for row, col in enumerate(best):
        name = reader.names[col]
        target = DIE_UNREADABLE if doubtful[row] else detection_class(name)
        if target in names:
            class_id[row] = names.index(target)
    share = np.zeros(len(dice), np.float32)
    if len(real_cols):  # a die left "?" keeps the face it looks likeliest to show
        likeliest = real_cols[probs[:, real_cols].argmax(axis=1)]
        for row in np.flatnonzero(doubtful):
            target = detection_class(reader.names[likeliest[row]])
            if target in names:
                guess[row] = names.index(target)
                share[row] = probs[row, likeliest[row]] / faces_total[row]
    read = Detections(dice.xyxy, score, class_id, names, guess, share)[keep]
    return Detections.concatenate([dets[~is_die], read]).sorted()
