"""The die-face reader's network: a small plain CNN, its weights file and its ONNX export.

Conv-BN-ReLU blocks 16-16 / pool / 32-32 / pool / 64 / pool / 64, global average pooling and a
linear layer: about 72,600 parameters, any square input (40 px by default). The input is what
`vision.perception.face_reader` feeds: RGB in 0..1, (batch, 3, S, S); the exported ONNX model ends
in a softmax and carries `names`, `imgsz` and `crop_scale` in its metadata.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from torch import nn

from base.files import write_atomically
from vision.perception.model_contract import FaceReaderCard, set_props

WEIGHTS_FORMAT = "templecam-faces-weights/1"
WIDTH = 16
"""Channels of the first block (16: about 72,700 parameters)."""
ONNX_OPSET = 17


class FaceWeightsError(Exception):
    """A weights file is not a die-face reader's; the message says why."""


def _block(cin: int, cout: int) -> list[nn.Module]:
    """Return a 3x3 convolution, batch norm and ReLU."""
    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]


class FaceNet(nn.Module):
    """The reader: conv blocks w-w / 2w-2w / 4w / 4w with three poolings, GAP, a linear head."""

    def __init__(self, classes: int, width: int = WIDTH) -> None:
        """Build the network for `classes` outputs (logits), `width` channels in its first block."""
        super().__init__()
        w = width
        self.width = width
        self.features = nn.Sequential(
            *_block(3, w),
            *_block(w, w),
            nn.MaxPool2d(2),
            *_block(w, 2 * w),
            *_block(2 * w, 2 * w),
            nn.MaxPool2d(2),
            *_block(2 * w, 4 * w),
            nn.MaxPool2d(2),
            *_block(4 * w, 4 * w),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
        )
        self.head = nn.Linear(4 * w, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return logits (batch, classes) of RGB crops in 0..1 (batch, 3, S, S)."""
        return self.head(self.features(x - 0.5))


def parameter_count(model: nn.Module) -> int:
    """Return the number of trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def save_weights(
    path: Path, model: FaceNet, names: tuple[str, ...], imgsz: int, crop_scale: float
) -> None:
    """Write a reader's weights with what it needs to run (`load_weights` reads them)."""
    import io

    state = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
    data = {
        "format": WEIGHTS_FORMAT,
        "names": list(names),
        "imgsz": imgsz,
        "crop_scale": crop_scale,
        "width": model.width,
        "state_dict": state,
    }
    buffer = io.BytesIO()
    torch.save(data, buffer)
    write_atomically(path, buffer.getvalue())


def load_weights(path: Path) -> tuple[FaceNet, dict[str, Any]]:
    """Read weights written by `save_weights`; return the model and the file's settings."""
    if not path.is_file():
        raise FaceWeightsError(f"no weights at {path}")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many kinds for a damaged or foreign file
        raise FaceWeightsError(f"{path} is not readable weights ({error})") from None
    if not isinstance(data, dict) or data.get("format") != WEIGHTS_FORMAT:
        raise FaceWeightsError(
            f"{path} is not die-face reader weights of this templecam "
            f"(format {WEIGHTS_FORMAT}; an Ultralytics classifier cannot be fine-tuned here)"
        )
    model = FaceNet(len(data["names"]), int(data.get("width", WIDTH)))
    model.load_state_dict(data["state_dict"])
    settings = {k: data[k] for k in ("names", "imgsz", "crop_scale")}
    settings["names"] = tuple(settings["names"])
    return model, settings


def export_onnx(
    model: FaceNet, path: Path, names: tuple[str, ...], imgsz: int, crop_scale: float
) -> Path:
    """Export to ONNX at `path`: input `images` (batch, 3, S, S), softmax output, metadata."""
    import io

    import onnx

    wrapped = nn.Sequential(model, nn.Softmax(dim=1)).eval()
    buffer = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(
            wrapped,
            (torch.zeros(1, 3, imgsz, imgsz),),
            buffer,
            dynamo=False,
            opset_version=ONNX_OPSET,
            input_names=["images"],
            output_names=["output0"],
            dynamic_axes={"images": {0: "batch"}, "output0": {0: "batch"}},
        )
    graph = onnx.load_from_string(buffer.getvalue())
    set_props(graph, FaceReaderCard(tuple(names), imgsz, crop_scale).to_props())
    onnx.checker.check_model(graph)
    write_atomically(path, graph.SerializeToString())
    return path
