"""An ONNX model file at run time: its ONNX Runtime CPU session and what its metadata says.

Shared by the detector, the face reader and the localiser: opening a session with a bounded
number of threads, and the YOLO detector's class names, input size and output layout (its card,
`vision.perception.model_contract.DetectorCard`, from its metadata or a sidecar JSON beside it). No
torch.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from vision.perception.model_contract import DetectorCard, ModelError, props_of, sidecar_metadata

__all__ = [
    "ModelError",
    "ModelInfo",
    "Session",
    "default_threads",
    "open_session",
    "read_model_info",
]


class Session(Protocol):
    """What the detector needs of an `onnxruntime.InferenceSession`."""

    def get_inputs(self) -> Sequence[Any]: ...
    def get_outputs(self) -> Sequence[Any]: ...
    def get_modelmeta(self) -> Any: ...
    def run(self, output_names: Any, input_feed: dict[str, np.ndarray]) -> list[np.ndarray]: ...


def default_threads() -> int:
    """Return the intra-op threads to use: the CPUs this process may run on, at most 4."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 4))


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


def read_model_info(session: Session, model_path: Path | None = None) -> ModelInfo:
    """Read class names, input size and output layout from the model's metadata or a sidecar."""
    inputs = session.get_inputs()
    outputs = session.get_outputs()
    if len(inputs) != 1 or len(outputs) < 1:
        raise ModelError("expected one image input and a detection output (a YOLO detect model)")
    shape = list(inputs[0].shape)
    if len(shape) != 4:
        raise ModelError(f"the model input has shape {shape}; expected (batch, 3, height, width)")
    card = DetectorCard.from_props(
        props_of(session), sidecar_metadata(model_path) if model_path is not None else {}
    )
    names = card.names
    fixed = tuple(d for d in shape[2:] if isinstance(d, int) and d > 0)
    dynamic_size = len(fixed) != 2
    size = (int(shape[2]), int(shape[3])) if not dynamic_size else card.imgsz
    if size is None:
        raise ModelError(
            "the model's input size is dynamic and neither its metadata nor a sidecar JSON says "
            "what size it was trained at (imgsz)"
        )
    stride = card.stride or 32
    out_shape = list(outputs[0].shape)
    end2end = bool(card.end2end) or (
        len(out_shape) == 3 and out_shape[-1] == 6 and names is not None and len(names) != 2
    )
    if names is None:
        channels = out_shape[1] if len(out_shape) == 3 else None
        if end2end or not isinstance(channels, int) or channels <= 4:
            raise ModelError("the model does not say its class names (no `names` metadata)")
        names = tuple(f"class{i}" for i in range(channels - 4))
    batch = shape[0] if isinstance(shape[0], int) and shape[0] > 0 else None
    return ModelInfo(names, size, stride, batch, dynamic_size, end2end, inputs[0].name, card.tile)


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
