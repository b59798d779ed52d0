"""Queenie: the Maya calendar (Big Box pages 32-33): calendar tiles laid on discovered gem
chambers, the Maya figure advanced by gems activated under the calendar's next symbol, the
calendar chamber's swap, and the doomed side's dice and exit penalties."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from random import Random
from typing import TYPE_CHECKING, Any

from rules import event_values as read
from rules.catalog import TileDef
from rules.errors import RecordError, Rejection
from rules.event_values import EventValue, Field, FieldRead
from rules.module_protocol import GameView, Module
from rules.open_action import OpenAction, changed, priced
from rules.vocabulary import ADVENTURER, KEY, Cell, parse_cell, plural

if TYPE_CHECKING:
    from rules.engine import PlayerState
    from rules.game_setup import Setup
    from rules.temple import PlacedTile

MAYA_MODULE = "maya_calendar"
SIDES_OF_BOARD = ("eternal", "doomed")
"""The calendar board's two sides (page 32), as the setup's `maya_side` names them."""
SYMBOLS = ("sun", "moon", "gear")
TILE_COUNTS: Mapping[str, int] = {"sun": 4, "moon": 3, "gear": 2}
"""The 9 calendar tiles (page 32)."""
DEFAULT_SPACES: tuple[str, ...] = (
    "sun",
    "moon",
    "gear",
    "sun",
    "moon",
    "sun",
    "gear",
    "moon",
    "sun",
)
"""The symbols of the board's 9 spaces after the start, in order (not printed in the text:
an editable default, the setup's `maya_spaces`)."""
DEFAULT_BARS: tuple[int, int] = (3, 6)
"""The doomed side's first two bars: the space the figure must have reached by the end of
countdowns 1 and 2 (the third bar is after the last space); the setup's `maya_bars`."""
SWAP_NEED: Counter[str] = Counter({KEY: 3})
"""What activates the calendar chamber (page 33)."""
MAX_PENALTY = 3
"""Extra keys to escape far from the calendar's end (doomed side, page 33)."""
CALENDAR_TILE = TileDef(
    "calendar",
    "Calendar chamber",
    "chamber",
    frozenset({"N", "E", "W"}),
    (ADVENTURER, KEY),
    feature="calendar",
)
"""The calendar chamber (doors and entry icons: editable defaults)."""


def _two_cells(seen: FieldRead) -> tuple[Cell, Cell]:
    """The two chambers a swap names."""
    cells = seen.value
    if not isinstance(cells, list) or len(cells) != 2:
        raise Rejection("'cells' must name the two chambers whose calendar tiles are swapped")
    try:  # each is named 'cell' in the reason, as records saved before were judged
        return parse_cell(cells[0], "'cell'"), parse_cell(cells[1], "'cell'")
    except ValueError as error:
        raise Rejection(str(error)) from None


class CalendarTile(EventValue):
    """The discoverer of a gem chamber lays the stack's top calendar tile on it."""

    type_name = "calendar_tile"
    player = Field(read.player)
    cell = Field(read.cell)
    symbol = Field(
        read.one_of(SYMBOLS, "'symbol' must be the calendar tile's symbol: sun, moon or gear")
    )


class CalendarSwap(EventValue):
    """3 keys in the calendar chamber swap the calendar tiles of two chambers."""

    type_name = "calendar_swap"
    player = Field(read.player)
    cells = Field(_two_cells)


class CalendarDie(EventValue):
    """A player in the calendar chamber takes back his dice lying on it."""

    type_name = "calendar_die"
    player = Field(read.player)


class CalendarAdvance(EventValue):
    """Doomed side, the depot empty: a gem's icons rolled advance the figure without a gem."""

    type_name = "calendar_advance"
    cell = Field(read.cell)
    players = Field(read.player_ids("'players' must list the players who roll the gem's icons"))


@dataclass
class CalendarState:
    """The Maya calendar: the board's side and spaces, the figure, the tiles and the dice."""

    side: str
    spaces: tuple[str, ...]
    bars: tuple[int, int]
    position: int = 0
    """Spaces the Maya figure advanced from the start space (the figure is on the last at
    `len(spaces)`)."""
    unknown: Counter[str] = field(default_factory=lambda: Counter(TILE_COUNTS))
    """The face-down shuffled tiles of the stack, not yet drawn."""
    returned: list[str] = field(default_factory=list)
    """Tiles put face down under the stack (doomed side), top first: drawn once `unknown`
    is gone."""
    tiles: dict[Cell, str] = field(default_factory=dict)
    """The calendar tiles lying on chambers, by chamber."""
    awaiting: list[tuple[str, Cell]] = field(default_factory=list)
    """Gem chambers discovered whose calendar tile is still to be drawn, with their discoverer."""
    dice_aside: dict[str, int] = field(default_factory=dict)
    """Dice placed on the calendar chamber (or beside it, before it is found), by player."""
    slams: int = 0
    """Countdowns ended so far by a door slam."""

    @property
    def stack(self) -> int:
        """Tiles left in the stack."""
        return sum(self.unknown.values()) + len(self.returned)

    @property
    def next_symbol(self) -> str | None:
        """The symbol of the figure's next space (None on the last space)."""
        return self.spaces[self.position] if self.position < len(self.spaces) else None

    def to_json(self) -> dict[str, Any]:
        """The calendar as `replay --json` shows it."""
        return {
            "side": self.side,
            "spaces": list(self.spaces),
            "bars": list(self.bars),
            "position": self.position,
            "next": self.next_symbol,
            "stack": self.stack,
            "tiles": [{"cell": list(c), "symbol": s} for c, s in sorted(self.tiles.items())],
            "awaiting": [{"player": p, "cell": list(c)} for p, c in self.awaiting],
            "dice_aside": dict(sorted((p, n) for p, n in self.dice_aside.items() if n)),
        }


# ----- set-up -----------------------------------------------------------------------------


def parse_calendar(line: Mapping[str, Any]) -> CalendarState:
    """The setup's `maya_side`, `maya_spaces` and `maya_bars` (raises RecordError)."""
    side = line.get("maya_side", "eternal")
    if side not in SIDES_OF_BOARD:
        raise RecordError(
            f"'maya_side' must be 'eternal' or 'doomed' (the calendar board's side), not {side!r}"
        )
    spaces = line.get("maya_spaces", list(DEFAULT_SPACES))
    if (
        not isinstance(spaces, list)
        or len(spaces) != len(DEFAULT_SPACES)
        or any(s not in SYMBOLS for s in spaces if isinstance(s, str))
        or not all(isinstance(s, str) for s in spaces)
    ):
        raise RecordError(
            "'maya_spaces' must list the symbols of the calendar's 9 spaces after the start, "
            "each 'sun', 'moon' or 'gear'"
        )
    if side == "eternal" and Counter(spaces) != Counter(TILE_COUNTS):
        raise RecordError(
            "the eternal calendar's 9 spaces take the 9 calendar tiles one by one: "
            "'maya_spaces' must hold 4 suns, 3 moons and 2 gears"
        )
    bars = line.get("maya_bars", list(DEFAULT_BARS))
    if (
        not isinstance(bars, list)
        or len(bars) != 2
        or not all(isinstance(b, int) and not isinstance(b, bool) for b in bars)
        or not 1 <= bars[0] < bars[1] <= len(spaces)
    ):
        raise RecordError(
            "'maya_bars' must give the spaces the Maya figure must have reached by the end of "
            "countdowns 1 and 2: two whole numbers rising from 1 to 9, e.g. [3, 6]"
        )
    return CalendarState(side, tuple(spaces), (bars[0], bars[1]))


def _state(game: GameView) -> CalendarState:
    state: CalendarState = game.maya_calendar  # type: ignore[attr-defined]
    return state


def _where(game: GameView, cell: Cell) -> str:
    """A chamber by name and place, as the table says it."""
    from rules.narrative import place_name  # here: it imports the engine

    placed = game.temple.at(cell)
    name = placed.tile.name if placed is not None else "the chamber"
    return f"{name} ({place_name(cell, game.temple.start_cell())})"


def _in_calendar_chamber(game: GameView, player: PlayerState) -> bool:
    placed = None if player.cell is None else game.temple.at(player.cell)
    return placed is not None and placed.tile.feature == "calendar"


# ----- the rules ----------------------------------------------------------------------------


def gem_refusal(game: GameView, cell: Cell) -> str | None:
    """Why the gems of the chamber at `cell` may not be activated now (page 32), or None."""
    state = _state(game)
    placed = game.temple.at(cell)
    if placed is None or placed.tile.gems is None:
        return None  # the engine's own reason: no gem icons
    if any(c == cell for _, c in state.awaiting):
        return f"draw the calendar tile for {_where(game, cell)} first"
    if state.side != "eternal" or state.next_symbol is None:
        return None
    symbol = state.tiles.get(cell)
    if symbol is None:
        return (
            f"{_where(game, cell)} holds no calendar tile: its gems wait until the Maya figure "
            "reaches the eternal calendar's last space"
        )
    if symbol != state.next_symbol:
        return (
            f"{_where(game, cell)} holds a {symbol}, but the eternal calendar's next space "
            f"shows a {state.next_symbol}: gems are activated only under the next symbol"
        )
    return None


def calendar_turn(game: GameView, cell: Cell) -> None:
    """Gems activated (or the doomed calendar advanced) at `cell`: the figure advances when
    its tile shows the next symbol; the tile leaves the game (eternal) or goes face down under
    the stack (doomed)."""
    state = _state(game)
    symbol = state.tiles.pop(cell, None)
    if symbol is None:
        return
    if symbol == state.next_symbol:
        state.position += 1
    if state.side == "doomed":
        state.returned.append(symbol)


def drawable(state: CalendarState) -> list[str]:
    """The symbols the stack's top tile may show."""
    if sum(state.unknown.values()):
        return [s for s in SYMBOLS if state.unknown[s] > 0]
    return state.returned[:1]


def escape_penalty(state: CalendarState) -> int:
    """Extra keys to escape on the doomed side: 3, 2, 1 on the three spaces before the last,
    none on the last, 3 anywhere before (page 33)."""
    if state.side != "doomed":
        return 0
    return min(MAX_PENALTY, len(state.spaces) - state.position)


def draw_tile(game: GameView, event: CalendarTile) -> None:
    """The discoverer of a gem chamber lays the stack's top calendar tile on it (page 32)."""
    state = _state(game)
    player = game.still_inside(game.players[event.player])
    cell = event.cell
    symbol = event.symbol
    if (player.player_id, cell) not in state.awaiting:
        owed = [c for p, c in state.awaiting if p == player.player_id]
        if not owed:
            raise Rejection(
                f"{player.player_id} owes no calendar tile: a tile is drawn for each gem "
                "chamber discovered while the stack holds one"
            )
        raise Rejection(
            f"{player.player_id} draws a calendar tile for {_where(game, owed[0])}, not for "
            "another chamber"
        )
    can = drawable(state)
    if symbol not in can:
        if sum(state.unknown.values()):
            raise Rejection(
                f"the calendar stack holds no {symbol} any more: the tile drawn must be a "
                + " or a ".join(can)
            )
        raise Rejection(f"the stack's top tile is the {can[0]} put under it: not a {symbol}")
    if state.unknown[symbol] > 0:
        state.unknown[symbol] -= 1
    else:
        state.returned.pop(0)
    state.awaiting.remove((player.player_id, cell))
    state.tiles[cell] = symbol


def swap_tiles(game: GameView, event: CalendarSwap) -> None:
    """3 keys in the calendar chamber swap two calendar tiles lying in chambers (page 33)."""
    state = _state(game)
    player = game.still_inside(game.players[event.player])
    if not _in_calendar_chamber(game, player):
        raise Rejection(f"{player.player_id} is not in the calendar chamber")
    a, b = event.cells
    if a == b:
        raise Rejection("two different chambers' calendar tiles are swapped")
    for cell in (a, b):
        if cell not in state.tiles:
            raise Rejection(f"no calendar tile lies in {_where(game, cell)}")
    plan, spends = game.charge(event, [player], Counter(SWAP_NEED), "to swap two calendar tiles")
    game.settle(plan, spends)
    state.tiles[a], state.tiles[b] = state.tiles[b], state.tiles[a]


def take_back(game: GameView, event: CalendarDie) -> None:
    """A player in the calendar chamber takes back his dice lying on it (page 33)."""
    state = _state(game)
    player = game.still_inside(game.players[event.player])
    count = state.dice_aside.get(player.player_id, 0)
    if not count:
        raise Rejection(f"no die of {player.player_id} lies on the calendar chamber")
    if not _in_calendar_chamber(game, player):
        raise Rejection(
            f"{player.player_id} takes back his die only in the calendar chamber: enter it first"
        )
    del state.dice_aside[player.player_id]
    player.dice += count


def advance_only(game: GameView, event: CalendarAdvance) -> None:
    """Doomed side, the depot empty: a gem's icons rolled in a chamber with a calendar tile
    advance the figure without a gem (page 33)."""
    state = _state(game)
    if state.side != "doomed":
        raise Rejection("only the doomed calendar advances without a gem")
    cell = event.cell
    payers = [game.still_inside(game.players[pid]) for pid in event.players]
    if len({p.player_id for p in payers}) != len(payers):
        raise Rejection("each player may be listed only once in 'players'")
    if game.depot > 0:
        raise Rejection(
            f"the depot still holds {plural(game.depot, 'gem')}: activate a gem instead"
        )
    placed = game.temple.at(cell)
    if placed is None or placed.tile.gems is None or cell not in state.tiles:
        raise Rejection(f"no calendar tile lies in {_where(game, cell)}")
    for payer in payers:
        if payer.cell != cell:
            raise Rejection(f"{payer.player_id} is not inside {_where(game, cell)}")
    spec = placed.tile.gems
    need = Counter({spec.icon: spec.cost(1)})
    plan, spends = game.charge(event, payers, need, "to advance the calendar")
    game.settle(plan, spends)
    calendar_turn(game, cell)


def slam(game: GameView) -> None:
    """Doomed side: at the end of countdowns 1 and 2, with the figure short of its bar, every
    player inside places a die on the calendar chamber (page 33)."""
    state = _state(game)
    state.slams += 1
    if state.side != "doomed" or state.slams > len(state.bars):
        return
    if state.position >= state.bars[state.slams - 1]:
        return
    for player in game.players.values():
        if player.inside and player.dice > 0:
            game.remove_die(player)
            state.dice_aside[player.player_id] = state.dice_aside.get(player.player_id, 0) + 1


def vanish(state: CalendarState, gone: list[Cell]) -> None:
    """Chambers left the temple (module 3's illusions): their calendar tiles go face down
    under the stack, and a tile still owed to one of them is not drawn."""
    for cell in gone:
        symbol = state.tiles.pop(cell, None)
        if symbol is not None:
            state.returned.append(symbol)
    state.awaiting = [(p, c) for p, c in state.awaiting if c not in gone]


class MayaCalendarModule(Module):
    """Queenie: the Maya calendar, behind the module protocol."""

    id = MAYA_MODULE
    title = "The Maya Calendar"
    summary = (
        "Calendar tiles (sun, moon, gear) lie on the gem chambers: activate gems in the order "
        "the Maya calendar dictates, or face its consequences."
    )
    rulebook = "Big Box pages 32-33"
    # the kind of every action whose event is an `activate` (the gems' and the Priest's offering)
    filtered_actions = frozenset({"activate"})
    event_types = ("calendar_tile", "calendar_swap", "calendar_die", "calendar_advance")
    event_classes = (CalendarTile, CalendarSwap, CalendarDie, CalendarAdvance)
    state_attr = "maya_calendar"

    @classmethod
    def chambers(cls) -> dict[str, TileDef]:
        """The calendar chamber."""
        return {CALENDAR_TILE.tile_id: CALENDAR_TILE}

    @classmethod
    def create_state(cls, setup: Setup) -> CalendarState:
        """The figure on the start space, the 9 tiles shuffled face down."""
        return parse_calendar(setup.line)

    @classmethod
    def random_setup_fields(cls, rng: Random, players: list[str]) -> dict[str, Any]:
        """A side of the board; now and then the doomed side's bars moved."""
        fields: dict[str, Any] = {"maya_side": rng.choice(SIDES_OF_BOARD)}
        if rng.random() < 0.3:
            first = rng.randint(1, 7)
            fields["maya_bars"] = [first, rng.randint(first + 1, 9)]
        return fields

    def state_json(self, game: GameView) -> dict[str, Any]:
        """The calendar's part of the state."""
        return {"maya_calendar": _state(game).to_json()}

    def on_calendar_tile(self, game: GameView, event: CalendarTile) -> None:
        """The calendar tile drawn for a gem chamber just discovered."""
        game.require(MAYA_MODULE, event)
        draw_tile(game, event)

    def on_calendar_swap(self, game: GameView, event: CalendarSwap) -> None:
        """The calendar chamber activated: two calendar tiles swapped."""
        game.require(MAYA_MODULE, event)
        swap_tiles(game, event)

    def on_calendar_die(self, game: GameView, event: CalendarDie) -> None:
        """A die lying on the calendar chamber taken back."""
        game.require(MAYA_MODULE, event)
        take_back(game, event)

    def on_calendar_advance(self, game: GameView, event: CalendarAdvance) -> None:
        """The doomed calendar advanced without a gem (the depot empty)."""
        game.require(MAYA_MODULE, event)
        advance_only(game, event)

    def on_discover(self, game: GameView, player: PlayerState, tile: TileDef, cell: Cell) -> None:
        """A gem chamber discovered while the stack holds a tile awaits its calendar tile."""
        state = _state(game)
        if tile.gems is not None and len(state.awaiting) < state.stack:
            state.awaiting.append((player.player_id, cell))

    def check_activate(
        self, game: GameView, chamber: PlacedTile, payers: list[PlayerState]
    ) -> None:
        """The eternal calendar: gems only under the next space's symbol."""
        why = gem_refusal(game, chamber.cell)
        if why is not None:
            raise Rejection(why)

    def after_gems(self, game: GameView, chamber: PlacedTile, payers: list[PlayerState]) -> None:
        """The figure advances on a match; the tile leaves (eternal) or goes under the stack."""
        calendar_turn(game, chamber.cell)

    def on_slam(self, game: GameView, start: Cell) -> list[Cell]:
        """The doomed calendar's consequences at the first two countdowns."""
        slam(game)
        return []

    def after_slam(self, game: GameView, gone: list[Cell], start: Cell) -> None:
        """Calendar tiles on chambers that left the temple go under the stack."""
        vanish(_state(game), gone)

    def extra_keys(self, game: GameView) -> int:
        """The doomed calendar's extra keys at the exit."""
        return escape_penalty(_state(game))

    def filter_open_actions(self, game: GameView, found: list[Any]) -> list[Any]:
        """Gem activations the calendar refuses, greyed out with the reason."""
        return [
            a if type(a) is OpenAction and a.event.get("type") != "activate" else _greyed(game, a)
            for a in found
        ]

    def open_actions(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """Tiles to draw, the calendar chamber's swap, dice to take back, advancing."""
        return _calendar_actions(game, player)

    def tell(self, game: GameView, event: Mapping[str, Any]) -> str | None:
        """The calendar's events in the table's words."""
        return _tell(game, event)

    def reminders(self, game: GameView) -> list[str]:
        """The next symbol, the bars, the exit's extra keys, dice on the calendar chamber."""
        return _reminders(game)

    def tile_marks(self, game: GameView, placed: PlacedTile) -> list[dict[str, Any]]:
        """Calendar tiles on chambers; dice lying on the calendar chamber."""
        state = _state(game)
        marks: list[dict[str, Any]] = []
        symbol = state.tiles.get(placed.cell)
        if symbol is not None:
            marks.append({"token": f"calendar-{symbol}", "label": f"calendar tile: {symbol}"})
        dice = sum(state.dice_aside.values())
        if placed.tile.feature == "calendar" and dice:
            marks.append(
                {
                    "token": "die",
                    "label": "dice placed on the calendar chamber: their owners take them "
                    "back here",
                    "count": dice,
                }
            )
        return marks

    def player_marks(self, game: GameView, player: PlayerState) -> list[dict[str, Any]]:
        """The player's dice lying on the calendar chamber."""
        count = _state(game).dice_aside.get(player.player_id, 0)
        if not count:
            return []
        return [
            {
                "token": "die",
                "label": "die on the calendar chamber: take it back there",
                "count": count,
            }
        ]


def _greyed(game: GameView, action: Any) -> Any:
    if not isinstance(action, OpenAction) or action.event.get("type") != "activate":
        return action
    if action.blocked:
        return action
    cell = action.event.get("cell")
    if not isinstance(cell, list) or len(cell) != 2:
        return action
    why = gem_refusal(game, (cell[0], cell[1]))
    return action if why is None else changed(action, blocked=why)


# ----- open actions, log words and reminders ------------------------------------------------


def _calendar_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    state = _state(game)
    pid = player.player_id
    found: list[OpenAction] = []
    for owner, cell in state.awaiting:
        if owner == pid:
            event = {"type": "calendar_tile", "player": pid, "cell": list(cell)}
            found.append(
                OpenAction(
                    "calendar_tile",
                    f"draw a calendar tile for {_where(game, cell)}",
                    event,
                    choices=[
                        {"name": s.capitalize(), "event": {**event, "symbol": s}}
                        for s in drawable(state)
                    ],
                )
            )
    if _in_calendar_chamber(game, player):
        found.extend(_chamber_actions(game, player))
    if state.side == "doomed" and game.depot == 0 and player.cell in state.tiles:
        found.append(_advance_action(game, player))
    return found


def _chamber_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    state = _state(game)
    pid = player.player_id
    found: list[OpenAction] = []
    cells = sorted(state.tiles)
    pairs = [(a, b) for i, a in enumerate(cells) for b in cells[i + 1 :]]
    found.append(
        priced(
            game,
            [player],
            SWAP_NEED,
            "calendar_swap",
            "swap two calendar tiles (3 keys)",
            {"type": "calendar_swap", "player": pid},
            None if pairs else "fewer than two calendar tiles lie in chambers",
        )
    )
    if pairs:
        found[-1] = dataclasses.replace(
            found[-1],
            choices=[
                {
                    "name": f"{_where(game, a)} and {_where(game, b)}",
                    "event": {
                        "type": "calendar_swap",
                        "player": pid,
                        "cells": [list(a), list(b)],
                    },
                }
                for a, b in pairs
            ],
        )
    count = state.dice_aside.get(pid, 0)
    if count:
        found.append(
            OpenAction(
                "calendar_die",
                f"take back {plural(count, 'die')} from the calendar chamber",
                {"type": "calendar_die", "player": pid},
            )
        )
    return found


def _advance_action(game: GameView, player: PlayerState) -> OpenAction:
    assert player.cell is not None
    placed = game.temple.at(player.cell)
    assert placed is not None and placed.tile.gems is not None
    spec = placed.tile.gems
    payers = [player] + [p for p in game.players_in(player.cell) if p is not player]
    return priced(
        game,
        payers,
        {spec.icon: spec.cost(1)},
        "calendar_advance",
        f"advance the calendar without a gem ({plural(spec.cost(1), spec.icon)})",
        {
            "type": "calendar_advance",
            "cell": list(player.cell),
            "players": [p.player_id for p in payers],
        },
    )


def _tell(game: GameView, event: Mapping[str, Any]) -> str | None:
    kind = event.get("type")
    name = str(event.get("player", "")).capitalize()
    if kind == "calendar_tile":
        cell = _cell_of(event.get("cell"))
        where = _where(game, cell) if cell else "a gem chamber"
        return f"{name} lays a calendar tile on {where}: a {event.get('symbol')}"
    if kind == "calendar_swap":
        cells = event.get("cells")
        pair = [_cell_of(c) for c in cells] if isinstance(cells, list) else []
        said = " and ".join(_where(game, c) for c in pair if c)
        return f"{name} activates the calendar chamber and swaps the calendar tiles of {said}"
    if kind == "calendar_die":
        return f"{name} takes back his die from the calendar chamber"
    if kind == "calendar_advance":
        ids = event.get("players")
        names = [str(p).capitalize() for p in ids] if isinstance(ids, list) else []
        verb = "advances" if len(names) == 1 else "advance"
        cell = _cell_of(event.get("cell"))
        where = _where(game, cell) if cell else "a gem chamber"
        return f"{' and '.join(names)} {verb} the Maya calendar without a gem in {where}"
    return None


def _cell_of(value: Any) -> Cell | None:
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return (value[0], value[1])
    return None


def _reminders(game: GameView) -> list[str]:
    state = _state(game)
    rows = []
    space = f"space {state.position} of {len(state.spaces)}"
    if state.next_symbol is None:
        rows.append(f"The Maya figure stands on the calendar's last space ({space})")
    elif state.side == "eternal":
        rows.append(
            f"Eternal calendar ({space}): gems only in a chamber with a {state.next_symbol} "
            "tile; the tile then leaves the game"
        )
    else:
        rows.append(
            f"Doomed calendar ({space}): a gem in a chamber with a {state.next_symbol} tile "
            "advances the Maya figure; every used tile goes face down under the stack"
        )
    if state.side == "doomed" and state.slams < len(state.bars):
        bar = state.bars[state.slams]
        if state.position < bar:
            rows.append(
                f"Reach space {bar} before countdown {state.slams + 1} ends, or everyone places "
                "a die on the calendar chamber"
            )
    penalty = escape_penalty(state)
    if penalty:
        rows.append(f"The doomed calendar adds {plural(penalty, 'key')} to the escape")
    for pid, count in sorted(state.dice_aside.items()):
        if count:
            rows.append(
                f"{pid.capitalize()}'s {plural(count, 'die')} on the calendar chamber: "
                "enter it to take them back"
            )
    if state.awaiting:
        rows.append("Lay the top calendar tile face up on each gem chamber discovered")
    return rows


MODULE = MayaCalendarModule
