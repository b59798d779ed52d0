"""The Queenie modules' own set-up fields on the new-game form: what the set-up page offers,
the defaults that make ticking a module enough, and a clear refusal of a field out of place."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from rules.module_quests import QUEST_NAMES
from rules.modules_registry import MODULES
from rules.queenie.cursed_gems import GEM_TILES
from rules.queenie.maya_calendar import DEFAULT_BARS, DEFAULT_SPACES, SIDES_OF_BOARD, SYMBOLS
from rules.queenie.new_quests import NAMES as NEW_QUEST_NAMES
from rules.queenie.new_traps import BEAST_PATH_MOST, DEFAULT_BEAST_PATH, PATH_ICONS

FIELD_MODULES: Mapping[str, str] = {
    "new_quests": "new_quests",
    "maya_side": "maya_calendar",
    "maya_bars": "maya_calendar",
    "maya_spaces": "maya_calendar",
    "cursed_gems": "cursed_gems",
    "beast_path": "new_traps",
}
"""Each Queenie field of the form -> the module that reads it."""

SIDE_NAMES: Mapping[str, str] = {
    "eternal": "Eternal calendar: gems in the calendar's order",
    "doomed": "Doomed calendar: keep the Maya figure ahead of the bars",
}
"""The Maya calendar board's two sides, as the set-up page offers them (page 32)."""


def misplaced_fields(given: Mapping[str, Any], modules: list[str]) -> str | None:
    """Why a Queenie field was sent for a module not ticked (None when every one fits)."""
    for name, value in given.items():
        module = FIELD_MODULES[name]
        if value is not None and module not in modules:
            title = MODULES[module].title
            return f"'{name}' is read only with {title}: tick that module or leave '{name}' out"
    return None


def queenie_fields(
    given: Mapping[str, Any], modules: list[str], players: list[str], rng: random.Random
) -> dict[str, Any]:
    """The Queenie modules' fields of the setup line: the form's choices, else the defaults a
    table gets by ticking the module (all three new quests, the eternal calendar, cursed gem
    tiles dealt at random)."""
    line: dict[str, Any] = {}
    if "new_quests" in modules:
        line["new_quests"] = given.get("new_quests") or list(NEW_QUEST_NAMES)
    if "maya_calendar" in modules:
        line["maya_side"] = given.get("maya_side") or SIDES_OF_BOARD[0]
        for name in ("maya_bars", "maya_spaces"):
            if given.get(name) is not None:
                line[name] = given[name]
    if "cursed_gems" in modules:
        line["cursed_gems"] = given.get("cursed_gems") or dict(
            zip(players, rng.sample(GEM_TILES, len(players)), strict=True)
        )
    if "new_traps" in modules and given.get("beast_path") is not None:
        line["beast_path"] = given["beast_path"]
    return line


def quest_pool(modules: list[str]) -> dict[str, str]:
    """Module 5's quest chambers with those the Queenie modules in play add: id -> name."""
    pool = dict(QUEST_NAMES)
    for module in modules:
        cls = MODULES.get(module)
        if cls is not None:
            pool.update({quest: cls.chambers()[tile].name for quest, tile in _quests_of(cls)})
    return pool


def draw_quests(modules: list[str], count: int, rng: random.Random) -> list[str]:
    """Module 5's quest chambers drawn at random; with Queenie quest chambers in play, one of
    them at least (a table ticks the module to play one)."""
    pool = list(quest_pool(modules))
    queenie = [quest for quest in pool if quest not in QUEST_NAMES]
    if not queenie:
        return rng.sample(pool, count)
    first = rng.choice(queenie)
    drawn = [first, *rng.sample([q for q in pool if q != first], count - 1)]
    rng.shuffle(drawn)
    return drawn


def module_offer(module: dict[str, Any]) -> dict[str, Any]:
    """A module as the set-up page reads it, with the Queenie choices it offers: its character
    cards, its quest chambers for module 5's draw, the new quests, the calendar's sides and the
    board's printed spaces and bars, the beast chamber's printed path (each the default the
    page starts from)."""
    cls = MODULES.get(str(module["id"]))
    if cls is None or not module.get("queenie"):
        return module
    offer = dict(module)
    if cls.character_cards:
        offer["cards"] = [
            {"id": a.ability_id, "character": a.character, "card": a.card, "text": a.text}
            for a in cls.character_cards
        ]
    quests = _quests_of(cls)
    if quests:
        offer["quests"] = [{"id": q, "name": cls.chambers()[tile].name} for q, tile in quests]
    if cls.id == "new_quests":
        offer["new_quests"] = [{"id": q, "name": name} for q, name in NEW_QUEST_NAMES.items()]
    if cls.id == "maya_calendar":
        offer["maya_sides"] = [{"id": side, "name": SIDE_NAMES[side]} for side in SIDES_OF_BOARD]
        offer["maya_symbols"] = list(SYMBOLS)
        offer["maya_spaces"] = list(DEFAULT_SPACES)
        offer["maya_bars"] = list(DEFAULT_BARS)
    if cls.id == "new_traps":
        offer["path_icons"] = list(PATH_ICONS)
        offer["beast_path"] = list(DEFAULT_BEAST_PATH)
        offer["beast_path_most"] = BEAST_PATH_MOST
    if cls.id == "cursed_gems":
        offer["dealt"] = "each player's cursed gem tile is dealt at random"
    return offer


def _quests_of(cls: Any) -> list[tuple[str, str]]:
    return list(cls.quest_chambers.items())
