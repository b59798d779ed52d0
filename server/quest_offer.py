"""The quest chambers a table may pick on the set-up page instead of module 5's random draw:
module 5's five and those a Queenie module adds, each as its tile is drawn, in the page's
language."""

from __future__ import annotations

from typing import Any

from rules.module_quests import QUESTS, quest_chambers
from rules.modules_registry import MODULES
from server.dashboard import pile_tile


def quest_tiles(module_id: str, lang: str) -> list[dict[str, Any]]:
    """The quest chambers `module_id` puts in play, each {quest id, its tile as the pile draws
    it}; none for a module without quest chambers."""
    if module_id == QUESTS:
        return [
            {"id": tile.quest, "tile": pile_tile(tile, lang)}
            for tile in quest_chambers(None).values()
        ]
    cls = MODULES.get(module_id)
    if cls is None:
        return []
    chambers = cls.chambers()
    return [
        {"id": quest, "tile": pile_tile(chambers[tile_id], lang)}
        for quest, tile_id in cls.quest_chambers.items()
    ]


def with_quest_tiles(offer: dict[str, Any], lang: str) -> dict[str, Any]:
    """A module's set-up offer with the quest chambers it puts in play (`quest_tiles`)."""
    tiles = quest_tiles(str(offer["id"]), lang)
    return {**offer, "quest_tiles": tiles} if tiles else offer
