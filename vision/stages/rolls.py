"""Which event a player's roll becomes, and which die a one-die roll was: the engine's modules
say where a player rolls one die at a time (the beast chamber of Queenie 16)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from rules.engine import Game, PlayerState


def one_die_event(game: Game, player: PlayerState) -> str | None:
    """The event type the player's roll becomes when he rolls one die at a time (an event of
    `player` and `face`), or None: a roll of all his free dice, a `dice` event."""
    for hook in game.module_hooks("one_die_roll"):
        kind: str | None = hook(game, player)
        if kind is not None:
            return kind
    return None


def rolled_face(
    faces: Sequence[str], before: Sequence[str] | None, moved: Sequence[str]
) -> str | None:
    """The face of the one die rolled: the only die lying elsewhere (even on its old face),
    else the only face new among the dice; None when the dice do not say which (two moved)."""
    if len(moved) == 1:
        return moved[0]
    if before is None:
        return None
    new = Counter(faces) - Counter(before)
    return next(iter(new)) if sum(new.values()) == 1 else None


def is_roll(event: Mapping[str, Any]) -> bool:
    """Tell whether the event is a roll: a `dice` event, or a one-die roll (`one_die_roll`'s
    events are the only ones with a `face`)."""
    return event.get("type") == "dice" or "face" in event


def roll_entered_since(game: Game, player_id: str, since: int) -> bool:
    """Tell whether the engine took a roll of the player after its first `since` accepted
    events (entered by hand while the camera was still looking at the dice)."""
    return any(is_roll(e) and e.get("player") == player_id for e in game.accepted[since:])
