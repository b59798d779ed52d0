"""Queenie 13 (Map, Queenie box): a player inside the Map chamber rolls 2 torches and places his
adventurer in any other chamber already discovered."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rules import event_values as read
from rules.catalog import TileDef
from rules.errors import Rejection
from rules.event_values import EventValue, Field
from rules.module_protocol import GameView, Module
from rules.open_action import OpenAction, priced
from rules.vocabulary import KEY, TORCH, Cell

if TYPE_CHECKING:
    from rules.engine import PlayerState
    from rules.temple import PlacedTile

MAP_MODULE = "map"
MAP = "map"
"""The Map chamber's feature word (and tile id)."""
TRAVEL: Counter[str] = Counter({TORCH: 2})
"""What the map costs, rolled by the traveller (Queenie 13)."""


class MapTravel(EventValue):
    """A player in the Map chamber rolls 2 torches and goes to another discovered chamber."""

    type_name = "map_travel"
    player = Field(read.player)
    cell = Field(read.cell)


def map_chambers() -> dict[str, TileDef]:
    """The Map chamber; its doors and entry icons are editable defaults."""
    return {
        MAP: TileDef(
            MAP, "Map chamber", "chamber", frozenset({"N", "E", "W"}), (KEY, TORCH), feature=MAP
        )
    }


def in_map(game: GameView, player: PlayerState) -> bool:
    """Tell whether the player stands in the Map chamber."""
    placed = None if player.cell is None else game.temple.at(player.cell)
    return placed is not None and placed.tile.feature == MAP


def check_travel(game: GameView, player: PlayerState, cell: Cell) -> PlacedTile:
    """Refuse a journey by the map to `cell` (the rules of entering, bar the walls and the red
    frame); return the chamber there."""
    if not in_map(game, player):
        raise Rejection(f"{player.player_id} is not in the Map chamber")
    target = game.temple.at(cell)
    if target is None:
        raise Rejection("the map takes you only to a chamber already discovered")
    if cell == player.cell:
        raise Rejection("the map takes you to another chamber than the Map chamber itself")
    game.check_may_move(player, "travel by the map")
    game.check_leave(player, None, "travel by the map")  # no door: no stairway passed
    game.check_allowed("movement")
    if target.tile.kind == "start":
        game.check_allowed("start")
    for hook in game.module_hooks("check_enter_tile"):
        hook(game, target.tile)
    return target


def travel(game: GameView, event: MapTravel) -> None:
    """Two torches in the Map chamber: the player goes to the chamber he chose (Queenie 13)."""
    player = game.still_inside(game.players[event.player])
    cell = event.cell
    target = check_travel(game, player, cell)
    plan, spends = game.charge(
        event, [player], Counter(TRAVEL), f"to travel by the map to {target.tile.name}"
    )
    game.settle(plan, spends)
    player.cell, player.rear = cell, False


class MapModule(Module):
    """Queenie 13: the Map chamber."""

    id = MAP_MODULE
    title = "Map"
    summary = (
        "In the Map chamber, roll 2 torches to place your adventurer in any other chamber "
        "already discovered."
    )
    rulebook = "Queenie box, Queenie 13"
    event_types = ("map_travel",)
    event_classes = (MapTravel,)

    @classmethod
    def chambers(cls) -> dict[str, TileDef]:
        """The Map chamber."""
        return map_chambers()

    def on_map_travel(self, game: GameView, event: MapTravel) -> None:
        """Two torches in the Map chamber take the player to any other discovered chamber."""
        game.require(MAP_MODULE, event)
        travel(game, event)

    def open_actions(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """The journey by the map, one choice a discovered chamber."""
        return _map_actions(game, player)

    def tell(self, game: GameView, event: Mapping[str, Any]) -> str | None:
        """`Red travels by the map to the Chamber 1 east of the start`."""
        if event.get("type") != "map_travel":
            return None
        from rules.narrative import chamber_at  # here: it imports the engine

        who = str(event.get("player", "someone")).capitalize()
        return f"{who} travels by the map to {chamber_at(game, event.get('cell'))}"  # type: ignore[arg-type]

    def tile_marks(self, game: GameView, placed: PlacedTile) -> list[dict[str, Any]]:
        """The map's journey, on its tile."""
        if placed.tile.feature != MAP:
            return []
        return [{"token": "map", "label": "Map: 2 torches here take you to any discovered chamber"}]


def _map_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    """`travel by the map`, with a choice for each chamber it may take the player to."""
    if not in_map(game, player):
        return []
    from rules.narrative import place_name  # here: it imports the engine (and only here)

    pid = player.player_id
    start = game.temple.start_cell()
    choices = []
    blocked = None
    for placed in game.temple:
        try:
            check_travel(game, player, placed.cell)
        except Rejection as why:
            if placed.cell != player.cell and blocked is None:
                blocked = why.reason
            continue
        choices.append(
            {
                "name": placed.tile.name,
                "note": place_name(placed.cell, start),
                "event": {"type": "map_travel", "player": pid, "cell": list(placed.cell)},
            }
        )
    base = {"type": "map_travel", "player": pid}
    held = None if choices else (blocked or "no other chamber discovered yet")
    action = priced(
        game, [player], TRAVEL, "map_travel", "travel by the map (2 torches)", base, held
    )
    action.choices = choices  # just built: nobody else holds it yet
    return [action]


MODULE = MapModule
