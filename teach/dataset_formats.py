"""Where the images, label files and class names of a YOLO-style dataset are, per format.

`read_layout(src)` recognises the format of a dataset folder (or its defining file) and returns
its `Layout`: the class names by index and every image with its label file and split. Reading
the label files themselves, and mapping the names, is `teach.datasets`' part.

Formats (all with YOLO text labels, `class cx cy w h` normalised to 0-1, one box a line):

- ``ultralytics``: a data.yaml with `names` (a list, or a dict index -> name) and `train`,
  `val` (and `test`), each a folder, a .txt list of images or a list of those, relative to
  `path` (or to the data.yaml's folder). Labels: the image's path with its last `images`
  folder replaced by `labels`, ending in .txt.
- ``roboflow``: Roboflow's YOLO export, the same data.yaml with `../train/images`-style paths
  and splits train/, valid/, test/ (read as Ultralytics itself reads them).
- ``cvat``: CVAT's "YOLO 1.1" export: obj.data, obj.names, train.txt, and the images with
  their .txt labels side by side in obj_train_data/ (and obj_<subset>_data/ for other subsets).
- ``label-studio``: Label Studio's YOLO export: classes.txt, images/, labels/, notes.json.
  Without notes.json the same folder is read as plain ``yolo`` (images/ may hold train/ and
  val/ sub-folders then).

A `test` split counts as validation data; images of a dataset with no split are all `train`,
and `teach.datasets` holds some back for validation.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from base.dataset_files import IMAGE_SUFFIXES, DataYamlError, label_path, load_yaml_mapping
from teach.errors import TeachError

__all__ = [
    "FORMATS",
    "IMAGE_SUFFIXES",
    "DatasetError",
    "Item",
    "Layout",
    "label_path",
    "read_layout",
]

FORMATS: dict[str, str] = {
    "ultralytics": "an Ultralytics/YOLO dataset",
    "roboflow": "Roboflow's YOLO export",
    "cvat": 'CVAT\'s "YOLO 1.1" export',
    "label-studio": "Label Studio's YOLO export",
    "yolo": "a YOLO folder",
}
"""The formats `read_layout` recognises, by name, with what each is."""
_MARKS = (
    "an Ultralytics or Roboflow data.yaml; CVAT's YOLO 1.1 export (obj.data, obj.names, "
    "obj_train_data/); Label Studio's YOLO export (classes.txt, images/, labels/, notes.json)"
)
_SPLIT_NAMES = {"train": "train", "val": "val", "valid": "val", "validation": "val", "test": "val"}


class DatasetError(TeachError):
    """A dataset cannot be read or written as asked; the message says what and what to do."""


@dataclass(frozen=True)
class Item:
    """One image of a dataset, where its labels are, and which split it belongs to."""

    image: Path
    """The image file."""
    labels: Path
    """Its YOLO label file (which may be missing: an image without objects)."""
    split: str
    """"train" or "val"."""


@dataclass
class Layout:
    """A dataset's format, class names and images, before any label file is read."""

    format: str
    """One of FORMATS."""
    root: Path
    """The dataset's folder (paths in messages are shown relative to it)."""
    names: dict[int, str]
    """The dataset's own class names by class index."""
    items: list[Item]
    """Every image, in a stable order."""
    has_val: bool
    """Whether the dataset says which images are for validation."""
    notes: list[str] = field(default_factory=list)
    """Things worth telling the user (a split that was missing, a path that was fixed up)."""


def read_layout(src: Path) -> Layout:
    """Recognise the format of `src` (a folder or its defining file); return its layout."""
    src = Path(src).expanduser()
    if not src.exists():
        raise DatasetError(f"{src} does not exist: give a dataset folder or its data.yaml")
    if src.is_file():
        if src.suffix.lower() == ".zip":
            raise DatasetError(
                f"{src} is a zip file: unzip it first (unzip {src.name} -d FOLDER) and give "
                "the folder"
            )
        if src.suffix.lower() in (".yaml", ".yml"):
            return _ultralytics(src)
        if src.name == "obj.data":
            return _cvat(src.parent)
        if src.name in ("classes.txt", "notes.json"):
            return _label_studio(src.parent)
        raise DatasetError(f"{src} is no dataset file templecam knows: {_what_is_read()}")
    return _folder(src, depth=0)


def _folder(src: Path, depth: int) -> Layout:
    """Recognise a dataset folder by the files that mark each format."""
    yamls = _data_yamls(src)
    if len(yamls) == 1:
        return _ultralytics(yamls[0])
    if len(yamls) > 1:
        listed = ", ".join(p.name for p in yamls)
        raise DatasetError(f"{src} holds several data files ({listed}): give the one to read")
    if (src / "obj.data").is_file() or (src / "obj.names").is_file():
        return _cvat(src)
    if (src / "classes.txt").is_file() or (src / "notes.json").is_file():
        return _label_studio(src)
    subfolders = [p for p in src.iterdir() if p.is_dir() and not p.name.startswith(".")]
    others = [p for p in src.iterdir() if p.is_file() and not p.name.startswith(".")]
    if depth == 0 and len(subfolders) == 1 and not others:  # an export unzipped into a folder
        return _folder(subfolders[0], depth + 1)
    raise DatasetError(f"{src} is no dataset templecam recognises: {_what_is_read()}")


def _what_is_read() -> str:
    """Say which formats are read and what marks them."""
    return "templecam reads " + _MARKS


def _data_yamls(folder: Path) -> list[Path]:
    """Return the YAML files in `folder` that name classes (data.yaml first, if there)."""
    if (folder / "data.yaml").is_file():
        return [folder / "data.yaml"]
    found = []
    for path in sorted(folder.glob("*.y*ml")):
        try:
            text = path.read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if re.search(r"^names\s*:", text, re.MULTILINE):
            found.append(path)
    return found


# --- Ultralytics and Roboflow ----------------------------------------------------------------


def _ultralytics(yaml_path: Path) -> Layout:
    """Read a data.yaml (Ultralytics or Roboflow)."""
    try:
        data = load_yaml_mapping(yaml_path)
    except DataYamlError as error:
        raise DatasetError(str(error)) from None
    if "names" not in data or "train" not in data:
        raise DatasetError(f"{yaml_path} is not a dataset's data.yaml: it needs names and train")
    names = _yaml_names(data["names"], yaml_path)
    notes: list[str] = []
    if isinstance(data.get("nc"), int) and data["nc"] != len(names):
        notes.append(f"{yaml_path.name} says nc: {data['nc']} but names {len(names)} classes")
    root = _yaml_root(data.get("path"), yaml_path, notes)
    entries = {split: data.get(split) for split in ("train", "val", "test")}
    roboflow = "roboflow" in data or any(
        str(e).startswith("../") for v in entries.values() for e in _as_list(v)
    )
    items: list[Item] = []
    seen: dict[Path, int] = {}
    for key, value in entries.items():
        if not value:
            continue
        split = "train" if key == "train" else "val"
        for entry in _as_list(value):
            for image in _split_images(root, str(entry), key, yaml_path, notes):
                if image in seen:  # val: images/train, a common shortcut
                    continue
                seen[image] = len(items)
                items.append(Item(image, label_path(image), split))
    has_val = any(item.split == "val" for item in items)
    if not has_val and entries["val"]:
        notes.append("its val split is the train split: some images are held back instead")
    fmt = "roboflow" if roboflow else "ultralytics"
    return Layout(fmt, root, names, items, has_val, notes)


def _yaml_names(value: Any, yaml_path: Path) -> dict[int, str]:
    """Return a data.yaml's `names` (a list, or a dict index -> name) by index."""
    if isinstance(value, list):
        return {i: str(name) for i, name in enumerate(value)}
    if isinstance(value, dict):
        try:
            return {int(k): str(v) for k, v in value.items()}
        except (TypeError, ValueError):
            pass
    raise DatasetError(f"{yaml_path}: names must be a list of class names or a dict of index: name")


def _yaml_root(path_value: Any, yaml_path: Path, notes: list[str]) -> Path:
    """Return the folder the splits are relative to: `path`, or the data.yaml's folder."""
    here = yaml_path.parent.resolve()
    if not path_value:
        return here
    path = Path(str(path_value)).expanduser()
    candidates = [path] if path.is_absolute() else [here / path, Path.cwd() / path]
    for candidate in candidates:
        if candidate.is_dir():
            return candidate.resolve()
    notes.append(f"path: {path_value} does not exist here; read relative to {yaml_path.name}")
    return here


def _as_list(value: Any) -> list[Any]:
    """Return a split's entry as a list (one folder or file, or several)."""
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def _split_images(
    root: Path, entry: str, key: str, yaml_path: Path, notes: list[str]
) -> list[Path]:
    """Return the images a split entry names: a folder (searched down) or a .txt list."""
    path = Path(entry).expanduser()
    if not path.is_absolute():
        path = root / path
        if not path.exists() and entry.startswith("../"):  # Roboflow: relative to the root
            path = root / entry[3:]
    if path.is_dir():
        return _images_under(path)
    if path.is_file() and path.suffix.lower() == ".txt":
        return _listed_images(path, root, notes)
    if path.is_file() and path.suffix.lower() in IMAGE_SUFFIXES:
        return [path.resolve()]
    raise DatasetError(f"{yaml_path}: {key}: {entry} does not exist (looked for {path})")


def _images_under(folder: Path) -> list[Path]:
    """Return every image file under `folder`, in name order."""
    return sorted(
        p.resolve()
        for p in folder.rglob("*")
        if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file() and not p.name.startswith(".")
    )


def _listed_images(listing: Path, root: Path, notes: list[str]) -> list[Path]:
    """Return the images a .txt list names, relative to its own folder or the root."""
    found, missing = [], []
    for line in listing.read_text("utf-8").splitlines():
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        image = _find(entry, (listing.parent, root))
        if image is None:
            missing.append(entry)
        else:
            found.append(image)
    if missing:
        notes.append(
            f"{len(missing)} images listed in {listing.name} are not there (first: {missing[0]})"
        )
    return found


def _find(entry: str, bases: tuple[Path, ...]) -> Path | None:
    """Find a listed image: as given, relative to each base, or without a leading data/."""
    path = Path(entry).expanduser()
    if path.is_absolute():
        return path.resolve() if path.is_file() else None
    tries = [entry]
    if entry.startswith("data/"):  # CVAT writes data/obj_train_data/...
        tries.append(entry[len("data/") :])
    for base in bases:
        for text in tries:
            candidate = base / text
            if candidate.is_file():
                return candidate.resolve()
    return None


# --- CVAT YOLO 1.1 ----------------------------------------------------------------------------


def _cvat(root: Path) -> Layout:
    """Read CVAT's YOLO 1.1 export: obj.data, obj.names, obj_<subset>_data/."""
    root = root.resolve()
    settings: dict[str, str] = {}
    if (root / "obj.data").is_file():
        for line in (root / "obj.data").read_text("utf-8").splitlines():
            key, sep, value = line.partition("=")
            if sep:
                settings[key.strip()] = value.strip()
    names_file = _find(settings.get("names", "obj.names"), (root,)) or root / "obj.names"
    if not names_file.is_file():
        raise DatasetError(f"{root}: no obj.names with the class names (a CVAT YOLO 1.1 export)")
    names = _names_file(names_file)
    notes: list[str] = []
    items: list[Item] = []
    seen: set[Path] = set()
    for key in ("train", "valid"):
        listing = _find(settings[key], (root,)) if key in settings else None
        if listing is None:
            continue
        for image in _listed_images(listing, root, notes):
            if image not in seen:
                seen.add(image)
                items.append(Item(image, image.with_suffix(".txt"), _split_of(key)))
    for folder in sorted(root.glob("obj_*_data")):  # subsets no list names
        subset = folder.name[len("obj_") : -len("_data")]
        for image in _images_under(folder):
            if image not in seen:
                seen.add(image)
                items.append(Item(image, image.with_suffix(".txt"), _split_of(subset)))
    has_val = any(item.split == "val" for item in items)
    return Layout("cvat", root, names, items, has_val, notes)


def _split_of(subset: str) -> str:
    """Return the split of a subset name (train, valid, validation, test, default, ...)."""
    return _SPLIT_NAMES.get(subset.lower(), "train")


def _names_file(path: Path) -> dict[int, str]:
    """Read class names one a line (obj.names, classes.txt); trailing blank lines ignored."""
    lines = path.read_text("utf-8").splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise DatasetError(f"{path} names no class")
    return {i: line.strip() for i, line in enumerate(lines)}


# --- Label Studio and plain YOLO folders -------------------------------------------------------


def _label_studio(root: Path) -> Layout:
    """Read Label Studio's YOLO export (or a folder of classes.txt, images/, labels/)."""
    root = root.resolve()
    notes_file = root / "notes.json"
    if (root / "classes.txt").is_file():
        names = _names_file(root / "classes.txt")
    else:
        names = _notes_names(notes_file)
    images_dir = root / "images"
    if not images_dir.is_dir():
        raise DatasetError(f"{root}: no images/ folder beside classes.txt")
    items = []
    for image in _images_under(images_dir):
        relative = image.relative_to(images_dir.resolve())
        first = relative.parts[0].lower() if len(relative.parts) > 1 else ""
        split = _SPLIT_NAMES.get(first, "train")
        items.append(Item(image, (root / "labels" / relative).with_suffix(".txt"), split))
    has_val = any(item.split == "val" for item in items)
    fmt = "label-studio" if notes_file.is_file() else "yolo"
    return Layout(fmt, root, names, items, has_val)


def _notes_names(path: Path) -> dict[int, str]:
    """Read the class names from Label Studio's notes.json (categories: id, name)."""
    try:
        data = json.loads(path.read_text("utf-8"))
        return {int(c["id"]): str(c["name"]) for c in data["categories"]}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DatasetError(
            f"{path}: cannot read the class names from it ({error}); add classes.txt"
        ) from None
