"""`templecam bench events`: the whole pipeline on rendered game videos, against their records."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from templecam.errors import UserError

_DESCRIPTION = """\
Play rendered game videos in real time through the camera grabber, the localiser and face
reader (with motion gating), the scene, stability and event stages, as the dashboard would
(annotated JPEG frames encoded too, unless --no-stream), and score the events against each
video's true game record: the share of true events recovered with the right player, cell and
values, per type (rolls, discoveries, moves, activations, unlocks), whole rolls (rolls with
every die read right), spurious events per minute (an event the camera corrects later counts
as spurious), latency from "at rest" to the event (p50, p95), frames dropped and memory over
time; then the worst game and the spread.

The games are folders (`templecam synth --game --out DIR`) or, with --seeds N, N fresh games
that this command renders first with the same renderer (--first-seed, --players, --seconds,
--fps, --size; kept in --games-dir and reused when run again). The localiser's input scale
follows each video's calibration (its die size in px), unless --scale or --localiser fixes it."""

_EPILOG = """\
examples:
  templecam bench events runs/game-5p
  templecam bench events runs/game-5p runs/game-2p --json
  templecam bench events --seeds 5 --players 5 --seconds 30 --fps 10
  templecam bench events --seeds 5 --size 1280x720 --scale 0.75
  templecam bench events --seeds 5 --from-truth       # the event stages alone"""

FIRST_SEED = 9001
"""The first seed --seeds renders (seeds that neither training nor the stages were tuned on)."""


def _size(text: str) -> tuple[int, int]:
    """Read a frame size written WIDTHxHEIGHT."""
    width, sep, height = text.lower().partition("x")
    try:
        size = (int(width), int(height))
    except ValueError:
        size = (0, 0)
    if not sep or not (160 <= size[0] <= 7680 and 120 <= size[1] <= 4320):
        raise argparse.ArgumentTypeError(f"{text!r}: give WIDTHxHEIGHT, such as 1280x720")
    return size


def register_events(targets: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `events` target to `templecam bench`."""
    parser = targets.add_parser(
        "events",
        help="score the whole vision pipeline on rendered game videos",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("videos", nargs="*", type=Path, metavar="DIR", help="game-video folders")
    fresh = parser.add_argument_group("fresh games (--seeds)")
    fresh.add_argument("--seeds", type=int, metavar="N", help="render and score N fresh games")
    fresh.add_argument(
        "--first-seed",
        type=int,
        default=FIRST_SEED,
        help="the first of the N seeds (default: %(default)s)",
    )
    fresh.add_argument("--players", type=int, default=5, help="players (default: %(default)s)")
    fresh.add_argument(
        "--seconds", type=float, default=30.0, help="video length (default: %(default)s)"
    )
    fresh.add_argument("--fps", type=float, default=10.0, help="frames a second (default: 10)")
    fresh.add_argument(
        "--size",
        type=_size,
        action="append",
        metavar="WxH",
        help="frame size, repeatable: every seed at each size (default: 1920x1080)",
    )
    fresh.add_argument(
        "--games-dir",
        type=Path,
        help="where the rendered games are kept (default: bench-games in the data folder)",
    )
    pipeline = parser.add_argument_group("localiser and face reader")
    pipeline.add_argument(
        "--model",
        type=Path,
        help="localiser model: an .onnx file, or auto (the shipped localiser's int8 copy), int8 "
        "or float (default: auto)",
    )
    pipeline.add_argument(
        "--faces",
        metavar="float|M",
        help="face reader: float (the shipped reader itself, not its int8 copy) or a reader "
        ".onnx (default: the shipped reader's int8 copy)",
    )
    pipeline.add_argument(
        "--scale",
        metavar="auto|X",
        help="resize of the frames before the localiser: auto follows the calibration's die "
        "size (default: auto)",
    )
    pipeline.add_argument(
        "--localiser",
        metavar="WORDS",
        default="",
        help='localiser settings as key=value words, e.g. "scale=0.75 threads=2"',
    )
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
    parser.add_argument(
        "--json", action="store_true", help="one JSON object per video, then the summary"
    )
    parser.set_defaults(run=run_events)


def fresh_games(args: argparse.Namespace) -> list[Path]:
    """Render (or find, rendered before) the --seeds games; return their folders."""
    from base.paths import data_dir
    from models.synth.game_video import GamePlan, GameVideoError, render_game
    from models.synth.settings import SynthSettings

    if args.seeds < 1 or not 1 <= args.players <= 6:
        raise UserError("--seeds takes 1 or more, --players 1 to 6")
    root = (args.games_dir or data_dir() / "bench-games").expanduser()
    folders = []
    for width, height in args.size or [(1920, 1080)]:
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            name = f"seed{seed}-{width}x{height}-{args.players}p-{args.seconds:g}s-{args.fps:g}fps"
            out = root / name
            done = all((out / f).is_file() for f in ("game.mp4", "record.jsonl", "frames.jsonl"))
            if not done:
                if not args.json:
                    print(f"rendering {name}", file=sys.stderr, flush=True)
                plan = GamePlan(
                    out,
                    SynthSettings(width=width, height=height),
                    args.players,
                    args.seconds,
                    args.fps,
                    seed,
                )
                try:
                    render_game(plan)
                except GameVideoError as error:
                    raise UserError(f"seed {seed}: {error}") from None
                except OSError as error:
                    raise UserError(f"cannot write {out}: {error.strerror or error}") from None
            folders.append(out)
    return folders


def _words(args: argparse.Namespace) -> str:
    """Return the localiser's settings words of --localiser and --scale."""
    words = args.localiser or ""
    if args.scale is not None and args.scale.lower() != "auto":
        words = f"{words} scale={args.scale}"
    return words.strip()


def run_events(args: argparse.Namespace) -> int:
    """Run the pipeline over each video, print its score, then the worst and the spread."""
    from calibration.table import CalibrationError
    from vision.bench.events import (
        GameVideo,
        GameVideoError,
        run_game_video,
        run_truth_observations,
        summarise,
    )
    from vision.perception.detector import ModelError
    from vision.perception.models import live_detector

    folders = list(args.videos)
    if args.seeds is not None:
        folders += fresh_games(args)
    if not folders:
        raise UserError("give game-video folders, or --seeds N to render fresh games")
    detector: Any = None
    if not args.from_truth:
        try:
            detector, note = live_detector(args.model, args.faces, _words(args))
        except ModelError as error:
            raise UserError(str(error)) from None
        except ValueError as error:
            raise UserError(f"--localiser/--scale: {error}") from None
        if note and not args.json:
            print(f"note: {note}", file=sys.stderr)
    games: list[dict[str, Any]] = []
    for folder in folders:
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
            figures: dict[str, Any] = {"video": str(folder), "mode": "true observations"}
            figures.update(run_truth_observations(video, truth).to_json())
        else:
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
                "model": detector.model_path.name,
                "mode": ("every frame" if args.every_frame else "real time")
                + (", no motion gate" if args.no_gate else ""),
                **result.to_json(),
            }
            if not args.json:
                print()
        games.append(figures)
        print(json.dumps(figures) if args.json else _describe(figures))
    if len(games) > 1 or args.seeds is not None:
        summary = summarise(games)
        print(json.dumps({"summary": summary}) if args.json else _describe_summary(summary))
    return 0


def _describe(figures: dict[str, Any]) -> str:
    """Return one game's figures as readable lines."""
    kinds = ", ".join(
        f"{kind} {f['recovered']}/{f['true']}"
        for kind, f in figures.get("recovered_by_type", {}).items()
    )
    whole = figures.get("whole_rolls")
    lines = [
        f"  events recovered {figures['recovered']}/{figures['true_events']} "
        f"({figures['recovered_share']:.1%}): {kinds}; spurious {figures['spurious']} "
        f"({figures['spurious_per_minute']}/min) {figures['spurious_by_type'] or ''}",
        f"  whole rolls {'-' if whole is None else f'{whole:.1%}'} "
        f"({figures.get('misread_rolls', 0)} misread); latency of changes p50 "
        f"{figures['latency_ms_p50']} ms, p95 {figures['latency_ms_p95']} ms; "
        f"rejected by the engine {figures['rejected_by_engine']}",
    ]
    late = figures.get("latency_ms_p95_by_type")
    if late:
        lines.append(f"  latency p95 by type: {_by_type_ms(late)}")
    if "frames_grabbed" in figures:
        lines.append(
            f"  localiser scale {figures['localiser_scale']}, frames grabbed "
            f"{figures['frames_grabbed']}, processed {figures['frames_processed']}, dropped "
            f"{figures['frames_dropped']}; pipeline median {figures['pipeline_ms_median']} "
            f"ms/frame; memory {figures['memory_mb_first']} -> {figures['memory_mb_last']} MB"
        )
    return "\n".join(lines)


def _describe_summary(summary: dict[str, Any]) -> str:
    """Return the worst game and the spread as readable lines."""
    lines = [f"{summary['games']} games, the worst game (spread):"]
    names = {
        "recovered_share": ("events recovered", "{:.1%}"),
        "spurious_per_minute": ("spurious a minute", "{:g}"),
        "latency_ms_p95": ("latency p95 ms", "{:g}"),
        "whole_rolls": ("whole rolls", "{:.1%}"),
    }
    for key, (label, form) in names.items():
        if key in summary:
            low, high = summary[key]["spread"]
            worst = form.format(summary[key]["worst"])
            lines.append(f"  {label}: {worst} ({form.format(low)} - {form.format(high)})")
    kinds = ", ".join(f"{k} {v:.1%}" for k, v in summary.get("worst_by_type", {}).items())
    lines.append(f"  worst share recovered by type: {kinds}")
    late = summary.get("worst_latency_ms_p95_by_type")
    if late:
        lines.append(f"  worst latency p95 by type: {_by_type_ms(late)}")
    return "\n".join(lines)


def _by_type_ms(latencies: dict[str, float | None]) -> str:
    """Return per event type latencies (ms) as words: "dice 200 ms, discover 900 ms"."""
    return ", ".join(f"{kind} {ms:g} ms" for kind, ms in latencies.items() if ms is not None)
