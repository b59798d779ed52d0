"""Reader crops cut from rendered frames: the dice and other objects of a `templecam synth` set.

`build_crops` turns a `templecam synth` dataset (frames with scene JSON) into folders of crops
(`DIR/<split>/<class>/*.png`): a square full-resolution crop around every die whose face is
labelled (`vision.perception.face_reader.crop_window`, jittered in the train split so that imperfect
boxes are covered), `not_die` crops around gems, figures, tiles, hands, clutter and bare table, and,
with a detector, its mistakes (die-like detections that overlap no die) as hard negatives. Dice
the renderer calls unreadable (tumbling, tipped, mostly hidden) are left out: the reader has no
class for them. These crops measure the reader on the frame renderer's pixels (`models.faces`),
and add a user's own labelled frames to its training.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from base.files import write_atomically
from models.synth.crops import LABELS
from vision.perception.detections import box_iou
from vision.perception.face_reader import (
    CROP_SCALE,
    DIE_CLASSES,
    NOT_DIE,
    crop_square,
    crop_window,
    jitter_box,
)
from vision.perception.shipped import BASELINE as SHIPPED_BASELINE
from vision.perception.shipped import shipped_path

BASELINE = shipped_path(SHIPPED_BASELINE)
"""A detector whose mistakes can become hard negatives (`--hard-negatives baseline`)."""
MANIFEST = "faces-crops.json"
CROPS_FORMAT = "templecam-face-crops/2"
"""Crop folders of this format and the same plan are reused: change it with the crop code."""
HARD_CONF = 0.1
"""Detector confidence down to which die-like detections are mined for hard negatives."""
HARD_IOU = 0.3
"""A detection overlapping every die less than this is a hard negative."""
MATCH_IOU = 0.5
"""A detection overlapping a labelled die this much is a crop of that die."""
NEG_SIDE = (30.0, 60.0)
"""Range of the (die-sized) box side of a not_die sample, in frame px."""


class FrameCropsError(Exception):
    """The frames cannot be cut into crops; the message says what to do."""


@dataclass(frozen=True)
class CropPlan:
    """How `build_crops` cuts a dataset into reader crops."""

    imgsz: int = 40
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
    """Return a scene die's reader class (its face), None when unlabelled or unreadable."""
    if die.get("box") is None or die.get("label") is None:
        return None
    return die["face"] if die.get("face") in LABELS else None


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
        raise FrameCropsError(f"cannot encode {path}")
    write_atomically(path, data.tobytes())


def _frames(data: Path, split: str) -> list[Path]:
    """Return a split's images, checking that each has its scene JSON."""
    from vision.evaluate import DatasetError, read_data_yaml, scene_path

    try:
        images = list(read_data_yaml(data, split).images)
    except DatasetError as error:
        raise FrameCropsError(str(error)) from None
    if not scene_path(images[0]).is_file():
        raise FrameCropsError(
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
    counts = dict.fromkeys(LABELS, 0)
    for index, path in enumerate(images):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise FrameCropsError(f"cannot read image {path}")
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
    detector_model: Path | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Cut `data` into crop folders at `out` (`splits`: out split <- data split).

    The train split (when asked for) is jittered. Every class folder exists, even empty, so the
    class list is always `LABELS`. A finished folder with the same plan and source is reused.
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
        from vision.perception.detector import Detector, DetectorSettings, ModelError

        try:
            detector = Detector(detector_model, DetectorSettings(conf=HARD_CONF, faces="off"))
        except ModelError as error:
            raise FrameCropsError(f"hard negatives: {error}") from None
    if out.exists():
        shutil.rmtree(out)
    counts = {}
    for name, source in splits.items():
        for cls in LABELS:
            (out / name / cls).mkdir(parents=True, exist_ok=True)
        counts[name] = crop_split(data, source, out / name, plan, detector, name == "train", log)
    manifest = {**wanted, "counts": counts}
    write_atomically(manifest_path, (json.dumps(manifest, indent=1) + "\n").encode("utf-8"))
    return manifest


def read_crops(folder: Path) -> tuple[list[np.ndarray], list[str]]:
    """Read a split's crops (`folder/<class>/*.png`) and their classes, in name order."""
    crops, classes = [], []
    for cls in LABELS:
        for path in sorted((folder / cls).glob("*.png")):
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                raise FrameCropsError(f"cannot read crop {path}")
            crops.append(image)
            classes.append(cls)
    return crops, classes
