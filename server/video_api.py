"""The camera's routes: vision state, the annotated video (MJPEG and snapshots), the demo game."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response, StreamingResponse

from rules.errors import RecordError
from server.dashboard import dashboard_state
from server.session import Session
from server.vision_service import SwitchError, VisionService
from server.words_api import TABLE_LANGUAGE
from vision.sources.base import SourceError

BOUNDARY = "templecam-frame"
OFF = {"mode": "off", "note": "the camera is turned off (templecam serve --no-camera)"}


def video_router(session: Session, service: VisionService | None) -> APIRouter:
    """Return the routes that show what the camera sees."""
    router = APIRouter()

    @router.get("/api/vision")
    def vision_state() -> dict[str, Any]:
        """The camera's and the vision pipeline's state."""
        lang = TABLE_LANGUAGE.get()  # the notes in the asking page's language
        return service.state_json(lang) if service is not None else dict(OFF)

    @router.get("/api/video.jpg")
    def snapshot() -> Response:
        """The newest annotated frame as one JPEG."""
        if service is None:
            raise HTTPException(404, OFF["note"])
        _, data = service.latest_jpeg(timeout=2.0)
        if data is None:
            raise HTTPException(503, "no frame from the camera yet")
        return Response(data, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @router.get("/api/video.mjpg")
    async def video(request: Request) -> StreamingResponse:
        """The annotated live video (MJPEG: an <img> shows it)."""
        if service is None:
            raise HTTPException(404, OFF["note"])
        return StreamingResponse(
            _frames(service, request),
            media_type=f"multipart/x-mixed-replace; boundary={BOUNDARY}",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    @router.post("/api/demo-game", status_code=201)
    def demo_game() -> dict[str, Any]:
        """Start the demo recording's game with the video from its beginning, its clock running
        with the video (pressed again: the same saved game starts over)."""
        if service is None or service.demo_setup is None:
            raise HTTPException(409, "the demo recording is not playing (a camera is in use)")
        try:
            game_id = service.start_demo_game()
        except RecordError as error:
            raise HTTPException(422, str(error)) from None
        except (SwitchError, SourceError) as error:
            raise HTTPException(409, str(error)) from None
        return {"game_id": game_id, "state": dashboard_state(session)}

    return router


async def _frames(service: VisionService, request: Request) -> AsyncIterator[bytes]:
    version = 0
    while not await request.is_disconnected():
        newer, data = await asyncio.to_thread(service.latest_jpeg, version, 1.0)
        if data is None or newer == version:
            continue
        version = newer
        yield (
            (
                f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(data)}\r\n\r\n"
            ).encode()
            + data
            + b"\r\n"
        )
