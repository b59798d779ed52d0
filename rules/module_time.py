"""Big Box module 8 (Time chambers, pages 24-25): the prohibition, sacrifice, lava and torch
chambers, the green (30 s) and blue (60 s) sand timers with their time tokens on the game
clock, and the checks the engine calls (pure Python, no I/O)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar

from rules import event_values as read
from rules.catalog import TileDef
from rules.errors import Rejection
from rules.event_values import EventValue, Field, FieldRead
from rules.module_protocol import GameView, Module
from rules.open_action import OpenAction, changed, describe_icons, priced
from rules.vocabulary import ADVENTURER, KEY, TORCH, Cell, plural

if TYPE_CHECKING:
    from rules.engine import PlayerState
    from rules.game_setup import Setup

TIME_MODULE = "time"
TIMER_SECONDS: Mapping[str, float] = {"green": 30.0, "blue": 60.0}
"""The two sand timers (page 22): green 30 seconds, blue 1 minute."""
EARLY_SECONDS = 1.0
"""A `time_up` stamped this much before its timer's end is still taken (clock jitter)."""

PROHIBITIONS: Mapping[str, str] = {
    "gems": "nobody activates gems",
    "golden_masks": "nobody frees black masks with golden masks",
    "movement": "nobody enters a chamber",
    "start": "nobody enters the starting chamber",
}
"""What a prohibition chamber forbids while the sand runs beside it (page 24)."""
PROHIBITION_PAIRS: Mapping[str, tuple[str, str]] = {
    "prohibition-1": ("gems", "golden_masks"),
    "prohibition-2": ("movement", "start"),
    "prohibition-3": ("golden_masks", "movement"),
    "prohibition-4": ("start", "gems"),
}
"""The upper and lower prohibition of each of the 4 chambers (editable defaults: the tiles
show them as pictures)."""
TIME_NAMES: Mapping[str, str] = {
    "prohibition-1": "Prohibition chamber 1",
    "prohibition-2": "Prohibition chamber 2",
    "prohibition-3": "Prohibition chamber 3",
    "prohibition-4": "Prohibition chamber 4",
    "sacrifice": "Sacrifice chamber",
    "lava-1": "Lava chamber 1",
    "lava-2": "Lava chamber 2",
    "torch": "Torch chamber",
}
"""The 8 time chambers (page 22), by the id a setup line's `time_chambers` uses."""
LAVA_NEED: Counter[str] = Counter({TORCH: 7})
LAVA_LOSERS = 2
TORCH_TASKS: tuple[tuple[Counter[str], int], ...] = (
    (Counter({TORCH: 5}), 3),
    (Counter({KEY: 4}), 2),
    (Counter({ADVENTURER: 3}), 1),
)
"""The torch chamber's 3 tasks in order, and the dice lost for failing each (page 25: "roll
5x torch or lose 3 dice total from any combination of players", ...)."""
TORCH_PENALTIES = ("dice", "gems")
"""Page 25 prints the torch chamber's tasks twice: failing one loses dice, or (the second table,
"roll 5x torch or else add 3 magic gems to the gem depot") adds as many magic gems to the
depot. The setup line's `torch_penalty` says which the table plays."""


def _clock(seen: FieldRead) -> float | None:
    """The game clock second an event is stamped with (the engine refused any other value
    before), or None when it is not stamped."""
    value = seen.value
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _losers(seen: FieldRead) -> tuple[str, ...] | None:
    """The players who lose the dice, one id a die, as the table names them (None: it does
    not, and the engine chooses)."""
    if not seen.present:
        return None
    if not isinstance(seen.value, list):
        raise Rejection("'losers' must list player ids, one for each die lost")
    return tuple(read.player(replace(seen, value=pid)) for pid in seen.value)


_players_together = read.value_list("'players' must list the players who roll together", 1)


class TimeUp(EventValue):
    """A sand timer ran out (the dashboard's clock emits it)."""

    type_name = "time_up"
    cell = Field(read.cell)
    """The chamber the timer runs on."""
    t = Field(_clock)
    """When the sand ran out on the game clock (None: at the timer's end)."""
    losers = Field(_losers)
    """Who lose the dice a penalty takes (None: those holding the most)."""


class Lava(EventValue):
    """Players in a lava chamber roll 7 torches together before its sand runs out."""

    type_name = "lava"
    cell = Field(read.cell)
    players = Field(_players_together)
    """The ids of the players who roll (each looked up, and refused once escaped, in order)."""


class TorchTask(EventValue):
    """Players in the torch chamber master its next task before its sand runs out."""

    type_name = "torch_task"
    cell = Field(read.cell)
    players = Field(_players_together)
    """The ids of the players who roll (each looked up, and refused once escaped, in order)."""


def kind_of_time(time_id: str) -> str:
    """`prohibition`, `sacrifice`, `lava` or `torch`."""
    return time_id.split("-")[0]


def colour_of(time_id: str) -> str:
    """Prohibition chambers take the green sand timer, all others the blue (page 24)."""
    return "green" if kind_of_time(time_id) == "prohibition" else "blue"


def time_chambers(chosen: tuple[str, ...] | list[str] | None = None) -> dict[str, TileDef]:
    """Return the time chambers in play (all eight when `chosen` is None). Doors and entry
    icons are editable defaults."""
    ids = list(TIME_NAMES) if chosen is None else list(chosen)
    doors = frozenset({"N", "E", "W"})
    return {
        f"time-{t}": TileDef(
            f"time-{t}", TIME_NAMES[t], "chamber", doors, (ADVENTURER, KEY), time=t
        )
        for t in ids
    }


@dataclass
class Timer:
    """A sand timer running on a time chamber."""

    colour: str
    cell: Cell
    started: float
    phase: int = 1
    """A prohibition chamber's timer runs twice: beside the upper icon (1), then the lower (2)."""

    @property
    def ends(self) -> float:
        """The game clock second its sand runs out."""
        return self.started + TIMER_SECONDS[self.colour]

    def to_json(self) -> dict[str, Any]:
        """Return the timer as `replay --json` shows it."""
        return {
            "colour": self.colour,
            "cell": list(self.cell),
            "started": self.started,
            "ends": self.ends,
            "phase": self.phase,
        }


@dataclass
class TimeState:
    """Module 8's part of a game: the running timers, the chambers waiting with a time token,
    the dice lying in the sacrifice chamber, and the lava and torch chambers' progress."""

    chosen: tuple[str, ...]
    timers: list[Timer] = field(default_factory=list)
    waiting: list[Cell] = field(default_factory=list)
    """Time chambers holding time token #1, #2 (in that order) for a timer in use."""
    sacrificed: list[str] = field(default_factory=list)
    """Players whose die lies in the sacrifice chamber, to be fetched before the sand runs out."""
    done: list[Cell] = field(default_factory=list)
    """Lava chambers cooled, in time."""
    torch_tasks: int = 0
    """Tasks of the torch chamber mastered so far."""
    now: float = 0.0
    """The latest game clock second an event said (timers start there)."""

    def to_json(self) -> dict[str, Any]:
        """Return module 8's part of the state, as `replay --json` shows it."""
        return {
            "time_chambers": list(self.chosen),
            "timers": [timer.to_json() for timer in self.timers],
            "time_tokens": [list(cell) for cell in self.waiting],
            "sacrificed": list(self.sacrificed),
            "torch_tasks_done": self.torch_tasks,
        }


def time_of(game: GameView, tile: TileDef) -> str | None:
    """The tile's time chamber id when module 8 is in play."""
    return tile.time if game.time is not None else None


def time_at(game: GameView, cell: Cell | None) -> str | None:
    """The time chamber id of the chamber at `cell`, if any."""
    placed = None if cell is None else game.temple.at(cell)
    return None if placed is None else time_of(game, placed.tile)


def timer_on(game: GameView, cell: Cell | None) -> Timer | None:
    """The timer running on the chamber at `cell`, if any."""
    state = game.time
    if state is None:
        return None
    return next((t for t in state.timers if t.cell == cell), None)


def see_clock(game: GameView, event: Mapping[str, Any]) -> None:
    """Remember the game clock an event was stamped with."""
    if game.time is not None:
        t = event.get("t")
        if isinstance(t, int | float) and not isinstance(t, bool):
            game.time.now = max(game.time.now, float(t))


def on_discover(game: GameView, tile: TileDef, cell: Cell) -> None:
    """A time chamber discovered: its sand timer starts, or it waits with a time token while
    that timer runs elsewhere (page 24)."""
    state = game.time
    time_id = time_of(game, tile)
    if state is None or time_id is None:
        return
    colour = colour_of(time_id)
    if any(t.colour == colour for t in state.timers):
        state.waiting.append(cell)
    else:
        _start(game, cell, state.now)


def _start(game: GameView, cell: Cell, now: float) -> None:
    state = game.time
    assert state is not None
    time_id = time_at(game, cell)
    assert time_id is not None
    state.timers.append(Timer(colour_of(time_id), cell, now))
    if kind_of_time(time_id) == "sacrifice":
        # Each player places one die in the chamber at once (page 25).
        state.sacrificed = []
        for player in game.players.values():
            if player.inside and player.dice >= 1:
                game.remove_die(player)
                state.sacrificed.append(player.player_id)
    elif kind_of_time(time_id) == "torch":
        state.torch_tasks = 0


def prohibited(game: GameView) -> set[str]:
    """What the prohibition chambers forbid now (their sand running beside it)."""
    state = game.time
    if state is None:
        return set()
    found = set()
    for timer in state.timers:
        time_id = time_at(game, timer.cell)
        if time_id is not None and time_id in PROHIBITION_PAIRS:
            found.add(PROHIBITION_PAIRS[time_id][timer.phase - 1])
    return found


def check(game: GameView, what: str) -> None:
    """Refuse an action a running prohibition forbids (page 24)."""
    if what in prohibited(game):
        raise Rejection(f"a prohibition chamber's sand is running: {PROHIBITIONS[what]}")


def on_enter(game: GameView, player: PlayerState, cell: Cell) -> None:
    """Entering the sacrifice chamber while its sand runs fetches the player's die back."""
    state = game.time
    if state is None or time_at(game, cell) != "sacrifice" or timer_on(game, cell) is None:
        return
    if player.player_id in state.sacrificed:
        state.sacrificed.remove(player.player_id)
        player.dice += 1


def _payers_in(game: GameView, ids: tuple[Any, ...], cell: Cell) -> list[PlayerState]:
    payers = [game.still_inside(game.lookup(pid)) for pid in ids]
    if len({p.player_id for p in payers}) != len(payers):
        raise Rejection("each player may be listed only once in 'players'")
    for payer in payers:
        if payer.cell != cell:
            raise Rejection(f"{payer.player_id} is not inside that chamber")
    return payers


def _running(game: GameView, event: Lava | TorchTask, kind: str) -> Cell:
    cell = event.cell
    time_id = time_at(game, cell)
    if time_id is None or kind_of_time(time_id) != kind:
        raise Rejection(f"there is no {kind} chamber at {list(cell)}")
    if timer_on(game, cell) is None:
        raise Rejection("no sand runs on that chamber: there is nothing to master now")
    return cell


def cool_lava(game: GameView, event: Lava) -> None:
    """Players in a lava chamber roll 7 torches together before its sand runs out (page 25)."""
    state = game.time
    assert state is not None
    cell = _running(game, event, "lava")
    if cell in state.done:
        raise Rejection("this lava chamber is already mastered")
    payers = _payers_in(game, event.players, cell)
    plan, spends = game.charge(event, payers, Counter(LAVA_NEED), "to master the lava")
    game.settle(plan, spends)
    state.done.append(cell)


def torch_task(game: GameView, event: TorchTask) -> None:
    """Players in the torch chamber master its next task (page 25)."""
    state = game.time
    assert state is not None
    cell = _running(game, event, "torch")
    if state.torch_tasks >= len(TORCH_TASKS):
        raise Rejection("the torch chamber's 3 tasks are mastered")
    payers = _payers_in(game, event.players, cell)
    need, _ = TORCH_TASKS[state.torch_tasks]
    plan, spends = game.charge(event, payers, Counter(need), "for the torch chamber's task")
    game.settle(plan, spends)
    state.torch_tasks += 1


def _dice_losers(game: GameView, event: TimeUp, count: int, distinct: bool) -> list[Any]:
    """Who loses the dice: `losers` when the table names them, else the players inside
    holding the most dice, one die at a time (ties in setup order)."""
    inside = [p for p in game.players.values() if p.inside]
    named = event.losers
    if named is not None:
        players = [game.players[pid] for pid in named]
        if any(not p.inside for p in players):
            raise Rejection("only players inside the temple lose dice here")
        if distinct and len({p.player_id for p in players}) != len(players):
            raise Rejection("two different players each lose one die")
        expected = min(count, len(inside)) if distinct else count
        if len(players) != expected:
            raise Rejection(f"'losers' must name {plural(expected, 'player')}")
        return players
    dice = {p.player_id: p.dice for p in inside}
    chosen = []
    for _ in range(count):
        pool = [p for p in inside if dice[p.player_id] > 0]
        if distinct:
            pool = [p for p in pool if p not in chosen]
        if not pool:
            break
        best = max(pool, key=lambda p: dice[p.player_id])
        chosen.append(best)
        dice[best.player_id] -= 1
    return chosen


def time_up(game: GameView, event: TimeUp) -> None:
    """A sand timer ran out (the dashboard's clock emits it): the chamber's penalty, then the
    timer is free for the next chamber with a time token (page 24)."""
    state = game.time
    assert state is not None
    cell = event.cell
    timer = timer_on(game, cell)
    if timer is None:
        raise Rejection(f"no sand timer runs on the chamber at {list(cell)}")
    t = event.t
    if t is not None and t < timer.ends - EARLY_SECONDS:
        raise Rejection(f"the sand is still running: {timer.ends - t:.0f} s left")
    now = timer.ends if t is None else float(t)
    time_id = time_at(game, cell)
    assert time_id is not None
    kind = kind_of_time(time_id)
    losers: list[Any] = []
    if kind == "lava" and cell not in state.done:
        losers = _dice_losers(game, event, LAVA_LOSERS, distinct=True)
    elif kind == "torch" and state.torch_tasks < len(TORCH_TASKS):
        penalty = TORCH_TASKS[state.torch_tasks][1]
        if game.setup.torch_penalty == "gems":
            game.depot += penalty  # "or else add 3 magic gems to the gem depot" (page 25)
        else:
            losers = _dice_losers(game, event, penalty, distinct=False)
    for loser in losers:
        if loser.dice >= 1:
            game.remove_die(loser)
    if kind == "sacrifice":
        state.sacrificed = []  # dice not fetched in time go back to the box
    if kind == "prohibition" and timer.phase == 1:
        timer.phase, timer.started = 2, now  # flip it beside the lower icon
        return
    state.timers.remove(timer)
    colour = timer.colour
    queued = next((c for c in state.waiting if colour_of(time_at(game, c) or "") == colour), None)
    if queued is not None:
        state.waiting.remove(queued)
        _start(game, queued, now)


def due(game: GameView, now: float) -> list[dict[str, Any]]:
    """The `time_up` events whose sand ran out by game second `now` (for the server's clock)."""
    state = game.time
    if state is None:
        return []
    return [
        {"type": "time_up", "cell": list(timer.cell)}
        for timer in sorted(state.timers, key=lambda t: t.ends)
        if timer.ends <= now
    ]


def timers_view(game: GameView) -> list[dict[str, Any]]:
    """The running timers for the dashboard: where, which colour, when they end, and what the
    table must do or not do meanwhile."""
    state = game.time
    if state is None:
        return []
    rows = []
    for timer in state.timers:
        time_id = time_at(game, timer.cell)
        assert time_id is not None
        kind = kind_of_time(time_id)
        if kind == "prohibition":
            rule = PROHIBITIONS[PROHIBITION_PAIRS[time_id][timer.phase - 1]]
            task = f"{rule} ({'upper' if timer.phase == 1 else 'lower'} sand icon)"
        elif kind == "sacrifice":
            who = ", ".join(pid.capitalize() for pid in state.sacrificed) or "nobody"
            task = f"enter it to fetch your die back: {who} still to come"
        elif kind == "lava":
            task = (
                "mastered ✓"
                if timer.cell in state.done
                else "enter it and roll 7 torches together, or two players lose a die"
            )
        else:
            if state.torch_tasks < len(TORCH_TASKS):
                need, lose = TORCH_TASKS[state.torch_tasks]
                icons = ", ".join(plural(n, icon) for icon, n in need.items())
                cost = (
                    f"{plural(lose, 'magic gem')} more in the depot"
                    if game.setup.torch_penalty == "gems"
                    else f"{plural(lose, 'die')} lost"
                )
                task = f"task {state.torch_tasks + 1} of 3: {icons} together, or {cost}"
            else:
                task = "all 3 tasks mastered ✓"
        rows.append(
            {
                "colour": timer.colour,
                "cell": list(timer.cell),
                "name": TIME_NAMES[time_id],
                "ends": timer.ends,
                "seconds": TIMER_SECONDS[timer.colour],
                "task": task,
            }
        )
    return rows


class TimeModule(Module):
    """Module 8 behind the module protocol."""

    id = TIME_MODULE
    event_types = ("time_up", "lava", "torch_task")
    event_classes = (TimeUp, Lava, TorchTask)
    clock_events = frozenset({"time_up"})
    state_attr = "time"
    hook_order: ClassVar[Mapping[str, int]] = {"on_discover": 30, "after_enter": 20}

    @classmethod
    def create_state(cls, setup: Setup) -> TimeState:
        """The time chambers chosen, no sand running."""
        return TimeState(setup.time_chambers)

    def state_json(self, game: GameView) -> dict[str, Any]:
        """Module 8's part of the state."""
        return game.time.to_json()  # type: ignore[no-any-return]

    def on_time_up(self, game: GameView, event: TimeUp) -> None:
        """A sand timer ran out (page 24); the dashboard's clock emits it."""
        game.require(TIME_MODULE, event)
        time_up(game, event)

    def on_lava(self, game: GameView, event: Lava) -> None:
        """7 torches rolled together in a lava chamber in time (page 25)."""
        game.require(TIME_MODULE, event)
        cool_lava(game, event)

    def on_torch_task(self, game: GameView, event: TorchTask) -> None:
        """The torch chamber's next task mastered in time (page 25)."""
        game.require(TIME_MODULE, event)
        torch_task(game, event)

    def before_judge(self, game: GameView, event: Mapping[str, Any]) -> float:
        """Remember the event's clock; return the clock before it."""
        saved = game.time.now
        see_clock(game, event)
        return saved

    def on_rejected(self, game: GameView, saved: Any) -> None:
        """A rejected event's clock is forgotten."""
        game.time.now = saved

    def open_actions(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """A lava or torch chamber's task while its sand runs."""
        return _time_actions(game, player)

    def filter_open_actions(self, game: GameView, found: list[OpenAction]) -> list[OpenAction]:
        """Grey out what a running prohibition chamber forbids."""
        return _time_blocks(game, found)

    def check_allowed(self, game: GameView, what: str) -> None:
        """A running prohibition (page 24)."""
        check(game, what)

    def on_discover(self, game: GameView, player: PlayerState, tile: TileDef, cell: Cell) -> None:
        """A time chamber's sand timer starts, or waits (page 24)."""
        on_discover(game, tile, cell)

    def after_enter(
        self,
        game: GameView,
        player: PlayerState,
        origin: Cell,
        event: Mapping[str, Any],
        through: bool,
    ) -> None:
        """The sacrifice chamber gives the player's die back."""
        assert player.cell is not None
        on_enter(game, player, player.cell)


# ----- open actions (rules/actions.py asks for them through the protocol) ---------------


_BANNED_BY = {
    "activate": "gems",
    "activate_linked": "gems",
    "unlock": "golden_masks",
    "enter": "movement",
    "carry": "movement",
}


def _time_blocks(game: GameView, found: list[OpenAction]) -> list[OpenAction]:
    """Grey out what a running prohibition chamber forbids (module 8, page 24)."""

    banned = prohibited(game)
    if not banned:
        return found
    start = game.temple.start_cell()
    out = []
    for action in found:
        what = _BANNED_BY.get(action.action)
        if what == "movement" and "movement" not in banned and "start" in banned:
            what = "start" if action.event.get("cell") == list(start) else None
        if what in banned and action.blocked is None:
            action = changed(action, blocked="prohibition: " + PROHIBITIONS[what])
        out.append(action)
    return out


def _time_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    """A lava or torch chamber's task while its sand runs (module 8, page 25)."""

    state = game.time
    assert state is not None and player.cell is not None
    time_id = time_at(game, player.cell)
    if time_id is None or timer_on(game, player.cell) is None:
        return []
    together = game.players_in(player.cell)
    ids = [p.player_id for p in together]
    cell = list(player.cell)
    kind = kind_of_time(time_id)
    if kind == "lava" and player.cell not in state.done:
        return [
            priced(
                game,
                together,
                LAVA_NEED,
                "lava",
                "master the lava (7 torches together)",
                {"type": "lava", "cell": cell, "players": ids},
            )
        ]
    if kind == "torch" and state.torch_tasks < len(TORCH_TASKS):
        need, _ = TORCH_TASKS[state.torch_tasks]
        return [
            priced(
                game,
                together,
                need,
                "torch_task",
                f"torch chamber task {state.torch_tasks + 1} ({describe_icons(need)} together)",
                {"type": "torch_task", "cell": cell, "players": ids},
            )
        ]
    return []
