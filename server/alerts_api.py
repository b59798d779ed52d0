"""Spoken alerts at the table: the announcer that renders and plays them, and their routes.

After each look at the game (`AlertWatcher`), the announcer speaks what the table wants to hear
(`AlertSettings`): it renders the words once with espeak-ng into a WAV cached by words, language,
voice and rate, mixes it over the soundtrack on the host's speakers when the host plays, and
announces it on `GET /api/alerts/stream` (server-sent events) for the page that plays the
soundtrack to fetch (`GET /api/alerts/<id>.wav`) and play over it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import threading
import time
from collections import deque
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from base.words import told_by_template
from server.alert_words import LANGUAGES, Spoken, say
from server.alerts import AlertSettings, AlertWatcher, load_settings, save_settings, wanted
from server.host_audio import HostPlayer
from server.session import Session
from server.soundtrack import load_wav, write_wav
from server.speech import MISSING_NOTICE, SpeechError, find_engine, speak
from server.voice_mix import VoiceOver
from server.words_api import TABLE_LANGUAGE

log = logging.getLogger(__name__)

VOICE_VERSION = "2"
"""Bump when the speaking changes (rate, level), so that cached voices are made again."""
BROWSER_RATE = 22050
"""The rate of the voices a page fetches (its browser resamples to its own)."""
LOOK_SECONDS = 0.1
STREAM_POLL_SECONDS = 0.1
STREAM_KEEPALIVE_SECONDS = 15.0
ANNOUNCED_KEPT = 32
STALE_SECONDS = 8.0
"""A page that reconnects hears again only what was announced this recently."""
_CLIP_ID = re.compile(r"^[0-9a-f]{16}$")


class AlertSettingsIn(BaseModel):
    """A change of the table's alert settings (any of them)."""

    model_config = ConfigDict(extra="forbid")

    frequency: Literal["all", "countdowns", "off"] | None = None
    volume: float | None = Field(None, ge=0.0, le=1.0)
    language: Literal["en", "pt", "es", "el"] | None = None


class Announcer:
    """Looks at the session's game, and speaks and announces the alerts the table wants."""

    def __init__(self, session: Session, data_dir: Path) -> None:
        self.session = session
        self.data_dir = data_dir
        self.cache = data_dir / "cache" / "alerts"
        self.settings = load_settings(data_dir)
        self.watcher = AlertWatcher(session.timeline)
        self._lock = threading.Lock()
        self._announced: deque[dict[str, Any]] = deque(maxlen=ANNOUNCED_KEPT)
        self._seq = 0
        self.engine = find_engine()
        if self.engine is None and self.settings.frequency != "off":
            session.notify(MISSING_NOTICE)

    # ----- the table's choice --------------------------------------------------------------

    def change(self, change: AlertSettingsIn) -> AlertSettings:
        """Apply and remember a change of the settings (raises `OSError` if it cannot be saved:
        then nothing changed)."""
        with self._lock:
            values = {**self.settings.to_json(), **change.model_dump(exclude_none=True)}
            settings = AlertSettings(**values)
            save_settings(self.data_dir, settings)
            self.settings = settings
        if settings.frequency != "off" and find_engine() is None:
            self.session.notify(MISSING_NOTICE)
        return settings

    def describe(self) -> dict[str, Any]:
        """The settings, the choices, and whether this computer can speak (the notice in the
        asking page's language)."""
        available = find_engine() is not None
        lang = TABLE_LANGUAGE.get()
        return {
            **self.settings.to_json(),
            "frequencies": ["all", "countdowns", "off"],
            "languages": list(LANGUAGES),
            "engine": {
                "available": available,
                "notice": "" if available else told_by_template(lang, "notice.", MISSING_NOTICE),
            },
        }

    # ----- looking and speaking ------------------------------------------------------------

    def look(self) -> list[dict[str, Any]]:
        """Look at the game once; speak and announce what the table wants; return it."""
        session = self.session
        with session.lock:
            running = session.clock.status == "running"
            self.watcher.timeline = session.timeline  # the game's own (its timer options)
            alerts = self.watcher.look(session.game_id, session.game, session.clock.t, running)
            source = session.clock.source if session.audio_mode == "host" else None
        settings = self.settings
        return [
            self.announce(alert.words(settings.language), alert.category, alert.key, source)
            for alert in alerts
            if wanted(alert, settings.frequency)
        ]

    def try_voice(self) -> dict[str, Any]:
        """Speak a short sample now, at the chosen volume (the table's "Try" button)."""
        session = self.session
        with session.lock:
            source = session.clock.source if session.audio_mode == "host" else None
        words = say("alert.try", self.settings.language)
        return self.announce(words, "game", "alert.try", source)

    def announce(
        self, words: Spoken, category: str, key: str, source: object | None = None
    ) -> dict[str, Any]:
        """Render `words`, mix them over the host's soundtrack when `source` is the host
        player, and announce them to the pages."""
        volume = self.settings.volume
        clip, notice = None, ""
        try:
            clip = self.voice(words, BROWSER_RATE)
            if isinstance(source, HostPlayer):
                samples, _ = load_wav(self.voice(words, source.sample_rate))
                source.say(VoiceOver(samples, source.sample_rate, volume))
        except SpeechError as error:
            notice = str(error)
            self.session.notify(notice if find_engine() is not None else MISSING_NOTICE)
        except (OSError, ValueError) as error:  # a full disk, a cache file gone bad
            notice = f"the alert could not be spoken: {error}"
            log.warning("%s", notice)
        with self._lock:
            self._seq += 1
            announced = {
                "seq": self._seq,
                "key": key,
                "category": category,
                "text": words.text,
                "language": words.language,
                "volume": volume,
                "url": None if clip is None else f"/api/alerts/{clip.stem}.wav",
                "notice": notice,
                "server_time": time.time(),
            }
            self._announced.append(announced)
        log.info("alert: %s", words.text)
        return announced

    def voice(self, words: Spoken, rate: int) -> Path:
        """The cached WAV of `words` at `rate` (rendered with espeak-ng the first time)."""
        key = json.dumps(
            [words.text, words.language, words.voice, rate, "espeak-ng", VOICE_VERSION]
        )
        path = self.cache / f"{hashlib.sha256(key.encode('utf-8')).hexdigest()[:16]}.wav"
        if not path.exists():
            samples = speak(words.text, words.voice, rate)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_wav(samples, rate, path)
        return path

    def since(self, seq: int) -> list[dict[str, Any]]:
        """The alerts announced after `seq`, announced in the last `STALE_SECONDS`."""
        fresh = time.time() - STALE_SECONDS
        with self._lock:
            return [a for a in self._announced if a["seq"] > seq and a["server_time"] >= fresh]

    @property
    def last_seq(self) -> int:
        """Return the number of the latest announcement (0 before the first)."""
        with self._lock:
            return self._seq


async def announce_forever(announcer: Announcer) -> None:
    """Look at the game ten times a second, for as long as the server runs."""
    while True:
        try:
            await asyncio.to_thread(announcer.look)
        except Exception:  # a failed look must not silence the alerts for good
            log.exception("the spoken alerts' look failed")
        await asyncio.sleep(LOOK_SECONDS)


def alerts_router(announcer: Announcer) -> APIRouter:
    """Return the spoken alerts' routes."""
    router = APIRouter()

    @router.get("/api/alerts/settings")
    def settings() -> dict[str, Any]:
        """How often and how loud the alerts speak, in which language; and whether they can."""
        return announcer.describe()

    @router.put("/api/alerts/settings")
    def change_settings(body: AlertSettingsIn) -> dict[str, Any]:
        """Change and remember the table's alert settings."""
        try:
            announcer.change(body)
        except OSError as error:
            raise HTTPException(
                507, f"the alert settings could not be saved ({error.strerror or error})"
            ) from None
        return announcer.describe()

    @router.post("/api/alerts/try")
    def try_voice() -> dict[str, Any]:
        """Speak a sample alert now, where the soundtrack plays (its notice in the asking
        page's language)."""
        tried = announcer.try_voice()
        notice = told_by_template(TABLE_LANGUAGE.get(), "notice.", tried.get("notice") or "")
        return {**tried, "notice": notice or tried.get("notice")}

    @router.get("/api/alerts/stream")
    async def stream(request: Request) -> StreamingResponse:
        """Server-sent events: each alert as it is announced (`id:` is its number)."""
        last = request.headers.get("last-event-id", "")
        start = int(last) if last.isdigit() else announcer.last_seq
        return StreamingResponse(
            _alert_events(announcer, request, start),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    @router.get("/api/alerts/{clip}.wav")
    def clip_file(clip: str) -> FileResponse:
        """A rendered alert's voice (16-bit mono WAV), cached by its words."""
        path = announcer.cache / f"{clip}.wav"
        if not _CLIP_ID.match(clip) or not path.is_file():
            raise HTTPException(404, "there is no such spoken alert: it was never announced")
        return FileResponse(
            path, media_type="audio/wav", headers={"Cache-Control": "max-age=86400"}
        )

    return router


async def _alert_events(announcer: Announcer, request: Request, seq: int) -> AsyncIterator[str]:
    quiet = 0.0
    yield f"retry: 1000\nevent: hello\ndata: {json.dumps({'seq': seq})}\n\n"
    while not await request.is_disconnected():
        fresh = announcer.since(seq)
        for alert in fresh:
            seq = alert["seq"]
            yield f"id: {seq}\ndata: {json.dumps(alert)}\n\n"
        if fresh:
            quiet = 0.0
        elif quiet >= STREAM_KEEPALIVE_SECONDS:
            quiet = 0.0
            yield ": keep-alive\n\n"
        await asyncio.sleep(STREAM_POLL_SECONDS)
        quiet += STREAM_POLL_SECONDS
