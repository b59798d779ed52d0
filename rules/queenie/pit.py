"""Queenie: The Pit (Big Box page 26): a chamber where one player collects 5 black masks by
himself to activate 2 gems, and the curse cards Lost treasure and Really cursed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from rules import event_values as read
from rules.catalog import TileDef
from rules.errors import Rejection
from rules.event_values import EventValue, Field
from rules.module_protocol import GameView, Module
from rules.modules import CurseCard, treasures_in_play
from rules.odds import as_need, roll_odds
from rules.open_action import OpenAction
from rules.temple import PlacedTile
from rules.vocabulary import ADVENTURER, BLACK_MASK, GOLDEN_MASK, KEY, TORCH, Cell, plural

if TYPE_CHECKING:
    from rules.engine import PlayerState

PIT = "pit"
PIT_MASKS = 5
"""Black masks the player collects by himself (page 26)."""
PIT_GEMS = 2
"""Gems the Pit activates (page 26)."""
LOST_TREASURE = "lost_treasure"
REALLY_CURSED = "really_cursed"


class Pit(EventValue):
    """A player in the Pit shows 5 black masks of his own dice: its 2 gems are activated."""

    type_name = "pit"
    player = Field(read.player)


class PitModule(Module):
    """The Pit: 2 gems for 5 black masks rolled by one player; two new curses."""

    id = PIT
    title = "The Pit"
    summary = (
        "The Pit joins the draw pile: a player inside who collects 5 black masks by himself "
        "activates 2 gems (and then needs the others' golden masks). Adds the curses Lost "
        "treasure and Really cursed."
    )
    rulebook = "Big Box page 26"
    event_types = ("pit",)
    event_classes = (Pit,)
    hook_order: ClassVar[Mapping[str, int]] = {"on_discover": 85}
    curse_cards = (
        CurseCard(
            LOST_TREASURE,
            "Lost treasure",
            "discard one of your treasure tiles at once without using it, then this curse",
            (KEY, TORCH),
            PIT,
        ),
        CurseCard(
            REALLY_CURSED,
            "Really cursed",
            "each time you must draw a new curse card, draw two instead",
            (GOLDEN_MASK, KEY, TORCH),
            PIT,
        ),
    )

    @classmethod
    def chambers(cls) -> dict[str, TileDef]:
        """The Pit (doors and entry icons are editable defaults: the text does not give them)."""
        return {
            PIT: TileDef(
                PIT,
                "Pit",
                "chamber",
                frozenset({"N", "E", "W"}),
                (ADVENTURER, TORCH),
                feature=PIT,
            )
        }

    def on_pit(self, game: GameView, event: Pit) -> None:
        """The player shows 5 black masks by himself in the Pit: 2 gems are activated."""
        player = game.still_inside(game.players[event.player])
        chamber = _pit_of(game, player)
        why = pit_refusal(game, player, chamber)
        if why:
            raise Rejection(why)
        for hook in game.module_hooks("check_activate"):
            hook(game, chamber, [player])
        game.check_allowed("gems")
        game.depot -= PIT_GEMS
        chamber.gems = PIT_GEMS

    def on_discover(self, game: GameView, player: PlayerState, tile: TileDef, cell: Cell) -> None:
        """Really cursed: a purple mask discovered owes a second curse card (after module 1's
        first one)."""
        if tile.curse and not tile.illusion and REALLY_CURSED in player.curses:
            player.curses_to_draw += 1

    def curse_drawn(
        self, game: GameView, player: PlayerState, card: CurseCard, event: Mapping[str, Any]
    ) -> bool:
        """Lost treasure: the player discards a treasure tile (`treasure`), then the curse."""
        if card.card_id != LOST_TREASURE:
            return False
        if not player.treasures:
            return True  # "you're already in bad shape": the curse is simply discarded
        treasure = event.get("treasure")
        names = treasures_in_play(game.setup.modules)
        if treasure is None:
            held = list(dict.fromkeys(player.treasures))
            if len(held) > 1:
                raise Rejection(
                    f"{player.player_id} drew Lost treasure: say which treasure tile he "
                    f"discards ({', '.join(names[t].name for t in held)})"
                )
            treasure = held[0]
        if treasure not in player.treasures:
            name = names[treasure].name if treasure in names else repr(treasure)
            raise Rejection(f"{player.player_id} holds no {name} to discard for Lost treasure")
        player.treasures.remove(treasure)
        return True

    def open_actions(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """Activating the Pit's gems, for a player inside it."""
        chamber = _pit_here(game, player)
        if chamber is None or chamber.gems:
            return []
        event = {"type": "pit", "player": player.player_id}
        label = f"activate 2 gems with {PIT_MASKS} black masks (by yourself)"
        blocked = None if game.depot >= PIT_GEMS else _depot_short(game)
        try:
            game.check_allowed("gems")
        except Rejection as forbidden:
            blocked = blocked or forbidden.reason
        if not game.setup.track_dice:
            return [OpenAction("pit", label, event, blocked=blocked)]
        short = PIT_MASKS - player.locked
        if short <= 0:
            return [
                OpenAction(
                    "pit", label, event, blocked=blocked, chance_next_roll=1.0, expected_rolls=0.0
                )
            ]
        if player.dice < PIT_MASKS:
            blocked = blocked or f"{player.player_id} holds fewer than {PIT_MASKS} dice"
        missing = {BLACK_MASK: short}
        chance, rolls = roll_odds(player.free_dice, as_need(missing))
        return [
            OpenAction(
                "pit",
                label,
                event,
                missing=missing,
                blocked=blocked,
                chance_next_roll=chance,
                expected_rolls=rolls,
            )
        ]

    def tell(self, game: GameView, event: Mapping[str, Any]) -> str | None:
        """Say the Pit's event."""
        if event.get("type") != "pit":
            return None
        return f"{_who(event)} collects {PIT_MASKS} black masks in the Pit: 2 gems activated"

    def reminders(self, game: GameView) -> list[str]:
        """The rulebook's note on the Pit, and the Really cursed draws."""
        found = []
        pit = _placed_pit(game)
        if pit is not None and not pit.gems:
            found.append(
                "The Pit: enter it together: whoever rolls the 5 black masks needs the "
                "others' golden masks afterwards"
            )
        for player in game.players.values():
            if player.inside and REALLY_CURSED in player.curses:
                found.append(
                    f"{player.player_id} is Really cursed: draw two curse cards for each one"
                )
        return found

    def tile_marks(self, game: GameView, placed: PlacedTile) -> list[dict[str, Any]]:
        """The Pit's two gem spaces, until activated."""
        if placed.tile.feature != PIT or placed.gems:
            return []
        return [
            {
                "token": "pit",
                "label": f"the Pit: roll {PIT_MASKS} black masks by yourself to activate 2 gems",
                "count": PIT_GEMS,
            }
        ]

    def player_marks(self, game: GameView, player: PlayerState) -> list[dict[str, Any]]:
        """The Really cursed card lying in front of the player."""
        if REALLY_CURSED not in player.curses:
            return []
        return [{"token": "really-cursed", "label": "Really cursed: draws two curse cards"}]


def pit_refusal(game: GameView, player: PlayerState, chamber: PlacedTile) -> str | None:
    """Why the player may not activate the Pit's gems now, or None."""
    if chamber.gems:
        return f"the Pit already has {plural(chamber.gems, 'gem')} activated"
    if game.depot < PIT_GEMS:
        return _depot_short(game)
    if game.setup.track_dice and player.locked < PIT_MASKS:
        return (
            f"{player.player_id} shows {plural(player.locked, BLACK_MASK)}: the Pit's gems take "
            f"{PIT_MASKS} black masks of his own dice"
        )
    return None


def _depot_short(game: GameView) -> str:
    return f"the depot holds only {plural(game.depot, 'gem')}, the Pit activates {PIT_GEMS}"


def _pit_here(game: GameView, player: PlayerState) -> PlacedTile | None:
    placed = None if player.cell is None else game.temple.at(player.cell)
    return placed if placed is not None and placed.tile.feature == PIT else None


def _pit_of(game: GameView, player: PlayerState) -> PlacedTile:
    placed = _pit_here(game, player)
    if placed is None:
        raise Rejection(f"{player.player_id} is not in the Pit")
    return placed


def _placed_pit(game: GameView) -> PlacedTile | None:
    return game.temple.with_feature(PIT)


def _who(event: Mapping[str, Any]) -> str:
    """The player an event names, as the log writes names (`Red`)."""
    pid = event.get("player")
    return pid.capitalize() if isinstance(pid, str) and pid else "?"


MODULE = PitModule
