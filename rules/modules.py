"""Big Box modules 1 (Curses), 2 (Treasures), 3 (Illusion chambers) and module 4's new curse
and treasure: their cards, tiles and tile sets (pure data)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any

from rules.catalog import TileDef
from rules.vocabulary import ADVENTURER, GOLDEN_MASK, KEY, TORCH, plural_of

CURSES_MODULE = "curses"
TREASURES_MODULE = "treasures"
ILLUSIONS_MODULE = "illusions"
SPECIAL_MODULE = "special"


@dataclass(frozen=True)
class ModuleInfo:
    """A Big Box module as the set-up page offers it: its number, name and what it adds."""

    module_id: str
    number: int
    name: str
    summary: str

    def to_json(self) -> dict[str, object]:
        """Return the module as the set-up page reads it (module 6 adds its 12 cards)."""
        data: dict[str, object] = {
            "id": self.module_id,
            "number": self.number,
            "name": self.name,
            "summary": self.summary,
        }
        if self.module_id == "characters":
            from rules.module_characters import ABILITIES  # here: it imports nothing of ours

            data["cards"] = [
                {"id": a.ability_id, "character": a.character, "card": a.card, "text": a.text}
                for a in ABILITIES.values()
            ]
        return data


MODULES: Mapping[str, ModuleInfo] = {
    info.module_id: info
    for info in (
        ModuleInfo(
            CURSES_MODULE,
            1,
            "Curses",
            "Discovering a chamber with a purple mask draws a curse card (trap, silence, a "
            "broken die, ...); roll its icons by yourself to lift it.",
        ),
        ModuleInfo(
            TREASURES_MODULE,
            2,
            "Treasures",
            "A chamber with a treasure icon gets a face-down treasure tile; roll 2 keys there "
            "to claim it (healing mask, secret passage, teleport, double key, ...).",
        ),
        ModuleInfo(
            ILLUSIONS_MODULE,
            3,
            "Illusion chambers",
            "Six illusion chambers replace the one-gem chambers; they vanish when the door "
            "slams after countdowns 1 and 2, their gems to the box, anyone inside back to the "
            "start losing a die.",
        ),
        ModuleInfo(
            SPECIAL_MODULE,
            4,
            "Special chambers",
            "Linked chambers activate a gem each together, once; double chambers give their "
            "gems only to those who came in by the rear entrance; the chalice of the treasure "
            "chamber must reach the exit. Adds the Soul exchange curse and the Large torch.",
        ),
        ModuleInfo(
            "quests",
            5,
            "Quest chambers",
            "2 of the 5 quest chambers (altar, ghost, task, tree of life, obelisk) are drawn "
            "into the pile, a quest marker each on the gem depot: nobody escapes until every "
            "quest is done.",
        ),
        ModuleInfo(
            "characters",
            6,
            "Characters",
            "Each player picks a character and keeps one of its two cards: a permanent ability, "
            "or one activated by a roll that turns face up again after the next door slam.",
        ),
        ModuleInfo(
            "traps",
            7,
            "Trap chambers",
            "2 to 4 of the 5 trap chambers join the pile; whoever discovers one is placed "
            "inside at once: stuck on a cliff, summoning everyone, sliding with no way back, or "
            "riding the moving platform round the temple.",
        ),
        ModuleInfo(
            "time",
            8,
            "Time chambers",
            "2 to 4 of the 8 time chambers join the pile; finding one starts a digital sand "
            "timer (green 30 s, blue 1 min) on the game clock: prohibitions, a die to fetch back, "
            "lava and torch tasks against the sand, with their penalties.",
        ),
    )
}
"""The modules the dashboard offers at set-up (pages 10-13), by the id the setup line uses."""


@dataclass(frozen=True)
class CurseCard:
    """A curse card (module 1, page 11): what it does and the roll that lifts it."""

    card_id: str
    name: str
    effect: str
    lift: tuple[str, ...]
    """The icons the cursed player must roll by himself to lift it (editable defaults: the
    cards show them as pictures, which the rulebook's text does not give)."""
    module: str | None = None
    """The module that adds this card to the pile (None: module 1 itself)."""
    copies: int = 2
    """How many of this card the pile holds (page 10: 14 curse cards; the counts printed
    beside the cards, 3 2 2 2 3 2, read in the order the cards are listed; one Soul exchange
    with module 4's expansion)."""
    liftable: bool = True
    """False for a card no roll lifts (the maze's, Queenie 8): module 1 lists no lift for it."""

    @property
    def lift_need(self) -> Counter[str]:
        """The lifting roll as a multiset of icons."""
        return Counter(self.lift)


CURSE_CARDS: Mapping[str, CurseCard] = {
    card.card_id: card
    for card in (
        CurseCard(
            "trap",
            "Trap",
            "may not enter or discover a chamber",
            (ADVENTURER, ADVENTURER, KEY),
            copies=3,
        ),
        CurseCard("silence", "Silence", "may not talk", (GOLDEN_MASK, TORCH)),
        CurseCard(
            "broken_die",
            "Broken die",
            "one die lies on the card until the curse is lifted",
            (KEY, TORCH, ADVENTURER),
        ),
        CurseCard(
            "lost_dice",
            "Lost dice",
            "a die that falls off the table is lost for good",
            (TORCH, TORCH),
        ),
        CurseCard(
            "mask",
            "Mask",
            "a golden mask (yours, or given to a player in your chamber) frees only one black mask",
            (KEY, KEY),
            copies=3,
        ),
        CurseCard(
            "cursed_hand",
            "Cursed hand",
            "one hand stays on your head until the curse is lifted",
            (ADVENTURER, TORCH),
        ),
        CurseCard(
            "soul_exchange",
            "Soul exchange",
            "swap adventurer tokens with another player: each controls the other's adventurer "
            "until the curse is lifted",
            (GOLDEN_MASK, ADVENTURER),
            SPECIAL_MODULE,
            copies=1,
        ),
    )
}
"""The six curses of module 1 (page 11), by the id the game record uses."""


@dataclass(frozen=True)
class TreasureTile:
    """A treasure tile (module 2, page 11)."""

    treasure_id: str
    name: str
    effect: str
    icons: tuple[str, ...] = ()
    """Icons the treasure serves as when spent with an action (double key, double torch)."""
    module: str | None = None
    """The module that adds this tile to the pile (None: module 2 itself)."""
    own_actions: bool = False
    """Its module lists its uses among its own open actions (module 2 offers no plain one)."""


TREASURES: Mapping[str, TreasureTile] = {
    tile.treasure_id: tile
    for tile in (
        TreasureTile(
            "healing_mask", "Healing mask", "every adventurer re-rolls all black masks at once"
        ),
        TreasureTile(
            "secret_passage",
            "Secret passage",
            "joins two adjacent chambers without an open passage, for everyone, for good",
        ),
        TreasureTile(
            "double_torch", "Double torch", "serves as two torch icons, once", (TORCH, TORCH)
        ),
        TreasureTile(
            "teleport", "Teleport", "move to any chamber holding another adventurer, once"
        ),
        TreasureTile("double_key", "Double key", "serves as two key icons, once", (KEY, KEY)),
        TreasureTile(
            "extra_gem", "Extra gem", "a gem from the depot lies activated on the tile for good"
        ),
        TreasureTile(
            "large_torch",
            "Large torch",
            "laid in your chamber, it is a second starting chamber for everyone until the end "
            "of the next countdown",
            module=SPECIAL_MODULE,
        ),
    )
}
"""The six treasures of module 2 (page 11), by the id the game record uses."""


def curse_cards_in_play(modules: tuple[str, ...] | list[str]) -> Mapping[str, CurseCard]:
    """The curse cards of a game with these modules (module 4 adds Soul exchange, Queenie
    modules their own); read-only, shared by every game with these modules."""
    return _curse_cards(tuple(modules))


@cache
def _curse_cards(modules: tuple[str, ...]) -> Mapping[str, CurseCard]:
    cards = {k: c for k, c in CURSE_CARDS.items() if c.module is None or c.module in modules}
    for module in queenie_classes(modules):
        cards.update((card.card_id, card) for card in module.curse_cards)
    return MappingProxyType(cards)


def treasures_in_play(modules: tuple[str, ...] | list[str]) -> Mapping[str, TreasureTile]:
    """The treasure tiles of a game with these modules (module 4 adds the Large torch, Queenie
    modules their own); read-only, shared by every game with these modules."""
    return _treasure_tiles(tuple(modules))


@cache
def _treasure_tiles(modules: tuple[str, ...]) -> Mapping[str, TreasureTile]:
    tiles = {k: t for k, t in TREASURES.items() if t.module is None or t.module in modules}
    for module in queenie_classes(modules):
        tiles.update((tile.treasure_id, tile) for tile in module.treasure_tiles)
    return MappingProxyType(tiles)


def queenie_classes(modules: tuple[str, ...] | list[str]) -> list[Any]:
    """The classes of the Queenie modules among `modules`, in their order."""
    from rules.modules_registry import MODULES as CLASSES  # here: the registry imports this file

    return [CLASSES[m] for m in modules if m in CLASSES and m not in BIG_BOX_IDS]


BIG_BOX_IDS = (
    CURSES_MODULE,
    TREASURES_MODULE,
    ILLUSIONS_MODULE,
    SPECIAL_MODULE,
    "quests",
    "characters",
    "traps",
    "time",
)
"""Modules 1-8, in the Big Box's order."""


def offered_modules() -> list[dict[str, object]]:
    """Every module a new game may play, as the set-up page reads them: modules 1-8, then the
    Queenie modules this version plays (numbered on from 9, in the rulebooks' order)."""
    from rules.modules_registry import MODULES as CLASSES  # here: the registry imports this file

    offered = [MODULES[m].to_json() for m in BIG_BOX_IDS]
    number = len(BIG_BOX_IDS)
    for module_id, module in CLASSES.items():
        if module_id in BIG_BOX_IDS:
            continue
        number += 1
        offered.append(
            {
                "id": module_id,
                "number": number,
                "name": module.title,
                "summary": module.summary,
                "queenie": True,
                "rulebook": module.rulebook,
                "requires": list(module.requires),
            }
        )
    return offered


CLAIM_COST: Counter[str] = Counter({KEY: 2})
"""Claiming a treasure tile takes two keys (page 10)."""

REPLACED_BY_CURSE_TREASURE_CHAMBERS = (
    "gem1-key-1",
    "gem1-key-2",
    "gem1-key-3",
    "gem1-torch-1",
    "gem1-torch-2",
    "gem1-torch-3",
    "chamber-1",
    "chamber-2",
    "chamber-3",
    "chamber-4",
    "chamber-5",
    "chamber-6",
    "chamber-7",
)
"""The 13 basic chambers that the 13 curse and treasure chambers replace (page 10)."""


def curse_treasure_chambers(basic: Mapping[str, TileDef]) -> dict[str, TileDef]:
    """Return the 13 curse and treasure chambers (page 10): every one shows a purple mask, a
    treasure icon or both. Their doors, entry icons and gems are editable defaults, taken from
    the basic chamber each replaces (`ct-` + its id); the marks alternate mask, treasure, both."""
    tiles: dict[str, TileDef] = {}
    for index, basic_id in enumerate(REPLACED_BY_CURSE_TREASURE_CHAMBERS):
        base = basic[basic_id]
        curse, treasure = [(True, False), (False, True), (True, True)][index % 3]
        what = {
            (True, False): "Curse",
            (False, True): "Treasure",
            (True, True): "Curse and treasure",
        }
        tile_id = f"ct-{basic_id}"
        tiles[tile_id] = TileDef(
            tile_id,
            f"{what[(curse, treasure)]} {base.name[0].lower()}{base.name[1:]}",
            "chamber",
            base.doors,
            base.enter,
            base.gems,
            curse=curse,
            treasure=treasure,
        )
    return tiles


def illusion_chambers(catalog: Mapping[str, TileDef]) -> tuple[list[str], dict[str, TileDef]]:
    """Return the one-gem chambers of `catalog` (basic `gem1-*`, or `ct-gem1-*` with curses or
    treasures) and the 6 illusion chambers that replace them (module 3, page 12). Their doors,
    entry icons and gems are editable defaults, taken from the chamber each replaces; they show
    no purple mask (page 12: ignore it) and no treasure icon."""
    replaced = [
        tile_id
        for tile_id, tile in catalog.items()
        if tile.kind == "chamber" and tile.gems is not None and tile.gems.count == 1
    ]
    tiles: dict[str, TileDef] = {}
    for index, tile_id in enumerate(replaced, start=1):
        base = catalog[tile_id]
        icon = base.gems.icon if base.gems is not None else "key"
        new_id = f"illusion-{index}"
        tiles[new_id] = TileDef(
            new_id,
            f"Illusion chamber ({plural_of(icon)}) {index}",
            "chamber",
            base.doors,
            base.enter,
            base.gems,
            illusion=True,
        )
    return replaced, tiles
