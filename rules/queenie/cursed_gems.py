"""Queenie: The Cursed Gems (Big Box page 35, Queenie box's Queenie 11): each player keeps a
cursed gem tile and may not escape until he found its gem location tile, laid face down on the
one-gem chambers as they are discovered and looked at with 2 keys."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from random import Random
from typing import TYPE_CHECKING, Any

from rules import event_values as read
from rules.catalog import TileDef
from rules.errors import RecordError, Rejection
from rules.event_values import EventValue, Field
from rules.module_protocol import GameView, Module
from rules.open_action import OpenAction, priced
from rules.temple import PlacedTile
from rules.vocabulary import KEY, Cell

if TYPE_CHECKING:
    from rules.engine import PlayerState
    from rules.game_setup import Setup

MODULE_ID = "cursed_gems"
FIELD = "cursed_gems"
"""The setup line's field: each player's cursed gem tile."""
GEM_TILES: tuple[str, ...] = ("gem-1", "gem-2", "gem-3", "gem-4", "gem-5", "gem-6")
"""The 6 cursed gem tiles, each matching one of the 6 gem location tiles."""
LOOK_COST: Counter[str] = Counter({KEY: 2})
"""What looking at a gem location tile costs (page 35)."""


class GemLocation(EventValue):
    """A player rolls 2 keys and looks at the gem location tile in his chamber."""

    type_name = "gem_location"
    player = Field(read.player)
    location = Field(read.any_value)
    """The tile seen; the handler judges it, as the tiles it may be depend on earlier looks."""


@dataclass
class CursedGemsState:
    """Module `cursed_gems`'s part of a game."""

    held: dict[str, str] = field(default_factory=dict)
    """The cursed gem tile lying in front of each player who has not found its location."""
    pile: int = len(GEM_TILES)
    """Gem location tiles still in the face-down stack."""
    lying: dict[Cell, str | None] = field(default_factory=dict)
    """Chambers holding a face-down location tile -> the tile, once a look told the record
    (None: nobody looked yet)."""
    boxed: list[str] = field(default_factory=list)
    """Gems whose cursed gem and location tiles went back into the box, in order."""


def one_gem(tile: TileDef) -> bool:
    """Tell whether the chamber is one where only one gem is activated (page 35)."""
    return tile.gems is not None and tile.gems.count == 1


class CursedGemsModule(Module):
    """Queenie: The Cursed Gems."""

    id = MODULE_ID
    title = "The Cursed Gems"
    summary = (
        "Each player keeps a cursed gem tile and may not escape until he found its location: "
        "the one-gem chambers get face-down gem location tiles, looked at with 2 keys."
    )
    rulebook = "Big Box page 35 (Queenie box: Queenie 11)"
    filtered_actions = frozenset({"escape"})
    event_types = ("gem_location",)
    event_classes = (GemLocation,)
    state_attr = "cursed_gems"

    @classmethod
    def parse_setup_fields(cls, line: Mapping[str, Any], players: tuple[str, ...]) -> Any:
        """`cursed_gems`: each player's cursed gem tile, a different one each (left out:
        `gem-1` to the first player, `gem-2` to the second, ...)."""
        chosen = line.get(FIELD)
        if chosen is None:  # none written: dealt in the players' order
            return dict(zip(players, GEM_TILES, strict=False))
        example = '{"red": "gem-2", "blue": "gem-5"}'
        if not isinstance(chosen, Mapping):
            raise RecordError(
                f"with the cursed gems module, '{FIELD}' must give each player the cursed gem "
                f"tile dealt to him, e.g. {example} (tiles: {', '.join(GEM_TILES)})"
            )
        if set(chosen) != set(players):
            raise RecordError(f"'{FIELD}' must give every player one tile, and only players")
        for pid, tile in chosen.items():
            if tile not in GEM_TILES:
                raise RecordError(
                    f"unknown cursed gem tile {tile!r} for {pid} (tiles: {', '.join(GEM_TILES)})"
                )
        if len(set(chosen.values())) != len(chosen):
            raise RecordError("each cursed gem tile is dealt to one player only")
        return dict(chosen)

    @classmethod
    def random_setup_fields(cls, rng: Random, players: list[str]) -> dict[str, Any]:
        """The tiles dealt at random, one each (page 35)."""
        return {FIELD: dict(zip(players, rng.sample(GEM_TILES, len(players)), strict=True))}

    @classmethod
    def create_state(cls, setup: Setup) -> CursedGemsState:
        """Every player with his cursed gem tile; the 6 location tiles stacked face down."""
        return CursedGemsState(held=dict(setup.module_fields[MODULE_ID]))

    def state_json(self, game: GameView) -> dict[str, Any]:
        """The cursed gem tiles still held, the location tiles lying and stacked."""
        state = _state(game)
        return {
            "cursed_gems": dict(state.held),
            "gem_locations": [
                {"cell": list(cell), "tile": tile} for cell, tile in state.lying.items()
            ],
            "gem_location_pile": state.pile,
            "gems_returned": list(state.boxed),
        }

    def on_discover(self, game: GameView, player: PlayerState, tile: TileDef, cell: Cell) -> None:
        """A one-gem chamber discovered gets the top location tile, face down (page 35)."""
        state = _state(game)
        if one_gem(tile) and state.pile > 0:
            state.pile -= 1
            state.lying[cell] = None

    def after_slam(self, game: GameView, gone: list[Cell], start: Cell) -> None:
        """A chamber leaving the temple (module 3) takes its location tile back to the stack."""
        state = _state(game)
        for cell in gone:
            if cell in state.lying:
                del state.lying[cell]
                state.pile += 1

    def on_gem_location(self, game: GameView, event: GemLocation) -> None:
        """A player in a chamber with a location tile rolls 2 keys and looks at it; the one
        matching his cursed gem frees him (both tiles go back into the box)."""
        state = _state(game)
        player = game.still_inside(game.players[event.player])
        cell = player.cell
        assert cell is not None
        name = _chamber_name(game, cell)
        if cell not in state.lying:
            raise Rejection(f"there is no gem location tile in the {name}")
        tile = event.location
        allowed = possible_tiles(state, cell)
        if tile not in GEM_TILES:
            raise Rejection(
                f"'location' must be the gem location tile seen: one of {', '.join(allowed)}"
            )
        if tile not in allowed:
            raise Rejection(
                f"the gem location tile in the {name} cannot be {tile}: "
                + _why_not(state, cell, str(tile))
            )
        plan, spends = game.charge(event, [player], Counter(LOOK_COST), "to look at the tile")
        game.settle(plan, spends)
        if state.held.get(player.player_id) == tile:
            del state.held[player.player_id]
            del state.lying[cell]
            state.boxed.append(str(tile))
        else:
            state.lying[cell] = str(tile)

    def check_escaper(self, game: GameView, player: PlayerState) -> None:
        """Nobody escapes with a cursed gem tile in front of him (page 35)."""
        if player.player_id in _state(game).held:
            raise Rejection(_held_words(player))

    def filter_open_actions(self, game: GameView, found: list[Any]) -> list[Any]:
        """The escape greyed out for a player who still holds his cursed gem tile."""
        held = _state(game).held
        return [
            replace(a, blocked=f"{a.event['player']} still holds a cursed gem tile")
            if a.action == "escape" and a.event.get("player") in held and a.blocked is None
            else a
            for a in found
        ]

    def open_actions(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """A look at the location tile in the player's chamber."""
        state = _state(game)
        cell = player.cell
        if cell is None or cell not in state.lying:
            return []
        base = {"type": "gem_location", "player": player.player_id}
        action = priced(game, [player], LOOK_COST, "gem_location", "look at the gem tile", base)
        choices = [
            {"name": f"it shows {tile}", "event": {**base, "location": tile}}
            for tile in possible_tiles(state, cell)
        ]
        action.choices = choices  # just built: nobody else holds it yet
        return [action]

    def tell(self, game: GameView, event: Mapping[str, Any]) -> str | None:
        """Say a look at a location tile."""
        if event.get("type") != "gem_location":
            return None
        who = str(event.get("player", "?")).capitalize()
        return f"{who} rolls 2 keys and looks at the gem location tile in his chamber"

    def reminders(self, game: GameView) -> list[str]:
        """What the table does by itself with the location tiles."""
        state = _state(game)
        if not state.held:
            return []
        notes = [
            "Cursed gems: nobody escapes with his cursed gem tile in front of him",
        ]
        if state.lying:
            notes.append(
                "A gem location tile that is not yours: describe it without showing it, and "
                "put it back face down"
            )
        return notes

    def tile_marks(self, game: GameView, placed: PlacedTile) -> list[dict[str, Any]]:
        """The face-down location tile on a chamber."""
        if placed.cell not in _state(game).lying:
            return []
        label = "gem location tile, face down: roll 2 keys here to look at it"
        return [{"token": "gem-location", "label": label}]

    def player_marks(self, game: GameView, player: PlayerState) -> list[dict[str, Any]]:
        """The cursed gem tile in front of the player."""
        tile = _state(game).held.get(player.player_id)
        if tile is None:
            return []
        number = str(tile).removeprefix("gem-")  # players read the number printed on the tile
        label = f"cursed gem tile {number}: find its location tile before escaping"
        return [{"token": "cursed-gem", "label": label}]


def _state(game: GameView) -> CursedGemsState:
    state: CursedGemsState = game.cursed_gems  # type: ignore[attr-defined]
    return state


def possible_tiles(state: CursedGemsState, cell: Cell) -> list[str]:
    """The location tiles the one in `cell` may be: the one a look already told, else any not
    told elsewhere nor back in the box."""
    known = state.lying.get(cell)
    if known is not None:
        return [known]
    told = {t for c, t in state.lying.items() if t is not None and c != cell}
    return [t for t in GEM_TILES if t not in told and t not in state.boxed]


def _why_not(state: CursedGemsState, cell: Cell, tile: str) -> str:
    known = state.lying.get(cell)
    if known is not None:
        return f"an earlier look saw {known} there"
    if tile in state.boxed:
        return f"{tile} went back into the box"
    return f"{tile} lies in another chamber"


def _held_words(player: PlayerState) -> str:
    return (
        f"{player.player_id} still holds a cursed gem tile: nobody escapes before finding the "
        "location of his cursed gem"
    )


def _chamber_name(game: GameView, cell: Cell) -> str:
    placed = game.temple.at(cell)
    return placed.tile.name if placed is not None else "chamber"


MODULE = CursedGemsModule
