"""`templecam eval`: score a detector model on a YOLO dataset (mAP, dice, gems, tiles, speed)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from templecam.commands.detect import (
    FIT_IMAGES,
    add_detector_arguments,
    conf_of,
    fit_to_images,
    open_detector,
)
from templecam.errors import UserError

if TYPE_CHECKING:
    from vision.evaluate import EvalResult

_DESCRIPTION = """\
Run the localiser and face reader on every image of a dataset split (at --scale; auto: set by
the dice found in the first images) and score them: mAP50 and mAP50-95 (COCO 101-point, IoU
.50:.05:.95), per-class precision, recall and AP50 at --conf, die face accuracy (dice found by
exactly one detection, of the right face), face false positives per image and the median time
per image. With `templecam synth` scenes beside the labels, also the share of frames with the
right number of gems in the depot and the share of chamber tiles found. Classes are matched by
name: a dataset with only some of the classes is scored on those alone."""

_EPILOG = """\
examples:
  templecam eval --data ~/datasets/synth/data.yaml
  templecam eval --data ~/datasets/synth-hard/data.yaml --model runs/best.onnx --json
  templecam eval --data ~/datasets/webcam720/data.yaml --scale 0.75 --faces taught.onnx"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `eval` subcommand."""
    parser = subparsers.add_parser(
        "eval",
        help="score the localiser and face reader on a dataset",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--data", required=True, metavar="DATA.yaml", help="Ultralytics data.yaml")
    parser.add_argument("--split", default="val", help="split to score (default: %(default)s)")
    parser.add_argument("--limit", type=int, metavar="N", help="score only the first N images")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    add_detector_arguments(parser)
    parser.set_defaults(run=run)


def _fmt(value: float | None, percent: bool = False) -> str:
    """Format a figure, or '-' when the dataset cannot tell."""
    if value is None:
        return "-"
    return f"{value:.1%}" if percent else f"{value:.3f}"


def print_result(result: EvalResult) -> None:
    """Print the figures as readable text."""
    print(f"images: {result.images}, confidence {result.conf}")
    print(f"mAP50 {_fmt(result.map50)}   mAP50-95 {_fmt(result.map50_95)}")
    print(
        f"die face accuracy {_fmt(result.die_face_accuracy, True)}   "
        f"die false positives per image {_fmt(result.die_false_positives_per_image)}"
    )
    print(
        f"gems in depot exact {_fmt(result.gems_in_depot_exact, True)} "
        f"({result.depot_frames} frames)   tiles found {_fmt(result.tiles_found, True)}"
    )
    ms = "-" if result.ms_per_image is None else f"{result.ms_per_image:.0f} ms"
    print(f"median time per image: {ms}")
    header = f"{'class':<15} {'objects':>7} {'found':>6} {'precision':>9} {'recall':>7} {'AP50':>6}"
    print(f"\n{header} {'AP50-95':>8}")
    for c in result.classes:
        print(
            f"{c.name:<15} {c.instances:>7} {c.detections:>6} {_fmt(c.precision):>9} "
            f"{_fmt(c.recall):>7} {_fmt(c.ap50):>6} {_fmt(c.ap50_95):>8}"
        )
    for note in result.notes:
        print(f"note: {note}")


def _progress(done: int, total: int) -> None:
    """Report progress on stderr every tenth of the way."""
    if done == total or done * 10 // total > (done - 1) * 10 // total:
        print(f"eval: {done}/{total} images", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    """Score the model on the dataset split and print the figures."""
    import cv2

    from vision.evaluate import DatasetError, evaluate, read_data_yaml

    if args.limit is not None and args.limit < 1:
        raise UserError(f"--limit {args.limit}: give 1 or more images")
    try:
        data = read_data_yaml(args.data, args.split)
    except DatasetError as error:
        raise UserError(str(error)) from None
    detector = open_detector(args)
    first = [cv2.imread(str(path), cv2.IMREAD_COLOR) for path in data.images[:FIT_IMAGES]]
    detector = fit_to_images(detector, [image for image in first if image is not None])
    reader = getattr(detector, "faces", None)
    print(f"eval: die-face reader: {reader.model_path if reader else 'off'}", file=sys.stderr)
    try:
        result = evaluate(detector, data, conf=conf_of(args), limit=args.limit, progress=_progress)
    except DatasetError as error:
        raise UserError(str(error)) from None
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print_result(result)
    return 0
