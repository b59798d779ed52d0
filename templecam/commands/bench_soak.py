"""`templecam bench soak`: a game video looped as a live camera for minutes; memory and lag."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from templecam.errors import UserError

_DESCRIPTION = """\
Play a rendered game video looped, in real time, through the camera grabber as a live camera
for --minutes, through the pipeline the dashboard runs (detector with motion gating, scene,
stability, events into a rules engine; annotated JPEG frames encoded too, unless --no-stream).
Every --every seconds it notes memory (RSS), frames grabbed, processed and dropped, the time
per processed frame (median, p95) and the age of the frame being processed (now - grab time:
the queueing latency, which must not grow). At the end: a table per interval and a verdict,
memory and frame age in the first interval against the last, and frames processed per second.
Render a video with `templecam synth --game --fps 30 --out DIR`."""

_EPILOG = """\
examples:
  templecam bench soak runs/game-2p
  templecam bench soak runs/game-2p --minutes 1 --every 10 --no-stream --json"""


def register_soak(targets: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `soak` target to `templecam bench`."""
    parser = targets.add_parser(
        "soak",
        help="run the live pipeline on a looped game video for minutes; memory and lag",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("video", type=Path, metavar="DIR", help="game-video folder")
    parser.add_argument("--minutes", type=float, default=10.0, help="how long to run (10)")
    parser.add_argument(
        "--every", type=float, default=30.0, help="seconds between measurements (30)"
    )
    parser.add_argument(
        "--model",
        type=Path,
        help="localiser model: an .onnx file, or auto (the shipped localiser's int8 copy), int8 "
        "or float (default: auto)",
    )
    parser.add_argument(
        "--no-stream", action="store_true", help="do not annotate and encode frames"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.set_defaults(run=run_soak_command)


def run_soak_command(args: argparse.Namespace) -> int:
    """Run the soak and print its table and verdict (or its JSON)."""
    from calibration.table import CalibrationError
    from vision.bench.events import GameVideo, GameVideoError
    from vision.bench.soak import SoakError, format_report, run_soak
    from vision.perception.detector import ModelError
    from vision.perception.models import live_detector
    from vision.sources.base import SourceError

    if not (math.isfinite(args.minutes) and args.minutes > 0):
        raise UserError(f"--minutes must be a positive number, got {args.minutes:g}: try 10")
    if not (math.isfinite(args.every) and args.every > 0):
        raise UserError(f"--every must be a positive number of seconds, got {args.every:g}: try 30")
    if not args.video.is_dir():
        raise UserError(
            f"no folder {args.video}: give a game-video folder, rendered with "
            "`templecam synth --game --fps 30 --out DIR`"
        )
    try:
        video = GameVideo.load(args.video)
    except (GameVideoError, CalibrationError) as error:
        raise UserError(str(error)) from None
    try:
        detector, note = live_detector(args.model)
    except ModelError as error:
        raise UserError(str(error)) from None
    if note and not args.json:
        print(f"note: {note}", file=sys.stderr)
    if not args.json:
        print(
            f"bench soak: {args.video}, {len(video.setup['players'])} players, "
            f"{args.minutes:g} min, every {args.every:g} s, model {detector.model_path.name}"
            + ("" if args.no_stream else ", annotated stream encoded")
        )

    def progress(share: float) -> None:
        if not args.json:
            done = round(share * 30)
            print(f"\r  [{'#' * done}{'.' * (30 - done)}] {share:4.0%}", end="", flush=True)

    try:
        result = run_soak(
            video,
            detector,
            seconds=args.minutes * 60,
            every=args.every,
            stream_video=not args.no_stream,
            progress=progress,
        )
    except (SoakError, SourceError) as error:
        raise UserError(str(error)) from None
    if args.json:
        print(json.dumps({"model": detector.model_path.name, **result.to_json()}))
        return 0
    print()
    print(format_report(result))
    return 0
