"""Queenie 12 (Slide, Queenie box): the Slide chamber, entered free by its stairway and with 3
torches by its other entrance, its discoverer sliding in at once; the Debris chamber, which
takes 2 adventurers, a key and a torch to discover; and the Cyclops curse (with module 1)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rules.basic_events import Enter
from rules.catalog import TileDef
from rules.errors import Rejection
from rules.module_protocol import GameView, Module
from rules.modules import CurseCard
from rules.open_action import OpenAction, priced
from rules.vocabulary import ADVENTURER, KEY, TORCH, Cell, neighbour

if TYPE_CHECKING:
    from rules.engine import PlayerState
    from rules.temple import PlacedTile

SLIDE_MODULE = "slide"
SLIDE, DEBRIS = "slide", "debris"
"""The two chambers' feature words (and tile ids)."""
SIDE_ENTRY: Counter[str] = Counter({TORCH: 3})
"""Entering the Slide through its other entrance (Queenie 12)."""
DEBRIS_EXTRA: Counter[str] = Counter({KEY: 1, TORCH: 1})
"""What discovering the Debris chamber takes besides the 2 adventurers (Queenie 12)."""
CYCLOPS = CurseCard(
    "cyclops",
    "Cyclops",
    "keep one hand before one of your eyes until the curse is lifted",
    (ADVENTURER, KEY),
    SLIDE_MODULE,
    copies=1,
)
"""The new curse (Queenie 12); its lifting icons are an editable default (the card shows them
as a picture)."""


def slide_chambers() -> dict[str, TileDef]:
    """The Slide (its stairway and one other entrance, no red frame: the module prices each
    way in) and the Debris chamber; doors and entry icons are editable defaults."""
    return {
        SLIDE: TileDef(SLIDE, "Slide", "chamber", frozenset({"N"}), (), feature=SLIDE),
        DEBRIS: TileDef(
            DEBRIS,
            "Debris chamber",
            "chamber",
            frozenset({"N", "E", "W"}),
            (ADVENTURER, TORCH),
            feature=DEBRIS,
        ),
    }


def is_slide(game: GameView, cell: Cell) -> bool:
    """Tell whether the chamber at `cell` is the Slide."""
    placed = game.temple.at(cell)
    return placed is not None and placed.tile.feature == SLIDE


def by_stairway(game: GameView, origin: Cell, cell: Cell) -> bool:
    """Tell whether one comes into the chamber at `cell` from `origin` through its stairway."""
    placed = game.temple.at(cell)
    return placed is not None and neighbour(cell, placed.stairs) == origin


def slide_need(game: GameView, origin: Cell, cell: Cell, need: Counter[str]) -> Counter[str]:
    """What entering the Slide from `origin` costs: nothing of its own by the stairway, 3
    torches by the other entrance (what other modules add stays)."""
    placed = game.temple.at(cell)
    assert placed is not None
    base = need - Counter(placed.tile.enter)
    return base if by_stairway(game, origin, cell) else base + SIDE_ENTRY


class SlideModule(Module):
    """Queenie 12: the Slide, the Debris chamber and the Cyclops curse."""

    id = SLIDE_MODULE
    title = "Slide"
    summary = (
        "The Slide takes its discoverer in at once; anyone enters it free by its stairway, "
        "with 3 torches by its other entrance. The Debris chamber takes 2 adventurers, a key "
        "and a torch to discover. Adds the Cyclops curse."
    )
    rulebook = "Queenie box, Queenie 12"
    filtered_actions = frozenset({"enter"})
    curse_cards = (CYCLOPS,)

    @classmethod
    def chambers(cls) -> dict[str, TileDef]:
        """The Slide and the Debris chamber."""
        return slide_chambers()

    def entry_need(
        self,
        game: GameView,
        player: PlayerState,
        event: Mapping[str, Any],
        need: Counter[str],
        through: bool,
    ) -> Counter[str]:
        """Into the Slide: free by its stairway, 3 torches by its other entrance."""
        assert isinstance(event, Enter)  # the engine's `enter` is the hook's one caller
        cell = event.cell
        if player.cell is None or not is_slide(game, cell):
            return need
        return slide_need(game, player.cell, cell, need)

    def discover_need(
        self, game: GameView, player: PlayerState, tile: TileDef, need: Counter[str]
    ) -> Counter[str]:
        """The Debris chamber takes a key and a torch besides the 2 adventurers."""
        return need + DEBRIS_EXTRA if tile.feature == DEBRIS else need

    def on_discover(self, game: GameView, player: PlayerState, tile: TileDef, cell: Cell) -> None:
        """The Slide's discoverer slides into it at once (unless something holds him)."""
        if tile.feature != SLIDE:
            return
        try:
            game.check_leave(player, cell, "slide into the Slide")
        except Rejection:
            return  # held where he is (a cliff of module 7): he slides once free, by paying
        player.cell, player.rear = cell, False

    def filter_open_actions(self, game: GameView, found: list[Any]) -> list[Any]:
        """Entering the Slide by its other entrance is priced at its 3 torches."""
        return [_repriced(game, a) if a.action == "enter" else a for a in found]

    def reminders(self, game: GameView) -> list[str]:
        """Cyclops: a hand before one eye."""
        return [
            f"{pid.capitalize()} is cursed (Cyclops): keep one hand before one of your eyes "
            "until the curse is lifted"
            for pid, player in game.players.items()
            if player.inside and CYCLOPS.card_id in player.curses
        ]

    def tile_marks(self, game: GameView, placed: PlacedTile) -> list[dict[str, Any]]:
        """The Slide's two ways in."""
        if placed.tile.feature != SLIDE:
            return []
        return [
            {
                "token": "slide",
                "label": "Slide: free through its stairway, 3 torches through its other entrance",
            }
        ]


def _repriced(game: GameView, action: OpenAction) -> OpenAction:
    """An `enter` of the Slide from beside its stairway, priced as the engine will charge it."""
    event = action.event
    if action.action != "enter" or event.get("type") != "enter" or "cell" not in event:
        return action
    cell = (event["cell"][0], event["cell"][1])
    player = game.players.get(event.get("player", ""))
    if player is None or player.cell is None or not is_slide(game, cell):
        return action
    need = slide_need(game, player.cell, cell, Counter(action.need))
    if need == Counter(action.need):
        return action
    return priced(game, [player], need, action.action, action.label, event, action.blocked)


MODULE = SlideModule
