"""`templecam enroll`: list, add, edit, show and reset the enrolled chamber tiles."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from base.files import write_atomically
from base.paths import data_dir
from templecam.errors import UserError

if TYPE_CHECKING:
    import numpy as np

    from calibration.enrollment import TileLibrary
    from calibration.table import TableCalibration

SIDES = ("N", "E", "S", "W")

_DESCRIPTION = """\
The enrolled tiles are what templecam recognises chamber tiles by, and what it takes each
tile's doors, entry icons and gems to be. Out of the box they are the basic game's 19 tiles
with the renderer's art; enroll a photo of each of your own tiles so that your copy is
recognised, and correct any property that differs on your tiles. Doors are given in the
tile's own frame, with its stairway facing S. Kept in TILES (default: tiles/ in the data
folder)."""

_EPILOG = """\
examples:
  templecam enroll list
  templecam enroll add gem3-key-1 --image tile.jpg --stairs E    (stairway on the right)
  templecam enroll add gem3-key-1 --image frame.jpg --calibration   (a camera frame)
  templecam enroll add crypt --new --image scan.png --whole --stairs S
  templecam enroll edit gem3-key-1 --doors N,W --enter adventurer,key --gems 3:key:4,7,10
  templecam enroll show gem3-key-1 --out gem3-key-1.png
  templecam enroll reset gem3-key-1          (or with no id: every tile)"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `enroll` subcommand and its actions."""
    parser = subparsers.add_parser(
        "enroll",
        help="enroll your own chamber tiles (photos and properties) and check them",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", type=Path, help="data folder (default: per-user folder)")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    listing = actions.add_parser("list", parents=[common], help="list the enrolled tiles")
    listing.add_argument("--json", action="store_true", help="print the library as JSON")
    listing.set_defaults(run=_list)

    add = actions.add_parser(
        "add", parents=[common], help="enroll a photo or scan of a tile (its top side)"
    )
    add.add_argument("tile", metavar="ID", help="tile id (see `templecam enroll list`), or `back`")
    add.add_argument("--image", required=True, metavar="FILE", help="photo or scan of the tile")
    add.add_argument(
        "--stairs",
        type=str.upper,
        choices=SIDES,
        help="side of the photo (N = top) the stairway is on; asked or guessed when left out",
    )
    add.add_argument(
        "--calibration",
        nargs="?",
        const="",
        metavar="FILE",
        help="the photo is a camera frame: use this table calibration (alone: the saved one); "
        "N is then the table's north",
    )
    add.add_argument(
        "--whole", action="store_true", help="the picture is the tile alone (a scan or a crop)"
    )
    add.add_argument("--new", action="store_true", help="add a tile that is not in the list")
    add.set_defaults(run=_add)

    edit = actions.add_parser(
        "edit", parents=[common], help="change a tile's properties (own frame, stairway = S)"
    )
    edit.add_argument("tile", metavar="ID")
    edit.add_argument("--name", help="the tile's name")
    edit.add_argument("--kind", choices=("start", "exit", "chamber"))
    edit.add_argument("--doors", metavar="N,E,W", help="open sides besides the stairway, or none")
    edit.add_argument(
        "--enter",
        metavar="ICON,ICON",
        help="icons in the red frame (adventurer, key, torch, golden_mask), or none",
    )
    edit.add_argument(
        "--gems", metavar="COUNT:ICON:COSTS", help="e.g. 3:key:4,7,10 or 1:torch:4, or none"
    )
    edit.set_defaults(run=_edit)

    show = actions.add_parser(
        "show", parents=[common], help="draw a tile's picture with its properties"
    )
    show.add_argument("tile", metavar="ID")
    show.add_argument("--out", required=True, metavar="FILE.png", help="picture to write")
    show.set_defaults(run=_show)

    reset = actions.add_parser(
        "reset", parents=[common], help="back to the packaged tiles (all, or those named)"
    )
    reset.add_argument("tiles", nargs="*", metavar="ID")
    reset.set_defaults(run=_reset)


# ----- helpers ---------------------------------------------------------------------------------


def _folder(args: argparse.Namespace) -> Path:
    return data_dir(args.data_dir) / "tiles"


def _load(args: argparse.Namespace) -> TileLibrary:
    from calibration.enrollment import EnrollmentError, TileLibrary

    try:
        return TileLibrary.load(_folder(args))
    except EnrollmentError as error:
        raise UserError(str(error)) from None


def _save(args: argparse.Namespace, library: TileLibrary) -> None:
    from calibration.enrollment import EnrollmentError

    try:
        library.save(_folder(args))
    except (EnrollmentError, OSError) as error:
        raise UserError(f"cannot save the tiles in {_folder(args)}: {error}") from None


def _known(library: TileLibrary, tile_id: str) -> None:
    from calibration.enrollment import EnrollmentError

    try:
        library.tile(tile_id)
    except EnrollmentError as error:
        raise UserError(str(error)) from None


def _describe(definition: Any) -> str:
    doors = ",".join(side for side in SIDES if side in definition.doors) or "-"
    enter = "+".join(definition.enter) or "free"
    gems = "-"
    if definition.gems is not None:
        costs = ",".join(str(c) for c in definition.gems.costs)
        gems = f"{definition.gems.count}:{definition.gems.icon}:{costs}"
    return f"{definition.kind:<8} {doors:<6} {enter:<22} {gems:<14}"


# ----- list ------------------------------------------------------------------------------------


def _list(args: argparse.Namespace) -> int:
    library = _load(args)
    if args.json:
        data = library.to_json()
        data["tiles"] = {t.tile_id: t.definition.to_json() for t in library}
        data["changed"] = library.changed()
        print(json.dumps(data, indent=1))
        return 0
    changed = set(library.changed())
    wide = max([14, *(len(tile_id) for tile_id in library.ids())])  # module ids run longer
    print(f"{'id':<{wide}} {'kind':<8} {'doors':<6} {'enter':<22} {'gems':<14} picture")
    for tile in library:
        picture = "your photo" if tile.appearance.photo else "packaged art"
        mark = " (changed)" if tile.tile_id in changed else ""
        print(f"{tile.tile_id:<{wide}} {_describe(tile.definition)} {picture}{mark}")
    back = "your photo" if library.back is not None and library.back.photo else "packaged art"
    print(f"{'back':<{wide}} {'(the back of every tile)':<52} {back}")
    print(f"\n{len(library)} tiles in {_folder(args)}; doors in the tile's own frame (stairway S)")
    return 0


# ----- add -------------------------------------------------------------------------------------


def _read_image(path: str) -> np.ndarray:
    import cv2

    source = Path(path).expanduser()
    if not source.is_file():
        raise UserError(f"no picture at {source}: give the path of a photo or scan of the tile")
    image = cv2.imread(str(source), cv2.IMREAD_COLOR)
    if image is None:
        raise UserError(f"{source} is not a picture OpenCV can read (use JPEG or PNG)")
    return image


def _calibration(args: argparse.Namespace, image: np.ndarray) -> TableCalibration | None:
    if args.calibration is None:
        return None
    from calibration.table import FILE_NAME, CalibrationError, TableCalibration

    path = Path(args.calibration) if args.calibration else data_dir(args.data_dir) / FILE_NAME
    try:
        return TableCalibration.load(path, image_size=(image.shape[1], image.shape[0]))
    except CalibrationError as error:
        raise UserError(str(error)) from None


def _ask_stairs(library: TileLibrary, tile_id: str, square: np.ndarray) -> tuple[str, str]:
    """Return the stairway's side in the picture and how it was found (guessed or asked)."""
    from calibration.enrollment import BACK, TileLibrary
    from calibration.tile_match import SURE, identify

    if tile_id == BACK:
        return "S", "the back has no stairway"
    if tile_id in library:
        alone = TileLibrary([library.tile(tile_id)])
        match = identify(alone, square, tile_px=square.shape[0])
        if match is not None and match.confidence >= SURE:
            return (
                match.stairs,
                f"guessed from the enrolled picture (confidence {match.confidence})",
            )
    if sys.stdin.isatty():
        answer = input("Which side of the picture is the tile's stairway on (N=top, E, S, W)? ")
        if answer.strip().upper() in SIDES:
            return answer.strip().upper(), "as you said"
    raise UserError(
        "which side of the picture is the stairway on? pass --stairs N, E, S or W "
        "(N is the picture's top, or the table's north with --calibration)"
    )


def _add(args: argparse.Namespace) -> int:
    from calibration.enrollment import BACK, ID_PATTERN, EnrollmentError, TileLibrary
    from calibration.tile_match import SURE, identify
    from calibration.tile_photo import TilePhotoError, tile_picture, to_own_frame

    library = _load(args)
    if args.tile != BACK and args.tile not in library and not args.new:
        _known(library, args.tile)
    if args.new and not ID_PATTERN.match(args.tile):
        raise UserError(f"{args.tile!r} cannot be a tile id: use letters, digits, '-' or '_'")
    image = _read_image(args.image)
    calibration = _calibration(args, image)
    try:
        square = tile_picture(image, calibration=calibration, whole=args.whole)
    except TilePhotoError as error:
        raise UserError(f"{args.image}: {error}") from None
    stairs, how = (
        (args.stairs, "as given") if args.stairs else _ask_stairs(library, args.tile, square)
    )
    own = to_own_frame(square, stairs)
    try:
        library.enroll_image(args.tile, own, new=args.new)
    except EnrollmentError as error:
        raise UserError(str(error)) from None
    _save(args, library)
    print(f"enrolled {args.tile} from {args.image} (stairway on side {stairs}, {how})")
    if args.tile != BACK:
        others = [t for t in library if t.tile_id != args.tile]
        twin = identify(TileLibrary(others), own, tile_px=own.shape[0])
        if twin is not None and twin.confidence >= SURE:
            print(
                f"note: this picture also looks like {twin.tile} (confidence {twin.confidence}): "
                "check that the id is right"
            )
        if args.new:
            print(f"now give its properties: templecam enroll edit {args.tile} --doors ... ")
    print(f"check it: templecam enroll show {args.tile} --out {args.tile}.png")
    return 0


# ----- edit ------------------------------------------------------------------------------------


def _split(text: str) -> list[str]:
    if text.strip().lower() in ("", "none", "-"):
        return []
    return [part.strip() for part in text.split(",") if part.strip()]


def _gems(text: str) -> dict[str, Any] | None:
    if text.strip().lower() in ("", "none", "-"):
        return None
    parts = text.split(":")
    if len(parts) != 3:
        raise UserError(f"--gems {text!r}: write COUNT:ICON:COSTS, e.g. 3:key:4,7,10, or none")
    count, icon, costs = parts
    try:
        return {
            "count": int(count),
            "icon": icon.strip(),
            "costs": [int(c) for c in _split(costs)],
        }
    except ValueError:
        raise UserError(f"--gems {text!r}: the count and costs must be whole numbers") from None


def _edit(args: argparse.Namespace) -> int:
    from rules.catalog import parse_tile
    from rules.errors import RecordError

    library = _load(args)
    _known(library, args.tile)
    data = library.tile(args.tile).definition.to_json()
    if args.name is not None:
        data["name"] = args.name
    if args.kind is not None:
        data["kind"] = args.kind
    if args.doors is not None:
        data["doors"] = [side.upper() for side in _split(args.doors)]
    if args.enter is not None:
        data["enter"] = _split(args.enter)
    if args.gems is not None:
        data["gems"] = _gems(args.gems)
    try:
        definition = parse_tile(args.tile, data)
    except RecordError as error:
        raise UserError(f"{error}; nothing was changed") from None
    library.set_definition(definition)
    _save(args, library)
    print(f"{args.tile}: {json.dumps(definition.to_json())}")
    return 0


# ----- show ------------------------------------------------------------------------------------


def _show(args: argparse.Namespace) -> int:
    import cv2

    from calibration.tile_card import tile_card

    library = _load(args)
    _known(library, args.tile)
    out = Path(args.out).expanduser()
    if out.suffix.lower() not in (".png", ".jpg", ".jpeg"):
        raise UserError(f"--out {out}: give a .png or .jpg file name")
    ok, data = cv2.imencode(out.suffix.lower(), tile_card(library.tile(args.tile)))
    if not ok:
        raise UserError(f"cannot encode the picture as {out.suffix}")
    try:
        write_atomically(out, data.tobytes())
    except OSError as error:
        raise UserError(f"cannot write {out}: {error}") from None
    print(f"wrote {out}")
    return 0


# ----- reset -----------------------------------------------------------------------------------


def _reset(args: argparse.Namespace) -> int:
    from calibration.enrollment import BACK, EnrollmentError, TileLibrary, discard

    if args.tiles:
        packaged = TileLibrary.default()
        try:
            current = TileLibrary.load(_folder(args))
        except EnrollmentError:
            current = packaged  # a broken file: any id it might hold may be dropped
        for tile_id in args.tiles:
            if tile_id != BACK and tile_id not in current and tile_id not in packaged:
                _known(current, tile_id)
    try:
        discard(_folder(args), args.tiles or None)
    except (EnrollmentError, OSError) as error:
        raise UserError(str(error)) from None
    _load(args)  # what is left must load
    what = ", ".join(args.tiles) if args.tiles else "every tile"
    print(f"reset {what} to the packaged definition and art")
    return 0
