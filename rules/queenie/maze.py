"""Queenie: The Maze (Big Box pages 29-30): the mirage chamber moves the start, the gear chamber
slides a row or column of the temple, two curses that cannot be removed and three treasures."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rules import event_values as read
from rules.catalog import TileDef
from rules.errors import Rejection
from rules.event_values import EventValue, Field, FieldRead
from rules.module_protocol import GameView, Module, Spends
from rules.modules import CurseCard, TreasureTile, treasures_in_play
from rules.open_action import OpenAction, changed, priced
from rules.temple import PlacedTile
from rules.vocabulary import ADVENTURER, OFFSETS, SIDES, TORCH, Cell, neighbour, side_towards

if TYPE_CHECKING:
    from rules.engine import PlayerState
    from rules.game_setup import Setup

MAZE_MODULE = "maze"
MIRAGE = "mirage"
GEAR = "gear"
GEAR_COST: Counter[str] = Counter({TORCH: 2})
"""What turns the gears, rolled in the gear chamber (page 29)."""
UNREMOVABLE = ("weakest_link", "misinformation")
"""The maze's curses: neither can be removed (page 30)."""
OWN_TREASURES = ("short_cut", "time_out", "genie_lamp")
"""The maze's treasures, each used with its own event or field rather than module 2's `use`."""
SIDE_WORDS: Mapping[str, str] = {"N": "north", "E": "east", "S": "south", "W": "west"}


# ----- the maze's events -------------------------------------------------------------------


def _optional_side(seen: FieldRead) -> str | None:
    """A side N, E, S or W, or None when the field is absent."""
    if not seen.present:
        return None
    if seen.value not in SIDES:
        raise Rejection(f"'{seen.name}' must be one of N, E, S, W")
    return str(seen.value)


class Mirage(EventValue):
    """The mirage chamber's discoverer places the starting chamber next to his chamber."""

    type_name = "mirage"
    player = Field(read.player)
    cell = Field(read.cell)
    """Where the starting chamber goes."""
    stairs = Field(_optional_side)
    """The side its stairway faces (None: the side towards the discoverer's chamber)."""


class Gear(EventValue):
    """2 torches in the gear chamber slide a row or a column of the temple one chamber on."""

    type_name = "gear"
    players = Field(
        read.player_ids("'players' must list who rolls the 2 torches in the gear chamber")
    )
    row = Field(read.optional_whole)
    """The y of the row that slides (or a `column` instead)."""
    column = Field(read.optional_whole)
    """The x of the column that slides (or a `row` instead)."""
    towards = Field(
        read.one_of(SIDES, "'towards' must be the side the line slides to: N, E, S or W")
    )

    @property
    def lines_named(self) -> list[str]:
        """Which of 'row' and 'column' the record holds (exactly one is right)."""
        return [name for name in ("row", "column") if name in self.raw]


class TimeOut(EventValue):
    """The Time out pauses the music (`phase` start), or play is pressed again (end)."""

    type_name = "time_out"
    phase = Field(
        read.one_of(("start", "end"), "'phase' must be start (pause the music) or end (press play)")
    )
    player = Field(read.player)
    """Who uses his Time out (read only when the music is paused)."""


class GenieLamp(EventValue):
    """The Genie lamp's holder takes the treasure he chose of the top 3."""

    type_name = "genie_lamp"
    player = Field(read.player)
    treasure = Field(read.any_value)
    """The treasure chosen (checked against the treasures in play, once the lamp is held)."""


@dataclass
class MazeState:
    """The maze's part of a game: a mirage swap to finish, a time out, a weakest link lost."""

    mirage_by: str | None = None
    """The discoverer of the mirage chamber, who must still place the starting chamber."""
    paused_by: str | None = None
    """The player whose Time out paused the music (nobody rolls until it ends)."""
    lost_to: str | None = None
    """The player whose Weakest link lost the game at a door slam."""

    def to_json(self) -> dict[str, Any]:
        """Return the maze's part of the state, as `replay --json` shows it."""
        return {
            "mirage_by": self.mirage_by,
            "paused_by": self.paused_by,
            "lost_to": self.lost_to,
        }


# ----- moving tiles ----------------------------------------------------------------------


def _is_cell(value: Any) -> bool:
    return (
        isinstance(value, tuple)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    )


def _moved(value: Any, moves: Mapping[Cell, Cell]) -> Any:
    """The value with every cell in `moves` replaced (a module's state, walked through its
    dataclasses, lists, tuples, sets and dicts): the same object when no cell in it moved;
    dataclasses are changed in place."""
    if _is_cell(value):
        return moves.get(value, value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            old = getattr(value, f.name)
            new = _moved(old, moves)
            if new is not old:
                setattr(value, f.name, new)
        return value
    if isinstance(value, list | tuple | set | frozenset):
        items = [_moved(v, moves) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            return type(value)(*items)  # a named tuple
        return type(value)(items)
    if isinstance(value, dict):
        pairs = [(_moved(k, moves), _moved(v, moves)) for k, v in value.items()]
        if all(k is a and v is b for (k, v), (a, b) in zip(pairs, value.items(), strict=True)):
            return value
        return dict(pairs)
    return value


def _state_attrs(game: GameView) -> list[str]:
    from rules.modules_registry import MODULES  # here: the registry imports this file

    return [
        cls.state_attr
        for module_id, cls in MODULES.items()
        if cls.state_attr is not None and module_id in game.setup.modules
    ]


def relay(
    game: GameView,
    placing: Mapping[Cell, tuple[Cell, str]],
    moves: Mapping[Cell, Cell],
    walkers: Mapping[Cell, Cell],
) -> None:
    """Lay the chambers at the cells of `placing` anew (cell and stairs), keeping the temple's
    order and their gems; what lies on a moved tile (treasure tiles, secret passages, every
    module's tokens and timers) goes where `moves` says, the players where `walkers` says."""
    tiles = list(game.temple)
    for placed in tiles:
        game.temple.remove(placed.cell)
    for placed in tiles:
        cell, stairs = placing.get(placed.cell, (placed.cell, placed.stairs))
        game.temple.place(placed.tile, cell, stairs).gems = placed.gems
    for player in game.players.values():
        if player.cell is not None:
            player.cell = walkers.get(player.cell, player.cell)
    game.treasure_cells[:] = [moves.get(c, c) for c in game.treasure_cells]
    passages = [(moves.get(a, a), moves.get(b, b)) for a, b in game.secret_passages]
    # A passage whose chambers were pulled apart joins nothing any more.
    game.secret_passages[:] = [(a, b) for a, b in passages if side_towards(a, b) is not None]
    for attr in _state_attrs(game):
        setattr(game, attr, _moved(getattr(game, attr), moves))


def _placed_with(game: GameView, feature: str) -> PlacedTile | None:
    return game.temple.with_feature(feature)


def state_of(game: GameView) -> MazeState:
    """The maze's state of a game that plays it."""
    state = getattr(game, "maze", None)
    assert isinstance(state, MazeState)
    return state


# ----- the mirage chamber (page 29) ---------------------------------------------------------


def mirage_spots(game: GameView) -> list[Cell]:
    """Where the mirage's discoverer may place the starting chamber: the empty cells next to
    the chamber he stands in, once the mirage took the start's place."""
    state = state_of(game)
    mirage = _placed_with(game, MIRAGE)
    if state.mirage_by is None or mirage is None:
        return []
    here = game.players[state.mirage_by].cell
    start = game.temple.start_cell()
    assert here is not None
    spots = [neighbour(here, side) for side in SIDES]
    return [c for c in spots if c != start and (game.temple.at(c) is None or c == mirage.cell)]


def swap_mirage(game: GameView, event: Mirage) -> None:
    """The mirage takes the starting chamber's place, turned as the start lay; the start goes
    next to the discoverer's chamber. The figures in the start stay where they stand: in the
    mirage now (page 29)."""
    state = state_of(game)
    player = game.still_inside(game.players[event.player])
    if state.mirage_by is None:
        raise Rejection("no mirage chamber waits to swap with the starting chamber")
    if player.player_id != state.mirage_by:
        raise Rejection(
            f"{state.mirage_by} discovered the mirage chamber: he places the starting chamber"
        )
    cell = event.cell
    if cell not in mirage_spots(game):
        raise Rejection(
            "the starting chamber goes on an empty spot next to the chamber "
            f"{player.player_id} stands in"
        )
    here = player.cell
    assert here is not None
    stairs = event.stairs or side_towards(cell, here)
    assert stairs is not None  # every mirage spot lies next to his chamber
    mirage = _placed_with(game, MIRAGE)
    start = game.temple.at(game.temple.start_cell())
    assert mirage is not None and start is not None
    placing = {start.cell: (cell, stairs), mirage.cell: (start.cell, start.stairs)}
    # Whoever stood in the start now stands in the mirage; anyone in the mirage goes with it.
    walkers = {mirage.cell: start.cell}
    relay(game, placing, {start.cell: cell, mirage.cell: start.cell}, walkers)
    state.mirage_by = None


# ----- the gear chamber (page 29) -----------------------------------------------------------


def _line_of(event: Gear) -> tuple[str, int]:
    """The row (`row`: y) or the column (`column`: x) a gear event slides."""
    given = event.lines_named
    if len(given) != 1:
        raise Rejection("the gear event names either a 'row' (its y) or a 'column' (its x)")
    number = event.row if given[0] == "row" else event.column
    assert number is not None  # the record holds that field
    return given[0], number


def _line_tiles(game: GameView, kind: str, number: int) -> list[PlacedTile]:
    axis = 1 if kind == "row" else 0
    return [p for p in game.temple if p.cell[axis] == number]


def slide_blocker(game: GameView, tiles: list[PlacedTile], towards: str) -> PlacedTile | None:
    """The chamber that stands in the way of the line sliding `towards`, if any."""
    cells = {p.cell for p in tiles}
    for placed in tiles:
        there = game.temple.at(neighbour(placed.cell, towards))
        if there is not None and there.cell not in cells:
            return there
    return None


def _gear_payers(game: GameView, event: Gear) -> list[PlayerState]:
    payers = [game.still_inside(game.players[pid]) for pid in event.players]
    if len({p.player_id for p in payers}) != len(payers):
        raise Rejection("each player may be listed only once in 'players'")
    gear = _placed_with(game, GEAR)
    for payer in payers:
        if gear is None or payer.cell != gear.cell:
            raise Rejection(f"{payer.player_id} is not inside the Gear chamber")
    return payers


def turn_gears(game: GameView, event: Gear) -> None:
    """2 torches in the gear chamber slide a whole row or column one chamber further, every
    chamber the same way, the players with them (page 29)."""
    payers = _gear_payers(game, event)
    state = state_of(game)
    if state.mirage_by is not None:
        raise Rejection(f"{state.mirage_by} must first place the starting chamber (mirage)")
    kind, number = _line_of(event)
    towards = event.towards
    tiles = _line_tiles(game, kind, number)
    if not tiles:
        raise Rejection(f"there is no chamber in that {kind}")
    blocker = slide_blocker(game, tiles, towards)
    if blocker is not None:
        raise Rejection(
            f"the {kind} cannot slide {SIDE_WORDS[towards]}: {blocker.tile.name} is in the way"
        )
    plan, spends = game.charge(event, payers, Counter(GEAR_COST), "to turn the gears")
    game.settle(plan, spends)
    moves = {p.cell: neighbour(p.cell, towards) for p in tiles}
    placing = {p.cell: (moves[p.cell], p.stairs) for p in tiles}
    relay(game, placing, moves, moves)


def gear_choices(game: GameView, payers: list[str]) -> list[dict[str, Any]]:
    """Every row and column that may slide, each way it may go, as the dashboard's choices."""
    from rules.narrative import cell_place_name  # here: it imports the engine

    start = game.temple.start_cell()
    taken = {p.cell for p in game.temple}
    found = []
    for kind, axis in (("row", 1), ("column", 0)):
        lines: dict[int, list[PlacedTile]] = {}
        for placed in game.temple:  # each line's chambers in temple order, as `_line_tiles`
            lines.setdefault(placed.cell[axis], []).append(placed)
        for number in sorted(lines):
            tiles = lines[number]
            head = note = ""
            for towards, (dx, dy) in _SLIDES:
                # `slide_blocker`'s test on the cells: a chamber beside one of the line's and not
                # in the line; sliding along the line, the chamber beside is always in it
                if (dy if axis == 1 else dx) and _any_beside(tiles, dx, dy, taken):
                    continue
                if not head:  # once a line: every way of it goes through this chamber
                    through = cell_place_name(tiles[0].cell, start)
                    head = f"the {kind} through {tiles[0].tile.name} ({through}) one chamber "
                    note = f"{len(tiles)} chambers move"
                found.append(
                    {
                        "name": head + SIDE_WORDS[towards],
                        "note": note,
                        "event": {
                            "type": "gear",
                            "players": payers,
                            kind: number,
                            "towards": towards,
                        },
                    }
                )
    return found


_SLIDES = tuple((side, OFFSETS[side]) for side in SIDES)
"""Each way a line may slide, in `SIDES` order, and the step it makes."""


def _any_beside(tiles: list[PlacedTile], dx: int, dy: int, taken: set[Cell]) -> bool:
    """Tell whether a chamber lies a step (`dx`, `dy`) from one of `tiles`."""
    for placed in tiles:
        x, y = placed.cell
        if (x + dx, y + dy) in taken:
            return True
    return False


# ----- the treasures (page 30) --------------------------------------------------------------


def _holding(player: PlayerState, treasure: str, name: str) -> None:
    if treasure not in player.treasures:
        raise Rejection(f"{player.player_id} holds no {name}")


def time_out(game: GameView, event: TimeOut) -> None:
    """The Time out pauses the music (`phase` start) until play is pressed (`phase` end)."""
    state = state_of(game)
    if event.phase == "end":
        if state.paused_by is None:
            raise Rejection("the music is not paused: no Time out to end")
        state.paused_by = None
        return
    player = game.still_inside(game.players[event.player])
    if state.paused_by is not None:
        raise Rejection(f"the music is already paused ({state.paused_by}'s Time out)")
    _holding(player, "time_out", "Time out")
    player.treasures.remove("time_out")
    state.paused_by = player.player_id


def genie_lamp(game: GameView, event: GenieLamp) -> None:
    """The Genie lamp takes the treasure the player chose of the top 3 (page 30)."""
    player = game.still_inside(game.players[event.player])
    _holding(player, "genie_lamp", "Genie lamp")
    chosen = event.treasure
    tiles = treasures_in_play(game.setup.modules)
    if chosen is None:
        raise Rejection("the genie_lamp event needs a 'treasure' field: the one chosen")
    if chosen not in tiles:
        raise Rejection(f"unknown treasure {chosen!r} (treasures: {', '.join(tiles)})")
    player.treasures.remove("genie_lamp")
    player.treasures.append(str(chosen))


def _short_cut_spends(event: Mapping[str, Any], payers: list[PlayerState]) -> Spends:
    if event.get("short_cut") is not True:
        raise Rejection("'short_cut' must be true: the Short cut is used with this discovery")
    if event.get("type") != "discover":
        raise Rejection("the Short cut is used when discovering a chamber")
    player = payers[0]
    _holding(player, "short_cut", "Short cut")
    return [(player, "short_cut")]


# ----- what the rules refuse ------------------------------------------------------------


def refusal(game: GameView, event: Mapping[str, Any]) -> str | None:
    """Why the maze refuses an event of another type now, or None."""
    kind = event.get("type")
    state = state_of(game)
    if kind == "dice" and state.paused_by is not None:
        return (
            f"the music is paused ({state.paused_by}'s Time out): nobody rolls until play is "
            "pressed again"
        )
    if kind == "lift" and event.get("card") in UNREMOVABLE:
        name = CURSES[str(event["card"])].name
        return f"the curse {name} cannot be removed"
    if kind == "use" and event.get("treasure") in OWN_TREASURES:
        return {
            "short_cut": "the Short cut is used with a discovery: discover with short_cut true",
            "time_out": "the Time out is used with a time_out event (phase start)",
            "genie_lamp": "the Genie lamp is used with a genie_lamp event naming the treasure "
            "chosen",
        }[str(event["treasure"])]
    return None


def weakest_link_loses(game: GameView, start: Cell) -> None:
    """At a door slam, a player cursed with the Weakest link outside the starting chamber loses
    the game for everybody (page 30)."""
    safe = {start}
    for hook in game.module_hooks("safe_cells"):
        safe |= hook(game, start)
    for player in game.players.values():
        if player.inside and "weakest_link" in player.curses and player.cell not in safe:
            state_of(game).lost_to = player.player_id
            game.outcome = "lost"
            return


CURSES: Mapping[str, CurseCard] = {
    card.card_id: card
    for card in (
        CurseCard(
            "weakest_link",
            "Weakest link",
            "cannot be removed: not back in the starting chamber at the end of countdown 1 or "
            "2, everybody loses at once",
            (),
            MAZE_MODULE,
            liftable=False,
        ),
        CurseCard(
            "misinformation",
            "Misinformation",
            "cannot be removed: yell 'I found the exit' twice at every chamber you discover",
            (),
            MAZE_MODULE,
            liftable=False,
        ),
    )
}
"""The maze's two curses, two copies each (page 30)."""

TREASURE_TILES: tuple[TreasureTile, ...] = (
    TreasureTile(
        "short_cut",
        "Short cut",
        "when you discover a chamber, pick it from the whole draw pile (shuffle it afterwards)",
        module=MAZE_MODULE,
        own_actions=True,
    ),
    TreasureTile(
        "time_out",
        "Time out",
        "pause the music to talk it over: nobody rolls until play is pressed again",
        module=MAZE_MODULE,
        own_actions=True,
    ),
    TreasureTile(
        "genie_lamp",
        "Genie lamp",
        "take the treasure you like of the top 3 of the stack; the others go to the bottom",
        module=MAZE_MODULE,
        own_actions=True,
    ),
)
"""The maze's three treasures, two tiles each (page 30), each used its own way: the Short cut
with a discovery, the others with their own events (module 2 lists no plain `use`)."""


class MazeModule(Module):
    """Queenie: The Maze, behind the module protocol."""

    id = MAZE_MODULE
    title = "The Maze"
    summary = (
        "The mirage chamber swaps places with the start, which moves next to its discoverer; "
        "2 torches in the gear chamber slide a whole row or column of the temple. Adds the "
        "Weakest link and Misinformation curses and the Short cut, Time out and Genie lamp."
    )
    rulebook = "Big Box pages 29-30"
    event_types = ("mirage", "gear", "time_out", "genie_lamp")
    event_classes = (Mirage, Gear, TimeOut, GenieLamp)
    payment_fields = ("short_cut",)
    state_attr = "maze"
    curse_cards = tuple(CURSES.values())
    treasure_tiles = TREASURE_TILES

    @classmethod
    def chambers(cls) -> dict[str, TileDef]:
        """The mirage and gear chambers (doors and entry icons: editable defaults)."""
        return {
            MIRAGE: TileDef(
                MIRAGE,
                "Mirage chamber",
                "chamber",
                frozenset({"N", "E", "W"}),
                (ADVENTURER, ADVENTURER),
                feature=MIRAGE,
            ),
            GEAR: TileDef(
                GEAR,
                "Gear chamber",
                "chamber",
                frozenset({"N", "E", "W"}),
                (ADVENTURER, TORCH),
                feature=GEAR,
            ),
        }

    @classmethod
    def create_state(cls, setup: Setup) -> MazeState:
        """No swap waiting, the music playing."""
        return MazeState()

    def state_json(self, game: GameView) -> dict[str, Any]:
        """The maze's part of the state."""
        return {"maze": state_of(game).to_json()}

    def on_mirage(self, game: GameView, event: Mirage) -> None:
        """The mirage's discoverer swaps it with the start and places the start (page 29)."""
        game.require(MAZE_MODULE, event)
        swap_mirage(game, event)

    def on_gear(self, game: GameView, event: Gear) -> None:
        """2 torches in the gear chamber slide a row or column (page 29)."""
        game.require(MAZE_MODULE, event)
        turn_gears(game, event)

    def on_time_out(self, game: GameView, event: TimeOut) -> None:
        """The Time out pauses the music, or play is pressed again (page 30)."""
        game.require(MAZE_MODULE, event)
        time_out(game, event)

    def on_genie_lamp(self, game: GameView, event: GenieLamp) -> None:
        """The Genie lamp's chosen treasure (page 30)."""
        game.require(MAZE_MODULE, event)
        genie_lamp(game, event)

    def check_event(self, game: GameView, event: Mapping[str, Any]) -> None:
        """No roll in a time out; the maze's curses stay; its treasures have their own events."""
        why = refusal(game, event)
        if why is not None:
            raise Rejection(why)

    def check_may_move(self, game: GameView, player: PlayerState, doing: str) -> None:
        """Nobody moves before the mirage's discoverer placed the starting chamber."""
        by = state_of(game).mirage_by
        if by is not None:
            raise Rejection(
                f"{player.player_id} may not {doing}: {by} must first place the starting "
                "chamber (the mirage took its place)"
            )

    def check_escape(self, game: GameView) -> None:
        """Nobody escapes before the mirage's swap (its discoverer would leave it undone)."""
        by = state_of(game).mirage_by
        if by is not None:
            raise Rejection(
                f"{by} must first place the starting chamber (the mirage took its place)"
            )

    def escape_blocked(self, game: GameView) -> str | None:
        """The mirage's swap comes first."""
        by = state_of(game).mirage_by
        return None if by is None else f"{by} must first place the starting chamber (mirage)"

    def held_back(self, game: GameView, player: PlayerState, discovering: bool) -> str | None:
        """The mirage's swap comes first."""
        by = state_of(game).mirage_by
        return None if by is None else f"{by} must first place the starting chamber (mirage)"

    def on_discover(self, game: GameView, player: PlayerState, tile: TileDef, cell: Cell) -> None:
        """The mirage's discoverer must swap it with the starting chamber."""
        if tile.feature == MIRAGE:
            state_of(game).mirage_by = player.player_id

    def spends(
        self,
        game: GameView,
        event: Mapping[str, Any],
        payers: list[PlayerState],
        need: Counter[str],
    ) -> tuple[Counter[str], Spends]:
        """A discovery with the Short cut spends it (module 2's settle takes the tile away)."""
        if "short_cut" not in event:
            return Counter(), []
        return Counter(), _short_cut_spends(event, payers)

    def on_slam(self, game: GameView, start: Cell) -> list[Cell]:
        """The Weakest link outside the start loses the game (page 30)."""
        weakest_link_loses(game, start)
        return []

    def open_actions(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """The mirage's swap, the gears, the Time out and the Genie lamp."""
        return _maze_actions(game, player)

    def filter_last_actions(self, game: GameView, found: list[Any]) -> list[Any]:
        """A discovery with the Short cut beside each discovery of its holder (the maze's curses
        have no lift listed, its treasures no plain `use`: see their cards and tiles)."""
        kept = list(found)
        for action in found:
            if action.action == "discover" and _holds(game, action.event, "short_cut"):
                kept.append(
                    changed(
                        action,
                        label=f"{action.label} with the Short cut (pick it, then shuffle the pile)",
                        event={**action.event, "short_cut": True},
                    )
                )
        return kept

    def tell(self, game: GameView, event: Mapping[str, Any]) -> str | None:
        """The maze's events in the table's words."""
        return _tell(game, event)

    def reminders(self, game: GameView) -> list[str]:
        """The maze's table-only rules and what people forget."""
        return _reminders(game)

    def tile_marks(self, game: GameView, placed: PlacedTile) -> list[dict[str, Any]]:
        """The mirage is no start; the gears slide lines."""
        if placed.tile.feature == MIRAGE:
            return [{"token": "mirage", "label": "mirage chamber: not safe at a door slam"}]
        if placed.tile.feature == GEAR:
            return [{"token": "gear", "label": "gear chamber: 2 torches slide a row or column"}]
        return []

    def player_marks(self, game: GameView, player: PlayerState) -> list[dict[str, Any]]:
        """The Time out lying in front of the player who paused the music."""
        if state_of(game).paused_by == player.player_id:
            return [{"token": "time_out", "label": "Time out: the music is paused"}]
        return []


def _holds(game: GameView, event: Mapping[str, Any], treasure: str) -> bool:
    player = game.players.get(event.get("player", ""))
    return player is not None and treasure in player.treasures


def _maze_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    """The mirage's swap, the gears, the Time out and the Genie lamp for the player."""
    state = state_of(game)
    pid = player.player_id
    found: list[OpenAction] = []
    if state.mirage_by == pid:
        found.append(_mirage_action(game, pid))
    here = None if player.cell is None else game.temple.at(player.cell)
    # Only a player in a gear chamber may turn the gears: no search of the temple for others.
    gear = _placed_with(game, GEAR) if here is not None and here.tile.feature == GEAR else None
    if gear is not None and player.cell == gear.cell:
        payers = [pid] + [p.player_id for p in game.players_in(gear.cell) if p is not player]
        choices = gear_choices(game, payers)
        blocked = None
        if state.mirage_by is not None:
            blocked = f"{state.mirage_by} must first place the starting chamber (mirage)"
        elif not choices:
            blocked = "no row or column can slide"
        action = priced(
            game,
            [game.players[p] for p in payers],
            GEAR_COST,
            "gear",
            "turn the gears: slide a row or column one chamber (2 torches)",
            {"type": "gear", "players": payers},
            blocked,
        )
        action.choices = choices  # just built: nobody else holds it yet
        found.append(action)
    if state.paused_by is None and "time_out" in player.treasures:
        found.append(
            OpenAction(
                "time_out",
                "use the Time out: pause the music",
                {"type": "time_out", "player": pid, "phase": "start"},
            )
        )
    if state.paused_by is not None and (
        state.paused_by == pid or not game.players[state.paused_by].inside
    ):
        found.append(
            OpenAction(
                "time_out", "press play: end the Time out", {"type": "time_out", "phase": "end"}
            )
        )
    if "genie_lamp" in player.treasures:
        found.append(_genie_action(game, pid))
    return found


def _mirage_action(game: GameView, pid: str) -> OpenAction:
    from rules.narrative import place_name  # here: it imports the engine

    start = game.temple.start_cell()
    return OpenAction(
        "mirage",
        "place the starting chamber next to your chamber (the mirage takes its place)",
        {"type": "mirage", "player": pid},
        choices=[
            {
                "name": place_name(cell, start).capitalize(),
                "note": "the starting chamber goes here",
                "event": {"type": "mirage", "player": pid, "cell": list(cell)},
            }
            for cell in mirage_spots(game)
        ],
    )


def _genie_action(game: GameView, pid: str) -> OpenAction:
    tiles = treasures_in_play(game.setup.modules)
    return OpenAction(
        "genie_lamp",
        "use the Genie lamp: take one of the top 3 treasures",
        {"type": "genie_lamp", "player": pid},
        choices=[
            {
                "name": tile.name,
                "note": tile.effect,
                "event": {"type": "genie_lamp", "player": pid, "treasure": tile_id},
            }
            for tile_id, tile in tiles.items()
        ],
    )


def _tell(game: GameView, event: Mapping[str, Any]) -> str | None:
    """Say a maze event for the log (None: not one of its events)."""
    kind = event.get("type")
    who = str(event.get("player", "someone")).capitalize()
    if kind == "mirage":
        return (
            f"{who} swaps the mirage chamber with the start and lays the start next to his chamber"
        )
    if kind == "gear":
        players = event.get("players")
        first = str(players[0]).capitalize() if isinstance(players, list) and players else who
        line = "row" if "row" in event else "column"
        towards = SIDE_WORDS.get(str(event.get("towards")), "one way")
        return f"{first} turns the gears: a whole {line} slides one chamber {towards}"
    if kind == "time_out":
        if event.get("phase") == "end":
            return "Play: the Time out ends, rolling goes on"
        return f"{who} uses the Time out: the music is paused"
    if kind == "genie_lamp":
        tile = treasures_in_play(game.setup.modules).get(str(event.get("treasure")))
        chosen = tile.name if tile else "a treasure"
        return f"{who} rubs the Genie lamp and takes the {chosen}"
    return None


def _reminders(game: GameView) -> list[str]:
    state = state_of(game)
    said: list[str] = []
    if state.mirage_by is not None:
        said.append(
            f"{state.mirage_by.capitalize()} swaps the mirage chamber with the start (turned as "
            "the start lay) and lays the start next to his chamber"
        )
    if _placed_with(game, MIRAGE) is not None and state.mirage_by is None:
        said.append(
            "The start moved: the mirage chamber in its old place is not safe at a door slam"
        )
    if state.paused_by is not None:
        said.append("Time out: the music is paused; nobody rolls until you press play again")
    for player in game.players.values():
        if not player.inside:
            continue
        name = player.player_id.capitalize()
        if "misinformation" in player.curses:
            said.append(
                f"{name} is cursed (Misinformation): yell 'I found the exit!' twice at every "
                "chamber he discovers"
            )
        if "weakest_link" in player.curses:
            said.append(
                f"{name} is cursed (Weakest link): back in the start by the end of countdown 1 "
                "and 2, or everybody loses"
            )
    return said


MODULE = MazeModule
