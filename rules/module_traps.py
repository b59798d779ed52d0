"""Big Box module 7 (Trap chambers, pages 22-23): the two cliffs, the invocation chamber, the
slide trap and the moving platform, and the checks the engine calls (pure Python, no I/O)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from rules import event_values as read
from rules.catalog import TileDef
from rules.errors import Rejection
from rules.event_values import EventValue, Field
from rules.module_protocol import GameView, Module
from rules.open_action import OpenAction, describe_icons, priced
from rules.vocabulary import ADVENTURER, KEY, TORCH, Cell, neighbour, opposite

if TYPE_CHECKING:
    from rules.engine import PlayerState
    from rules.game_setup import Setup
    from rules.temple import PlacedTile

TRAPS_MODULE = "traps"
TRAP_NAMES: Mapping[str, str] = {
    "cliff-torch": "Cliff (torches)",
    "cliff-key": "Cliff (keys)",
    "invocation": "Invocation chamber",
    "slide": "Slide trap",
    "platform": "Moving platform",
}
"""The five trap chambers (page 22), by the id a setup line's `traps` uses."""
TRAP_EFFECTS: Mapping[str, str] = {
    "cliff-torch": "its discoverer is stuck on the cliff until he rolls 3 torches by himself",
    "cliff-key": "its discoverer is stuck on the cliff until he rolls 3 keys by himself",
    "invocation": "everyone is summoned into it when found; later 3 keys there summon everyone",
    "slide": "nobody leaves it by its tilted stairway: find another way out",
    "platform": "it moves clockwise round the temple with its discoverer until its stairway "
    "meets a door",
}
CLIMB: Mapping[str, Counter[str]] = {
    "cliff-torch": Counter({TORCH: 3}),
    "cliff-key": Counter({KEY: 3}),
}
"""What gets a player off a cliff, by himself (page 23)."""
SUMMON: Counter[str] = Counter({KEY: 3})
"""What summons every adventurer into the invocation chamber (page 23)."""


class Climb(EventValue):
    """A player stuck on a cliff rolls its 3 icons by himself and climbs down."""

    type_name = "climb"
    player = Field(read.player)


class Summon(EventValue):
    """A player in the invocation chamber rolls 3 keys and summons every adventurer there."""

    type_name = "summon"
    player = Field(read.player)


class Platform(EventValue):
    """The moving platform moves with its adventurers to where its stairway meets a door (the
    record names the player who moved it; the rules need only where it went)."""

    type_name = "platform"
    cell = Field(read.cell)


def trap_chambers(traps: tuple[str, ...] | list[str] | None = None) -> dict[str, TileDef]:
    """Return the trap chambers in play (all five when `traps` is None). Doors and entry icons
    are editable defaults; the discoverer enters a trap chamber without paying its red frame."""
    chosen = list(TRAP_NAMES) if traps is None else list(traps)
    doors = {
        "cliff-torch": frozenset({"N", "E"}),
        "cliff-key": frozenset({"N", "W"}),
        "invocation": frozenset({"N", "E", "W"}),
        "slide": frozenset({"N", "E", "W"}),
        "platform": frozenset({"N"}),
    }
    return {
        f"trap-{t}": TileDef(
            f"trap-{t}", TRAP_NAMES[t], "chamber", doors[t], (ADVENTURER, ADVENTURER), trap=t
        )
        for t in chosen
    }


@dataclass
class TrapState:
    """Module 7's part of a game: the trap chambers in play, who is stuck where."""

    traps: tuple[str, ...]
    on_cliff: list[str] = field(default_factory=list)
    """Players stuck on a cliff (page 23)."""
    platform_waits: bool = False
    """The moving platform has not moved yet: whoever is on it cannot move."""

    def to_json(self) -> dict[str, Any]:
        """Return module 7's part of the state, as `replay --json` shows it."""
        return {
            "traps": list(self.traps),
            "on_cliff": list(self.on_cliff),
            "platform_waits": self.platform_waits,
        }


def trap_of(game: GameView, tile: TileDef) -> str | None:
    """The tile's trap when module 7 is in play (a game without it ignores the field)."""
    return tile.trap if game.traps is not None else None


def trap_at(game: GameView, cell: Cell | None) -> str | None:
    """The trap of the chamber at `cell`, if any."""
    placed = None if cell is None else game.temple.at(cell)
    return None if placed is None else trap_of(game, placed.tile)


def stuck(game: GameView, player: PlayerState, discovering: bool = False) -> str | None:
    """Why the player may not move at all now (on a cliff, or on the moving platform before
    it moved), or None. A player on a cliff may still discover: page 23 only forbids leaving
    the chamber, and a discoverer stays where he is."""
    state = game.traps
    if state is None or player.cell is None:
        return None
    if player.player_id in state.on_cliff and not discovering:
        return "stuck on the cliff until he rolls his way down by himself"
    if trap_at(game, player.cell) == "platform" and state.platform_waits:
        return "on the moving platform until it moved"
    return None


def check_leave(
    game: GameView, player: PlayerState, there: Cell | None, doing: str, discovering: bool = False
) -> None:
    """A player on a cliff, or on the moving platform before it moved, stays; nobody leaves
    the slide trap by its tilted stairway (page 23)."""
    why = stuck(game, player, discovering)
    if why is not None:
        raise Rejection(f"{player.player_id} may not {doing}: {why}")
    kind = trap_at(game, player.cell)
    if kind == "slide" and there is not None and player.cell is not None:
        placed = game.temple.at(player.cell)
        assert placed is not None
        if there == neighbour(player.cell, placed.stairs):
            raise Rejection("nobody leaves the slide trap by its tilted stairway")


def on_discover(game: GameView, player: PlayerState, tile: TileDef, cell: Cell) -> None:
    """A trap chamber discovered: its discoverer is placed inside at once (the invocation
    chamber summons every adventurer; a cliff holds him; the platform waits to move)."""
    state = game.traps
    kind = trap_of(game, tile)
    if state is None or kind is None:
        return
    player.cell, player.rear = cell, False
    if player.player_id in state.on_cliff:
        # A player stuck on a cliff may discover (page 23 forbids only leaving); a trap
        # chamber he finds takes him in at once, so he is off the old cliff.
        state.on_cliff.remove(player.player_id)
    if kind in CLIMB:
        state.on_cliff.append(player.player_id)
    elif kind == "invocation":
        _summon_all(game, cell)
    elif kind == "platform":
        state.platform_waits = True


def _summon_all(game: GameView, cell: Cell) -> None:
    state = game.traps
    assert state is not None
    for other in game.players.values():
        if other.inside:
            other.cell, other.rear = cell, False
    state.on_cliff.clear()


def climb(game: GameView, event: Climb) -> None:
    """A player on a cliff rolls its 3 icons by himself and climbs down (page 23)."""
    state = game.traps
    assert state is not None
    player = game.still_inside(game.players[event.player])
    if player.player_id not in state.on_cliff:
        raise Rejection(f"{player.player_id} is not stuck on a cliff")
    kind = trap_at(game, player.cell)
    assert kind is not None and kind in CLIMB
    plan, spends = game.charge(event, [player], Counter(CLIMB[kind]), "to climb down (alone)")
    game.settle(plan, spends)
    state.on_cliff.remove(player.player_id)


def summon(game: GameView, event: Summon) -> None:
    """A player in the invocation chamber rolls 3 keys: every adventurer comes (page 23)."""
    player = game.still_inside(game.players[event.player])
    if trap_at(game, player.cell) != "invocation":
        raise Rejection(f"{player.player_id} is not in the invocation chamber")
    plan, spends = game.charge(event, [player], Counter(SUMMON), "to summon everyone")
    game.settle(plan, spends)
    assert player.cell is not None
    _summon_all(game, player.cell)


def platform_spots(game: GameView) -> list[Cell]:
    """The empty cells where the moving platform, turned as it lies, has its stairway facing
    an open door of another chamber (the table moves it clockwise to the first of them)."""
    placed = next((p for p in game.temple if trap_of(game, p.tile) == "platform"), None)
    if placed is None:
        return []
    stairs = placed.stairs
    spots: set[Cell] = set()
    for other in game.temple:
        if other is placed:
            continue
        for side in other.open_sides:
            cell = neighbour(other.cell, side)
            if game.temple.at(cell) is None and opposite(side) == stairs:
                spots.add(cell)
    return sorted(spots)


def move_platform(game: GameView, event: Platform) -> None:
    """The moving platform goes with its adventurers to `cell` (page 23)."""
    state = game.traps
    assert state is not None
    cell = event.cell
    placed = next((p for p in game.temple if trap_of(game, p.tile) == "platform"), None)
    if placed is None:
        raise Rejection("the moving platform is not in the temple")
    if not state.platform_waits:
        raise Rejection("the moving platform already moved")
    if cell not in platform_spots(game):
        raise Rejection(
            f"{list(cell)} is no spot for the moving platform: its stairway must meet an open "
            "door there, the platform turned as it lies"
        )
    riders = [p for p in game.players.values() if p.inside and p.cell == placed.cell]
    gems = placed.gems
    game.temple.remove(placed.cell)
    moved = game.temple.place(placed.tile, cell, placed.stairs)
    moved.gems = gems
    for rider in riders:
        rider.cell = cell
    # A Secret passage lay on the wall between the platform and its neighbour: it goes with it.
    game.secret_passages = [(a, b) for a, b in game.secret_passages if placed.cell not in (a, b)]
    state.platform_waits = False


def progress(game: GameView) -> list[dict[str, str]]:
    """Reminders for the traps lying in the temple (for the dashboard)."""
    state = game.traps
    if state is None:
        return []
    rows = []
    for pid in state.on_cliff:
        kind = trap_at(game, game.players[pid].cell)
        icons = "3 torches" if kind == "cliff-torch" else "3 keys"
        rows.append(
            {
                "kind": "trap-cliff",
                "text": f"{pid.capitalize()} is stuck on the cliff: {icons} by himself to climb "
                "down (others may only give golden masks)",
            }
        )
    for placed in game.temple:
        kind = trap_of(game, placed.tile)
        if kind == "platform" and state.platform_waits:
            rows.append(
                {
                    "kind": "trap-platform",
                    "text": "The moving platform waits: move it clockwise round the temple to "
                    "the first spot where its stairway meets a door",
                }
            )
        elif kind == "slide":
            rows.append(
                {"kind": "trap-slide", "text": "Slide trap: nobody leaves it by its stairway"}
            )
        elif kind == "invocation":
            rows.append(
                {
                    "kind": "trap-invocation",
                    "text": "Invocation chamber: 3 keys there summon every adventurer",
                }
            )
    return rows


class TrapsModule(Module):
    """Module 7 behind the module protocol."""

    id = TRAPS_MODULE
    event_types = ("climb", "summon", "platform")
    event_classes = (Climb, Summon, Platform)
    state_attr = "traps"
    hook_order: ClassVar[Mapping[str, int]] = {"on_discover": 40}

    @classmethod
    def create_state(cls, setup: Setup) -> TrapState:
        """The trap chambers chosen, nobody on a cliff."""
        return TrapState(setup.traps)

    def state_json(self, game: GameView) -> dict[str, Any]:
        """Module 7's part of the state."""
        return game.traps.to_json()  # type: ignore[no-any-return]

    def on_climb(self, game: GameView, event: Climb) -> None:
        """Off the cliff with its 3 icons, rolled alone (page 23)."""
        game.require(TRAPS_MODULE, event)
        climb(game, event)

    def on_summon(self, game: GameView, event: Summon) -> None:
        """3 keys in the invocation chamber summon every adventurer (page 23)."""
        game.require(TRAPS_MODULE, event)
        summon(game, event)

    def on_platform(self, game: GameView, event: Platform) -> None:
        """The moving platform moved round the temple to where its stairway meets a door."""
        game.require(TRAPS_MODULE, event)
        move_platform(game, event)

    def check_leave(
        self, game: GameView, player: PlayerState, there: Cell | None, doing: str, discovering: bool
    ) -> None:
        """A cliff or the waiting platform holds the player; the slide's stairway is shut."""
        check_leave(game, player, there, doing, discovering=discovering)

    def on_discover(self, game: GameView, player: PlayerState, tile: TileDef, cell: Cell) -> None:
        """The discoverer of a trap chamber is placed inside at once."""
        on_discover(game, player, tile, cell)

    def held_back(self, game: GameView, player: PlayerState, discovering: bool) -> str | None:
        """A cliff, or the waiting platform."""
        return stuck(game, player, discovering=discovering)

    def shut_side(
        self, game: GameView, player: PlayerState, chamber: PlacedTile, side: str, passage: bool
    ) -> bool:
        """Nobody leaves the slide trap by its stairway."""
        return not passage and side == chamber.stairs and trap_of(game, chamber.tile) == "slide"

    def open_actions(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """Off a cliff, the invocation's summons, the moving platform."""
        return _trap_actions(game, player)


# ----- open actions (rules/actions.py asks for them through the protocol) ---------------


def _trap_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    """Off a cliff, the invocation's summons, the moving platform (module 7, page 23)."""
    state = game.traps
    assert state is not None
    pid = player.player_id
    kind = trap_at(game, player.cell)
    found: list[OpenAction] = []
    if pid in state.on_cliff and kind is not None and kind in CLIMB:
        need = CLIMB[kind]
        found.append(
            priced(
                game,
                [player],
                need,
                "climb",
                f"climb down the cliff ({describe_icons(need)} by yourself)",
                {"type": "climb", "player": pid},
            )
        )
    if kind == "invocation":
        found.append(
            priced(
                game,
                [player],
                SUMMON,
                "summon",
                "summon every adventurer here (3 keys)",
                {"type": "summon", "player": pid},
            )
        )
    if kind == "platform" and state.platform_waits:
        from rules.narrative import place_name  # here: it imports the engine

        spots = platform_spots(game)
        found.append(
            OpenAction(
                "platform",
                "move the platform clockwise to where its stairway meets a door",
                {"type": "platform", "player": pid},
                blocked=None if spots else "no spot yet: wait for a chamber with a door",
                choices=[
                    {
                        "name": place_name(cell, game.temple.start_cell()).capitalize(),
                        "note": "its stairway meets a door there",
                        "event": {"type": "platform", "player": pid, "cell": list(cell)},
                    }
                    for cell in spots
                ],
            )
        )
    return found
