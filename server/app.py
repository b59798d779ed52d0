"""The dashboard's FastAPI application: pages, the JSON API, live updates and the soundtrack."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, RedirectResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware

from rules.errors import RecordError
from rules.game_setup import setup_catalog, starting_candidates
from rules.modules import offered_modules
from rules.narrative import outcome_words, replay_words, tell_event, tell_reason
from rules.record import replay_lines
from rules.timeline import Timeline, load_timeline, parse_timeline
from rules.timer_options import TimerOptions
from server.alerts_api import Announcer, alerts_router, announce_forever
from server.camera_api import camera_router
from server.dashboard import dashboard_state, pile_tile
from server.host_audio import HOST_SOUND_OFF, HostPlayer, probe_host_audio
from server.queenie_setup import module_offer
from server.quest_offer import with_quest_tiles
from server.responses import (
    PlainPaths,
    answer_class,
    http_error_answer,
    safe_validation_answer,
    save_failed_answer,
)
from server.schemas import ClockIn, CorrectionIn, EventIn, NewGame, UndoIn
from server.security import WriteGuard, allowed_hosts
from server.session import AudioPlan, Session, SessionError, UnfitEventError
from server.setup_api import table_router
from server.soundtrack import cached_countdown_clip, cached_soundtrack, load_wav
from server.starting_seen_api import starting_seen_router
from server.store import GameStore, SaveFailed, UnknownGame
from server.story_api import story_router
from server.teach_api import MAX_UPLOAD_BYTES, UPLOAD_PATH, teach_router
from server.timer_options import OWN_AUDIO_TIMER, random_countdowns
from server.video_api import video_router
from server.video_ring import VideoRing
from server.vision_service import VisionService, VisionSettings
from server.words_api import TABLE_LANGUAGE, LanguageMiddleware, words_router

log = logging.getLogger(__name__)
STATIC = Path(__file__).parent / "static"
REPO = Path(__file__).resolve().parents[1]
"""The installed project's folder (never named in an answer)."""
TICK_SECONDS = 0.05
STREAM_POLL_SECONDS = 0.1
STREAM_KEEPALIVE_SECONDS = 15.0


@dataclass(frozen=True)
class ServerSettings:
    """Everything `templecam serve` can change."""

    data_dir: Path
    host: str = "127.0.0.1"
    port: int = 8000
    timeline_path: Path | None = None
    audio_file: Path | None = None
    host_audio: bool = True
    """Try the host's sound card; tests and `--no-host-audio` turn it off."""
    resume: bool = True
    vision: VisionSettings | None = None
    """The camera and the vision pipeline; None: manual mode only (`templecam serve` turns the
    camera on unless --no-camera)."""


class Soundtrack:
    """The soundtrack file the browser (and the host player) play, rendered in the background."""

    def __init__(self, settings: ServerSettings, timeline: Timeline) -> None:
        self.timeline = timeline
        self.path: Path | None = None
        self.error: str | None = None
        self.ready = threading.Event()
        self._settings = settings

    def prepare(self) -> None:
        """Render (or find in the cache) the soundtrack, or check the user's own file."""
        try:
            if self._settings.audio_file is not None:
                load_wav(self._settings.audio_file)  # fail early on a file we cannot play
                self.path = self._settings.audio_file
            else:
                self.path = cached_soundtrack(self.timeline, self._settings.data_dir / "cache")
        except (OSError, ValueError) as error:
            self.error = f"the soundtrack cannot be played: {error}"
            log.error(self.error)
        finally:
            self.ready.set()

    def host_source(self) -> HostPlayer:
        """Return a host player for the soundtrack (waits for the rendering)."""
        return self.game_host_source(self.timeline)

    def game_host_source(self, timeline: Timeline) -> HostPlayer:
        """Return a host player for the soundtrack of a game's `timeline` (waits for it)."""
        samples, rate = load_wav(self.path_for(timeline))
        return HostPlayer(samples, rate)

    @property
    def own_file(self) -> bool:
        """Tell whether the user's own audio file plays (its timeline cannot change)."""
        return self._settings.audio_file is not None

    def path_for(self, timeline: Timeline, silent: tuple[int, ...] = ()) -> Path:
        """Return the soundtrack file of a game's timeline, the countdowns `silent` left out
        (rendered now unless cached; the server's own is the one `prepare` made)."""
        if timeline == self.timeline and not silent:
            self.ready.wait(timeout=60)
            if self.path is None:
                raise RuntimeError(self.error or "the soundtrack is not ready")
            return self.path
        return cached_soundtrack(timeline, self._settings.data_dir / "cache", silent=silent)

    def clip_path_for(self, timeline: Timeline, n: int) -> Path:
        """Return the file of countdown `n`'s clip (a countdown at a random time's sounds)."""
        return cached_countdown_clip(timeline, n, self._settings.data_dir / "cache")

    def prepare_game(self, timeline: Timeline, timer: TimerOptions | None) -> None:
        """Render a game's own soundtrack and clips in the background, ready in time."""

        def render() -> None:
            try:
                self.path_for(timeline, random_countdowns(timeline, timer))
                for n in random_countdowns(timeline, timer):
                    self.clip_path_for(timeline, n)
            except (OSError, ValueError, RuntimeError) as error:
                log.error("the game's soundtrack cannot be rendered: %s", error)

        threading.Thread(target=render, name="game-soundtrack", daemon=True).start()


def build_session(settings: ServerSettings, timeline: Timeline, soundtrack: Soundtrack) -> Session:
    """Create the session, with host audio when the machine has it."""
    if settings.host_audio:
        probe = probe_host_audio()
        available, reason, notice = probe.available, probe.reason, probe.notice
    else:
        available, reason = False, "host audio is turned off; the browser plays the soundtrack"
        notice = HOST_SOUND_OFF
    audio = AudioPlan(available, reason, soundtrack.host_source if available else None)
    audio.game_host_source = soundtrack.game_host_source if available else None
    audio.prepare_timeline = soundtrack.prepare_game
    audio.host_notice = notice
    if not available:
        audio.notices.append(notice)  # the page says it plainly; the log keeps the details
        log.warning("audio: %s", reason)
    store = GameStore(settings.data_dir / "games")
    return Session(store, timeline, audio)


def create_app(settings: ServerSettings) -> FastAPI:
    """Build the dashboard application for these settings."""
    try:
        timeline = load_timeline(settings.timeline_path)
    except (OSError, RecordError) as error:
        raise ValueError(f"cannot use the timeline: {error}") from error
    soundtrack = Soundtrack(settings, timeline)
    session = build_session(settings, timeline, soundtrack)
    announcer = Announcer(session, settings.data_dir)
    vision = VisionService(session, settings.vision, settings.data_dir) if settings.vision else None
    ring = VideoRing(settings.data_dir, session.notify)
    if vision is not None:
        vision.ring = ring  # the camera's frames of a running game go to its video ring
    dice_routes, dice_teacher = teach_router(vision, settings.data_dir)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        def prepare_soundtrack() -> None:
            soundtrack.prepare()
            if soundtrack.error:
                session.notify(soundtrack.error)

        threading.Thread(target=prepare_soundtrack, name="soundtrack", daemon=True).start()
        if settings.resume:
            resumed = session.resume_latest()
            if resumed:
                log.info("resumed game %s", resumed)
        ticker = asyncio.create_task(_tick_forever(session))
        speaker = asyncio.create_task(announce_forever(announcer))
        if vision is not None:
            await asyncio.to_thread(vision.start)
        try:
            yield
        finally:
            ticker.cancel()
            speaker.cancel()
            dice_teacher.job.shutdown()
            if vision is not None:
                await asyncio.to_thread(vision.stop)
            await asyncio.to_thread(ring.close)
            session.shutdown()

    plain = PlainPaths(settings.data_dir, [Path.home(), Path.cwd(), REPO])
    answers = answer_class(plain)
    app = FastAPI(
        title="templecam dashboard",
        lifespan=lifespan,
        docs_url="/api/docs",
        default_response_class=answers,
    )
    app.state.answer_class = answers
    app.add_exception_handler(SaveFailed, save_failed_answer)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, safe_validation_answer)  # type: ignore[arg-type]
    app.add_exception_handler(StarletteHTTPException, http_error_answer)  # type: ignore[arg-type]
    hosts = allowed_hosts(settings.host)
    app.add_middleware(WriteGuard, hosts=hosts, uploads={UPLOAD_PATH: MAX_UPLOAD_BYTES})
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=hosts)
    app.add_middleware(LanguageMiddleware)  # each page's words in its own language
    app.state.session = session
    app.state.soundtrack = soundtrack
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    _add_pages(app, session)
    _add_api(app, session, soundtrack, plain)
    app.include_router(video_router(session, vision))
    app.include_router(table_router(session, vision, settings.data_dir))
    app.include_router(camera_router(vision, settings.data_dir))
    app.include_router(starting_seen_router(vision))
    app.include_router(dice_routes)
    app.include_router(story_router(session, ring))
    app.include_router(alerts_router(announcer))
    app.include_router(words_router())
    app.state.vision = vision
    return app


async def _tick_forever(session: Session) -> None:
    while True:
        try:
            await asyncio.to_thread(session.tick)
        except Exception:  # a failed tick must not stop the clock for good
            log.exception("clock tick failed")
        await asyncio.sleep(TICK_SECONDS)


def _add_pages(app: FastAPI, session: Session) -> None:
    @app.get("/", include_in_schema=False)
    def home() -> RedirectResponse:
        return RedirectResponse("/game" if session.game is not None else "/setup")

    for page in ("setup", "game", "games", "calibrate", "tiles", "dice"):
        app.add_api_route(f"/{page}", _page(f"{page}.html"), include_in_schema=False)


def _page(name: str) -> Any:
    def serve() -> FileResponse:
        return FileResponse(STATIC / name, headers={"Cache-Control": "no-store"})

    return serve


def _add_api(app: FastAPI, session: Session, soundtrack: Soundtrack, plain: PlainPaths) -> None:
    @app.get("/api/state")
    def state() -> dict[str, Any]:
        """The whole dashboard state."""
        return dashboard_state(session)

    @app.get("/api/time")
    def server_time() -> dict[str, Any]:
        """The server's clock, for the browser to estimate its offset by ping."""
        with session.lock:
            return {
                "server_time": time.time(),
                "position": session.clock.position,
                "status": session.clock.status,
            }

    @app.get("/api/stream")
    async def stream(request: Request) -> StreamingResponse:
        """Server-sent events: the dashboard state each time it changes."""
        return StreamingResponse(
            _state_events(session, request, plain),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    @app.get("/api/modules")
    def modules() -> list[dict[str, Any]]:
        """The modules a new game may play, each with a short description and the choices its
        set-up offers (character cards, quest chambers with their tiles in the asking page's
        language, the calendar's sides and board, the beast chamber's path)."""
        lang = TABLE_LANGUAGE.get()
        return [with_quest_tiles(module_offer(module), lang) for module in offered_modules()]

    @app.get("/api/starting-temple")
    def starting_temple_draw(modules: str = "") -> dict[str, Any]:
        """Draw the two chambers laid beside the start at set-up (page 5), and list every
        chamber that may be drawn, so the set-up page can show the table's own draw."""
        chosen = [m for m in modules.split(",") if m]
        try:
            catalog = setup_catalog(chosen)
        except RecordError as error:
            raise HTTPException(422, str(error)) from None
        candidates = starting_candidates(catalog)
        lang = TABLE_LANGUAGE.get()  # the chambers' names in the asking page's language
        return {
            "start": pile_tile(catalog["start"], lang),
            "candidates": [pile_tile(catalog[tile_id], lang) for tile_id in candidates],
            "drawn": random.sample(candidates, 2),
        }

    @app.post("/api/games", status_code=201)
    def new_game(body: NewGame) -> dict[str, Any]:
        """Start a new game (the previous one stays saved); `timer` sets its own timeline."""
        try:
            line = body.setup_line()
        except RecordError as error:  # a starting chamber that is not in the pile, say
            raise HTTPException(422, str(error)) from None
        if body.timer is not None:
            if soundtrack.own_file:
                raise HTTPException(422, OWN_AUDIO_TIMER)
            line.update(body.timer.setup_fields(session.default_timeline.intro_seconds))
            if session.audio.mode_for(body.audio) == "host":  # rendered before, not under, the lock
                soundtrack.path_for(parse_timeline(line["timeline"]))
        try:
            game_id = session.new_game(line, body.audio)
        except RecordError as error:
            raise HTTPException(422, str(error)) from None
        return {"game_id": game_id, "state": dashboard_state(session)}

    @app.post("/api/event")
    def event(body: EventIn) -> dict[str, Any]:
        """Judge, record and apply one event of the running game (a player's: the clock's own
        events are refused, as is anything before Start). With `key`, a retry is harmless."""
        return _record(session, body.event, body.key)

    @app.post("/api/undo")
    def undo(body: UndoIn | None = None) -> dict[str, Any]:
        """Take back the last player event."""
        return _record(session, {"type": "undo"}, body.key if body else None)

    @app.post("/api/correct")
    def correct(body: CorrectionIn) -> dict[str, Any]:
        """Replace any earlier event line (or strike it out with a null event); the correction
        is a line of the record, and every later line is judged again."""
        event = {"type": "correct", "line": body.line, "event": body.event}
        return _record(session, event, body.key)

    @app.post("/api/clock")
    def clock(body: ClockIn) -> dict[str, Any]:
        """Start, pause, resume or restart the soundtrack and the game clock."""
        try:
            session.clock_action(body.action)
        except SessionError as error:
            raise HTTPException(409, str(error)) from None
        return dashboard_state(session)

    @app.get("/api/games")
    def games() -> list[dict[str, Any]]:
        """Saved games, newest first, each with its outcome as a replay of its record says it."""
        return [
            {**asdict(saved), **_saved_outcome(session, saved.game_id)}
            for saved in session.store.list_games()
        ]

    @app.get("/api/games/{game_id}")
    def saved_game(game_id: str) -> dict[str, Any]:
        """Replay a saved game: every event with its verdict, and the final state."""
        try:
            lines = session.store.read_lines(game_id)
            replay = replay_lines(lines)
        except UnknownGame:
            raise HTTPException(404, f"there is no saved game {game_id!r}") from None
        except RecordError as error:
            raise HTTPException(422, f"saved game {game_id} cannot be replayed: {error}") from None
        written = {line.number: line.value for line in replay.events}
        lang = TABLE_LANGUAGE.get()  # the words in the asking page's language
        return {
            "game_id": game_id,
            **replay.to_json(),
            "words": replay_words(replay.game, lang),
            "events": [
                {
                    "line": line.number,
                    "event": line.value,
                    "text": tell_event(line.value, replay.game, written, lang),
                    "reason_text": None
                    if verdict.reason is None
                    else tell_reason(verdict.reason, replay.game, lang),
                }
                for line, verdict in zip(replay.events, replay.verdicts, strict=True)
            ],
        }

    @app.get("/api/soundtrack.wav")
    async def soundtrack_file(key: str | None = None) -> FileResponse:
        """The running game's soundtrack audio, for the browser to play in step with the
        server's clock (`key`, from the state's url, only names the file); a game's countdowns
        at random times are left out (the page plays their clips from the gong)."""
        with session.lock:
            timeline = session.timeline
            silent = random_countdowns(timeline, session.timer)
        try:
            path = await asyncio.to_thread(soundtrack.path_for, timeline, silent)
        except (OSError, ValueError, RuntimeError) as error:
            raise HTTPException(503, soundtrack.error or str(error)) from None
        return FileResponse(path, media_type="audio/wav")

    @app.get("/api/soundtrack/countdown.wav")
    async def countdown_clip(n: int, key: str | None = None) -> FileResponse:
        """A countdown at a random time's sounds, from its gong on (the same whenever it comes:
        the file tells nothing of when); the state's `audio.clips` names them."""
        with session.lock:
            timeline = session.timeline
            clips = random_countdowns(timeline, session.timer)
        if n not in clips:
            raise HTTPException(404, f"the running game has no countdown {n} at a random time")
        try:
            path = await asyncio.to_thread(soundtrack.clip_path_for, timeline, n)
        except (OSError, ValueError) as error:
            raise HTTPException(503, str(error)) from None
        return FileResponse(path, media_type="audio/wav")


def _saved_outcome(session: Session, game_id: str) -> dict[str, Any]:
    """A saved game's outcome (running, won or lost, who escaped), from a replay of its record;
    `unreadable` with the reason when the record cannot be replayed."""
    try:
        game = replay_lines(session.store.read_lines(game_id)).game
        return outcome_words(game, TABLE_LANGUAGE.get())
    except (UnknownGame, RecordError) as error:
        return {"outcome": "unreadable", "escaped": [], "inside": [], "outcome_text": str(error)}


def _said(session: Session, reason: str) -> str:
    """A refusal in the asking page's language where the catalog words it (English as it is)."""
    lang = TABLE_LANGUAGE.get()
    if lang == "en" or session.game is None:
        return reason
    return tell_reason(reason, session.game, lang)


def _record(session: Session, event: dict[str, Any], key: str | None = None) -> dict[str, Any]:
    try:
        verdict = session.record(event, key=key)
    except UnfitEventError as error:
        raise HTTPException(422, str(error)) from None
    except SessionError as error:
        raise HTTPException(409, _said(session, str(error))) from None
    told = None
    if verdict.reason is not None and session.game is not None:
        told = tell_reason(verdict.reason, session.game, TABLE_LANGUAGE.get())
    return {"verdict": verdict.to_json(), "reason_text": told, "state": dashboard_state(session)}


async def _state_events(
    session: Session, request: Request, plain: PlainPaths
) -> AsyncIterator[str]:
    sent = -1
    quiet = 0.0
    while not await request.is_disconnected():
        if session.version != sent:
            state = plain.value(await asyncio.to_thread(dashboard_state, session))
            sent = state["version"]
            quiet = 0.0
            try:
                yield f"data: {json.dumps(state, allow_nan=False)}\n\n"
            except ValueError as error:  # a page must never get JSON it cannot parse
                log.error("the dashboard state cannot be sent: %s", error)
                problem = {"detail": f"the server cannot send the game's state ({error})"}
                yield f"event: problem\ndata: {json.dumps(problem)}\n\n"
        elif quiet >= STREAM_KEEPALIVE_SECONDS:
            quiet = 0.0
            yield ": keep-alive\n\n"
        await asyncio.sleep(STREAM_POLL_SECONDS)
        quiet += STREAM_POLL_SECONDS
