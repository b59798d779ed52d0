"""The kind of value event fields hold, checked before any handler reads the event.

A field keeps one meaning in every event type and module (`card` is always a card id, `count`
always a whole number), so one table by field name checks them all. A field of the wrong kind
is a rejected event with a reason, never a crash of the engine: a list where a card id belongs
used to reach a dictionary lookup and raise `TypeError` there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rules.errors import Rejection

MAX_WHOLE = 1_000_000
"""The largest whole number (and cell coordinate) an event may hold: no game needs more, and
arithmetic on numbers of thousands of digits is slow."""
MAX_TEXT = 200
"""The longest string an event field may hold (ids and names are far shorter)."""


def _text(value: Any) -> str | None:
    if not isinstance(value, str):
        return "an id (a string)"
    if len(value) > MAX_TEXT:
        return f"an id of at most {MAX_TEXT} characters"
    return None


def _in_bounds(value: Any) -> bool:
    """Tell whether a whole number lies within `MAX_WHOLE` (anything else is not one: the
    handler reading it says so in its own words)."""
    return not isinstance(value, int) or isinstance(value, bool) or abs(value) <= MAX_WHOLE


def _bounded(value: Any) -> str | None:
    return None if _in_bounds(value) else f"a whole number of at most {MAX_WHOLE:,} either way"


def _bounded_cell(value: Any) -> str | None:
    if isinstance(value, list) and not all(_in_bounds(v) for v in value):
        return f"a cell whose numbers are at most {MAX_WHOLE:,} either way"
    return None


def _bounded_cells(value: Any) -> str | None:
    if isinstance(value, list) and any(_bounded_cell(cell) for cell in value):
        return f"a list of cells whose numbers are at most {MAX_WHOLE:,} either way"
    return None


FIELD_KINDS: dict[str, Callable[[Any], str | None]] = {
    "card": _text,
    "tile": _text,
    "treasure": _text,
    "stairs": _text,
    "source": _text,
    "line": _bounded,
    "n": _bounded,
    "gems": _bounded,
    "count": _bounded,
    "dice": _bounded,
    "cell": _bounded_cell,
    "cells": _bounded_cells,
}
"""Field -> a check returning what the value must be (None when it is fine), for the fields
whose handlers cannot take every value: ids looked up in a table (a list there is no id, and
used to raise `TypeError`) and numbers, which a game never needs past `MAX_WHOLE`. A value of
the wrong shape that a handler already refuses in its own words (a cell that is no pair, a
player id that is no player, `faces` that are no faces) is left to it, so that every record
saved before replays with the same verdicts."""


def check_fields(event: Mapping[str, Any]) -> None:
    """Raise `Rejection` naming the first field of `event` that holds the wrong kind of value."""
    for name, value in event.items():
        check = FIELD_KINDS.get(name)
        if check is None:
            continue
        wanted = check(value)
        if wanted is not None:
            raise Rejection(f"'{name}' must be {wanted}, not {_shown(value)}")


def _shown(value: Any) -> str:
    """A short picture of a wrong value for a reason (never thousands of characters)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_WHOLE:
        return "a number that large"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
