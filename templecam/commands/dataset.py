"""`templecam dataset`: import, check and export labelled datasets (YOLO formats)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from templecam.errors import UserError

if TYPE_CHECKING:
    from teach.datasets import DatasetView

_DESCRIPTION = """\
Bring labelled datasets you already have into templecam, and take what you captured out.

  import  read a dataset (Ultralytics/YOLO data.yaml, Roboflow's YOLO export, CVAT's "YOLO 1.1"
          export, Label Studio's YOLO export; the format is recognised) and write it as a clean
          Ultralytics dataset with templecam's class names (images/, labels/, data.yaml)
  check   say what a dataset holds: its format, images, boxes per class, problems
  export  write a reviewed teach folder (review.json) as an Ultralytics dataset of the five
          faces, to open in those tools

Class names are matched to templecam's ignoring case, spaces and dashes ("Golden Mask" is
golden_mask); --map renames the others (--map Schlüssel=key) or drops them (--map meeple=ignore).
A dataset is written into a temporary folder and renamed into place: never half of one."""

_EPILOG = """\
templecam's classes: {classes}

examples:
  templecam dataset check ~/Downloads/dice.v3i.yolov8
  templecam dataset import ~/Downloads/dice.v3i.yolov8 --out ~/datasets/dice --map Key=key
  templecam dataset import ~/cvat-export --out ~/datasets/cvat --val-fraction 0.25
  templecam train --data ~/Downloads/dice.v3i.yolov8 --map die=ignore --out ~/models/mine
  templecam dataset export ~/dice-teach --out ~/datasets/reviewed"""


def _fraction(text: str) -> float:
    """Parse a share from 0 up to (not including) 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: give a share such as 0.2") from None
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"{text}: give a share from 0 up to (not) 1")
    return value


def add_map_argument(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """Add the repeatable --map OLD=NEW option (shared with `train`)."""
    parser.add_argument(
        "--map",
        action="append",
        default=[],
        metavar="OLD=NEW",
        help="rename a dataset class to a templecam class, or drop it with OLD=ignore (repeatable)",
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `dataset` subcommand with its import, check and export."""
    from vision.perception.classes import DETECTION_NAMES, NOT_DIE

    classes = ", ".join((*DETECTION_NAMES, NOT_DIE))
    parser = subparsers.add_parser(
        "dataset",
        help="import (Ultralytics, Roboflow, CVAT, Label Studio), check or export a dataset",
        description=_DESCRIPTION,
        epilog=_EPILOG.format(classes=classes),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    imports = actions.add_parser(
        "import",
        help="write a dataset as a clean Ultralytics dataset with templecam's names",
        description="Read a labelled dataset in any format templecam knows and write it as an "
        "Ultralytics dataset (images/{train,val}, labels/{train,val}, data.yaml).",
    )
    imports.add_argument("src", metavar="SRC", help="the dataset's folder (or its data file)")
    imports.add_argument("--out", required=True, metavar="DIR", help="a new or empty folder")
    add_map_argument(imports)
    imports.add_argument(
        "--val-fraction",
        type=_fraction,
        metavar="F",
        help="hold back this share of all images for validation instead of the dataset's own "
        "split (default: its split; 0.2 when it has none)",
    )
    imports.set_defaults(run=run_import)

    check = actions.add_parser(
        "check",
        help="print a dataset's format, images, boxes per class and problems",
        description="Read a dataset and say what it holds and what is wrong with it (exit 2 "
        "when it cannot be imported as it stands).",
    )
    check.add_argument("src", metavar="SRC", help="the dataset's folder (or its data file)")
    add_map_argument(check)
    check.set_defaults(run=run_check)

    export = actions.add_parser(
        "export",
        help="write a reviewed teach folder as an Ultralytics dataset of the five faces",
        description="Write what was captured and reviewed (TEACH_DIR/review.json) as an "
        "Ultralytics dataset whose classes are the five faces; boxes reviewed as not_die are "
        "left out (background), photos of the empty table get empty label files.",
    )
    export.add_argument("teach_dir", metavar="TEACH_DIR", help="the folder with review.json")
    export.add_argument("--out", required=True, metavar="DIR", help="a new or empty folder")
    export.add_argument(
        "--val-fraction",
        type=_fraction,
        default=0.2,
        metavar="F",
        help="share of each face's photos held back for validation (default: %(default)s)",
    )
    export.set_defaults(run=run_export)


def _progress(done: int, total: int) -> None:
    """Show how many images were checked, on one line of stderr (big datasets only)."""
    if total >= 200 and (done % 100 == 0 or done == total) and sys.stderr.isatty():
        end = "\n" if done == total else ""
        print(f"\rchecking images: {done}/{total}", end=end, file=sys.stderr, flush=True)


def _load(src: str, items: list[str], val_fraction: float | None, strict: bool) -> DatasetView:
    """Load a dataset for the command line; DatasetError becomes UserError."""
    from teach.datasets import DatasetError, load_dataset, parse_mapping

    try:
        mapping = parse_mapping(items)
        return load_dataset(
            Path(src).expanduser(),
            mapping,
            val_fraction=val_fraction,
            strict=strict,
            progress=_progress,
        )
    except DatasetError as error:
        raise UserError(str(error)) from None


def describe(view: DatasetView) -> list[str]:
    """Return the lines that say what a dataset holds: format, images, boxes per class."""
    from teach.datasets import FORMATS, normalise_name

    train, val = len(view.split("train")), len(view.split("val"))
    lines = [
        f"format: {view.format} ({FORMATS.get(view.format, 'a reviewed teach folder')})",
        f"images: {len(view.images)} (train {train}, val {val})",
    ]
    counts = view.class_counts()
    renamed = {}
    for old, new in view.classes.items():
        if new is not None and normalise_name(old) != new:
            renamed.setdefault(new, []).append(old)
    if counts:
        lines.append("boxes per class:")
        width = max(len(name) for name in counts)
        for name, count in counts.items():
            source = f"  (from {', '.join(renamed[name])})" if name in renamed else ""
            lines.append(f"  {name:<{width}} {count:>6}{source}")
    else:
        lines.append("boxes: none")
    if view.ignored:
        dropped = sorted(old for old, new in view.classes.items() if new is None)
        why = f" ({', '.join(dropped)})" if dropped else ""
        noun = "box" if view.ignored == 1 else "boxes"
        lines.append(f"left out: {view.ignored} {noun}{why}")
    return lines


def run_import(args: argparse.Namespace) -> int:
    """Import a dataset and write it as an Ultralytics dataset."""
    from teach.datasets import DatasetError, write_ultralytics

    view = _load(args.src, args.map, args.val_fraction, strict=True)
    for problem in view.problems:
        print(f"note: {problem}", file=sys.stderr)
    try:
        data_yaml = write_ultralytics(view, Path(args.out).expanduser())
    except DatasetError as error:
        raise UserError(str(error)) from None
    print("\n".join(describe(view)))
    print(f"wrote {data_yaml}")
    return 0


def run_check(args: argparse.Namespace) -> int:
    """Print what a dataset holds and its problems; exit 2 when it cannot be imported."""
    view = _load(args.src, args.map, None, strict=False)
    print("\n".join(describe(view)))
    for problem in view.problems:
        print(f"note: {problem}")
    for error in view.errors:
        print(f"error: {error}")
    if view.errors:
        return 2
    if not view.problems:
        print("no problems found")
    else:
        print("no errors: it can be imported as it is")
    return 0


def run_export(args: argparse.Namespace) -> int:
    """Export a reviewed teach folder as an Ultralytics dataset of the five faces."""
    from teach.datasets import DatasetError, read_review, write_ultralytics
    from vision.perception.classes import FACES

    try:
        view = read_review(Path(args.teach_dir).expanduser(), val_fraction=args.val_fraction)
        for problem in view.problems:
            print(f"note: {problem}", file=sys.stderr)
        data_yaml = write_ultralytics(view, Path(args.out).expanduser(), names=FACES)
    except DatasetError as error:
        raise UserError(str(error)) from None
    print("\n".join(describe(view)))
    print(f"wrote {data_yaml}")
    return 0
