"""The Queenie modules (Big Box pages 26-35, Queenie box 11-16): one file each in this package,
named by the module's id, holding a `MODULE` class on the module protocol."""

from __future__ import annotations

from functools import cache
from importlib.util import find_spec

QUEENIE_IDS: tuple[str, ...] = (
    "pit",
    "doomed",
    "fountain",
    "queenie_quests",
    "maze",
    "new_characters",
    "maya_calendar",
    "exchange_teleport",
    "totem",
    "cursed_gems",
    "slide",
    "map",
    "wishing_well",
    "new_quests",
    "new_traps",
)
"""Every Queenie module's id in the setup line, in the rulebooks' order."""


@cache
def played_queenie_ids() -> tuple[str, ...]:
    """The Queenie modules this version plays: those whose file is in this package."""
    return tuple(m for m in QUEENIE_IDS if find_spec(f"rules.queenie.{m}") is not None)
