"""Queenie: The Fountain (Big Box page 27): a chamber where a player regains one lost die
with 2 golden masks, once a game, and the curse cards Poison and Strangle vines."""

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
from rules.modules import CurseCard
from rules.open_action import OpenAction, priced
from rules.temple import PlacedTile
from rules.vocabulary import ADVENTURER, GOLDEN_MASK, KEY, TORCH, Cell, plural

if TYPE_CHECKING:
    from rules.engine import PlayerState
    from rules.game_setup import Setup

FOUNTAIN = "fountain"
DRINK_COST: Counter[str] = Counter({GOLDEN_MASK: 2})
"""Golden masks the player rolls by himself to regain a die (page 27)."""
POISON = "poison"
STRANGLE_VINES = "strangle_vines"


class Drink(EventValue):
    """A player in the Fountain rolls 2 golden masks by himself: he regains a lost die."""

    type_name = "drink"
    player = Field(read.player)


@dataclass
class FountainState:
    """The Fountain's part of a game: who regained his die, whose adventurers are strangled."""

    regained: list[str] = field(default_factory=list)
    """Players who regained a die at the Fountain (once a game each)."""
    strangled: dict[str, int] = field(default_factory=dict)
    """Adventurers of a Strangle vines player's last roll, unusable: re-rolled next roll."""


class FountainModule(Module):
    """The Fountain: a lost die regained once a game; Poison and Strangle vines."""

    id = FOUNTAIN
    title = "The Fountain"
    summary = (
        "The Fountain joins the draw pile: a player inside who rolls 2 golden masks by himself "
        "regains one lost die (once a game). Adds the curses Poison (a die more lost at the "
        "door slams) and Strangle vines (adventurers rolled cannot be used)."
    )
    rulebook = "Big Box page 27"
    event_types = ("drink",)
    event_classes = (Drink,)
    state_attr = "fountain"
    curse_cards = (
        CurseCard(
            POISON,
            "Poison",
            "when countdown 1 or 2 ends: lose a die inside the starting chamber, two outside",
            (GOLDEN_MASK, TORCH),
            FOUNTAIN,
        ),
        CurseCard(
            STRANGLE_VINES,
            "Strangle vines",
            "an adventurer you roll cannot be used for an action: re-roll it on your next roll",
            (KEY, TORCH, TORCH),
            FOUNTAIN,
        ),
    )

    @classmethod
    def chambers(cls) -> dict[str, TileDef]:
        """The Fountain (doors and entry icons are editable defaults: the text gives none)."""
        return {
            FOUNTAIN: TileDef(
                FOUNTAIN,
                "Fountain",
                "chamber",
                frozenset({"N", "E", "W"}),
                (KEY, TORCH),
                feature=FOUNTAIN,
            )
        }

    @classmethod
    def create_state(cls, setup: Setup) -> FountainState:
        """Nobody has regained a die yet."""
        return FountainState()

    def state_json(self, game: GameView) -> dict[str, Any]:
        """Who regained a die, and the adventurers strangled by the vines."""
        state = _state(game)
        return {"fountain_regained": list(state.regained), "strangled": dict(state.strangled)}

    def on_drink(self, game: GameView, event: Drink) -> None:
        """The player rolls 2 golden masks by himself in the Fountain: one lost die comes back."""
        player = game.still_inside(game.players[event.player])
        if _fountain_here(game, player) is None:
            raise Rejection(f"{player.player_id} is not in the Fountain")
        why = drink_refusal(game, player)
        if why:
            raise Rejection(why)
        plan, spends = game.charge(
            event, [player], Counter(DRINK_COST), "to regain a die at the Fountain (by himself)"
        )
        game.settle(plan, spends)
        player.dice += 1  # the die regained is rolled with the others next time
        _state(game).regained.append(player.player_id)

    def on_slam(self, game: GameView, start: Cell) -> list[Cell]:
        """Poison: one die more, at the end of countdowns 1 and 2 (page 27: one inside the
        starting chamber, where the slam takes none; two outside, the slam's and this one)."""
        for player in game.players.values():
            if player.inside and POISON in player.curses and player.dice:
                game.remove_die(player)
        return []

    def after_roll(self, game: GameView, player: PlayerState) -> None:
        """Strangle vines: the adventurers rolled are set aside, unusable, to be re-rolled."""
        strangled = _state(game).strangled
        strangled.pop(player.player_id, None)
        if STRANGLE_VINES not in player.curses or not player.showing[ADVENTURER]:
            return
        strangled[player.player_id] = player.showing[ADVENTURER]
        del player.showing[ADVENTURER]

    def open_actions(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """Regaining a die, for a player in the Fountain."""
        if _fountain_here(game, player) is None or player.player_id in _state(game).regained:
            return []
        return [
            priced(
                game,
                [player],
                DRINK_COST,
                "drink",
                "regain a lost die (2 golden masks by yourself)",
                {"type": "drink", "player": player.player_id},
                drink_refusal(game, player),
            )
        ]

    def tell(self, game: GameView, event: Mapping[str, Any]) -> str | None:
        """Say the Fountain's event."""
        if event.get("type") != "drink":
            return None
        return f"{_who(event)} drinks from the Fountain and regains a lost die"

    def reminders(self, game: GameView) -> list[str]:
        """Poison before the door slams, the strangled dice to re-roll."""
        found = []
        for player in game.players.values():
            if not player.inside:
                continue
            if POISON in player.curses:
                found.append(
                    f"{player.player_id} is poisoned: the door slam takes a die more from him, "
                    "even in the starting chamber"
                )
            strangled = strangled_dice(game, player)
            if strangled:
                found.append(
                    f"{player.player_id}'s {plural(strangled, ADVENTURER)} cannot be used "
                    "(Strangle vines): re-roll them"
                )
        return found

    def tile_marks(self, game: GameView, placed: PlacedTile) -> list[dict[str, Any]]:
        """The Fountain's water."""
        if placed.tile.feature != FOUNTAIN:
            return []
        return [
            {
                "token": "fountain",
                "label": "the Fountain: roll 2 golden masks by yourself to regain a lost die, "
                "once a game",
            }
        ]

    def player_marks(self, game: GameView, player: PlayerState) -> list[dict[str, Any]]:
        """Strangled adventurers and the die regained."""
        marks = []
        strangled = strangled_dice(game, player)
        if strangled:
            marks.append(
                {
                    "token": "vines",
                    "label": "strangled adventurer: cannot be used, re-roll it",
                    "count": strangled,
                }
            )
        if player.player_id in _state(game).regained:
            marks.append({"token": "fountain", "label": "regained a die at the Fountain"})
        return marks


def drink_refusal(game: GameView, player: PlayerState) -> str | None:
    """Why the player may not regain a die at the Fountain now, or None (his dice aside)."""
    if player.player_id in _state(game).regained:
        return f"{player.player_id} has already regained a die at the Fountain (once a game)"
    if lost_dice(game, player) < 1:
        return f"{player.player_id} has lost no die to regain"
    return None


def strangled_dice(game: GameView, player: PlayerState) -> int:
    """The player's strangled adventurers still lying unused (a die lost since goes first)."""
    if not player.rolled:
        return 0
    unused = player.free_dice - sum(player.showing.values())
    return max(0, min(_state(game).strangled.get(player.player_id, 0), unused))


def lost_dice(game: GameView, player: PlayerState) -> int:
    """Dice the player has lost: fewer than he started with (a Broken die's die lies on its
    card, a sacrificed die in module 8's sacrifice chamber: neither is lost yet)."""
    aside = 1 if "broken_die" in player.curses else 0
    if game.time is not None and player.player_id in game.time.sacrificed:
        aside += 1
    return game.setup.starting_dice - player.dice - aside


def _state(game: GameView) -> FountainState:
    state: FountainState = getattr(game, FountainModule.state_attr or "")
    return state


def _fountain_here(game: GameView, player: PlayerState) -> PlacedTile | None:
    placed = None if player.cell is None else game.temple.at(player.cell)
    return placed if placed is not None and placed.tile.feature == FOUNTAIN else None


def _who(event: Mapping[str, Any]) -> str:
    """The player an event names, as the log writes names (`Red`)."""
    pid = event.get("player")
    return pid.capitalize() if isinstance(pid, str) and pid else "?"


MODULE = FountainModule
