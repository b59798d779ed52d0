"""The YOLO detector at run time: an ONNX model on ONNX Runtime's CPU provider, no torch.

A 1080p frame shows dice 25-35 px across; letterboxed whole into a 640 px input they shrink to
about 10 px. So a big frame is cut into overlapping tiles at full resolution, the tiles run as
one batch where the model accepts a batch dimension, and the detections are merged: boxes cut by
a tile edge give way to the tile that sees the object whole, pieces of big objects are joined,
and an optional whole-frame pass adds the objects too big for a tile (chamber tiles, hands).
`DetectorSettings.tile` chooses the strategy: "auto" (the tile size the model was trained on,
from its metrics.json), 0 (whole frame only) or a tile edge in px. A second stage
(`vision.perception.face_reader`, `DetectorSettings.faces`) re-reads every die-like detection on a
full-resolution crop: one detection per die, the face the classifier reads, no dice in tile art.

The pieces live in their own modules: `vision.perception.onnx_model` (session, model metadata),
`vision.perception.letterbox`, `vision.perception.yolo_decode` (raw output -> boxes) and
`vision.perception.tiling`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.perception.detections import Detections
from vision.perception.face_reader import (
    DIE_CLASSES,
    READER_CHOICES,
    FaceReader,
    open_face_reader,
)
from vision.perception.letterbox import PAD_VALUE, Letterbox, letterbox, rect_size, to_tensor
from vision.perception.onnx_model import (
    ModelError,
    Session,
    default_threads,
    open_session,
    read_model_info,
)
from vision.perception.setting_words import describe_words, parse_words
from vision.perception.tiling import grid_overlap, merge_tiles, tile_starts
from vision.perception.yolo_decode import decode_end2end, decode_raw

__all__ = ["Detector", "DetectorSettings", "ModelError", "Plan"]

AUTO_TILE_FACTOR = 1.5
"""tile=auto tiles a frame whose long side exceeds this many model input sizes."""


@dataclass(frozen=True)
class DetectorSettings:
    """How the detector runs: thresholds, tiling strategy, input size, CPU threads."""

    conf: float = 0.25
    """Lowest confidence reported."""
    iou: float = 0.7
    """NMS: a box overlapping a better one of its class by more than this is dropped."""
    tile: int | str = "auto"
    """"auto", 0 (whole frame only) or the tile edge in frame px (fed to the model at imgsz).

    auto: the tile size the model was trained on when its sidecar says (0: whole frames);
    otherwise tiles of the input size for frames over 1.5 input sizes, else the whole frame.
    """
    overlap: int = 64
    """Least overlap of neighbouring tiles in px: objects up to this size lie whole in a tile."""
    whole: bool | None = None
    """Also run the whole frame, for objects bigger than the overlap; None: when tiling, unless
    the model was trained on tiles only (it has never seen a shrunken frame)."""
    imgsz: int | None = None
    """Model input edge in px; None: the model's own (a static model accepts only that)."""
    threads: int | None = None
    """ONNX Runtime intra-op threads; None: the CPUs this process may use, at most 4."""
    batch: bool = True
    """Run the tiles as one batch when the model accepts a batch dimension."""
    spin: bool = False
    """Let idle ONNX Runtime threads spin: a little faster alone, slower on busy shared cores."""
    max_det: int = 300
    """Most detections reported per frame."""
    agnostic: bool = False
    """NMS across classes (one box per object whatever its class)."""
    faces: str = "auto"
    """Second stage re-reading dice on full-resolution crops: "auto" (the shipped reader's int8
    copy, vision/data/models/templecam-faces-int8.onnx, else the reader itself when it is
    there), "int8", "float" (vision/data/models/templecam-faces.onnx), "off" or a classifier
    .onnx."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.conf <= 1.0 or not 0.0 <= self.iou <= 1.0:
            raise ValueError("conf and iou must lie in 0..1")
        if self.tile != "auto" and (not isinstance(self.tile, int) or self.tile < 0):
            raise ValueError(f"tile={self.tile!r}: give auto, 0 or a tile edge in px")
        if self.overlap < 0 or (isinstance(self.tile, int) and 0 < self.tile <= self.overlap):
            raise ValueError(f"overlap={self.overlap} must be 0 or more and less than the tile")
        if self.imgsz is not None and self.imgsz < 32:
            raise ValueError(f"imgsz={self.imgsz}: give 32 px or more")
        if self.threads is not None and self.threads < 1:
            raise ValueError(f"threads={self.threads}: give 1 or more")
        if self.max_det < 1:
            raise ValueError(f"max_det={self.max_det}: give 1 or more")
        if not isinstance(self.faces, str) or not self.faces:
            raise ValueError(f"faces={self.faces!r}: give auto, off or a classifier .onnx path")

    @classmethod
    def parse(cls, text: str) -> DetectorSettings:
        """Read settings written as `key=value` words, e.g. "tile=640 overlap=64 threads=2"."""
        return parse_words(cls, text, _parse_value)

    def describe(self) -> str:
        """Return the settings that differ from the defaults as `key=value` words."""
        return describe_words(self)


def _parse_value(key: str, raw: str) -> Any:
    """Convert one `key=value` setting to its type."""
    low = raw.lower()
    if key == "faces":
        return low if low in READER_CHOICES else raw
    try:
        if key in ("conf", "iou"):
            return float(raw)
        if key == "tile":
            return "auto" if low == "auto" else int(raw)
        if key in ("whole", "batch", "agnostic", "spin"):
            if key == "whole" and low in ("auto", "none"):
                return None
            if low not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                raise ValueError(raw)
            return low in ("1", "true", "yes", "on")
        if key in ("imgsz", "threads") and low in ("auto", "none"):
            return None
        return int(raw)
    except ValueError:
        raise ValueError(f"{key}={raw}: not a valid value") from None


@dataclass(frozen=True)
class Plan:
    """How one frame size is run: its tiles, whether a whole-frame pass runs, input sizes."""

    tiles: tuple[tuple[int, int, int, int], ...]
    whole: bool
    tile_input: tuple[int, int]
    whole_input: tuple[int, int]
    overlap: tuple[float, float]
    native: bool = False
    """The whole pass runs the image at its own scale, padded (a crop within a training tile)."""


@dataclass(frozen=True)
class _Input:
    """One model input prepared from the frame."""

    image: np.ndarray
    box: Letterbox
    window: tuple[int, int, int, int] | None
    """The tile's window in the frame, or None for the whole-frame pass."""


class Detector:
    """A YOLO model on ONNX Runtime: `detect(image_bgr)` returns `Detections` in image px."""

    def __init__(
        self,
        model: str | os.PathLike[str],
        settings: DetectorSettings | None = None,
        *,
        session: Session | None = None,
    ) -> None:
        """Open `model` (an .onnx file); `session` replaces ONNX Runtime (tests, other runtimes)."""
        self.model_path = Path(model)
        self.settings = settings or DetectorSettings()
        self.threads = self.settings.threads or default_threads()
        if session is None:
            if not self.model_path.is_file():
                raise ModelError(f"no model at {self.model_path}")
            session = open_session(self.model_path, self.threads, self.settings.spin)
        self.session = session
        self.info = read_model_info(session, self.model_path)
        self.imgsz = self.settings.imgsz or max(self.info.imgsz)
        if not self.info.dynamic_size and self.settings.imgsz not in (None, *self.info.imgsz):
            raise ModelError(
                f"the model takes {self.info.imgsz[1]}x{self.info.imgsz[0]} inputs only; "
                f"imgsz={self.settings.imgsz} needs a model exported at that size or dynamic"
            )
        if self.info.dynamic_size and self.imgsz % self.info.stride:
            raise ModelError(f"imgsz={self.imgsz} must be a multiple of {self.info.stride}")
        self.faces = self._open_faces()

    def _open_faces(self) -> FaceReader | None:
        """Open the second-stage face classifier the settings ask for (None: no second stage)."""
        self._die_ids = np.array([i for i, n in enumerate(self.names) if n in DIE_CLASSES], int)
        if not len(self._die_ids):
            return None
        return open_face_reader(self.settings.faces, self.threads, self.settings.spin)

    @property
    def names(self) -> tuple[str, ...]:
        """Return the model's class names in index order."""
        return self.info.names

    def _input_size(self) -> tuple[int, int]:
        """Return the (height, width) of a square tile input."""
        if self.info.dynamic_size:
            return self.imgsz, self.imgsz
        return self.info.imgsz

    def plan(self, width: int, height: int) -> Plan:
        """Decide the tiles and passes for a `width` x `height` frame."""
        s = self.settings
        tile = s.tile
        if tile == "auto" and self.info.train_tile is not None:
            tile = self.info.train_tile
        elif tile == "auto":
            tile = self.imgsz if max(width, height) > AUTO_TILE_FACTOR * self.imgsz else 0
        if tile and width <= tile and height <= tile:
            # A model trained on tiles knows objects at their tile scale: pad, never enlarge.
            stride = self.info.stride
            padded = (math.ceil(height / stride) * stride, math.ceil(width / stride) * stride)
            native = padded if self.info.dynamic_size else self.info.imgsz
            return Plan((), True, self._input_size(), native, (math.inf, math.inf), native=True)
        whole_input = (
            rect_size(width, height, self.imgsz, self.info.stride)
            if self.info.dynamic_size
            else self.info.imgsz
        )
        if not tile:
            return Plan((), True, self._input_size(), whole_input, (math.inf, math.inf))
        assert isinstance(tile, int)
        xs, ys = tile_starts(width, tile, s.overlap), tile_starts(height, tile, s.overlap)
        tiles = tuple((x, y, min(x + tile, width), min(y + tile, height)) for y in ys for x in xs)
        whole = s.whole
        if whole is None:
            whole = not self.info.train_tile
        overlap = (grid_overlap(xs, tile), grid_overlap(ys, tile))
        return Plan(tiles, whole, self._input_size(), whole_input, overlap)

    def _prepare(self, image: np.ndarray, plan: Plan) -> list[_Input]:
        """Cut and letterbox the frame into model inputs."""
        inputs = []
        for window in plan.tiles:
            x0, y0, x1, y1 = window
            crop, box = letterbox(image[y0:y1, x0:x1], plan.tile_input, (x0, y0))
            inputs.append(_Input(crop, box, window))
        if plan.whole:
            full, box = letterbox(image, plan.whole_input, scale_up=not plan.native)
            inputs.append(_Input(full, box, None))
        return inputs

    def _run(self, images: Sequence[np.ndarray]) -> np.ndarray:
        """Run same-shaped inputs through the model, batched as the model allows."""
        fixed = self.info.batch
        step = len(images) if fixed is None and self.settings.batch else (fixed or 1)
        outputs = []
        for start in range(0, len(images), step):
            chunk = list(images[start : start + step])
            real = len(chunk)
            if fixed is not None and real < fixed:  # a fixed batch: fill it with padding
                chunk += [np.full_like(chunk[0], PAD_VALUE)] * (fixed - real)
            out = self.session.run(None, {self.info.input_name: to_tensor(chunk)})[0]
            outputs.append(np.asarray(out)[:real])
        return np.concatenate(outputs)

    def _decode(self, raw: np.ndarray, box: Letterbox, conf: float) -> Detections:
        """Decode one input's output into frame-pixel detections."""
        s = self.settings
        if self.info.end2end:
            xyxy, scores, cls = decode_end2end(raw, conf, s.max_det)
        else:
            if raw.shape[0] != 4 + len(self.names) and raw.shape[1] == 4 + len(self.names):
                raw = raw.T  # some exporters write (candidates, 4 + nc)
            if raw.shape[0] != 4 + len(self.names):
                raise ModelError(
                    f"the model output has {raw.shape[0]} rows per candidate; its "
                    f"{len(self.names)} class names need {4 + len(self.names)}"
                )
            xyxy, scores, cls = decode_raw(raw, conf, s.iou, s.max_det, s.agnostic)
        return Detections(box.boxes_to_frame(xyxy), scores, cls, self.names)

    def detect(self, image_bgr: np.ndarray, conf: float | None = None) -> Detections:
        """Detect objects in a BGR frame; boxes in its pixels, most confident first."""
        image = as_bgr(image_bgr)
        height, width = image.shape[:2]
        conf = self.settings.conf if conf is None else conf
        # Die-like candidates go lower when a face reader rescores them.
        low = conf if self.faces is None else min(conf, self.faces.candidate_conf)
        plan = self.plan(width, height)
        inputs = self._prepare(image, plan)
        by_shape: dict[tuple[int, ...], list[int]] = {}
        for i, item in enumerate(inputs):
            by_shape.setdefault(item.image.shape, []).append(i)
        decoded: list[Detections] = [Detections.empty(self.names)] * len(inputs)
        for indices in by_shape.values():
            raw = self._run([inputs[i].image for i in indices])
            for i, out in zip(indices, raw, strict=True):
                found = self._decode(out, inputs[i].box, low)
                decoded[i] = found if low == conf else self._candidates(found, conf)
        if not plan.tiles:
            result = decoded[0]
        else:
            parts = [
                (d, item.window) for d, item in zip(decoded, inputs, strict=True) if item.window
            ]
            frame_pass = decoded[-1] if plan.whole else None
            s = self.settings
            result = merge_tiles(parts, frame_pass, width, height, plan.overlap, s.iou, s.agnostic)
        result = result.clip(width, height)
        if self.faces is not None:
            result = self.faces.reread(result, image, conf)
        return result.sorted()[: self.settings.max_det]

    def _candidates(self, found: Detections, conf: float) -> Detections:
        """Keep the detections at `conf` or more, and every die-like one (for the face reader)."""
        return found[(found.confidence >= conf) | np.isin(found.class_id, self._die_ids)]


def as_bgr(image: np.ndarray) -> np.ndarray:
    """Return a 3-channel uint8 BGR view of a grey, BGR or BGRA image."""
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise ValueError("detect() needs an image: a (height, width[, channels]) numpy array")
    if image.dtype != np.uint8:
        raise ValueError(f"detect() needs 8-bit pixels, not {image.dtype}")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.shape[2] != 3:
        raise ValueError(f"detect() needs 1, 3 or 4 channels, not {image.shape[2]}")
    return image
