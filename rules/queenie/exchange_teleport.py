"""Queenie: Exchange chamber & Teleporter chamber (Big Box page 34, with modules 1 and 2): swap a
curse for a treasure drawn, once a visit; carry the teleporter token to a chamber, then teleport
free between it and the Teleporter chamber."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rules import event_values as read
from rules.catalog import TileDef
from rules.errors import Rejection
from rules.event_values import EventValue, Field
from rules.module_protocol import GameView, Module
from rules.modules import CURSES_MODULE, TREASURES_MODULE, curse_cards_in_play, treasures_in_play
from rules.open_action import OpenAction
from rules.vocabulary import ADVENTURER, KEY, TORCH, Cell

if TYPE_CHECKING:
    from rules.engine import PlayerState
    from rules.game_setup import Setup
    from rules.temple import PlacedTile

EXCHANGE_MODULE = "exchange_teleport"
EXCHANGE, TELEPORTER = "exchange", "teleporter"
"""The two chambers' feature words (and tile ids)."""


class Exchange(EventValue):
    """A player in the Exchange chamber discards a curse for a treasure drawn."""

    type_name = "exchange"
    player = Field(read.player)
    card = Field(read.any_value)
    """The curse card discarded; the handler judges it against the player's curses."""
    treasure = Field(read.any_value)
    """The treasure tile drawn; the handler judges it against the treasures in play."""


class TakeTeleporter(EventValue):
    """A player takes the teleporter token lying in his chamber."""

    type_name = "take_teleporter"
    player = Field(read.player)


class DropTeleporter(EventValue):
    """The token's holder lays it in the chamber he stands in."""

    type_name = "drop_teleporter"
    player = Field(read.player)
    cell = Field(read.cell)


class UseTeleporter(EventValue):
    """A player teleports between the Teleporter chamber and the token's chamber."""

    type_name = "use_teleporter"
    player = Field(read.player)
    cell = Field(read.cell)


def exchange_chambers() -> dict[str, TileDef]:
    """The Exchange and Teleporter chambers; doors and entry icons are editable defaults."""
    return {
        EXCHANGE: TileDef(
            EXCHANGE,
            "Exchange chamber",
            "chamber",
            frozenset({"N", "E", "W"}),
            (ADVENTURER, KEY),
            feature=EXCHANGE,
        ),
        TELEPORTER: TileDef(
            TELEPORTER,
            "Teleporter chamber",
            "chamber",
            frozenset({"N", "E"}),
            (ADVENTURER, TORCH),
            feature=TELEPORTER,
        ),
    }


@dataclass
class ExchangeState:
    """Who exchanged since he came into the Exchange chamber, and where the teleporter token
    is: lying in a chamber (by tile id, so that it moves with a moving tile) or held."""

    exchanged: list[str] = field(default_factory=list)
    token_tile: str | None = None
    """The tile of the chamber the token lies in (None: not discovered yet, or held)."""
    token_holder: str | None = None
    """The player holding the token in front of him."""


def ex_state(game: GameView) -> ExchangeState:
    """The module's state on the game."""
    state = getattr(game, ExchangeModule.state_attr or "")
    assert isinstance(state, ExchangeState)
    return state


def chamber_with(game: GameView, feature: str) -> PlacedTile | None:
    """The chamber of the temple with this feature, if it is discovered."""
    return game.temple.with_feature(feature)


def stands_in(game: GameView, player: PlayerState, feature: str) -> bool:
    """Tell whether the player stands in the chamber with this feature."""
    placed = None if player.cell is None else game.temple.at(player.cell)
    return player.inside and placed is not None and placed.tile.feature == feature


def exchanged(game: GameView) -> list[str]:
    """The players still in the Exchange chamber who exchanged since they came in."""
    players = game.players
    return [p for p in ex_state(game).exchanged if stands_in(game, players[p], EXCHANGE)]


def token_chamber(game: GameView) -> PlacedTile | None:
    """The chamber the teleporter token lies in (None while it is held or not yet found)."""
    tile = ex_state(game).token_tile
    return None if tile is None else game.temple.with_tile(tile)


def teleport_target(game: GameView, player: PlayerState) -> PlacedTile | None:
    """Where the player may teleport: the token's chamber from the Teleporter chamber and the
    way back (None: neither, or the token lies in the Teleporter chamber itself)."""
    gate, token = chamber_with(game, TELEPORTER), token_chamber(game)
    if gate is None or token is None or gate is token or player.cell is None:
        return None
    if player.cell == gate.cell:
        return token
    return gate if player.cell == token.cell else None


# ----- the Exchange chamber ------------------------------------------------------------------


def exchange(game: GameView, event: Exchange) -> None:
    """A curse in front of the player discarded for a treasure drawn (page 34)."""
    player = game.still_inside(game.players[event.player])
    pid = player.player_id
    if not stands_in(game, player, EXCHANGE):
        raise Rejection(f"{pid} is not in the Exchange chamber")
    if pid in exchanged(game):
        raise Rejection(
            f"{pid} has exchanged already: leave the Exchange chamber and come back to exchange "
            "again"
        )
    card = event.card
    if not player.curses:
        raise Rejection(f"{pid} has no curse in front of him to exchange")
    if card not in player.curses:
        cards = curse_cards_in_play(game.setup.modules)
        held = ", ".join(cards[c].name for c in player.curses)
        raise Rejection(f"{pid} is not cursed with that card: he holds {held}")
    tiles = treasures_in_play(game.setup.modules)
    treasure = event.treasure
    if treasure not in tiles:
        raise Rejection(f"the exchange needs 'treasure': the tile drawn ({', '.join(tiles)})")
    player.curses.remove(card)
    if card == "broken_die":
        player.dice += 1  # the die on the card comes back, as when the curse is lifted
    player.treasures.append(str(treasure))
    ex_state(game).exchanged.append(pid)


# ----- the Teleporter chamber ----------------------------------------------------------------


def take_token(game: GameView, event: TakeTeleporter) -> None:
    """The player takes the token lying in his chamber and places it in front of him."""
    player = game.still_inside(game.players[event.player])
    state = ex_state(game)
    if state.token_holder is not None:
        holder = state.token_holder
        raise Rejection(f"{holder} holds the teleporter token: it is in front of him")
    lying = token_chamber(game)
    if lying is None:
        raise Rejection("the teleporter token is found with the Teleporter chamber")
    if player.cell != lying.cell:
        raise Rejection(
            f"{player.player_id} is not in {lying.tile.name}, where the teleporter token lies"
        )
    state.token_tile, state.token_holder = None, player.player_id


def drop_token(game: GameView, event: DropTeleporter) -> None:
    """The holder lays the token in the chamber he stands in (another than the Teleporter)."""
    player = game.still_inside(game.players[event.player])
    state = ex_state(game)
    if state.token_holder != player.player_id:
        raise Rejection(f"{player.player_id} does not hold the teleporter token")
    placed = game.temple.at(player.cell) if player.cell is not None else None
    assert placed is not None
    if event.cell != placed.cell:
        raise Rejection(
            f"{player.player_id} lays the teleporter token in his own chamber, {placed.tile.name}"
        )
    if placed.tile.feature == TELEPORTER:
        raise Rejection(
            "the teleporter token is laid in another chamber than the Teleporter chamber"
        )
    state.token_tile, state.token_holder = placed.tile.tile_id, None


def teleport(game: GameView, event: UseTeleporter) -> None:
    """The player goes free between the Teleporter chamber and the token's chamber."""
    player = game.still_inside(game.players[event.player])
    target = teleport_target(game, player)
    if target is None:
        raise Rejection(_no_teleport(game, player))
    if event.cell != target.cell:
        raise Rejection(f"the teleporter takes {player.player_id} only to {target.tile.name}")
    game.check_may_move(player, "teleport")
    game.check_leave(player, None, "teleport")  # no door: no stairway passed
    game.check_allowed("movement")
    if target.tile.kind == "start":
        game.check_allowed("start")
    for hook in game.module_hooks("check_enter_tile"):
        hook(game, target.tile)
    player.cell, player.rear = target.cell, False


def _no_teleport(game: GameView, player: PlayerState) -> str:
    """Why the player has nowhere to teleport."""
    state = ex_state(game)
    if chamber_with(game, TELEPORTER) is None:
        return "the Teleporter chamber is not discovered yet"
    if state.token_holder is not None:
        return f"{state.token_holder} holds the teleporter token: it must lie in a chamber first"
    if token_chamber(game) is chamber_with(game, TELEPORTER):
        return "the teleporter token still lies in the Teleporter chamber: lay it elsewhere first"
    return (
        f"{player.player_id} is neither in the Teleporter chamber nor where the teleporter token "
        "lies"
    )


class ExchangeModule(Module):
    """Big Box page 34: the Exchange chamber and the Teleporter chamber with its token."""

    id = EXCHANGE_MODULE
    title = "Exchange chamber & Teleporter chamber"
    summary = (
        "In the Exchange chamber, swap a curse for a treasure drawn (once a visit). Carry the "
        "teleporter token to a chamber: then anyone teleports free between it and the "
        "Teleporter chamber."
    )
    rulebook = "Big Box page 34"
    requires = (CURSES_MODULE, TREASURES_MODULE)
    event_types = ("exchange", "take_teleporter", "drop_teleporter", "use_teleporter")
    event_classes = (Exchange, TakeTeleporter, DropTeleporter, UseTeleporter)
    state_attr = "exchange_teleport"

    @classmethod
    def chambers(cls) -> dict[str, TileDef]:
        """The Exchange and Teleporter chambers."""
        return exchange_chambers()

    @classmethod
    def create_state(cls, setup: Setup) -> ExchangeState:
        """Nobody exchanged; the token waits beside the pile for its chamber."""
        return ExchangeState()

    def state_json(self, game: GameView) -> dict[str, Any]:
        """Who exchanged this visit; where the teleporter token is."""
        lying = token_chamber(game)
        return {
            "exchanged": exchanged(game),
            "teleporter_token": None if lying is None else list(lying.cell),
            "teleporter_token_holder": ex_state(game).token_holder,
        }

    def before_judge(self, game: GameView, event: Mapping[str, Any]) -> Any:
        """Whoever left the Exchange chamber may exchange again when he comes back."""
        ex_state(game).exchanged = exchanged(game)

    def on_discover(self, game: GameView, player: PlayerState, tile: TileDef, cell: Cell) -> None:
        """The teleporter token is laid in the middle of its chamber once it is found."""
        state = ex_state(game)
        if tile.feature == TELEPORTER and state.token_holder is None:
            state.token_tile = tile.tile_id

    def after_slam(self, game: GameView, gone: list[Cell], start: Cell) -> None:
        """A token in a chamber that left the temple goes back to the Teleporter chamber."""
        state = ex_state(game)
        if state.token_tile is not None and token_chamber(game) is None:
            gate = chamber_with(game, TELEPORTER)
            state.token_tile = None if gate is None else gate.tile.tile_id

    def on_exchange(self, game: GameView, event: Exchange) -> None:
        """A curse swapped for a treasure drawn, once a visit (page 34)."""
        game.require(EXCHANGE_MODULE, event)
        exchange(game, event)

    def on_take_teleporter(self, game: GameView, event: TakeTeleporter) -> None:
        """The teleporter token taken in front of the player (page 34)."""
        game.require(EXCHANGE_MODULE, event)
        take_token(game, event)

    def on_drop_teleporter(self, game: GameView, event: DropTeleporter) -> None:
        """The teleporter token laid in the holder's chamber (page 34)."""
        game.require(EXCHANGE_MODULE, event)
        drop_token(game, event)

    def on_use_teleporter(self, game: GameView, event: UseTeleporter) -> None:
        """A free teleport between the Teleporter chamber and the token (page 34)."""
        game.require(EXCHANGE_MODULE, event)
        teleport(game, event)

    def open_actions(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """The exchange, the token to take or lay, the teleport."""
        return _exchange_actions(game, player) + _teleporter_actions(game, player)

    def tell(self, game: GameView, event: Mapping[str, Any]) -> str | None:
        """The module's events in the table's words."""
        from rules.narrative import chamber_at, curse_name, treasure_name  # imports the engine

        kind = event.get("type")
        who = str(event.get("player", "someone")).capitalize()
        if kind == "exchange":
            card, drawn = curse_name(event.get("card")), treasure_name(event.get("treasure"))
            return f"{who} exchanges the curse {card} for a treasure: the {drawn}"
        if kind == "take_teleporter":
            return f"{who} takes the teleporter token"
        where = chamber_at(game, event.get("cell"))  # type: ignore[arg-type]
        if kind == "drop_teleporter":
            return f"{who} lays the teleporter token in {where}"
        if kind == "use_teleporter":
            return f"{who} teleports to {where} (teleporter)"
        return None

    def tile_marks(self, game: GameView, placed: PlacedTile) -> list[dict[str, Any]]:
        """The teleporter token where it lies."""
        if token_chamber(game) is not placed:
            return []
        if placed.tile.feature == TELEPORTER:
            label = "teleporter token: take it, then lay it in another chamber"
        else:
            label = "teleporter token: teleport free between here and the Teleporter chamber"
        return [{"token": "teleporter", "label": label}]

    def player_marks(self, game: GameView, player: PlayerState) -> list[dict[str, Any]]:
        """The teleporter token in front of its holder."""
        if ex_state(game).token_holder != player.player_id:
            return []
        return [
            {
                "token": "teleporter",
                "label": "teleporter token: lay it in a chamber you stand in (not the "
                "Teleporter chamber)",
            }
        ]

    def reminders(self, game: GameView) -> list[str]:
        """A teleporter token that still lies in its own chamber links nothing."""
        gate = chamber_with(game, TELEPORTER)
        if gate is not None and token_chamber(game) is gate:
            return [
                "Teleporter chamber: take its token and lay it in another chamber to open the "
                "teleport between them"
            ]
        return []


# ----- open actions (rules/actions.py asks for them through the protocol) ------------------


def _exchange_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    """`exchange a curse for a treasure`, a choice for each curse and treasure drawn."""
    if not stands_in(game, player, EXCHANGE):
        return []
    from rules.narrative import curse_name  # here: it imports the engine

    pid = player.player_id
    tiles = treasures_in_play(game.setup.modules)
    choices = [
        {
            "name": f"{curse_name(card)} for the {tile.name}",
            "note": "the curse is discarded; the treasure is the tile you drew",
            "event": {"type": "exchange", "player": pid, "card": card, "treasure": treasure},
        }
        for card in dict.fromkeys(player.curses)
        for treasure, tile in tiles.items()
    ]
    blocked = None
    if pid in exchanged(game):
        blocked = "exchanged already: leave the chamber and come back to exchange again"
    elif not player.curses:
        blocked = "no curse in front of you to exchange"
    base = {"type": "exchange", "player": pid}
    return [
        OpenAction(
            "exchange",
            "exchange a curse for a treasure",
            base,
            blocked=blocked,
            choices=choices,
        )
    ]


def _teleporter_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    """Take the token, lay it, or teleport."""
    state = ex_state(game)
    pid = player.player_id
    found: list[OpenAction] = []
    lying = token_chamber(game)
    if lying is not None and player.cell == lying.cell:
        found.append(
            OpenAction(
                "take_teleporter",
                "take the teleporter token",
                {"type": "take_teleporter", "player": pid},
            )
        )
    if state.token_holder == pid:
        assert player.cell is not None
        gate = stands_in(game, player, TELEPORTER)
        found.append(
            OpenAction(
                "drop_teleporter",
                "lay the teleporter token here",
                {"type": "drop_teleporter", "player": pid, "cell": list(player.cell)},
                blocked="lay it in another chamber than the Teleporter chamber" if gate else None,
            )
        )
    target = teleport_target(game, player)
    if target is not None:
        held = next(
            (why for hook in game.module_hooks("held_back") if (why := hook(game, player, False))),
            None,
        )
        found.append(
            OpenAction(
                "use_teleporter",
                f"teleport to {target.tile.name} (free)",
                {"type": "use_teleporter", "player": pid, "cell": list(target.cell)},
                blocked=held,
            )
        )
    return found


MODULE = ExchangeModule
