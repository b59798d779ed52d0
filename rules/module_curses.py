"""Big Box module 1 (curses, rulebook page 10): curse cards drawn for purple masks, lifted
with the card's icons, and what each curse forbids."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from rules import event_values as read
from rules.catalog import TileDef
from rules.errors import Rejection
from rules.event_values import EventValue, Field
from rules.module_protocol import GameView, Module
from rules.modules import CURSES_MODULE, CurseCard, curse_cards_in_play
from rules.open_action import OpenAction, pricer
from rules.vocabulary import Cell, plural

if TYPE_CHECKING:
    from rules.engine import PlayerState


class Curse(EventValue):
    """A player draws the curse card he owes for a purple mask he discovered."""

    type_name = "curse"
    player = Field(read.player)
    card = Field(read.required_value)
    """The card drawn (judged against this game's curse pile)."""


class Lift(EventValue):
    """A cursed player rolls the card's icons by himself and lifts the curse."""

    type_name = "lift"
    player = Field(read.player)
    card = Field(read.required_value)
    """The curse lifted (judged against this game's curse pile)."""


class LoseDie(EventValue):
    """A die of a player cursed with Lost dice fell off the table."""

    type_name = "lose_die"
    player = Field(read.player)


class CursesModule(Module):
    """Module 1: the curse cards."""

    id = CURSES_MODULE
    event_types = ("curse", "lift", "lose_die")
    event_classes = (Curse, Lift, LoseDie)
    hook_order: ClassVar[Mapping[str, int]] = {"on_discover": 80}

    @classmethod
    def player_json(cls, player: PlayerState) -> dict[str, Any]:
        """The curses in front of the player and the cards he must still draw."""
        return {"curses": list(player.curses), "curses_to_draw": player.curses_to_draw}

    def on_curse(self, game: GameView, event: Curse) -> None:
        """A curse card drawn for a purple mask the player discovered (page 10)."""
        game.require(CURSES_MODULE, event)
        player = game.still_inside(game.players[event.player])
        card = _curse_card(game, event.card)
        if player.curses_to_draw < 1:
            raise Rejection(
                f"{player.player_id} has no curse card to draw: a card is drawn by the player "
                "who discovers a chamber with a purple mask"
            )
        drawn = game.curses_drawn[card.card_id]
        if drawn >= card.copies:
            raise Rejection(
                f"the curse pile holds {plural(card.copies, card.name + ' card')}, all drawn "
                "already: the card drawn must be another"
            )
        hooks = game.module_hooks("curse_drawn")
        discarded = any([hook(game, player, card, event) for hook in hooks])
        game.curses_drawn[card.card_id] += 1
        player.curses_to_draw -= 1
        # A second copy of a curse in front of him, or a card its module discarded at once,
        # has no lasting effect.
        if not discarded and card.card_id not in player.curses:
            player.curses.append(card.card_id)
            if card.card_id == "broken_die":
                game.remove_die(player)
        for hook in game.module_hooks("after_curse"):
            hook(game, player, card)

    def on_lift(self, game: GameView, event: Lift) -> None:
        """The cursed player rolls the card's icons by himself and lifts the curse (page 10)."""
        game.require(CURSES_MODULE, event)
        player = game.still_inside(game.players[event.player])
        card = _curse_card(game, event.card)
        if card.card_id not in player.curses:
            raise Rejection(f"{player.player_id} is not cursed with {card.name}")
        plan, spends = game.charge(
            event, [player], card.lift_need, f"to lift the curse {card.name} (by himself)"
        )
        game.settle(plan, spends)
        player.curses.remove(card.card_id)
        if card.card_id == "broken_die":
            player.dice += 1  # the die on the card comes back, to be rolled

    def on_lose_die(self, game: GameView, event: LoseDie) -> None:
        """A die of a player cursed with Lost dice fell off the table: it is lost for good."""
        game.require(CURSES_MODULE, event)
        player = game.still_inside(game.players[event.player])
        if "lost_dice" not in player.curses:
            raise Rejection(
                f"{player.player_id} is not cursed with Lost dice: a die that falls off the "
                "table is simply picked up"
            )
        if player.dice < 1:
            raise Rejection(f"{player.player_id} has no die left to lose")
        game.remove_die(player)

    def check_may_move(self, game: GameView, player: PlayerState, doing: str) -> None:
        """A player cursed with Trap neither enters nor discovers (page 10)."""
        if "trap" in player.curses:
            raise Rejection(
                f"{player.player_id} is cursed (Trap): he may not {doing} until the curse is lifted"
            )

    def held_back(self, game: GameView, player: PlayerState, discovering: bool) -> str | None:
        """The Trap curse keeps the player from entering and discovering."""
        return "cursed (Trap): no entering or discovering" if "trap" in player.curses else None

    def check_unlock(self, game: GameView, helper: PlayerState, count: int) -> None:
        """A player cursed with Mask frees only 1 black mask with a golden mask."""
        if count > 1 and "mask" in helper.curses:
            raise Rejection(
                f"{helper.player_id} is cursed (Mask): his golden mask frees only 1 black mask"
            )

    def open_actions_last(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """Curses to draw and lift, a die to lose."""
        return _curse_actions(game, player)

    def on_discover(self, game: GameView, player: PlayerState, tile: TileDef, cell: Cell) -> None:
        """The discoverer of a purple mask owes a curse card (an illusion chamber's purple mask
        is ignored, page 12)."""
        if tile.curse and not tile.illusion:
            player.curses_to_draw += 1


def _curse_card(game: GameView, card_id: Any) -> CurseCard:
    cards = curse_cards_in_play(game.setup.modules)
    if card_id not in cards:
        raise Rejection(f"unknown curse card {card_id!r} (cards: {', '.join(cards)})")
    return cards[card_id]


# ----- open actions (rules/actions.py asks for them through the protocol) ---------------


@cache
def _lift_cost(lift: tuple[str, ...]) -> Mapping[str, int]:
    """A card's lifting roll as a read-only multiset, built once per roll."""
    return MappingProxyType(Counter(lift))


@cache
def _lifts(modules: tuple[str, ...]) -> Mapping[str, tuple[Mapping[str, int], str] | None]:
    """Each curse card in play (a Queenie module's too): its lifting roll and its lift's label
    (None: no roll lifts it), built once per set of modules."""
    return MappingProxyType(
        {
            card_id: (_lift_cost(card.lift), f"lift the curse {card.name} (by yourself)")
            if card.liftable
            else None
            for card_id, card in curse_cards_in_play(modules).items()
        }
    )


def _curse_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    """Curses to draw and lift, a die to lose; a `curse` event still needs the card drawn."""

    pid = player.player_id
    lifts = _lifts(tuple(game.setup.modules))
    found: list[OpenAction] = []
    if player.curses_to_draw:
        found.append(OpenAction("curse", "draw a curse card", {"type": "curse", "player": pid}))
    price = pricer(game, [player])  # every lift is paid by the player alone
    for card_id in player.curses:
        lift = lifts[card_id]
        if lift is not None:
            need, label = lift
            event = {"type": "lift", "player": pid, "card": card_id}
            found.append(price(need, "lift", label, event))
        if card_id == "lost_dice" and player.dice:
            found.append(
                OpenAction(
                    "lose_die", "a die fell off the table", {"type": "lose_die", "player": pid}
                )
            )
    return found
