"""Export the localiser to ONNX (any input size, the sigmoid inside) and plot its training curve."""

from __future__ import annotations

import itertools
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import torch
from torch import nn

from models.localiser.data import LOCALISER_CLASSES, NATIVE_DIE_PX, RUN_SCALE
from models.localiser.net import INPUT_MULTIPLE, LocaliserNet
from vision.perception.localiser_decode import STRIDE
from vision.perception.model_contract import LocaliserCard, set_props

ONNX_OPSET = 17


class _Exported(nn.Module):
    """The network with centre probabilities (sigmoid applied) as its first output."""

    def __init__(self, net: LocaliserNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Return (heat probabilities, box map)."""
        logits, box = self.net(x)
        return torch.sigmoid(logits), box


def export_onnx(state: dict[str, Any], out: Path) -> Path:
    """Write the weights in `state` to `out` as ONNX with a dynamic input, atomically."""
    import onnx

    net = LocaliserNet(len(LOCALISER_CLASSES), state["width"])
    net.load_state_dict(state["model"])
    net.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".export-", dir=out.parent) as tmp:
        staged = Path(tmp) / "localiser.onnx"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # the TorchScript exporter
            torch.onnx.export(
                _Exported(net),
                torch.zeros(1, 3, 544, 960),
                str(staged),
                input_names=["images"],
                output_names=["heat", "box"],
                dynamic_axes={
                    "images": {0: "batch", 2: "height", 3: "width"},
                    "heat": {0: "batch", 2: "rows", 3: "cols"},
                    "box": {0: "batch", 2: "rows", 3: "cols"},
                },
                opset_version=ONNX_OPSET,
                dynamo=False,
            )
        model = onnx.load(str(staged))
        card = LocaliserCard(
            names=tuple(LOCALISER_CLASSES),
            stride=STRIDE,
            input_multiple=INPUT_MULTIPLE,
            input_scale=RUN_SCALE,
            # The die edge in input px it expects: run at scale native_die_px / die px.
            native_die_px=NATIVE_DIE_PX,
        )
        set_props(model, card.to_props())
        onnx.save(model, str(staged))
        os.replace(staged, out)
    return out


def plot_curve(rows: list[dict[str, Any]], out: Path) -> Path:
    """Plot recall per class, false dice per frame and the training loss against steps."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    steps = [r["step"] for r in rows]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    top.plot(steps, [r["die_recall"] for r in rows], "o-", label="dice found (val)")
    for name in ("tile", "gem", "hand", "figure"):
        top.plot(steps, [r[f"{name}_recall"] for r in rows], ".-", alpha=0.6, label=name)
    top.set_ylabel("recall at IoU 0.5")
    top.set_ylim(0, 1.01)
    top.grid(alpha=0.3)
    top.legend(loc="lower right", fontsize=8)
    drops = [b["step"] for a, b in itertools.pairwise(rows) if b["lr"] < a["lr"]]
    for axis in (top, bottom):
        for step in drops:
            axis.axvline(step, color="grey", linestyle=":", linewidth=1)
    bottom.plot(steps, [r["false_dice"] for r in rows], "o-", color="C3", label="false dice/frame")
    bottom.set_yscale("symlog", linthresh=0.1)
    bottom.set_ylabel("false dice per frame")
    trained = [r for r in rows if r["loss"] is not None]
    twin = bottom.twinx()
    twin.plot([r["step"] for r in trained], [r["loss"] for r in trained], "-", color="grey")
    twin.set_ylabel("training loss (grey)")
    bottom.set_xlabel("optimizer steps (batch 16); dotted: learning rate x0.3")
    bottom.grid(alpha=0.3)
    minutes = rows[-1]["minutes"] if rows else 0.0
    fig.suptitle(f"templecam localiser: validation curve ({minutes:.0f} min on 2 CPU cores)")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=out.parent, suffix=".png", delete=False) as tmp:
        fig.savefig(tmp.name, dpi=90)
    os.chmod(tmp.name, 0o644)
    os.replace(tmp.name, out)
    plt.close(fig)
    return out
