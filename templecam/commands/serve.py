"""`templecam serve`: the dashboard and the soundtrack, on http://127.0.0.1:8000 by default."""

from __future__ import annotations

import argparse
import logging
import socket
from pathlib import Path

from base.paths import data_dir
from templecam.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `serve` subcommand."""
    parser = subparsers.add_parser(
        "serve",
        help="start the dashboard (and the soundtrack)",
        description=(
            "Start the local dashboard: set up a game, play the ten-minute soundtrack (through "
            "this computer's speakers, or the browser's), and enter events by clicking (manual "
            "mode) or let the camera enter them (vision). A game interrupted by a crash or Ctrl-C "
            "resumes when the server starts again."
        ),
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (8000)")
    parser.add_argument("--data-dir", type=Path, help="data folder (default: per-user folder)")
    parser.add_argument(
        "--timeline", type=Path, help="your own soundtrack timeline (JSON; see the README)"
    )
    parser.add_argument(
        "--audio-file", type=Path, help="your own soundtrack (WAV) to play instead of ours"
    )
    parser.add_argument(
        "--no-host-audio",
        action="store_true",
        help="never play on this computer's speakers; the browser plays the soundtrack",
    )
    parser.add_argument("--no-resume", action="store_true", help="do not resume the last game")
    camera = parser.add_argument_group("camera")
    camera.add_argument(
        "--camera",
        metavar="SOURCE",
        help="webcam index (0), device (/dev/video2), stream URL, video file or image folder "
        "(default: the first webcam; without one, the bundled demo recording)",
    )
    camera.add_argument(
        "--no-camera", action="store_true", help="manual mode only: no camera, no vision"
    )
    camera.add_argument(
        "--model",
        type=Path,
        help="localiser model: an .onnx file, or auto (the shipped localiser's int8 copy), "
        "int8 or float (the shipped float model); the dice are read by the shipped face reader "
        "or the one taught on /dice (default: auto, or the localiser taught on /dice)",
    )
    camera.add_argument(
        "--scale",
        metavar="auto|X",
        help="resize of the frames before the localiser: auto follows the calibration's die "
        "size (30 px dice: 0.5, a 720p webcam's 20 px dice: 0.75); a number fixes it "
        "(default: auto)",
    )
    camera.add_argument(
        "--localiser",
        metavar="WORDS",
        default="",
        help="localiser settings as key=value words of conf scale threads spin second_look "
        'turns iou max_det, e.g. "scale=0.75 threads=2"',
    )
    camera.add_argument(
        "--calibration",
        type=Path,
        help="table calibration (default: calibration.json in the data folder)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Start uvicorn with the dashboard application."""
    import uvicorn

    from server.app import ServerSettings, create_app
    from server.vision_service import VisionSettings
    from vision.perception.shipped import LOCALISER_CHOICES

    if not 0 < args.port < 65536:
        raise UserError(f"--port must be between 1 and 65535, not {args.port}")
    if args.audio_file is not None and args.timeline is None:
        raise UserError("--audio-file needs --timeline: say when that track's countdowns fall")
    files = [("--timeline", args.timeline), ("--audio-file", args.audio_file)]
    if args.model is not None and str(args.model) not in LOCALISER_CHOICES:
        files.append(("--model", args.model))
    files.append(("--calibration", args.calibration))
    for flag, path in files:
        if path is not None and not path.is_file():
            raise UserError(f"{flag} {path}: no such file")
    settings = ServerSettings(
        data_dir=data_dir(args.data_dir),
        host=args.host,
        port=args.port,
        timeline_path=args.timeline,
        audio_file=args.audio_file,
        host_audio=not args.no_host_audio,
        resume=not args.no_resume,
        vision=None
        if args.no_camera
        else VisionSettings(
            camera=args.camera,
            model=args.model,
            calibration=args.calibration,
            localiser=_localiser_words(args),
        ),
    )
    _check_port_free(args.host, args.port)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        app = create_app(settings)
    except ValueError as error:
        raise UserError(str(error)) from None
    print(f"templecam dashboard: http://{_display_host(args.host)}:{args.port}/", flush=True)
    print(f"data folder: {settings.data_dir}", flush=True)
    # Open dashboard pages hold a live stream; give them a moment, then close them on Ctrl-C.
    uvicorn.run(
        app, host=args.host, port=args.port, log_level="warning", timeout_graceful_shutdown=2
    )
    return 0


def _localiser_words(args: argparse.Namespace) -> str:
    """Return the localiser's settings words of --localiser and --scale, checked."""
    from vision.perception.localiser import LocaliserSettings

    words = args.localiser or ""
    if args.scale is not None and args.scale.lower() != "auto":
        words = f"{words} scale={args.scale}"
    try:
        LocaliserSettings.parse(words)
    except ValueError as error:
        raise UserError(f"--localiser/--scale: {error}") from None
    return words.strip()


def _check_port_free(host: str, port: int) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise UserError(
                f"cannot listen on {host}:{port} ({error.strerror}): is templecam already "
                "running? Open that page, or choose another --port"
            ) from None


def _display_host(host: str) -> str:
    return "127.0.0.1" if host in ("0.0.0.0", "") else host
