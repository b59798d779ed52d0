"""Cut an Ultralytics dataset's frames into overlapping full-resolution tiles, relabelled.

Dice are 25-35 px across in a 1920x1080 frame; letterboxed whole to 640 px they shrink to about
10 px. Training on `tile`-px crops at full resolution keeps them at their real size; the detector
runs the model on tiles of the same size (`tile_grid` is the layout both sides use).
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from base.dataset_files import DataYamlError, is_image, label_path
from base.dataset_files import read_data_yaml as read_yaml
from base.files import write_atomically

MIN_INSIDE = 0.5
"""A box is kept in a tile when at least this share of its area lies inside the tile."""
MIN_OVERLAP = 0.2
"""Neighbouring tiles overlap by at least this share of the tile (so a die is whole in one)."""
MANIFEST = "templecam-tiles.json"
"""The file that marks a folder as a templecam tiled dataset."""


class TileError(Exception):
    """The source dataset cannot be tiled; the message says why."""


@dataclass(frozen=True)
class DataSpec:
    """What a data.yaml names: its folder, the train and val image folders, the class names."""

    root: Path
    train: Path
    val: Path
    names: tuple[str, ...]


def starts(length: int, tile: int, min_overlap: float = MIN_OVERLAP) -> list[int]:
    """Return tile start offsets along one axis: evenly spread, covering it, overlapping."""
    if length <= tile:
        return [0]
    step = tile * (1.0 - min_overlap)
    count = math.ceil((length - tile) / step) + 1
    span = length - tile
    return [round(i * span / (count - 1)) for i in range(count)]


def tile_grid(width: int, height: int, tile: int) -> list[tuple[int, int, int, int]]:
    """Return the tiles of a `width` x `height` frame as (x0, y0, x1, y1), row by row."""
    return [
        (x, y, min(x + tile, width), min(y + tile, height))
        for y in starts(height, tile)
        for x in starts(width, tile)
    ]


def clip_boxes(
    boxes: np.ndarray, window: tuple[int, int, int, int], min_inside: float = MIN_INSIDE
) -> np.ndarray:
    """Clip pixel boxes (cls, x0, y0, x1, y1) to a window; keep those mostly inside, shifted."""
    if len(boxes) == 0:
        return boxes.reshape(0, 5)
    x0, y0, x1, y1 = window
    area = (boxes[:, 3] - boxes[:, 1]) * (boxes[:, 4] - boxes[:, 2])
    cx0, cy0 = np.maximum(boxes[:, 1], x0), np.maximum(boxes[:, 2], y0)
    cx1, cy1 = np.minimum(boxes[:, 3], x1), np.minimum(boxes[:, 4], y1)
    inside = np.clip(cx1 - cx0, 0, None) * np.clip(cy1 - cy0, 0, None)
    keep = (area > 0) & (inside >= min_inside * np.maximum(area, 1e-9))
    out = np.stack([boxes[:, 0], cx0 - x0, cy0 - y0, cx1 - x0, cy1 - y0], axis=1)
    return out[keep]


def read_labels(path: Path, width: int, height: int) -> np.ndarray:
    """Read a YOLO label file as pixel boxes (cls, x0, y0, x1, y1); a missing file has none."""
    if not path.is_file():
        return np.zeros((0, 5))
    rows = [line.split() for line in path.read_text("utf-8").splitlines() if line.strip()]
    if not rows:
        return np.zeros((0, 5))
    try:
        values = np.array([[float(v) for v in row[:5]] for row in rows if len(row) >= 5])
    except ValueError:
        raise TileError(f"{path}: a label line is not 'class cx cy w h'") from None
    if len(values) == 0:
        return np.zeros((0, 5))
    cls, cx, cy, w, h = values.T
    return np.stack(
        [
            cls,
            (cx - w / 2) * width,
            (cy - h / 2) * height,
            (cx + w / 2) * width,
            (cy + h / 2) * height,
        ],
        axis=1,
    )


def format_labels(boxes: np.ndarray, width: int, height: int) -> str:
    """Return pixel boxes (cls, x0, y0, x1, y1) as YOLO label text for a width x height image."""
    lines = []
    for cls, x0, y0, x1, y1 in boxes:
        cx, cy = (x0 + x1) / 2 / width, (y0 + y1) / 2 / height
        w, h = (x1 - x0) / width, (y1 - y0) / height
        lines.append(f"{int(cls)} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}")
    return "".join(line + "\n" for line in lines)


def read_data_yaml(path: Path) -> DataSpec:
    """Read a data.yaml (path, train, val, names); raise `TileError` saying what is wrong."""
    try:
        data = read_yaml(path)
        train = data.entries("train")[0]
    except DataYamlError as error:
        raise TileError(f"{error} (an Ultralytics data.yaml needs train, val and names)") from None
    val = data.entries("val")[0] if data.splits.get("val") else train
    return DataSpec(data.root, train, val, data.names)


def list_images(folder: Path) -> list[Path]:
    """Return the images in a folder, sorted."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if is_image(p))


def count_images(spec: DataSpec) -> dict[str, int]:
    """Return the number of images in each split of a dataset."""
    return {"train": len(list_images(spec.train)), "val": len(list_images(spec.val))}


def _tiles_of(
    image: np.ndarray, boxes: np.ndarray, tile: int
) -> Iterator[tuple[str, np.ndarray, str]]:
    """Yield (suffix, tile image, label text) for each tile of one frame."""
    height, width = image.shape[:2]
    for x0, y0, x1, y1 in tile_grid(width, height, tile):
        crop = image[y0:y1, x0:x1]
        kept = clip_boxes(boxes, (x0, y0, x1, y1))
        yield f"_x{x0:04d}_y{y0:04d}", crop, format_labels(kept, x1 - x0, y1 - y0)


def tile_dataset(
    data_yaml: Path,
    out: Path,
    tile: int,
    progress: Callable[[int, int], None] | None = None,
    val_frames: int | None = None,
) -> Path:
    """Write a tiled copy of a dataset to `out` (images/, labels/, data.yaml); return data.yaml.

    `val_frames` keeps that many val frames, evenly spread (validation during training is slow
    on a CPU). An `out` folder holding a finished tiling of the same source and settings is reused.
    """
    spec = read_data_yaml(data_yaml)
    sources = {"train": list_images(spec.train), "val": list_images(spec.val)}
    if val_frames is not None and 0 < val_frames < len(sources["val"]):
        every = len(sources["val"]) / val_frames
        sources["val"] = [sources["val"][int(i * every)] for i in range(val_frames)]
    if not sources["train"]:
        raise TileError(f"{data_yaml}: no images in {spec.train}")
    manifest = {
        "format": "templecam-tiles/1",
        "source": str(data_yaml.resolve()),
        "tile": tile,
        "min_inside": MIN_INSIDE,
        "min_overlap": MIN_OVERLAP,
        "frames": {k: [p.name for p in v] for k, v in sources.items()},
    }
    out_yaml = out / "data.yaml"
    if (out / MANIFEST).is_file() and out_yaml.is_file():
        try:
            if json.loads((out / MANIFEST).read_text("utf-8")) == manifest:
                return out_yaml
        except (OSError, ValueError):
            pass
    if out.exists() and any(out.iterdir()) and not (out / MANIFEST).is_file():
        raise TileError(f"{out} is not empty and is not a templecam tiled dataset")
    for top in ("images", "labels"):
        shutil.rmtree(out / top, ignore_errors=True)
    out_yaml.unlink(missing_ok=True)
    total, done = sum(len(v) for v in sources.values()), 0
    for split, images in sources.items():
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
        for image_file in images:
            image = cv2.imread(str(image_file), cv2.IMREAD_COLOR)
            if image is None:
                raise TileError(f"{image_file} is not a readable image")
            height, width = image.shape[:2]
            boxes = read_labels(label_path(image_file), width, height)
            for suffix, crop, labels in _tiles_of(image, boxes, tile):
                stem = f"{image_file.stem}{suffix}"
                ok, jpeg = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
                if not ok:
                    raise TileError(f"OpenCV could not encode a tile of {image_file}")
                write_atomically(out / "images" / split / f"{stem}.jpg", jpeg.tobytes())
                write_atomically(out / "labels" / split / f"{stem}.txt", labels.encode("utf-8"))
            done += 1
            if progress is not None:
                progress(done, total)
    val_split = "val" if sources["val"] else "train"
    lines = [
        f"# {tile} px tiles of {data_yaml.resolve()} (templecam train --tile {tile})",
        f"path: {json.dumps(str(out.resolve()))}",
        "train: images/train",
        f"val: images/{val_split}",
        f"nc: {len(spec.names)}",
        "names:",
        *(f"  - {name}" for name in spec.names),
    ]
    write_atomically(out / MANIFEST, (json.dumps(manifest, indent=1) + "\n").encode("utf-8"))
    write_atomically(out_yaml, ("\n".join(lines) + "\n").encode("utf-8"))
    return out_yaml
