"""Training the die-face reader end to end: render crops, train, export, measure, write the card.

`train_faces` renders (or reuses) the crop sets (`models.synth.crops`, cached in the run folder),
optionally adds crops cut from a user's labelled `templecam synth`-style frames, trains
`models.faces_net.FaceNet` (`models.faces_fit`), exports `best.onnx` and its int8 copy, and
measures it through ONNX Runtime on fresh sets: a new seed of the training look, the held-out
look, and the val crops of any rendered frame sets given. It writes DIR/best.pt, DIR/best.onnx,
DIR/best-int8.onnx, DIR/curve.png and DIR/metrics.json (the model card's figures).
"""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from base.files import write_atomically
from models.faces_fit import FitConfig, FitState, fit
from models.faces_int8 import quantize_reader
from models.faces_net import (
    FaceNet,
    FaceWeightsError,
    export_onnx,
    load_weights,
    parameter_count,
    save_weights,
)
from models.faces_report import frame_set, plot_curves, score, speed
from models.frame_crops import CropPlan, FrameCropsError, build_crops, read_crops
from models.synth.crop_look import HELD_OUT_LOOK, TRAIN_LOOK, Look
from models.synth.crop_set import CropSet, label_index
from models.synth.crops import LABELS
from vision.perception.face_reader import CROP_SCALE, FaceReader

METRICS_FORMAT = "templecam-faces-metrics/2"
SEEDS = {"train": 0, "val": 1000, "held_out": 2000, "final_val": 3000, "final_held_out": 4000}
"""Offsets of each crop set's seed from the run's seed: every set is drawn apart."""


class FacesError(Exception):
    """The reader cannot be trained as asked; the message says what to do."""


@dataclass(frozen=True)
class FacesConfig:
    """What one `train_faces` call does."""

    out: Path
    crops: int = 60000
    """Rendered training crops."""
    width: int = 24
    """Channels of the network's first block (`models.faces_net.FaceNet`); a base keeps its own."""
    val_crops: int = 3000
    """Rendered crops of each validation set (training look, held-out look), and of each
    final measurement set."""
    look: Look = TRAIN_LOOK
    held_out: Look = HELD_OUT_LOOK
    imgsz: int = 40
    crop_scale: float = CROP_SCALE
    data: Path | None = None
    """A `templecam synth`-style data.yaml whose train split adds crops cut from frames."""
    frames: tuple[Path, ...] = ()
    """`templecam synth` data.yaml files whose val crops are scored at the end."""
    base: Path | None = None
    """Fine-tune these reader weights (.pt of `train --faces`) instead of starting afresh."""
    resume: bool = False
    workers: int = 2
    """Processes rendering crops."""
    detector: Path | None = None
    """A detector whose mistakes on `data`'s frames become not_die crops."""
    seed: int = 0
    fit: FitConfig = field(default_factory=FitConfig)
    command: str = ""
    """The command line that made the run (written into the card)."""


def _merge(*sets: CropSet) -> CropSet:
    """Return crop sets joined into one."""
    return CropSet(
        np.concatenate([s.images for s in sets]), np.concatenate([s.labels for s in sets]), []
    )


def _counts(crops: CropSet) -> dict[str, int]:
    """Return how many crops of each label (and unreadable dice) a set holds."""
    labels = np.asarray(crops.labels)
    out = {name: int((labels == k).sum()) for k, name in enumerate(LABELS)}
    out["unreadable_die"] = int((labels < 0).sum())
    return out


def _frame_crops(config: FacesConfig, log: Callable[[str], None]) -> tuple[CropSet, CropSet]:
    """Return crops cut from `config.data`'s train split (jittered) and val split."""
    assert config.data is not None
    folder = config.out / "frame-crops"
    plan = CropPlan(imgsz=config.imgsz, crop_scale=config.crop_scale, seed=config.seed)
    try:
        build_crops(
            config.data, folder, plan, {"train": "train", "val": "val"}, config.detector, log
        )
    except FrameCropsError as error:
        raise FacesError(str(error)) from None
    out = []
    for split in ("train", "val"):
        crops, classes = read_crops(folder / split)
        images = (
            np.stack(crops) if crops else np.zeros((0, config.imgsz, config.imgsz, 3), np.uint8)
        )
        out.append(CropSet(images, np.array([label_index(c) for c in classes], np.int64), []))
    return out[0], out[1]


def _start_model(config: FacesConfig, log: Callable[[str], None]) -> FaceNet:
    """Return a fresh model, or the base's weights fitted to this run's classes."""
    if config.base is None:
        return FaceNet(len(LABELS), config.width)
    try:
        base, settings = load_weights(config.base)
    except FaceWeightsError as error:
        raise FacesError(str(error)) from None
    if settings["imgsz"] != config.imgsz:
        raise FacesError(
            f"{config.base} reads {settings['imgsz']} px crops: give --imgsz {settings['imgsz']}"
        )
    names = settings["names"]
    if names == LABELS:
        return base
    log(f"faces: the base's classes are {', '.join(names)}: matching its head by class name")
    model = FaceNet(len(LABELS), base.width)
    model.features.load_state_dict(base.features.state_dict())
    for row, name in enumerate(LABELS):
        if name in names:
            model.head.weight.data[row] = base.head.weight.data[names.index(name)]
            model.head.bias.data[row] = base.head.bias.data[names.index(name)]
    return model


def _render(config: FacesConfig, log: Callable[[str], None]) -> dict[str, CropSet]:
    """Return the training and validation crop sets (rendered once, cached in the run folder)."""
    from models.faces_data import cached_set

    cache = config.out / "cache"

    def crops(kind: str, n: int, look: Look) -> CropSet:
        seed = config.seed + SEEDS[kind]
        args = (n, seed, look, config.imgsz, config.crop_scale, config.workers, log)
        return cached_set(cache, kind, *args)

    return {
        "train": crops("train", config.crops, config.look),
        "val": crops("val", config.val_crops, config.look),
        "held_out": crops("held_out", config.val_crops, config.held_out),
    }


def _measure(
    config: FacesConfig,
    reader: FaceReader,
    log: Callable[[str], None],
    int8: FaceReader | None = None,
) -> dict[str, Any]:
    """Score the exported reader on fresh sets: the training look, the held-out look, frames;
    its `int8` copy on the same rendered sets (`int8` in the results)."""
    from models.faces_data import cached_set

    cache = config.out / "cache"
    results: dict[str, Any] = {}
    fresh = {"final_val": config.look, "final_held_out": config.held_out}
    sets = {}
    for kind, look in fresh.items():
        seed = config.seed + SEEDS[kind]
        sets[kind] = cached_set(
            cache,
            kind,
            config.val_crops,
            seed,
            look,
            config.imgsz,
            config.crop_scale,
            config.workers,
            log,
        )
        results[kind] = {"look": look.describe(), "seed": seed, **score(reader, sets[kind])}
    for data in config.frames:
        folder = config.out / "frames" / data.resolve().parent.name
        try:
            crops = frame_set(data, folder, config.imgsz, config.crop_scale)
        except FrameCropsError as error:
            raise FacesError(str(error)) from None
        results[f"frames:{data.resolve().parent.name}"] = {
            "data": str(data.resolve()),
            **score(reader, crops),
        }
    results["ms_per_25_crops"] = speed(reader, sets["final_val"])
    if int8 is not None:
        results["int8"] = {kind: score(int8, crops) for kind, crops in sets.items()}
        results["int8"]["ms_per_25_crops"] = speed(int8, sets["final_val"])
    return results


def train_faces(config: FacesConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Render, train, export and measure the reader (see the module docstring); return metrics."""
    started, cpu = time.monotonic(), _cpu_seconds()
    config.out.mkdir(parents=True, exist_ok=True)
    model = _start_model(config, log)
    sets = _render(config, log)
    train = sets["train"]
    val = {"val": sets["val"], "held_out": sets["held_out"]}
    if config.data is not None:
        frames_train, frames_val = _frame_crops(config, log)
        train = _merge(train, frames_train)
        if len(frames_val):
            val["data_val"] = frames_val
    rendered, rendered_cpu = time.monotonic() - started, _cpu_seconds() - cpu
    log(f"faces: {len(train)} training crops, {parameter_count(model)} parameters")
    state = fit(
        model,
        train,
        val,
        config.fit,
        config.out / "last.pt",
        fine_tune=config.base is not None,
        resume=config.resume,
        meta={"command": config.command},
        log=log,
    )
    trained, trained_cpu = time.monotonic() - started, _cpu_seconds() - cpu
    save_weights(config.out / "best.pt", model, LABELS, config.imgsz, config.crop_scale)
    onnx_path = export_onnx(
        model, config.out / "best.onnx", LABELS, config.imgsz, config.crop_scale
    )
    plot_curves(state.history, config.out / "curve.png", _title(config, state))
    int8_path = quantize_reader(onnx_path, config.out / "best-int8.onnx", sets["val"].images)
    reader = FaceReader(onnx_path, threads=config.fit.threads)
    int8 = FaceReader(int8_path, threads=config.fit.threads)
    results = _measure(config, reader, log, int8)
    metrics = _metrics(config, model, state, onnx_path, sets, train, results)
    metrics["seconds"] = {
        "rendering": round(rendered, 1),
        "to_trained": round(trained, 1),
        "wall": round(time.monotonic() - started, 1),
        "cpu_rendering": round(rendered_cpu, 1),
        "cpu_to_trained": round(trained_cpu, 1),
        "cpu": round(_cpu_seconds() - cpu, 1),
    }
    text = json.dumps(metrics, indent=1) + "\n"
    write_atomically(config.out / "metrics.json", text.encode("utf-8"))
    return metrics


def _cpu_seconds() -> float:
    """Return the CPU time of this process and its finished workers (every core summed)."""
    import resource

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _title(config: FacesConfig, state: FitState) -> str:
    """Return the curve plot's title."""
    base = f", from {config.base.name}" if config.base else ""
    minutes = state.history[-1].get("elapsed", 0.0) / 60 if state.history else 0.0
    return (
        f"die-face reader: {config.crops} rendered crops{base}, best epoch {state.best_epoch}, "
        f"stopped: {state.stopped}; {minutes:.1f} min of epochs (2 CPU threads)"
    )


def _metrics(
    config: FacesConfig,
    model: FaceNet,
    state: FitState,
    onnx_path: Path,
    sets: dict[str, CropSet],
    train: CropSet,
    results: dict[str, Any],
) -> dict[str, Any]:
    """Return the metrics.json content of a finished run."""
    import onnxruntime
    import torch

    return {
        "format": METRICS_FORMAT,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": config.command,
        "names": list(LABELS),
        "imgsz": config.imgsz,
        "crop_scale": config.crop_scale,
        "parameters": parameter_count(model),
        "width": model.width,
        "onnx_bytes": onnx_path.stat().st_size,
        "base_weights": str(config.base) if config.base else None,
        "looks": {"train": config.look.describe(), "held_out": config.held_out.describe()},
        "crops": {
            "train": _counts(train),
            "val": _counts(sets["val"]),
            "held_out": _counts(sets["held_out"]),
            "frames_data": str(config.data.resolve()) if config.data else None,
        },
        "fit": asdict(config.fit),
        "epochs": {
            "run": sum(1 for r in state.history if r["epoch"] > 0),
            "best": state.best_epoch,
            "stopped": state.stopped,
        },
        "history": state.history,
        "measured": results,
        "versions": {
            "torch": torch.__version__,
            "onnxruntime": onnxruntime.__version__,
            "python": platform.python_version(),
        },
    }
