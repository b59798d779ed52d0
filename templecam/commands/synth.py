"""`templecam synth`: render synthetic overhead frames of a game table as a YOLO dataset."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from models.synth.settings import SynthSettings
from templecam.errors import UserError
from vision.perception.classes import DETECTION_NAMES

if TYPE_CHECKING:
    from models.synth.dataset import DatasetPlan
    from models.synth.game_video import GamePlan

MIN_SIZE = (160, 120)
MAX_SIZE = (7680, 4320)
MAX_PLAYERS = 6
GAME_SECONDS = (1.0, 600.0)
GAME_FPS = (1.0, 60.0)
MAX_NOISE = 0.1

_DESCRIPTION = """\
Render synthetic overhead webcam frames of an Escape: The Curse of the Temple table (player
zones with rolling dice, a growing temple of chamber tiles, gems, figures, hands, clutter,
random lighting and camera) as an Ultralytics dataset: images/, labels/ (YOLO boxes),
data.yaml, and scenes/ with each frame's ground truth as JSON. The same seed and arguments
give the same files; frame i depends only on (seed, i), so an interrupted run resumes.

With --game it renders instead a video of a game in progress (a fixed camera; players roll,
discover chambers, move and activate gems at the same time) with its ground truth: game.mp4,
record.jsonl (the game record: setup line, then every event with "t" = the video second at
which it is complete and at rest, each one accepted by the rules engine), calibration.json
(the camera's table calibration), truth.json (the temple grid) and frames.jsonl (what is true
in every frame)."""

_EPILOG = """\
classes: {classes}

examples:
  templecam synth --out ~/datasets/synth --frames 2000
  templecam synth --out ~/datasets/synth-hard --frames 300 --seed 1 --hard --val-fraction 1
  templecam synth --game --players 4 --seconds 60 --fps 10 --out ~/videos/game1"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `synth` subcommand."""
    parser = subparsers.add_parser(
        "synth",
        help="render a synthetic table dataset for training the detector",
        description=_DESCRIPTION,
        epilog=_EPILOG.format(classes=", ".join(DETECTION_NAMES)),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="dataset folder (new, empty, or an earlier synth dataset)",
    )
    parser.add_argument(
        "--frames", type=int, default=200, help="frames to render (default: %(default)s)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="random seed, 0 or more (default: %(default)s)"
    )
    parser.add_argument(
        "--width", type=int, default=1920, help="image width in px (default: %(default)s)"
    )
    parser.add_argument(
        "--height", type=int, default=1080, help="image height in px (default: %(default)s)"
    )
    parser.add_argument(
        "--val-fraction",
        type=float,
        default=0.2,
        metavar="F",
        help="share of frames in the val split, 0 to 1 (default: %(default)s)",
    )
    parser.add_argument(
        "--hard",
        action="store_true",
        help="harder frames for held-out evaluation: more blur, occlusion and lighting change",
    )
    parser.add_argument(
        "--look",
        choices=("standard", "held_out"),
        default="standard",
        help="held_out: dice of a look training never sees (cherry wood, another maker's "
        "print colours, a low sun), to measure robustness (default: standard)",
    )
    parser.add_argument(
        "--tile-mm",
        type=float,
        default=100.0,
        help="chamber tile edge in mm (default: %(default)s)",
    )
    parser.add_argument(
        "--die-mm", type=float, default=16.0, help="die edge in mm (default: %(default)s)"
    )
    game = parser.add_argument_group("game video (--game)")
    game.add_argument(
        "--game",
        action="store_true",
        help="render a video of a game in progress with its game record, not a dataset",
    )
    game.add_argument(
        "--players",
        type=int,
        default=4,
        help=f"players at the table, 1 to {MAX_PLAYERS} (default: %(default)s)",
    )
    game.add_argument(
        "--seconds", type=float, default=30.0, help="video length (default: %(default)s)"
    )
    game.add_argument(
        "--fps", type=float, default=10.0, help="video frames a second (default: %(default)s)"
    )
    game.add_argument(
        "--noise",
        type=float,
        default=0.008,
        help="sensor noise in each frame, 0 to 0.1 of full scale (default: %(default)s)",
    )
    parser.set_defaults(run=run)


def _plan(args: argparse.Namespace) -> DatasetPlan:
    """Check the arguments; return what to render."""
    # The renderer (numpy, OpenCV) loads only when the command runs, not for `templecam --help`.
    from models.synth.dataset import MANIFEST, DatasetPlan

    if args.frames < 1:
        raise UserError(f"--frames {args.frames}: give 1 or more frames")
    _check_common(args)
    if not 0.0 <= args.val_fraction <= 1.0:
        raise UserError(f"--val-fraction {args.val_fraction}: give a fraction from 0 to 1")
    out = Path(args.out).expanduser()
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {args.out} is a file: give a folder for the dataset")
    if out.is_dir() and any(out.iterdir()) and not (out / MANIFEST).is_file():
        raise UserError(
            f"--out {args.out} is not empty and is not a templecam synth dataset: give a new or "
            "empty folder (templecam never writes into a folder it did not make)"
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"cannot create --out {args.out}: {error.strerror or error}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise UserError(f"--out {args.out} is not writable: choose a folder you can write to")
    settings = SynthSettings(
        width=args.width,
        height=args.height,
        hard=args.hard,
        look=args.look,
        die_mm=args.die_mm,
        tile_mm=args.tile_mm,
    )
    return DatasetPlan(out, settings, args.seed, args.frames, args.val_fraction)


class _Progress:
    """Plain-text progress on stderr: frames done, frames a second, time left."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.tty = sys.stderr.isatty()
        self.shown = -1

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.perf_counter() - self.start
        rate = done / elapsed if elapsed > 0 else 0.0
        left = (total - done) / rate if rate > 0 else 0.0
        line = f"synth: {done}/{total} frames, {rate:.2f} frames/s, {left:.0f} s left"
        if self.tty:
            print(f"\r{line}   ", end="" if done < total else "\n", file=sys.stderr, flush=True)
        elif done == total or done * 10 // total > self.shown:
            self.shown = done * 10 // total
            print(line, file=sys.stderr, flush=True)


def _check_common(args: argparse.Namespace) -> None:
    """Check the arguments datasets and game videos share."""
    if args.seed < 0:
        raise UserError(f"--seed {args.seed} is negative: give 0 or a positive whole number")
    if not (MIN_SIZE[0] <= args.width <= MAX_SIZE[0] and MIN_SIZE[1] <= args.height <= MAX_SIZE[1]):
        raise UserError(
            f"--width {args.width} --height {args.height}: give {MIN_SIZE[0]}x{MIN_SIZE[1]} "
            f"to {MAX_SIZE[0]}x{MAX_SIZE[1]} pixels"
        )
    if not 40.0 <= args.tile_mm <= 250.0:
        raise UserError(f"--tile-mm {args.tile_mm}: give a tile edge from 40 to 250 mm")
    if not 8.0 <= args.die_mm <= 30.0:
        raise UserError(f"--die-mm {args.die_mm}: give a die edge from 8 to 30 mm")


def _game_plan(args: argparse.Namespace) -> GamePlan:
    """Check the arguments of --game; return what to render."""
    from models.synth.game_video import FORMAT, OUTPUTS, TRUTH, GamePlan

    _check_common(args)
    if args.hard:
        raise UserError("--hard is for datasets: leave it out with --game")
    if not 1 <= args.players <= MAX_PLAYERS:
        raise UserError(f"--players {args.players}: give 1 to {MAX_PLAYERS} players")
    low, high = GAME_SECONDS
    if not low <= args.seconds <= high:
        raise UserError(f"--seconds {args.seconds:g}: give a video length from {low:g} to {high:g}")
    low, high = GAME_FPS
    if not low <= args.fps <= high:
        raise UserError(f"--fps {args.fps:g}: give {low:g} to {high:g} frames a second")
    if not 0.0 <= args.noise <= MAX_NOISE:
        raise UserError(f"--noise {args.noise:g}: give 0 to {MAX_NOISE:g} (0.008 is a webcam)")
    out = Path(args.out).expanduser()
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {args.out} is a file: give a folder for the game video")
    if out.is_dir():
        ours = _is_game_folder(out / TRUTH, FORMAT)
        foreign = [p.name for p in out.iterdir() if p.name not in OUTPUTS]
        if (any(out.iterdir()) and not ours) or foreign:
            raise UserError(
                f"--out {args.out} is not empty and is not an earlier game video: give a new or "
                "empty folder (templecam never writes into a folder it did not make)"
            )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"cannot create --out {args.out}: {error.strerror or error}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise UserError(f"--out {args.out} is not writable: choose a folder you can write to")
    settings = SynthSettings(
        width=args.width, height=args.height, die_mm=args.die_mm, tile_mm=args.tile_mm
    )
    return GamePlan(
        out, settings, args.players, args.seconds, args.fps, args.seed, noise=args.noise
    )


def _is_game_folder(truth: Path, expected: str) -> bool:
    """Tell whether `truth` is the truth file of an earlier game video."""
    try:
        return json.loads(truth.read_text("utf-8")).get("format") == expected
    except (OSError, ValueError, AttributeError):
        return False


def run_game(args: argparse.Namespace) -> int:
    """Render a game video with its record, calibration and truth; say what was made."""
    from models.synth.game_video import GameVideoError, render_game

    plan = _game_plan(args)
    try:
        stats = render_game(plan, _Progress())
    except GameVideoError as error:
        raise UserError(f"--seed {args.seed}: {error}") from None
    except OSError as error:
        raise UserError(f"cannot write to --out {args.out}: {error.strerror or error}") from None
    print(
        f"wrote a {stats.frames / plan.fps:g} s game video ({stats.frames} frames, "
        f"{stats.events} events) to {plan.out}: game.mp4, record.jsonl, calibration.json, "
        f"truth.json, frames.jsonl; {stats.fps:.2f} frames/s, {stats.painted} frames painted, "
        f"{stats.backgrounds} backgrounds rendered"
    )
    return 0


def run(args: argparse.Namespace) -> int:
    """Render the dataset (resuming an earlier run with the same settings) and say what was made."""
    if getattr(args, "game", False):
        return run_game(args)
    from models.synth.dataset import DatasetError, generate

    plan = _plan(args)
    progress = _Progress()
    try:
        rendered = generate(plan, progress)
    except DatasetError as error:
        raise UserError(f"--out {args.out}: {error}") from None
    except OSError as error:
        raise UserError(f"cannot write to --out {args.out}: {error.strerror or error}") from None
    skipped = plan.frames - len(rendered)
    note = f" ({skipped} already there)" if skipped else ""
    frames = "frame" if len(rendered) == 1 else "frames"
    print(
        f"wrote {len(rendered)} {frames}{note} to {plan.out}; data.yaml: {plan.out / 'data.yaml'}"
    )
    return 0
