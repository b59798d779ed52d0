"""`templecam bench robustness`: die faces, dice, false dice and gems under each camera and room."""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from templecam.commands.detect import add_detector_arguments, open_detector
from templecam.errors import UserError

if TYPE_CHECKING:
    from vision.bench.robustness import Condition, ConditionResult

_DESCRIPTION = """\
Render fresh tables with `templecam synth`'s renderer under each condition of a real table and
score the localiser and face reader on them as `templecam eval` does: 1080p and 720p, the camera
higher, lower and tilted, a warm lamp, a dim room, glare from a window, motion blur, a phone's
MJPEG stream over Wi-Fi (JPEG quality 25), clutter, small round things (beads, coins, tokens,
pencils), hands. Every condition draws the same tables (frame i of --seed), so the rows differ
by the condition alone. Per condition: die faces (readable dice found by exactly one detection
of the right face), dice found (by any face detection, IoU >= 0.5), false dice a frame (face
detections on no readable die) and gems found; the row with the fewest die faces read right is
marked worst. The default seed was never used to render training data."""

_EPILOG = """\
examples:
  templecam bench robustness                        # 12 frames a condition, 3-6 minutes
  templecam bench robustness --frames 30 --markdown
  templecam bench robustness --only 720p --only "tilted 30 deg" --json
  templecam bench robustness --model runs/localiser.onnx --faces runs/faces.onnx"""


def register_robustness(targets: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `robustness` target to `templecam bench`."""
    from vision.bench.robustness import CONDITIONS, DEFAULT_FRAMES, DEFAULT_SEED

    parser = targets.add_parser(
        "robustness",
        help="die faces, dice and gems found under each camera, light and table condition",
        description=_DESCRIPTION
        + "\n\nconditions:\n"
        + "\n".join(f"  {c.name:<14} {c.about}" for c in CONDITIONS),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--frames",
        type=int,
        default=DEFAULT_FRAMES,
        help="frames a condition (default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        help="seed of the rendered tables (default: %(default)s, never used in training)",
    )
    parser.add_argument(
        "--size",
        default="1920x1080",
        metavar="WxH",
        help="the base frame size; 720p is 2/3 of it (default: %(default)s)",
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="run only this condition (repeatable; default: all)",
    )
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    out.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    add_detector_arguments(parser)
    parser.set_defaults(run=run_robustness)


def _size(text: str) -> tuple[int, int]:
    """Parse WxH; UserError when it is not two positive numbers."""
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UserError(f"--size {text}: give WIDTHxHEIGHT, e.g. 1920x1080") from None
    if width < 64 or height < 64:
        raise UserError(f"--size {text}: give at least 64x64")
    return width, height


def model_file(path: Path) -> dict[str, Any]:
    """Describe a model file: its name, the start of its SHA-256 and the day it was written."""
    data = path.read_bytes()
    day = datetime.datetime.fromtimestamp(path.stat().st_mtime, datetime.UTC).date()
    return {
        "file": path.name,
        "sha256": hashlib.sha256(data).hexdigest()[:12],
        "date": day.isoformat(),
    }


def describe_models(detector: Any) -> dict[str, Any]:
    """Describe the localiser (or detector) and the face reader that run."""
    info: dict[str, Any] = {}
    path = getattr(detector, "model_path", None)
    if path is not None and Path(path).is_file():
        info["localiser"] = model_file(Path(path))
    reader = getattr(detector, "faces", None)
    reader_path = getattr(reader, "model_path", None) if reader is not None else None
    info["faces"] = model_file(Path(reader_path)) if reader_path else "off"
    scale = getattr(detector, "scale", None)
    if scale is not None:
        info["scale"] = scale
    return info


def _models_line(info: dict[str, Any]) -> str:
    """Say which models ran, in one line."""
    words = []
    for key in ("localiser", "faces"):
        value = info.get(key)
        if isinstance(value, dict):
            words.append(f"{value['file']} ({value['date']}, sha256 {value['sha256']})")
        elif value:
            words.append(f"{key} {value}")
    if "scale" in info:
        words.append(f"scale {info['scale']}")
    return ", ".join(words)


def _progress(condition: Condition, done: int, total: int, row: ConditionResult | None) -> None:
    """Tell on stderr how far a condition is, and its figures once done."""
    if row is None:
        if sys.stderr.isatty():
            print(f"\rrobustness: {condition.name}: {done}/{total} frames", end="", file=sys.stderr)
        return
    faces = "-" if row.die_faces is None else f"{row.die_faces:.3f}"
    end = "\r" if sys.stderr.isatty() else ""
    print(
        f"{end}robustness: {condition.name}: {total} frames, die faces {faces}, "
        f"{row.seconds:.0f} s",
        file=sys.stderr,
        flush=True,
    )


def _conf(args: argparse.Namespace) -> float:
    """Return --conf, else the command's default (as the detector options give it)."""
    conf = getattr(args, "conf", None)
    return float(conf) if conf is not None else float(getattr(args, "default_conf", 0.25))


def _fitter(detector: Any) -> Any:
    """Return how each condition's frames set the localiser's scale, as `eval` does, if it can."""
    from templecam.commands import detect

    fit_to_images = getattr(detect, "fit_to_images", None)
    if fit_to_images is None:
        return None
    first = int(getattr(detect, "FIT_IMAGES", 3))

    def fit(condition: Condition, images: Any) -> Any:
        return fit_to_images(detector, list(images[:first]), quiet=True)

    return fit


def run_robustness(args: argparse.Namespace) -> int:
    """Render each condition's frames, score the models on them and print the table."""
    from models.synth.robustness import render_condition
    from vision.bench.robustness import find_conditions, format_table, run_robustness

    if args.frames < 1:
        raise UserError("--frames must be at least 1")
    width, height = _size(args.size)
    try:
        conditions = find_conditions(args.only or ())
    except ValueError as error:
        raise UserError(str(error)) from None
    detector = open_detector(args)
    info = describe_models(detector)
    print(f"robustness: {_models_line(info)}", file=sys.stderr)

    def render(condition: Condition, index: int) -> Any:
        return render_condition(condition, args.seed, index, width, height)

    result = run_robustness(
        detector,
        render,
        conditions,
        fit=_fitter(detector),
        frames=args.frames,
        conf=_conf(args),
        seed=args.seed,
        model_info={**info, "size": f"{width}x{height}"},
        progress=_progress,
    )
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    print(
        f"bench robustness: {args.frames} frames a condition, seed {args.seed}, "
        f"conf {_conf(args)}; {_models_line(info)}"
    )
    print(format_table(result, markdown=args.markdown))
    if result.worst:
        print(f"worst: {result.worst} (fewest die faces read right)")
    if result.most_false:
        row = next(r for r in result.conditions if r.name == result.most_false)
        print(f"most false dice: {row.name} ({row.false_dice_per_frame:.2f} a frame)")
    for note in result.notes:
        print(f"note: {note}")
    return 0
