"""`templecam soundtrack`: render templecam's own soundtrack to a WAV file."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from rules.errors import RecordError
from rules.timeline import Timeline, load_timeline
from server.soundtrack import (
    render_soundtrack,
    soundtrack_markers,
    soundtrack_seconds,
    write_wav,
)
from templecam.errors import UserError

MIN_SAMPLE_RATE = 8000
MAX_SAMPLE_RATE = 96000

_DESCRIPTION = """\
Render templecam's own soundtrack for Escape: The Curse of the Temple to a 16-bit mono WAV
file: an introduction, a fanfare at "Escape!", a bed that grows tenser for ten minutes, gong
strikes opening each countdown (one, two, three), drums during the countdowns, a door slam
ending countdowns 1 and 2, and the temple's collapse. The same seed and timeline always give
the same file."""

_EPILOG = """\
A timeline file gives times in seconds on the game clock (after "Escape!"); countdown 3 ends
with the collapse, at game_seconds. The packaged default is:
{timeline}

example:
  templecam soundtrack --out escape.wav"""

_MARKER_LABELS = {
    "start_cue": 'start cue ("Escape!")',
    "gong": "gong {strike} of {n}, countdown {n}",
    "door_slam": "door slam, end of countdown {n}",
    "collapse": "collapse, end of the game",
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `soundtrack` subcommand."""
    parser = subparsers.add_parser(
        "soundtrack",
        help="render templecam's own soundtrack to a WAV file",
        description=_DESCRIPTION,
        epilog=_EPILOG.format(timeline=_timeline_json(load_timeline())),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--out", required=True, metavar="FILE.wav", help="the WAV file to write (replaced whole)"
    )
    parser.add_argument(
        "--timeline",
        metavar="FILE.json",
        help="a timeline file of your own (default: the packaged timeline shown below)",
    )
    parser.add_argument(
        "--sample-rate",
        type=int,
        default=22050,
        metavar="HZ",
        help=f"samples a second, {MIN_SAMPLE_RATE} to {MAX_SAMPLE_RATE} (default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=7,
        help="seed of the random parts (noise, falling stones); default: %(default)s",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Render the soundtrack, write it atomically and say what was written."""
    timeline = _timeline(args.timeline)
    out = _output_path(args.out)
    if not MIN_SAMPLE_RATE <= args.sample_rate <= MAX_SAMPLE_RATE:
        raise UserError(
            f"--sample-rate {args.sample_rate} is out of range: "
            f"give {MIN_SAMPLE_RATE} to {MAX_SAMPLE_RATE} (22050 is plenty)"
        )
    if args.seed < 0:
        raise UserError(f"--seed {args.seed} is negative: give 0 or a positive whole number")
    samples = render_soundtrack(timeline, args.sample_rate, args.seed)
    try:
        write_wav(samples, args.sample_rate, out)
    except OSError as error:
        raise UserError(
            f"cannot write {out}: {error.strerror or error}; choose a file in a folder you can "
            "write to"
        ) from None
    seconds = soundtrack_seconds(timeline)
    print(f"wrote {out}: {seconds:.1f} s, {args.sample_rate} Hz, 16-bit mono WAV")
    print("  audio     game clock  sound")
    for line in _marker_lines(timeline):
        print(f"  {line}")
    return 0


def _timeline(path: str | None) -> Timeline:
    """Load the user's timeline (or the default), as a `UserError` when it is not usable."""
    try:
        return load_timeline(path)
    except RecordError as error:
        raise UserError(f"bad --timeline: {error}") from None
    except OSError as error:
        raise UserError(
            f"cannot read --timeline {path}: {error.strerror or error}; give a timeline JSON file"
        ) from None


def _output_path(value: str) -> Path:
    """Check --out before the render starts, so that a mistake is reported at once."""
    out = Path(value).expanduser()
    if out.suffix.lower() != ".wav":
        raise UserError(f"--out {value}: the file name must end in .wav (it is a WAV file)")
    if out.is_dir():
        raise UserError(f"--out {value} is a folder: give a file name, e.g. {out / 'escape.wav'}")
    folder = out.parent
    if not folder.is_dir():
        raise UserError(f"--out {value}: the folder {folder} does not exist; create it first")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UserError(f"--out {value}: the folder {folder} is not writable; choose another")
    return out


def _clock(seconds: float) -> str:
    """Format seconds as m:ss.ss (negative in the introduction)."""
    sign = "-" if seconds < 0 else ""
    minutes, rest = divmod(round(abs(seconds), 2), 60)
    return f"{sign}{int(minutes)}:{rest:05.2f}"


def _marker_lines(timeline: Timeline) -> list[str]:
    """Describe each designed sound: its audio time, game-clock time and what it is."""
    lines = []
    strikes: dict[int | None, int] = {}
    for marker in soundtrack_markers(timeline):
        strikes[marker.countdown] = strikes.get(marker.countdown, 0) + 1
        label = _MARKER_LABELS[marker.kind].format(
            n=marker.countdown, strike=strikes[marker.countdown]
        )
        game = timeline.game_clock(marker.seconds)
        lines.append(f"{_clock(marker.seconds):9} {_clock(game):11} {label}")
    return lines


def _timeline_json(timeline: Timeline) -> str:
    """Show a timeline as its JSON file, one countdown a line."""
    data = timeline.to_json()
    countdowns = ",\n".join(f"    {json.dumps(c)}" for c in data.pop("countdowns"))
    head = json.dumps(data)[1:-1]
    return f'  {{{head},\n   "countdowns": [\n{countdowns}]}}'
