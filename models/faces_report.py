"""Measuring the reader: per-class confusion through ONNX Runtime, speed, and the training curves.

Every figure of the model card comes from here: `score` runs the exported model in
`vision.perception.face_reader.FaceReader` (what the pipeline runs) on a crop set and returns
accuracy per class, the confusion matrix, and for dice whose face cannot be read how often they stay
dice; `speed` times 25 crops; `plot_curves` draws loss and accuracy per epoch.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from models.frame_crops import CropPlan, build_crops, read_crops
from models.synth.crop_set import CropSet, label_index
from models.synth.crops import LABELS, NOT_DIE
from vision.perception.face_reader import DROP_CONF, FaceReader


def frame_set(data: Path, folder: Path, imgsz: int, crop_scale: float) -> CropSet:
    """Return the val crops of a `templecam synth` dataset: its labelled dice and not_die boxes."""
    plan = CropPlan(imgsz=imgsz, crop_scale=crop_scale)
    build_crops(data, folder, plan, {"val": "val"}, None, lambda _: None)
    crops, classes = read_crops(folder / "val")
    images = np.stack(crops) if crops else np.zeros((0, imgsz, imgsz, 3), np.uint8)
    return CropSet(images, np.array([label_index(c) for c in classes], np.int64), [])


def confusion(truth: np.ndarray, probabilities: np.ndarray, names: tuple[str, ...]) -> dict:
    """Return accuracy per class and the confusion (truth -> read) of predictions on a set.

    `truth` indexes `LABELS` (-1: a die whose face cannot be read); `probabilities` are the
    reader's, in its own class order `names`.
    """
    order = [names.index(n) for n in LABELS]
    probs = probabilities[:, order]
    read = probs.argmax(axis=1) if len(probs) else np.zeros(0, np.int64)
    per_class: dict[str, Any] = {}
    matrix: dict[str, dict[str, int]] = {}
    for k, name in enumerate(LABELS):
        rows = truth == k
        said = [LABELS[i] for i in read[rows]]
        counts = {n: said.count(n) for n in LABELS if said.count(n)}
        matrix[name] = counts
        per_class[name] = {
            "crops": int(rows.sum()),
            "top1": round(float((read[rows] == k).mean()), 4) if rows.any() else None,
            "read_as": {n: c for n, c in counts.items() if n != name},
        }
    known = truth >= 0
    result: dict[str, Any] = {
        "crops": int(known.sum()),
        "top1": round(float((read[known] == truth[known]).mean()), 4) if known.any() else None,
        "faces_top1": None,
        "per_class": per_class,
        "confusion": matrix,
    }
    faces = known & (truth != LABELS.index(NOT_DIE))
    if faces.any():
        result["faces_top1"] = round(float((read[faces] == truth[faces]).mean()), 4)
    unknown = truth < 0
    if unknown.any():
        not_die = probs[unknown, LABELS.index(NOT_DIE)]
        result["unreadable_dice"] = {
            "crops": int(unknown.sum()),
            "kept_as_die": round(float((not_die <= DROP_CONF).mean()), 4),
            "mean_top_face_share": round(float(probs[unknown, :-1].max(axis=1).mean()), 4),
        }
    return result


def score(reader: FaceReader, crops: CropSet) -> dict[str, Any]:
    """Return `confusion` of the reader (ONNX Runtime) on a crop set."""
    probs = reader.predict(list(crops.images))
    return confusion(np.asarray(crops.labels), probs, reader.names)


def speed(reader: FaceReader, crops: CropSet, count: int = 25, repeats: int = 30) -> float:
    """Return the median ms the reader takes for `count` crops in one call."""
    batch = list(crops.images[:count])
    reader.predict(batch)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        reader.predict(batch)
        times.append((time.perf_counter() - started) * 1000)
    return round(float(np.median(times)), 2)


_LEGEND = {
    "val": "val: training look",
    "held_out": "held-out look",
    "data_val": "val crops of --data frames",
}


def plot_curves(history: list[dict[str, Any]], path: Path, title: str) -> Path:
    """Draw training loss and validation loss and accuracy per epoch into a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = [r["epoch"] for r in history]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6), dpi=90)
    trained = [(r["epoch"], r["train_loss"]) for r in history if r.get("train_loss") is not None]
    if trained:
        left.plot(*zip(*trained, strict=True), "o-", color="grey", label="train (augmented)")
    names = [k.removesuffix("_loss") for k in history[-1] if k.endswith("_loss")]
    for k, name in enumerate(n for n in names if n != "train"):
        colour, label = f"C{k}", _LEGEND.get(name, name)
        left.plot(epochs, [r.get(f"{name}_loss") for r in history], "o-", color=colour, label=label)
        accuracy = [r.get(f"{name}_accuracy") for r in history]
        right.plot(epochs, accuracy, "o-", color=colour, label=label)
    left.set(xlabel="epoch", ylabel="loss (cross-entropy)", title="loss")
    right.set(xlabel="epoch", ylabel="top-1 on readable crops", title="validation accuracy")
    low = min(min(r.get(k, 1) for k in r if k.endswith("_accuracy")) for r in history)
    right.set_ylim(max(0.0, min(0.9, low - 0.02)), 1.0)
    for axis in (left, right):
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
