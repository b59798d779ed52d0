"""Queenie: Totem Chamber (Big Box page 35): in the totem chamber the adventurers stack dice
showing golden or black masks; 5 stacked activate 1 gem, 10 activate 2, once per game."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rules import event_values as read
from rules.catalog import TileDef
from rules.errors import Rejection
from rules.event_values import EventValue, Field
from rules.module_protocol import GameView, Module
from rules.open_action import OpenAction
from rules.temple import PlacedTile
from rules.vocabulary import GOLDEN_MASK, KEY, TORCH, plural

if TYPE_CHECKING:
    from rules.engine import PlayerState
    from rules.game_setup import Setup

MODULE_ID = "totem"
TOTEM = "totem"
STACKS = ((10, 2), (5, 1))
"""Dice stacked -> gems activated (page 35), the higher first."""
MOST_GEMS = 2


class Totem(EventValue):
    """The adventurers in the totem chamber stacked dice showing masks: its gems activated."""

    type_name = "totem"
    players = Field(read.player_ids("'players' must list the players who stack their dice"))
    stacked = Field(read.whole)
    """How many dice the stack holds."""


@dataclass
class TotemState:
    """Module `totem`'s part of a game: the stack that activated the totem's gems, if any."""

    stacked: int | None = None
    """How many dice the adventurers stacked when they activated its gems (None: not yet)."""


def gems_for(stacked: int) -> int:
    """The gems a stack of `stacked` dice activates (page 35)."""
    return next((gems for least, gems in STACKS if stacked >= least), 0)


class TotemModule(Module):
    """Queenie: Totem Chamber."""

    id = MODULE_ID
    title = "Totem Chamber"
    summary = (
        "A totem chamber: stack dice showing golden or black masks in it; 5 stacked dice "
        "activate 1 gem, 10 activate 2, once per game."
    )
    rulebook = "Big Box page 35"
    event_types = ("totem",)
    event_classes = (Totem,)
    state_attr = "totem"

    @classmethod
    def chambers(cls) -> dict[str, TileDef]:
        """The totem chamber, shuffled into the pile after the set-up's draw (page 35)."""
        return {
            TOTEM: TileDef(
                TOTEM,
                "Totem chamber",
                "chamber",
                frozenset({"E", "W"}),
                (KEY, TORCH),
                feature=TOTEM,
            )
        }

    @classmethod
    def create_state(cls, setup: Setup) -> TotemState:
        """The totem's gems not yet activated."""
        return TotemState()

    def state_json(self, game: GameView) -> dict[str, Any]:
        """The stack that activated the totem's gems (null: not yet)."""
        return {"totem_stacked": _state(game).stacked}

    def on_totem(self, game: GameView, event: Totem) -> None:
        """The adventurers in the totem chamber stacked `stacked` dice showing masks (page 35):
        5 activate 1 gem, 10 activate 2, once per game."""
        state = _state(game)
        payers = _payers(game, event)
        chamber = _totem_of(game, payers)
        if state.stacked is not None:
            raise Rejection(
                f"the totem's gems were activated already ({state.stacked} dice stacked): only "
                "once per game"
            )
        stacked = event.stacked
        gems = gems_for(stacked)
        if gems == 0:
            raise Rejection(f"{plural(stacked, 'die')} stacked: 5 activate 1 gem, 10 activate 2")
        for hook in game.module_hooks("check_activate"):
            hook(game, chamber, payers)
        game.check_allowed("gems")
        if game.depot < 1:
            raise Rejection("the depot holds no gem")
        gems = min(gems, game.depot)
        golden = _golden_needed(game, payers, stacked)
        plan, spends = game.charge(
            event, payers, Counter({GOLDEN_MASK: golden}), "to stack on the totem"
        )
        game.settle(plan, spends)
        game.depot -= gems
        chamber.gems += gems
        state.stacked = stacked

    def open_actions(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """Stack the masks of everyone in the totem chamber."""
        placed = None if player.cell is None else game.temple.at(player.cell)
        if placed is None or placed.tile.feature != TOTEM or _state(game).stacked is not None:
            return []
        team = game.players_in(placed.cell)
        masks = sum(p.showing[GOLDEN_MASK] + p.locked for p in team)
        stacked = min(max(masks, 5), 10)
        blocked = None
        if game.setup.track_dice and masks < 5:
            blocked = f"{plural(masks, 'die')} showing masks here, 5 needed to stack"
        if not game.depot:
            blocked = "the depot is empty"
        event = {"type": "totem", "players": [p.player_id for p in team], "stacked": stacked}
        label = f"stack {stacked} dice on the totem ({plural(gems_for(stacked), 'gem')})"
        return [OpenAction("totem", label, event, blocked=blocked)]

    def tell(self, game: GameView, event: Mapping[str, Any]) -> str | None:
        """Say a stack on the totem."""
        if event.get("type") != "totem":
            return None
        ids = event.get("players")
        names = [str(p).capitalize() for p in ids] if isinstance(ids, list) and ids else ["?"]
        who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        stacked = event.get("stacked")
        count = stacked if isinstance(stacked, int) else 0
        verb = "stacks" if len(names) == 1 else "stack"
        gems = plural(gems_for(count), "gem")
        return f"{who} {verb} {plural(count, 'die')} on the totem: {gems}"

    def reminders(self, game: GameView) -> list[str]:
        """How the totem is played, while its gems wait."""
        found = any(p.tile.feature == TOTEM for p in game.temple)
        if not found or _state(game).stacked is not None:
            return []
        return [
            "Totem: stack dice showing golden or black masks in its middle; dice that fall are "
            "re-rolled; 5 stacked activate 1 gem, 10 activate 2, only once"
        ]

    def tile_marks(self, game: GameView, placed: PlacedTile) -> list[dict[str, Any]]:
        """The totem's two gems, while they wait."""
        if placed.tile.feature != TOTEM or _state(game).stacked is not None:
            return []
        return [
            {
                "token": "totem",
                "label": "totem: stack 5 dice showing masks for 1 gem, 10 for 2 (once)",
                "count": MOST_GEMS,
            }
        ]


def _state(game: GameView) -> TotemState:
    state: TotemState = game.totem  # type: ignore[attr-defined]
    return state


def _payers(game: GameView, event: Totem) -> list[PlayerState]:
    """The players a totem event lists, each once, still inside."""
    payers = [game.still_inside(game.players[pid]) for pid in event.players]
    if len({p.player_id for p in payers}) != len(payers):
        raise Rejection("each player may be listed only once in 'players'")
    return payers


def _totem_of(game: GameView, payers: list[PlayerState]) -> PlacedTile:
    """The totem chamber the payers stand in (refused when one stands elsewhere)."""
    cell = payers[0].cell
    placed = None if cell is None else game.temple.at(cell)
    for payer in payers:
        if placed is None or placed.tile.feature != TOTEM or payer.cell != cell:
            raise Rejection(f"{payer.player_id} is not inside the Totem chamber")
    assert placed is not None
    return placed


def _golden_needed(game: GameView, payers: list[PlayerState], stacked: int) -> int:
    """The golden masks a stack uses once every black mask shown is in it (black masks stay
    locked: a stacked die keeps its face)."""
    if not game.setup.track_dice:
        return 0
    black = sum(p.locked for p in payers)
    golden = sum(p.showing[GOLDEN_MASK] for p in payers)
    if black + golden < stacked:
        names = " and ".join(p.player_id for p in payers)
        raise Rejection(
            f"{names} {'shows' if len(payers) == 1 else 'show'} "
            f"{plural(black + golden, 'die')} with a golden or black mask, "
            f"{stacked} stacked"
        )
    return max(0, stacked - black)


MODULE = TotemModule
