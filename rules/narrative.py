"""Game events and states told in words, for people reading a replay or the dashboard log."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rules.catalog import TileDef
from rules.engine import Game
from rules.module_characters import ABILITIES
from rules.module_quests import TASK_TILES
from rules.modules import CURSE_CARDS, TREASURES
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
    if tile.illusion:
        return "Illusion chamber"
    if tile.special is not None:
        return _SPECIAL_LABELS[tile.special]
    if tile.quest is not None or tile.trap is not None or tile.time is not None:
        return tile.name  # its printed name: "Altar chamber", "Tree of Life", "Slide trap"
    if tile.gems is not None:
        return "Gem chamber" if tile.gems.count > 1 else "One-gem chamber"
    return "Chamber"


_SPECIAL_LABELS = {
    "linked": "Linked chamber",
    "double": "Double chamber",
    "chalice": "Treasure chamber",
}
"""Module 4's chambers as players call them."""


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
        carrying = " carrying the chalice" if event.get("chalice") else ""
        return f"{who} enters {_cell(event.get('cell'))}{carrying}"
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
    if kind in _MODULE_VERBS:
        return f"{who} {_MODULE_VERBS[kind]} {event.get('card', event.get('treasure', ''))}".strip()
    return f"unknown event {kind!r}"


_MODULE_VERBS = {
    "curse": "draws the curse",
    "lift": "lifts the curse",
    "lose_die": "loses a die off the table",
    "claim": "claims the treasure",
    "use": "uses the treasure",
    "activate_linked": "activates the linked chambers",
    "sacrifice": "sacrifices dice on the altar",
    "push_ghost": "pushes the ghost",
    "task": "completes a task tile",
    "heal_tree": "heals the tree of life",
    "ability": "uses a character card",
    "climb": "climbs down the cliff",
    "summon": "summons every adventurer",
    "platform": "moves the moving platform",
    "time_up": "the sand timer runs out on",
    "lava": "master the lava in",
    "torch_task": "master a task of the torch chamber",
}


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


# ----- the dashboard's words: names, chambers by where they lie, no ids or cells ------------------

_STEPS = (("north", "south", 1), ("east", "west", 0))


def place_name(cell: Any, start: tuple[int, int]) -> str:
    """Say where a cell lies as a player would: `the start`, `north of the start`, `2 east and
    1 north of the start`."""
    if not (isinstance(cell, list | tuple) and len(cell) == 2) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in cell
    ):
        return "somewhere"
    offset = (cell[0] - start[0], cell[1] - start[1])
    if offset == (0, 0):
        return "the start"
    parts = []
    for positive, negative, axis in _STEPS:
        steps = offset[axis]
        if steps:
            parts.append((abs(steps), positive if steps > 0 else negative))
    if len(parts) == 1 and parts[0][0] == 1:
        return f"{parts[0][1]} of the start"
    return " and ".join(f"{count} {word}" for count, word in parts) + " of the start"


def _name(pid: Any) -> str:
    return pid.capitalize() if isinstance(pid, str) and pid else "?"


def _names(pids: Any) -> str:
    if not isinstance(pids, list) or not pids:
        return "?"
    names = [_name(pid) for pid in pids]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def chamber_at(game: Game, cell: Any) -> str:
    """Name the chamber at `cell` as players would: `the Gem chamber east of the start`, `the
    start chamber`, or `an empty spot north of the start` when none lies there."""
    start = game.temple.start_cell()
    where = place_name(cell, start)
    placed = None
    if isinstance(cell, list | tuple) and len(cell) == 2:
        try:
            placed = game.temple.at((int(cell[0]), int(cell[1])))
        except (TypeError, ValueError):
            placed = None
    if placed is None:
        return f"an empty spot {where}" if where != "somewhere" else "an unknown spot"
    if placed.tile.kind == "start":
        return "the start chamber"
    return f"the {chamber_label(placed.tile)} {where}"


def _tile_words(game: Game, tile_id: Any) -> str:
    tile = game.catalog.get(tile_id) if isinstance(tile_id, str) else None
    if tile is None:
        return f"an unknown tile ({tile_id!r})"
    if tile.kind == "exit":
        return "the Exit"
    marks = " and ".join(
        mark
        for mark, shown in (("a purple mask", tile.curse), ("a treasure icon", tile.treasure))
        if shown
    )
    marked = f" with {marks}" if marks else ""
    vowel = tile.illusion or tile.quest in ("altar", "obelisk") or tile.trap == "invocation"
    article = "an" if vowel else "a"  # "a One-gem chamber", "an Illusion chamber"
    if tile.gems is not None:
        return f"{article} {chamber_label(tile)} ({tile.gems.icon}s){marked}"
    return f"{article} {chamber_label(tile)}{marked}"


def curse_name(card_id: Any) -> str:
    """A curse card's printed name (`Broken die`), or a plain word for an unknown id."""
    card = CURSE_CARDS.get(card_id) if isinstance(card_id, str) else None  # any module's
    return card.name if card is not None else "an unknown curse"


def _tell_ability(who: str, event: Mapping[str, Any], game: Game) -> str:
    """A character card used on its own (module 6), in words."""
    player = game.players.get(event.get("player")) if isinstance(event.get("player"), str) else None
    card = ABILITIES.get(player.ability) if player is not None and player.ability else None
    if card is None:
        return f"{who} uses a character card"
    by = f" ({card.character})"
    if card.ability_id == "discoverer-run":
        cells = event.get("cells")
        last = cells[-1] if isinstance(cells, list) and cells else None
        return f"{who} runs to {chamber_at(game, last)}{by}"
    if card.ability_id == "doc-heal":
        return f"{who} frees all of {_name(event.get('target'))}'s black masks{by}"
    if card.ability_id == "mechanic-rotate":
        return f"{who} turns {chamber_at(game, event.get('cell'))}{by}"
    return f"{who} moves to {chamber_at(game, event.get('cell'))}{by}"


def quest_task_name(tile_id: Any) -> str:
    """A task tile's name (`Task tile 3`), or a plain word for an unknown id (module 5)."""
    tile = TASK_TILES.get(tile_id) if isinstance(tile_id, str) else None
    return tile.name if tile is not None else "an unknown task tile"


def treasure_name(treasure_id: Any) -> str:
    """A treasure tile's printed name (`Double key`), or a plain word for an unknown id."""
    tile = TREASURES.get(treasure_id) if isinstance(treasure_id, str) else None
    return tile.name if tile is not None else "an unknown treasure"


def _spent(event: Mapping[str, Any]) -> str:
    """`` with the Double key`` for the treasures a paying event spends (module 2)."""
    listed = event.get("treasures")
    if not isinstance(listed, list) or not listed:
        return ""
    names = [f"the {treasure_name(t)}" for t in listed]
    return " with " + (names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1])


def _tell_module_event(kind: str, event: Mapping[str, Any], game: Game) -> str | None:
    """Say a module's event (curses, treasures) in words; None for any other type."""
    who = _name(event.get("player"))
    if kind == "curse":
        return f"{who} draws the curse {curse_name(event.get('card'))}"
    if kind == "lift":
        return f"{who} lifts the curse {curse_name(event.get('card'))}{_spent(event)}"
    if kind == "lose_die":
        return f"{who} loses a die off the table for good (Lost dice)"
    if kind == "claim":
        return f"{who} claims a treasure: the {treasure_name(event.get('treasure'))}{_spent(event)}"
    if kind == "ability":
        return _tell_ability(who, event, game)
    if kind == "time_up":
        losers = event.get("losers")
        lose = f"; {_names(losers)} lose a die each" if isinstance(losers, list) and losers else ""
        return f"The sand timer runs out on {chamber_at(game, event.get('cell'))}{lose}"
    if kind == "lava":
        return f"{_names(event.get('players'))} master the lava: 7 torches{_spent(event)}"
    if kind == "torch_task":
        return f"{_names(event.get('players'))} master a task of the Torch chamber{_spent(event)}"
    if kind == "climb":
        return f"{who} climbs down the cliff{_spent(event)}"
    if kind == "summon":
        return f"{who} summons every adventurer into the Invocation chamber{_spent(event)}"
    if kind == "platform":
        where = place_name(event.get("cell"), game.temple.start_cell())
        return f"The moving platform moves to the spot {where}"
    if kind == "sacrifice":
        count = event.get("dice", 1)
        dice = plural(count, "die") if isinstance(count, int) else "? dice"
        return f"{who} sacrifices {dice} on the altar"
    if kind == "push_ghost":
        return f"{who} pushes the ghost into {chamber_at(game, event.get('cell'))}{_spent(event)}"
    if kind == "task":
        tile = quest_task_name(event.get("tile"))
        return f"{_names(event.get('players'))} roll {tile} in the Task chamber{_spent(event)}"
    if kind == "heal_tree":
        return f"{_names(event.get('players'))} heal the tree of life{_spent(event)}"
    if kind == "activate_linked":
        players = event.get("players")
        verb = "activates" if isinstance(players, list) and len(players) == 1 else "activate"
        cells = event.get("cells")
        count = len(cells) if isinstance(cells, list) else 0
        return (
            f"{_names(players)} {verb} the linked chambers together: a gem in each of "
            f"{count or '?'}{_spent(event)}"
        )
    if kind != "use":
        return None
    treasure = event.get("treasure")
    name = treasure_name(treasure)
    if treasure == "teleport":
        return f"{who} teleports to {chamber_at(game, event.get('cell'))} (Teleport)"
    if treasure == "secret_passage":
        cells = event.get("cells")
        if isinstance(cells, list) and len(cells) == 2:
            between = f"{chamber_at(game, cells[0])} and {chamber_at(game, cells[1])}"
            return f"{who} lays the Secret passage between {between}"
        return f"{who} lays the Secret passage"
    if treasure == "healing_mask":
        return f"{who} uses the Healing mask: every black mask is re-rolled"
    if treasure == "extra_gem":
        return f"{who} uses the Extra gem: a gem from the depot lies activated on it"
    if treasure == "large_torch":
        return f"{who} lays the Large torch: a second starting chamber until the next door slam"
    return f"{who} uses the {name}"


def _faces(faces: Any) -> str:
    if not isinstance(faces, list):
        return "?"
    counts: dict[str, int] = {}
    for face in faces:
        counts[str(face)] = counts.get(str(face), 0) + 1
    return ", ".join(plural(n, face) for face, n in counts.items()) or "no dice"


def tell_event(event: Any, game: Game, lines: Mapping[int, Any] | None = None) -> str:
    """Say what an event claims happened, in the words players use at the table: names, chambers
    by what and where they are (never ids or cells). `game` gives the temple and the catalog;
    `lines` (record line -> event) lets an undo or a correction say which event it concerns."""
    if not isinstance(event, Mapping):
        return f"not an event: {event!r}"
    kind = event.get("type")
    who = _name(event.get("player"))
    if kind == "dice":
        return f"{who} rolls {_faces(event.get('faces'))}"
    if kind == "discover":
        where = place_name(event.get("cell"), game.temple.start_cell())
        return f"{who} discovers {_tile_words(game, event.get('tile'))} {where}{_spent(event)}"
    if kind == "enter":
        carrying = " carrying the chalice" if event.get("chalice") else ""
        muscle = " with the Muscleman's 2 adventurers" if event.get("ability") else ""
        where = chamber_at(game, event.get("cell"))
        return f"{who} enters {where}{carrying}{muscle}{_spent(event)}"
    if kind == "activate":
        players = event.get("players")
        verb = "activates" if isinstance(players, list) and len(players) == 1 else "activate"
        gems = event.get("gems")
        count = plural(gems, "gem") if isinstance(gems, int) else "? gems"
        where = chamber_at(game, event.get("cell"))
        offering = event.get("offering")
        gift = f" with {_name(offering)}'s offering (Priest)" if offering else ""
        return f"{_names(players)} {verb} {count} in {where}{gift}{_spent(event)}"
    if kind == "unlock":
        by = event.get("by", event.get("player"))
        helper = "" if by == event.get("player") else f" with {_name(by)}'s golden mask"
        count = event.get("count")
        masks = plural(count, "black mask") if isinstance(count, int) else "? black masks"
        return f"{who} frees {masks}{helper}"
    if kind == "escape":
        return f"{who} escapes{_spent(event)}"
    if kind == "give_die":
        return f"{_name(event.get('from'))} gives a die to {_name(event.get('to'))}"
    told = _tell_module_event(kind, event, game) if isinstance(kind, str) else None
    if told is not None:
        return told
    if kind == "undo":
        target = event.get("line")
        if isinstance(target, int) and lines is not None and target in lines:
            return f"Undo: takes back #{target} ({tell_event(lines[target], game)})"
        return "Undo: takes back the last action"
    if kind == "correct":
        target = event.get("line", "?")
        if "event" in event and event["event"] is None:
            return f"Fix of #{target}: removed"
        return f"Fix of #{target}: {tell_event(event.get('event'), game)}"
    if kind in ("turn_of_fate", "countdown_start", "countdown_end", "collapse"):
        text = describe_event(event)
        if kind == "countdown_end" and "illusions" in game.setup.modules:
            text += " and the illusion chambers vanish"
        return text[0].upper() + text[1:]
    return f"unknown event {kind!r}"


_CELL_IN_REASON = re.compile(r"(?:\b(cell|at|in|from) )?\[(-?\d+), (-?\d+)\]")
_PLACE_AFTER = {"cell": "the spot ", "in": "in the chamber ", "from": "from the chamber "}


def tell_reason(reason: str, game: Game) -> str:
    """Say an engine's reason in the dashboard's words: cells become places (`[0, 1]` ->
    `north of the start`) and player ids names. The verdict itself (what a record replays to)
    keeps the engine's words."""
    start = game.temple.start_cell()

    def place(match: re.Match[str]) -> str:
        where = place_name([int(match.group(2)), int(match.group(3))], start)
        word = match.group(1)
        if where == "the start":
            return f"{word} the start chamber" if word in ("in", "from") else "the start chamber"
        if word == "at":
            return where
        if word is None:
            return f"the spot {where}"
        return _PLACE_AFTER[word] + where

    told = _CELL_IN_REASON.sub(place, reason)
    for pid in game.players:
        told = re.sub(rf"(?<![\w-]){re.escape(pid)}(?![\w-])", _name(pid), told)
    return told[0].upper() + told[1:] if told else told
