"""`templecam bench vision`: time the detector per 1080p frame under several settings."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from templecam.commands.detect import resolve_model
from templecam.errors import UserError

if TYPE_CHECKING:
    from vision.bench.speed import BenchResult

_DESCRIPTION = """\
Time the localiser and face reader (ONNX Runtime, CPU) on 1080p frames and print the median
milliseconds per frame for each setting. Without images, renders --frames synthetic table
frames first. A setting is `key=value` words of conf scale threads spin faces second_look
turns iou max_det: scale=auto (the default) sets the localiser's resize from the dice found in the
frames, as the dashboard does from the calibration; scale=0.75 fixes it. (A YOLO --model, the
early baseline, takes its own words: conf iou tile overlap whole imgsz threads batch spin
max_det agnostic.)"""

_EPILOG = """\
examples:
  templecam bench vision
  templecam bench vision --setting "scale=auto" --setting "scale=0.75 faces=off" --json
  templecam bench vision frames/*.jpg --model runs/best.onnx --repeats 5"""


def register_vision(targets: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `vision` target to `templecam bench`."""
    parser = targets.add_parser(
        "vision",
        help="time the localiser and face reader per frame under several settings",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("images", nargs="*", metavar="IMAGE", help="frames to time on")
    parser.add_argument(
        "--model",
        metavar="M",
        help="localiser model: an .onnx file, or auto (the shipped localiser's int8 copy), int8 "
        "or float (default: auto)",
    )
    parser.add_argument(
        "--frames", type=int, default=4, help="frames to render without images (default: 4)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the rendered frames (0)")
    parser.add_argument(
        "--setting",
        action="append",
        metavar="S",
        help='a setting to time, e.g. "scale=0.75 threads=2" (repeatable; default: a sweep)',
    )
    parser.add_argument("--repeats", type=int, default=3, help="runs per frame (default: 3)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per setting")
    parser.set_defaults(run=run_vision)


def _line(result: BenchResult) -> str:
    """Format one setting's figures."""
    if result.error:
        return f"{result.setting:<40} skipped: {result.error}"
    return (
        f"{result.setting:<40} median {result.ms_median:7.1f} ms  p90 {result.ms_p90:7.1f}  "
        f"min {result.ms_min:7.1f}  ({result.inputs} inputs, {result.threads} threads, "
        f"{result.detections:.0f} detections)"
    )


def run_vision(args: argparse.Namespace) -> int:
    """Time the detector under each setting and print the medians."""
    import cv2

    from models.synth.frame import render_frames
    from vision.bench.speed import BASELINE_SETTINGS, LOCALISER_SETTINGS, run_vision_benchmark
    from vision.perception.detector import DetectorSettings
    from vision.perception.localiser import LocaliserSettings
    from vision.perception.model_contract import is_localiser

    if args.frames < 1 or args.repeats < 1:
        raise UserError("--frames and --repeats must be at least 1")
    model = resolve_model(args.model)
    localiser = is_localiser(model)
    settings = args.setting or list(LOCALISER_SETTINGS if localiser else BASELINE_SETTINGS)
    kind = LocaliserSettings if localiser else DetectorSettings
    try:
        parsed = [kind.parse(s) for s in settings]
    except ValueError as error:
        raise UserError(f"--setting: {error}") from None
    if args.images:
        images = []
        for path in args.images:
            image = cv2.imread(path, cv2.IMREAD_COLOR)
            if image is None:
                raise UserError(f"cannot read image {path}")
            images.append(image)
    else:
        frames = "frame" if args.frames == 1 else "frames"
        print(f"bench vision: rendering {args.frames} 1080p {frames}", file=sys.stderr)
        images = render_frames(args.frames, args.seed)
    height, width = images[0].shape[:2]
    if not args.json:
        frames = "frame" if len(images) == 1 else "frames"
        print(
            f"bench vision: {model}, {len(images)} {frames} of {width}x{height}, "
            f"{args.repeats} runs each"
        )

    def report(result: BenchResult) -> None:
        print(json.dumps(result.to_json()) if args.json else _line(result), flush=True)

    run_vision_benchmark(model, images, parsed, args.repeats, progress=report)
    return 0
