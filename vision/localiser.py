"""The localiser at run time: one pass over the frame at half size, then the face reader on dice.

`Localiser.detect(image_bgr)` resizes the frame (or a window of it: the motion gate passes
windows at full-frame scale) by the model's `input_scale` (0.5: a 1080p frame's dice become
12-17 px), runs the ONNX model (centre heatmaps of die, gem, tile, tile_back, figure and hand,
and box sizes), decodes the peaks (`vision.localiser_decode`) and has the face reader name each
die from a full-resolution crop. It returns the same `Detections` as the YOLO detector did (the
five faces, `die_unreadable`, gem, tile, tile_back, figure, hand), so every later stage reads it
unchanged.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.classes import DETECTION_NAMES, DIE_UNREADABLE
from vision.detections import Detections
from vision.detector import as_bgr
from vision.face_reader import FaceModelError, FaceReader, default_faces_path, reread_dice
from vision.localiser_decode import decode
from vision.onnx_model import ModelError, default_threads, open_session
from vision.setting_words import describe_words, parse_words

MODEL_KIND = "templecam-localiser"
"""The ONNX metadata `kind` of a localiser model."""
PAD_VALUE = 114
LOWEST_CONF = 0.02
"""Peaks below this centre score are never boxes (an evaluation asks for 0.001 to draw its
precision-recall curves; below 0.02 they are only noise, and each die costs a face read)."""


@dataclass(frozen=True)
class LocaliserSettings:
    """How the localiser runs: thresholds, input scale, CPU threads, the face reader."""

    conf: float = 0.3
    """Lowest centre score reported (dice: after the face reader's rescoring)."""
    scale: float | None = None
    """Resize factor of the frame before the network; None: the model's own (0.5 for 1080p)."""
    threads: int | None = None
    """ONNX Runtime intra-op threads; None: the CPUs this process may use, at most 4."""
    spin: bool = False
    """Let idle ONNX Runtime threads spin (faster alone, slower on busy shared cores)."""
    faces: str = "auto"
    """"auto" (the shipped reader), "off" or the path of a face-reader .onnx."""
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
    if key == "spin":
        return raw.lower() in ("1", "on", "true", "yes")
    if raw in ("none", "auto") and key in ("scale", "threads"):
        return None
    try:
        return int(raw) if key in ("threads", "max_det") else float(raw)
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


def is_localiser(model_path: Path) -> bool:
    """Return whether an .onnx file is a localiser (its metadata names the kind), unopened.

    The metadata's strings are stored as they are in the file, so the kind's name shows in its
    bytes; `Localiser` then checks the metadata properly.
    """
    try:
        return MODEL_KIND.encode() in Path(model_path).read_bytes()
    except OSError:
        return False


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
        meta = dict(self.session.get_modelmeta().custom_metadata_map or {})
        if meta.get("kind") != MODEL_KIND:
            raise ModelError(f"{self.model_path}: not a templecam localiser (no kind metadata)")
        try:
            own = tuple(json.loads(meta["names"]))
            stride = int(meta.get("input_multiple", 32))
            scale = float(meta.get("input_scale", 0.5))
        except (KeyError, ValueError, TypeError):
            raise ModelError(f"{self.model_path}: its metadata lacks names or scale") from None
        if own[0] != "die" or any(n not in DETECTION_NAMES and n != "die" for n in own):
            raise ModelError(f"{self.model_path}: unknown classes {own}")
        self.scale = self.settings.scale or scale
        self.info = LocaliserInfo(own, stride, self.scale)
        self._map = np.array(
            [DETECTION_NAMES.index(DIE_UNREADABLE if n == "die" else n) for n in own]
        )
        self.faces = self._open_faces()

    def _open_faces(self) -> FaceReader | None:
        """Open the face reader the settings ask for (None: dice stay unread)."""
        choice = self.settings.faces
        if choice == "off":
            return None
        path = default_faces_path() if choice == "auto" else Path(choice).expanduser()
        if choice == "auto" and not path.is_file():
            return None
        try:
            return FaceReader(path, self.threads, self.settings.spin)
        except FaceModelError as error:
            raise ModelError(f"faces={choice}: {error}") from None

    @property
    def names(self) -> tuple[str, ...]:
        """Return the class names of the detections (the detector's: faces, pieces, hands)."""
        return DETECTION_NAMES

    def with_settings(self, **changes: Any) -> Localiser:
        """Return a localiser on the same model with some settings changed."""
        return Localiser(self.model_path, replace(self.settings, **changes))

    def input_for(self, image_bgr: np.ndarray) -> np.ndarray:
        """Return the network input (1, 3, H, W) for a frame: resized, padded, RGB in 0..1."""
        h, w = image_bgr.shape[:2]
        sw, sh = max(1, round(w * self.scale)), max(1, round(h * self.scale))
        small = cv2.resize(image_bgr, (sw, sh), interpolation=cv2.INTER_AREA)
        m = self.info.stride
        ph, pw = math.ceil(sh / m) * m, math.ceil(sw / m) * m
        if (ph, pw) != (sh, sw):
            small = cv2.copyMakeBorder(
                small, 0, ph - sh, 0, pw - sw, cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3
            )
        return cv2.dnn.blobFromImage(small, 1.0 / 255.0, swapRB=True)

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
            found = reread_dice(found, image, self.faces, conf)
        else:
            found = found.above(conf)
        return found.sorted()[: self.settings.max_det]
