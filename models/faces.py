"""The die-face classifier: crops from rendered frames, offline Ultralytics training, ONNX export.

`build_crops` turns a `templecam synth` dataset (frames with scene JSON) into an Ultralytics
classification dataset (`DIR/<split>/<class>/*.png`): a square full-resolution crop around every
labelled die (`vision.face_reader.crop_window`, jittered in the train split so that imperfect
detector boxes are covered), `not_die` crops around gems, figures, tiles, hands, clutter and bare
table, and the detector's own mistakes (die-like detections that overlap no die) as hard
negatives. `train_faces` trains `models/yolo-faces-cls.yaml` on them, exports `best.onnx`
(input (batch, 3, S, S), softmax output, `names` and `crop_scale` in the metadata) and writes
`metrics.json` with top-1 accuracy per class on the val crops and the held-out crops.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models.offline import OFFLINE_TRAIN_ARGS, ultralytics_offline
from models.train import TrainError, export_onnx, keep_best
from templecam.files import write_atomically
from vision.detections import box_iou
from vision.face_reader import (
    CLASSES,
    CROP_SCALE,
    DIE_CLASSES,
    NOT_DIE,
    UNREADABLE,
    FaceReader,
    crop_square,
    crop_window,
)

FACES_YAML = Path(__file__).with_name("yolo-faces-cls.yaml")
"""The classifier's architecture: a tiny CNN for 64 px crops (see the file)."""
BASELINE = Path(__file__).with_name("templecam-baseline.onnx")
"""The detector whose mistakes become hard negatives by default."""
ONNX_OPSET = 17
MANIFEST = "faces-crops.json"
CROPS_FORMAT = "templecam-face-crops/1"
"""Crop folders of this format and the same plan are reused: change it with the crop code."""
METRICS_FORMAT = "templecam-faces-metrics/1"
RUN_NAME = "run"
HARD_CONF = 0.1
"""Detector confidence down to which die-like detections are mined for hard negatives."""
HARD_IOU = 0.3
"""A detection overlapping every die less than this is a hard negative."""
MATCH_IOU = 0.5
"""A detection overlapping a labelled die this much is a crop of that die."""
NEG_SIDE = (30.0, 60.0)
"""Range of the (die-sized) box side of a not_die sample, in frame px."""
CLASSIFY_ARGS: dict[str, Any] = {
    "optimizer": "AdamW",
    "lr0": 0.002,
    "warmup_epochs": 0.3,  # a short run: a few epochs in all
    "auto_augment": None,  # RandAugment's colour ops would blur golden and black masks
    "erasing": 0.0,
    "scale": 0.1,  # the crops are already jittered; keep the whole die in view
    "fliplr": 0.5,
    "flipud": 0.5,
    "hsv_h": 0.015,
    "hsv_s": 0.4,
    "hsv_v": 0.3,
}
"""Ultralytics training arguments for the crops (`FacesConfig.extra` overrides them)."""


class FacesError(Exception):
    """The input for the face classifier is unusable; the message says what to do."""


# --- Crops ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CropPlan:
    """How `build_crops` cuts a dataset into classifier crops."""

    imgsz: int = 64
    crop_scale: float = CROP_SCALE
    copies: int = 2
    """Jittered crops per labelled die in the train split (other splits: one, unjittered)."""
    shift: float = 0.1
    """Train jitter: the box centre moves up to this share of its longer side."""
    zoom: float = 0.15
    """Train jitter: the box's side is scaled by up to 1 +- this."""
    context: int = 8
    """not_die crops per frame around other objects (gems, figures, tiles, hands, clutter)."""
    table: int = 3
    """not_die crops per frame anywhere that holds no die."""
    hard_share: float = 0.25
    """Share of each split's frames (evenly spread) run through the detector for hard examples."""
    degrade: float = 0.5
    """Share of train crops given a worse camera: exposure, colour cast, blur, noise, JPEG."""
    seed: int = 0


def _class_of(die: dict[str, Any]) -> str | None:
    """Return a scene die's classifier class (its face or `unreadable`), None when unlabelled."""
    if die.get("box") is None or die.get("label") is None:
        return None
    return die["face"] if die.get("face") in CLASSES else UNREADABLE


def _boxes(items: Sequence[dict[str, Any]]) -> list[list[float]]:
    """Return the boxes of scene items that have one."""
    return [list(map(float, it["box"])) for it in items if it.get("box") is not None]


def context_boxes(scene: dict[str, Any]) -> list[list[float]]:
    """Return the boxes of everything in a scene that is not a die."""
    items = [
        *scene.get("tiles", []),
        *scene.get("gems", {}).get("items", []),
        *scene.get("figures", []),
        *scene.get("hands", []),
        *scene.get("clutter", []),
        *scene.get("draw_pile", {}).get("pieces", []),
    ]
    return _boxes(items)


def jitter_box(
    box: Sequence[float], rng: np.random.Generator, shift: float, zoom: float
) -> list[float]:
    """Move a box's centre by up to `shift` of its longer side and scale it by 1 +- `zoom`."""
    x1, y1, x2, y2 = (float(v) for v in box)
    side = max(x2 - x1, y2 - y1)
    dx, dy = rng.uniform(-shift, shift, 2) * side
    k = rng.uniform(1 - zoom, 1 + zoom)
    cx, cy = (x1 + x2) / 2 + dx, (y1 + y2) / 2 + dy
    hw, hh = (x2 - x1) * k / 2, (y2 - y1) * k / 2
    return [cx - hw, cy - hh, cx + hw, cy + hh]


def degrade_crop(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Return a crop as a worse camera would show it (the renderer's --hard effect ranges)."""
    gains = rng.uniform(0.65, 1.3) * rng.uniform(0.9, 1.1, 3)
    out = crop.astype(np.float32) * gains.astype(np.float32)
    if rng.random() < 0.6:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 2.2))
    out += rng.standard_normal(out.shape[:2], dtype=np.float32)[..., None] * (
        rng.uniform(0.004, 0.03) * 255
    )
    image = np.clip(out + 0.5, 0, 255).astype(np.uint8)
    quality = int(rng.integers(30, 96))
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else image


def _clear_of_dice(box: np.ndarray, dice: np.ndarray) -> bool:
    """Tell whether a box overlaps no die (IoU under 0.1) and holds no die's centre."""
    if not len(dice):
        return True
    if box_iou(box[None], dice).max() >= 0.1:
        return False
    centres = (dice[:, :2] + dice[:, 2:]) / 2
    inside = (centres >= box[:2]) & (centres <= box[2:])
    return not inside.all(axis=1).any()


def negative_boxes(
    scene: dict[str, Any],
    rng: np.random.Generator,
    width: int,
    height: int,
    context: int,
    table: int,
) -> list[list[float]]:
    """Sample die-sized boxes on other objects (`context`) and anywhere (`table`), clear of dice."""
    dice = np.array(_boxes(scene.get("dice", [])), dtype=np.float64).reshape(-1, 4)
    objects = context_boxes(scene)
    wanted = [True] * (context if objects else 0) + [False] * table
    found = []
    for on_object in wanted:
        for _ in range(20):
            side = rng.uniform(*NEG_SIDE)
            w, h = side, side * rng.uniform(0.8, 1.25)
            if on_object:
                x1, y1, x2, y2 = objects[int(rng.integers(len(objects)))]
                if max(x2 - x1, y2 - y1) < 2 * NEG_SIDE[1]:  # small: centred near it
                    cx = (x1 + x2) / 2 + rng.uniform(-0.3, 0.3) * (x2 - x1)
                    cy = (y1 + y2) / 2 + rng.uniform(-0.3, 0.3) * (y2 - y1)
                else:  # big (tile art, hands, clutter): anywhere on it
                    cx, cy = rng.uniform(x1, x2), rng.uniform(y1, y2)
            else:
                cx, cy = rng.uniform(0, width), rng.uniform(0, height)
            box = np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])
            if _clear_of_dice(box, dice):
                found.append(box.tolist())
                break
    return found


def detector_examples(boxes: np.ndarray, scene: dict[str, Any]) -> list[tuple[list[float], str]]:
    """Label die-like detector boxes of a frame: a labelled die's class, or `not_die`.

    A box overlapping every die (labelled or not) by less than `HARD_IOU` is `not_die`; one
    overlapping a labelled die by `MATCH_IOU` or more is that die; the rest are left out.
    """
    dice = [d for d in scene.get("dice", []) if d.get("box") is not None]
    truth = np.array([d["box"] for d in dice], dtype=np.float64).reshape(-1, 4)
    iou = box_iou(boxes, truth) if len(truth) else np.zeros((len(boxes), 0))
    out = []
    for row, box in enumerate(np.asarray(boxes, dtype=np.float64).reshape(-1, 4)):
        best = int(iou[row].argmax()) if iou.shape[1] else -1
        top = float(iou[row, best]) if best >= 0 else 0.0
        if top < HARD_IOU:
            out.append((box.tolist(), NOT_DIE))
        elif top >= MATCH_IOU and (cls := _class_of(dice[best])) is not None:
            out.append((box.tolist(), cls))
    return out


def _write_png(path: Path, crop: np.ndarray) -> None:
    """Write a crop as PNG, atomically."""
    ok, data = cv2.imencode(".png", crop)
    if not ok:
        raise FacesError(f"cannot encode {path}")
    write_atomically(path, data.tobytes())


def _frames(data: Path, split: str) -> list[Path]:
    """Return a split's images, checking that each has its scene JSON."""
    from vision.evaluate import DatasetError, read_data_yaml, scene_path

    try:
        images = list(read_data_yaml(data, split).images)
    except DatasetError as error:
        raise FacesError(str(error)) from None
    if not scene_path(images[0]).is_file():
        raise FacesError(
            f"{data}: no scene JSON beside {images[0]} (expected {scene_path(images[0])}); "
            "the face classifier learns from `templecam synth` datasets"
        )
    return images


def crop_split(
    data: Path,
    split: str,
    out: Path,
    plan: CropPlan,
    detector: Any | None,
    augment: bool,
    log: Callable[[str], None] = print,
) -> dict[str, int]:
    """Write the crops of one split of `data` to `out/<class>/`; return the count per class."""
    from vision.evaluate import scene_path

    images = _frames(data, split)
    hard = set()
    if detector is not None and plan.hard_share > 0:
        n = max(1, round(len(images) * plan.hard_share))
        hard = {int(i) for i in np.linspace(0, len(images) - 1, n).round()}
    counts = dict.fromkeys(CLASSES, 0)
    for index, path in enumerate(images):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise FacesError(f"cannot read image {path}")
        scene = json.loads(scene_path(path).read_text("utf-8"))
        rng = np.random.default_rng([plan.seed, index, int(augment)])
        height, width = image.shape[:2]
        samples: list[tuple[str, list[float], str]] = []
        for die in scene.get("dice", []):
            cls = _class_of(die)
            if cls is None:
                continue
            if augment:
                for _ in range(plan.copies):
                    samples.append(("die", jitter_box(die["box"], rng, plan.shift, plan.zoom), cls))
            else:
                samples.append(("die", list(map(float, die["box"])), cls))
        for box in negative_boxes(scene, rng, width, height, plan.context, plan.table):
            samples.append(("neg", box, NOT_DIE))
        if index in hard:
            found = detector.detect(image).with_classes(DIE_CLASSES)
            for box, cls in detector_examples(found.xyxy, scene):
                samples.append(("det", box, cls))
                if augment:
                    samples.append(("det", jitter_box(box, rng, plan.shift, plan.zoom), cls))
        for k, (kind, box, cls) in enumerate(samples):
            crop = crop_square(image, crop_window(box, plan.crop_scale), plan.imgsz)
            if augment and rng.random() < plan.degrade:
                crop = degrade_crop(crop, rng)
            _write_png(out / cls / f"{path.stem}-{kind}{k:03d}.png", crop)
            counts[cls] += 1
        if (index + 1) % 50 == 0 or index + 1 == len(images):
            log(f"crops: {split} {index + 1}/{len(images)} frames")
    return counts


def build_crops(
    data: Path,
    out: Path,
    plan: CropPlan,
    splits: dict[str, str],
    detector_model: Path | None = BASELINE,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Cut `data` into an Ultralytics classification dataset at `out` (`splits`: out <- data split).

    The train split (when asked for) is jittered. Every class folder exists, even empty, so the
    class list is always `CLASSES`. A finished folder with the same plan and source is reused.
    Return the manifest (plan, source, counts per split and class).
    """
    wanted = {
        "format": CROPS_FORMAT,
        "data": str(Path(data).resolve()),
        "splits": dict(splits),
        "plan": asdict(plan),
        "detector": str(detector_model.resolve()) if detector_model else None,
    }
    manifest_path = out / MANIFEST
    if manifest_path.is_file():
        try:
            old = json.loads(manifest_path.read_text("utf-8"))
        except ValueError:
            old = {}
        if {k: old.get(k) for k in wanted} == wanted:
            log(f"crops: reusing {out}")
            return dict(old)
    detector = None
    if detector_model is not None:
        from vision.detector import Detector, DetectorSettings, ModelError

        try:
            detector = Detector(detector_model, DetectorSettings(conf=HARD_CONF, faces="off"))
        except ModelError as error:
            raise FacesError(f"hard negatives: {error}") from None
    if out.exists():
        shutil.rmtree(out)
    counts = {}
    for name, source in splits.items():
        for cls in CLASSES:
            (out / name / cls).mkdir(parents=True, exist_ok=True)
        counts[name] = crop_split(data, source, out / name, plan, detector, name == "train", log)
    manifest = {**wanted, "counts": counts}
    write_atomically(manifest_path, (json.dumps(manifest, indent=1) + "\n").encode("utf-8"))
    return manifest


# --- Training ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FacesConfig:
    """What one `train_faces` call does."""

    data: Path
    """A `templecam synth` data.yaml (scene JSON beside the labels)."""
    out: Path
    holdout: Path | None = None
    """Another synth data.yaml whose val split is cut into held-out crops and scored."""
    base: Path | None = None
    """Fine-tune this classifier .pt instead of training `model_yaml` from scratch."""
    model_yaml: Path = FACES_YAML
    epochs: int = 5
    hours: float | None = None
    batch: int = 64
    workers: int = 2
    detector: Path | None = BASELINE
    """The detector mined for hard examples; None: no hard examples."""
    plan: CropPlan = field(default_factory=CropPlan)
    extra: dict[str, Any] = field(default_factory=dict)
    """More Ultralytics training arguments."""


def _device() -> str:
    """Return the training device: the first CUDA GPU when there is one, else the CPU."""
    import torch

    return "0" if torch.cuda.is_available() else "cpu"


def check_classifier_weights(path: Path) -> None:
    """Check that a .pt file is an Ultralytics classifier with the face classes."""
    if not path.is_file() or path.suffix != ".pt":
        raise FacesError(f"{path} is not a .pt file: give face classifier weights")
    ultralytics_offline()
    from ultralytics.nn.tasks import load_checkpoint

    try:
        model, _ = load_checkpoint(str(path), device="cpu")
    except Exception as error:  # torch raises many kinds for a damaged or foreign file
        raise FacesError(f"{path} is not readable Ultralytics weights ({error})") from None
    names = getattr(model, "names", {})
    names = [names[k] for k in sorted(names)] if isinstance(names, dict) else list(names)
    if getattr(model, "task", "") != "classify" or sorted(names) != sorted(CLASSES):
        raise FacesError(f"{path} is not a face classifier (classes {', '.join(CLASSES)})")


def _run_training(config: FacesConfig, crops: Path) -> Path:
    """Run Ultralytics classification training on the crops; return the run folder."""
    ultralytics_offline()
    from ultralytics import YOLO

    source = config.base if config.base is not None else config.model_yaml
    model = YOLO(str(source), task="classify")
    args: dict[str, Any] = {
        "data": str(crops.resolve()),
        "epochs": config.epochs,
        "imgsz": config.plan.imgsz,
        "batch": config.batch,
        "workers": config.workers,
        "device": _device(),
        "project": str(config.out.resolve()),
        "name": RUN_NAME,
        "seed": config.plan.seed,
        "deterministic": True,
        **OFFLINE_TRAIN_ARGS,
        **CLASSIFY_ARGS,
        **config.extra,
    }
    if config.hours:
        args["time"] = config.hours
    model.train(**args)
    return config.out / RUN_NAME


def make_batch_dynamic(path: Path) -> None:
    """Turn the batch dimension of an ONNX model's input and output into `batch` (in place)."""
    import onnx

    model = onnx.load(str(path))
    for value in (*model.graph.input, *model.graph.output):
        value.type.tensor_type.shape.dim[0].dim_param = "batch"
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def export_faces_onnx(weights: Path, out: Path, imgsz: int, crop_scale: float) -> Path:
    """Export a classifier .pt to ONNX at `out`: input (batch, 3, imgsz, imgsz), softmax output.

    The metadata holds Ultralytics' `names`, `imgsz` and `task`, plus `crop_scale`.
    """
    try:
        return export_onnx(
            weights,
            out,
            imgsz,
            {"crop_scale": str(crop_scale)},
            task="classify",
            finish=make_batch_dynamic,
        )
    except TrainError as error:
        raise FacesError(str(error)) from None


def read_crops(folder: Path) -> tuple[list[np.ndarray], list[str]]:
    """Read a split's crops (`folder/<class>/*.png`) and their classes, in name order."""
    crops, classes = [], []
    for cls in CLASSES:
        for path in sorted((folder / cls).glob("*.png")):
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                raise FacesError(f"cannot read crop {path}")
            crops.append(image)
            classes.append(cls)
    return crops, classes


def score_crops(reader: FaceReader, folder: Path) -> dict[str, Any]:
    """Return `reader`'s top-1 accuracy on a split's crops, overall and per class (and misreads)."""
    crops, truth = read_crops(folder)
    probs = reader.predict(crops)
    said = [reader.names[i] for i in probs.argmax(axis=1)] if len(probs) else []
    per_class: dict[str, Any] = {}
    for cls in CLASSES:
        rows = [i for i, t in enumerate(truth) if t == cls]
        wrong: dict[str, int] = {}
        for i in rows:
            if said[i] != cls:
                wrong[said[i]] = wrong.get(said[i], 0) + 1
        per_class[cls] = {
            "crops": len(rows),
            "top1": round(sum(said[i] == cls for i in rows) / len(rows), 4) if rows else None,
            "read_as": dict(sorted(wrong.items())),
        }
    right = sum(s == t for s, t in zip(said, truth, strict=True))
    return {
        "crops": len(truth),
        "top1": round(right / len(truth), 4) if truth else None,
        "per_class": per_class,
    }


def train_faces(config: FacesConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Cut crops, train, export, score (see the module docstring); return the metrics written."""
    if config.base is not None:
        check_classifier_weights(config.base)
    elif not config.model_yaml.is_file():
        raise FacesError(f"model yaml {config.model_yaml} does not exist")
    config.out.mkdir(parents=True, exist_ok=True)
    crops = config.out / "crops"
    log(f"faces: cutting crops of {config.data} into {crops}")
    manifest = build_crops(
        config.data, crops, config.plan, {"train": "train", "val": "val"}, config.detector, log
    )
    holdout_manifest = None
    if config.holdout is not None:
        log(f"faces: cutting held-out crops of {config.holdout}")
        holdout_manifest = build_crops(
            config.holdout,
            config.out / "holdout-crops",
            config.plan,
            {"val": "val"},
            config.detector,
            log,
        )
    started = time.monotonic()
    run_dir = _run_training(config, crops)
    seconds = time.monotonic() - started
    try:
        best_pt = keep_best(run_dir, config.out)
    except TrainError as error:
        raise FacesError(str(error)) from None
    log(f"faces: exporting {config.out / 'best.onnx'}")
    onnx_path = export_faces_onnx(
        best_pt, config.out / "best.onnx", config.plan.imgsz, config.plan.crop_scale
    )
    reader = FaceReader(onnx_path)
    val = score_crops(reader, crops / "val")
    holdout = None
    if holdout_manifest is not None:
        holdout = score_crops(reader, config.out / "holdout-crops" / "val")
        holdout["data"] = str(config.holdout.resolve()) if config.holdout else None
    metrics = build_metrics(config, reader, run_dir, seconds, manifest, val, holdout)
    write_atomically(
        config.out / "metrics.json", (json.dumps(metrics, indent=1) + "\n").encode("utf-8")
    )
    return metrics


def _epochs_done(run_dir: Path) -> int:
    """Return the number of epochs in the run's results.csv."""
    results = run_dir / "results.csv"
    if not results.is_file():
        return 0
    lines = [line for line in results.read_text("utf-8").splitlines() if line.strip()]
    return max(0, len(lines) - 1)


def build_metrics(
    config: FacesConfig,
    reader: FaceReader,
    run_dir: Path,
    seconds: float,
    manifest: dict[str, Any],
    val: dict[str, Any],
    holdout: dict[str, Any] | None,
) -> dict[str, Any]:
    """Return the metrics.json content of a finished classifier training."""
    import platform

    import torch
    import ultralytics
    import yaml

    args_yaml = run_dir / "args.yaml"
    train_args = yaml.safe_load(args_yaml.read_text("utf-8")) if args_yaml.is_file() else {}
    model_yaml = None if config.base else config.model_yaml
    return {
        "format": METRICS_FORMAT,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "names": list(reader.names),
        "imgsz": config.plan.imgsz,
        "crop_scale": config.plan.crop_scale,
        "input_shape": list(reader.session.get_inputs()[0].shape),
        "onnx_opset": ONNX_OPSET,
        "epochs": {"requested": config.epochs, "completed": _epochs_done(run_dir)},
        "training_seconds": round(seconds, 1),
        "base_weights": str(config.base) if config.base else None,
        "model_yaml": str(model_yaml) if model_yaml else None,
        "crops": {
            "data_yaml": manifest["data"],
            "plan": manifest["plan"],
            "detector": manifest["detector"],
            "counts": manifest["counts"],
        },
        "val": val,
        "holdout": holdout,
        "train_args": {
            k: v for k, v in (train_args or {}).items() if isinstance(v, (int, float, str, bool))
        },
        "versions": {
            "ultralytics": ultralytics.__version__,
            "torch": torch.__version__,
            "python": platform.python_version(),
        },
    }
