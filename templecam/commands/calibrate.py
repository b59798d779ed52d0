"""`templecam calibrate`: print the board, calibrate the table from it, check for camera drift."""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from base.files import write_atomically
from base.paths import data_dir
from templecam.errors import UserError

if TYPE_CHECKING:
    import numpy as np

    from calibration.calibrate import BoardView, CalibrationResult
    from calibration.table import TableCalibration

TILE_MM = (40.0, 250.0)
DIE_MM = (8.0, 30.0)
SQUARE_MM = (5.0, 200.0)
Rect = tuple[float, float, float, float]
CAMERA_FRAMES = 5
_WARM_UP_FRAMES = 10

_DESCRIPTION = """\
Calibrate the table: find the printed board in the camera picture and work out where every
pixel lies on the table, in millimetres; lay out the players' dice zones and the gem depot;
save it all (default: calibration.json in the data folder).

  1. templecam calibrate board --out board.pdf     and print it at 100 % (no scaling)
  2. lay the sheet flat where the start chamber will go, its top edge (the arrows) pointing
     north, that is away from the camera picture's lower edge
  3. templecam calibrate --players red,blue,green  (takes frames from the first camera)

The table's origin is the board's centre, x to the sheet's right, y towards its top edge.
For lens distortion give 3 or more photos (--image, several times): the first with the board
lying flat as in step 2 (it defines the table), the others with the board held at different
angles near the picture's edges and corners. After calibrating, take the board away."""

_EPILOG = """\
examples:
  templecam calibrate board --out board.pdf --paper letter
  templecam calibrate --players red,blue --seats S,N
  templecam calibrate --camera 1 --players red,blue,green,yellow --tile-mm 95
  templecam calibrate --image flat.jpg --image tilt1.jpg --image tilt2.jpg --players red
  templecam calibrate --image flat.jpg --zone red=-400,-300,0,-180 --depot 300,200,420,300
  templecam calibrate check          (has the camera moved since calibration?)"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `calibrate` subcommand with its `board` and `check` actions."""
    parser = subparsers.add_parser(
        "calibrate",
        help="print the calibration board; calibrate the table from it; check camera drift",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--image",
        action="append",
        metavar="FILE",
        help="a photo of the board; give it 3+ times to also calibrate the lens",
    )
    source.add_argument(
        "--camera",
        metavar="SPEC",
        help="camera index (0, 1, ...), stream URL, video file or image folder (default: 0)",
    )
    parser.add_argument(
        "--players", default="", metavar="P1,P2", help="player names (colours), comma-separated"
    )
    parser.add_argument(
        "--seats",
        default="",
        metavar="S,N,...",
        help="each player's table side, N/E/S/W (default: S, N, E, W, S, ...)",
    )
    parser.add_argument(
        "--zone",
        action="append",
        default=[],
        metavar="P=X0,Y0,X1,Y1",
        help="a player's zone as a table rectangle in mm (replaces the default; repeatable)",
    )
    parser.add_argument(
        "--depot",
        metavar="X0,Y0,X1,Y1",
        help="the gem depot as a table rectangle in mm, or 'none' (default: a view corner)",
    )
    parser.add_argument(
        "--tile-mm",
        type=float,
        default=100.0,
        metavar="MM",
        help="chamber tile edge (default: %(default)s)",
    )
    parser.add_argument(
        "--die-mm", type=float, default=16.0, metavar="MM", help="die edge (default: %(default)s)"
    )
    parser.add_argument(
        "--square-mm",
        type=float,
        metavar="MM",
        help="the printed board's square edge as measured, when it differs from the sheet's",
    )
    parser.add_argument("--out", metavar="FILE", help="where to save (default: data folder)")
    parser.add_argument("--data-dir", metavar="DIR", help="data folder (default: per-user)")
    parser.set_defaults(run=_run_calibrate)

    actions = parser.add_subparsers(
        dest="action", title="actions (optional)", metavar="[board | check]"
    )
    board = actions.add_parser(
        "board",
        help="write the printable board (PNG or PDF, 300 dpi)",
        description=(
            "Write the ChArUco calibration sheet, landscape, at 300 dpi. Print it at 100 % "
            "(actual size, no 'fit to page'); the sheet states its square size, measure one to "
            "check. The table's origin will be the board's centre, x to the sheet's right, y "
            "towards its top edge: lay it where the start chamber goes, top edge to the north."
        ),
    )
    board.add_argument(
        "--out", dest="board_out", required=True, metavar="FILE", help="the sheet (.png or .pdf)"
    )
    board.add_argument(
        "--paper", choices=("a4", "letter"), default="a4", help="default: %(default)s"
    )
    board.add_argument(
        "--format", dest="board_format", choices=("png", "pdf"), help="default: from --out"
    )
    board.set_defaults(run=_run_board)

    check = actions.add_parser(
        "check",
        help="tell whether the camera moved since calibration",
        description="Compare a camera frame with the calibration view; exit 1 if it moved.",
    )
    check_source = check.add_mutually_exclusive_group()
    check_source.add_argument("--image", dest="check_image", metavar="FILE", help="a photo")
    check_source.add_argument(
        "--camera", dest="check_camera", metavar="SPEC", help="camera index, file or URL (0)"
    )
    check.add_argument("--calibration", metavar="FILE", help="default: the data folder's")
    check.add_argument("--data-dir", dest="check_data_dir", metavar="DIR", help="data folder")
    check.set_defaults(run=_run_check)


# ----- board -----------------------------------------------------------------------------------


def _run_board(args: argparse.Namespace) -> int:
    """Write the printable sheet."""
    from calibration.board import BOARDS, sheet_bytes

    out = Path(args.board_out).expanduser()
    suffix = out.suffix.lower().lstrip(".")
    fmt = args.board_format or (suffix if suffix in ("png", "pdf") else "png")
    if suffix in ("png", "pdf") and suffix != fmt:
        raise UserError(f"--out {args.board_out} ends in .{suffix} but --format is {fmt}")
    if out.is_dir():
        raise UserError(f"--out {args.board_out} is a folder: give a file name like board.{fmt}")
    try:
        write_atomically(out, sheet_bytes(args.paper, fmt))
    except OSError as error:
        raise UserError(f"cannot write {out}: {error.strerror or error}") from None
    spec = BOARDS[args.paper]
    print(f"wrote {out} ({args.paper.upper()} landscape, {fmt.upper()}, 300 dpi)")
    print(
        f"print it at 100 % (actual size, no scaling); each square must measure "
        f"{spec.square_mm:.2f} mm (if not, pass --square-mm with what you measure)"
    )
    return 0


# ----- calibrate -------------------------------------------------------------------------------


def _in_range(name: str, value: float, limits: tuple[float, float]) -> None:
    """Refuse a number outside `limits`."""
    if not (math.isfinite(value) and limits[0] <= value <= limits[1]):
        raise UserError(f"{name} {value:g}: give a value from {limits[0]:g} to {limits[1]:g} mm")


def _rect(text: str, what: str) -> Rect:
    """Parse 'x0,y0,x1,y1' (mm) into a rectangle with x0 < x1, y0 < y1."""
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        values = []
    if len(values) != 4 or not all(math.isfinite(v) for v in values):
        raise UserError(f"{what} {text!r}: give four numbers in mm, x0,y0,x1,y1")
    x0, y0, x1, y1 = values
    if not (x0 < x1 and y0 < y1):
        raise UserError(f"{what} {text!r}: x0 must be below x1 and y0 below y1")
    return x0, y0, x1, y1


def _names(text: str, what: str) -> list[str]:
    """Split a comma-separated list, refusing empty items and repeats."""
    items = [item.strip() for item in text.split(",")] if text.strip() else []
    if any(not item for item in items):
        raise UserError(f"{what} {text!r}: an empty name between commas")
    repeated = sorted({item for item in items if items.count(item) > 1})
    if repeated:
        raise UserError(f"{what}: {', '.join(repeated)} given twice")
    return items


def _read_image(path: str) -> np.ndarray:
    """Read one photo, or say why not."""
    import cv2

    file = Path(path).expanduser()
    if not file.is_file():
        raise UserError(f"--image {path}: no such file")
    image = cv2.imread(str(file), cv2.IMREAD_COLOR)
    if image is None:
        raise UserError(f"--image {path}: not an image OpenCV can read (use PNG or JPEG)")
    return image


def _grab_frames(spec: str, count: int = CAMERA_FRAMES) -> list[np.ndarray]:
    """Take up to `count` frames from a camera, stream, video file or image folder.

    A live camera's first frames are skipped: auto exposure is still settling.
    """
    from vision.sources.base import SourceError
    from vision.sources.open import open_source

    try:
        source = open_source(spec)
        stream = source.open()
        try:
            frames: list[np.ndarray] = []
            for _ in range(count + (_WARM_UP_FRAMES if source.live else 0)):
                item = stream.read()
                if item is None:
                    break
                frames.append(item[0])
        finally:
            stream.close()
    except SourceError as error:
        raise UserError(f"--camera {spec}: {error}") from None
    if not frames:
        raise UserError(f"--camera {spec}: opened but gave no frame")
    return frames[-count:]


def _views_from_images(
    paths: Sequence[str], square_mm: float | None
) -> tuple[list[BoardView], np.ndarray]:
    """Find the board in every photo; return the views and the first photo."""
    from calibration.calibrate import detect_board
    from calibration.table import CalibrationError

    first = _read_image(paths[0])
    views = []
    for index, path in enumerate(paths):
        image = _read_image(path) if index else first
        if image.shape[:2] != first.shape[:2]:
            raise UserError(
                f"--image {path} is {image.shape[1]}x{image.shape[0]} but the first is "
                f"{first.shape[1]}x{first.shape[0]}: use photos from one camera at one size"
            )
        try:
            views.append(detect_board(image, square_mm))
        except CalibrationError as error:
            raise UserError(f"--image {path}: {error}") from None
    return views, first


def _views_from_camera(spec: str, square_mm: float | None) -> tuple[list[BoardView], np.ndarray]:
    """Find the board in a few camera frames and merge them into one steadier view."""
    from calibration.calibrate import detect_board, merge_views
    from calibration.table import CalibrationError

    frames = _grab_frames(spec)
    views, last_error = [], None
    for frame in frames:
        try:
            views.append(detect_board(frame, square_mm))
        except CalibrationError as error:
            last_error = error
    if not views:
        raise UserError(f"--camera {spec}: {last_error}")
    return [merge_views(views)], frames[-1]


@dataclass(frozen=True)
class _ZoneOptions:
    """The zone options, checked before any picture is read."""

    players: list[str]
    seats: list[str] | None
    zones_mm: dict[str, Rect]
    depot: Rect | Literal["default"] | None


def _zone_options(args: argparse.Namespace) -> _ZoneOptions:
    """Check --players, --seats, --zone and --depot."""
    players = _names(args.players, "--players")
    seats = [s.upper() for s in _names(args.seats, "--seats")] if args.seats else None
    if seats is not None and len(seats) != len(players):
        raise UserError(
            f"--seats: {len(seats)} seats for {len(players)} players; give one seat per player"
        )
    zones_mm: dict[str, Rect] = {}
    for item in args.zone:
        player, sep, rect = item.partition("=")
        if not sep or not player.strip():
            raise UserError(f"--zone {item!r}: write it as PLAYER=x0,y0,x1,y1 (mm)")
        zones_mm[player.strip()] = _rect(rect, f"--zone {player.strip()}")
    depot: Rect | Literal["default"] | None = "default"
    if args.depot is not None:
        depot = None if args.depot.lower() == "none" else _rect(args.depot, "--depot")
    return _ZoneOptions(players, seats, zones_mm, depot)


def _apply_zones(calibration: TableCalibration, options: _ZoneOptions) -> TableCalibration:
    """Lay out default zones and depot, then the ones given explicitly."""
    from calibration.table import CalibrationError
    from calibration.zones import layout

    try:
        return layout(calibration, options.players, options.seats, options.zones_mm, options.depot)
    except CalibrationError as error:
        raise UserError(str(error)) from None


def _report(result: CalibrationResult, cal: TableCalibration, out: Path) -> None:
    """Print what was found and saved."""
    from calibration.zones import outside_view, view_rect_mm

    print(f"board: {result.corners} corners found ({cal.image_size[0]}x{cal.image_size[1]} px)")
    if result.lens_views and cal.dist_coeffs:
        k1, k2 = cal.dist_coeffs[:2]
        print(
            f"lens: k1 {k1:+.4f}, k2 {k2:+.4f}, focal {cal.camera_matrix[0][0]:.0f} px "
            f"from {result.lens_views} views (fit error {result.lens_rms_px:.2f} px)"
        )
    else:
        print("lens: taken as distortion-free (give --image 3+ times to calibrate it)")
    print(
        f"reprojection error: {result.error_px:.2f} px, {result.error_mm:.2f} mm "
        f"(mean over the board's corners)"
    )
    x0, y0, x1, y1 = view_rect_mm(cal)
    print(f"table in view: x {x0:.0f} to {x1:.0f} mm, y {y0:.0f} to {y1:.0f} mm")
    for zone in cal.zones:
        xs = [p[0] for p in zone.polygon_mm]
        ys = [p[1] for p in zone.polygon_mm]
        print(
            f"zone {zone.player}: x {min(xs):.0f} to {max(xs):.0f}, "
            f"y {min(ys):.0f} to {max(ys):.0f} mm"
        )
    if cal.depot_mm is not None:
        xs = [p[0] for p in cal.depot_mm]
        ys = [p[1] for p in cal.depot_mm]
        print(f"depot: x {min(xs):.0f} to {max(xs):.0f}, y {min(ys):.0f} to {max(ys):.0f} mm")
    for name in outside_view(cal):
        print(f"warning: {name} reaches outside the camera's view")
    if result.error_px > 2.0:
        print("warning: the error is high; check the board lies flat and is printed unscaled")
    print(f"saved {out}")


def _run_calibrate(args: argparse.Namespace) -> int:
    """Calibrate from photos or camera frames and save the result."""
    from calibration.calibrate import calibrate
    from calibration.table import FILE_NAME, CalibrationError

    _in_range("--tile-mm", args.tile_mm, TILE_MM)
    _in_range("--die-mm", args.die_mm, DIE_MM)
    if args.square_mm is not None:
        _in_range("--square-mm", args.square_mm, SQUARE_MM)
    zone_options = _zone_options(args)
    out = Path(args.out).expanduser() if args.out else data_dir(args.data_dir) / FILE_NAME
    if out.is_dir():
        raise UserError(f"--out {args.out} is a folder: give a file name like calibration.json")
    if args.image:
        views, frame = _views_from_images(args.image, args.square_mm)
        if len(views) == 2:
            print("note: 2 photos; the lens needs 3 or more, so only the first is used")
            views = views[:1]
    else:
        views, frame = _views_from_camera(args.camera or "0", args.square_mm)
    try:
        result = calibrate(views, frame, tile_mm=args.tile_mm, die_mm=args.die_mm)
    except CalibrationError as error:
        raise UserError(str(error)) from None
    calibration = _apply_zones(result.calibration, zone_options)
    try:
        calibration.save(out)
    except OSError as error:
        raise UserError(f"cannot write {out}: {error.strerror or error}") from None
    _report(result, calibration, out)
    return 0


# ----- check -----------------------------------------------------------------------------------


def _run_check(args: argparse.Namespace) -> int:
    """Load the calibration and compare one frame with its reference view."""
    from calibration.drift import check_drift
    from calibration.table import FILE_NAME, CalibrationError, TableCalibration

    if args.check_image:
        frame = _read_image(args.check_image)
    else:
        frame = _grab_frames(args.check_camera or "0", count=1)[-1]
    path = (
        Path(args.calibration).expanduser()
        if args.calibration
        else data_dir(args.check_data_dir) / FILE_NAME
    )
    try:
        calibration = TableCalibration.load(path, image_size=(frame.shape[1], frame.shape[0]))
    except CalibrationError as error:
        raise UserError(str(error)) from None
    report = check_drift(calibration, frame)
    print(report.message)
    return 0 if report.ok else 1
