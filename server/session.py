"""The live game: rules engine, game clock and saved record, kept in step behind one lock."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rules import module_time
from rules.engine import CLOCK_EVENTS, Game, JudgedLine, Verdict
from rules.errors import RecordError
from rules.finite import non_finite_path, not_finite_message
from rules.narrative import tell_event
from rules.record import parse_lines
from rules.timeline import Timeline
from server.clock import GameClock, PositionSource, Stopwatch
from server.host_audio import HOST_SOUND_FAILED
from server.store import GameStore, UnknownGame

log = logging.getLogger(__name__)

RESUME_RUNNING_WITHIN_SECONDS = 120.0
"""A game whose server was down longer than this resumes paused, so nobody is surprised."""
META_SAVE_INTERVAL_SECONDS = 1.0
LOG_LENGTH = 200
NOTICES_KEPT = 4


class SessionError(Exception):
    """A request the session cannot carry out now; the message says why and what to do."""


@dataclass(frozen=True)
class LogEntry:
    """One event line of the game as the dashboard's log shows it (corrections applied)."""

    line: int
    event: dict[str, Any]
    """The event as written on the line."""
    ok: bool
    reason: str | None
    """Why the line is rejected as the record stands now (None when it is accepted)."""
    text: str
    """The event as written, in a player's words (names and chambers, no ids or cells)."""
    source: str
    corrected_by: int | None = None
    """The line of the last correction of this line, if any."""
    replacement: dict[str, Any] | None = None
    """The event as corrected (None when struck out or never corrected)."""
    undone_by: int | None = None
    """The line of the undo that took this line back, if one did."""

    @property
    def struck(self) -> bool:
        """Tell whether a correction struck the line out."""
        return self.corrected_by is not None and self.replacement is None


@dataclass
class AudioPlan:
    """How this server plays the soundtrack: on the host, in the browser, or not at all."""

    host_available: bool
    host_reason: str
    make_host_source: Callable[[], PositionSource] | None = None
    notices: list[str] = field(default_factory=list)
    host_notice: str = ""
    """Why the host does not play, in a player's words (empty when it does)."""

    def mode_for(self, requested: str) -> str:
        """Resolve a requested mode (`auto`, `host`, `browser`, `off`) to what will happen."""
        if requested in ("auto", "host"):
            return "host" if self.host_available and self.make_host_source else "browser"
        return requested


class Session:
    """The one game this server runs: apply events, run the clock, save everything."""

    def __init__(
        self,
        store: GameStore,
        timeline: Timeline,
        audio: AudioPlan,
        silent_source: Callable[[], PositionSource] = Stopwatch,
    ) -> None:
        self.store = store
        self._silent_source = silent_source
        self.timeline = timeline
        self.audio = audio
        self.lock = threading.RLock()
        self.game: Game | None = None
        self.game_id: str | None = None
        self.setup_line: dict[str, Any] | None = None
        self.audio_mode = "off"
        self.clock = GameClock(timeline, silent_source())
        self.notices: list[str] = list(audio.notices)
        self.version = 0
        self._lines = 0
        self._last_t = -timeline.intro_seconds
        self._last_meta_save = 0.0
        self.created = 0.0

    # ----- starting, resuming -------------------------------------------------------------

    def new_game(self, setup_line: dict[str, Any], audio_mode: str = "auto") -> str:
        """Start a new game from a setup line (raises `RecordError` if it is not valid)."""
        game = Game.from_setup_line(setup_line)
        with self.lock:
            self._stop_clock()
            mode = self.audio.mode_for(audio_mode)
            self.created = time.time()
            meta = {"created": self.created, "audio_mode": mode, "clock": {"status": "ready"}}
            self.game_id = self.store.create(setup_line, meta)
            self.game, self.setup_line, self.audio_mode = game, setup_line, mode
            self.clock = GameClock(self.timeline, self._source_for(mode))
            self._lines = 1
            self._last_t = -self.timeline.intro_seconds
            self._changed()
            log.info("new game %s: %s, audio %s", self.game_id, setup_line["players"], mode)
            return self.game_id

    def _source_for(self, mode: str) -> PositionSource:
        if mode == "host" and self.audio.make_host_source is not None:
            try:
                return self.audio.make_host_source()
            except Exception as error:  # a device can vanish between the probe and now
                self.notify(HOST_SOUND_FAILED)
                log.warning("host audio failed: %s", error)
                self.audio_mode = "browser"
        return self._silent_source()

    def resume(self, game_id: str) -> None:
        """Load a saved game and carry on where it was, clock included."""
        lines = self.store.read_lines(game_id)
        parsed = parse_lines(lines)
        if not parsed:
            raise RecordError(f"saved game {game_id} is empty")
        game = Game.from_setup_line(parsed[0].value)
        meta = self.store.read_meta(game_id)
        with self.lock:
            self._stop_clock()
            self.game, self.game_id, self.setup_line = game, game_id, parsed[0].value
            self._lines = parsed[-1].number
            for line in parsed[1:]:
                game.apply(line.value, line.number)
            self.created = float(meta.get("created", time.time()))
            self.audio_mode = self.audio.mode_for(str(meta.get("audio_mode", "auto")))
            self.clock = GameClock(self.timeline, self._source_for(self.audio_mode))
            self._restore_clock(meta.get("clock", {}), meta.get("last_t"))
            self._changed()

    def _restore_clock(self, saved: dict[str, Any], last_t: Any) -> None:
        status = saved.get("status", "ready")
        position = float(saved.get("position", 0.0))
        if self.game is not None and self.game.outcome != "running":
            self.clock.start(position, running=False)
            self.clock.finish()
            return
        if status in ("running", "paused"):
            down = max(0.0, time.time() - float(saved.get("saved_at", time.time())))
            if status == "running" and down <= RESUME_RUNNING_WITHIN_SECONDS:
                self.clock.start(position + down)
                self.notify(f"Resumed after a restart; {down:.0f} s passed meanwhile.")
            else:
                self.clock.start(position, running=False)
                if status == "running":
                    self.notify(
                        f"The server was down {down:.0f} s: the game is paused where it was."
                    )
        self._last_t = float(last_t) if isinstance(last_t, int | float) else self.clock.t

    def resume_latest(self) -> str | None:
        """Resume the newest readable saved game if it is still running; return its id."""
        for saved in self.store.list_games():
            try:
                self.resume(saved.game_id)
            except (RecordError, UnknownGame) as error:
                log.warning("cannot resume %s: %s", saved.game_id, error)
                continue
            if self.game is not None and self.game.outcome == "running":
                return saved.game_id
            self._forget()
            return None
        return None

    def _forget(self) -> None:
        self.game = self.game_id = self.setup_line = None
        self.clock = GameClock(self.timeline, self._silent_source())
        self._changed()

    # ----- events --------------------------------------------------------------------------

    def record(self, event: dict[str, Any], source: str = "manual") -> Verdict:
        """Stamp an event with the game clock, judge it, save it and tell every page.

        Raises `SessionError` (nothing is saved) for an event holding a number JSON does not
        have, and for a player's action during the introduction, before "Escape!".
        """
        where = non_finite_path(event)
        if where is not None:
            raise SessionError(f"the event is not valid JSON: {not_finite_message(where)}")
        with self.lock:
            game = self._require_game()
            self._check_time(event)
            if event.get("type") == "undo" and "line" not in event:
                target = game.undo_target()
                if target is not None:
                    event = {**event, "line": target}  # saved bound to the line it takes back
            stamped = {**event, "t": round(max(0.0, self.clock.t), 2)}
            if source != "manual":
                stamped["source"] = source
            verdict = self._commit(game, stamped)
            self._save_meta()
            return verdict

    def _commit(self, game: Game, event: dict[str, Any]) -> Verdict:
        """Judge an event, append it to the saved record, stop a finished clock."""
        self._lines += 1
        verdict = game.apply(event, self._lines)
        self.store.append(self.game_id or "", event)
        if game.outcome != "running":
            self.clock.finish()
        self._changed()
        return verdict

    def before_escape(self) -> bool:
        """Tell whether the soundtrack's introduction is playing: started, before "Escape!"."""
        return self.clock.status in ("running", "paused") and self.clock.t < 0

    def _check_time(self, event: dict[str, Any]) -> None:
        """Refuse a player's action while the introduction plays (the clock before "Escape!")."""
        kind = event.get("type")
        if kind in CLOCK_EVENTS or kind in ("undo", "correct"):
            return
        if self.before_escape():
            wait = max(1, round(-self.clock.t))
            raise SessionError(
                f'the game has not begun: nobody may act before "Escape!" ({wait} s from now)'
            )

    @property
    def log(self) -> list[LogEntry]:
        """The game's last event lines, as the record stands now (corrections applied)."""
        if self.game is None:
            return []
        game = self.game
        written = {judged.line: judged.event for judged in game.lines}
        return [_log_entry(judged, game, written) for judged in game.lines[-LOG_LENGTH:]]

    def _require_game(self) -> Game:
        if self.game is None:
            raise SessionError("no game is running: start one on the set-up page")
        return self.game

    # ----- the clock -----------------------------------------------------------------------

    def clock_action(self, action: str) -> None:
        """Start, pause, resume or restart the soundtrack and the game clock."""
        with self.lock:
            self._require_game()
            if action == "start":
                if self.clock.status != "ready":
                    raise SessionError("the soundtrack has already started; use restart")
                self.clock.start(0.0)
            elif action == "pause":
                if self.clock.status != "running":
                    raise SessionError("the clock is not running")
                self.clock.pause()
            elif action == "resume":
                if self.clock.status != "paused":
                    raise SessionError("the clock is not paused")
                self.clock.resume()
            elif action == "restart":
                assert self.setup_line is not None
                self.new_game(self.setup_line, self.audio_mode)
                self.clock.start(0.0)
            else:
                raise SessionError(f"unknown clock action {action!r}")
            self._changed()
            self._save_meta()

    def tick(self) -> None:
        """Emit the timeline's events that the clock has reached; call this often."""
        with self.lock:
            if self.game is None or self.clock.status != "running":
                return
            now = self.clock.t
            if self._last_t < 0 <= now:
                self._changed()  # "Escape!": every page learns that the players may act
            for event in self.timeline.events_between(self._last_t, now):
                if self.game.outcome != "running":
                    break
                self._commit(self.game, event)
            for event in module_time.due(self.game, now):  # module 8's sand timers run out
                if self.game.outcome != "running":
                    break
                self._commit(self.game, {**event, "t": round(now, 2)})
            self._last_t = now
            if time.monotonic() - self._last_meta_save >= META_SAVE_INTERVAL_SECONDS:
                self._save_meta()

    def _stop_clock(self) -> None:
        if self.clock.status == "running":
            self.clock.pause()

    def _save_meta(self) -> None:
        if self.game_id is None:
            return
        self._last_meta_save = time.monotonic()
        meta = {
            "created": self.created,
            "audio_mode": self.audio_mode,
            "clock": {
                "status": self.clock.status,
                "position": self.clock.position,
                "saved_at": time.time(),
            },
            "last_t": self._last_t,
        }
        self.store.write_meta(self.game_id, meta)

    def notify(self, message: str) -> None:
        """Show a notice on every open dashboard page (once: a repeated notice moves to the end,
        and only the last few are kept)."""
        with self.lock:
            if message in self.notices:
                self.notices.remove(message)
            self.notices.append(message)
            del self.notices[:-NOTICES_KEPT]
            self._changed()

    def _changed(self) -> None:
        self.version += 1

    def shutdown(self) -> None:
        """Save the clock and stop the audio (the game resumes on the next start)."""
        with self.lock:
            self._save_meta()
            self._stop_clock()


def _log_entry(judged: JudgedLine, game: Game, written: dict[int, Any]) -> LogEntry:
    replacement = None if judged.replacement is None else dict(judged.replacement)
    return LogEntry(
        line=judged.line,
        event=judged.event,
        ok=judged.verdict.ok,
        reason=judged.verdict.reason,
        text=tell_event(judged.event, game, written),
        source=_source_of(judged.event),
        corrected_by=judged.corrected_by,
        replacement=replacement,
        undone_by=judged.undone_by,
    )


def _source_of(event: Any) -> str:
    if isinstance(event, dict):
        if event.get("type") in CLOCK_EVENTS or event.get("type") == "time_up":
            return "clock"  # the soundtrack's, or a sand timer run out (module 8)
        return str(event.get("source", "manual"))
    return "manual"
