"""The YOLO detector at run time: an ONNX model on ONNX Runtime's CPU provider, no torch.

A 1080p frame shows dice 25-35 px across; letterboxed whole into a 640 px input they shrink to
about 10 px. So a big frame is cut into overlapping tiles at full resolution, the tiles run as
one batch where the model accepts a batch dimension, and the detections are merged: boxes cut by
a tile edge give way to the tile that sees the object whole, pieces of big objects are joined,
and an optional whole-frame pass adds the objects too big for a tile (chamber tiles, hands).
`DetectorSettings.tile` chooses the strategy: "auto" (the tile size the model was trained on,
from its metrics.json), 0 (whole frame only) or a tile edge in px. A second stage
(`vision.face_reader`, `DetectorSettings.faces`) re-reads every die-like detection on a
full-resolution crop: one detection per die, the face the classifier reads, no dice in tile art.
"""

from __future__ import annotations

import ast
import itertools
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, fields
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import cv2
import numpy as np

from vision.detections import Detections, nms

if TYPE_CHECKING:
    from vision.face_reader import FaceReader

PAD_VALUE = 114
"""Grey of the letterbox padding (what Ultralytics trains with)."""
MAX_NMS = 30000
"""Most candidates one input passes to NMS (the most confident first)."""
EDGE_MARGIN = 3.0
"""A box edge this close (frame px) to a tile edge inside the frame counts as cut by it."""
MERGE_IOU = 0.5
"""Boxes from two tiles are one object when they overlap this much where both tiles see."""
AUTO_TILE_FACTOR = 1.5
"""tile=auto tiles a frame whose long side exceeds this many model input sizes."""
FACES_MODEL = "templecam-faces.onnx"
"""The shipped die-face classifier's file name inside the `models` package (faces=auto)."""


class ModelError(Exception):
    """The model file cannot be used; the message says why."""


class Session(Protocol):
    """What the detector needs of an `onnxruntime.InferenceSession`."""

    def get_inputs(self) -> Sequence[Any]: ...
    def get_outputs(self) -> Sequence[Any]: ...
    def get_modelmeta(self) -> Any: ...
    def run(self, output_names: Any, input_feed: dict[str, np.ndarray]) -> list[np.ndarray]: ...


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
    """Second stage re-reading dice on full-resolution crops: "auto" (the shipped
    models/templecam-faces.onnx when it is there), "off" or the path of a classifier .onnx."""

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
        types = {f.name: f.type for f in fields(cls)}
        values: dict[str, Any] = {}
        for word in text.replace(",", " ").split():
            key, sep, raw = word.partition("=")
            if not sep or key not in types:
                raise ValueError(f"{word!r}: expected key=value with a key in {', '.join(types)}")
            values[key] = _parse_value(key, raw)
        return cls(**values)

    def describe(self) -> str:
        """Return the settings that differ from the defaults as `key=value` words."""
        default = DetectorSettings()
        words = [
            f"{f.name}={_format_value(getattr(self, f.name))}"
            for f in fields(self)
            if getattr(self, f.name) != getattr(default, f.name)
        ]
        return " ".join(words) or "defaults"


def _parse_value(key: str, raw: str) -> Any:
    """Convert one `key=value` setting to its type."""
    low = raw.lower()
    if key == "faces":
        return low if low in ("auto", "off") else raw
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


def _format_value(value: Any) -> str:
    """Write a setting's value the way `DetectorSettings.parse` reads it."""
    if value is None:
        return "auto"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def default_faces_path() -> Path:
    """Return where the shipped die-face classifier lives (inside the `models` package)."""
    return Path(str(resources.files("models") / FACES_MODEL))


def default_threads() -> int:
    """Return the intra-op threads to use: the CPUs this process may run on, at most 4."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 4))


# --- The model file ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelInfo:
    """What the detector reads from the model: class names, input shape, output layout."""

    names: tuple[str, ...]
    imgsz: tuple[int, int]
    """The input (height, width) the model was exported at."""
    stride: int
    batch: int | None
    """The fixed batch size, or None when the model takes any batch."""
    dynamic_size: bool
    """The model accepts any input height and width (multiples of the stride)."""
    end2end: bool
    """The output is (batch, detections, 6): x1, y1, x2, y2, score, class, after NMS."""
    input_name: str
    train_tile: int | None = None
    """The tile edge the model was trained on (0: whole frames), when its sidecar says."""


def _literal(text: str | None) -> Any:
    """Parse a metadata value that Ultralytics writes as a Python literal (or JSON)."""
    if text is None:
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        try:
            return json.loads(text)
        except ValueError:
            return text


def _names(value: Any) -> tuple[str, ...] | None:
    """Return class names from a list or an {index: name} mapping, in index order."""
    if isinstance(value, dict):
        try:
            return tuple(str(value[k]) for k in sorted(value, key=int))
        except (TypeError, ValueError):
            return None
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def _imgsz(value: Any) -> tuple[int, int] | None:
    """Return (height, width) from an int or a [height, width] list."""
    if isinstance(value, int) and value > 0:
        return value, value
    if (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(v, int) for v in value)
    ):
        return int(value[0]), int(value[1])
    if isinstance(value, (list, tuple)) and len(value) == 1 and isinstance(value[0], int):
        return int(value[0]), int(value[0])
    return None


def sidecar_metadata(model_path: Path) -> dict[str, Any]:
    """Read `names`, `imgsz`, `tile` from `<model>.json` or `metrics.json` beside the model."""
    for candidate in (model_path.with_suffix(".json"), model_path.parent / "metrics.json"):
        if not candidate.is_file():
            continue
        try:
            data = json.loads(candidate.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        found: dict[str, Any] = {}
        for scope in (data, *(v for v in data.values() if isinstance(v, dict))):
            for key in ("names", "imgsz", "tile"):
                if key in scope and key not in found:
                    found[key] = scope[key]
        if found:
            return found
    return {}


def read_model_info(session: Session, model_path: Path | None = None) -> ModelInfo:
    """Read class names, input size and output layout from the model's metadata or a sidecar."""
    inputs = session.get_inputs()
    outputs = session.get_outputs()
    if len(inputs) != 1 or len(outputs) < 1:
        raise ModelError("expected one image input and a detection output (a YOLO detect model)")
    shape = list(inputs[0].shape)
    if len(shape) != 4:
        raise ModelError(f"the model input has shape {shape}; expected (batch, 3, height, width)")
    meta = dict(getattr(session.get_modelmeta(), "custom_metadata_map", {}) or {})
    side = sidecar_metadata(model_path) if model_path is not None else {}
    names = _names(_literal(meta.get("names"))) or _names(side.get("names"))
    fixed = tuple(d for d in shape[2:] if isinstance(d, int) and d > 0)
    dynamic_size = len(fixed) != 2
    size = (
        (int(shape[2]), int(shape[3]))
        if not dynamic_size
        else _imgsz(_literal(meta.get("imgsz"))) or _imgsz(side.get("imgsz"))
    )
    if size is None:
        raise ModelError(
            "the model's input size is dynamic and neither its metadata nor a sidecar JSON says "
            "what size it was trained at (imgsz)"
        )
    stride_value = _literal(meta.get("stride"))
    stride = int(stride_value) if isinstance(stride_value, (int, float)) else 32
    out_shape = list(outputs[0].shape)
    end2end = str(meta.get("end2end", "")).lower() == "true" or (
        len(out_shape) == 3 and out_shape[-1] == 6 and names is not None and len(names) != 2
    )
    if names is None:
        channels = out_shape[1] if len(out_shape) == 3 else None
        if end2end or not isinstance(channels, int) or channels <= 4:
            raise ModelError("the model does not say its class names (no `names` metadata)")
        names = tuple(f"class{i}" for i in range(channels - 4))
    batch = shape[0] if isinstance(shape[0], int) and shape[0] > 0 else None
    tile = _literal(meta.get("tile")) if "tile" in meta else side.get("tile")
    train_tile = int(tile) if isinstance(tile, (int, float)) and tile >= 0 else None
    return ModelInfo(names, size, stride, batch, dynamic_size, end2end, inputs[0].name, train_tile)


def open_session(model_path: Path, threads: int, spin: bool = False) -> Any:
    """Open an ONNX Runtime CPU session with `threads` intra-op threads."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
    try:
        return ort.InferenceSession(
            str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
    except Exception as error:  # ORT raises its own exception types for unreadable models
        raise ModelError(f"{model_path}: not a usable ONNX model ({error})") from None


# --- Letterbox --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Letterbox:
    """How an image crop became a model input: resized by `scale`, padded by `pad`.

    `offset` is the crop's top-left corner in the frame (non-zero for tiles).
    """

    scale: tuple[float, float]
    """Input px per frame px along x and y."""
    pad: tuple[int, int]
    """Padding left and top, in input px."""
    offset: tuple[int, int] = (0, 0)

    def to_input(self, xy: np.ndarray) -> np.ndarray:
        """Map frame points (..., 2) to input points."""
        xy = np.asarray(xy, dtype=np.float64)
        off, scale, pad = np.array(self.offset), np.array(self.scale), np.array(self.pad)
        return (xy - off) * scale + pad

    def to_frame(self, xy: np.ndarray) -> np.ndarray:
        """Map input points (..., 2) back to frame points."""
        xy = np.asarray(xy, dtype=np.float64)
        off, scale, pad = np.array(self.offset), np.array(self.scale), np.array(self.pad)
        return (xy - pad) / scale + off

    def boxes_to_frame(self, xyxy: np.ndarray) -> np.ndarray:
        """Map input boxes (N, 4) back to frame boxes."""
        return self.to_frame(np.asarray(xyxy, dtype=np.float64).reshape(-1, 2, 2)).reshape(-1, 4)


def letterbox(
    image: np.ndarray,
    size: tuple[int, int],
    offset: tuple[int, int] = (0, 0),
    scale_up: bool = True,
) -> tuple[np.ndarray, Letterbox]:
    """Resize `image` to fit (height, width) keeping its aspect, centred on grey padding.

    With `scale_up` False a smaller image keeps its size and is only padded.
    """
    h, w = image.shape[:2]
    out_h, out_w = size
    ratio = min(out_h / h, out_w / w)
    if not scale_up:
        ratio = min(ratio, 1.0)
    new_w, new_h = max(1, round(w * ratio)), max(1, round(h * ratio))
    if (new_w, new_h) != (w, h):
        interpolation = cv2.INTER_AREA if ratio < 1 else cv2.INTER_LINEAR
        image = cv2.resize(image, (new_w, new_h), interpolation=interpolation)
    left, top = (out_w - new_w) // 2, (out_h - new_h) // 2
    if (new_w, new_h) != (out_w, out_h):
        image = cv2.copyMakeBorder(
            image,
            top,
            out_h - new_h - top,
            left,
            out_w - new_w - left,
            cv2.BORDER_CONSTANT,
            value=(PAD_VALUE, PAD_VALUE, PAD_VALUE),
        )
    return image, Letterbox((new_w / w, new_h / h), (left, top), offset)


def rect_size(width: int, height: int, long_side: int, stride: int) -> tuple[int, int]:
    """Return the least (height, width), multiples of `stride`, holding the frame at `long_side`."""
    ratio = long_side / max(width, height)
    return (
        max(stride, math.ceil(height * ratio / stride) * stride),
        max(stride, math.ceil(width * ratio / stride) * stride),
    )


def to_tensor(images: Sequence[np.ndarray]) -> np.ndarray:
    """Stack BGR uint8 images (H, W, 3) into a float32 RGB batch (N, 3, H, W) in 0..1."""
    batch = np.stack(images)[..., ::-1].transpose(0, 3, 1, 2)
    return np.ascontiguousarray(batch, dtype=np.float32) / np.float32(255.0)


# --- Decoding ---------------------------------------------------------------------------------


def decode_raw(
    raw: np.ndarray, conf: float, iou: float, max_det: int, agnostic: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decode one YOLOv8/11 output (4 + nc, N): cx, cy, w, h, class scores; NMS within classes.

    Return (xyxy, score, class_id) in input px, most confident first.
    """
    raw = np.asarray(raw, dtype=np.float32)
    scores_all = raw[4:]
    class_id = scores_all.argmax(axis=0)
    scores = scores_all[class_id, np.arange(raw.shape[1])]
    keep = np.flatnonzero(scores >= conf) if conf > 0 else np.arange(raw.shape[1])
    if keep.size > MAX_NMS:
        keep = keep[np.argsort(-scores[keep], kind="stable")[:MAX_NMS]]
    cx, cy, w, h = raw[:4, keep]
    xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    scores, class_id = scores[keep], class_id[keep]
    kept = nms(xyxy, scores, iou, None if agnostic else class_id)[:max_det]
    return xyxy[kept], scores[kept], class_id[kept]


def decode_end2end(
    raw: np.ndarray, conf: float, max_det: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decode one end-to-end output (K, 6): x1, y1, x2, y2, score, class (NMS done in the model)."""
    raw = np.asarray(raw, dtype=np.float32).reshape(-1, 6)
    raw = raw[raw[:, 4] >= conf]
    raw = raw[np.argsort(-raw[:, 4], kind="stable")][:max_det]
    return raw[:, :4], raw[:, 4], raw[:, 5].astype(np.int64)


# --- Tiling -----------------------------------------------------------------------------------


def tile_starts(length: int, tile: int, overlap: int) -> list[int]:
    """Return tile starts along one axis: evenly spread, covering it, overlapping >= `overlap`."""
    if length <= tile:
        return [0]
    count = math.ceil((length - overlap) / (tile - overlap))
    span = length - tile
    return [i * span // (count - 1) for i in range(count)]


def tile_grid(width: int, height: int, tile: int, overlap: int) -> list[tuple[int, int, int, int]]:
    """Return the tiles (x0, y0, x1, y1) covering a `width` x `height` frame, row by row."""
    return [
        (x, y, min(x + tile, width), min(y + tile, height))
        for y in tile_starts(height, tile, overlap)
        for x in tile_starts(width, tile, overlap)
    ]


def grid_overlap(starts: Sequence[int], tile: int) -> float:
    """Return the least overlap of neighbouring tiles along one axis (infinite for one tile)."""
    if len(starts) < 2:
        return math.inf
    return float(tile - max(b - a for a, b in itertools.pairwise(starts)))


def cut_sides(
    xyxy: np.ndarray, window: tuple[int, int, int, int], width: int, height: int
) -> tuple[np.ndarray, np.ndarray]:
    """Tell which boxes touch a tile edge that lies inside the frame: (along x, along y)."""
    x0, y0, x1, y1 = window
    b = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
    m = EDGE_MARGIN
    cut_x = ((x0 > 0) & (b[:, 0] <= x0 + m)) | ((x1 < width) & (b[:, 2] >= x1 - m))
    cut_y = ((y0 > 0) & (b[:, 1] <= y0 + m)) | ((y1 < height) & (b[:, 3] >= y1 - m))
    return cut_x, cut_y


def join_pieces(dets: Detections, windows: np.ndarray, cut: np.ndarray) -> Detections:
    """Join boxes from different tiles that show one object where the tiles overlap.

    Two boxes of a class, at least one of them cut by its tile's edge, are one object when,
    clipped to the area both tiles see, they overlap by `MERGE_IOU`; each object becomes the
    union of its boxes, with the best confidence.
    """
    n = len(dets)
    if n < 2 or not cut.any():
        return dets
    b = dets.xyxy.astype(np.float64)
    w = np.asarray(windows, dtype=np.float64).reshape(-1, 4)
    pairs = []
    cut_rows = np.flatnonzero(cut)
    for start in range(0, len(cut_rows), 256):  # cut boxes against all, in bounded slices
        rows = cut_rows[start : start + 256]
        shared_lo = np.maximum(w[rows, None, :2], w[None, :, :2])
        shared_hi = np.minimum(w[rows, None, 2:], w[None, :, 2:])
        lo_i, hi_i = (
            np.maximum(b[rows, None, :2], shared_lo),
            np.minimum(b[rows, None, 2:], shared_hi),
        )
        lo_j, hi_j = np.maximum(b[None, :, :2], shared_lo), np.minimum(b[None, :, 2:], shared_hi)
        area_i = np.prod(np.clip(hi_i - lo_i, 0, None), axis=2)
        area_j = np.prod(np.clip(hi_j - lo_j, 0, None), axis=2)
        inter = np.prod(np.clip(np.minimum(hi_i, hi_j) - np.maximum(lo_i, lo_j), 0, None), axis=2)
        iou = inter / np.maximum(area_i + area_j - inter, 1e-9)
        same_tile = (w[rows, None, :] == w[None, :, :]).all(axis=2)
        same_class = dets.class_id[rows, None] == dets.class_id[None, :]
        r, j = np.nonzero(same_class & ~same_tile & (iou >= MERGE_IOU))
        pairs += list(zip(rows[r].tolist(), j.tolist(), strict=True))
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in pairs:
        parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    members = list(groups.values())
    xyxy = [np.concatenate([b[g, :2].min(axis=0), b[g, 2:].max(axis=0)]) for g in members]
    conf = [dets.confidence[g].max() for g in members]
    cls = [dets.class_id[g[0]] for g in members]
    return Detections(np.array(xyxy), np.array(conf), np.array(cls), dets.class_names)


def merge_tiles(
    parts: Sequence[tuple[Detections, tuple[int, int, int, int]]],
    frame_pass: Detections | None,
    width: int,
    height: int,
    overlap: tuple[float, float],
    iou: float,
    agnostic: bool = False,
) -> Detections:
    """Merge per-tile detections (frame px) and an optional whole-frame pass into one set.

    Objects up to `overlap` (x, y) px lie whole in some tile, so a box cut by an inner tile edge
    is dropped when its cut side is shorter than the overlap (a neighbour sees more of it). With
    a whole-frame pass every cut box is dropped: the pass supplies the bigger objects (its small
    boxes are left to the tiles, which see them at full resolution). Without one, the pieces of a
    big object are joined (`join_pieces`). Class-wise NMS (`iou`) then removes the duplicates of
    objects seen whole in several tiles.
    """
    ox, oy = overlap
    names = parts[0][0].class_names if parts else frame_pass.class_names  # type: ignore[union-attr]
    kept, windows, cuts = [Detections.empty(names)], [np.zeros((0, 4))], [np.zeros(0, bool)]
    for dets, window in parts:
        cut_x, cut_y = cut_sides(dets.xyxy, window, width, height)
        w = dets.xyxy[:, 2] - dets.xyxy[:, 0]
        h = dets.xyxy[:, 3] - dets.xyxy[:, 1]
        cut = cut_x | cut_y
        drop = cut if frame_pass is not None else (cut_x & (w < ox)) | (cut_y & (h < oy))
        kept.append(dets[~drop])
        windows.append(np.tile(np.array(window, dtype=np.float64), (int((~drop).sum()), 1)))
        cuts.append(cut[~drop])
    merged = join_pieces(
        Detections.concatenate(kept), np.concatenate(windows), np.concatenate(cuts)
    )
    if frame_pass is not None:
        w = frame_pass.xyxy[:, 2] - frame_pass.xyxy[:, 0]
        h = frame_pass.xyxy[:, 3] - frame_pass.xyxy[:, 1]
        merged = Detections.concatenate([merged, frame_pass[(w > ox) | (h > oy)]])
    return merged.nms(iou, agnostic)


# --- The detector -----------------------------------------------------------------------------


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
        from vision.face_reader import DIE_CLASSES, FaceModelError, FaceReader

        self._die_ids = np.array([i for i, n in enumerate(self.names) if n in DIE_CLASSES], int)
        choice = self.settings.faces
        if choice == "off" or not len(self._die_ids):
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
        image = _as_bgr(image_bgr)
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


def _as_bgr(image: np.ndarray) -> np.ndarray:
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
