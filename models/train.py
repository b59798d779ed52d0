"""Train the templecam detector with Ultralytics (offline), export it to ONNX, record its metrics.

`train(TrainConfig(...))` trains from `models/yolo-templecam.yaml` (no pretrained download) or
fine-tunes a local .pt, optionally on full-resolution tiles (`models.tiles`), then writes
`out/best.pt`, `out/best.onnx` (dynamic input, no NMS: output (batch, 4 + nc, anchors)) and
`out/metrics.json`, which the detector reads for `imgsz`, `tile` and `names`.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from base.files import write_atomically
from models.offline import OFFLINE_TRAIN_ARGS, ultralytics_offline
from models.tiles import DataSpec, TileError, count_images, read_data_yaml, tile_dataset
from vision.perception.model_contract import DetectorCard, set_props

MODEL_YAML = Path(__file__).with_name("yolo-templecam.yaml")
"""The default architecture: a slim YOLOv8-style detector (see the file)."""
ONNX_OPSET = 17
"""ONNX opset of the exported model (ONNX Runtime 1.17 and later read it)."""
RUN_NAME = "run"
"""Ultralytics writes its run (weights/last.pt, results.csv, args.yaml) to `out/run`."""
METRICS_FORMAT = "templecam-model-metrics/1"


class TrainError(Exception):
    """The training input is unusable; the message says what was wrong and what to do."""


@dataclass(frozen=True)
class TrainConfig:
    """What one `train` call does."""

    data: Path
    out: Path
    base: Path | None = None
    model_yaml: Path = MODEL_YAML
    epochs: int = 50
    imgsz: int = 640
    batch: int = 16
    tile: int = 640
    workers: int = 2
    resume: bool = False
    hours: float | None = None
    """Ultralytics' `time`: a training-time budget that overrides `epochs` when given."""
    patience: int = 100
    seed: int = 0
    val_frames: int | None = None
    """Validate during training on this many val frames (evenly spread); all when None."""
    holdout: Path | None = None
    """A second data.yaml to validate the final model on (its val split), recorded as `holdout`."""
    extra: dict[str, Any] = field(default_factory=dict)
    """More Ultralytics training arguments (augmentation, learning rate, ...)."""


def check_data(data: Path) -> DataSpec:
    """Check that a data.yaml exists and names train and val folders with images."""
    try:
        spec = read_data_yaml(data)
    except TileError as error:
        raise TrainError(str(error)) from None
    counts = count_images(spec)
    if counts["train"] == 0:
        raise TrainError(f"{data}: no images in the train folder {spec.train}")
    if counts["val"] == 0:
        raise TrainError(f"{data}: no images in the val folder {spec.val}")
    return spec


def check_weights(path: Path) -> None:
    """Check that a .pt file exists and loads as an Ultralytics detection checkpoint."""
    if not path.is_file():
        raise TrainError(f"{path} does not exist: give an Ultralytics .pt weights file")
    if path.suffix != ".pt":
        raise TrainError(f"{path} is not a .pt file: give Ultralytics PyTorch weights")
    ultralytics_offline()
    from ultralytics.nn.tasks import load_checkpoint

    try:
        model, _ = load_checkpoint(str(path), device="cpu")
    except Exception as error:  # torch raises many kinds for a damaged or foreign file
        raise TrainError(f"{path} is not readable Ultralytics weights ({error})") from None
    if getattr(model, "task", "detect") != "detect" or not hasattr(model, "names"):
        raise TrainError(f"{path} is not a detection model")


def _device() -> str:
    """Return the training device: the first CUDA GPU when there is one, else the CPU."""
    import torch

    return "0" if torch.cuda.is_available() else "cpu"


def renderer_settings(data: Path) -> dict[str, Any] | None:
    """Return the `templecam synth` manifest of the dataset behind `data` (or its tiles), if any."""
    from models.synth.dataset import MANIFEST

    folder = data.parent
    candidates = [folder / MANIFEST]
    tiles_manifest = folder / "templecam-tiles.json"
    if tiles_manifest.is_file():
        try:
            source = Path(json.loads(tiles_manifest.read_text("utf-8"))["source"])
            candidates.append(source.parent / MANIFEST)
        except (OSError, ValueError, KeyError):
            pass
    for path in candidates:
        if path.is_file():
            try:
                return dict(json.loads(path.read_text("utf-8")))
            except (OSError, ValueError):
                return None
    return None


def box_metrics(metrics: Any, names: dict[int, str] | list[str]) -> dict[str, Any]:
    """Return the figures of an Ultralytics `DetMetrics` as plain JSON values."""
    box = metrics.box
    names_list = [names[i] for i in range(len(names))]
    per_class: dict[str, Any] = {}
    counts = getattr(metrics, "nt_per_class", None)
    for row, cls in enumerate(box.ap_class_index):
        p, r, ap50, ap = box.class_result(row)
        per_class[names_list[int(cls)]] = {
            "ap50": round(float(ap50), 4),
            "ap50_95": round(float(ap), 4),
            "precision": round(float(p), 4),
            "recall": round(float(r), 4),
            "instances": int(counts[int(cls)]) if counts is not None else None,
        }
    return {
        "map50": round(float(box.map50), 4),
        "map50_95": round(float(box.map), 4),
        "precision": round(float(box.mp), 4),
        "recall": round(float(box.mr), 4),
        "per_class": per_class,
        "absent_classes": [n for n in names_list if n not in per_class],
    }


def validate(weights: Path, data: Path, imgsz: int, batch: int, workdir: Path) -> dict[str, Any]:
    """Validate weights on a data.yaml's val split (offline, no plots); return `box_metrics`."""
    ultralytics_offline()
    from ultralytics import YOLO

    model = YOLO(str(weights))
    metrics = model.val(
        data=str(data),
        imgsz=imgsz,
        batch=batch,
        device=_device(),
        plots=False,
        workers=0,
        project=str(workdir),
        name="val",
        exist_ok=True,
        verbose=False,
    )
    return box_metrics(metrics, model.names)


def add_onnx_metadata(path: Path, metadata: dict[str, str]) -> None:
    """Add or replace entries of an ONNX file's metadata_props (rewrites the file in place)."""
    import onnx

    model = onnx.load(str(path))
    set_props(model, metadata)
    onnx.save(model, str(path))


def keep_best(run_dir: Path, out: Path) -> Path:
    """Copy a run's best weights (else its last) to `out/best.pt`, atomically; return that path."""
    best_run = run_dir / "weights" / "best.pt"
    if not best_run.is_file():
        best_run = run_dir / "weights" / "last.pt"
    if not best_run.is_file():
        raise TrainError(f"training wrote no weights to {run_dir / 'weights'}")
    best_pt = out / "best.pt"
    with tempfile.TemporaryDirectory(prefix=".best-", dir=out) as tmp:
        staged = Path(tmp) / "best.pt"
        shutil.copyfile(best_run, staged)
        os.replace(staged, best_pt)
    return best_pt


def export_onnx(
    weights: Path,
    out: Path,
    imgsz: int,
    metadata: dict[str, str] | None = None,
    *,
    task: str = "detect",
    finish: Callable[[Path], None] | None = None,
) -> Path:
    """Export a .pt to ONNX at `out` (no NMS), atomically.

    A detector gets a dynamic input (batch, height, width: any multiple of 32), so that the
    live pipeline can run a small changed region at its own size; IMGSZ is its nominal size.
    A classifier keeps its static IMGSZ x IMGSZ input.

    `metadata` is added to what Ultralytics writes (names, imgsz, stride): `train` adds `tile`.
    `task` is the kind of model expected ("detect" or "classify"); `finish` may rework the
    exported file before it is moved into place.
    """
    ultralytics_offline()
    from ultralytics import YOLO

    try:
        import onnxslim  # noqa: F401

        simplify = True
    except ImportError:
        simplify = False
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".export-", dir=out.parent) as tmp:
        staged = Path(tmp) / "model.pt"
        shutil.copyfile(weights, staged)
        model = YOLO(str(staged))
        if getattr(model, "task", "detect") != task:
            kind = "detection" if task == "detect" else "classification"
            raise TrainError(f"{weights} is a {model.task} model, not a {kind} model")
        produced = model.export(
            format="onnx",
            imgsz=imgsz,
            opset=ONNX_OPSET,
            dynamic=task == "detect",
            simplify=simplify,
            batch=1,
            device="cpu",
            **({"nms": False} if task == "detect" else {}),
        )
        if not produced or not Path(produced).is_file():
            raise TrainError(f"ONNX export of {weights} failed (see the messages above)")
        if finish is not None:
            finish(Path(produced))
        if metadata:
            add_onnx_metadata(Path(produced), metadata)
        os.replace(produced, out)
    return out


def onnx_shapes(path: Path) -> tuple[list[Any], list[Any]]:
    """Return the input and output shapes of an ONNX model as ONNX Runtime reports them."""
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return list(session.get_inputs()[0].shape), list(session.get_outputs()[0].shape)


def _train_data(config: TrainConfig, log: Callable[[str], None]) -> tuple[Path, DataSpec]:
    """Return the data.yaml to train on: the given one, or its tiles when `tile` > 0."""
    spec = check_data(config.data)
    if config.tile <= 0:
        return config.data, spec
    folder = config.out / f"tiles-{config.tile}"
    log(f"train: cutting {config.data} into {config.tile} px tiles in {folder}")

    def progress(done: int, total: int) -> None:
        if done == total or done % max(1, total // 10) == 0:
            log(f"tiles: {done}/{total} frames")

    try:
        tiled = tile_dataset(config.data, folder, config.tile, progress, config.val_frames)
    except TileError as error:
        raise TrainError(str(error)) from None
    return tiled, spec


def _run_training(config: TrainConfig, data: Path) -> Path:
    """Run Ultralytics training (or resume it); return the run folder."""
    ultralytics_offline()
    from ultralytics import YOLO

    run_dir = config.out / RUN_NAME
    last = run_dir / "weights" / "last.pt"
    common = {
        "device": _device(),
        "workers": config.workers,
        **OFFLINE_TRAIN_ARGS,
    }
    if config.resume:
        if not last.is_file():
            raise TrainError(f"--resume: there is no {last} to continue; train without --resume")
        if _finished(last):  # only the validation and export were left undone
            return run_dir
        YOLO(str(last)).train(resume=str(last), **common)
        return run_dir
    if config.base is not None:
        model = YOLO(str(config.base))
    else:
        if not config.model_yaml.is_file():
            raise TrainError(f"model yaml {config.model_yaml} does not exist")
        model = YOLO(str(config.model_yaml))
    args: dict[str, Any] = {
        "data": str(data),
        "epochs": config.epochs,
        "imgsz": config.imgsz,
        "batch": config.batch,
        "project": str(config.out.resolve()),
        "name": RUN_NAME,
        "patience": config.patience,
        "seed": config.seed,
        **common,
        **config.extra,
    }
    if config.base is not None:
        # OFFLINE_TRAIN_ARGS says pretrained=False so that nothing is ever downloaded; but for
        # a model loaded from a .pt, Ultralytics reads pretrained=False as "rebuild it from its
        # yaml": --base trained a fresh, randomly initialised model (which is why fine-tuning
        # started worse than scratch). The local file itself is the pretrained source.
        args["pretrained"] = str(config.base)
        # Warm-up runs the biases at lr 0.1: right for a fresh model, ruinous for trained weights.
        args.setdefault("warmup_epochs", 0)
    if config.hours:
        args["time"] = config.hours
    model.train(**args)
    return run_dir


def _finished(checkpoint: Path) -> bool:
    """Return whether a last.pt belongs to a finished run (Ultralytics then marks epoch -1)."""
    from ultralytics.utils.patches import torch_load

    try:
        ckpt = torch_load(str(checkpoint), map_location="cpu", weights_only=False)
    except Exception as error:  # a damaged or foreign file
        raise TrainError(f"{checkpoint} is not readable Ultralytics weights ({error})") from None
    epoch = int(ckpt.get("epoch", -1))
    epochs = int((ckpt.get("train_args") or {}).get("epochs", 0))
    return epoch < 0 or epoch + 1 >= epochs


def _epochs_done(run_dir: Path) -> int:
    """Return the number of epochs in the run's results.csv."""
    results = run_dir / "results.csv"
    if not results.is_file():
        return 0
    lines = [line for line in results.read_text("utf-8").splitlines() if line.strip()]
    return max(0, len(lines) - 1)


def _previous_seconds(out: Path) -> float:
    """Return the training seconds recorded by earlier (interrupted) sessions of this run."""
    try:
        return float(json.loads((out / ".train-time.json").read_text("utf-8"))["seconds"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0


def train(config: TrainConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Train, export and record (see the module docstring); return the metrics written."""
    if config.base is not None:
        check_weights(config.base)
    if config.holdout is not None:
        check_data(config.holdout)
    config.out.mkdir(parents=True, exist_ok=True)
    data, spec = _train_data(config, log)
    tiled_spec = read_data_yaml(data)
    seconds_before = _previous_seconds(config.out) if config.resume else 0.0
    started = time.monotonic()
    try:
        run_dir = _run_training(config, data)
    finally:
        spent = seconds_before + time.monotonic() - started
        write_atomically(config.out / ".train-time.json", json.dumps({"seconds": spent}).encode())
    best_pt = keep_best(run_dir, config.out)
    log(f"train: validating {best_pt}")
    val = validate(best_pt, data, config.imgsz, config.batch, config.out / RUN_NAME)
    holdout = None
    if config.holdout is not None:
        holdout_data = config.holdout
        if config.tile > 0:
            holdout_data = tile_dataset(
                config.holdout, config.out / f"holdout-tiles-{config.tile}", config.tile
            )
        log(f"train: validating on the held-out set {config.holdout}")
        holdout = validate(
            best_pt, holdout_data, config.imgsz, config.batch, config.out / "holdout"
        )
        holdout["data"] = str(config.holdout.resolve())
        holdout["renderer"] = renderer_settings(config.holdout)
    log(f"train: exporting {config.out / 'best.onnx'}")
    onnx_path = export_onnx(
        best_pt, config.out / "best.onnx", config.imgsz, DetectorCard(tile=config.tile).to_props()
    )
    in_shape, out_shape = onnx_shapes(onnx_path)
    metrics = build_metrics(
        config,
        spec=spec,
        tiled_spec=tiled_spec,
        train_data=data,
        run_dir=run_dir,
        seconds=spent,
        val=val,
        holdout=holdout,
        shapes=(in_shape, out_shape),
    )
    write_atomically(
        config.out / "metrics.json", (json.dumps(metrics, indent=1) + "\n").encode("utf-8")
    )
    return metrics


def build_metrics(
    config: TrainConfig,
    *,
    spec: DataSpec,
    tiled_spec: DataSpec,
    train_data: Path,
    run_dir: Path,
    seconds: float,
    val: dict[str, Any],
    holdout: dict[str, Any] | None,
    shapes: tuple[list[Any], list[Any]],
) -> dict[str, Any]:
    """Return the metrics.json content of a finished training."""
    import torch
    import ultralytics

    args_yaml = run_dir / "args.yaml"
    train_args: dict[str, Any] = {}
    if args_yaml.is_file():
        import yaml

        train_args = yaml.safe_load(args_yaml.read_text("utf-8")) or {}
    model_yaml = None if config.base else config.model_yaml
    return {
        "format": METRICS_FORMAT,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "names": list(spec.names),
        "nc": len(spec.names),
        "imgsz": config.imgsz,
        "tile": config.tile,
        "input_shape": shapes[0],
        "output_shape": shapes[1],
        "onnx_opset": ONNX_OPSET,
        "nms_in_model": False,
        "epochs": {
            "requested": int(train_args.get("epochs", config.epochs)),
            "completed": _epochs_done(run_dir),
            "time_budget_hours": train_args.get("time") or None,
        },
        "batch": int(train_args.get("batch", config.batch)),
        "training_seconds": round(seconds, 1),
        "device": str(train_args.get("device", "")),
        "base_weights": str(config.base) if config.base else None,
        "model_yaml": str(model_yaml) if model_yaml else None,
        "model_yaml_text": model_yaml.read_text("utf-8") if model_yaml else None,
        "dataset": {
            "data_yaml": str(config.data.resolve()),
            "train_data_yaml": str(train_data.resolve()),
            "frames": count_images(spec),
            "tiles": count_images(tiled_spec) if config.tile > 0 else None,
            "train_fraction": float(train_args.get("fraction", 1.0)),
            "renderer": renderer_settings(config.data),
        },
        "val": val,
        "holdout": holdout,
        "train_args": {
            k: v for k, v in train_args.items() if isinstance(v, (int, float, str, bool))
        },
        "versions": {
            "ultralytics": ultralytics.__version__,
            "torch": torch.__version__,
            "python": platform.python_version(),
        },
    }
