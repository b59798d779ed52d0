"""JSON as the game record means it: numbers are finite (no NaN, Infinity or 1e999), brackets
nest at most `MAX_NESTING` deep, and a `null` field is a field left out.

Python's `json` module reads and writes `NaN` and `Infinity` although JSON has no such numbers;
browsers cannot parse them. Every door of the project (the API, the record reader, the engine)
refuses them with these helpers.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

MAX_NESTING = 64
"""The deepest nesting of brackets a game-record line may have (a real event needs 4)."""


class NotFiniteError(ValueError):
    """A JSON text or value holds a number that is not finite (NaN, Infinity, or too large)."""


class TooDeepError(ValueError):
    """A JSON text or value nests brackets deeper than `MAX_NESTING`."""


def too_deep_message() -> str:
    """The sentence every door uses to refuse a value nested too deeply."""
    return f"brackets nest deeper than {MAX_NESTING} levels (a game-record line needs 4)"


def non_finite_path(value: Any, path: str = "") -> str | None:
    """Return where `value` holds a non-finite float (`cell[1]`, `event.t`), or None if nowhere.

    Raises `TooDeepError` when `value` nests deeper than `MAX_NESTING` (walked without
    recursion, so no depth crashes it).
    """
    stack: list[tuple[Any, str, int]] = [(value, path, 0)]
    while stack:
        item, where, depth = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return where or "the value"
            continue
        if isinstance(item, Mapping | list | tuple):
            if depth >= MAX_NESTING:
                raise TooDeepError(too_deep_message())
            if isinstance(item, Mapping):
                children = [
                    (child, f"{where}.{key}" if where else str(key)) for key, child in item.items()
                ]
            else:
                children = [(child, f"{where}[{index}]") for index, child in enumerate(item)]
            stack.extend((child, place, depth + 1) for child, place in reversed(children))
    return None


def without_nulls(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Return the fields of a record object with every `null` one left out: the game record
    reads `"by": null` exactly as a line without `by`."""
    return {key: value for key, value in fields.items() if value is not None}


def not_finite_message(where: str) -> str:
    """The sentence every door uses to refuse a non-finite number at `where`."""
    return f"{where} is not a finite number: JSON has no NaN, Infinity or numbers that large"


def loads_finite(text: str | bytes) -> Any:
    """Parse JSON like `json.loads`, refusing NaN, Infinity and numbers too large for a float.

    Raises `json.JSONDecodeError` for text that is not JSON, `NotFiniteError` (naming where
    the number is) for a non-finite number and `TooDeepError` for brackets nested too deeply.
    """
    try:
        value = json.loads(text)  # NaN and Infinity parse to floats, found below with their place
    except RecursionError:
        raise TooDeepError(too_deep_message()) from None
    where = non_finite_path(value)
    if where is not None:
        raise NotFiniteError(not_finite_message(where))
    return value
