"""Labelled datasets in and out: import the YOLO datasets people already have, export a review.

    view = load_dataset(Path("~/exports/roboflow"), {"Key": "key", "meeple": "ignore"})
    view.format, view.class_counts(), view.images[0].boxes   # pixel xyxy, templecam names
    write_ultralytics(view, Path("~/datasets/mine"))          # images/, labels/, data.yaml
    export_review(Path("~/dice-teach"), Path("~/datasets/reviewed"))

`load_dataset(src, mapping) -> DatasetView` is the import for every caller (`templecam dataset
import`, `templecam train --data`, `templecam teach --dataset`): it recognises the format
(Ultralytics or Roboflow data.yaml, CVAT "YOLO 1.1", Label Studio's YOLO export or a plain YOLO
folder; see `teach.dataset_formats`), reads every label file and returns the images with their
boxes in pixels (x1, y1, x2, y2) under templecam's class names, split into train and val.
It reads no pixels beyond what checks that an image opens, holds none in memory and imports no
torch. Class names are matched to templecam's (`TEMPLECAM_CLASSES`) ignoring case, spaces and
dashes ("Golden Mask" is golden_mask); `mapping` renames the others, or drops them with
"ignore". Whatever is wrong raises `DatasetError` (a `teach.errors.TeachError`) saying where:
classes nobody mapped (all of them, with the --map to write), malformed label lines (file and
line), a split that does not exist. Unreadable images are left out, and label files that are
missing are read as images without objects; both are listed in `DatasetView.problems`.

`write_ultralytics(view, out)` writes a clean Ultralytics dataset (images/{train,val},
labels/{train,val}, data.yaml) into a temporary folder beside `out` and renames it into place,
so `out` is a whole dataset or absent, never half of one. `export_review(teach_dir, out)` does
the same for a reviewed teach folder (review.json, format templecam-teach-review/1): the five
faces are its classes, `not_die` boxes are background, every image is included.
"""

from __future__ import annotations

import errno
import hashlib
import json
import math
import os
import shutil
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import cv2

from teach.dataset_formats import FORMATS, DatasetError, Item, Layout, read_layout
from vision.perception.classes import DETECTION_NAMES, FACES, NOT_DIE

__all__ = [
    "DEFAULT_VAL_FRACTION",
    "FORMATS",
    "IGNORE",
    "REVIEW_FORMAT",
    "TEMPLECAM_CLASSES",
    "Box",
    "DatasetError",
    "DatasetView",
    "LabelledImage",
    "export_review",
    "load_dataset",
    "normalise_name",
    "parse_mapping",
    "read_review",
    "write_ultralytics",
]

TEMPLECAM_CLASSES: tuple[str, ...] = (*DETECTION_NAMES, NOT_DIE)
"""The class names an imported box may carry: the detector's classes (the five faces first)
and the face reader's `not_die`."""
IGNORE = "ignore"
"""The mapping target that drops a class's boxes."""
DEFAULT_VAL_FRACTION = 0.2
"""Share of the images held back for validation when a dataset has no val split."""
REVIEW_FORMAT = "templecam-teach-review/1"
"""The format string of a teach folder's review.json."""
REVIEW_FILE = "review.json"
MAX_LISTED = 10
"""Most errors of one kind spelled out in a message (the rest are counted)."""
_EDGE = 1e-3
"""Normalised coordinates this far outside 0-1 are rounding and clipped, not an error."""


@dataclass(frozen=True)
class Box:
    """One labelled object: its templecam class and its corners in image pixels."""

    label: str
    x1: float
    y1: float
    x2: float
    y2: float

    def yolo(self, width: int, height: int) -> tuple[float, float, float, float]:
        """Return (cx, cy, w, h) normalised to the image size."""
        return (
            (self.x1 + self.x2) / 2 / width,
            (self.y1 + self.y2) / 2 / height,
            (self.x2 - self.x1) / width,
            (self.y2 - self.y1) / height,
        )


@dataclass(frozen=True)
class LabelledImage:
    """One image of a dataset with its boxes."""

    path: Path
    """The image file (in the source dataset)."""
    split: str
    """"train" or "val"."""
    width: int
    height: int
    boxes: tuple[Box, ...] = ()


@dataclass
class DatasetView:
    """A dataset as templecam sees it: images, boxes in pixels, templecam class names."""

    source: Path
    """What was read (the folder or file given)."""
    format: str
    """One of FORMATS, or "templecam-teach" for a review."""
    images: list[LabelledImage]
    """Every readable image, train first, each split in the source's order."""
    classes: dict[str, str | None] = field(default_factory=dict)
    """Each of the source's class names used in a label, and what it became (None: ignored)."""
    ignored: int = 0
    """Boxes left out because their class was mapped to "ignore" (or, in a review, not_die)."""
    problems: list[str] = field(default_factory=list)
    """What was skipped or fixed up (unreadable images, missing label files, ...)."""
    errors: list[str] = field(default_factory=list)
    """What makes the dataset unusable as it stands (only with `strict=False`)."""

    def split(self, name: str) -> list[LabelledImage]:
        """Return the images of one split ("train" or "val")."""
        return [image for image in self.images if image.split == name]

    def class_counts(self) -> dict[str, int]:
        """Return the number of boxes of each templecam class, in templecam's class order."""
        counts = Counter(box.label for image in self.images for box in image.boxes)
        return {name: counts[name] for name in TEMPLECAM_CLASSES if counts[name]}

    def names(self) -> tuple[str, ...]:
        """Return the classes to write: the five faces when only faces occur, else all."""
        used = set(self.class_counts())
        if used <= set(FACES):
            return FACES
        return DETECTION_NAMES + ((NOT_DIE,) if NOT_DIE in used else ())


# --- names and mappings -----------------------------------------------------------------------


def normalise_name(name: str) -> str:
    """Return a class name compared loosely: lower case, spaces and dashes as underscores."""
    return "_".join(name.strip().lower().replace("-", " ").replace("_", " ").split())


def parse_mapping(items: Iterable[str]) -> dict[str, str]:
    """Parse `old=new` items (the --map option) into a mapping; DatasetError for a bad one."""
    mapping: dict[str, str] = {}
    for item in items:
        old, sep, new = item.partition("=")
        if not sep or not old.strip() or not new.strip():
            raise DatasetError(
                f"--map {item}: write OLD=NEW, e.g. --map Key=key or --map meeple={IGNORE}"
            )
        mapping[old.strip()] = new.strip()
    return mapping


_KNOWN = {normalise_name(name): name for name in TEMPLECAM_CLASSES}


def _class_table(layout: Layout, mapping: dict[str, str]) -> dict[int, str | bool | None]:
    """Return what each source class index becomes: a name, None (ignored) or False (unknown)."""
    by_source = {normalise_name(old): new for old, new in mapping.items()}
    source_names = {normalise_name(name) for name in layout.names.values()}
    strays = [old for old in mapping if normalise_name(old) not in source_names]
    if strays:
        raise DatasetError(
            f"--map {strays[0]}=...: the dataset has no class {strays[0]!r}; its classes are "
            + ", ".join(repr(n) for n in layout.names.values())
        )
    table: dict[int, str | bool | None] = {}
    for index, name in layout.names.items():
        key = normalise_name(name)
        if key in by_source:
            target = by_source[key]
            if normalise_name(target) == IGNORE:
                table[index] = None
                continue
            if normalise_name(target) not in _KNOWN:
                raise DatasetError(
                    f"--map {name}={target}: {target!r} is no templecam class; give one of "
                    f"{', '.join(TEMPLECAM_CLASSES)} or {IGNORE}"
                )
            table[index] = _KNOWN[normalise_name(target)]
        else:
            table[index] = _KNOWN.get(key, False)
    return table


# --- import -----------------------------------------------------------------------------------


def load_dataset(
    src: Path,
    mapping: dict[str, str] | None = None,
    *,
    val_fraction: float | None = None,
    strict: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> DatasetView:
    """Read the dataset at `src` in whichever format it is (see the module docstring).

    `mapping` renames source classes to templecam's (or to "ignore"). `val_fraction` holds that
    share of all images back for validation, replacing the source's split; without it only a
    dataset with no val split is split, DEFAULT_VAL_FRACTION of it. A reviewed teach folder
    (review.json) is read with `read_review`. With `strict` (the default)
    errors raise DatasetError; otherwise they are listed in `errors` (for `dataset check`).
    `progress(done, total)` is called as images are checked.
    """
    if val_fraction is not None and not 0.0 <= val_fraction < 1.0:
        raise DatasetError(f"val fraction {val_fraction}: give a share from 0 up to (not) 1")
    folder = Path(src).expanduser()
    if (folder / REVIEW_FILE).is_file() and not (folder / "data.yaml").exists():
        if mapping:
            raise DatasetError(f"{src} is a reviewed teach folder: its labels need no --map")
        fraction = DEFAULT_VAL_FRACTION if val_fraction is None else val_fraction
        return read_review(folder, val_fraction=fraction)
    layout = read_layout(folder)
    table = _class_table(layout, mapping or {})
    view = DatasetView(Path(src), layout.format, [], problems=list(layout.notes))
    unknown: Counter[str] = Counter()
    malformed: list[str] = []
    unreadable: list[str] = []
    unlabelled = 0
    for done, item in enumerate(layout.items, 1):
        if progress is not None:
            progress(done, len(layout.items))
        size = _image_size(item.image)
        if size is None:
            unreadable.append(_shown(item.image, layout.root))
            continue
        if not item.labels.is_file():
            unlabelled += 1
            boxes: list[Box] = []
        else:
            boxes = _read_labels(item, size, layout, table, view, unknown, malformed)
        view.images.append(LabelledImage(item.image, item.split, size[0], size[1], tuple(boxes)))
    if unreadable:
        view.problems.append(
            f"{_many(len(unreadable), 'image')} cannot be read and are left out: "
            + _listed(unreadable)
        )
    if unlabelled:
        view.problems.append(
            f"{_many(unlabelled, 'image')} without a label file: read as without objects"
        )
    if malformed:
        view.errors.append(
            f"{_many(len(malformed), 'label line')} malformed (write 'class cx cy w h', "
            f"normalised to 0-1): {_listed(malformed, sep='; ')}"
        )
    if unknown:
        shown = ", ".join(
            f"{name!r} ({_many(count, 'box')})" for name, count in sorted(unknown.items())
        )
        example = min(unknown)
        view.errors.append(
            f"the labels name classes templecam does not know: {shown}. Map each to one of "
            f"{', '.join(TEMPLECAM_CLASSES)} with --map, or drop it: e.g. --map "
            f"{_quoted(example)}=key or --map {_quoted(example)}={IGNORE}"
        )
    if not view.images and not view.errors:
        view.errors.append(f"{src} has no readable image")
    _assign_splits(view, layout.has_val, val_fraction)
    if strict and view.errors:
        what = f"{src} ({FORMATS.get(view.format, view.format)})"
        raise DatasetError(f"{what}: " + "\nAlso: ".join(view.errors))
    return view


def _quoted(name: str) -> str:
    """Return a class name as it must be typed in a shell."""
    return f'"{name}"' if any(c in name for c in " '\"$&|;<>()") else name


def _shown(path: Path, root: Path) -> str:
    """Return a path relative to the dataset's folder when it lies inside it."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _listed(entries: Sequence[str], sep: str = ", ") -> str:
    """Return the first MAX_LISTED entries, and how many more there are."""
    text = sep.join(entries[:MAX_LISTED])
    if len(entries) > MAX_LISTED:
        text += f"{sep}... and {len(entries) - MAX_LISTED} more"
    return text


def _many(count: int, noun: str) -> str:
    """Return "1 image", "2 images", "3 boxes"."""
    if count == 1:
        return f"1 {noun}"
    return f"{count} {noun}{'es' if noun.endswith(('s', 'x')) else 's'}"


def _image_size(path: Path) -> tuple[int, int] | None:
    """Return (width, height) of an image that OpenCV can decode, else None."""
    try:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    except cv2.error:
        return None
    if image is None:
        return None
    return int(image.shape[1]), int(image.shape[0])


def _read_labels(
    item: Item,
    size: tuple[int, int],
    layout: Layout,
    table: dict[int, str | bool | None],
    view: DatasetView,
    unknown: Counter[str],
    malformed: list[str],
) -> list[Box]:
    """Read one YOLO label file as pixel boxes; note unknown classes and malformed lines."""
    where = _shown(item.labels, layout.root)
    try:
        text = item.labels.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        malformed.append(f"{where}: cannot be read ({error})")
        return []
    width, height = size
    boxes = []
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        parsed = _parse_line(fields, layout.names)
        if isinstance(parsed, str):
            malformed.append(f"{where} line {number}: {parsed}")
            continue
        index, (x1, y1, x2, y2) = parsed
        source_name = layout.names[index]
        target = table[index]
        if target is False:
            unknown[source_name] += 1
            continue
        view.classes[source_name] = target if isinstance(target, str) else None
        if target is None:
            view.ignored += 1
            continue
        assert isinstance(target, str)
        boxes.append(Box(target, x1 * width, y1 * height, x2 * width, y2 * height))
    return boxes


def _parse_line(
    fields: list[str], names: dict[int, str]
) -> tuple[int, tuple[float, float, float, float]] | str:
    """Return (class index, normalised corners) of a label line, or what is wrong with it."""
    try:
        number = float(fields[0])
        values = [float(v) for v in fields[1:]]
    except ValueError:
        return f"{' '.join(fields)!r} is not numbers"
    if not number.is_integer() or int(number) not in names:
        top = max(names)
        return f"class {fields[0]}, but the dataset names classes 0 to {top}"
    if len(values) == 4:
        cx, cy, w, h = values
        corners = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
    elif len(values) >= 6 and len(values) % 2 == 0:  # a polygon: its bounding box
        xs, ys = values[0::2], values[1::2]
        corners = (min(xs), min(ys), max(xs), max(ys))
    else:
        return f"{len(fields)} values; a box is 'class cx cy w h' (5 values)"
    if not all(math.isfinite(v) for v in values):
        return "a coordinate is not a finite number"
    if min(corners) < -_EDGE or max(corners) > 1 + _EDGE:
        return "coordinates outside 0-1: YOLO labels are fractions of the image size, not pixels"
    x1, y1, x2, y2 = (min(max(v, 0.0), 1.0) for v in corners)
    if x2 <= x1 or y2 <= y1:
        return "the box has no area"
    return int(number), (x1, y1, x2, y2)


def _assign_splits(view: DatasetView, has_val: bool, val_fraction: float | None) -> None:
    """Hold back images for validation when asked to, or when the source has no val split."""
    if val_fraction is None and has_val:
        return
    fraction = DEFAULT_VAL_FRACTION if val_fraction is None else val_fraction
    chosen = _held_back([str(image.path) for image in view.images], fraction)
    view.images = [
        LabelledImage(i.path, "val" if n in chosen else "train", i.width, i.height, i.boxes)
        for n, i in enumerate(view.images)
    ]
    view.images.sort(key=lambda image: image.split != "train")
    if val_fraction is None and view.images:
        view.problems.append(
            f"no val split: {len(chosen)} of {len(view.images)} images "
            f"({fraction:.0%}) are held back for validation (--val-fraction)"
        )


def _held_back(keys: Sequence[str], fraction: float) -> set[int]:
    """Return the indexes of the `fraction` of `keys` held back, chosen by a stable hash."""
    count = round(len(keys) * fraction)
    if fraction > 0 and len(keys) >= 2:
        count = min(max(count, 1), len(keys) - 1)
    order = sorted(range(len(keys)), key=lambda i: hashlib.sha1(keys[i].encode()).hexdigest())
    return set(order[:count])


# --- writing an Ultralytics dataset -----------------------------------------------------------


def write_ultralytics(
    view: DatasetView,
    out_dir: Path,
    *,
    names: Sequence[str] | None = None,
    replace: bool = False,
) -> Path:
    """Write `view` as an Ultralytics dataset at `out_dir`, whole or not at all; return data.yaml.

    `names` are the classes in index order (default: `view.names()`); a box of another class is
    an error. An existing `out_dir` must be empty, unless `replace` swaps it for the new one.
    """
    out_dir = Path(out_dir).expanduser()
    names = tuple(names or view.names())
    index = {name: i for i, name in enumerate(names)}
    strays = sorted({b.label for i in view.images for b in i.boxes if b.label not in index})
    if strays:
        raise DatasetError(f"boxes of {', '.join(strays)}, which is not among {', '.join(names)}")
    if not view.images:
        raise DatasetError("the dataset has no image to write")
    if out_dir.exists() and not out_dir.is_dir():
        raise DatasetError(f"{out_dir} is a file: give a folder for the dataset")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not replace:
        raise DatasetError(f"{out_dir} already holds files: give a new or empty folder")
    partial = out_dir.with_name(f".{out_dir.name}.partial-{os.getpid()}")
    try:
        if partial.exists():
            shutil.rmtree(partial)
        _write_into(view, partial, names, index)
        _swap_in(partial, out_dir)
    except OSError as error:
        shutil.rmtree(partial, ignore_errors=True)
        if error.errno in (errno.ENOSPC, errno.EDQUOT):
            raise DatasetError(
                f"the disk is full: the dataset does not fit beside {out_dir}; nothing was "
                "written. Free some space or choose another folder."
            ) from None
        raise DatasetError(f"cannot write the dataset to {out_dir}: {error}") from None
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return out_dir / "data.yaml"


def _write_into(
    view: DatasetView, folder: Path, names: tuple[str, ...], index: dict[str, int]
) -> None:
    """Write images, labels and data.yaml into a new folder."""
    splits = {"train": view.split("train"), "val": view.split("val")}
    for split, images in splits.items():
        (folder / "images" / split).mkdir(parents=True)
        (folder / "labels" / split).mkdir(parents=True)
        taken: set[str] = set()
        for image in images:
            stem = _unique_stem(image.path, taken)
            shutil.copyfile(image.path, folder / "images" / split / (stem + _suffix(image.path)))
            lines = []
            for box in image.boxes:
                cx, cy, w, h = box.yolo(image.width, image.height)
                lines.append(f"{index[box.label]} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}\n")
            (folder / "labels" / split / f"{stem}.txt").write_text("".join(lines), "utf-8")
    val = "images/val" if splits["val"] else "images/train"
    train = "images/train" if splits["train"] else "images/val"
    header = f"# written by templecam from {view.source} ({view.format})\n"
    body = {"train": train, "val": val, "nc": len(names), "names": list(names)}
    (folder / "data.yaml").write_text(header + _yaml(body), "utf-8")


def _yaml(data: dict[str, Any]) -> str:
    """Return a small mapping as YAML."""
    import yaml

    return str(yaml.safe_dump(data, sort_keys=False, default_flow_style=None))


def _suffix(path: Path) -> str:
    """Return an image's file ending in lower case (.jpeg stays .jpeg)."""
    return path.suffix.lower()


def _unique_stem(path: Path, taken: set[str]) -> str:
    """Return the image's name without ending, made unique within its split."""
    stem = path.stem
    if stem.lower() in taken:
        stem = f"{path.parent.name}_{path.stem}"
    base, number = stem, 2
    while stem.lower() in taken:
        stem, number = f"{base}_{number}", number + 1
    taken.add(stem.lower())
    return stem


def _swap_in(partial: Path, out_dir: Path) -> None:
    """Rename the finished folder into place (an existing one is replaced, then removed)."""
    old = None
    if out_dir.exists():
        old = out_dir.with_name(f".{out_dir.name}.old-{os.getpid()}")
        os.replace(out_dir, old)
    try:
        os.replace(partial, out_dir)
    except OSError:
        if old is not None:
            os.replace(old, out_dir)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


# --- a reviewed teach folder ------------------------------------------------------------------


def read_review(teach_dir: Path, *, val_fraction: float = DEFAULT_VAL_FRACTION) -> DatasetView:
    """Read a teach folder's review.json as a dataset of the five faces (see the docstring).

    Images that cannot be read are left out (listed in `problems`); `val_fraction` of each
    prompt's images is held back for validation.
    """
    teach_dir = Path(teach_dir).expanduser()
    data = _review_json(teach_dir)
    view = DatasetView(teach_dir, "templecam-teach", [])
    prompts: dict[str, str] = {}
    sizes: dict[str, tuple[int, int]] = {}
    unreadable = []
    for entry in _entries(data, "images"):
        file = _inside(teach_dir, entry.get("file"))
        prompts[file] = str(entry.get("prompt", ""))
        size = _image_size(teach_dir / file)
        if size is None:
            unreadable.append(file)
            continue
        stated = (entry.get("width"), entry.get("height"))
        if stated != (None, None) and stated != size:
            view.problems.append(
                f"{file} is {size[0]}x{size[1]}, not {stated[0]}x{stated[1]} as review.json "
                "says: it is left out (its boxes would be misplaced)"
            )
            continue
        sizes[file] = size
    boxes: dict[str, list[Box]] = {file: [] for file in sizes}
    for entry in _entries(data, "dice"):
        file = str(entry.get("image"))
        label = entry.get("label")
        if label not in (*FACES, NOT_DIE):
            raise DatasetError(
                f"{teach_dir / REVIEW_FILE}: a die of {file} is labelled {label!r}; a label is "
                f"one of {', '.join((*FACES, NOT_DIE))}"
            )
        if file not in sizes:
            if file not in prompts:
                view.problems.append(f"a die is on {file}, which review.json does not list")
            continue
        if label == NOT_DIE:
            view.ignored += 1
            continue
        boxes[file].append(Box(label, *_box(entry.get("box"), sizes[file], file, teach_dir)))
    for file, size in sizes.items():
        view.images.append(LabelledImage(teach_dir / file, "train", *size, tuple(boxes[file])))
    if unreadable:
        view.problems.append(
            f"{_many(len(unreadable), 'image')} cannot be read and are left out: "
            + _listed(unreadable)
        )
    if not view.images:
        raise DatasetError(f"{teach_dir}: review.json lists no readable image")
    held: set[str] = set()
    for prompt in sorted(set(prompts.values())):
        files = [f for f in sizes if prompts[f] == prompt]
        held |= {files[i] for i in _held_back(files, val_fraction)}
    view.images = [
        LabelledImage(
            i.path,
            "val" if _relative(i.path, teach_dir) in held else "train",
            i.width,
            i.height,
            i.boxes,
        )
        for i in view.images
    ]
    view.images.sort(key=lambda image: image.split != "train")
    view.classes = {face: face for face in view.class_counts()}
    if view.ignored:
        view.classes[NOT_DIE] = None
    return view


def export_review(
    teach_dir: Path,
    out_dir: Path,
    *,
    val_fraction: float = DEFAULT_VAL_FRACTION,
    replace: bool = False,
) -> Path:
    """Write a reviewed teach folder as an Ultralytics dataset of the five faces (data.yaml)."""
    view = read_review(teach_dir, val_fraction=val_fraction)
    return write_ultralytics(view, out_dir, names=FACES, replace=replace)


def _review_json(teach_dir: Path) -> dict[str, Any]:
    """Read and check review.json."""
    path = teach_dir / REVIEW_FILE
    if not path.is_file():
        raise DatasetError(
            f"no {REVIEW_FILE} in {teach_dir}: capture and review the dice first (templecam "
            "teach, or the /dice page)"
        )
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise DatasetError(f"{path} cannot be read: {error}") from None
    if not isinstance(data, dict) or data.get("format") != REVIEW_FORMAT:
        found = data.get("format") if isinstance(data, dict) else None
        raise DatasetError(f"{path} is not a review ({REVIEW_FORMAT}); its format is {found!r}")
    return data


def _entries(data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """Return a list of objects of review.json."""
    entries = data.get(key, [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise DatasetError(f"{REVIEW_FILE}: {key} must be a list of objects")
    return entries


def _inside(teach_dir: Path, file: Any) -> str:
    """Return an image's path in the teach folder, refusing one that leads outside it."""
    if not isinstance(file, str) or not file:
        raise DatasetError(f"{REVIEW_FILE}: an image has no file")
    parts = PurePosixPath(file).parts
    if PurePosixPath(file).is_absolute() or ".." in parts:
        raise DatasetError(f"{REVIEW_FILE}: {file} lies outside {teach_dir}")
    return file


def _relative(path: Path, folder: Path) -> str:
    """Return `path` inside `folder` with `/` separators."""
    return path.relative_to(folder).as_posix()


def _box(value: Any, size: tuple[int, int], file: str, teach_dir: Path) -> tuple[float, ...]:
    """Return a reviewed box clipped to its image; DatasetError for one that is no box."""
    try:
        x1, y1, x2, y2 = (float(v) for v in value)
    except (TypeError, ValueError):
        raise DatasetError(
            f"{teach_dir / REVIEW_FILE}: a die of {file} has the box {value!r}; a box is "
            "[x1, y1, x2, y2] in pixels"
        ) from None
    width, height = size
    x1, x2 = min(max(x1, 0.0), width), min(max(x2, 0.0), width)
    y1, y2 = min(max(y1, 0.0), height), min(max(y2, 0.0), height)
    if x2 <= x1 or y2 <= y1:
        raise DatasetError(
            f"{teach_dir / REVIEW_FILE}: a die of {file} has the box {value!r}, which has no "
            f"area inside the {width}x{height} image"
        )
    return x1, y1, x2, y2
