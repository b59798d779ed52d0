"""`templecam detect`: run the detector on image files and print what it finds."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from templecam.commands.baseline_options import add_baseline_arguments, baseline_settings
from templecam.errors import UserError

if TYPE_CHECKING:
    import numpy as np

    from vision.perception.localiser import LocaliserSettings
    from vision.perception.table_detector import TableDetector

FIT_IMAGES = 3
"""Images whose dice set the localiser's scale when --scale is auto (no calibration here)."""

_DESCRIPTION = """\
Find dice, gems, chamber tiles, figures and hands in image files (ONNX Runtime, CPU): the
localiser looks once over each image resized by --scale (auto: so that the dice found in the
first images arrive at the size it was trained for), then the face reader names each die's top
face from a full-resolution crop. Boxes are in image pixels: x1 y1 x2 y2."""

_EPILOG = """\
examples:
  templecam detect table.jpg
  templecam detect frames/*.jpg --json > detections.jsonl
  templecam detect table.jpg --scale 0.75 --conf 0.4     # a 720p webcam's 20 px dice
  templecam detect table.jpg --localiser "iou=0.4" --faces off"""


def resolve_model(model: str | None) -> Path:
    """Return the model file to use: `--model` (a file, or auto, int8 or float for the shipped
    localiser) or the shipped default (`vision.perception.models`); UserError if missing."""
    from vision.perception.model_contract import ModelError
    from vision.perception.models import default_model

    try:
        return default_model(model)[0]
    except ModelError as error:
        raise UserError(str(error)) from None


def add_detector_arguments(parser: argparse.ArgumentParser, conf: float = 0.25) -> None:
    """Add the options that choose and tune the localiser and face reader (detect, eval)."""
    group = parser.add_argument_group(
        "localiser and face reader",
        "The localiser finds every die, gem, tile, figure and hand in one pass over the\n"
        "frame resized by --scale; the face reader names each die's top face from a\n"
        "full-resolution crop (or says it is no die).",
    )
    group.add_argument(
        "--model",
        metavar="M",
        help="localiser model: an .onnx file, or auto (the shipped localiser's int8 copy, "
        "vision/data/models/templecam-default-int8.onnx, about a quarter faster), int8, or "
        "float (the shipped templecam-default.onnx) (default: auto)",
    )
    group.add_argument(
        "--conf",
        type=float,
        help=f"lowest confidence reported (default: {conf})",
    )
    group.add_argument(
        "--scale",
        metavar="auto|X",
        help="resize of the frame before the localiser: auto follows the camera (the size of "
        "the dice found in the first images; 30 px dice give 0.5, 20 px dice 0.75), a number "
        "fixes it (default: auto)",
    )
    group.add_argument(
        "--faces",
        default="auto",
        metavar="auto|float|off|M",
        help="the die-face reader: auto (the shipped reader's int8 copy, vision/data/models/"
        "templecam-faces-int8.onnx, twice as fast as the reader itself and reading alike), "
        "float (the shipped templecam-faces.onnx), off (dice stay unread), or a reader .onnx, "
        "such as a taught one (default: %(default)s)",
    )
    group.add_argument(
        "--threads", type=int, help="CPU threads for ONNX Runtime (default: the CPUs, at most 4)"
    )
    group.add_argument(
        "--localiser",
        metavar="WORDS",
        default="",
        help="more localiser settings as key=value words of conf scale threads spin faces "
        'second_look turns iou max_det, e.g. "scale=0.75 turns=1" (the options above win)',
    )
    group.set_defaults(default_conf=conf)
    add_baseline_arguments(group)  # the early YOLO baseline's, hidden: a named alternative


def conf_of(args: argparse.Namespace) -> float:
    """Return --conf, else the command's default."""
    return args.conf if args.conf is not None else getattr(args, "default_conf", 0.25)


def _faces(args: argparse.Namespace) -> str:
    """Return --faces checked: a word of `READER_CHOICES` or an existing reader file."""
    from vision.perception.face_reader import READER_CHOICES

    faces = args.faces.lower() if args.faces.lower() in READER_CHOICES else args.faces
    if faces not in READER_CHOICES and not Path(faces).expanduser().is_file():
        raise UserError(
            f"--faces {faces}: no classifier there; give {', '.join(READER_CHOICES)} or an "
            ".onnx file"
        )
    return faces


def localiser_settings_from_args(args: argparse.Namespace) -> LocaliserSettings:
    """Build the localiser's settings: --localiser words, then --conf, --scale, --faces and
    --threads over them."""
    from dataclasses import replace

    from vision.perception.localiser import LocaliserSettings

    try:
        settings = LocaliserSettings.parse(getattr(args, "localiser", "") or "")
        words = (getattr(args, "localiser", "") or "").replace(",", " ").split()
        given = {w.partition("=")[0] for w in words}
        changes: dict[str, object] = {}
        if args.conf is not None or "conf" not in given:
            changes["conf"] = conf_of(args)
        if args.faces.lower() != "auto" or "faces" not in given:
            changes["faces"] = _faces(args)
        if args.threads is not None:
            changes["threads"] = args.threads
        scale = getattr(args, "scale", None)
        if scale is not None and str(scale).lower() != "auto":
            try:
                changes["scale"] = float(scale)
            except ValueError:
                raise UserError(f"--scale {scale}: give auto or a number from 0.1 to 2") from None
        return replace(settings, **changes)  # type: ignore[arg-type]
    except ValueError as error:
        raise UserError(f"--localiser: {error}") from None


def open_detector(args: argparse.Namespace) -> TableDetector:
    """Open the detector the options ask for; UserError when the model cannot be used."""
    from vision.perception.detector import Detector, ModelError
    from vision.perception.localiser import Localiser
    from vision.perception.model_contract import is_localiser

    path = resolve_model(args.model)
    try:
        if is_localiser(path):
            return Localiser(path, localiser_settings_from_args(args))
        return Detector(path, baseline_settings(args, conf_of(args), _faces(args)))
    except ModelError as error:
        raise UserError(str(error)) from None


def fit_to_images(
    detector: TableDetector, images: list[np.ndarray], quiet: bool = False
) -> TableDetector:
    """Return the detector at the scale the first images' dice ask for (`vision.perception.scale`; a
    --scale or scale= setting wins), saying on stderr what was chosen."""
    from vision.perception.scale import follow_camera

    fitted, choice = follow_camera(detector, None, images)
    if choice is not None and not quiet:
        print(f"templecam: {choice.describe()}", file=sys.stderr)
    return fitted


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `detect` subcommand."""
    parser = subparsers.add_parser(
        "detect",
        help="detect dice, tiles, gems, figures and hands in images",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files to look at")
    parser.add_argument(
        "--json",
        action="store_true",
        help='one JSON object per image and line: {"image", "detections": [{class, conf, box}]}',
    )
    add_detector_arguments(parser)
    parser.set_defaults(run=run)


def _print_table(path: str, found: list[dict[str, object]], ms: float) -> None:
    """Print one image's detections as a readable table."""
    noun = "detection" if len(found) == 1 else "detections"
    print(f"{path}: {len(found)} {noun} ({ms:.0f} ms)")
    if found:
        print(f"  {'class':<15} {'conf':>5}  {'x1':>7} {'y1':>7} {'x2':>7} {'y2':>7}")
    for item in found:
        box = item["box"]
        assert isinstance(box, list)
        coords = " ".join(f"{v:7.1f}" for v in box)
        print(f"  {item['class']!s:<15} {item['conf']:>5.2f}  {coords}")


def run(args: argparse.Namespace) -> int:
    """Detect objects in each image; report unreadable ones on stderr and exit 2 at the end."""
    import cv2

    detector = open_detector(args)

    def read(path: str) -> np.ndarray | None:
        return cv2.imread(path, cv2.IMREAD_COLOR) if Path(path).is_file() else None

    first = [image for image in map(read, args.images[:FIT_IMAGES]) if image is not None]
    detector = fit_to_images(detector, first)
    failed = 0
    for path in args.images:
        image = read(path)
        if image is None:
            why = "no such file" if not Path(path).exists() else "not an image OpenCV can read"
            print(f"templecam detect: error: cannot read {path}: {why}", file=sys.stderr)
            failed += 1
            continue
        start = time.perf_counter()
        found = detector.detect(image).to_json()
        ms = (time.perf_counter() - start) * 1000.0
        if args.json:
            print(json.dumps({"image": path, "detections": found}), flush=True)
        else:
            _print_table(path, found, ms)
    if failed:
        images = "image" if failed == 1 else "images"
        print(f"templecam detect: {failed} {images} could not be read", file=sys.stderr)
        return 2
    return 0
