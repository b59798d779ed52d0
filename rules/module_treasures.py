"""Big Box module 2 (treasures, rulebook pages 10-11): treasure tiles claimed with two keys,
used on their own or spent with a paying action."""

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
from rules.module_protocol import GameView, Module, Spends
from rules.module_special import lay_large_torch
from rules.modules import CLAIM_COST, TREASURES, TREASURES_MODULE, treasures_in_play
from rules.open_action import OpenAction, once_a_listing, priced, unjoined_neighbours
from rules.vocabulary import Cell, side_towards

if TYPE_CHECKING:
    from rules.engine import PlayerState


class Claim(EventValue):
    """A player in a chamber with a treasure tile rolls two keys and takes the tile."""

    type_name = "claim"
    player = Field(read.player)
    treasure = Field(read.required_value)
    """The tile turned up (judged against the treasures this game plays)."""


class Use(EventValue):
    """A player uses a treasure he holds on its own (not spent with a paying action)."""

    type_name = "use"
    player = Field(read.player)
    treasure = Field(read.required_value)
    """The treasure used (judged against the treasures this game plays)."""
    cells = Field(
        read.cell_list("the Secret passage needs 'cells': the two chambers it joins", 2, 2)
    )
    """The two chambers a Secret passage joins."""
    cell = Field(read.cell)
    """Where the Teleport moves the player."""


class TreasuresModule(Module):
    """Module 2: the treasure tiles."""

    id = TREASURES_MODULE
    event_types = ("claim", "use")
    event_classes = (Claim, Use)
    payment_fields = ("treasures",)
    hook_order: ClassVar[Mapping[str, int]] = {"on_discover": 90}

    def state_json(self, game: GameView) -> dict[str, Any]:
        """Unclaimed treasure tiles, secret passages and Extra gems."""
        return {
            "treasure_cells": [list(cell) for cell in game.treasure_cells],
            "secret_passages": [[list(a), list(b)] for a, b in game.secret_passages],
            "extra_gems": game.extra_gems,
        }

    @classmethod
    def player_json(cls, player: PlayerState) -> dict[str, Any]:
        """The treasure tiles the player holds."""
        return {"treasures": list(player.treasures)}

    def on_discover(self, game: GameView, player: PlayerState, tile: TileDef, cell: Cell) -> None:
        """A chamber with a treasure icon gets a face-down treasure tile (page 10)."""
        if tile.treasure:
            game.treasure_cells.append(cell)

    def on_claim(self, game: GameView, event: Claim) -> None:
        """An adventurer in the chamber rolls two keys and takes its treasure tile (page 10)."""
        game.require(TREASURES_MODULE, event)
        player = game.still_inside(game.players[event.player])
        treasure = _treasure_id(game, event.treasure)
        cell = player.cell
        assert cell is not None
        if cell not in game.treasure_cells:
            chamber = game.temple.at(cell)
            name = chamber.tile.name if chamber else "his chamber"
            raise Rejection(f"there is no treasure tile in {name}, where {player.player_id} is")
        plan, spends = game.charge(event, [player], Counter(CLAIM_COST), "to claim a treasure")
        game.settle(plan, spends)
        game.treasure_cells.remove(cell)
        player.treasures.append(treasure)

    def on_use(self, game: GameView, event: Use) -> None:
        """A treasure used on its own (healing mask, secret passage, teleport, extra gem)."""
        game.require(TREASURES_MODULE, event)
        player = game.still_inside(game.players[event.player])
        treasure = _treasure_id(game, event.treasure)
        tile = treasures_in_play(game.setup.modules)[treasure]  # a Queenie module's too
        if treasure not in player.treasures:
            raise Rejection(f"{player.player_id} holds no {tile.name}")
        if tile.icons:
            raise Rejection(
                f"the {tile.name} is spent with an action: list it in that action's 'treasures'"
            )
        if treasure == "healing_mask":
            for other in game.players.values():
                other.locked = 0
        elif treasure == "secret_passage":
            _secret_passage(game, event)
        elif treasure == "teleport":
            _teleport(game, player, event)
        elif treasure == "extra_gem":
            if game.depot < 1:
                raise Rejection("the depot holds no gem for the Extra gem")
            game.depot -= 1
            game.extra_gems += 1
        elif treasure == "large_torch":
            lay_large_torch(game, player)  # type: ignore[arg-type]
        else:  # a Queenie module's treasure
            for hook in game.module_hooks("use_treasure"):
                if hook(game, player, treasure, event):
                    break
        player.treasures.remove(treasure)

    def spends(
        self,
        game: GameView,
        event: Mapping[str, Any],
        payers: list[PlayerState],
        need: Counter[str],
    ) -> tuple[Counter[str], Spends]:
        """Double keys and double torches listed in `treasures`, each serving as two icons."""
        listed = event.get("treasures", [])
        if not listed:
            return Counter(), []
        if not isinstance(listed, list) or any(not isinstance(t, str) for t in listed):
            raise Rejection("'treasures' must list treasure ids, e.g. [\"double_key\"]")
        spends: Spends = []
        held = {p.player_id: Counter(p.treasures) for p in payers}
        for treasure_id in listed:
            tile = TREASURES.get(treasure_id)
            if tile is None or not tile.icons:
                raise Rejection(
                    f"{treasure_id!r} is not a treasure that serves as icons "
                    "(double_key, double_torch)"
                )
            owner = next((p for p in payers if held[p.player_id][treasure_id] > 0), None)
            if owner is None:
                names = " and ".join(p.player_id for p in payers)
                raise Rejection(f"{names} {'holds' if len(payers) == 1 else 'hold'} no {tile.name}")
            if not any(icon in need for icon in tile.icons):
                raise Rejection(f"the {tile.name} serves as {tile.icons[0]}s: none are needed here")
            held[owner.player_id][treasure_id] -= 1
            spends.append((owner, treasure_id))
        bonus: Counter[str] = Counter()
        for _, treasure_id in spends:
            bonus.update(TREASURES[treasure_id].icons)
        return bonus, spends

    def open_actions_last(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """Treasures to claim and use."""
        return _treasure_actions(game, player)

    def settle_spends(self, game: GameView, spends: Spends) -> None:
        """The treasures spent leave their owners."""
        for owner, treasure_id in spends:
            owner.treasures.remove(treasure_id)


def _secret_passage(game: GameView, event: Use) -> None:
    a, b = event.cells
    if game.temple.at(a) is None or game.temple.at(b) is None:
        raise Rejection("the Secret passage joins two chambers of the temple")
    if side_towards(a, b) is None:
        raise Rejection("the Secret passage joins two adjacent chambers")
    if game.connected(a, b):
        raise Rejection("those chambers already have an open passage between them")
    game.secret_passages.append((a, b))


def _teleport(game: GameView, player: PlayerState, event: Use) -> None:
    cell = event.cell
    if cell == player.cell:
        raise Rejection(f"{player.player_id} is already there")
    if not any(p is not player for p in game.players_in(cell)):
        raise Rejection("the Teleport moves you only to a chamber holding another adventurer")
    game.check_may_move(player, "enter a chamber")
    game.check_leave(player, None, "teleport")
    game.check_allowed("movement")
    player.cell = cell
    # In a double chamber he lands in the half of the first adventurer there (module 4).
    player.rear = next(p.rear for p in game.players_in(cell) if p is not player)


def _treasure_id(game: GameView, treasure: Any) -> str:
    tiles = treasures_in_play(game.setup.modules)
    if treasure not in tiles:
        raise Rejection(f"unknown treasure {treasure!r} (treasures: {', '.join(tiles)})")
    return str(treasure)


# ----- open actions (rules/actions.py asks for them through the protocol) ---------------


def _treasure_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    """Treasures to claim and use; a `claim` event still needs the tile drawn (`treasure`)."""

    pid = player.player_id
    found: list[OpenAction] = []
    if player.cell in game.treasure_cells:
        found.append(
            priced(
                game,
                [player],
                CLAIM_COST,
                "claim",
                "claim the treasure (2 keys)",
                {"type": "claim", "player": pid},
            )
        )
    uses = _plain_uses(tuple(game.setup.modules))
    blockers = game.module_hooks("treasure_blocked")
    for treasure_id in dict.fromkeys(player.treasures):
        label = uses[treasure_id]
        if label is None:
            continue  # spent with a paying action (its `treasures`), or its module lists it
        if treasure_id == "secret_passage":
            found.append(
                OpenAction(
                    "use",
                    "use the Secret passage",
                    {"type": "use", "player": pid, "treasure": treasure_id},
                    blocked=None
                    if once_a_listing(
                        ("unjoined", id(game)), lambda: any(unjoined_neighbours(game))
                    )
                    else "no two adjacent chambers without an open passage",
                )
            )
            continue
        if treasure_id == "teleport":
            cells = {p.cell for p in game.players.values() if p.inside and p.cell != player.cell}
            for cell in sorted(c for c in cells if c is not None):
                found.append(
                    OpenAction(
                        "use",
                        f"teleport to {game.temple.at(cell).tile.name}",  # type: ignore[union-attr]
                        {"type": "use", "player": pid, "treasure": treasure_id, "cell": list(cell)},
                    )
                )
            continue
        blocked = "the depot is empty" if treasure_id == "extra_gem" and not game.depot else None
        for hook in blockers:
            blocked = blocked or hook(game, player, treasure_id)
        found.append(
            OpenAction(
                "use", label, {"type": "use", "player": pid, "treasure": treasure_id}, {}, blocked
            )
        )
    return found


@cache
def _plain_uses(modules: tuple[str, ...]) -> Mapping[str, str | None]:
    """Each treasure in play: the label of its plain `use`, or None for one spent with a paying
    action or listed by its module (built once per set of modules)."""
    return MappingProxyType(
        {
            treasure_id: None if tile.icons or tile.own_actions else f"use the {tile.name}"
            for treasure_id, tile in treasures_in_play(modules).items()
        }
    )
