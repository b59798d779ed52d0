"""The soundtrack's timeline: when the countdowns start and end, and when the temple collapses.

Times are seconds on the game clock, which starts at 0 with the spoken "Escape!". The audio file
starts `intro_seconds` earlier: audio position = `intro_seconds` + game clock. The packaged
default (`rules/data/timeline.json`) follows physical-game.md; a user who plays other audio (the
official CD, say) gives a timeline file of the same shape.
"""

from __future__ import annotations

import itertools
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from rules.errors import RecordError

COUNTDOWN_NUMBERS: tuple[int, ...] = (1, 2, 3)
"""The countdowns of the official timeline; the last one ends with the collapse."""

MAX_COUNTDOWNS = 6
"""A timeline holds countdowns 1 to N, N from 1 to this; the last one ends with the collapse."""

_TIMELINE_FIELDS = ("intro_seconds", "game_seconds", "countdowns")
_COUNTDOWN_FIELDS = ("n", "start", "end")


def _countdown_problem(n: Any, start: Any, end: Any) -> str | None:
    """Check one countdown on its own: its number, and a start before its end."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_COUNTDOWNS:
        return f"a countdown's 'n' must be a whole number from 1 to {MAX_COUNTDOWNS}, not {n!r}"
    where = f"countdown {n}"
    for name, value in (("start", start), ("end", end)):
        if not _is_number(value) or value < 0:
            return (
                f"{where} '{name}' must be a number of seconds after \"Escape!\" (0 or more), "
                f"not {value!r}"
            )
    if start <= 0:
        return f"{where} 'start' must be after \"Escape!\" (more than 0 seconds), not {start!r}"
    if start >= end:
        return f"{where} 'start' ({start}) must be before its 'end' ({end})"
    return None


def _timeline_problem(intro: Any, game: Any, countdowns: Any) -> str | None:
    """Check the timeline as a whole: lengths, and countdowns 1 to N in order inside the game."""
    if not _is_number(intro) or intro < 0:
        return (
            "'intro_seconds' must be the seconds of audio before \"Escape!\" (0 or more), "
            f"not {intro!r}"
        )
    if not _is_number(game) or game <= 0:
        return (
            f"'game_seconds' must be the game's length in seconds (600 is 10 minutes), not {game!r}"
        )
    if not isinstance(countdowns, Sequence) or not all(
        isinstance(c, Countdown) for c in countdowns
    ):
        return "'countdowns' must be a sequence of Countdown values"
    numbers = sorted(c.n for c in countdowns)
    if not numbers or numbers != list(range(1, len(numbers) + 1)):
        found = ", ".join(map(str, numbers)) or "none"
        return (
            f"'countdowns' must hold countdowns 1 to N once each (N from 1 to {MAX_COUNTDOWNS}; "
            f"1, 2 and 3 once each in the official timeline), not {found}"
        )
    ordered = sorted(countdowns, key=lambda c: c.n)
    for countdown in ordered:
        if countdown.end > game:
            return (
                f"countdown {countdown.n} 'end' ({countdown.end}) is after the end of the game "
                f"('game_seconds' {game})"
            )
    for before, after in itertools.pairwise(ordered):
        if after.start < before.end:
            return (
                f"countdown {after.n} 'start' ({after.start}) must not come before countdown "
                f"{before.n} 'end' ({before.end}): countdowns follow one another"
            )
    last = ordered[-1]
    if last.end != game:
        return (
            f"countdown {last.n} 'end' ({last.end}) must equal 'game_seconds' ({game}): "
            "the last countdown ends with the temple's collapse"
        )
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class Countdown:
    """Countdown `n`: from `start` (its gong strikes) to `end` (a door slam, or the collapse)."""

    n: int
    start: float
    end: float

    def __post_init__(self) -> None:
        problem = _countdown_problem(self.n, self.start, self.end)
        if problem:
            raise RecordError(f"invalid timeline: {problem}")
        object.__setattr__(self, "start", float(self.start))
        object.__setattr__(self, "end", float(self.end))

    def to_json(self) -> dict[str, Any]:
        """Return the countdown as the timeline file writes it."""
        return {"n": self.n, "start": self.start, "end": self.end}


DEFAULT_COUNTDOWNS: tuple[Countdown, ...] = (
    Countdown(1, 180.0, 215.0),
    Countdown(2, 360.0, 395.0),
    Countdown(3, 565.0, 600.0),
)
"""The default countdowns of physical-game.md (3:00-3:35, 6:00-6:35, 9:25-10:00)."""


@dataclass(frozen=True)
class Phase:
    """Where the game stands at one moment, for a dashboard to show."""

    countdown: int | None
    seconds_left_in_countdown: float | None
    seconds_left: float
    over: bool


@dataclass(frozen=True)
class Timeline:
    """The soundtrack's timing; construction validates it (a `RecordError` names the field)."""

    intro_seconds: float = 12.0
    game_seconds: float = 600.0
    countdowns: tuple[Countdown, ...] = field(default=DEFAULT_COUNTDOWNS)

    def __post_init__(self) -> None:
        problem = _timeline_problem(self.intro_seconds, self.game_seconds, self.countdowns)
        if problem:
            raise RecordError(f"invalid timeline: {problem}")
        object.__setattr__(self, "intro_seconds", float(self.intro_seconds))
        object.__setattr__(self, "game_seconds", float(self.game_seconds))
        object.__setattr__(self, "countdowns", tuple(sorted(self.countdowns, key=lambda c: c.n)))

    @property
    def total_seconds(self) -> float:
        """Return the audio time of the collapse: the introduction plus the game."""
        return self.intro_seconds + self.game_seconds

    @property
    def last_countdown(self) -> int:
        """Return the number of the last countdown: the one that ends with the collapse."""
        return self.countdowns[-1].n

    def countdown(self, n: int) -> Countdown:
        """Return countdown `n` (1 to `last_countdown`)."""
        for countdown in self.countdowns:
            if countdown.n == n:
                return countdown
        raise KeyError(n)

    def audio_seconds(self, t: float) -> float:
        """Return the position in the audio file of game-clock time `t`."""
        return self.intro_seconds + t

    def game_clock(self, audio_seconds: float) -> float:
        """Return the game-clock time of audio position `audio_seconds` (negative in the intro)."""
        return audio_seconds - self.intro_seconds

    def events(self) -> list[dict[str, Any]]:
        """Return every game-record event the timeline makes, in time order."""
        events: list[dict[str, Any]] = []
        for countdown in self.countdowns:
            events.append({"type": "countdown_start", "n": countdown.n, "t": countdown.start})
            if countdown.n != self.last_countdown:
                events.append({"type": "countdown_end", "n": countdown.n, "t": countdown.end})
        events.append({"type": "collapse", "t": self.game_seconds})
        # A stable sort keeps an end before the next start when both fall on the same second.
        return sorted(events, key=lambda event: event["t"])

    def events_between(self, t0: float, t1: float) -> list[dict[str, Any]]:
        """Return the events due in the game-clock interval (t0, t1], in time order."""
        return [event for event in self.events() if t0 < event["t"] <= t1]

    def phase_at(self, t: float) -> Phase:
        """Return the countdown running at game-clock time `t` and the time left."""
        seconds_left = min(self.game_seconds, max(0.0, self.game_seconds - t))
        for countdown in self.countdowns:
            if countdown.start <= t < countdown.end:
                return Phase(countdown.n, countdown.end - t, seconds_left, over=False)
        return Phase(None, None, seconds_left, over=t >= self.game_seconds)

    def to_json(self) -> dict[str, Any]:
        """Return the timeline in the file format `load_timeline` reads."""
        return {
            "intro_seconds": self.intro_seconds,
            "game_seconds": self.game_seconds,
            "countdowns": [countdown.to_json() for countdown in self.countdowns],
        }


def parse_timeline(data: Any, where: str = "timeline") -> Timeline:
    """Validate timeline JSON data; a `RecordError` starting with `where` names the bad field."""
    problem = _shape_problem(data) or next(
        filter(None, (_countdown_problem(**c) for c in data["countdowns"])), None
    )
    if problem is None:
        countdowns = tuple(Countdown(**c) for c in data["countdowns"])
        problem = _timeline_problem(data["intro_seconds"], data["game_seconds"], countdowns)
    if problem:
        raise RecordError(f"{where}: {problem}")
    return Timeline(data["intro_seconds"], data["game_seconds"], countdowns)


def load_timeline(path: str | os.PathLike[str] | None = None) -> Timeline:
    """Load the packaged default timeline, or the user's file at `path` (OSError if unreadable)."""
    if path is None:
        where = "packaged timeline rules/data/timeline.json"
        text = resources.files("rules").joinpath("data/timeline.json").read_text("utf-8")
    else:
        where = str(path)
        text = Path(path).read_text("utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(
            f"{where}: not valid JSON (line {error.lineno}, column {error.colno}: {error.msg}); "
            "fix the file, or start from the packaged rules/data/timeline.json"
        ) from None
    return parse_timeline(data, where)


def _shape_problem(data: Any) -> str | None:
    """Check the JSON objects' keys, before any value is looked at."""
    if not isinstance(data, Mapping):
        return "the timeline must be a JSON object with " + _listing(_TIMELINE_FIELDS)
    problem = _keys_problem("the timeline", data, _TIMELINE_FIELDS)
    if problem:
        return problem
    countdowns = data["countdowns"]
    if not isinstance(countdowns, list) or not 1 <= len(countdowns) <= MAX_COUNTDOWNS:
        return (
            f"'countdowns' must be a list of 1 to {MAX_COUNTDOWNS} objects, one for each "
            "countdown (3 in the official timeline: 1, 2 and 3)"
        )
    for index, countdown in enumerate(countdowns):
        where = f"countdowns[{index}]"
        if not isinstance(countdown, Mapping):
            return f"'{where}' must be an object with " + _listing(_COUNTDOWN_FIELDS)
        problem = _keys_problem(f"'{where}'", countdown, _COUNTDOWN_FIELDS)
        if problem:
            return problem
    return None


def _keys_problem(where: str, data: Mapping[str, Any], expected: Sequence[str]) -> str | None:
    missing = [key for key in expected if key not in data]
    if missing:
        return f"{where} is missing {_listing(missing)}: it needs {_listing(expected)}"
    unknown = [str(key) for key in data if key not in expected]
    if unknown:
        return f"{where} has unknown {_listing(unknown)}: the fields are {_listing(expected)}"
    return None


def _listing(names: Sequence[str]) -> str:
    return ", ".join(f"'{name}'" for name in names)
