"""JSON as the game record means it: numbers are finite (no NaN, Infinity or 1e999), brackets
nest at most `MAX_NESTING` deep, strings are text UTF-8 can carry (no lone surrogate), an
object names each key once, and a `null` field is a field left out.

Python's `json` module reads and writes `NaN` and `Infinity` although JSON has no such numbers;
browsers cannot parse them. It also reads a lone surrogate (`"\\ud800"`), which no UTF-8 answer or
file can then hold, takes the last of two equal keys silently, and fails with a bare ValueError
on an integer of more than 4,300 digits. Every door of the project (the API, the record reader,
the engine) refuses all of these with these helpers.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Mapping
from typing import Any

MAX_NESTING = 64
"""The deepest nesting of brackets a game-record line may have (a real event needs 4)."""


class UnfitJSONError(ValueError):
    """A JSON text or value that the game record cannot hold; the message says why and where."""


class NotFiniteError(UnfitJSONError):
    """A JSON text or value holds a number that is not finite (NaN, Infinity, or too large)."""


class TooDeepError(UnfitJSONError):
    """A JSON text or value nests brackets deeper than `MAX_NESTING`."""


class LoneSurrogateError(UnfitJSONError):
    """A string holds half of a UTF-16 surrogate pair, which UTF-8 cannot encode."""


class DuplicateKeyError(UnfitJSONError):
    """A JSON object names the same key twice."""


class NumberTooLongError(UnfitJSONError):
    """A JSON number has more digits than Python reads (`sys.get_int_max_str_digits()`)."""


def too_deep_message() -> str:
    """The sentence every door uses to refuse a value nested too deeply."""
    return f"brackets nest deeper than {MAX_NESTING} levels (a game-record line needs 4)"


def lone_surrogate_path(value: Any, path: str = "") -> str | None:
    """Return where `value` holds a string (or a key) with a lone surrogate, or None if nowhere.

    Raises `TooDeepError` when `value` nests deeper than `MAX_NESTING`.
    """
    return _first_place(value, path, lambda item: isinstance(item, str) and not _encodable(item))


def _first_place(value: Any, path: str, unfit: Callable[[Any], bool]) -> str | None:
    """Return the place of the first key or leaf of `value` that is `unfit`, or None.

    Walked without recursion, so no depth crashes it; raises `TooDeepError` past
    `MAX_NESTING`."""
    stack: list[tuple[Any, str, int]] = [(value, path, 0)]
    while stack:
        item, where, depth = stack.pop()
        if not isinstance(item, Mapping | list | tuple):
            if unfit(item):
                return where or "the value"
            continue
        if depth >= MAX_NESTING:
            raise TooDeepError(too_deep_message())
        if isinstance(item, Mapping):
            if any(unfit(key) for key in item):
                return f"{where}.<key>" if where else "a key"
            children = [
                (child, f"{where}.{key}" if where else str(key)) for key, child in item.items()
            ]
        else:
            children = [(child, f"{where}[{index}]") for index, child in enumerate(item)]
        stack.extend((child, place, depth + 1) for child, place in reversed(children))
    return None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def lone_surrogate_message(where: str) -> str:
    """The sentence every door uses to refuse a lone surrogate at `where`."""
    return (
        f"{where} holds a lone surrogate (half of a UTF-16 pair, such as \\ud800), "
        "which is not text: send UTF-8 text"
    )


def check_fit(value: Any) -> None:
    """Raise `UnfitJSONError` (a subclass naming the place) when `value` holds a non-finite
    number, a lone surrogate or brackets nested deeper than `MAX_NESTING`."""
    where = non_finite_path(value)
    if where is not None:
        raise NotFiniteError(not_finite_message(where))
    where = lone_surrogate_path(value)
    if where is not None:
        raise LoneSurrogateError(lone_surrogate_message(where))


def non_finite_path(value: Any, path: str = "") -> str | None:
    """Return where `value` holds a non-finite float (`cell[1]`, `event.t`), or None if nowhere.

    Raises `TooDeepError` when `value` nests deeper than `MAX_NESTING` (walked without
    recursion, so no depth crashes it).
    """
    return _first_place(
        value, path, lambda item: isinstance(item, float) and not math.isfinite(item)
    )


def without_nulls(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Return the fields of a record object with every `null` one left out: the game record
    reads `"by": null` exactly as a line without `by`."""
    return {key: value for key, value in fields.items() if value is not None}


def not_finite_message(where: str) -> str:
    """The sentence every door uses to refuse a non-finite number at `where`."""
    return f"{where} is not a finite number: JSON has no NaN, Infinity or numbers that large"


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object hook for `json.loads` that refuses a key named twice."""
    value: dict[str, Any] = {}
    for key, item in pairs:
        if key in value:
            shown = key.encode("utf-8", "backslashreplace").decode("utf-8")
            raise DuplicateKeyError(f"the key {shown!r} appears twice in one object")
        value[key] = item
    return value


def loads_finite(text: str | bytes) -> Any:
    """Parse JSON like `json.loads`, refusing what the game record cannot hold.

    Raises `json.JSONDecodeError` for text that is not JSON (and `UnicodeDecodeError` for bytes
    that are not UTF-8); `UnfitJSONError`, naming the place, for a non-finite number
    (`NotFiniteError`), brackets nested too deeply (`TooDeepError`), a lone surrogate
    (`LoneSurrogateError`), a key named twice (`DuplicateKeyError`) or an integer with more
    digits than Python reads (`NumberTooLongError`).
    """
    try:
        # NaN and Infinity parse to floats, found below with their place
        value = json.loads(text, object_pairs_hook=_unique_keys)
    except RecursionError:
        raise TooDeepError(too_deep_message()) from None
    except (json.JSONDecodeError, UnfitJSONError):
        raise
    except ValueError as error:  # int("1" * 5000): Python's integer digit limit
        if "digits" not in str(error):
            raise
        raise NumberTooLongError(
            f"a number has more than {sys.get_int_max_str_digits()} digits: "
            "no game-record number needs more than a few"
        ) from None
    check_fit(value)
    return value
