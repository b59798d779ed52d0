"""Where a labelled dataset keeps its files: which files are images, the label and scene files
beside them, and the data.yaml that names the splits (one home for every room that reads one)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
"""File endings read as images (any case); OpenCV reads them all."""


class DataYamlError(ValueError):
    """A data.yaml that cannot be read or is not an Ultralytics one; the message says why."""


@dataclass(frozen=True)
class DataYaml:
    """What an Ultralytics data.yaml names: its file, the dataset folder, the class names and
    each split's entries (folders, list files or images, relative to `root`)."""

    path: Path
    root: Path
    names: tuple[str, ...]
    splits: dict[str, tuple[str, ...]]

    def entries(self, split: str) -> list[Path]:
        """Return the paths of a split's entries; raise `DataYamlError` when it has none."""
        if not self.splits.get(split):
            raise DataYamlError(f"{self.path} has no `{split}` split")
        return [self.root / entry for entry in self.splits[split]]


def is_image(path: Path) -> bool:
    """Tell whether a file's ending is one of `IMAGE_SUFFIXES`."""
    return path.suffix.lower() in IMAGE_SUFFIXES


def sibling_path(image: Path, folder: str, suffix: str) -> Path:
    """Return the file beside an image by Ultralytics' rule: its last `images` folder becomes
    `folder`, its ending `suffix` (images/a.jpg -> labels/a.txt)."""
    parts = list(image.parts)
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] == "images":
            parts[i] = folder
            break
    return Path(*parts).with_suffix(suffix)


def label_path(image: Path) -> Path:
    """Return the YOLO label file of an image (images/ -> labels/, .txt)."""
    return sibling_path(image, "labels", ".txt")


def read_data_yaml(path: str | Path) -> DataYaml:
    """Read an Ultralytics data.yaml; raise `DataYamlError` saying what is wrong."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise DataYamlError(f"cannot read {path}: no such file; give the data.yaml of a dataset")
    data = load_yaml_mapping(path)
    root = Path(str(data.get("path") or path.parent)).expanduser()
    if not root.is_absolute():
        root = (path.parent / root).resolve()
    splits = {
        split: tuple(str(e) for e in (value if isinstance(value, list) else [value]))
        for split in ("train", "val", "test")
        if (value := data.get(split))
    }
    return DataYaml(path, root, _names(data.get("names"), path), splits)


def load_yaml_mapping(path: Path) -> dict[str, Any]:
    """Read a YAML file that must hold a mapping; raise `DataYamlError` saying what is wrong."""
    import yaml

    try:
        data = yaml.safe_load(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise DataYamlError(f"cannot read {path}: {error}") from None
    except yaml.YAMLError as error:
        raise DataYamlError(f"{path} is not valid YAML: {error}") from None
    if not isinstance(data, dict):
        raise DataYamlError(f"{path} is not an Ultralytics data.yaml (a mapping)")
    return data


def _names(value: Any, path: Path) -> tuple[str, ...]:
    """Return class names from a `names` list or {index: name} mapping."""
    if isinstance(value, dict):
        return tuple(str(value[k]) for k in sorted(value, key=int))
    if isinstance(value, list) and value:
        return tuple(str(v) for v in value)
    raise DataYamlError(f"{path} has no `names` list of classes")
