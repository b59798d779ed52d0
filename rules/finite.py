"""JSON as the game record means it: numbers are finite (no NaN, Infinity or 1e999).

Python's `json` module reads and writes `NaN` and `Infinity` although JSON has no such numbers;
browsers cannot parse them. Every door of the project (the API, the record reader, the engine)
refuses them with these helpers.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any


class NotFiniteError(ValueError):
    """A JSON text or value holds a number that is not finite (NaN, Infinity, or too large)."""


def non_finite_path(value: Any, path: str = "") -> str | None:
    """Return where `value` holds a non-finite float (`cell[1]`, `event.t`), or None if nowhere."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (path or "the value")
    if isinstance(value, Mapping):
        for key, item in value.items():
            found = non_finite_path(item, f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = non_finite_path(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def not_finite_message(where: str) -> str:
    """The sentence every door uses to refuse a non-finite number at `where`."""
    return f"{where} is not a finite number: JSON has no NaN, Infinity or numbers that large"


def loads_finite(text: str | bytes) -> Any:
    """Parse JSON like `json.loads`, refusing NaN, Infinity and numbers too large for a float.

    Raises `json.JSONDecodeError` for text that is not JSON and `NotFiniteError` (naming where
    the number is) for a non-finite number.
    """
    value = json.loads(text)  # NaN and Infinity parse to floats, found below with their place
    where = non_finite_path(value)
    if where is not None:
        raise NotFiniteError(not_finite_message(where))
    return value
