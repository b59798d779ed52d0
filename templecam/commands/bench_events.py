"""`templecam bench events`: the whole pipeline on a rendered game video, against its record."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from templecam.errors import UserError

_DESCRIPTION = """\
Play a rendered game video in real time through the camera grabber, the detector (with motion
gating), the scene, stability and event stages, as the dashboard would (annotated JPEG frames
encoded too, unless --no-stream), and score the events against the video's true game record:
share of true events recovered with the right player, cell and values, spurious events per
minute, latency from "at rest" to the event (p50, p95), frames dropped and memory over time.
Render a video with `templecam synth --game --out DIR`."""

_EPILOG = """\
examples:
  templecam bench events runs/game-5p
  templecam bench events runs/game-5p runs/game-2p --json"""


def register_events(targets: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `events` target to `templecam bench`."""
    parser = targets.add_parser(
        "events",
        help="score the whole vision pipeline on rendered game videos",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("videos", nargs="+", type=Path, metavar="DIR", help="game-video folders")
    parser.add_argument("--model", type=Path, help="detector model (.onnx; default: shipped)")
    parser.add_argument(
        "--no-stream", action="store_true", help="do not annotate and encode frames"
    )
    parser.add_argument(
        "--every-frame",
        action="store_true",
        help="process every frame however long it takes (accuracy without the speed limit)",
    )
    parser.add_argument(
        "--from-truth",
        action="store_true",
        help="feed the stability and event stages the renderer's true observations "
        "(frames.jsonl) instead of the camera and the detector: scores those stages alone",
    )
    parser.add_argument(
        "--no-gate",
        action="store_true",
        help="detect every processed frame whole (no motion gating): what the gate saves",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object per video")
    parser.set_defaults(run=run_events)


def run_events(args: argparse.Namespace) -> int:
    """Run the pipeline over each video and print its score."""
    from calibration.table import CalibrationError
    from vision.bench_events import (
        GameVideo,
        GameVideoError,
        run_game_video,
        run_truth_observations,
    )
    from vision.detector import ModelError
    from vision.models import live_detector

    try:
        detector, note = live_detector(args.model)
        path = detector.model_path
    except ModelError as error:
        raise UserError(str(error)) from None
    if note and not args.json:
        print(f"note: {note}", file=sys.stderr)
    for folder in args.videos:
        try:
            video = GameVideo.load(folder)
        except (GameVideoError, CalibrationError) as error:
            raise UserError(str(error)) from None
        if not args.json:
            print(f"{folder}: {len(video.setup['players'])} players, {len(video.events)} events")

        def progress(share: float) -> None:
            if not args.json:
                done = round(share * 30)
                print(f"\r  [{'#' * done}{'.' * (30 - done)}] {share:4.0%}", end="", flush=True)

        if args.from_truth:
            truth = Path(folder) / "frames.jsonl"
            if not truth.is_file():
                raise UserError(f"{folder} has no frames.jsonl: render it with templecam synth")
            figures = {"video": str(folder), "mode": "true observations"}
            figures.update(run_truth_observations(video, truth).to_json())
            print(json.dumps(figures) if args.json else f"  {figures}")
            continue
        result = run_game_video(
            video,
            detector,
            stream_video=not args.no_stream,
            realtime=not args.every_frame,
            gate=not args.no_gate,
            progress=progress,
        )
        figures = {
            "video": str(folder),
            "model": path.name,
            "mode": ("every frame" if args.every_frame else "real time")
            + (", no motion gate" if args.no_gate else ""),
            **result.to_json(),
        }
        if args.json:
            print(json.dumps(figures))
            continue
        print()
        print(
            f"  events recovered {figures['recovered']}/{figures['true_events']} "
            f"({figures['recovered_share']:.1%}), spurious {figures['spurious']} "
            f"({figures['spurious_per_minute']}/min)"
        )
        print(
            f"  latency of changes p50 {figures['latency_ms_p50']} ms, "
            f"p95 {figures['latency_ms_p95']} ms (after a {figures['warmup_s']} s warm-up; "
            f"p95 {figures['latency_ms_p95_with_warmup']} ms with it); "
            f"pipeline median {figures['pipeline_ms_median']} ms/frame"
        )
        print(
            f"  frames grabbed {figures['frames_grabbed']}, processed "
            f"{figures['frames_processed']}, dropped {figures['frames_dropped']}; memory "
            f"{figures['memory_mb_first']} -> {figures['memory_mb_last']} MB "
            f"(max {figures['memory_mb_max']})"
        )
        if figures["missed_by_type"]:
            print(f"  missed: {figures['missed_by_type']}")
    return 0
