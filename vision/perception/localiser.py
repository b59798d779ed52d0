"""The localiser at run time: one pass over the frame at half size, then the face reader on dice.

`Localiser.detect(image_bgr)` resizes the frame (or a window of it: the motion gate passes
windows at full-frame scale) by the model's `input_scale` (0.5: a 1080p frame's dice become
12-17 px), runs the ONNX model (centre heatmaps of die, gem, tile, tile_back, figure and hand,
and box sizes), decodes the peaks (`vision.perception.localiser_decode`) and has the face reader
name each die from a full-resolution crop. It returns the same `Detections` as the YOLO detector did
(the five faces, `die_unreadable`, gem, tile, tile_back, figure, hand), so every later stage reads
it unchanged.
"""

from __future__ import annotations

import copy
import math
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.perception.classes import DETECTION_NAMES, DIE_UNREADABLE
from vision.perception.detections import Detections
from vision.perception.detector import as_bgr
from vision.perception.face_reader import (
    READ_TURNS,
    SECOND_LOOKS,
    open_face_reader,
    reread_dice,
)
from vision.perception.localiser_decode import decode
from vision.perception.model_contract import LocaliserCard, ModelError, props_of
from vision.perception.onnx_model import default_threads, open_session
from vision.perception.setting_words import describe_words, parse_words

PAD_VALUE = 114
DICE_MERGE_IOU = 0.6
"""Die boxes overlapping more than this are one die. The localiser peaks once per die, so only
near-identical boxes are one: a die leaning on another overlaps it by up to 0.55 (the reader's
own 0.3, made for the old detector's one box per face class, took such pairs as one die)."""
LOWEST_CONF = 0.02
"""Peaks below this centre score are never boxes (an evaluation asks for 0.001 to draw its
precision-recall curves; below 0.02 they are only noise, and each die costs a face read)."""


LINEAR_DOWN_TO = 0.45
"""Frames shrunk to this share of their size or more are resized bilinearly in one step (see
`resize_for_network`)."""


def resize_for_network(image_bgr: np.ndarray, width: int, height: int) -> np.ndarray:
    """Return a frame (or window) resized to width x height for the network.

    OpenCV's area resize takes 4-6 ms for a 1080p frame at any scale but a whole fraction such
    as exactly 1/2 (0.7 ms there; a 4K frame at 0.26: 14 ms), and the scale follows the camera
    (0.49-0.55 for 1080p games, 0.8 for 720p). Shrunk to 0.45 or more, each output pixel spans
    at most 2.2 input pixels, and a bilinear resize (0.6-1 ms) weighs nearly the same pixels as
    the area resize does. A frame shrunk further is first shrunk by area by the whole factor k
    below the shrink (1/2, 1/3, ...: OpenCV's fast path, the last k - 1 rows and columns left
    out), then bilinearly by the rest (0.55-1). Enlarged frames are resized by area as before.
    """
    h, w = image_bgr.shape[:2]
    shrink = max(width / w, height / h)
    if shrink >= 1.0:
        return cv2.resize(image_bgr, (width, height), interpolation=cv2.INTER_AREA)
    if shrink < LINEAR_DOWN_TO:
        whole = int(1.0 / shrink)
        fit = image_bgr[: h - h % whole, : w - w % whole]
        size = (fit.shape[1] // whole, fit.shape[0] // whole)
        image_bgr = cv2.resize(fit, size, interpolation=cv2.INTER_AREA)
        if size == (width, height):
            return image_bgr
    return cv2.resize(image_bgr, (width, height), interpolation=cv2.INTER_LINEAR)


def planar_input(image_bgr: np.ndarray, height: int, width: int) -> np.ndarray:
    """Return a BGR image as the network's input (1, 3, height, width): RGB planes in 0..1, grey
    (`PAD_VALUE`) below and right of it.

    The same numbers as `cv2.dnn.blobFromImage(padded, 1 / 255, swapRB=True)` (each value times
    float32(1/255)), in a third less time: each plane is copied once into the input, and the
    padding is never drawn as an image first.
    """
    h, w = image_bgr.shape[:2]
    blob = np.empty((1, 3, height, width), np.float32)
    blob[:, :, h:, :] = PAD_VALUE
    blob[:, :, :h, w:] = PAD_VALUE
    for channel, plane in enumerate(cv2.split(image_bgr)[::-1]):
        blob[0, channel, :h, :w] = plane
    blob *= np.float32(1.0 / 255.0)
    return blob


@dataclass(frozen=True)
class LocaliserSettings:
    """How the localiser runs: thresholds, input scale, CPU threads, the face reader."""

    conf: float = 0.3
    """Lowest centre score reported (dice: after the face reader's rescoring)."""
    scale: float | None = None
    """Resize factor of the frame before the network; None ("auto"): it follows the camera
    (`vision.perception.scale.follow_camera`: the calibration's die size, else the dice of the first
    frames), the model's own (0.5 for 1080p) until that is decided."""
    threads: int | None = None
    """ONNX Runtime intra-op threads; None: the CPUs this process may use, at most 4."""
    spin: bool = False
    """Let idle ONNX Runtime threads spin (faster alone, slower on busy shared cores)."""
    faces: str = "auto"
    """"auto" (the shipped reader's int8 copy, about twice as fast as the reader itself and
    reading alike), "int8" (the same), "float" (the shipped reader itself), "off" or the path
    of a face-reader .onnx."""
    second_look: bool = True
    """Read a die the reader is unsure of again from crops around its box
    (`vision.perception.face_reader.SECOND_LOOKS`); off: one crop a die."""
    turns: int = READ_TURNS
    """Quarter turns each crop the reader is unsure of is read at, the readings averaged
    (`vision.perception.face_reader.TURN_BELOW`; 1: each crop read as it is)."""
    iou: float = 0.5
    """Peaks of one class overlapping more than this are one object."""
    max_det: int = 300

    def __post_init__(self) -> None:
        if not 0.0 <= self.conf <= 1.0:
            raise ValueError("conf must lie in 0..1")
        if self.scale is not None and not 0.1 <= self.scale <= 2.0:
            raise ValueError(f"scale={self.scale}: give 0.1 to 2")
        if self.threads is not None and self.threads < 1:
            raise ValueError(f"threads={self.threads}: give 1 or more")
        if not 1 <= self.turns <= 4:
            raise ValueError(f"turns={self.turns}: give 1 to 4")

    @classmethod
    def parse(cls, text: str) -> LocaliserSettings:
        """Read settings written as `key=value` words, e.g. "scale=0.5 threads=2 faces=off"."""
        return parse_words(cls, text, _parse_value)

    def describe(self) -> str:
        """Return the settings that differ from the defaults as `key=value` words."""
        return describe_words(self)


def _parse_value(key: str, raw: str) -> Any:
    """Convert one `key=value` localiser setting to its type."""
    if key == "faces":
        return raw
    if key in ("spin", "second_look"):
        return raw.lower() in ("1", "on", "true", "yes")
    if raw in ("none", "auto") and key in ("scale", "threads"):
        return None
    try:
        return int(raw) if key in ("threads", "max_det", "turns") else float(raw)
    except ValueError:
        raise ValueError(f"{f'{key}={raw}'!r}: {key} takes a number") from None


@dataclass(frozen=True)
class LocaliserInfo:
    """What the pipeline asks of a model: it takes any input size, in steps of `stride`."""

    names: tuple[str, ...]
    """The localiser's own classes (die, gem, tile, ...)."""
    stride: int
    scale: float
    dynamic_size: bool = True
    imgsz: tuple[int, int] = (544, 960)
    input_name: str = "images"


class Localiser:
    """The one-pass localiser plus face reader: `detect(image_bgr)` returns `Detections`."""

    def __init__(
        self, model: str | os.PathLike[str], settings: LocaliserSettings | None = None
    ) -> None:
        """Open the localiser .onnx and (unless faces=off) the face reader."""
        self.model_path = Path(model)
        self.settings = settings or LocaliserSettings()
        self.threads = self.settings.threads or default_threads()
        if not self.model_path.is_file():
            raise ModelError(f"no model at {self.model_path}")
        self.session = open_session(self.model_path, self.threads, self.settings.spin)
        self.card: LocaliserCard = LocaliserCard.from_props(
            props_of(self.session), str(self.model_path)
        )
        """What the model says about itself (`vision.perception.model_contract`)."""
        own, stride, scale = self.card.names, self.card.input_multiple, self.card.input_scale
        if not own or own[0] != "die" or any(n not in DETECTION_NAMES and n != "die" for n in own):
            raise ModelError(f"{self.model_path}: unknown classes {own}")
        self.model_scale = scale
        """The scale the model was trained for (its metadata's `input_scale`)."""
        self.scale = self.settings.scale or scale
        self.info = LocaliserInfo(own, stride, self.scale)
        self._map = np.array(
            [DETECTION_NAMES.index(DIE_UNREADABLE if n == "die" else n) for n in own]
        )
        self.faces = open_face_reader(
            self.settings.faces, self.threads, self.settings.spin, self.settings.turns
        )

    @property
    def names(self) -> tuple[str, ...]:
        """Return the class names of the detections (the detector's: faces, pieces, hands)."""
        return DETECTION_NAMES

    def with_settings(self, **changes: Any) -> Localiser:
        """Return a localiser on the same model with some settings changed."""
        return Localiser(self.model_path, replace(self.settings, **changes))

    def at_scale(self, scale: float) -> Localiser:
        """Return this localiser resizing frames by `scale` (the same open sessions)."""
        if not 0.1 <= scale <= 2.0:
            raise ValueError(f"scale={scale}: give 0.1 to 2")
        if scale == self.scale:
            return self
        other = copy.copy(self)
        other.scale = scale
        other.info = replace(self.info, scale=scale)
        return other

    def input_for(self, image_bgr: np.ndarray) -> np.ndarray:
        """Return the network input (1, 3, H, W) for a frame: resized, padded, RGB in 0..1."""
        h, w = image_bgr.shape[:2]
        sw, sh = max(1, round(w * self.scale)), max(1, round(h * self.scale))
        small = resize_for_network(image_bgr, sw, sh)
        m = self.info.stride
        return planar_input(small, math.ceil(sh / m) * m, math.ceil(sw / m) * m)

    def locate(self, image_bgr: np.ndarray, conf: float | None = None) -> Detections:
        """Return the localiser's own boxes (dice as `die_unreadable`), before the face reader."""
        image = as_bgr(image_bgr)
        conf = self.settings.conf if conf is None else conf
        heat, box = self.session.run(None, {self.info.input_name: self.input_for(image)})
        xyxy, score, cls = decode(
            heat[0], box[0], conf, self.scale, self.settings.iou, self.settings.max_det
        )
        h, w = image.shape[:2]
        return Detections(xyxy, score, self._map[cls], DETECTION_NAMES).clip(w, h)

    def detect(self, image_bgr: np.ndarray, conf: float | None = None) -> Detections:
        """Find everything in a BGR frame (or window); dice named by the face reader."""
        image = as_bgr(image_bgr)
        conf = self.settings.conf if conf is None else conf
        low = conf if self.faces is None else min(conf, self.faces.candidate_conf * 2)
        found = self.locate(image, max(low, LOWEST_CONF))
        if self.faces is not None:
            looks = SECOND_LOOKS if self.settings.second_look else ()
            found = reread_dice(
                found, image, self.faces, conf, merge_iou=DICE_MERGE_IOU, second_looks=looks
            )
        else:
            found = found.above(conf)
        return found.sorted()[: self.settings.max_det]
