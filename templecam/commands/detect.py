"""`templecam detect`: run the detector on image files and print what it finds."""

from __future__ import annotations

import argparse
import json
import sys
import time
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from templecam.errors import UserError

if TYPE_CHECKING:
    from vision.detector import Detector, DetectorSettings
    from vision.localiser import Localiser

DEFAULT_MODEL = "templecam-default.onnx"
"""The shipped model's file name inside the `models` package."""

_DESCRIPTION = """\
Run the YOLO detector (ONNX Runtime, CPU) on image files. Big frames are cut into overlapping
full-resolution tiles so that 25-35 px dice stay readable (--tile), plus a whole-frame pass for
big objects. Boxes are in image pixels: x1 y1 x2 y2."""

_EPILOG = """\
examples:
  templecam detect table.jpg
  templecam detect frames/*.jpg --json > detections.jsonl
  templecam detect table.jpg --model runs/best.onnx --conf 0.4 --tile 0"""


def default_model_path() -> Path:
    """Return where the shipped default model lives (inside the installed `models` package)."""
    return Path(str(resources.files("models") / DEFAULT_MODEL))


def resolve_model(model: str | None) -> Path:
    """Return the model file to use: `--model` or the shipped default; UserError if missing."""
    if model:
        path = Path(model).expanduser()
        if not path.is_file():
            raise UserError(f"no model at {path}: give the path of an .onnx model file")
        return path
    path = default_model_path()
    if not path.is_file():
        raise UserError(f"no model at {path}: train one with templecam train or pass --model")
    return path


def add_detector_arguments(parser: argparse.ArgumentParser, conf: float = 0.25) -> None:
    """Add the options that choose and tune the detector (shared by detect, eval, bench)."""
    group = parser.add_argument_group("detector")
    group.add_argument(
        "--model",
        metavar="M",
        help="ONNX model (default: the shipped models/templecam-default.onnx)",
    )
    group.add_argument(
        "--conf", type=float, default=conf, help="lowest confidence reported (default: %(default)s)"
    )
    group.add_argument(
        "--iou", type=float, default=0.7, help="NMS IoU within a class (default: %(default)s)"
    )
    group.add_argument(
        "--tile",
        default="auto",
        help="auto, 0 (whole frame only) or a tile edge in px (default: %(default)s)",
    )
    group.add_argument(
        "--overlap", type=int, default=64, help="least tile overlap in px (default: %(default)s)"
    )
    group.add_argument(
        "--whole",
        choices=("auto", "on", "off"),
        default="auto",
        help="whole-frame pass beside the tiles (default: %(default)s: when tiling)",
    )
    group.add_argument(
        "--imgsz", type=int, help="model input edge in px (default: the model's own)"
    )
    group.add_argument(
        "--threads", type=int, help="CPU threads for ONNX Runtime (default: the CPUs, at most 4)"
    )
    group.add_argument(
        "--faces",
        default="auto",
        metavar="auto|off|M",
        help="re-read every die on a full-resolution crop with a face classifier: auto (the "
        "shipped models/templecam-faces.onnx when there), off, or a classifier .onnx "
        "(default: %(default)s)",
    )


def settings_from_args(args: argparse.Namespace) -> DetectorSettings:
    """Build detector settings from the options of `add_detector_arguments`."""
    from vision.detector import DetectorSettings

    tile: int | str = args.tile
    if str(tile).lower() == "auto":
        tile = "auto"
    else:
        try:
            tile = int(tile)
        except ValueError:
            raise UserError(f"--tile {args.tile}: give auto, 0 or a tile edge in px") from None
    whole = {"auto": None, "on": True, "off": False}[args.whole]
    faces = args.faces.lower() if args.faces.lower() in ("auto", "off") else args.faces
    if faces not in ("auto", "off") and not Path(faces).expanduser().is_file():
        raise UserError(f"--faces {faces}: no classifier there; give auto, off or an .onnx file")
    try:
        return DetectorSettings(
            conf=args.conf,
            iou=args.iou,
            tile=tile,
            overlap=args.overlap,
            whole=whole,
            imgsz=args.imgsz,
            threads=args.threads,
            faces=faces,
        )
    except ValueError as error:
        raise UserError(str(error)) from None


def open_detector(args: argparse.Namespace) -> Detector | Localiser:
    """Open the detector the options ask for; UserError when the model cannot be used."""
    from vision.detector import Detector, ModelError
    from vision.localiser import Localiser, LocaliserSettings, is_localiser

    settings = settings_from_args(args)
    path = resolve_model(args.model)
    try:
        if is_localiser(path):
            return Localiser(
                path,
                LocaliserSettings(
                    conf=settings.conf, threads=settings.threads, faces=settings.faces
                ),
            )
        return Detector(path, settings)
    except ModelError as error:
        raise UserError(str(error)) from None


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
    failed = 0
    for path in args.images:
        image = cv2.imread(path, cv2.IMREAD_COLOR) if Path(path).is_file() else None
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
