"""Which spoken alerts the game calls for, and which of them the table wants to hear.

`AlertWatcher` looks at the live game (the real engine's state and its judged lines) and the
game clock after every tick, and says what changed that a table should hear: a countdown begins
with players outside the starting chamber, a door slams (or the temple collapses) in ten
seconds, gems left in the depot, a player cursed, a sand timer run out. An `Alert` is
language-free (keys and player ids); `alert_words` puts it in words. `AlertSettings` is the
table's choice (all, the countdowns only, off; the volume; the language), kept in the data
folder.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from base.files import write_atomically
from rules import module_special, module_time
from rules.engine import Game
from rules.timeline import Timeline
from server.alert_words import ENGLISH, LANGUAGES, Players, Spoken, Value, Word, say

log = logging.getLogger(__name__)

WARNING_SECONDS = 10.0
"""The door-slam (and collapse) warning comes this long before the countdown's end."""
LARGEST_STEP_SECONDS = 1.5
"""A clock that jumped further than this between two looks (a restart, a resume at another
place) announces nothing it jumped over."""
SETTINGS_FILE = "alerts.json"

Frequency = Literal["all", "countdowns", "off"]
FREQUENCIES: tuple[Frequency, ...] = ("all", "countdowns", "off")
Category = Literal["countdown", "game"]


@dataclass(frozen=True)
class Alert:
    """One thing to say: its words' key and placeholders, and whether it is a countdown's."""

    key: str
    category: Category
    values: tuple[tuple[str, Value], ...] = ()

    def words(self, language: str) -> Spoken:
        """Return the alert in `language` (English where the catalog lacks words)."""
        return say(self.key, language, **dict(self.values))


def wanted(alert: Alert, frequency: str) -> bool:
    """Tell whether a table that chose `frequency` hears `alert`."""
    if frequency == "all":
        return True
    return frequency == "countdowns" and alert.category == "countdown"


@dataclass(frozen=True)
class AlertSettings:
    """The table's choice: how often (all, countdowns, off), how loud (0-1), which language."""

    frequency: Frequency = "all"
    volume: float = 0.8
    language: str = "en"

    def __post_init__(self) -> None:
        if self.frequency not in FREQUENCIES:
            raise ValueError(
                f"spoken alerts are 'all', 'countdowns' or 'off', not {self.frequency!r}"
            )
        if not isinstance(self.volume, int | float) or not 0.0 <= self.volume <= 1.0:
            raise ValueError(f"the alerts' volume is 0 to 1, not {self.volume!r}")
        if self.language not in LANGUAGES:
            raise ValueError(f"spoken alerts speak {', '.join(LANGUAGES)}, not {self.language!r}")
        object.__setattr__(self, "volume", float(self.volume))

    def to_json(self) -> dict[str, Any]:
        """Return the settings as the file and the API write them."""
        return asdict(self)


def load_settings(data_dir: Path) -> AlertSettings:
    """Read the table's alert settings; the defaults when none are saved or the file is bad."""
    path = data_dir / SETTINGS_FILE
    try:
        saved = json.loads(path.read_text("utf-8"))
        return AlertSettings(**{k: saved[k] for k in ("frequency", "volume", "language")})
    except FileNotFoundError:
        return AlertSettings()
    except (OSError, ValueError, TypeError, KeyError) as error:
        log.warning("the saved alert settings cannot be read (%s): using the defaults", error)
        return AlertSettings()


def save_settings(data_dir: Path, settings: AlertSettings) -> None:
    """Remember the table's alert settings (the whole file or nothing)."""
    write_atomically(data_dir / SETTINGS_FILE, json.dumps(settings.to_json()) + "\n")


@dataclass
class _Seen:
    """What the watcher saw last time."""

    game_id: str | None = None
    lines: int = 0
    depot: int = 0
    curses: dict[str, tuple[str, ...]] = field(default_factory=dict)
    t: float | None = None


class AlertWatcher:
    """Compares each look at the game with the last one and says what the table should hear.

    The first look at a game (a new one, a resumed one) says nothing: only what happens while
    the watcher looks is announced, never the past.
    """

    def __init__(self, timeline: Timeline) -> None:
        self.timeline = timeline
        self._seen = _Seen()

    def look(self, game_id: str | None, game: Game | None, t: float, running: bool) -> list[Alert]:
        """Return the alerts since the last look (`t`: the game clock; `running`: it runs)."""
        if game is None or game_id is None:
            self._seen = _Seen()
            return []
        seen = self._seen
        if game_id != seen.game_id or len(game.lines) < seen.lines:
            self._seen = _snapshot(game_id, game, t if running else None)
            return []
        alerts = [a for judged in game.lines[seen.lines :] for a in _line_alerts(game, judged)]
        if game.outcome == "running":
            alerts += _state_alerts(game, seen)
            if running and seen.t is not None:
                alerts += self._clock_alerts(seen.t, t)
        self._seen = _snapshot(game_id, game, t if running else None)
        return alerts

    def _clock_alerts(self, before: float, now: float) -> list[Alert]:
        if not 0.0 < now - before <= LARGEST_STEP_SECONDS:
            return []
        alerts = []
        for countdown in self.timeline.countdowns:
            warn_at = countdown.end - WARNING_SECONDS
            if warn_at < countdown.start or not before < warn_at <= now:
                continue  # a countdown shorter than the warning has none
            last = countdown.end >= self.timeline.game_seconds
            alerts.append(Alert("alert.collapse_soon" if last else "alert.door_soon", "countdown"))
        return alerts


def _snapshot(game_id: str, game: Game, t: float | None) -> _Seen:
    return _Seen(
        game_id,
        len(game.lines),
        game.depot,
        {pid: tuple(p.curses) for pid, p in game.players.items()},
        t,
    )


def _line_alerts(game: Game, judged: Any) -> list[Alert]:
    """The alerts an accepted line of the clock calls for (a countdown, a sand timer)."""
    event = judged.event
    if not judged.verdict.ok or not isinstance(event, dict):
        return []
    kind = event.get("type")
    if kind == "countdown_start":
        outside = players_outside(game)
        if outside:
            return [Alert("alert.back_to_start", "countdown", (("who", Players(outside)),))]
    elif kind == "time_up":
        cell = event.get("cell")
        spot = (int(cell[0]), int(cell[1])) if isinstance(cell, list) and len(cell) == 2 else None
        time_id = module_time.time_at(game, spot)
        if time_id is not None:
            chamber = Word(f"time.{module_time.kind_of_time(time_id)}")
            turns = module_time.timer_on(game, spot) is not None  # a prohibition's flip
            key = "alert.sand_turns" if turns else "alert.sand_ends"
            return [Alert(key, "game", (("chamber", chamber),))]
    return []


def _state_alerts(game: Game, seen: _Seen) -> list[Alert]:
    """The alerts a change of the state calls for: gems taken from the depot, new curses."""
    alerts = []
    if game.depot < seen.depot:
        count = game.depot
        key = {0: "alert.gems_left.zero", 1: "alert.gems_left.one"}.get(
            count, "alert.gems_left.other"
        )
        alerts.append(Alert(key, "game", (("count", count),) if count > 1 else ()))
    for pid, player in game.players.items():
        before = seen.curses.get(pid, ())
        for card in player.curses:
            if card not in before and player.inside:
                what = Word(f"curse.{card}" if f"curse.{card}" in ENGLISH else "curse.other")
                alerts.append(
                    Alert("alert.cursed", "game", (("who", Players((pid,))), ("what", what)))
                )
    return alerts


def players_outside(game: Game) -> tuple[str, ...]:
    """The players still inside the temple who stand where a door slam would take a die."""
    safe = module_special.safe_cells(game, game.temple.start_cell())
    return tuple(
        pid for pid, p in game.players.items() if p.inside and p.cell not in safe and p.dice > 0
    )
