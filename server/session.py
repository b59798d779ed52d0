"""The live game: rules engine, game clock and saved record, kept in step behind one lock."""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rules import module_time
from rules.engine import CLOCK_EVENTS, Game, JudgedLine, Verdict
from rules.errors import RecordError
from rules.finite import UnfitJSONError, check_fit
from rules.narrative import tell_event
from rules.record import parse_lines
from rules.timeline import COUNTDOWN_NUMBERS, Timeline
from rules.timer_options import TimerOptions
from server.clock import GameClock, PositionSource, Stopwatch
from server.host_audio import HOST_SOUND_FAILED
from server.store import GameStore, SaveFailed, UnknownGame
from server.timer_options import with_new_times

log = logging.getLogger(__name__)

RESUME_RUNNING_WITHIN_SECONDS = 120.0
"""A game whose server was down longer than this resumes paused, so nobody is surprised."""
META_SAVE_INTERVAL_SECONDS = 1.0
LOG_LENGTH = 200
NOTICES_KEPT = 4
KEYS_KEPT = 512
"""Idempotency keys remembered (a retry comes within seconds; a game has a few hundred events)."""
NOT_STARTED = "the game has not started: press Start (the soundtrack) before playing"
IN_TIME_OUT = (
    "the music is paused by {who}'s Time out: press play on the dashboard (end the Time out) "
    "to go on"
)


class SessionError(Exception):
    """A request the session cannot carry out now; the message says why and what to do."""


class UnfitEventError(SessionError):
    """An event that JSON-in-UTF-8 cannot carry, or a key reused for another event."""


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
    game_host_source: Callable[[Timeline], PositionSource] | None = None
    """Makes the host's player of a game's own timeline (its timer options), when it has one."""
    prepare_timeline: Callable[[Timeline, TimerOptions | None], None] | None = None
    """Gets a game's own timeline's soundtracks ready (in the background) when it starts."""
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
        self.default_timeline = timeline
        """The server's timeline: a game's own when its set-up chose no timer options."""
        self.timeline = timeline
        """The running game's timeline (the server's, or the one its timer options made)."""
        self.timer: TimerOptions | None = None
        """The running game's timer options, when its set-up chose any."""
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
        self._answered: OrderedDict[str, tuple[dict[str, Any], Verdict]] = OrderedDict()
        """Idempotency key -> the event it came with and its verdict, for retried requests."""
        self._held_by_time_out = False
        """True while the Maze's Time out holds the clock (its `end` lets it go on)."""

    # ----- starting, resuming -------------------------------------------------------------

    def new_game(self, setup_line: dict[str, Any], audio_mode: str = "auto") -> str:
        """Start a new game from a setup line (raises `RecordError` if it is not valid, and
        `SaveFailed` when the disk refuses it: then the running game goes on untouched)."""
        numbers = tuple(countdown.n for countdown in self.default_timeline.countdowns)
        if "timeline" not in setup_line and numbers != COUNTDOWN_NUMBERS:
            # A --timeline of other than 3 countdowns: the record says which, so that the
            # engine's countdown numbers (and a replay) follow it.
            setup_line = {**setup_line, "timeline": self.default_timeline.to_json()}
        game = Game.from_setup_line(setup_line)
        with self.lock:
            mode = self.audio.mode_for(audio_mode)
            created = time.time()
            meta = {"created": created, "audio_mode": mode, "clock": {"status": "ready"}}
            game_id = self.store.create(setup_line, meta)
            self._stop_clock()
            self.game_id, self.created = game_id, created
            self.game, self.setup_line, self.audio_mode = game, setup_line, mode
            self._use_timeline(game)
            self.clock = GameClock(self.timeline, self._source_for(mode))
            self._lines = 1
            self._last_t = -self.timeline.intro_seconds
            self._answered.clear()
            self._held_by_time_out = False
            self._changed()
            log.info("new game %s: %s, audio %s", self.game_id, setup_line["players"], mode)
            return game_id

    def start_over_in_place(self, at: float) -> None:
        """Start the running game over in its own saved game (its record back to the setup
        line), the clock running `at` s after "Escape!": the demo's loop. Raises `SaveFailed`
        (nothing changed) when the disk refuses."""
        with self.lock:
            game_id = self.game_id
            if game_id is None or self.setup_line is None:
                raise SessionError("no game is running: start one on the set-up page")
            self.store.start_over(game_id, self.setup_line)
            self.game = Game.from_setup_line(self.setup_line)
            self._lines = 1
            self._answered.clear()
            self._held_by_time_out = False
            self.move_clock(at)
            self._last_t = at
            self._save_meta()

    def move_clock(self, at: float) -> None:
        """Run the game clock from `at` s after "Escape!" (the demo keeps it with its video)."""
        with self.lock:
            self.clock.start(self.timeline.intro_seconds + at)
            self._changed()

    def _use_timeline(self, game: Game | None) -> None:
        """Play the game's own timeline (its timer options), else the server's."""
        own = game.setup.timeline if game is not None else None
        self.timeline = own or self.default_timeline
        self.timer = game.setup.timer if game is not None else None
        if own is not None and self.audio.prepare_timeline is not None:
            self.audio.prepare_timeline(own, self.timer)

    def _source_for(self, mode: str) -> PositionSource:
        if mode == "host" and self.audio.make_host_source is not None:
            try:
                own = self.audio.game_host_source
                if own is not None and self.timeline != self.default_timeline:
                    return own(self.timeline)
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
            self._use_timeline(game)
            self._lines = parsed[-1].number
            self._answered.clear()
            for line in parsed[1:]:
                game.apply(line.value, line.number)
            self.created = float(meta.get("created", time.time()))
            self.audio_mode = self.audio.mode_for(str(meta.get("audio_mode", "auto")))
            self.clock = GameClock(self.timeline, self._source_for(self.audio_mode))
            self._restore_clock(meta.get("clock", {}), meta.get("last_t"))
            self._held_by_time_out = False
            self._follow_time_out()
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
        self._use_timeline(None)
        self.clock = GameClock(self.timeline, self._silent_source())
        self._changed()

    # ----- events --------------------------------------------------------------------------

    def record(
        self, event: dict[str, Any], source: str = "manual", key: str | None = None
    ) -> Verdict:
        """Stamp an event with the game clock, judge it, save it and tell every page.

        Raises `UnfitEventError` (nothing is saved) for an event holding what JSON in UTF-8 cannot
        carry, or a `key` already used for another event; `SessionError` for an event before
        Start, during the introduction (before "Escape!"), or one only the clock may emit; and
        `SaveFailed` when the disk refuses the line (the game stays as it was). A `key` seen
        before answers with the verdict given then, and records nothing again.
        """
        try:
            check_fit(event)
        except UnfitJSONError as error:
            raise UnfitEventError(f"the event is not valid JSON: {error}") from None
        with self.lock:
            game = self._require_game()
            if key is not None and key in self._answered:
                return self._answer_again(key, event)
            self._check_time(game, event)
            if event.get("type") == "undo" and "line" not in event:
                target = game.undo_target()
                if target is not None:
                    event = {**event, "line": target}  # saved bound to the line it takes back
            stamped = {**event, "t": round(max(0.0, self.clock.t), 2)}
            if source != "manual":
                stamped["source"] = source
            verdict = self._commit(game, stamped)
            if key is not None:
                self._answered[key] = (event, verdict)
                while len(self._answered) > KEYS_KEPT:
                    self._answered.popitem(last=False)
            self._save_meta()
            return verdict

    def _answer_again(self, key: str, event: dict[str, Any]) -> Verdict:
        """The verdict a retried request got the first time (the same key, the same event)."""
        first, verdict = self._answered[key]
        same = first == event or (
            event.get("type") == "undo" and first.get("type") == "undo" and "line" not in event
        )
        if not same:
            raise UnfitEventError(
                f"the key {key!r} was already used for another event: send a new key with "
                "each new event"
            )
        return verdict

    def _commit(self, game: Game, event: dict[str, Any]) -> Verdict:
        """Judge an event and append it to the saved record; only once it is on disk is it the
        live game's. A refused write (`SaveFailed`) leaves the game, the line count and the
        clock as they were (a Time out it held or let go is undone; the clock stood still at
        most while the write was tried)."""
        number = self._lines + 1
        was_over = game.outcome != "running"
        was_running, was_held = self.clock.status == "running", self._held_by_time_out
        verdict = game.apply(event, number)
        # A Time out holds the clock from the moment it is judged, not once the disk has taken
        # the line: a slow write would otherwise move the clock past the event's own `t`.
        self._follow_time_out()
        try:
            self.store.append(self.game_id or "", event)
        except SaveFailed:
            game.withdraw(number)
            self._held_by_time_out = was_held
            if was_running and self.clock.status == "paused":
                self.clock.resume()
            elif not was_running and self.clock.status == "running":
                self.clock.pause()
            raise
        self._lines = number
        if game.outcome != "running":
            self.clock.finish()
        elif was_over:  # a correction took the game's end back: the game goes on
            self.clock.reopen()
            self.notify("The game goes on: the clock waits where the game ended; press Resume.")
        self._follow_time_out()
        self._changed()
        return verdict

    def time_out_by(self) -> str | None:
        """The player whose Time out (the Maze) holds the music now, or None."""
        maze = getattr(self.game, "maze", None) if self.game is not None else None
        who = getattr(maze, "paused_by", None)
        return who if isinstance(who, str) else None

    def _follow_time_out(self) -> None:
        """Hold the clock and the soundtrack while the record says a Time out paused the music,
        and let them go on when it ends (an undo or correction of it included); a pause the
        table pressed itself is left alone."""
        held = self.time_out_by() is not None and self.game is not None
        if held and self.game is not None and self.game.outcome == "running":
            if self.clock.status == "running":
                self.clock.pause()
            self._held_by_time_out = self.clock.status == "paused"
        elif self._held_by_time_out:
            self._held_by_time_out = False
            self.clock.resume()

    def before_escape(self) -> bool:
        """Tell whether the soundtrack's introduction is playing: started, before "Escape!"."""
        return self.clock.status in ("running", "paused") and self.clock.t < 0

    def _check_time(self, game: Game, event: dict[str, Any]) -> None:
        """Refuse what no player may send now: the clock's own events (countdowns, the
        collapse, a sand timer's end) at any time, and anything before Start; a player's
        action while the introduction plays (the clock before "Escape!")."""
        kind = event.get("type")
        if kind in game.clock_events:
            raise SessionError(
                f"{kind} comes from the game clock: the dashboard records it when the "
                "soundtrack gets there"
            )
        if self.clock.status == "ready":
            raise SessionError(NOT_STARTED)
        if kind in ("undo", "correct"):
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
                who = self.time_out_by()
                if who is not None:
                    raise SessionError(IN_TIME_OUT.format(who=who.capitalize()))
                self.clock.resume()
            elif action == "restart":
                assert self.setup_line is not None
                self.new_game(with_new_times(self.setup_line), self.audio_mode)
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
            try:
                for event in self.timeline.events_between(self._last_t, now):
                    if self.game.outcome != "running":
                        break
                    self._commit(self.game, event)
                    self._last_t = max(self._last_t, float(event.get("t", self._last_t)))
                for event in module_time.due(self.game, now):  # module 8's sand timers run out
                    if self.game.outcome != "running":
                        break
                    self._commit(self.game, {**event, "t": round(now, 2)})
            except SaveFailed as error:  # tried again at the next tick, from the same place
                self.notify(str(error))
                return
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
        try:
            self.store.write_meta(self.game_id, meta)
        except SaveFailed as error:  # the record is saved; the clock is saved again next second
            log.warning("%s", error)
            self.notify(str(error))

    def notify(self, message: str) -> None:
        """Show a notice on every open dashboard page (once: a repeated notice moves to the end,
        and only the last few are kept)."""
        with self.lock:
            if self.notices and self.notices[-1] == message:
                return  # said already, and the last thing said: no page needs it again
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
