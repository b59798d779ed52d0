"""Queenie: Doomed (Big Box pages 26-27): the Counterspell treasure and the curse cards
Doomed and Stand up."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from rules.errors import Rejection
from rules.module_protocol import GameView, Module
from rules.modules import CurseCard, TreasureTile, curse_cards_in_play
from rules.open_action import OpenAction
from rules.vocabulary import ADVENTURER, GOLDEN_MASK, KEY, TORCH

if TYPE_CHECKING:
    from rules.engine import PlayerState
    from rules.module_treasures import Use

DOOMED_MODULE = "doomed"
COUNTERSPELL = "counterspell"
DOOMED = "doomed"
STAND_UP = "stand_up"


class DoomedModule(Module):
    """Doomed: a treasure that discards a curse, a curse that bars the exit, one to stand up."""

    id = DOOMED_MODULE
    title = "Doomed"
    summary = (
        "Adds the Counterspell treasure (discard one of your curse cards, once) and the curses "
        "Doomed (no escape until it is lifted) and Stand up (stand until it is lifted)."
    )
    rulebook = "Big Box pages 26-27"
    filtered_actions = frozenset({"escape"})
    curse_cards = (
        CurseCard(
            DOOMED,
            "Doomed",
            "may not escape from the temple until the curse is lifted",
            (KEY, KEY, TORCH),
            DOOMED_MODULE,
            copies=1,
        ),
        CurseCard(
            STAND_UP,
            "Stand up",
            "stand up at once and stay standing until the curse is lifted",
            (ADVENTURER, GOLDEN_MASK),
            DOOMED_MODULE,
            copies=1,
        ),
    )
    treasure_tiles = (
        TreasureTile(
            COUNTERSPELL,
            "Counterspell",
            "discard one of your curse cards, once",
            module=DOOMED_MODULE,
        ),
    )

    def use_treasure(self, game: GameView, player: PlayerState, treasure: str, event: Use) -> None:
        """Counterspell: the player discards one of his curse cards (`card`)."""
        if treasure != COUNTERSPELL:
            return
        card = _countered(game, player, event)
        player.curses.remove(card)
        if card == "broken_die":
            player.dice += 1  # the die lying on the card comes back, as when it is lifted

    def treasure_blocked(self, game: GameView, player: PlayerState, treasure: str) -> str | None:
        """Module 2's plain Counterspell: only for a player with one kind of curse (several:
        one action per curse, `open_actions`)."""
        if treasure != COUNTERSPELL:
            return None
        if not player.curses:
            return "no curse card to discard"
        if len(set(player.curses)) > 1:
            return "choose the curse it discards"
        return None

    def check_escaper(self, game: GameView, player: PlayerState) -> None:
        """Doomed: no escape until the curse is lifted."""
        if DOOMED in player.curses:
            raise Rejection(_doomed_words(player))

    def filter_open_actions(self, game: GameView, found: list[Any]) -> list[Any]:
        """A Doomed player's escape is greyed out."""
        return [_bar_escape(game, a) if a.action == "escape" else a for a in found]

    def open_actions(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """Counterspell on each curse, when the player has more than one to choose from (module
        2 lists the plain use, which discards his only curse)."""
        if COUNTERSPELL not in player.treasures or len(set(player.curses)) < 2:
            return []
        labels = _counterspell_labels(tuple(game.setup.modules))
        pid = player.player_id
        return [
            OpenAction(
                "use",
                labels[card],
                {"type": "use", "player": pid, "treasure": COUNTERSPELL, "card": card},
            )
            for card in player.curses
        ]

    def reminders(self, game: GameView) -> list[str]:
        """Stand up is kept at the table; Doomed players are reminded before the exit."""
        found = []
        for player in game.players.values():
            if not player.inside:
                continue
            if STAND_UP in player.curses:
                found.append(
                    f"{player.player_id} is cursed (Stand up): stay standing until the curse "
                    "is lifted"
                )
            if DOOMED in player.curses:
                found.append(_doomed_words(player))
        return found

    def player_marks(self, game: GameView, player: PlayerState) -> list[dict[str, Any]]:
        """The Doomed and Stand up cards lying in front of the player."""
        marks = []
        if DOOMED in player.curses:
            marks.append({"token": "doomed", "label": "Doomed: no escape until lifted"})
        if STAND_UP in player.curses:
            marks.append({"token": "stand-up", "label": "Stand up: stay standing until lifted"})
        return marks


def _countered(game: GameView, player: PlayerState, event: Mapping[str, Any]) -> str:
    """The curse card the Counterspell discards (checked)."""
    if not player.curses:
        raise Rejection(f"{player.player_id} has no curse card for the Counterspell to discard")
    card = event.get("card")
    cards = curse_cards_in_play(game.setup.modules)
    if card is None:
        if len(set(player.curses)) > 1:
            names = ", ".join(cards[c].name for c in player.curses)
            raise Rejection(
                f"say which of {player.player_id}'s curses the Counterspell discards ({names})"
            )
        return player.curses[0]
    if card not in player.curses:
        name = cards[card].name if card in cards else repr(card)
        raise Rejection(
            f"{player.player_id} is not cursed with {name}: the Counterspell discards one of "
            "his own curse cards"
        )
    return str(card)


def _doomed_words(player: PlayerState) -> str:
    return f"{player.player_id} is cursed (Doomed): he may not escape until the curse is lifted"


@cache
def _counterspell_labels(modules: tuple[str, ...]) -> Mapping[str, str]:
    """The label of the Counterspell on each curse card in play, built once per module set."""
    return MappingProxyType(
        {
            card_id: f"use the Counterspell on {card.name}"
            for card_id, card in curse_cards_in_play(modules).items()
        }
    )


def _bar_escape(game: GameView, action: Any) -> Any:
    if action.action != "escape" or action.blocked:
        return action
    player = game.players.get(action.event.get("player"))
    if player is None or DOOMED not in player.curses:
        return action
    return dataclasses.replace(action, blocked="cursed (Doomed): no escape until it is lifted")


MODULE = DoomedModule
