"""The timer options a table may choose instead of the official timeline, and the timeline each
makes: the game's length, how many countdowns, how long each runs, the first one's delay,
countdowns at random times (seeded, so that the same options and seed make the same timeline),
and a practice mode for new players.

The last countdown always ends with the temple's collapse, as in the official timeline, so its
time follows from the game's length and the countdowns' length; the first delay and the random
times are for the countdowns before it. Between a door slam and the next gong lie at least
`MIN_GAP_SECONDS`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.errors import RecordError
from rules.timeline import MAX_COUNTDOWNS, Countdown, Timeline

MIN_MINUTES = 5
MAX_MINUTES = 45
MIN_COUNTDOWN_SECONDS = 10
MAX_COUNTDOWN_SECONDS = 120
MIN_FIRST_DELAY_SECONDS = 10
MIN_GAP_SECONDS = 10
"""The least time from a door slam to the next countdown's gong."""
MAX_SEED = 2**31 - 1

_FIELDS = (
    "minutes",
    "countdowns",
    "countdown_seconds",
    "first_delay_seconds",
    "random",
    "seed",
    "practice",
)


@dataclass(frozen=True)
class TimerOptions:
    """What the table chose on the set-up page; `seed` makes random countdown times repeatable."""

    minutes: int = 10
    countdowns: int = 3
    countdown_seconds: int = 35
    first_delay_seconds: int = 180
    random: bool = False
    seed: int | None = None
    practice: bool = False

    def to_json(self) -> dict[str, Any]:
        """Return the options as the setup line's `timer` field writes them."""
        return {name: getattr(self, name) for name in _FIELDS}


PRACTICE = TimerOptions(
    minutes=20, countdowns=3, countdown_seconds=45, first_delay_seconds=300, practice=True
)
"""Practice for new players: twice the official game, longer countdowns at fixed times."""


def clock_words(seconds: float) -> str:
    """Return seconds as the page's clock writes them: 5:25, 0:45."""
    whole = math.ceil(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def needed_seconds(options: TimerOptions) -> float:
    """Return the shortest game the options' countdowns fit in."""
    if options.countdowns == 1:
        return options.countdown_seconds
    before_last = options.countdowns - 1
    return (
        options.first_delay_seconds
        + before_last * (options.countdown_seconds + MIN_GAP_SECONDS)
        + options.countdown_seconds
    )


def timer_problem(options: TimerOptions) -> str | None:
    """Return what is wrong with the options, in a player's words, or None."""
    checks = (
        ("minutes", options.minutes, MIN_MINUTES, MAX_MINUTES, "the game's length in minutes"),
        (
            "countdown_seconds",
            options.countdown_seconds,
            MIN_COUNTDOWN_SECONDS,
            MAX_COUNTDOWN_SECONDS,
            "each countdown's length in seconds",
        ),
    )
    for name, value, low, high, what in checks:
        if not _is_whole(value) or not low <= value <= high:
            return f"'{name}' is {what}: a whole number from {low} to {high}, not {value!r}"
    count = options.countdowns
    if not _is_whole(count) or not 1 <= count <= MAX_COUNTDOWNS:
        return f"'countdowns' is how many countdowns: 1 to {MAX_COUNTDOWNS}, not {count!r}"
    delay = options.first_delay_seconds
    if not _is_whole(delay) or delay < MIN_FIRST_DELAY_SECONDS:
        return (
            "'first_delay_seconds' is the seconds from \"Escape!\" to the first countdown: "
            f"a whole number, {MIN_FIRST_DELAY_SECONDS} or more, not {delay!r}"
        )
    for name in ("random", "practice"):
        if not isinstance(getattr(options, name), bool):
            return f"'{name}' must be true or false, not {getattr(options, name)!r}"
    seed = options.seed
    if seed is not None and (not _is_whole(seed) or not 0 <= seed <= MAX_SEED):
        return f"'seed' must be a whole number from 0 to {MAX_SEED}, not {seed!r}"
    game = options.minutes * 60
    need = needed_seconds(options)
    if need > game:
        return (
            f"{count} countdowns of {options.countdown_seconds} s, the first after "
            f"{clock_words(delay)}, need a game of at least {clock_words(need)} "
            f"({MIN_GAP_SECONDS} s between a door slam and the next gong), not "
            f"{clock_words(game)}: shorten the countdowns or the delay, have fewer, or play longer"
        )
    return None


def timer_timeline(options: TimerOptions, intro_seconds: float = 12.0) -> Timeline:
    """Return the timeline the options make (random times need a `seed`; a `RecordError` says
    what is wrong with options that do not fit)."""
    problem = timer_problem(options)
    if problem:
        raise RecordError(f"invalid timer: {problem}")
    if options.random and options.seed is None:
        raise RecordError("invalid timer: random countdown times need a 'seed'")
    game = float(options.minutes * 60)
    length = float(options.countdown_seconds)
    last_start = game - length
    count = options.countdowns
    starts: list[float] = []
    if count > 1:
        delay = float(options.first_delay_seconds)
        if options.random:
            slack = last_start - delay - (count - 1) * (length + MIN_GAP_SECONDS)
            draws = random.Random(options.seed)
            offsets = sorted(math.floor(draws.uniform(0.0, slack)) for _ in range(count - 1))
            starts = [
                delay + offset + k * (length + MIN_GAP_SECONDS) for k, offset in enumerate(offsets)
            ]
        else:
            step = math.floor((last_start - delay) / (count - 1))
            starts = [delay + k * step for k in range(count - 1)]
    starts.append(last_start)
    countdowns = tuple(
        Countdown(n, start, start + length if n < count else game)
        for n, start in enumerate(starts, start=1)
    )
    return Timeline(intro_seconds, game, countdowns)


def parse_timer(data: Any, where: str = "'timer'") -> TimerOptions:
    """Validate a setup line's `timer` object; a `RecordError` starting with `where` says why."""
    if not isinstance(data, Mapping):
        raise RecordError(f"{where} must be an object with the timer options")
    unknown = [str(key) for key in data if key not in _FIELDS]
    if unknown:
        raise RecordError(
            f"{where} has unknown {', '.join(map(repr, unknown))}: the options are "
            f"{', '.join(map(repr, _FIELDS))}"
        )
    defaults = TimerOptions()
    values = {name: data.get(name, getattr(defaults, name)) for name in _FIELDS}
    options = TimerOptions(**values)
    problem = timer_problem(options)
    if problem:
        raise RecordError(f"{where}: {problem}")
    return options


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
