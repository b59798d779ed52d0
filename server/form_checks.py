"""The new-game form's table-set fields checked one at a time, so that a 422 names the field the
page shows its words beside: the quest chambers picked, the beast chamber's path, the Maya
calendar's spaces and bars (the engine's own checks and words, run before the game starts)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from rules.errors import RecordError
from rules.queenie.maya_calendar import parse_calendar
from rules.queenie.new_traps import parse_beast_path
from server.queenie_setup import quest_pool

MOST_QUESTS = 3
"""Module 5 plays 1, 2 or 3 quest chambers (page 17)."""


def quests_refusal(quests: list[str], modules: list[str]) -> str | None:
    """Why the quest chambers picked cannot be module 5's (None when they can): 1 to 3, each
    once, of those the modules ticked put in play, said by their names."""
    pool = quest_pool(modules)
    if not 1 <= len(quests) <= MOST_QUESTS:
        return f"pick 1 to {MOST_QUESTS} quest chambers, not {len(quests)}"
    unknown = [quest for quest in quests if quest not in pool]
    if unknown:
        return (
            f"{unknown[0]!r} is not a quest chamber of the modules ticked: pick from "
            + ", ".join(pool.values())
        )
    twice = [quest for quest, n in Counter(quests).items() if n > 1]
    if twice:
        return f"each quest chamber may be picked only once: {pool[twice[0]]} is picked twice"
    return None


def beast_path_refusal(path: list[str]) -> str | None:
    """Why `path` is not a beast chamber's path (None when it is)."""
    return _refusal(parse_beast_path, {"beast_path": path})


def maya_spaces_refusal(spaces: list[str], side: str | None) -> str | None:
    """Why `spaces` are not the calendar's 9 spaces on `side` (None when they are)."""
    return _refusal(parse_calendar, {"maya_side": side or "eternal", "maya_spaces": spaces})


def maya_bars_refusal(bars: list[int]) -> str | None:
    """Why `bars` are not the doomed calendar's first two bars (None when they are)."""
    return _refusal(parse_calendar, {"maya_bars": bars})


def _refusal(parse: Callable[[Mapping[str, Any]], object], line: dict[str, Any]) -> str | None:
    try:
        parse(line)
    except RecordError as error:
        return str(error)
    return None
