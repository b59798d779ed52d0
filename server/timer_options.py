"""The set-up page's timer options in the API, and what of a game's timeline a page may see.

A game with countdowns at random times hides them: until a countdown's gong, no page learns
when it comes, neither from the state's timeline nor from the soundtrack the browser plays
(its file leaves those countdowns out; each one's sounds come as a clip of their own, which
the page fetches at once and plays from the gong the state shows: the clip sounds the same
whenever it comes). The last countdown ends with the collapse, at a time the table knows, so
it is never hidden.
"""

from __future__ import annotations

import secrets
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rules.timeline import MAX_COUNTDOWNS, Timeline
from rules.timer_options import (
    MAX_COUNTDOWN_SECONDS,
    MAX_MINUTES,
    MAX_SEED,
    MIN_COUNTDOWN_SECONDS,
    MIN_FIRST_DELAY_SECONDS,
    MIN_MINUTES,
    TimerOptions,
    timer_problem,
    timer_timeline,
)
from server.soundtrack import soundtrack_key

OWN_AUDIO_TIMER = (
    "this server plays your own audio file (templecam serve --audio-file), whose countdowns "
    "are where its --timeline says: timer options need templecam's own soundtrack (serve "
    "without --audio-file), or start the game without them"
)
"""Why a game with timer options cannot start on a server playing the user's audio file."""

SOUNDTRACK_URL = "/api/soundtrack.wav"
CLIP_URL = "/api/soundtrack/countdown.wav"


class TimerIn(BaseModel):
    """The timer options of the set-up page (left out: the official timeline)."""

    model_config = ConfigDict(extra="forbid")

    minutes: int = Field(10, ge=MIN_MINUTES, le=MAX_MINUTES, description="the game's length")
    countdowns: int = Field(3, ge=1, le=MAX_COUNTDOWNS, description="countdowns, the last ends it")
    countdown_seconds: int = Field(
        35,
        ge=MIN_COUNTDOWN_SECONDS,
        le=MAX_COUNTDOWN_SECONDS,
        description="each countdown's length",
    )
    first_delay_seconds: int = Field(
        180, ge=MIN_FIRST_DELAY_SECONDS, description="no countdown comes before this"
    )
    random: bool = Field(False, description="countdowns at random times, hidden until they come")
    seed: int | None = Field(
        None, ge=0, le=MAX_SEED, description="the random times' seed (default: a new one)"
    )
    practice: bool = Field(False, description="practice for new players: the dashboard's hints")

    @model_validator(mode="after")
    def _fits(self) -> TimerIn:
        problem = timer_problem(self.options())
        if problem:
            raise ValueError(problem)
        return self

    def options(self) -> TimerOptions:
        """Return the options as the rules take them."""
        return TimerOptions(**self.model_dump())

    def setup_fields(self, intro_seconds: float) -> dict[str, Any]:
        """Return the setup line's `timer` (a random game gets its seed here) and `timeline`."""
        options = self.options()
        if options.random and options.seed is None:
            options = TimerOptions(**{**options.to_json(), "seed": secrets.randbelow(MAX_SEED)})
        timeline = timer_timeline(options, intro_seconds)
        return {"timer": options.to_json(), "timeline": timeline.to_json()}


def with_new_times(setup_line: dict[str, Any]) -> dict[str, Any]:
    """Return a setup line to play again: with countdowns at random times, new ones (a new
    seed: the table heard the old ones); any other setup line as it is."""
    timer = setup_line.get("timer")
    if not isinstance(timer, dict) or timer.get("random") is not True:
        return setup_line
    intro = float(setup_line.get("timeline", {}).get("intro_seconds", 12.0))
    options = TimerIn(**{**timer, "seed": None})
    return {**setup_line, **options.setup_fields(intro)}


def hidden_countdowns(timeline: Timeline, timer: TimerOptions | None, t: float) -> tuple[int, ...]:
    """Return the countdowns no page may know of yet at game time `t`: with random times, those
    whose gong has not struck (never the last, which ends with the collapse)."""
    if timer is None or not timer.random:
        return ()
    return tuple(
        countdown.n
        for countdown in timeline.countdowns
        if countdown.n != timeline.last_countdown and countdown.start > t
    )


def public_timeline(timeline: Timeline, timer: TimerOptions | None, t: float) -> dict[str, Any]:
    """Return the timeline as a page may see it at game time `t`: the hidden countdowns left
    out and counted in `hidden`, and the options chosen (never the seed: it tells the times)."""
    view = timeline.to_json()
    if timer is None:
        return view
    hidden = hidden_countdowns(timeline, timer, t)
    view["countdowns"] = [c for c in view["countdowns"] if c["n"] not in hidden]
    view["hidden"] = len(hidden)
    view["timer"] = {k: v for k, v in timer.to_json().items() if k != "seed"}
    return view


def random_countdowns(timeline: Timeline, timer: TimerOptions | None) -> tuple[int, ...]:
    """Return the countdowns at random times (all but the last, with random times), which the
    browser's soundtrack leaves out: the page plays each one's clip from its gong."""
    return hidden_countdowns(timeline, timer, float("-inf"))


def soundtrack_url(timeline: Timeline, timer: TimerOptions | None) -> str:
    """Return the url of the soundtrack a page plays: the server's own track, or for a game
    with timer options one named by what it holds (its countdowns at random times left out)."""
    if timer is None:
        return SOUNDTRACK_URL
    key = soundtrack_key(timeline, silent=random_countdowns(timeline, timer))
    return f"{SOUNDTRACK_URL}?key={key}"


def countdown_clips(timeline: Timeline, timer: TimerOptions | None) -> list[dict[str, Any]]:
    """Return each countdown at a random time's clip, for the page to fetch at once (a clip
    tells nothing of when it comes) and to play from the gong that the state shows."""
    return [
        {"n": n, "url": f"{CLIP_URL}?n={n}&key={soundtrack_key(timeline, clip=n)}"}
        for n in random_countdowns(timeline, timer)
    ]
