"""Big Box module 4 (Special chambers, pages 14-15): the linked chambers, the double chambers
with their inner wall, the treasure chamber and its chalice, and the Large torch; their tiles
and the checks the engine calls (pure Python, no I/O)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from rules import event_values as read
from rules import module_quests, module_time
from rules.catalog import GemSpec, TileDef
from rules.errors import Rejection
from rules.event_values import EventValue, Field, FieldRead
from rules.module_protocol import GameView, Module
from rules.open_action import OpenAction, priced
from rules.temple import PlacedTile, quarter_turns_for
from rules.vocabulary import ADVENTURER, KEY, TORCH, Cell, plural, rotate, side_towards

if TYPE_CHECKING:
    from rules.engine import PlayerState
    from rules.game_setup import Setup

SPECIAL = "special"
CHALICE_TOLL: Counter[str] = Counter({TORCH: 1})
"""What carrying the chalice adds to the entry icons of the next chamber (page 15)."""
LINKED_CELLS = "'cells' must list the 2 or 3 linked chambers activated together"
_two_or_more_cells = read.cell_list(LINKED_CELLS, least=2)


def _linked_cells(seen: FieldRead) -> tuple[Cell, ...]:
    """The linked chambers activated together: 2 or more cells, each listed once."""
    cells = _two_or_more_cells(seen)
    if len(set(cells)) != len(cells):
        raise Rejection("each linked chamber may be listed only once in 'cells'")
    return cells


class ActivateLinked(EventValue):
    """Players standing in 2 or 3 linked chambers at once activate one gem in each."""

    type_name = "activate_linked"
    listed = Field(read.value_list(LINKED_CELLS, least=2), key="cells")
    """The chambers as written: how many there are is judged before a running prohibition,
    which is judged before the cells themselves (`cells`)."""
    cells = Field(_linked_cells)
    players = Field(read.value_list("'players' must list the players who activate the gems", 1))
    """The ids of the players who pay (each looked up, and refused once escaped, in order)."""


def special_chambers() -> dict[str, TileDef]:
    """Return the 6 special chambers (page 12: 3 linked, 2 double, the treasure chamber). Their
    doors, entry icons and gem costs are editable defaults, like every tile's: a linked chamber
    shows one gem, a double chamber three behind its inner wall (its rear half is the side
    facing its stairway)."""
    three = (4, 7, 10)
    tiles = [
        TileDef(
            "linked-1",
            "Linked chamber (keys) 1",
            "chamber",
            frozenset({"N", "E", "W"}),
            (ADVENTURER, KEY),
            GemSpec(1, KEY, (4,)),
            special="linked",
        ),
        TileDef(
            "linked-2",
            "Linked chamber (torches) 2",
            "chamber",
            frozenset({"N", "E"}),
            (ADVENTURER, TORCH),
            GemSpec(1, TORCH, (4,)),
            special="linked",
        ),
        TileDef(
            "linked-3",
            "Linked chamber (keys) 3",
            "chamber",
            frozenset({"N", "W"}),
            (ADVENTURER, ADVENTURER),
            GemSpec(1, KEY, (4,)),
            special="linked",
        ),
        TileDef(
            "double-1",
            "Double chamber (keys) 1",
            "chamber",
            frozenset({"N", "E", "W"}),
            (ADVENTURER, ADVENTURER),
            GemSpec(3, KEY, three),
            special="double",
            rear=frozenset({"N"}),
        ),
        TileDef(
            "double-2",
            "Double chamber (torches) 2",
            "chamber",
            frozenset({"N", "E"}),
            (ADVENTURER, TORCH),
            GemSpec(3, TORCH, three),
            special="double",
            rear=frozenset({"N"}),
        ),
        TileDef(
            "treasure-chamber",
            "Treasure chamber",
            "chamber",
            frozenset({"N", "E", "W"}),
            (ADVENTURER, TORCH),
            special="chalice",
        ),
    ]
    return {tile.tile_id: tile for tile in tiles}


@dataclass
class SpecialState:
    """Module 4's part of a game: where the chalice is, whether the linked chambers were used,
    where the Large torch lies."""

    chalice: Cell | None = None
    """The chamber the chalice lies in; None before the treasure chamber is discovered and
    after it reached the exit."""
    chalice_rear: bool = False
    """The chalice lies in the rear half of a double chamber."""
    recovered: bool = False
    """The chalice reached the exit chamber (page 15)."""
    linked_used: bool = False
    """Gems were activated in the linked chambers: they are used up for the game (page 14)."""
    large_torch: Cell | None = None
    """The chamber the Large torch lies in until the end of the next countdown (page 15)."""

    def to_json(self) -> dict[str, Any]:
        """Return module 4's part of the state, as `replay --json` shows it."""
        return {
            "chalice": None if self.chalice is None else list(self.chalice),
            "chalice_recovered": self.recovered,
            "linked_used": self.linked_used,
            "large_torch": None if self.large_torch is None else list(self.large_torch),
        }


def special_of(game: GameView, tile: TileDef) -> str | None:
    """The tile's special kind when module 4 is in play (a basic game ignores the field)."""
    return tile.special if game.special is not None else None


def rear_sides(placed: PlacedTile) -> frozenset[str]:
    """The table sides of a double chamber's rear half (its own `rear`, turned as it lies)."""
    turns = quarter_turns_for(placed.stairs)
    return frozenset(rotate(side, turns) for side in placed.tile.rear)


def side_in_rear(game: GameView, placed: PlacedTile, side: str) -> bool | None:
    """Which half of the chamber the table side `side` belongs to: True for the rear of a
    double chamber, False for its front, None for any other chamber."""
    if special_of(game, placed.tile) != "double":
        return None
    return side in rear_sides(placed)


def check_leave(game: GameView, player: PlayerState, here: Cell, there: Cell, doing: str) -> None:
    """Refuse a way out through the inner wall of a double chamber (page 14): from its rear
    half only its rear doors lead out, from its front half only the others."""
    chamber = game.temple.at(here)
    side = side_towards(here, there)
    if chamber is None or side is None:
        return
    rear = side_in_rear(game, chamber, side)
    if rear is None or rear == player.rear:
        return
    half = "rear" if player.rear else "front"
    raise Rejection(
        f"{player.player_id} is in the {half} of {chamber.tile.name}: its inner wall "
        f"blocks the way to {doing} on its {side} side"
    )


def arrives_in_rear(game: GameView, target: Cell, origin: Cell) -> bool:
    """Tell whether someone coming from `origin` into `target` stands in its rear half."""
    placed = game.temple.at(target)
    side = side_towards(target, origin)
    if placed is None or side is None:
        return False
    return bool(side_in_rear(game, placed, side))


def chalice_here(game: GameView, player: PlayerState) -> bool:
    """Tell whether the chalice lies where the player stands (in his half of the chamber)."""
    state = game.special
    return (
        state is not None
        and state.chalice is not None
        and state.chalice == player.cell
        and state.chalice_rear == player.rear
    )


def entry_need(
    game: GameView, player: PlayerState, need: Counter[str], event: Mapping[str, Any]
) -> Counter[str]:
    """The icons an `enter` costs: with `"chalice": true` a torch more, the chalice lying in
    the player's chamber (page 15)."""
    if not event.get("chalice") or game.special is None:
        return need  # a game without module 4 ignores the field, as it always did
    if not chalice_here(game, player):
        raise Rejection(f"the chalice does not lie where {player.player_id} stands")
    return need + CHALICE_TOLL


def after_enter(
    game: GameView, player: PlayerState, origin: Cell, event: Mapping[str, Any]
) -> None:
    """Settle a move: which half of a double chamber the player stands in, and the chalice he
    carries (it is recovered when it reaches the exit)."""
    assert player.cell is not None
    player.rear = arrives_in_rear(game, player.cell, origin)
    state = game.special
    if state is None or not event.get("chalice"):
        return
    chamber = game.temple.at(player.cell)
    if chamber is not None and chamber.tile.kind == "exit":
        state.chalice, state.chalice_rear, state.recovered = None, False, True
        module_quests.chalice_recovered(game)  # a quest chamber with module 5 (page 17)
    else:
        state.chalice, state.chalice_rear = player.cell, player.rear


def on_discover(game: GameView, tile: TileDef, cell: Cell) -> None:
    """The chalice is laid on the treasure chamber as soon as it is discovered (page 15)."""
    state = game.special
    if state is not None and special_of(game, tile) == "chalice" and not state.recovered:
        state.chalice, state.chalice_rear = cell, False


def check_activate(game: GameView, chamber: PlacedTile, payers: list[PlayerState]) -> None:
    """Gems of a linked chamber are activated only together (`activate_linked`); those of a
    double chamber only by players who came in by its rear entrance (page 14)."""
    kind = special_of(game, chamber.tile)
    if kind == "linked":
        raise Rejection(
            f"{chamber.tile.name} is a linked chamber: its gem is activated together with "
            "another linked chamber (activate_linked)"
        )
    if kind == "double":
        front = [p.player_id for p in payers if not p.rear]
        if front:
            raise Rejection(
                f"{' and '.join(front)} {'is' if len(front) == 1 else 'are'} in the front of "
                f"{chamber.tile.name}: its gems are activated only from behind its inner wall, "
                "entered by the rear entrance"
            )


def linked_cells(game: GameView) -> list[Cell]:
    """The linked chambers lying in the temple, in the order they were placed."""
    return [p.cell for p in game.temple if special_of(game, p.tile) == "linked"]


def linked_need(game: GameView, cells: Iterable[Cell]) -> Counter[str]:
    """What activating one gem in each of these linked chambers costs, all together."""
    need: Counter[str] = Counter()
    for cell in cells:
        placed = game.temple.at(cell)
        assert placed is not None and placed.tile.gems is not None
        need[placed.tile.gems.icon] += placed.tile.gems.cost(1)
    return need


def activate_linked(game: GameView, event: ActivateLinked) -> None:
    """Players standing in at least two linked chambers at once roll their icons together and
    activate one gem in each of those chambers; the linked chambers are then used up (page 14)."""
    state = game.special
    assert state is not None
    gems = len(event.listed)  # a gem a chamber: their count is judged before the prohibition
    module_time.check(game, "gems")
    cells = event.cells
    for cell in cells:
        placed = game.temple.at(cell)
        if placed is None or special_of(game, placed.tile) != "linked":
            raise Rejection(f"there is no linked chamber at {list(cell)}")
        if placed.tile.gems is None:
            raise Rejection(f"{placed.tile.name} has no gem icon")
    if state.linked_used:
        raise Rejection(
            "the linked chambers were already used: they activate gems only once a game"
        )
    payers = [game.still_inside(game.lookup(pid)) for pid in event.players]
    if len({p.player_id for p in payers}) != len(payers):
        raise Rejection("each player may be listed only once in 'players'")
    for payer in payers:
        if payer.cell not in cells:
            raise Rejection(f"{payer.player_id} is not inside one of the linked chambers listed")
    for cell in cells:
        if not any(p.cell == cell for p in payers):
            placed = game.temple.at(cell)
            assert placed is not None
            raise Rejection(
                f"nobody listed stands in {placed.tile.name}: each linked chamber needs an "
                "adventurer in it at the same time"
            )
    if game.depot < gems:
        raise Rejection(f"the depot holds only {plural(game.depot, 'gem')}")
    plan, spends = game.charge(
        event, payers, linked_need(game, cells), "to activate the linked chambers"
    )
    game.depot -= gems
    for cell in cells:
        placed = game.temple.at(cell)
        assert placed is not None
        placed.gems = 1
    state.linked_used = True
    game.settle(plan, spends)


def lay_large_torch(game: GameView, player: PlayerState) -> None:
    """The Large torch is laid in the player's chamber (page 15)."""
    assert game.special is not None and player.cell is not None
    game.special.large_torch = player.cell


def safe_cells(game: GameView, start: Cell) -> set[Cell]:
    """The chambers where the door slam takes no die: the start, and the Large torch's."""
    if game.special is None or game.special.large_torch is None:
        return {start}
    return {start, game.special.large_torch}


def after_slam(game: GameView, gone: list[Cell], start: Cell) -> None:
    """After a door slam the Large torch is taken out of the game (page 15); a chalice on an
    illusion chamber that vanished is carried back to the start with its adventurers."""
    state = game.special
    if state is None:
        return
    state.large_torch = None
    if state.chalice in gone:
        state.chalice, state.chalice_rear = start, False


def chalice_lost(game: GameView) -> bool:
    """Tell whether the chalice is still in the temple (the last escape then loses, page 15)."""
    return game.special is not None and game.special.chalice is not None


class SpecialModule(Module):
    """Module 4 behind the module protocol."""

    id = SPECIAL
    event_types = ("activate_linked",)
    event_classes = (ActivateLinked,)
    state_attr = "special"
    hook_order: ClassVar[Mapping[str, int]] = {"on_discover": 10, "after_enter": 10}

    @classmethod
    def create_state(cls, setup: Setup) -> SpecialState:
        """The chalice, the linked chambers and the Large torch, none placed yet."""
        return SpecialState()

    def state_json(self, game: GameView) -> dict[str, Any]:
        """Module 4's part of the state."""
        return game.special.to_json()  # type: ignore[no-any-return]

    @classmethod
    def player_json(cls, player: PlayerState) -> dict[str, Any]:
        """Whether the player stands behind a double chamber's inner wall."""
        return {"rear": player.rear}

    def on_activate_linked(self, game: GameView, event: ActivateLinked) -> None:
        """One gem in each of 2 or 3 linked chambers, activated together, once (page 14)."""
        game.require(SPECIAL, event)
        activate_linked(game, event)

    def check_way(
        self, game: GameView, player: PlayerState, here: Cell, there: Cell, doing: str
    ) -> None:
        """The inner wall of a double chamber (page 14)."""
        check_leave(game, player, here, there, doing)

    def entry_need(
        self,
        game: GameView,
        player: PlayerState,
        event: Mapping[str, Any],
        need: Counter[str],
        through: bool,
    ) -> Counter[str]:
        """A torch more to carry the chalice (page 15)."""
        return entry_need(game, player, need, event)

    def after_enter(
        self,
        game: GameView,
        player: PlayerState,
        origin: Cell,
        event: Mapping[str, Any],
        through: bool,
    ) -> None:
        """Which half of a double chamber the player stands in; the chalice carried."""
        after_enter(game, player, origin, event)

    def on_discover(self, game: GameView, player: PlayerState, tile: TileDef, cell: Cell) -> None:
        """The chalice laid on the treasure chamber."""
        on_discover(game, tile, cell)

    def check_activate(
        self, game: GameView, chamber: PlacedTile, payers: list[PlayerState]
    ) -> None:
        """Linked and double chambers' gems."""
        check_activate(game, chamber, payers)

    def safe_cells(self, game: GameView, start: Cell) -> set[Cell]:
        """The Large torch's chamber."""
        return safe_cells(game, start)

    def after_slam(self, game: GameView, gone: list[Cell], start: Cell) -> None:
        """The Large torch leaves the game; a vanished chalice goes back to the start."""
        after_slam(game, gone, start)

    def loses_at_last_escape(self, game: GameView) -> bool:
        """The chalice left inside the temple loses the game (page 15)."""
        return chalice_lost(game)

    def shut_side(
        self, game: GameView, player: PlayerState, chamber: PlacedTile, side: str, passage: bool
    ) -> bool:
        """Behind the inner wall of a double chamber."""
        if chamber.tile.special != "double" or game.special is None:
            return False  # `side_in_rear`'s None, asked of every side the open actions try
        return side_in_rear(game, chamber, side) not in (None, player.rear)

    def enter_variants(
        self, game: GameView, player: PlayerState, target: PlacedTile, side: str
    ) -> list[OpenAction]:
        """Carry the chalice in, a torch more."""
        if not chalice_here(game, player):
            return []
        tile = target.tile
        return [_carry(game, player, tile.enter, tile.name, target.cell, side)]

    def activation_partners(
        self, game: GameView, player: PlayerState, chamber: PlacedTile, partners: list[PlayerState]
    ) -> tuple[list[PlayerState], str | None] | None:
        """A linked chamber's gem is activated together (None); in a double chamber only those
        in the player's half help, and only from behind the inner wall."""
        kind = special_of(game, chamber.tile)
        if kind == "linked":
            return None
        if kind != "double":
            return partners, None
        front = None if player.rear else "behind the inner wall: come in by the rear entrance"
        return [p for p in partners if p.rear == player.rear], front

    def open_actions_before_escape(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """Activate the linked chambers together."""
        return _linked(game, player)


# ----- open actions (rules/actions.py asks for them through the protocol) ---------------


def _linked(game: GameView, player: PlayerState) -> list[OpenAction]:
    """Activate the linked chambers together (module 4, page 14): offered to a player standing
    in one while they are unused, blocked until another linked chamber holds an adventurer."""

    state = game.special
    here = None if player.cell is None else game.temple.at(player.cell)
    if state is None or state.linked_used or here is None:
        return []
    if special_of(game, here.tile) != "linked":
        return []  # not in a linked chamber: no search of the temple for the others
    cells = linked_cells(game)
    occupied = [c for c in cells if game.players_in(c)]
    payers = [p for c in occupied for p in game.players_in(c)]
    blocked = None
    if len(occupied) < 2:
        blocked = "needs an adventurer in another linked chamber at the same time"
    elif game.depot < len(occupied):
        blocked = f"the depot holds only {plural(game.depot, 'gem')}"
    return [
        priced(
            game,
            payers,
            linked_need(game, occupied),
            "activate_linked",
            f"activate the linked chambers ({plural(len(occupied), 'gem')}, together)",
            {
                "type": "activate_linked",
                "cells": [list(c) for c in occupied],
                "players": [p.player_id for p in payers],
            },
            blocked,
        )
    ]


@lru_cache(maxsize=256)
def _carrying(enter: tuple[str, ...]) -> Mapping[str, int]:
    """What entering a chamber costs carrying the chalice, read-only, built once per cost."""
    return MappingProxyType(Counter(enter) + CHALICE_TOLL)


def _carry(
    game: GameView, player: PlayerState, enter: tuple[str, ...], name: str, cell: Cell, side: str
) -> OpenAction:
    """Enter the next chamber carrying the chalice: a torch more (module 4, page 15)."""

    return priced(
        game,
        [player],
        _carrying(enter),
        "carry",
        f"carry the chalice into {name} ({side})",
        {"type": "enter", "player": player.player_id, "cell": list(cell), "chalice": True},
    )
