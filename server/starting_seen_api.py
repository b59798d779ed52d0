"""The set-up page's "Read from the camera": the two starting chambers as the camera sees them."""

from __future__ import annotations

import threading
from typing import Any

from fastapi import APIRouter, HTTPException

from rules.errors import RecordError
from rules.game_setup import setup_catalog
from server.dashboard import pile_tile
from server.vision_service import VisionService
from vision.stages.starting_seen import DRAW_INSTEAD, look_at_temple, starting_chambers_seen


def camera_not_ready(service: VisionService | None) -> str | None:
    """Say why the camera cannot read the table now (no camera, the demo, no calibration, no
    model), or None when it can."""
    if service is None or service.mode == "off":
        return f"No camera is watching the table (manual mode): {DRAW_INSTEAD}"
    if service.mode == "demo":
        return f"The demo recording plays, not a camera over your table: {DRAW_INSTEAD}"
    if service.calibration is None:
        return (
            "The table is not calibrated, so the camera cannot find the temple (Calibrate the "
            f"table, then read again): {DRAW_INSTEAD}"
        )
    if service.detector is None or service.tile_reader is None:
        return f"The camera's models did not open (see the Camera panel): {DRAW_INSTEAD}"
    return None


def starting_seen_router(service: VisionService | None) -> APIRouter:
    """Return the route that reads the starting temple from the camera's newest frame."""
    router = APIRouter()
    one_at_a_time = threading.Lock()

    @router.get("/api/starting-temple/seen")
    def starting_temple_seen(modules: str = "") -> dict[str, Any]:
        """The chambers the camera sees left and right of the starting chamber (each with its
        picture and name), or for each side why none; 409 when no calibrated camera watches."""
        try:
            catalog = setup_catalog([m for m in modules.split(",") if m])
        except RecordError as error:
            raise HTTPException(422, str(error)) from None
        reason = camera_not_ready(service)
        if reason is not None:
            raise HTTPException(409, reason)
        assert service is not None
        image = service.snapshot()
        calibration = service.calibration
        if image is None or calibration is None:
            raise HTTPException(409, f"The camera gives no picture right now: {DRAW_INSTEAD}")
        with one_at_a_time:
            observation = look_at_temple(
                image, service.detector.detect, calibration, service.tile_reader
            )
        seen = starting_chambers_seen(observation, catalog)
        drawn = seen.drawn
        return {
            "ok": drawn is not None,
            "drawn": list(drawn) if drawn is not None else None,
            "sides": [
                {
                    "side": side.side,
                    "where": side.where,
                    "tile": pile_tile(catalog[side.tile]) if side.tile is not None else None,
                    "problem": side.problem,
                }
                for side in seen.sides
            ],
            "message": seen.message(catalog),
        }

    return router
