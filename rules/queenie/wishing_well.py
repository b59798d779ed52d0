"""Queenie 14 (Wishing well, Queenie box): a player inside the Wishing well rolls 2 keys to draw
a treasure tile, to get rid of a curse, or to reclaim a die he lost; to wish again he leaves
the chamber and comes back."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rules import event_values as read
from rules.catalog import TileDef
from rules.errors import Rejection
from rules.event_values import EventValue, Field
from rules.module_protocol import GameView, Module
from rules.modules import (
    CURSES_MODULE,
    TREASURES_MODULE,
    curse_cards_in_play,
    treasures_in_play,
)
from rules.open_action import OpenAction, priced
from rules.vocabulary import ADVENTURER, KEY

if TYPE_CHECKING:
    from rules.engine import PlayerState
    from rules.game_setup import Setup
    from rules.temple import PlacedTile

WELL_MODULE = "wishing_well"
WELL = "wishing-well"
"""The chamber's feature word (and tile id)."""
WISH: Counter[str] = Counter({KEY: 2})
"""What a wish costs, rolled by the wisher (Queenie 14)."""
WISHES = ("treasure", "curse", "die")
"""What a `wish` event's `wish` may be."""


class Wish(EventValue):
    """A player in the Wishing well rolls 2 keys: a treasure drawn, a curse gone or a die back."""

    type_name = "wish"
    player = Field(read.player)
    wish = Field(read.one_of(WISHES, "'wish' must be 'treasure', 'curse' or 'die'"))
    treasure = Field(read.any_value)
    """The treasure tile drawn; the handler judges it against the treasures in play."""
    card = Field(read.any_value)
    """The curse card got rid of; the handler judges it against the wisher's curses."""


def well_chambers() -> dict[str, TileDef]:
    """The Wishing well; its doors and entry icons are editable defaults."""
    return {
        WELL: TileDef(
            WELL, "Wishing well", "chamber", frozenset({"E", "W"}), (ADVENTURER, KEY), feature=WELL
        )
    }


@dataclass
class WellState:
    """Who has wished since he last came into the Wishing well."""

    wished: list[str] = field(default_factory=list)


def well_state(game: GameView) -> WellState:
    """The module's state on the game."""
    state = getattr(game, WellModule.state_attr or "")
    assert isinstance(state, WellState)
    return state


def wished(game: GameView) -> list[str]:
    """The players still in the well who wished since they came in."""
    players = game.players
    return [p for p in well_state(game).wished if in_well(game, players[p])]


def in_well(game: GameView, player: PlayerState) -> bool:
    """Tell whether the player stands in the Wishing well."""
    placed = None if player.cell is None else game.temple.at(player.cell)
    return player.inside and placed is not None and placed.tile.feature == WELL


def lost_dice(game: GameView, player: PlayerState) -> int:
    """Dice the player lost and may reclaim: below the dice he started with, the die lying on
    a Broken die curse not counted (it comes back when the curse is lifted)."""
    aside = 1 if "broken_die" in player.curses else 0
    return max(game.setup.starting_dice - player.dice - aside, 0)


def check_wisher(game: GameView, player: PlayerState) -> None:
    """Refuse a wish of a player outside the well, or who wished since he came in."""
    if not in_well(game, player):
        raise Rejection(f"{player.player_id} is not in the Wishing well")
    if player.player_id in wished(game):
        raise Rejection(
            f"{player.player_id} has wished already: leave the Wishing well and come back to "
            "wish again"
        )


def grant(game: GameView, player: PlayerState, event: Wish) -> None:
    """Refuse a wish the well cannot grant the player (before anything changes)."""
    wish = event.wish
    pid = player.player_id
    if wish == "treasure":
        if TREASURES_MODULE not in game.setup.modules:
            raise Rejection("the Treasures module is not in play: the well has no treasure to give")
        treasure = event.treasure
        tiles = treasures_in_play(game.setup.modules)
        if treasure not in tiles:
            raise Rejection(
                f"the wish for a treasure needs 'treasure': the tile drawn ({', '.join(tiles)})"
            )
    elif wish == "curse":
        card = event.card
        if not player.curses:
            raise Rejection(f"{pid} has no curse in front of him to get rid of")
        if card not in player.curses:
            cards = curse_cards_in_play(game.setup.modules)
            held = ", ".join(cards[c].name for c in player.curses)
            raise Rejection(f"{pid} is not cursed with that card: he holds {held}")
    elif lost_dice(game, player) < 1:  # a die: any other wish was refused when read
        raise Rejection(f"{pid} has lost no die to reclaim")


def fulfil(player: PlayerState, event: Wish) -> None:
    """Give the player what he wished for (checked by `grant`)."""
    wish = event.wish
    if wish == "treasure":
        player.treasures.append(str(event.treasure))
    elif wish == "curse":
        player.curses.remove(event.card)
        if event.card == "broken_die":
            player.dice += 1  # the die on the card comes back, to be rolled
    else:
        player.dice += 1  # back from the box, to be rolled


class WellModule(Module):
    """Queenie 14: the Wishing well."""

    id = WELL_MODULE
    title = "Wishing well"
    summary = (
        "In the Wishing well, roll 2 keys to draw a treasure, get rid of a curse or reclaim a "
        "lost die; leave and come back to wish again."
    )
    rulebook = "Queenie box, Queenie 14"
    event_types = ("wish",)
    event_classes = (Wish,)
    state_attr = "wishing_well"

    @classmethod
    def chambers(cls) -> dict[str, TileDef]:
        """The Wishing well."""
        return well_chambers()

    @classmethod
    def create_state(cls, setup: Setup) -> WellState:
        """Nobody has wished yet."""
        return WellState()

    def state_json(self, game: GameView) -> dict[str, Any]:
        """Who may not wish again before leaving the well."""
        return {"wished_at_well": wished(game)}

    def before_judge(self, game: GameView, event: Mapping[str, Any]) -> Any:
        """Whoever left the well since he wished may wish again when he comes back."""
        well_state(game).wished = wished(game)

    def on_wish(self, game: GameView, event: Wish) -> None:
        """Two keys in the well: a treasure, a curse gone or a lost die back (Queenie 14)."""
        game.require(WELL_MODULE, event)
        player = game.still_inside(game.players[event.player])
        check_wisher(game, player)
        grant(game, player, event)
        plan, spends = game.charge(event, [player], Counter(WISH), "to make a wish at the well")
        game.settle(plan, spends)
        fulfil(player, event)
        well_state(game).wished.append(player.player_id)

    def open_actions(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """A wish, with a choice for each thing the well may give the player."""
        return _wish_actions(game, player)

    def tell(self, game: GameView, event: Mapping[str, Any]) -> str | None:
        """`Red wishes at the well: the Double key`."""
        if event.get("type") != "wish":
            return None
        from rules.narrative import curse_name, treasure_name  # here: it imports the engine

        who = str(event.get("player", "someone")).capitalize()
        wish = event.get("wish")
        if wish == "treasure":
            drawn = treasure_name(event.get("treasure"))
            return f"{who} wishes at the well and draws a treasure: the {drawn}"
        if wish == "curse":
            card = curse_name(event.get("card"))
            return f"{who} wishes at the well and is rid of the curse {card}"
        return f"{who} wishes at the well and gets a lost die back"

    def tile_marks(self, game: GameView, placed: PlacedTile) -> list[dict[str, Any]]:
        """Who has wished here since he came in."""
        if placed.tile.feature != WELL:
            return []
        here = [p for p in wished(game) if game.players[p].cell == placed.cell]
        if not here:
            return []
        names = ", ".join(p.capitalize() for p in here)
        return [
            {
                "token": "wish",
                "label": f"wished already: {names} (leave and come back to wish again)",
                "count": len(here),
            }
        ]


def _wish_choices(game: GameView, player: PlayerState) -> list[dict[str, Any]]:
    """Each thing the well may give the player now."""
    from rules.narrative import curse_name  # here: it imports the engine

    pid = player.player_id
    base = {"type": "wish", "player": pid}
    choices: list[dict[str, Any]] = []
    if TREASURES_MODULE in game.setup.modules:
        for treasure_id, tile in treasures_in_play(game.setup.modules).items():
            choices.append(
                {
                    "name": f"draw a treasure: {tile.name}",
                    "note": "the tile you drew",
                    "event": {
                        "type": "wish",
                        "player": pid,
                        "wish": "treasure",
                        "treasure": treasure_id,
                    },
                }
            )
    if CURSES_MODULE in game.setup.modules:
        cards = curse_cards_in_play(game.setup.modules)
        for card_id in dict.fromkeys(player.curses):
            card = cards.get(card_id)  # a card in play is named as `curse_name` names it
            name = card.name if card is not None else curse_name(card_id)
            choices.append(
                {
                    "name": f"get rid of the curse {name}",
                    "note": "the curse is discarded",
                    "event": {"type": "wish", "player": pid, "wish": "curse", "card": card_id},
                }
            )
    if lost_dice(game, player):
        choices.append(
            {
                "name": "reclaim a lost die",
                "note": "it comes back to be rolled",
                "event": {**base, "wish": "die"},
            }
        )
    return choices


def _wish_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    """`make a wish`, blocked once he wished until he leaves and comes back."""
    if not in_well(game, player):
        return []
    choices = _wish_choices(game, player)
    blocked = None
    if player.player_id in wished(game):
        blocked = "wished already: leave the well and come back to wish again"
    elif not choices:
        blocked = "nothing to wish for: no treasures in play, no curse, no die lost"
    base = {"type": "wish", "player": player.player_id}
    action = priced(game, [player], WISH, "wish", "make a wish at the well (2 keys)", base, blocked)
    action.choices = choices  # just built: nobody else holds it yet
    return [action]


MODULE = WellModule
