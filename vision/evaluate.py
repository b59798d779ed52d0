"""Score a detector on a YOLO dataset: COCO-style mAP, per-class figures, dice, gems, tiles, speed.

Classes are matched by name: a dataset that holds only some of the model's classes (only the
five die faces, say) is scored on those alone, and the model's other classes are ignored. With
the renderer's scenes/*.json beside the labels, the scene figures (gems in the depot, tiles
found) are scored too.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from base.dataset_files import DataYamlError, is_image, label_path, sibling_path
from base.dataset_files import read_data_yaml as read_yaml
from rules.vocabulary import FACES
from vision.perception.detections import Detections, box_iou

IOU_THRESHOLDS = np.round(np.arange(0.5, 0.96, 0.05), 2)
"""The IoU thresholds of mAP50-95: 0.50, 0.55, ..., 0.95."""
RECALL_POINTS = np.linspace(0.0, 1.0, 101)
"""COCO's 101 recall points for interpolated precision."""
MAP_CONF = 0.001
"""Detections down to this confidence enter the precision-recall curves."""
MATCH_IOU = 0.5
"""IoU at which a detection counts as finding an object (precision, recall, dice, tiles)."""


class DatasetError(Exception):
    """The dataset cannot be read; the message says why."""


class Model(Protocol):
    """What the evaluation needs of a detector."""

    @property
    def names(self) -> tuple[str, ...]:
        """Return the model's class names."""
        ...

    def detect(self, image_bgr: np.ndarray, conf: float | None = None) -> Detections:
        """Detect objects in a BGR image."""
        ...


# --- Reading a dataset ------------------------------------------------------------------------


@dataclass(frozen=True)
class Truth:
    """One image's ground truth: boxes in pixels with class names, and its scene JSON if any."""

    xyxy: np.ndarray
    names: tuple[str, ...]
    scene: dict[str, Any] | None = None


@dataclass(frozen=True)
class DataSplit:
    """The images of one split of a data.yaml, and the dataset's class names."""

    yaml: Path
    split: str
    names: tuple[str, ...]
    images: tuple[Path, ...]


def scene_path(image: Path) -> Path:
    """Return the scene JSON of an image written by `templecam synth` (images/ -> scenes/)."""
    return sibling_path(image, "scenes", ".json")


def _list_images(entry: Path) -> list[Path]:
    """Return the images of a split entry: a folder, a text file listing images, or one image."""
    if entry.is_dir():
        return sorted(p for p in entry.rglob("*") if is_image(p))
    if entry.suffix == ".txt" and entry.is_file():
        lines = [line.strip() for line in entry.read_text("utf-8").splitlines() if line.strip()]
        return [(entry.parent / line).resolve() for line in lines]
    if is_image(entry) and entry.is_file():
        return [entry]
    raise DatasetError(f"{entry}: no such image folder or list")


def read_data_yaml(path: str | Path, split: str = "val") -> DataSplit:
    """Read an Ultralytics data.yaml and list the images of `split`."""
    try:
        data = read_yaml(path)
        entries = data.entries(split)
    except DataYamlError as error:
        raise DatasetError(str(error)) from None
    images = [image for entry in entries for image in _list_images(entry)]
    if not images:
        raise DatasetError(f"the `{split}` split of {data.path} holds no images")
    return DataSplit(data.path, split, data.names, tuple(images))


def read_truth(image: Path, width: int, height: int, names: Sequence[str]) -> Truth:
    """Read an image's YOLO labels (and scene JSON when present) as pixel boxes."""
    boxes, classes = [], []
    labels = label_path(image)
    if labels.is_file():
        for number, line in enumerate(labels.read_text("utf-8").splitlines(), start=1):
            words = line.split()
            if not words:
                continue
            try:
                cls, cx, cy, w, h = int(words[0]), *(float(v) for v in words[1:5])
            except ValueError:
                raise DatasetError(f"{labels}:{number}: expected 'class cx cy w h'") from None
            if not 0 <= cls < len(names):
                raise DatasetError(f"{labels}:{number}: class {cls} is not in data.yaml's names")
            boxes.append(
                [
                    (cx - w / 2) * width,
                    (cy - h / 2) * height,
                    (cx + w / 2) * width,
                    (cy + h / 2) * height,
                ]
            )
            classes.append(names[cls])
    scene = None
    scene_file = scene_path(image)
    if scene_file.is_file():
        try:
            scene = json.loads(scene_file.read_text("utf-8"))
        except ValueError as error:
            raise DatasetError(f"{scene_file} is not valid JSON: {error}") from None
    return Truth(np.array(boxes, dtype=np.float64).reshape(-1, 4), tuple(classes), scene)


# --- Metrics ----------------------------------------------------------------------------------


def average_precision(tp: np.ndarray, scores: np.ndarray, n_truth: int) -> np.ndarray:
    """Return COCO 101-point interpolated AP for each column of `tp` (detections x thresholds)."""
    tp = np.asarray(tp, dtype=bool)
    tp = tp[:, None] if tp.ndim == 1 else tp
    if n_truth == 0:
        return np.full(tp.shape[1], np.nan)
    if len(scores) == 0:
        return np.zeros(tp.shape[1])
    order = np.argsort(-np.asarray(scores), kind="mergesort")
    hits = np.cumsum(tp[order], axis=0)
    recall = hits / n_truth
    precision = hits / np.arange(1, len(order) + 1)[:, None]
    # The precision envelope: the best precision at this recall or any higher one.
    precision = np.flip(np.maximum.accumulate(np.flip(precision, axis=0), axis=0), axis=0)
    ap = np.zeros(tp.shape[1])
    for t in range(tp.shape[1]):
        idx = np.searchsorted(recall[:, t], RECALL_POINTS, side="left")
        sampled = np.where(idx < len(order), precision[np.minimum(idx, len(order) - 1), t], 0.0)
        ap[t] = sampled.mean()
    return ap


def match(
    pred_xyxy: np.ndarray, pred_scores: np.ndarray, true_xyxy: np.ndarray, thresholds: np.ndarray
) -> np.ndarray:
    """Match one image's detections of one class to its objects, COCO style.

    Detections, best first, take the unmatched object they overlap most, if by at least the
    threshold. Return a (detections, thresholds) array telling which detections found an object.
    """
    tp = np.zeros((len(pred_xyxy), len(thresholds)), dtype=bool)
    if len(pred_xyxy) == 0 or len(true_xyxy) == 0:
        return tp
    iou = box_iou(pred_xyxy, true_xyxy)
    order = np.argsort(-np.asarray(pred_scores), kind="mergesort")
    for t, threshold in enumerate(thresholds):
        taken = np.zeros(len(true_xyxy), dtype=bool)
        for d in order:
            candidates = np.where(taken, -1.0, iou[d])
            best = int(np.argmax(candidates))
            if candidates[best] >= threshold - 1e-12:
                taken[best] = True
                tp[d, t] = True
    return tp


@dataclass(frozen=True)
class ClassMetrics:
    """One class's figures: objects, precision and recall at the operating confidence, APs."""

    name: str
    instances: int
    detections: int
    precision: float | None
    recall: float | None
    ap50: float | None
    ap50_95: float | None


@dataclass(frozen=True)
class EvalResult:
    """What `evaluate` measured; None where the dataset cannot tell."""

    images: int
    conf: float
    classes: tuple[ClassMetrics, ...]
    map50: float | None
    map50_95: float | None
    die_face_accuracy: float | None
    die_false_positives_per_image: float | None
    gems_in_depot_exact: float | None
    tiles_found: float | None
    ms_per_image: float | None
    missing_from_model: tuple[str, ...] = ()
    """Dataset classes the model lacks (left out of every figure)."""
    depot_frames: int = 0
    """Frames with a depot zone behind `gems_in_depot_exact`."""
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        """Return the figures as a JSON object (floats rounded to 4 digits)."""
        data = asdict(self)
        data["classes"] = [asdict(c) for c in self.classes]
        return _rounded(data)


def _rounded(value: Any) -> Any:
    """Round floats for short JSON; NaN becomes null."""
    if isinstance(value, float):
        return None if value != value else round(value, 4)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v) for v in value]
    return value


def _mean(values: Sequence[float]) -> float | None:
    """Mean of the defined values, or None when there are none."""
    good = [v for v in values if v is not None and v == v]
    return float(np.mean(good)) if good else None


def _face_figures(
    preds: Sequence[Detections], truths: Sequence[Truth], faces: Sequence[str], conf: float
) -> tuple[float | None, float | None]:
    """Return (die face accuracy, face false positives per image) at confidence `conf`.

    A die (an object of a face class) is read right when exactly one face detection overlaps it
    at IoU >= 0.5 and that detection names its face. A face detection overlapping no die at
    IoU >= 0.5 is a false positive.
    """
    if not faces:
        return None, None
    dice = right = false_pos = 0
    for pred, truth in zip(preds, truths, strict=True):
        found = pred.above(conf).with_classes(faces)
        is_die = np.array([n in faces for n in truth.names], dtype=bool)
        die_boxes = truth.xyxy[is_die]
        die_faces = [n for n, d in zip(truth.names, is_die, strict=True) if d]
        iou = box_iou(found.xyxy, die_boxes)
        dice += len(die_boxes)
        found_names = found.names
        for j, face in enumerate(die_faces):
            hits = np.flatnonzero(iou[:, j] >= MATCH_IOU)
            right += int(len(hits) == 1 and found_names[hits[0]] == face)
        false_pos += int((iou.max(axis=1, initial=0.0) < MATCH_IOU).sum()) if len(found) else 0
    accuracy = right / dice if dice else None
    return accuracy, false_pos / len(truths) if truths else None


def depot_zone(scene: dict[str, Any]) -> np.ndarray | None:
    """Return the depot's outline in image px (K, 2) from a scene, or None when it has none.

    Uses the scene's `depot.quad_px`/`depot.polygon_px`/`depot.box` when present; otherwise the
    box around the depot's visible gems, widened by half a gem (older scenes do not record the
    depot board itself).
    """
    depot = scene.get("depot")
    if isinstance(depot, dict):
        for key in ("quad_px", "polygon_px"):
            if depot.get(key):
                return np.asarray(depot[key], dtype=np.float64).reshape(-1, 2)
        if depot.get("box"):
            x0, y0, x1, y1 = (float(v) for v in depot["box"])
            return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    gems = scene.get("gems") or {}
    if gems.get("depot") is None:
        return None
    boxes = np.array(
        [g["box"] for g in gems.get("items", []) if g.get("where") == "depot" and g.get("box")],
        dtype=np.float64,
    ).reshape(-1, 4)
    if not len(boxes):
        return None
    pad = 0.5 * float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
    x0, y0 = boxes[:, :2].min(axis=0) - pad
    x1, y1 = boxes[:, 2:].max(axis=0) + pad
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])


def depot_truth(scene: dict[str, Any]) -> int:
    """Return how many depot gems a scene labels (visible enough to be found)."""
    items = (scene.get("gems") or {}).get("items", [])
    return sum(1 for g in items if g.get("where") == "depot" and g.get("label") == "gem")


def _inside(points: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """Tell which points (N, 2) lie inside or on a polygon (K, 2)."""
    contour = polygon.astype(np.float32).reshape(-1, 1, 2)
    return np.array(
        [cv2.pointPolygonTest(contour, (float(x), float(y)), False) >= 0 for x, y in points],
        dtype=bool,
    )


def _scene_figures(
    preds: Sequence[Detections], truths: Sequence[Truth], conf: float, names: Sequence[str]
) -> tuple[float | None, float | None, int]:
    """Return (gems in depot exact, tiles found, frames with a depot) from the scenes."""
    exact = depot_frames = tiles = found = 0
    for pred, truth in zip(preds, truths, strict=True):
        if truth.scene is None:
            continue
        kept = pred.above(conf)
        zone = depot_zone(truth.scene) if "gem" in names else None
        if zone is not None:
            gems = kept.with_classes(["gem"])
            centres = (gems.xyxy[:, :2] + gems.xyxy[:, 2:]) / 2
            depot_frames += 1
            exact += int(_inside(centres, zone).sum() == depot_truth(truth.scene))
        if "tile" in names:
            boxes = [
                t["box"]
                for t in truth.scene.get("tiles", [])
                if t.get("label") == "tile" and t.get("box")
            ]
            if boxes:
                iou = box_iou(np.array(boxes, dtype=np.float64), kept.with_classes(["tile"]).xyxy)
                tiles += len(boxes)
                found += int((iou.max(axis=1, initial=0.0) >= MATCH_IOU).sum())
    gems_exact = exact / depot_frames if depot_frames else None
    return gems_exact, (found / tiles if tiles else None), depot_frames


def score(
    preds: Sequence[Detections],
    truths: Sequence[Truth],
    dataset_names: Sequence[str],
    conf: float = 0.25,
    ms: Sequence[float] = (),
) -> EvalResult:
    """Score detections against ground truth, one pair per image, matching classes by name.

    `preds` should hold detections down to a low confidence (see `MAP_CONF`) for the mAP;
    precision, recall, dice, gems and tiles count only those at `conf` or more.
    """
    if len(preds) != len(truths):
        raise ValueError("score() needs one Detections value per ground-truth image")
    model_names = set(preds[0].class_names) if preds else set()
    classes = [n for n in dict.fromkeys(dataset_names) if n in model_names]
    missing = tuple(n for n in dict.fromkeys(dataset_names) if n not in model_names)
    per_class = []
    for name in classes:
        tps, scores, n_truth, n_det, tp_at_conf = [], [], 0, 0, 0
        for pred, truth in zip(preds, truths, strict=True):
            mine = pred.with_classes([name])
            true_boxes = truth.xyxy[[n == name for n in truth.names]]
            tp = match(mine.xyxy, mine.confidence, true_boxes, IOU_THRESHOLDS)
            tps.append(tp)
            scores.append(mine.confidence)
            n_truth += len(true_boxes)
            strong = mine.confidence >= conf
            n_det += int(strong.sum())
            # Matching only the confident detections gives the operating point's matches.
            tp_at_conf += int(
                match(
                    mine.xyxy[strong], mine.confidence[strong], true_boxes, IOU_THRESHOLDS[:1]
                ).sum()
            )
        ap = average_precision(np.concatenate(tps), np.concatenate(scores), n_truth)
        per_class.append(
            ClassMetrics(
                name=name,
                instances=n_truth,
                detections=n_det,
                precision=tp_at_conf / n_det if n_det else (None if n_truth == 0 else 0.0),
                recall=tp_at_conf / n_truth if n_truth else None,
                ap50=None if np.isnan(ap[0]) else float(ap[0]),
                ap50_95=None if np.isnan(ap[0]) else float(ap.mean()),
            )
        )
    faces = [n for n in FACES if n in classes]
    accuracy, false_pos = _face_figures(preds, truths, faces, conf)
    gems_exact, tiles_found, depot_frames = _scene_figures(preds, truths, conf, classes)
    notes = []
    if missing:
        notes.append(f"the model lacks dataset classes {', '.join(missing)}: left out")
    if not classes:
        notes.append("the model and the dataset share no class names")
    return EvalResult(
        images=len(truths),
        conf=conf,
        classes=tuple(per_class),
        map50=_mean([c.ap50 for c in per_class]),
        map50_95=_mean([c.ap50_95 for c in per_class]),
        die_face_accuracy=accuracy,
        die_false_positives_per_image=false_pos,
        gems_in_depot_exact=gems_exact,
        tiles_found=tiles_found,
        ms_per_image=float(statistics.median(ms)) if ms else None,
        missing_from_model=missing,
        depot_frames=depot_frames,
        notes=tuple(notes),
    )


def evaluate(
    model: Model,
    data: DataSplit,
    conf: float = 0.25,
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> EvalResult:
    """Run `model` on every image of a dataset split (or the first `limit`) and score it."""
    images = data.images[:limit] if limit else data.images
    shared = set(data.names) & set(model.names)
    if not shared:
        raise DatasetError(
            f"the model's classes ({', '.join(model.names)}) and the dataset's "
            f"({', '.join(data.names)}) share no name"
        )
    preds, truths, ms = [], [], []
    for i, path in enumerate(images, start=1):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise DatasetError(f"cannot read image {path}")
        height, width = image.shape[:2]
        truths.append(read_truth(path, width, height, data.names))
        start = time.perf_counter()
        preds.append(model.detect(image, conf=min(conf, MAP_CONF)))
        ms.append((time.perf_counter() - start) * 1000.0)
        if progress is not None:
            progress(i, len(images))
    return score(preds, truths, data.names, conf, ms)
