"""A base for the engine's immutable values, which copies of a game share rather than copy."""

from __future__ import annotations

from typing import Any, Self


class SharedValue:
    """An immutable value: `copy.deepcopy` gives the value itself (a game's copy, made for every
    what-if question the camera asks, then costs only what can change)."""

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self
