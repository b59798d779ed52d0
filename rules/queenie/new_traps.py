"""Queenie 16: New traps (Queenie box): the quicksand, the lava chamber with its gates on the
start's entrances, and the beast chamber crept through one die at a time."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from random import Random
from typing import TYPE_CHECKING, Any

from rules.catalog import TileDef
from rules.errors import RecordError, Rejection
from rules.module_protocol import GameView, Module
from rules.open_action import OpenAction, describe_icons, priced
from rules.queenie.new_traps_events import (
    BeastRoll,
    GateRemove,
    LavaClimb,
    QuicksandFree,
    QuicksandRescue,
)
from rules.vocabulary import (
    ADVENTURER,
    BLACK_MASK,
    FACES,
    GOLDEN_MASK,
    KEY,
    TORCH,
    Cell,
    neighbour,
    plural,
)

if TYPE_CHECKING:
    from rules.engine import PlayerState
    from rules.game_setup import Setup
    from rules.temple import PlacedTile

NEW_TRAPS_MODULE = "new_traps"
QUICKSAND_NEED: Counter[str] = Counter({TORCH: 4})
"""What frees a player from the quicksand: his own in 4 rolls, or his rescuers'."""
QUICKSAND_ROLLS = 4
LAVA_NEED: Counter[str] = Counter({KEY: 4})
"""What gets a player out of the lava, rolled by himself."""
GATE_NEED: Counter[str] = Counter({KEY: 3})
"""What removes a gate token."""
GATES = 2
GATE_SIDES = ("W", "E", "N", "S")
"""Where the 2 gate tokens go: the first two open entrances of the start in this order, those
of the two chambers page 5 lays left and right of it."""
PATH_ICONS = (ADVENTURER, KEY, TORCH)
DEFAULT_BEAST_PATH: tuple[str, ...] = (ADVENTURER, TORCH, KEY, ADVENTURER)
"""The icons the beast chamber's spaces ask, from the first space on (pictured on the tile,
not printed: an editable default, the setup's `beast_path`)."""
SIDE_WORDS: Mapping[str, str] = {"N": "north", "E": "east", "S": "south", "W": "west"}
FEATURES = ("quicksand", "lava", "beast")


def _chamber(tile_id: str, name: str, doors: set[str], enter: tuple[str, ...]) -> TileDef:
    return TileDef(tile_id, name, "chamber", frozenset(doors), enter, feature=tile_id)


NEW_TRAP_TILES: dict[str, TileDef] = {
    "quicksand": _chamber("quicksand", "Quicksand chamber", {"N", "E", "W"}, (ADVENTURER, TORCH)),
    "lava": _chamber("lava", "Lava chamber", {"N", "E", "W"}, (KEY, TORCH)),
    "beast": _chamber("beast", "Beast chamber", set(), (ADVENTURER, ADVENTURER)),
}
"""The three trap chambers (doors and entry icons: editable defaults; the beast chamber's only
way out is its stairway)."""


@dataclass
class NewTrapsState:
    """Who is caught in which trap, and the gates on the start's entrances."""

    beast_path: tuple[str, ...]
    quicksand: dict[str, int] = field(default_factory=dict)
    """Players caught in the quicksand, with the rolls they made there (5: more than 4)."""
    lava: list[str] = field(default_factory=list)
    """Players in the middle of the lava."""
    beast: dict[str, int] = field(default_factory=dict)
    """Players creeping past the beast, with the spaces they advanced."""
    gates: list[str] = field(default_factory=list)
    """The start's entrances a gate blocks (table sides)."""
    gates_laid: bool = False

    def to_json(self) -> dict[str, Any]:
        """The traps' part of the state, as `replay --json` shows it."""
        return {
            "beast_path": list(self.beast_path),
            "quicksand": dict(sorted(self.quicksand.items())),
            "lava": list(self.lava),
            "beast": dict(sorted(self.beast.items())),
            "gates": list(self.gates),
        }


BEAST_PATH_MOST = 8
"""The most spaces a beast chamber's path may have."""


def parse_beast_path(line: Mapping[str, Any]) -> tuple[str, ...]:
    """The setup's `beast_path` (raises RecordError)."""
    path = line.get("beast_path", list(DEFAULT_BEAST_PATH))
    if (
        not isinstance(path, list)
        or not 1 <= len(path) <= BEAST_PATH_MOST
        or not all(isinstance(icon, str) and icon in PATH_ICONS for icon in path)
    ):
        raise RecordError(
            "'beast_path' must list the icons the beast chamber's spaces ask, 1 to "
            f"{BEAST_PATH_MOST} of adventurer, key and torch"
        )
    return tuple(path)


def _state(game: GameView) -> NewTrapsState:
    state: NewTrapsState = game.new_traps  # type: ignore[attr-defined]
    return state


def _feature(game: GameView, cell: Cell | None) -> str | None:
    placed = None if cell is None else game.temple.at(cell)
    return None if placed is None else placed.tile.feature


def caught(game: GameView, player: PlayerState) -> str | None:
    """The trap holding the player (quicksand, lava or beast), or None."""
    state = _state(game)
    here = _feature(game, player.cell)
    pid = player.player_id
    for trap, holding in (("quicksand", state.quicksand), ("lava", state.lava)):
        if pid in holding and here == trap:
            return trap
    return "beast" if pid in state.beast and here == "beast" else None


def held_why(game: GameView, player: PlayerState, discovering: bool) -> str | None:
    """Why a trap keeps the player where he is: the lava only forbids leaving, so its
    prisoner may still discover; the quicksand and the beast allow neither."""
    trap = caught(game, player)
    if trap == "quicksand":
        return "caught in the quicksand until 4 torches free him"
    if trap == "lava" and not discovering:
        return "in the middle of the lava until he rolls 4 keys by himself"
    if trap == "beast":
        return "creeping past the sleeping beast, one die at a time, to its exit"
    return None


def _where(game: GameView, cell: Cell) -> str:
    from rules.narrative import cell_place_name  # here: it imports the engine

    placed = game.temple.at(cell)
    name = placed.tile.name if placed is not None else "no chamber"
    if placed is not None and placed.tile.kind == "start":
        return "the starting chamber"
    return f"{name} ({cell_place_name(cell, game.temple.start_cell())})"


def gate_between(game: GameView, a: Cell, b: Cell) -> str | None:
    """The gated entrance of the start between `a` and `b`, or None."""
    gates = _state(game).gates
    if not gates:
        return None
    start = game.temple.start_cell()
    if a == start:
        other = b
    elif b == start:
        other = a
    else:
        return None
    for side in gates:
        if neighbour(start, side) == other:
            return side
    return None


def _gate_words(game: GameView, side: str) -> str:
    start = game.temple.start_cell()
    beyond = game.temple.at(neighbour(start, side))
    other = "" if beyond is None else f" or {_where(game, beyond.cell)}"
    return (
        f"a gate blocks the starting chamber's {SIDE_WORDS[side]} entrance: 3 keys rolled in "
        f"the starting chamber{other} remove it"
    )


def lay_gates(game: GameView) -> None:
    """The lava chamber found: a gate on each of two entrances of the start."""
    state = _state(game)
    if state.gates_laid:
        return
    start = game.temple.at(game.temple.start_cell())
    assert start is not None
    state.gates = [side for side in GATE_SIDES if side in start.open_sides][:GATES]
    state.gates_laid = True


def _beast_exit(game: GameView, cell: Cell) -> Cell:
    """The chamber the beast's survivor steps into: the one at its stairway (else the start)."""
    placed = game.temple.at(cell)
    assert placed is not None
    out = neighbour(cell, placed.stairs)
    return out if game.temple.at(out) is not None else game.temple.start_cell()


# ----- events -------------------------------------------------------------------------------


def free_self(game: GameView, event: QuicksandFree) -> None:
    """The quicksand's discoverer shows 4 torches within his 4 rolls, by himself."""
    state = _state(game)
    player = game.still_inside(game.players[event.player])
    pid = player.player_id
    if caught(game, player) != "quicksand":
        raise Rejection(f"{pid} is not caught in the quicksand")
    rolls = state.quicksand[pid]
    if rolls == 0:
        raise Rejection(f"{pid} must roll first: the 4 torches come from his 4 rolls")
    if rolls > QUICKSAND_ROLLS:
        raise Rejection(
            f"{pid} rolled 4 times without 4 torches: others must come into the quicksand "
            "chamber and roll 4 torches to free him"
        )
    plan, spends = game.charge(event, [player], Counter(QUICKSAND_NEED), "to get free (alone)")
    game.settle(plan, spends)
    del state.quicksand[pid]


def rescue(game: GameView, event: QuicksandRescue) -> None:
    """Players who came into the quicksand chamber roll 4 torches and free its prisoner."""
    state = _state(game)
    player = game.still_inside(game.players[event.player])
    pid = player.player_id
    if caught(game, player) != "quicksand":
        raise Rejection(f"{pid} is not caught in the quicksand")
    rolls = state.quicksand[pid]
    if rolls < QUICKSAND_ROLLS:
        raise Rejection(
            f"{pid} still tries by himself ({plural(rolls, 'roll')} of 4 made): others rescue "
            "him once his 4 rolls failed"
        )
    helpers = _payers(game, event.players, player.cell)
    if player in helpers:
        raise Rejection(f"{pid} is the one to rescue: list the players who come to help")
    plan, spends = game.charge(event, helpers, Counter(QUICKSAND_NEED), f"to rescue {pid}")
    game.settle(plan, spends)
    del state.quicksand[pid]


def _payers(game: GameView, ids: Any, *cells: Cell | None) -> list[PlayerState]:
    """The players `ids` lists, each in one of `cells` (`ids` as the record wrote it)."""
    if not isinstance(ids, list) or not ids:
        raise Rejection("'players' must list the players who roll the icons")
    payers = [game.still_inside(game.lookup(pid)) for pid in ids]
    if len({p.player_id for p in payers}) != len(payers):
        raise Rejection("each player may be listed only once in 'players'")
    for payer in payers:
        if payer.cell not in cells:
            places = " or ".join(_where(game, c) for c in cells if c is not None)
            raise Rejection(f"{payer.player_id} is not in {places}")
    return payers


def climb_out(game: GameView, event: LavaClimb) -> None:
    """The player in the lava rolls 4 keys by himself and steps out of it."""
    state = _state(game)
    player = game.still_inside(game.players[event.player])
    if caught(game, player) != "lava":
        raise Rejection(f"{player.player_id} is not in the lava")
    plan, spends = game.charge(
        event, [player], Counter(LAVA_NEED), "to get out of the lava (alone)"
    )
    game.settle(plan, spends)
    state.lava.remove(player.player_id)


def remove_gate(game: GameView, event: GateRemove) -> None:
    """Players in the chambers a gate lies between roll 3 keys and discard it."""
    state = _state(game)
    side = event.side
    if side not in state.gates:
        raise Rejection(f"no gate blocks the starting chamber's {SIDE_WORDS[side]} entrance")
    start = game.temple.start_cell()
    beyond = neighbour(start, side)
    near = beyond if game.temple.at(beyond) is not None else None
    payers = _payers(game, event.players, start, near)
    plan, spends = game.charge(event, payers, Counter(GATE_NEED), "to remove the gate")
    game.settle(plan, spends)
    state.gates.remove(side)


def beast_roll(game: GameView, event: BeastRoll) -> None:
    """The player creeping past the beast rolls one die: its icon moves him a space on; a
    golden mask frees 2 of his black masks; once every die shows a black mask he loses one
    for good and flees into the adjacent chamber."""
    state = _state(game)
    player = game.still_inside(game.players[event.player])
    pid = player.player_id
    if caught(game, player) != "beast":
        raise Rejection(f"{pid} is not in the beast chamber")
    face = event.face
    if player.free_dice < 1:
        raise Rejection(f"{pid} has no die left to roll")
    assert player.cell is not None
    player.unshow_a_die()  # the die rolled, where every free die showed a face
    if face == BLACK_MASK:
        player.locked += 1
        if player.locked >= player.dice:
            game.remove_die(player)
            _leave_beast(game, player)
        return
    if face == GOLDEN_MASK:
        player.locked -= min(2, player.locked)
        return
    step = state.beast[pid]
    if face == state.beast_path[step]:
        state.beast[pid] = step + 1
        if step + 1 == len(state.beast_path):
            _leave_beast(game, player)


def _leave_beast(game: GameView, player: PlayerState) -> None:
    assert player.cell is not None
    player.cell = _beast_exit(game, player.cell)
    del _state(game).beast[player.player_id]


def on_discover(game: GameView, player: PlayerState, tile: TileDef, cell: Cell) -> None:
    """A new trap chamber found: its discoverer is placed inside at once."""
    state = _state(game)
    if tile.feature not in FEATURES:
        return
    player.cell, player.rear = cell, False
    pid = player.player_id
    if tile.feature == "quicksand":
        state.quicksand[pid] = 0
    elif tile.feature == "lava":
        state.lava.append(pid)
        lay_gates(game)
    else:
        state.beast[pid] = 0
        # He rolls one die at a time from now: nothing he showed before counts.
        player.showing = Counter()
        player.rolled = False


class NewTrapsModule(Module):
    """Queenie 16: New traps, behind the module protocol."""

    id = NEW_TRAPS_MODULE
    title = "New Traps"
    summary = (
        "Three trap chambers: quicksand that swallows its discoverer, a lava chamber that "
        "gates the start's entrances, and a sleeping beast to creep past one die at a time."
    )
    rulebook = "Queenie box, Queenie 16"
    event_types = ("quicksand_free", "quicksand_rescue", "lava_climb", "gate_remove", "beast_roll")
    event_classes = (QuicksandFree, QuicksandRescue, LavaClimb, GateRemove, BeastRoll)
    state_attr = "new_traps"

    @classmethod
    def chambers(cls) -> dict[str, TileDef]:
        """The quicksand, lava and beast chambers."""
        return dict(NEW_TRAP_TILES)

    @classmethod
    def create_state(cls, setup: Setup) -> NewTrapsState:
        """Nobody caught, no gate laid."""
        return NewTrapsState(parse_beast_path(setup.line))

    @classmethod
    def random_setup_fields(cls, rng: Random, players: list[str]) -> dict[str, Any]:
        """Now and then another beast path."""
        if rng.random() < 0.5:
            return {}
        return {"beast_path": rng.choices(PATH_ICONS, k=rng.randint(1, 6))}

    def state_json(self, game: GameView) -> dict[str, Any]:
        """The traps' part of the state."""
        return {"new_traps": _state(game).to_json()}

    def on_quicksand_free(self, game: GameView, event: QuicksandFree) -> None:
        """Out of the quicksand with 4 torches of his own 4 rolls."""
        game.require(NEW_TRAPS_MODULE, event)
        free_self(game, event)

    def on_quicksand_rescue(self, game: GameView, event: QuicksandRescue) -> None:
        """Rescuers' 4 torches free the quicksand's prisoner."""
        game.require(NEW_TRAPS_MODULE, event)
        rescue(game, event)

    def on_lava_climb(self, game: GameView, event: LavaClimb) -> None:
        """Out of the lava with 4 keys rolled alone."""
        game.require(NEW_TRAPS_MODULE, event)
        climb_out(game, event)

    def on_gate_remove(self, game: GameView, event: GateRemove) -> None:
        """A gate on the start's entrances discarded with 3 keys."""
        game.require(NEW_TRAPS_MODULE, event)
        remove_gate(game, event)

    def on_beast_roll(self, game: GameView, event: BeastRoll) -> None:
        """One die rolled in the beast chamber."""
        game.require(NEW_TRAPS_MODULE, event)
        beast_roll(game, event)

    def on_discover(self, game: GameView, player: PlayerState, tile: TileDef, cell: Cell) -> None:
        """The discoverer of a new trap chamber is placed inside (the lava lays the gates)."""
        on_discover(game, player, tile, cell)

    def check_roll(self, game: GameView, player: PlayerState, faces: list[str]) -> None:
        """In the beast chamber one die is rolled at a time, never all of them."""
        if caught(game, player) == "beast":
            raise Rejection(
                f"{player.player_id} creeps past the sleeping beast: he rolls one die at a "
                "time, not all his dice"
            )

    def one_die_roll(self, game: GameView, player: PlayerState) -> str | None:
        """In the beast chamber a roll is one die: a `beast_roll`."""
        return "beast_roll" if caught(game, player) == "beast" else None

    def after_roll(self, game: GameView, player: PlayerState) -> None:
        """A roll in the quicksand counts towards its 4."""
        state = _state(game)
        if caught(game, player) == "quicksand":
            pid = player.player_id
            state.quicksand[pid] = min(state.quicksand[pid] + 1, QUICKSAND_ROLLS + 1)

    def check_leave(
        self, game: GameView, player: PlayerState, there: Cell | None, doing: str, discovering: bool
    ) -> None:
        """The quicksand, the lava and the beast hold their prisoner."""
        why = held_why(game, player, discovering)
        if why is not None:
            raise Rejection(f"{player.player_id} may not {doing}: {why}")

    def check_way(
        self, game: GameView, player: PlayerState, here: Cell, there: Cell, doing: str
    ) -> None:
        """Nobody passes a gated entrance of the start."""
        side = gate_between(game, here, there)
        if side is not None:
            raise Rejection(f"{player.player_id} may not {doing}: {_gate_words(game, side)}")

    def check_enter_tile(self, game: GameView, tile: TileDef) -> None:
        """Nobody else enters the beast chamber."""
        if tile.feature == "beast":
            raise Rejection("nobody else may enter the Beast chamber")

    def held_back(self, game: GameView, player: PlayerState, discovering: bool) -> str | None:
        """The quicksand, the lava, the beast."""
        return held_why(game, player, discovering)

    def shut_side(
        self, game: GameView, player: PlayerState, chamber: PlacedTile, side: str, passage: bool
    ) -> bool:
        """A gated entrance of the start."""
        if passage or not _state(game).gates:
            return False
        return gate_between(game, chamber.cell, neighbour(chamber.cell, side)) is not None

    def closed_tile(self, game: GameView, tile: TileDef) -> bool:
        """Nobody enters the beast chamber."""
        return tile.feature == "beast"

    def open_actions(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """Getting free, rescuing, climbing out of the lava, gates, the beast's die."""
        return _trap_actions(game, player)

    def tell(self, game: GameView, event: Mapping[str, Any]) -> str | None:
        """The new traps' events in the table's words."""
        return _tell(game, event)

    def reminders(self, game: GameView) -> list[str]:
        """Who is caught, what frees him, the gates."""
        return _reminders(game)

    def tile_marks(self, game: GameView, placed: PlacedTile) -> list[dict[str, Any]]:
        """Gate tokens on the start; the beast's prisoner's space."""
        state = _state(game)
        marks: list[dict[str, Any]] = []
        if placed.tile.kind == "start":
            marks += [
                {"token": "gate", "label": f"gate token: {_gate_words(game, side)}"}
                for side in state.gates
            ]
        if placed.tile.feature == "beast":
            for pid, step in state.beast.items():
                marks.append(
                    {
                        "token": "beast",
                        "label": f"{pid.capitalize()} on space {step + 1} of "
                        f"{len(state.beast_path) + 1} past the sleeping beast",
                    }
                )
        return marks

    def player_marks(self, game: GameView, player: PlayerState) -> list[dict[str, Any]]:
        """The rolls a player in the quicksand made."""
        if caught(game, player) != "quicksand":
            return []
        rolls = min(_state(game).quicksand[player.player_id], QUICKSAND_ROLLS)
        return [
            {
                "token": "quicksand",
                "label": f"rolls in the quicksand: {rolls} of 4, trying for 4 torches",
                "count": rolls,
            }
        ]


# ----- open actions, log words, reminders --------------------------------------------------


def _trap_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    state = _state(game)
    pid = player.player_id
    found: list[OpenAction] = []
    trap = caught(game, player)
    if trap == "quicksand":
        rolls = state.quicksand[pid]
        blocked = None
        if rolls == 0:
            blocked = "roll first: the torches come from your 4 rolls"
        elif rolls > QUICKSAND_ROLLS:
            blocked = "your 4 rolls failed: others must come and roll 4 torches"
        found.append(
            priced(
                game,
                [player],
                QUICKSAND_NEED,
                "quicksand_free",
                f"get out of the quicksand (4 torches by yourself, roll {min(rolls, 4)} of 4)",
                {"type": "quicksand_free", "player": pid},
                blocked,
            )
        )
    if trap == "lava":
        found.append(
            priced(
                game,
                [player],
                LAVA_NEED,
                "lava_climb",
                "step out of the lava (4 keys by yourself)",
                {"type": "lava_climb", "player": pid},
            )
        )
    if trap == "beast":
        nxt = state.beast_path[state.beast[pid]]
        found.append(
            OpenAction(
                "beast_roll",
                f"roll one die (the next space asks for {describe_icons({nxt: 1})})",
                {"type": "beast_roll", "player": pid},
                blocked=None if player.free_dice else "no die left to roll",
                choices=[
                    {"name": face.replace("_", " "), "event": {**_beast(pid), "face": face}}
                    for face in FACES
                ],
            )
        )
    if trap is None:
        found += _rescues(game, player) + _gate_actions(game, player)
    return found


def _beast(pid: str) -> dict[str, Any]:
    return {"type": "beast_roll", "player": pid}


def _rescues(game: GameView, player: PlayerState) -> list[OpenAction]:
    state = _state(game)
    assert player.cell is not None
    if not state.quicksand:
        return []  # nobody to pull out
    found = []
    helpers = [player] + [
        p for p in game.players_in(player.cell) if p is not player and caught(game, p) is None
    ]
    for other in game.players_in(player.cell):
        rolls = state.quicksand.get(other.player_id)
        if caught(game, other) == "quicksand" and rolls is not None and rolls >= QUICKSAND_ROLLS:
            found.append(
                priced(
                    game,
                    helpers,
                    QUICKSAND_NEED,
                    "quicksand_rescue",
                    f"pull {other.player_id} out of the quicksand (4 torches)",
                    {
                        "type": "quicksand_rescue",
                        "player": other.player_id,
                        "players": [p.player_id for p in helpers],
                    },
                )
            )
    return found


def _gate_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    start = game.temple.start_cell()
    found = []
    for side in _state(game).gates:
        cells = {start, neighbour(start, side)}
        if player.cell not in cells:
            continue
        payers = [player] + [
            p
            for p in game.players.values()
            if p is not player and p.inside and p.cell in cells and caught(game, p) is None
        ]
        found.append(
            priced(
                game,
                payers,
                GATE_NEED,
                "gate_remove",
                f"remove the gate on the start's {SIDE_WORDS[side]} entrance (3 keys)",
                {"type": "gate_remove", "side": side, "players": [p.player_id for p in payers]},
            )
        )
    return found


def _tell(game: GameView, event: Mapping[str, Any]) -> str | None:
    kind = event.get("type")
    name = str(event.get("player", "")).capitalize()
    ids = event.get("players")
    names = [str(p).capitalize() for p in ids] if isinstance(ids, list) else []
    who = " and ".join(names) + (" rolls" if len(names) == 1 else " roll")
    if kind == "quicksand_free":
        return f"{name} rolls 4 torches and gets out of the quicksand"
    if kind == "quicksand_rescue":
        return f"{who} 4 torches: {name} is pulled out of the quicksand"
    if kind == "lava_climb":
        return f"{name} rolls 4 keys and steps out of the lava"
    if kind == "gate_remove":
        side = SIDE_WORDS.get(str(event.get("side")), "?")
        return f"{who} 3 keys: the gate on the start's {side} entrance is removed"
    if kind == "beast_roll":
        face = str(event.get("face", "?")).replace("_", " ")
        return f"{name} rolls one die past the sleeping beast: {face}"
    return None


def _reminders(game: GameView) -> list[str]:
    state = _state(game)
    rows = []
    for pid, rolls in sorted(state.quicksand.items()):
        if rolls <= QUICKSAND_ROLLS:
            rows.append(
                f"{pid.capitalize()} is in the quicksand: roll {rolls} of exactly 4, trying "
                "for 4 torches (count the rolls aloud)"
            )
        else:
            rows.append(
                f"{pid.capitalize()} sinks in the quicksand: others come and roll 4 torches "
                "(as often as they need)"
            )
    for pid in state.lava:
        rows.append(
            f"{pid.capitalize()} is in the lava: 4 keys by himself to step out (others may "
            "only give golden masks)"
        )
    for pid, step in sorted(state.beast.items()):
        rows.append(
            f"{pid.capitalize()} creeps past the sleeping beast: roll one die at a time, "
            f"quietly; the next space asks for {describe_icons({state.beast_path[step]: 1})}"
        )
    for side in state.gates:
        rows.append(_gate_words(game, side)[0].upper() + _gate_words(game, side)[1:])
    return rows


MODULE = NewTrapsModule
