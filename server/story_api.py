"""The routes of a past game's story: its page, the story as JSON, PNG and PDF, the camera
video kept beside it, the video ring's setting, and deleting a game with its video."""

from __future__ import annotations

import asyncio
import html
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, HTMLResponse, Response
from pydantic import BaseModel, ConfigDict

from rules.errors import RecordError
from server.session import Session
from server.store import UnknownGame
from server.story import game_story
from server.story_image import story_pdf, story_png
from server.video_ring import RingSettingError, VideoRing
from server.words_api import TABLE_LANGUAGE

STATIC = Path(__file__).parent / "static"


class RingIn(BaseModel):
    """The video ring's size per game in megabytes (0: off)."""

    model_config = ConfigDict(extra="forbid")
    megabytes: int


def story_router(session: Session, ring: VideoRing) -> APIRouter:
    """Return the story routes for this session's saved games and video ring."""
    router = APIRouter()

    def story_of(game_id: str) -> dict[str, Any]:
        try:
            lines = session.store.read_lines(game_id)
            story = game_story(game_id, lines, TABLE_LANGUAGE.get())  # `?lang=` or the header
        except UnknownGame:
            raise HTTPException(404, f"there is no saved game {game_id!r}") from None
        except RecordError as error:
            raise HTTPException(422, f"saved game {game_id} cannot be replayed: {error}") from None
        return story

    @router.get("/games/{game_id}", include_in_schema=False)
    def story_page(game_id: str) -> Response:
        try:
            session.store.read_lines(game_id)
        except UnknownGame:
            said = html.escape(game_id)
            return HTMLResponse(
                '<!doctype html><meta charset="utf-8"><meta name="viewport" '
                'content="width=device-width, initial-scale=1">'
                '<title data-words="story.missing_title">No such game</title>'
                '<link rel="stylesheet" href="/static/app.css">'
                '<script type="module" src="/static/story-missing.js"></script><main class="page">'
                f'<h1 data-testid="story-missing" data-game="{said}">'
                f"There is no saved game “{said}”</h1>"
                '<p><a href="/games" data-words="story.see_past">See the past games</a></p></main>',
                status_code=404,
            )
        return FileResponse(STATIC / "story.html", headers={"Cache-Control": "no-store"})

    @router.get("/api/games/{game_id}/story")
    def story(game_id: str) -> dict[str, Any]:
        """The story of a saved game: curves, places, countdowns, moments, and its video."""
        told = story_of(game_id)
        told["video"] = ring.describe(game_id)
        told["playing"] = session.game_id == game_id
        return told

    @router.get("/api/games/{game_id}/story.png")
    async def story_picture(game_id: str) -> Response:
        """The story as a PNG picture, for the group chat."""
        data = await asyncio.to_thread(lambda: story_png(story_of(game_id)))
        return _download(data, "image/png", f"templecam-game-{game_id}.png")

    @router.get("/api/games/{game_id}/story.pdf")
    async def story_document(game_id: str) -> Response:
        """The story as a one-page PDF, for the group chat."""
        data = await asyncio.to_thread(lambda: story_pdf(story_of(game_id)))
        return _download(data, "application/pdf", f"templecam-game-{game_id}.pdf")

    @router.get("/api/games/{game_id}/video/{name}")
    def video_segment(game_id: str, name: str) -> FileResponse:
        """One segment of the game's camera video (WebM)."""
        story_of(game_id)
        path = ring.segment_path(game_id, name)
        if path is None:
            raise HTTPException(404, f"game {game_id} keeps no video segment {name!r}")
        return FileResponse(path, media_type="video/webm")

    @router.delete("/api/games/{game_id}")
    def delete_game(game_id: str) -> dict[str, Any]:
        """Delete a saved game: its record, its metadata and its camera video."""
        if session.game_id == game_id:
            raise HTTPException(
                409, "this is the game on the game page: start a new game before deleting it"
            )
        try:
            record = session.store.record_path(game_id)
        except UnknownGame:
            raise HTTPException(404, f"there is no saved game {game_id!r}") from None
        if not record.exists():
            raise HTTPException(404, f"there is no saved game {game_id!r}")
        freed = ring.size_bytes(game_id)
        ring.delete(game_id)
        record.with_name(f"{game_id}.meta.json").unlink(missing_ok=True)
        record.unlink(missing_ok=True)
        return {"deleted": game_id, "video_bytes_freed": freed}

    @router.get("/api/video-ring")
    def ring_setting() -> dict[str, Any]:
        """The video ring's setting: megabytes kept per game (0: off), and any notice."""
        return {"megabytes": ring.settings.megabytes, "notice": ring.notice}

    @router.put("/api/video-ring")
    def set_ring(body: RingIn) -> dict[str, Any]:
        """Set the video ring's size per game (0 turns it off); kept for the next start."""
        try:
            settings = ring.configure(body.megabytes)
        except RingSettingError as error:
            raise HTTPException(422, str(error)) from None
        return {"megabytes": settings.megabytes, "notice": ring.notice}

    return router


def _download(data: bytes, media_type: str, name: str) -> Response:
    return Response(
        data,
        media_type=media_type,
        headers={
            "Content-Disposition": f'attachment; filename="{name}"',
            "Cache-Control": "no-store",
        },
    )
