"""The table set-up routes: calibrate from the board and enroll tiles, from the live camera."""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np
from fastapi import APIRouter, HTTPException
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from server.session import Session
from server.vision_service import VisionService

NO_CAMERA = (
    "no camera frame to work from: start the server with a camera "
    "(templecam serve --camera ...) and check that it shows the table"
)
NO_BOARD = (
    "no calibration board in view: lay the printed sheet (templecam calibrate board) flat on "
    "the table where the camera sees all of it, in good light, and press the button again"
)


class CalibrateIn(BaseModel):
    """The calibration page's form: who sits where, and the pieces' sizes."""

    model_config = ConfigDict(extra="forbid")

    players: list[str] = Field(min_length=1, max_length=6)
    seats: list[Literal["N", "E", "S", "W"]] | None = Field(None, max_length=6)
    tile_mm: float = Field(100.0, ge=40.0, le=250.0)
    die_mm: float = Field(16.0, ge=8.0, le=30.0)


class EnrollIn(BaseModel):
    """The enrollment form: which side of the camera's view the tile's stairway faces."""

    model_config = ConfigDict(extra="forbid")

    stairs: Literal["N", "E", "S", "W"]


def table_router(session: Session, service: VisionService | None, data_dir: Path) -> APIRouter:
    """Return the routes of the calibration and tile-enrollment pages."""
    router = APIRouter()
    tiles_lock = threading.Lock()
    tiles_folder = data_dir / "tiles"

    def frame() -> np.ndarray:
        image = service.snapshot() if service is not None else None
        if image is None:
            raise HTTPException(409, NO_CAMERA)
        return image

    @router.get("/api/camera/frame.jpg")
    def raw_frame() -> Response:
        """The camera's newest frame as it comes (not annotated), as one JPEG."""
        ok, data = cv2.imencode(".jpg", frame(), [cv2.IMWRITE_JPEG_QUALITY, 85])
        if not ok:
            raise HTTPException(500, "the frame could not be encoded as JPEG")
        return Response(
            data.tobytes(), media_type="image/jpeg", headers={"Cache-Control": "no-store"}
        )

    @router.get("/api/calibration/board.{fmt}")
    def board(fmt: Literal["png", "pdf"], paper: Literal["a4", "letter"] = "a4") -> Response:
        """The printable calibration board: a 300 dpi PNG or a one-page PDF whose page is the
        paper, so that printed at 100 % every square has its true size in mm."""
        media = "application/pdf" if fmt == "pdf" else "image/png"
        name = f"templecam-calibration-board-{paper}.{fmt}"
        return Response(
            _sheet(paper, fmt),
            media_type=media,
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    @router.get("/api/calibration")
    def calibration_state() -> dict[str, Any]:
        """The calibration in use (or null) and the running game's players."""
        game = session.game
        current = service.calibration if service is not None else None
        return {
            "camera": service is not None and service.mode != "off",
            "mode": service.mode if service is not None else "off",
            "players": list(game.players) if game is not None else [],
            "calibration": _calibration_json(current) if current is not None else None,
        }

    @router.post("/api/calibrate")
    def calibrate_table(body: CalibrateIn) -> dict[str, Any]:
        """Find the board in the newest frame, calibrate, save and use the calibration."""
        from calibration.calibrate import calibrate, detect_board
        from calibration.table import FILE_NAME, CalibrationError
        from calibration.view_check import check_view
        from calibration.zones import layout, outside_view

        image = frame()
        try:
            view = detect_board(image)
        except CalibrationError as error:
            raise HTTPException(422, f"{NO_BOARD} ({error})") from None
        try:
            result = calibrate([view], image, tile_mm=body.tile_mm, die_mm=body.die_mm)
            calibration = layout(result.calibration, body.players, body.seats)
        except CalibrationError as error:
            raise HTTPException(422, str(error)) from None
        assert service is not None  # frame() answered 409 otherwise
        camera = service.chosen_label()
        calibration = calibration.model_copy(update={"camera": camera})
        path = data_dir / FILE_NAME
        try:
            calibration.save(path)
        except OSError as error:
            raise HTTPException(500, f"cannot write {path}: {error.strerror or error}") from None
        service.use_calibration(calibration)
        fps = service.grabber.state().fps if service.grabber is not None else None
        view = check_view(image, calibration, fps, camera=camera)
        return {
            "saved": f"{FILE_NAME} in the data folder",  # never the absolute path
            "corners": result.corners,
            "error_px": round(result.error_px, 3),
            "error_mm": round(result.error_mm, 3),
            "warnings": [
                f"{name} reaches outside the camera's view" for name in outside_view(calibration)
            ],
            "calibration": _calibration_json(calibration),
            "view": view.to_json(),
        }

    @router.get("/api/tiles")
    def tiles() -> dict[str, Any]:
        """The enrolled tiles: id, name, kind, doors, entry icons, gems and whose picture (no
        path on this computer: a page needs none, and none should leave the server)."""
        from rules.every_tile import tile_modules

        library = _load_library(tiles_folder)
        changed = set(library.changed())
        return {
            "tiles": [
                {
                    "id": tile.tile_id,
                    **tile.definition.to_json(),
                    "modules": list(tile_modules(tile.tile_id)),
                    "photo": tile.appearance.photo,
                    "enrolled": tile.appearance.enrolled or None,
                    "changed": tile.tile_id in changed,
                }
                for tile in library
            ],
            "groups": _tile_groups(library.ids()),
        }

    @router.get("/api/tiles/{tile_id}/card.png")
    def card(tile_id: str) -> Response:
        """A tile's card: its picture with its doors, entry icons and gems drawn around it."""
        from calibration.tile_card import tile_card

        library = _load_library(tiles_folder)
        _known(library, tile_id)
        ok, data = cv2.imencode(".png", tile_card(library.tile(tile_id), show_id=False))
        if not ok:
            raise HTTPException(500, "the card could not be encoded as PNG")
        return Response(
            data.tobytes(), media_type="image/png", headers={"Cache-Control": "no-store"}
        )

    @router.post("/api/tiles/{tile_id}/enroll")
    def enroll(tile_id: str, body: EnrollIn) -> dict[str, Any]:
        """Cut the tile out of the newest frame and enroll it as this tile's picture."""
        from calibration.enrollment import EnrollmentError
        from calibration.tile_photo import TilePhotoError, tile_picture, to_own_frame

        with tiles_lock:
            library = _load_library(tiles_folder)
            _known(library, tile_id)
            image = frame()
            calibration = service.calibration if service is not None else None
            try:
                square = tile_picture(image, calibration=calibration)
            except TilePhotoError as error:
                raise HTTPException(422, f"no tile found in the camera's view: {error}") from None
            try:
                library.enroll_image(tile_id, to_own_frame(square, body.stairs))
                library.save(tiles_folder)
            except (EnrollmentError, OSError) as error:
                raise HTTPException(500, f"cannot save the tiles: {error}") from None
        assert service is not None
        service.use_tiles()
        return {
            "enrolled": tile_id,
            "stairs": body.stairs,
            "north": "the table's north" if calibration is not None else "the picture's top",
        }

    return router


@functools.lru_cache(maxsize=4)
def _sheet(paper: Literal["a4", "letter"], fmt: Literal["png", "pdf"]) -> bytes:
    """The board's sheet as `templecam calibrate board` writes it (made once per paper and
    format: it takes most of a second)."""
    from calibration.board import sheet_bytes

    return sheet_bytes(paper, fmt)


def _calibration_json(calibration: Any) -> dict[str, Any]:
    """The parts of a calibration the page shows."""
    return {
        "image_size": list(calibration.image_size),
        "error_px": calibration.reprojection_px,
        "error_mm": calibration.reprojection_mm,
        "tile_mm": calibration.tile_mm,
        "die_mm": calibration.die_mm,
        "created": calibration.created,
        "source": calibration.source,
        "camera": calibration.camera,
        "zones": [{"player": z.player, "polygon_mm": z.polygon_mm} for z in calibration.zones],
        "depot_mm": calibration.depot_mm,
    }


def _load_library(folder: Path) -> Any:
    from calibration.enrollment import EnrollmentError, TileLibrary

    try:
        return TileLibrary.load(folder)
    except EnrollmentError as error:
        raise HTTPException(409, str(error)) from None


def _known(library: Any, tile_id: str) -> None:
    """404 listing the known ids unless `tile_id` is an enrolled tile (checked before any path)."""
    if tile_id not in library.ids():
        known = ", ".join(library.ids())
        raise HTTPException(404, f"there is no tile {tile_id!r}; known tiles: {known}")


def _tile_groups(tile_ids: list[str]) -> list[dict[str, Any]]:
    """The tiles page's groups, in the box's order: the basic game's tiles, each module's (a
    tile of modules 1 and 2 under both names), then the tiles the user added (`own`)."""
    from rules.every_tile import every_tile, tile_modules
    from rules.modules import offered_modules

    names = {str(m["id"]): str(m["name"]) for m in offered_modules()}
    packaged = every_tile()
    groups: dict[tuple[str, ...] | None, list[str]] = {}
    for tile_id in tile_ids:
        key = tile_modules(tile_id) if tile_id in packaged else None
        groups.setdefault(key, []).append(tile_id)
    return [
        {
            "modules": list(key or ()),
            "names": [names.get(m, m) for m in key or ()],
            "own": key is None,
            "tiles": ids,
        }
        for key, ids in sorted(groups.items(), key=lambda item: _group_rank(item[0], names))
    ]


def _group_rank(key: tuple[str, ...] | None, names: dict[str, str]) -> tuple[int, int]:
    """Basic tiles first, then by the first module's place among those offered, own last."""
    if key is None:
        return (2, 0)
    if not key:
        return (0, 0)
    order = list(names)
    return (1, order.index(key[0]) if key[0] in order else len(order))
