"""Game events and states told in words, for people reading a replay or the dashboard log."""

from __future__ import annotations

import re
import weakref
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from base.words import DEFAULT_LANGUAGE, has_words, language, match_template, say
from rules.catalog import TileDef
from rules.engine import Game
from rules.game_setup import KNOWN_MODULES
from rules.module_characters import ABILITIES
from rules.module_quests import TASK_TILES
from rules.modules import curse_cards_in_play, treasures_in_play
from rules.rule_words import (
    PHRASES,
    character_name,
    keys_of,
    module_chamber_in,
    phrase_in,
    quests_in,
)
from rules.vocabulary import plural, plural_of


def chamber_label(tile: TileDef, lang: str = DEFAULT_LANGUAGE) -> str:
    """The short name a player gives a chamber: `Start`, `Exit`, `Gem chamber`, `Chamber`
    (in `lang`; a quest, trap or time chamber keeps its printed name).

    The icons on the tile say the rest (what it takes to enter, which icon its gems need), so
    the catalog's numbers and qualifiers ("Gem chamber (keys) 2") are left to the tile's title.
    """
    if language(lang) != DEFAULT_LANGUAGE:
        return _label_in(language(lang), tile)
    if tile.kind == "start":
        return "Start"
    if tile.kind == "exit":
        return "Exit"
    if tile.illusion:
        return "Illusion chamber"
    if tile.special is not None:
        return _SPECIAL_LABELS[tile.special]
    if tile.quest is not None or tile.trap is not None or tile.time is not None or tile.feature:
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
        freed = event.get("count")
        masks = plural(freed, "black mask") if isinstance(freed, int) else "? black masks"
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


def outcome_words(game: Game, lang: str = DEFAULT_LANGUAGE) -> dict[str, Any]:
    """A saved game's outcome for the list of past games: `outcome` (running, won or lost), who
    escaped and who did not, and one sentence (`Won: Red and Blue escaped`) in `lang`."""
    escaped = [pid for pid, player in game.players.items() if player.escaped]
    inside = [pid for pid, player in game.players.items() if not player.escaped]
    if language(lang) != DEFAULT_LANGUAGE:
        said = _outcome_in(language(lang), game, escaped, inside)
    elif game.outcome == "won":
        said = f"Won: {_names(escaped)} escaped"
    elif game.outcome == "lost":
        caught = f" with {_names(inside)} inside" if inside else ""
        said = f"Lost: the temple collapsed{caught}"
    else:
        out = f", {_names(escaped)} out" if escaped else ""
        said = f"Running{out}: {len(inside)} of {len(game.players)} still inside"
    return {"outcome": game.outcome, "escaped": escaped, "inside": inside, "outcome_text": said}


def replay_words(game: Game, lang: str = DEFAULT_LANGUAGE) -> dict[str, Any]:
    """The end of a replayed game in words (`lang`): where each player is, and each chamber of
    the temple by its name and place (`Gem chamber`, `east of the start`), for past games."""
    players = {}
    out = "out of the temple" if language(lang) == DEFAULT_LANGUAGE else say(lang, "chamber.out")
    for pid, player in game.players.items():
        players[pid] = out if player.escaped else chamber_at(game, player.cell, lang)
    start = game.temple.start_cell()
    starting = (
        "Starting chamber" if language(lang) == DEFAULT_LANGUAGE else say(lang, "chamber.starting")
    )
    temple = [
        {
            "cell": list(placed.cell),
            "label": starting if placed.tile.kind == "start" else chamber_label(placed.tile, lang),
            "name": placed.tile.name,
            "where": place_name(list(placed.cell), start, lang),
            "stairs": placed.stairs,
            "gems": placed.gems,
        }
        for placed in game.temple
    ]
    return {"players": players, "temple": temple}


# ----- the dashboard's words: names, chambers by where they lie, no ids or cells ------------------

_STEPS = (("north", "south", 1), ("east", "west", 0))


_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def _count_word(count: int) -> str:
    return _NUMBER_WORDS[count] if count < len(_NUMBER_WORDS) else str(count)


def place_name(cell: Any, start: tuple[int, int], lang: str = DEFAULT_LANGUAGE) -> str:
    """Say where a cell lies as a player would: `the start`, `north of the start`,
    `north-east of the start`, `two tiles north of the start`, `two tiles north and one east of
    the start` (counted in words, so that a number never reads as part of a chamber's name),
    in `lang`."""
    if not (isinstance(cell, list | tuple) and len(cell) == 2) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in cell
    ):
        return "somewhere" if language(lang) == DEFAULT_LANGUAGE else say(lang, "place.somewhere")
    offset = (cell[0] - start[0], cell[1] - start[1])
    if language(lang) != DEFAULT_LANGUAGE:
        return _place_in(language(lang), offset)
    if offset == (0, 0):
        return "the start"
    parts = []
    for positive, negative, axis in _STEPS:
        steps = offset[axis]
        if steps:
            parts.append((abs(steps), positive if steps > 0 else negative))
    if all(count == 1 for count, _ in parts):
        return "-".join(word for _, word in parts) + " of the start"  # `north-east of the start`
    (first, first_word), *rest = parts
    said = f"{_count_word(first)} {'tile' if first == 1 else 'tiles'} {first_word}"
    for count, word in rest:
        said += f" and {_count_word(count)} {word}"
    return f"{said} of the start"


@lru_cache(maxsize=1024)
def cell_place_name(cell: tuple[int, int], start: tuple[int, int]) -> str:
    """`place_name` of a temple cell in English, worked out once per cell and start (the open
    actions name many chambers in every listing)."""
    return place_name(cell, start)


def _name(pid: Any) -> str:
    return pid.capitalize() if isinstance(pid, str) and pid else "?"


def _names(pids: Any) -> str:
    if not isinstance(pids, list) or not pids:
        return "?"
    names = [_name(pid) for pid in pids]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def chamber_at(game: Game, cell: Any, lang: str = DEFAULT_LANGUAGE) -> str:
    """Name the chamber at `cell` as players would: `the Gem chamber east of the start`, `the
    start chamber`, or `an empty spot north of the start` when none lies there (in `lang`; other
    languages leave the article to the sentence: `entra na Câmara de gemas a leste ...`)."""
    start = game.temple.start_cell()
    where = place_name(cell, start, lang)
    placed = None
    if isinstance(cell, list | tuple) and len(cell) == 2:
        try:
            placed = game.temple.at((int(cell[0]), int(cell[1])))
        except (TypeError, ValueError):
            placed = None
    if language(lang) != DEFAULT_LANGUAGE:
        return _chamber_in(language(lang), placed, where)
    if placed is None:
        return f"an empty spot {where}" if where != "somewhere" else "an unknown spot"
    if placed.tile.kind == "start":
        return "the start chamber"
    label = chamber_label(placed.tile)
    comma = "," if label[-1:].isdigit() else ""  # `the Lava chamber 1, north of the start`
    return f"the {label}{comma} {where}"


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
        return f"{article} {chamber_label(tile)} ({plural_of(tile.gems.icon)}){marked}"
    return f"{article} {chamber_label(tile)}{marked}"


def curse_name(card_id: Any) -> str:
    """A curse card's printed name (`Broken die`), or a plain word for an unknown id."""
    cards = curse_cards_in_play(KNOWN_MODULES)  # any module's, the Queenie modules' too
    card = cards.get(card_id) if isinstance(card_id, str) else None
    return card.name if card is not None else "an unknown curse"


def _tell_ability(who: str, event: Mapping[str, Any], game: Game) -> str:
    """A character card used on its own (module 6), in words."""
    pid = event.get("player")
    player = game.players.get(pid) if isinstance(pid, str) else None
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
    if card.ability_id == "priest-offering":
        return f"{who} re-rolls 3 black masks{by}"
    return f"{who} moves to {chamber_at(game, event.get('cell'))}{by}"


def quest_task_name(tile_id: Any) -> str:
    """A task tile's name (`Task tile 3`), or a plain word for an unknown id (module 5)."""
    tile = TASK_TILES.get(tile_id) if isinstance(tile_id, str) else None
    return tile.name if tile is not None else "an unknown task tile"


def treasure_name(treasure_id: Any) -> str:
    """A treasure tile's printed name (`Double key`), or a plain word for an unknown id."""
    tiles = treasures_in_play(KNOWN_MODULES)  # any module's, Queenie ones too
    tile = tiles.get(treasure_id) if isinstance(treasure_id, str) else None
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


def tell_event(
    event: Any, game: Game, lines: Mapping[int, Any] | None = None, lang: str = DEFAULT_LANGUAGE
) -> str:
    """Say what an event claims happened, in the words players use at the table: names, chambers
    by what and where they are (never ids or cells). `game` gives the temple and the catalog;
    `lines` (record line -> event) lets an undo or a correction say which event it concerns;
    `lang` the table's language (a Queenie module's own line through the catalog's `qnarr.*`)."""
    if language(lang) != DEFAULT_LANGUAGE:
        told = _tell_in(language(lang), event, game, lines)
        if told is not None:
            return told
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
        freed = event.get("count")
        masks = plural(freed, "black mask") if isinstance(freed, int) else "? black masks"
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
        if kind == "countdown_end" and event in game.accepted:
            losers = slam_losers(game).get(event.get("n"), [])
            if losers:
                each = " each" if len(losers) > 1 else ""
                text += f"; {_names(losers)} {'lose' if len(losers) > 1 else 'loses'} a die{each}"
            else:
                text += "; everyone made it back in time"
        return text[0].upper() + text[1:]
    for tell in game.module_hooks("tell"):
        told = tell(game, event)
        if told is not None:
            return tell_module_words(told, game, lang, "qnarr.")
    return f"unknown event {kind!r}"


_SLAMS: weakref.WeakKeyDictionary[Game, tuple[object, dict[Any, list[str]]]] = (
    weakref.WeakKeyDictionary()
)
"""Who lost a die at each door slam, per game, with the record it was worked out from."""


def slam_losers(game: Game) -> dict[Any, list[str]]:
    """Say who lost a die at each door slam of the game as it now stands (countdown number ->
    player ids): the accepted events replayed, each player's dice before and after the slam.
    Worked out again only when the game's record changed."""
    key = (len(game.lines), tuple(game.accepted_lines))
    cached = _SLAMS.get(game)
    if cached is not None and cached[0] == key:
        return cached[1]
    found: dict[Any, list[str]] = {}
    if any(event.get("type") == "countdown_end" for event in game.accepted):
        replayed = Game(game.setup)
        for line, event in zip(game.accepted_lines, game.accepted, strict=True):
            before = {pid: player.dice for pid, player in replayed.players.items()}
            replayed.apply(event, line)
            if event.get("type") == "countdown_end":
                found[event.get("n")] = [
                    pid for pid, player in replayed.players.items() if player.dice < before[pid]
                ]
    _SLAMS[game] = (key, found)
    return found


_CELL_IN_REASON = re.compile(r"(?:\b(cell|at|in|from) )?\[(-?\d+), (-?\d+)\]")
_PLACE_AFTER = {"cell": "the spot ", "in": "in the chamber ", "from": "from the chamber "}


def tell_reason(reason: str, game: Game, lang: str = DEFAULT_LANGUAGE) -> str:
    """Say an engine's reason in the dashboard's words: cells become places (`[0, 1]` ->
    `north of the start`) and player ids names; in `lang` where the catalog knows the reason's
    template (the others read English). The verdict itself (what a record replays to) keeps
    the engine's words."""
    if language(lang) != DEFAULT_LANGUAGE:
        told = _reason_in(language(lang), reason, game)
        if told is not None:
            return told
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


# ----- the table's language: the same words through the catalog (base/words.py) ----------------

_COMPASS = {(0, 1): "N", (0, -1): "S", (1, 0): "E", (-1, 0): "W"}
_COMPASS.update({(1, 1): "NE", (-1, 1): "NW", (1, -1): "SE", (-1, -1): "SW"})


def _name_in(lang: str, pid: Any) -> str:
    if not isinstance(pid, str) or not pid:
        return "?"
    key = f"colour.{pid}"
    return say(lang, key) if has_words(lang, key) else pid.capitalize()


def _names_in(lang: str, pids: Any) -> str:
    if not isinstance(pids, list) or not pids:
        return "?"
    names = [_name_in(lang, pid) for pid in pids]
    if len(names) == 1:
        return names[0]
    return say(lang, "list.and", rest=", ".join(names[:-1]), last=names[-1])


def _count_in(lang: str, count: Any, thing: str) -> str:
    if not isinstance(count, int) or isinstance(count, bool):
        return say(lang, f"count.{thing}.many", n="?")
    return say(lang, f"count.{thing}.{'one' if count == 1 else 'many'}", n=count)


def _number_in(lang: str, count: int) -> str:
    key = f"num.{count}"
    return say(lang, key) if has_words(lang, key) else str(count)


def _place_in(lang: str, offset: tuple[int, int]) -> str:
    """Where an offset from the start lies, in `lang`."""
    if offset == (0, 0):
        return say(lang, "place.start")
    step = (max(-1, min(1, offset[0])), max(-1, min(1, offset[1])))
    if abs(offset[0]) <= 1 and abs(offset[1]) <= 1:
        return say(lang, f"place.{_COMPASS[step]}")
    parts = []
    for positive, negative, axis in _STEPS:
        if offset[axis]:
            word = positive if offset[axis] > 0 else negative
            parts.append((abs(offset[axis]), say(lang, f"dir.{word}")))
    (first, first_dir), *rest = parts
    if first == 1:
        said = say(lang, "place.first_one", dir=first_dir)
    else:
        said = say(lang, "place.first_many", count=_number_in(lang, first), dir=first_dir)
    for count, word in rest:
        more = say(lang, "place.more", count=_number_in(lang, count), dir=word)
        said = say(lang, "list.and", rest=said, last=more)
    return say(lang, "place.far", steps=said)


def _label_in(lang: str, tile: TileDef) -> str:
    """A chamber's short name in `lang` (a quest, trap or time chamber: its printed name)."""
    if tile.kind == "start":
        return say(lang, "chamber.start")
    if tile.kind == "exit":
        return say(lang, "chamber.exit")
    if tile.illusion:
        return say(lang, "chamber.illusion")
    if tile.special is not None:
        return say(lang, f"chamber.{tile.special}")
    if any(word is not None for word in (tile.quest, tile.trap, tile.time, tile.feature)):
        return module_chamber_in(lang, tile.name) or tile.name
    if tile.gems is not None:
        return say(lang, "chamber.gem" if tile.gems.count > 1 else "chamber.one_gem")
    return say(lang, "chamber.plain")


_PILE_NAME = re.compile(r"^.*?(?: \((?P<icons>keys|torches)\))?(?: (?P<n>\d+))?$")
_ICON_WORDS = {"keys": "faces.key", "torches": "faces.torch"}


def tile_name_in(tile: TileDef, lang: str) -> str:
    """A tile's full name as the pile lists it (`Gem chamber (keys) 2`) in `lang`: its short
    name, the icons its gems need and its number."""
    if language(lang) == DEFAULT_LANGUAGE:
        return tile.name
    if tile.kind == "start":
        return say(lang, "chamber.starting")
    label = _label_in(language(lang), tile)
    if any(word is not None for word in (tile.quest, tile.trap, tile.time, tile.feature)):
        return label
    found = _PILE_NAME.match(tile.name)
    icons = found.group("icons") if found else None
    number = found.group("n") if found else None
    if icons is not None:
        told = say(lang, _ICON_WORDS[icons])
        return say(lang, "more.setup.tile_gems", label=label, icons=told, n=number or "").strip()
    return say(lang, "more.setup.tile_numbered", label=label, n=number or "").strip()


def _chamber_in(lang: str, placed: Any, where: str) -> str:
    if placed is None:
        if where == say(lang, "place.somewhere"):
            return say(lang, "chamber.unknown_spot")
        return say(lang, "chamber.empty_spot", where=where)
    if placed.tile.kind == "start":
        return say(lang, "chamber.the_start")
    return say(lang, "chamber.at", label=_label_in(lang, placed.tile), where=where)


def _tile_in(lang: str, game: Game, tile_id: Any) -> str:
    tile = game.catalog.get(tile_id) if isinstance(tile_id, str) else None
    if tile is None:
        return say(lang, "narr.unknown_tile")
    if tile.kind == "exit":
        return say(lang, "narr.the_exit")
    label = _label_in(lang, tile)
    if tile.gems is not None:
        told = say(lang, "narr.tile_gems", label=label, icons=say(lang, f"faces.{tile.gems.icon}"))
    else:
        told = say(lang, "narr.tile", label=label)
    marks = [
        say(lang, key)
        for key, shown in (("narr.mark_curse", tile.curse), ("narr.mark_treasure", tile.treasure))
        if shown
    ]
    if not marks:
        return told
    joined = marks[0] if len(marks) == 1 else say(lang, "list.and", rest=marks[0], last=marks[1])
    return say(lang, "narr.tile_marked", tile=told, marks=joined)


def _faces_in(lang: str, faces: Any) -> str:
    if not isinstance(faces, list):
        return "?"
    counts: dict[str, int] = {}
    for face in faces:
        counts[str(face)] = counts.get(str(face), 0) + 1
    said = [
        _count_in(lang, n, face) if has_words(lang, f"count.{face}.one") else f"{n} {face}"
        for face, n in counts.items()
    ]
    return ", ".join(said) or say(lang, "narr.no_dice")


_PAYS_WITH_TREASURES: tuple[str, ...] = (
    "discover",
    "enter",
    "activate",
    "escape",
    "lift",
    "claim",
    "lava",
)
_PAYS_WITH_TREASURES += ("torch_task", "climb", "summon", "push_ghost", "task", "heal_tree")
_PAYS_WITH_TREASURES += ("activate_linked",)


def _tell_in(lang: str, event: Any, game: Game, lines: Mapping[int, Any] | None) -> str | None:
    """An event in `lang`, or None where the catalog has no words for it yet (most events of
    modules 3 to 8): the caller then tells it in English."""
    if not isinstance(event, Mapping):
        return say(lang, "narr.not_event")
    listed = event.get("treasures")
    if event.get("type") in _PAYS_WITH_TREASURES and isinstance(listed, list) and listed:
        told = _tell_in(lang, {k: v for k, v in event.items() if k != "treasures"}, game, lines)
        if told is None:
            return None
        names = [_printed_in(lang, "treasure", t, treasure_name(t)) for t in listed]
        joined = (
            names[0]
            if len(names) == 1
            else say(lang, "list.and", rest=", ".join(names[:-1]), last=names[-1])
        )
        return say(lang, "narr.with_treasures", text=told, treasures=joined)
    kind = event.get("type")
    who = _name_in(lang, event.get("player"))
    if kind in ("curse", "lift", "lose_die", "claim", "use"):
        return _tell_cards_in(lang, kind, who, event, game)
    if kind in _MODULE_KEYS:
        return _tell_rooms_in(lang, kind, who, event, game)
    if kind == "dice":
        return say(lang, "narr.rolls", who=who, faces=_faces_in(lang, event.get("faces")))
    if kind == "discover":
        where = place_name(event.get("cell"), game.temple.start_cell(), lang)
        tile = _tile_in(lang, game, event.get("tile"))
        return say(lang, "narr.discovers", who=who, tile=tile, where=where)
    if kind == "enter":
        if event.get("chalice") or event.get("ability"):
            return None
        where = chamber_at(game, event.get("cell"), lang)
        return say(lang, "narr.enters", who=who, where=where)
    if kind == "activate":
        if event.get("offering"):
            return None
        players = event.get("players")
        key = (
            "narr.activates_one"
            if isinstance(players, list) and len(players) == 1
            else ("narr.activates_many")
        )
        where = chamber_at(game, event.get("cell"), lang)
        count = _count_in(lang, event.get("gems"), "gem")
        return say(lang, key, names=_names_in(lang, players), count=count, where=where)
    if kind == "unlock":
        by = event.get("by", event.get("player"))
        masks = _count_in(lang, event.get("count"), "black_mask")
        if by == event.get("player"):
            return say(lang, "narr.frees", who=who, masks=masks)
        return say(lang, "narr.frees_helped", who=who, masks=masks, by=_name_in(lang, by))
    if kind == "escape":
        return say(lang, "narr.escapes", who=who)
    if kind == "give_die":
        giver, taker = _name_in(lang, event.get("from")), _name_in(lang, event.get("to"))
        return say(lang, "narr.gives_die", giver=giver, taker=taker)
    if kind == "turn_of_fate":
        return say(lang, "narr.turn_of_fate")
    if kind == "countdown_start":
        return say(lang, "narr.countdown_start", n=event.get("n", "?"))
    if kind == "countdown_end":
        return _slam_in(lang, event, game)
    if kind == "collapse":
        return say(lang, "narr.collapse")
    if kind == "undo":
        target = event.get("line")
        if isinstance(target, int) and lines is not None and target in lines:
            what = tell_event(lines[target], game, lang=lang)
            return say(lang, "narr.undo_line", line=target, what=what)
        return say(lang, "narr.undo")
    if kind == "correct":
        target = event.get("line", "?")
        if "event" in event and event["event"] is None:
            return say(lang, "narr.fix_removed", line=target)
        return say(
            lang, "narr.fix", line=target, what=tell_event(event.get("event"), game, lang=lang)
        )
    return None


_MODULE_KEYS: tuple[str, ...] = (
    "time_up",
    "lava",
    "torch_task",
    "climb",
    "summon",
    "platform",
    "sacrifice",
)
_MODULE_KEYS += ("push_ghost", "task", "heal_tree", "activate_linked", "ability")


def _tell_rooms_in(
    lang: str, kind: str, who: str, event: Mapping[str, Any], game: Game
) -> str | None:
    """Modules 4 to 8 in `lang`: the special, quest, trap and time chambers, the characters."""
    names = _names_in(lang, event.get("players"))
    players = event.get("players")
    one = "_one" if isinstance(players, list) and len(players) == 1 else ""
    if kind == "time_up":
        where = chamber_at(game, event.get("cell"), lang)
        losers = event.get("losers")
        if isinstance(losers, list) and losers:
            key = "narr.time_up_loser" if len(losers) == 1 else "narr.time_up_losers"
            return say(lang, key, where=where, names=_names_in(lang, losers))
        return say(lang, "narr.time_up", where=where)
    if kind == "platform":
        where = place_name(event.get("cell"), game.temple.start_cell(), lang)
        return say(lang, "narr.platform", where=where)
    if kind == "sacrifice":
        return say(
            lang, "narr.sacrifice", who=who, dice=_count_in(lang, event.get("dice", 1), "die")
        )
    if kind == "push_ghost":
        return say(
            lang, "narr.push_ghost", who=who, where=chamber_at(game, event.get("cell"), lang)
        )
    if kind == "task":
        task = quest_task_name(event.get("tile"))
        tile = module_chamber_in(lang, task) or task
        return say(lang, f"narr.task{one}", names=names, tile=tile)
    if kind == "activate_linked":
        cells = event.get("cells")
        count = len(cells) if isinstance(cells, list) else 0
        return say(lang, f"narr.activate_linked{one}", names=names, count=count or "?")
    if kind == "ability":
        return _tell_ability_in(lang, who, event, game)
    if kind in ("torch_task", "heal_tree", "lava") and one:
        return say(lang, f"narr.{kind}_one", names=names)
    return say(lang, f"narr.{kind}", who=who, names=names)


def _tell_cards_in(
    lang: str, kind: str, who: str, event: Mapping[str, Any], game: Game | None = None
) -> str | None:
    """Modules 1 and 2 in `lang`: a curse drawn or lifted, a die lost, a treasure claimed or
    used (the cards and tiles keep their printed names)."""
    card = _printed_in(lang, "card", event.get("card"), curse_name(event.get("card")))
    if kind == "curse":
        return say(lang, "narr.curse", who=who, card=card)
    if kind == "lift":
        return say(lang, "narr.lift", who=who, card=card)
    if kind == "lose_die":
        return say(lang, "narr.lose_die", who=who)
    treasure = event.get("treasure")
    named = _printed_in(lang, "treasure", treasure, treasure_name(treasure))
    if kind == "use" and treasure in _OWN_SENTENCES and game is not None:
        return _tell_treasure_in(lang, who, event, game, named)
    return say(lang, "narr.claim" if kind == "claim" else "narr.use", who=who, treasure=named)


_OWN_SENTENCES = ("teleport", "secret_passage", "healing_mask", "extra_gem", "large_torch")
"""The special treasures whose use the log tells in a sentence of its own."""


def _tell_treasure_in(lang: str, who: str, event: Mapping[str, Any], game: Game, named: str) -> str:
    """One of the five special treasures used, in `lang`."""
    treasure = event.get("treasure")
    if treasure == "teleport":
        where = chamber_at(game, event.get("cell"), lang)
        return say(lang, "narr.treasure.teleport", who=who, where=where, treasure=named)
    cells = event.get("cells")
    if treasure == "secret_passage" and isinstance(cells, list) and len(cells) == 2:
        a, b = (chamber_at(game, cell, lang) for cell in cells)
        key = "narr.treasure.secret_passage_between"
        return say(lang, key, who=who, treasure=named, a=a, b=b)
    return say(lang, f"narr.treasure.{treasure}", who=who, treasure=named)


def _tell_ability_in(lang: str, who: str, event: Mapping[str, Any], game: Game) -> str:
    """A character card used on its own (module 6), in `lang`."""
    pid = event.get("player")
    player = game.players.get(pid) if isinstance(pid, str) else None
    card = ABILITIES.get(player.ability) if player is not None and player.ability else None
    if card is None:
        return say(lang, "narr.ability.any", who=who)
    character = character_name(card.character, lang)
    if card.ability_id == "discoverer-run":
        cells = event.get("cells")
        last = cells[-1] if isinstance(cells, list) and cells else None
        where = chamber_at(game, last, lang)
        return say(lang, "narr.ability.run", who=who, where=where, character=character)
    if card.ability_id == "doc-heal":
        other = _name_in(lang, event.get("target"))
        return say(lang, "narr.ability.heal", who=who, other=other, character=character)
    if card.ability_id == "priest-offering":
        return say(lang, "narr.ability.reroll", who=who, character=character)
    key = "narr.ability.rotate" if card.ability_id == "mechanic-rotate" else "narr.ability.move"
    where = chamber_at(game, event.get("cell"), lang)
    return say(lang, key, who=who, where=where, character=character)


def _printed_in(lang: str, kind: str, card_id: Any, printed: str) -> str:
    """A curse card's or a treasure tile's name as the language's rulebook prints it."""
    key = f"{kind}.{card_id}"
    return say(lang, key) if isinstance(card_id, str) and has_words(lang, key) else printed


def _slam_in(lang: str, event: Mapping[str, Any], game: Game) -> str:
    text = say(lang, "narr.countdown_end", n=event.get("n", "?"))
    if "illusions" in game.setup.modules:
        text = say(lang, "narr.illusions_vanish", text=text)
    if event in game.accepted:
        losers = slam_losers(game).get(event.get("n"), [])
        if not losers:
            return say(lang, "narr.slam_none", text=text)
        key = "narr.slam_many" if len(losers) > 1 else "narr.slam_one"
        return say(lang, key, text=text, names=_names_in(lang, losers))
    return text


def _outcome_in(lang: str, game: Game, escaped: list[str], inside: list[str]) -> str:
    if game.outcome == "won":
        return say(lang, "outcome.won", names=_names_in(lang, escaped))
    if game.outcome == "lost":
        if inside:
            return say(lang, "outcome.lost_inside", names=_names_in(lang, inside))
        return say(lang, "outcome.lost")
    counts = {"inside": len(inside), "players": len(game.players)}
    if escaped:
        return say(lang, "outcome.running_out", names=_names_in(lang, escaped), **counts)
    return say(lang, "outcome.running", **counts)


# ----- the engine's reasons, translated at display time by the template they match -------------

REASON_KEYS = (
    "reason.no_chamber",
    "reason.already_in",
    "reason.not_next",
    "reason.wall",
    "reason.no_dice_one",
    "reason.no_dice_many",
    "reason.shows_one",
    "reason.show_together",
    "reason.shows_icons",
    "reason.show_icons_together",
    "reason.not_inside",
    "reason.no_gem_icons",
    "reason.already_gems",
    "reason.two_players",
    "reason.depot_only",
    "reason.not_in_exit",
    "reason.already_escaped",
    "reason.not_escaped_give",
    "reason.already_gave",
    "reason.no_die_to_give",
    "reason.receiver_escaped",
    "reason.professionals",
    "reason.fate_twice",
    "reason.no_spare",
    "reason.game_over",
    "reason.helper_away",
    "reason.locked",
    "reason.not_started",
)
"""The engine's reasons the catalog words (its English text is the engine's template)."""

PURPOSE_KEYS = ("purpose.enter", "purpose.activate", "purpose.escape", "purpose.unlock")
"""What a payment was for (`to enter Gem chamber`), inside a reason."""

_COUNTED = ("gem", "die", "locked_die", "adventurer", "key", "torch", "golden_mask", "black_mask")


def _icons_in(lang: str, text: str) -> str | None:
    """`1 adventurer and 2 keys` (the engine's counted icons) in `lang`, or None."""
    parts = []
    for part in text.split(" and "):
        number = part.partition(" ")[0]
        if not number.isdigit():
            return None
        count = int(number)
        for thing in _COUNTED:
            if (
                say(DEFAULT_LANGUAGE, f"count.{thing}.{'one' if count == 1 else 'many'}", n=count)
                == part
            ):
                parts.append(_count_in(lang, count, thing))
                break
        else:
            return None
    if len(parts) == 1:
        return parts[0]
    return say(lang, "list.and", rest=", ".join(parts[:-1]), last=parts[-1])


def _value_in(lang: str, name: str, value: str, game: Game) -> str | None:
    """One placeholder's value in `lang`: players by name, cells by place, counted icons, the
    rules' phrases and chambers; None where the catalog cannot say it (the reason then reads
    English whole, never half translated)."""
    if name in ("player", "other"):
        pid = value if value in game.players else value.lower()
        return _name_in(lang, pid) if pid in game.players else None
    if name == "players":
        pids = [pid if pid in game.players else pid.lower() for pid in value.split(" and ")]
        return _names_in(lang, pids) if all(pid in game.players for pid in pids) else None
    if name.startswith("cell"):
        found = re.fullmatch(r"\[(-?\d+), (-?\d+)\]", value)
        if not found:
            return None
        return place_name(
            [int(found.group(1)), int(found.group(2))], game.temple.start_cell(), lang
        )
    if name in ("have", "need", "gems", "locked"):
        return _icons_in(lang, value)
    if name == "purpose":
        return _template_in(lang, keys_of("purpose."), value, game)
    if name == "outcome":
        return say(lang, f"word.{value}") if value in ("won", "lost") else None
    if name == "tile":
        return _tile_or_module_in(lang, value, game)
    if name in PHRASES:
        return phrase_in(lang, PHRASES[name], value)
    if name == "quests":
        return quests_in(lang, value)
    if name == "side":
        return say(lang, f"side.{value}") if value in ("N", "E", "S", "W") else None
    if name == "icon":
        return say(lang, f"face.{value}") if has_words(lang, f"face.{value}") else None
    if name.rstrip("0123456789") in _QUEENIE_VALUES:  # `gemtile2`: a second value alike
        return _QUEENIE_VALUES[name.rstrip("0123456789")](lang, value, game)
    return None if re.search(r"[A-Za-z]", value) else value  # a number


def _cells_near(game: Game) -> list[tuple[int, int]]:
    """The temple's cells and every spot next to one (diagonals too), where a place may lie."""
    cells = {placed.cell for placed in game.temple}
    return sorted({(x + dx, y + dy) for x, y in cells for dx in (-1, 0, 1) for dy in (-1, 0, 1)})


def _place_value_in(lang: str, english: str, game: Game) -> str | None:
    """A place as `place_name` says it (`south-west of the start`) in `lang`, or None."""
    start = game.temple.start_cell()
    for cell in _cells_near(game):
        if place_name(list(cell), start) == english:
            return place_name(list(cell), start, lang)
    return None


def _chamber_value_in(lang: str, english: str, game: Game) -> str | None:
    """A chamber as the Queenie modules name it, its printed name and its place (`Gem chamber
    (keys) 2 (east of the start)`, `the starting chamber`), in `lang`, or None."""
    if english == "the starting chamber":
        return say(lang, "chamber.the_start")
    start = game.temple.start_cell()
    for placed in game.temple:
        where = place_name(list(placed.cell), start)
        if f"{placed.tile.name} ({where})" == english:
            label = _label_in(lang, placed.tile)
            return f"{label} ({place_name(list(placed.cell), start, lang)})"
    return None


def _chambers_value_in(lang: str, english: str, game: Game) -> str | None:
    """Chambers joined by ` or ` or ` and ` (each as `_chamber_value_in` reads it) in `lang`."""
    whole = _chamber_value_in(lang, english, game)  # a place may hold an `and` of its own
    if whole is not None:
        return whole
    for joint, key in ((" or ", "qword.or"), (" and ", "list.and")):
        parts = english.split(joint)
        if len(parts) < 2:
            continue
        told = [_chamber_value_in(lang, part, game) for part in _rejoined(parts, game)]
        if None in told:
            return None
        said = [str(part) for part in told]
        return say(lang, key, rest=", ".join(said[:-1]), last=said[-1])
    return _chamber_value_in(lang, english, game)


def _rejoined(parts: list[str], game: Game) -> list[str]:
    """Parts split at ` and ` glued back where a place's own `and` was split (`two tiles
    north` + `one east of the start)`): each part then ends with its place's bracket."""
    glued: list[str] = []
    for part in parts:
        if glued and glued[-1].count("(") > glued[-1].count(")"):
            glued[-1] += " and " + part
        else:
            glued.append(part)
    return glued


def _names_value_in(lang: str, english: str, game: Game) -> str | None:
    """Players joined as the modules join them (`Red, Blue and Green`) in `lang`, or None."""
    pids = [part.strip().lower() for part in re.split(r", | and ", english)]
    return _names_in(lang, pids) if all(pid in game.players for pid in pids) else None


def _word_value_in(prefix: str) -> Any:
    """A reader of a one-word value (`sun`, `west`, `black mask`) by the catalog's `prefix`."""

    def told(lang: str, english: str, game: Game) -> str | None:
        key = prefix + english.replace(" ", "_")
        return say(lang, key) if has_words(lang, key) else None

    return told


def _card_value_in(lang: str, english: str, game: Game) -> str | None:
    """Curse cards' or treasure tiles' printed names (`Trap, Silence`) in `lang`, or None."""
    told = [
        phrase_in(lang, "card.", name) or phrase_in(lang, "treasure.", name)
        for name in english.split(", ")
    ]
    return None if None in told else ", ".join(str(name) for name in told)


def _listed_in(prefix: str) -> Any:
    """A reader of one-word values joined by `, ` or ` or ` (`the starting chamber, a chamber
    with 3 gems`), each by the catalog's `prefix`, joined again in the table's language."""
    one = _word_value_in(prefix)

    def told(lang: str, english: str, game: Game) -> str | None:
        joint, key = (" or ", "qword.or") if " or " in english else (", ", "list.and")
        said = [one(lang, part, game) for part in english.split(joint)]
        if None in said or not said:
            return None
        parts = [str(part) for part in said]
        if len(parts) == 1 or (key == "list.and" and joint == ", "):
            return ", ".join(parts)
        return say(lang, key, rest=", ".join(parts[:-1]), last=parts[-1])

    return told


def _effect_in(lang: str, english: str) -> str | None:
    """A curse card's or a treasure tile's printed effect in `lang` (any module's), or None."""
    for kind, cards in (
        ("card_effect", curse_cards_in_play(KNOWN_MODULES)),
        ("treasure_effect", treasures_in_play(KNOWN_MODULES)),
    ):
        for card_id, card in cards.items():
            if card.effect == english and has_words(lang, f"{kind}.{card_id}"):
                return say(lang, f"{kind}.{card_id}")
    return None


def _gem_tile_in(lang: str, english: str, game: Game) -> str | None:
    """A cursed gem tile (`gem-2`, the Cursed Gems' own words) by its number in `lang`."""
    found = re.fullmatch(r"(?:gem-)?(\d+)", english)
    return say(lang, "qword.gem_tile", n=found.group(1)) if found else None


def _label_value_in(lang: str, english: str, game: Game) -> str | None:
    """An open action's label inside another (`discover a chamber to the N with the Short
    cut`) in `lang`: the catalog's `label.*` words, or the page's own for a discovery."""
    told = _template_in(lang, keys_of("label."), english, game)
    found = re.fullmatch(r"discover a chamber to the ([NESW])", english)
    if told is None and found:
        return say(lang, "act.discover", side=say(lang, f"side.{found.group(1)}"))
    return told


def _where_in(lang: str, english: str, game: Game) -> str | None:
    """A chamber as the log names it (`the Gem chamber, east of the start`) in `lang`: the
    temple's chamber that `chamber_at` words so; None when none does."""
    for placed in game.temple:
        if chamber_at(game, list(placed.cell)) == english:
            return chamber_at(game, list(placed.cell), lang)
    return None


def _tile_or_module_in(lang: str, name: str, game: Game) -> str | None:
    """A chamber's or a task tile's printed name in `lang`, or None where it is no tile's."""
    if any(tile.name == name for tile in game.catalog.values()):
        return _tile_name_in(lang, name, game)
    return module_chamber_in(lang, name)


def _tile_name_in(lang: str, name: str, game: Game) -> str:
    """A tile's printed name (`Gem chamber (keys) 1`) as the chamber's name in `lang`."""
    tile = next((t for t in game.catalog.values() if t.name == name), None)
    if tile is None:
        return name
    return say(lang, "chamber.starting") if tile.kind == "start" else _label_in(lang, tile)


def _reason_in(lang: str, reason: str, game: Game) -> str | None:
    """An engine's reason in `lang` when it matches a template of the catalog, else None."""
    text = _template_in(lang, keys_of("reason."), reason, game)
    return text[0].upper() + text[1:] if text else text


def _template_in(lang: str, keys: tuple[str, ...], text: str, game: Game) -> str | None:
    """`text` (English words the rules made) in `lang`: the first of `keys` whose English
    template says it and whose every placeholder's value the catalog can say; else None."""
    for key in keys:
        matched = match_template((key,), text)
        if matched is None:
            continue
        told = {name: _value_in(lang, name, value, game) for name, value in matched[1].items()}
        if None not in told.values():
            return say(lang, key, **told)  # type: ignore[arg-type]
    return None


def tell_label(text: str, game: Game, lang: str = DEFAULT_LANGUAGE) -> str:
    """An open action's English words (its label, a choice's note) in `lang` where the
    catalog's `label.*` words them; as they are otherwise."""
    if language(lang) == DEFAULT_LANGUAGE or not text:
        return text
    lang = language(lang)
    told = _template_in(lang, keys_of("label."), text, game)
    return text if told is None else told


def tell_blocked(text: str, game: Game, lang: str = DEFAULT_LANGUAGE) -> str:
    """Why an open action waits (`blocked`: the catalog's `blocked.*` words, or an engine's
    reason) in `lang`; as it is otherwise."""
    if language(lang) == DEFAULT_LANGUAGE or not text:
        return text
    lang = language(lang)
    told = _template_in(lang, keys_of("blocked."), text, game) or _reason_in(lang, text, game)
    return text if told is None else told


def tell_module_words(text: str, game: Game, lang: str, prefix: str) -> str:
    """A Queenie module's English words (a log line, a reminder, a token's label) in `lang`
    where a catalog template under `prefix` (`qnarr.`, `qreminder.`, `qmark.`) says them; as
    they are otherwise."""
    if language(lang) == DEFAULT_LANGUAGE or not text:
        return text
    told = _template_in(language(lang), keys_of(prefix), text, game)
    return text if told is None else told


_QUEENIE_VALUES = {
    "where": _where_in,
    "place": _place_value_in,
    "chamber": _chambers_value_in,
    "names": _names_value_in,
    "symbol": _word_value_in("qword.symbol."),
    "face": _word_value_in("face."),
    "direction": _word_value_in("dir."),
    "named": _card_value_in,
    "gemtile": _gem_tile_in,
    "line": _word_value_in("qword.line."),
    "colour": _word_value_in("colour."),
    "label": lambda lang, english, game: _label_value_in(lang, english, game),
    "spots": _listed_in("qword.spot."),
    "colours": _listed_in("colour."),
    "gap": lambda lang, english, game: _template_in(lang, keys_of("qword.gap."), english, game),
    "gate": lambda lang, english, game: _template_in(lang, keys_of("qword.gate."), english, game),
    "effect": lambda lang, english, game: _effect_in(lang, english),
}
"""The Queenie modules' placeholders and how each value is told in the table's language."""
