"""Game events and states told in words, for people reading a replay or the dashboard log."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.catalog import TileDef
from rules.engine import Game
from rules.vocabulary import plural


def chamber_label(tile: TileDef) -> str:
    """The short name a player gives a chamber: `Start`, `Exit`, `Gem chamber`, `Chamber`.

    The icons on the tile say the rest (what it takes to enter, which icon its gems need), so
    the catalog's numbers and qualifiers ("Gem chamber (keys) 2") are left to the tile's title.
    """
    if tile.kind == "start":
        return "Start"
    if tile.kind == "exit":
        return "Exit"
    if tile.gems is not None:
        return "Gem chamber" if tile.gems.count > 1 else "One-gem chamber"
    return "Chamber"


def _cell(value: Any) -> str:
    return f"[{value[0]}, {value[1]}]" if isinstance(value, list) and len(value) == 2 else "?"


def describe_event(event: Any) -> str:
    """Say what an event claims happened, in a short sentence (whatever its validity)."""
    if not isinstance(event, Mapping):
        return f"not an event: {event!r}"
    kind = event.get("type")
    who = event.get("player", "?")
    if kind == "dice":
        faces = event.get("faces")
        shown = ", ".join(map(str, faces)) if isinstance(faces, list) else "?"
        return f"{who} rolls {shown}"
    if kind == "discover":
        return f"{who} discovers {event.get('tile', '?')} at {_cell(event.get('cell'))}"
    if kind == "enter":
        return f"{who} enters {_cell(event.get('cell'))}"
    if kind == "activate":
        players = event.get("players")
        names = " and ".join(map(str, players)) if isinstance(players, list) else "?"
        gems = event.get("gems")
        count = plural(gems, "gem") if isinstance(gems, int) else "? gems"
        verb = "activates" if isinstance(players, list) and len(players) == 1 else "activate"
        return f"{names} {verb} {count} at {_cell(event.get('cell'))}"
    if kind == "unlock":
        by = event.get("by", who)
        helper = "" if by == who else f" with {by}'s golden mask"
        count = event.get("count")
        masks = plural(count, "black mask") if isinstance(count, int) else "? black masks"
        return f"{who} frees {masks}{helper}"
    if kind == "escape":
        return f"{who} escapes"
    if kind == "give_die":
        return f"{event.get('from', '?')} gives a die to {event.get('to', '?')}"
    if kind == "turn_of_fate":
        return "the team provokes a turn of fate"
    if kind == "countdown_start":
        return f"countdown {event.get('n', '?')} starts"
    if kind == "countdown_end":
        return f"countdown {event.get('n', '?')} ends: the door slams"
    if kind == "collapse":
        return "the temple collapses"
    if kind == "undo":
        return "the last action is taken back"
    if kind == "correct":
        return _describe_correction(event)
    return f"unknown event {kind!r}"


def _describe_correction(event: Mapping[str, Any]) -> str:
    line = event.get("line", "?")
    if "event" in event and event["event"] is None:
        return f"line {line} struck out"
    return f"correction of line {line}: {describe_event(event.get('event'))}"


def describe_state(game: Game) -> list[str]:
    """Summarise the game state in a few lines."""
    lines = [
        f"outcome: {game.outcome}",
        f"gems in the depot: {game.depot} (spare: {game.spare}); "
        f"keys to escape: {game.keys_to_escape}; turns of fate left: {game.turns_of_fate_left}",
    ]
    for pid, player in game.players.items():
        if player.escaped:
            where = "escaped"
        else:
            chamber = game.chamber_of(player)
            name = chamber.tile.name if chamber else "?"
            where = f"in {name} at {_cell(list(player.cell or ()))}"
        locked = f", {player.locked} locked" if player.locked else ""
        lines.append(f"  {pid}: {where}, {plural(player.dice, 'die')}{locked}")
    lines.append(f"temple: {plural(len(game.temple), 'chamber')}")
    for placed in game.temple:
        gems = f", {plural(placed.gems, 'gem')} active" if placed.gems else ""
        lines.append(
            f"  {_cell(list(placed.cell))} {placed.tile.name} (stairs {placed.stairs}){gems}"
        )
    return lines
