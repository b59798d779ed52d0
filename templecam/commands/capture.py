"""`templecam capture`: save camera frames as numbered JPEG files (for teaching or labelling)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from templecam.errors import UserError

_DESCRIPTION = """\
Save frames of a camera as JPEG files DIR/0001.jpg, DIR/0002.jpg, ..., one every --every
seconds, --frames of them. The source is anything the dashboard takes: a webcam number or
/dev/video device, a stream URL, a video file (then --every counts the video's own seconds,
read as fast as it decodes) or an image folder (each image is one frame). Without --source the
first working webcam is used. A DIR that already holds frames is added to: numbering goes on
after the highest, nothing is overwritten. Each file appears whole or not at all.

If the camera stops mid-capture, or the disk fills up, the frames saved so far are kept and
the command exits with status 2 saying so."""

_EPILOG = """\
examples:
  templecam capture --out ~/dice/key --frames 3 --every 2
  templecam capture --source /dev/video2 --out ~/shots
  templecam capture --source game.mp4 --out ~/shots --every 5 --frames 0   # the whole video
  templecam capture --source rtsp://phone:8554/live --out ~/shots"""


def _seconds(text: str) -> float:
    """Parse a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: give a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text}: give a positive number of seconds")
    return value


def _count(text: str) -> int:
    """Parse a whole number of 0 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: give a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text}: give 0 (no limit) or more")
    return value


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `capture` subcommand."""
    parser = subparsers.add_parser(
        "capture",
        help="save camera (or video, folder, stream) frames as JPEG files",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="folder for the JPEG files")
    parser.add_argument(
        "--source",
        metavar="S",
        help="webcam number, /dev/video device, stream URL, video file or image folder "
        "(default: the first working webcam)",
    )
    parser.add_argument(
        "--every",
        type=_seconds,
        default=1.0,
        metavar="S",
        help="seconds between saved frames (default: %(default)s)",
    )
    parser.add_argument(
        "--frames",
        type=_count,
        default=10,
        metavar="N",
        help="how many frames to save, 0 for no limit (default: %(default)s)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Capture; print one line per saved frame; exit 2 when the camera or the disk fails."""
    from vision.sources.save_frames import CaptureError, Saved, capture_frames, capture_source

    out = Path(args.out).expanduser()
    total = "" if args.frames == 0 else f"/{args.frames}"

    saved: list[Path] = []

    def progress(frame: Saved) -> None:
        saved.append(frame.path)
        print(
            f"saved {frame.path} ({frame.count}{total}, {frame.width}x{frame.height})", flush=True
        )

    try:
        source = capture_source(args.source, args.every)
        print(f"capturing from {source.description} into {out}", flush=True)
        result = capture_frames(
            source,
            out,
            every=args.every,
            frames=args.frames,
            on_saved=progress,
        )
    except CaptureError as error:
        raise UserError(str(error)) from None
    except KeyboardInterrupt:
        print(f"stopped: {_summary(saved, out)}", file=sys.stderr)
        return 0 if args.frames == 0 else 130
    if result.ended and args.frames:
        print(f"{result.ended} (asked for {args.frames})")
    print(_summary(result.saved, out))
    return 0


def _summary(saved: list[Path], out: Path) -> str:
    """Say how many frames were saved where."""
    if not saved:
        return f"no frame saved in {out}"
    noun = "frame" if len(saved) == 1 else "frames"
    return f"{len(saved)} {noun} saved in {out} ({saved[0].name} to {saved[-1].name})"
