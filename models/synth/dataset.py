"""Writing an Ultralytics dataset: images, YOLO labels, scene JSON, data.yaml; resumable."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2

from base.files import write_atomically
from models.synth.frame import Frame, render_frame
from models.synth.labels import DETECTION_NAMES
from models.synth.settings import JPEG_QUALITY, SynthSettings

MANIFEST = "templecam-synth.json"
"""The file that marks a folder as a templecam synthetic dataset."""
FORMAT = "templecam-synth-dataset/1"
SPLITS = ("train", "val")
_GOLDEN = 0.6180339887498949
_FRAME_FILE = re.compile(r"^frame_\d{6,}\.(jpg|txt|json)$")


class DatasetError(Exception):
    """The output folder cannot hold the dataset; the message says why."""


@dataclass(frozen=True)
class DatasetPlan:
    """What one `generate` call makes."""

    out: Path
    settings: SynthSettings
    seed: int
    frames: int
    val_fraction: float

    def manifest(self) -> dict[str, Any]:
        """Return what identifies the dataset's frames (the frame count may grow later)."""
        return {
            "format": FORMAT,
            "settings": self.settings.to_json(),
            "seed": self.seed,
            "val_fraction": self.val_fraction,
            "classes": list(DETECTION_NAMES),
        }


def frame_stem(index: int) -> str:
    """Return the file name stem of frame `index`."""
    return f"frame_{index:06d}"


def split_of(index: int, val_fraction: float) -> str:
    """Return the split of frame `index`: evenly spread, independent of the frame count."""
    return "val" if ((index + 1) * _GOLDEN) % 1.0 < val_fraction else "train"


def frame_paths(out: Path, index: int, val_fraction: float) -> tuple[Path, Path, Path]:
    """Return the image, label and scene paths of frame `index`."""
    split, stem = split_of(index, val_fraction), frame_stem(index)
    return (
        out / "images" / split / f"{stem}.jpg",
        out / "labels" / split / f"{stem}.txt",
        out / "scenes" / split / f"{stem}.json",
    )


def encode_frame(frame: Frame) -> tuple[bytes, bytes, bytes]:
    """Return the bytes of the image (fixed-quality JPEG), the label file and the scene JSON."""
    ok, jpeg = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise RuntimeError("OpenCV could not encode the frame as JPEG")
    scene = json.dumps(frame.scene, indent=1, ensure_ascii=False) + "\n"
    return jpeg.tobytes(), frame.labels.encode("utf-8"), scene.encode("utf-8")


def _own_files(out: Path) -> list[Path]:
    """Return the frame files and label caches this dataset folder holds."""
    found = []
    for top in ("images", "labels", "scenes"):
        for split in SPLITS:
            folder = out / top / split
            if folder.is_dir():
                found += [p for p in folder.iterdir() if _FRAME_FILE.match(p.name)]
        if (out / top).is_dir():
            found += list((out / top).glob("*.cache"))
    return found


def prepare(plan: DatasetPlan) -> list[int]:
    """Check and set up the output folder; return the frames still to render (resuming)."""
    out = plan.out
    if out.exists() and not out.is_dir():
        raise DatasetError(f"{out} is a file, not a folder")
    manifest_path = out / MANIFEST
    if out.is_dir() and any(out.iterdir()) and not manifest_path.is_file():
        raise DatasetError(
            f"{out} is not empty and is not a templecam dataset (no {MANIFEST}); "
            "give a new or empty folder"
        )
    previous = None
    if manifest_path.is_file():
        try:
            previous = json.loads(manifest_path.read_text("utf-8"))
        except (OSError, ValueError) as error:
            raise DatasetError(
                f"{manifest_path} is unreadable ({error}); delete it or the folder"
            ) from None
    same = previous == plan.manifest()
    (out / "data.yaml").unlink(missing_ok=True)  # written last: absent while frames change
    for path in _own_files(out):
        stale = not same or path.suffix == ".cache" or int(path.stem.split("_")[1]) >= plan.frames
        if stale:
            path.unlink()
    for top in ("images", "labels", "scenes"):
        for split in SPLITS:
            (out / top / split).mkdir(parents=True, exist_ok=True)
    write_atomically(manifest_path, (json.dumps(plan.manifest(), indent=1) + "\n").encode("utf-8"))
    return [
        i
        for i in range(plan.frames)
        if not all(p.is_file() for p in frame_paths(out, i, plan.val_fraction))
    ]


def write_frame(plan: DatasetPlan, index: int, frame: Frame) -> None:
    """Write one frame's image, labels and scene (the scene last: it marks the frame done)."""
    image, labels, scene = encode_frame(frame)
    image_path, label_path, scene_path = frame_paths(plan.out, index, plan.val_fraction)
    write_atomically(image_path, image)
    write_atomically(label_path, labels)
    write_atomically(scene_path, scene)


def write_data_yaml(plan: DatasetPlan) -> Path:
    """Write data.yaml for Ultralytics (last, once every frame is in place)."""
    has_val = any(split_of(i, plan.val_fraction) == "val" for i in range(plan.frames))
    has_train = any(split_of(i, plan.val_fraction) == "train" for i in range(plan.frames))
    lines = [
        "# templecam synthetic table frames (templecam synth); scene JSON in scenes/",
        f"path: {json.dumps(str(plan.out.resolve()))}",
        f"train: images/{'train' if has_train else 'val'}",
        f"val: images/{'val' if has_val else 'train'}",
        f"nc: {len(DETECTION_NAMES)}",
        "names:",
        *(f"  - {name}" for name in DETECTION_NAMES),
    ]
    path = plan.out / "data.yaml"
    write_atomically(path, ("\n".join(lines) + "\n").encode("utf-8"))
    return path


def generate(plan: DatasetPlan, progress: Callable[[int, int], None] | None = None) -> list[int]:
    """Render and write every missing frame, then data.yaml; return the frames rendered now."""
    todo = prepare(plan)
    for done, index in enumerate(todo, start=1):
        write_frame(plan, index, render_frame(plan.settings, plan.seed, index))
        if progress is not None:
            progress(done, len(todo))
    write_data_yaml(plan)
    return todo
