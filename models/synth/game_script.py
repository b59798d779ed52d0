"""A legal game of Escape played in real time by every player at once, each action timed."""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rules.actions import open_actions
from rules.engine import DIE_ICONS_TO_DISCOVER, Game
from rules.vocabulary import BLACK_MASK, FACES, GOLDEN_MASK, KEY, Cell, side_towards

ROLL_WEIGHTS = np.array([2.0, 1.1, 1.1, 1.0, 0.55])
"""Chances of the faces in `FACES` order: a little kinder with black masks than real dice."""
LUCK = 0.45
"""Chance that each icon a player is rolling for shows up anyway (players keep trying)."""
ROLL_AGAIN = 2.0
"""Weight of rolling again rather than taking a doable action (weighted as below)."""
_ACTION_WEIGHTS = {"escape": 60.0, "activate": 12.0, "unlock": 6.0, "discover": 5.0, "enter": 1.0}

# Seconds of each phase, as (low, high) ranges: hand in, holding or carrying, hand out.
_REACH = {
    "dice": (0.15, 0.3),
    "discover": (0.3, 0.5),
    "enter": (0.25, 0.4),
    "activate": (0.3, 0.5),
    "escape": (0.25, 0.4),
    "unlock": (0.2, 0.3),
}
_HOLD = {
    "dice": (0.2, 0.5),
    "discover": (0.6, 1.0),
    "enter": (0.4, 0.8),
    "activate": (0.5, 0.9),
    "escape": (0.5, 0.9),
    "unlock": (0.25, 0.4),
}
_LEAVE = (0.2, 0.4)
_TUMBLE = (0.3, 1.0)
_PAUSE = (0.2, 1.2)
"""A player's pause between two actions (looking, thinking, waiting for a partner)."""

_Option = tuple[float, dict[str, Any], tuple[str, ...]]
"""A doable action: its weight, its event (no `t` yet) and the partners who pay with it."""
_Goal = tuple[float, Counter[str]]
"""An action to roll for: its weight and every icon it costs."""


@dataclass(frozen=True)
class Timing:
    """When one action's hand comes, holds and goes; frame times of the video, in seconds."""

    start: float
    """The hand starts to reach in from the player's seat."""
    grab: float
    """The hand is over its target: it picks up the dice, a tile, the figure or gems."""
    release: float
    """It lets go: the dice start to tumble, the carried piece is put down."""
    gone: float
    """The hand is out of view."""
    land: float
    """The dice are at rest (the release for every other action)."""

    @property
    def done(self) -> float:
        """Return when the change is complete and at rest with no hand over it."""
        return max(self.gone, self.land)


@dataclass(frozen=True)
class Action:
    """One timed action of one player and the game-record event it makes (with `t`)."""

    player: str
    event: dict[str, Any]
    timing: Timing
    partners: tuple[str, ...] = ()
    """Other players who pay for it (a shared activation); only `player`'s hand moves."""

    @property
    def kind(self) -> str:
        """Return the event type."""
        return str(self.event["type"])


@dataclass
class GameScript:
    """The whole game shown by a video: its setup, the dice at the start and the actions."""

    setup: dict[str, Any]
    opening: list[dict[str, Any]]
    """One `dice` event per player at t = 0: the faces their dice show when the video starts."""
    actions: list[Action] = field(default_factory=list)
    """Every action, in the order its event completes."""

    def record(self) -> list[dict[str, Any]]:
        """Return the game record: the setup line, then every event in order."""
        return [self.setup, *self.opening, *(a.event for a in self.actions)]


def frame_count(seconds: float, fps: float) -> int:
    """Return how many frames a video of `seconds` at `fps` has (at least one)."""
    return max(1, math.ceil(seconds * fps - 1e-9))


class _Player:
    """Scheduling state of one player: when they decide next and when they are free."""

    def __init__(self, pid: str, ready: int) -> None:
        self.pid = pid
        self.ready = ready
        self.busy_until = 0


class _Planner:
    """Plays the game: decides actions at frame times, applies events as they complete."""

    def __init__(
        self,
        rng: np.random.Generator,
        setup: dict[str, Any],
        fits: Callable[[Cell], bool],
        fps: float,
        last_frame: int,
    ) -> None:
        self.rng = rng
        self.game = Game.from_setup_line(setup)
        self.fits = fits
        self.fps = fps
        self.last_frame = last_frame
        self.pending: list[tuple[int, int, Action]] = []
        self.seq = 0
        self.done: list[Action] = []
        self.cells: set[Cell] = set()
        self.tiles: set[str] = set()
        self.chambers: set[Cell] = set()
        self.gems_in_flight = 0
        self.players = {pid: _Player(pid, 0) for pid in self.game.players}

    # ----- time ----------------------------------------------------------------------------

    def _span(self, low_high: tuple[float, float]) -> int:
        """Draw a phase length in frames (at least one)."""
        return max(1, round(float(self.rng.uniform(*low_high)) * self.fps))

    def _timing(self, kind: str, start: int) -> tuple[int, int, int, int, int]:
        """Return the frames of start, grab, release, gone and land of a new action."""
        grab = start + self._span(_REACH[kind])
        release = grab + self._span(_HOLD[kind])
        gone = release + self._span(_LEAVE)
        land = release + self._span(_TUMBLE) if kind == "dice" else release
        return start, grab, release, gone, land

    # ----- the loop ------------------------------------------------------------------------

    def run(self, opening: list[dict[str, Any]]) -> list[Action]:
        """Play from the opening dice to the last frame; return the actions in order."""
        for event in opening:
            self._apply(event)
        for player in self.players.values():
            player.ready = self._span((0.0, 1.0)) - 1
        while True:
            waiting = [p for p in self.players.values() if p.ready <= self.last_frame]
            if not waiting:
                break
            player = min(waiting, key=lambda p: (p.ready, p.pid))
            now = player.ready
            self._complete(until=now)
            if self.game.players[player.pid].escaped:
                player.ready = self.last_frame + 1
                continue
            action = self._decide(player.pid, now)
            if action is None:
                player.ready = now + self._span(_PAUSE)
                continue
            end = round(action.timing.done * self.fps)
            if end > self.last_frame:
                player.ready = self.last_frame + 1  # no time left to finish anything
                continue
            self._reserve(action)
            heapq.heappush(self.pending, (end, self.seq, action))
            self.seq += 1
            for pid in (player.pid, *action.partners):
                self.players[pid].busy_until = end
                self.players[pid].ready = end + self._span(_PAUSE)
        self._complete(until=self.last_frame)
        return self.done

    def _complete(self, until: int) -> None:
        """Apply every pending action that completes by frame `until`, in completion order."""
        while self.pending and self.pending[0][0] <= until:
            _, _, action = heapq.heappop(self.pending)
            self._apply(action.event)
            self._release(action)
            self.done.append(action)

    def _apply(self, event: dict[str, Any]) -> None:
        verdict = self.game.apply(event)
        if not verdict.ok:
            raise AssertionError(f"the script made an event the rules reject: {event}: {verdict}")

    def _reserve(self, action: Action) -> None:
        event = action.event
        if action.kind == "discover":
            self.cells.add(tuple(event["cell"]))
            self.tiles.add(event["tile"])
        elif action.kind == "activate":
            self.chambers.add(tuple(event["cell"]))
            self.gems_in_flight += event["gems"]

    def _release(self, action: Action) -> None:
        event = action.event
        if action.kind == "discover":
            self.cells.discard(tuple(event["cell"]))
            self.tiles.discard(event["tile"])
        elif action.kind == "activate":
            self.chambers.discard(tuple(event["cell"]))
            self.gems_in_flight -= event["gems"]

    # ----- choosing ------------------------------------------------------------------------

    def _decide(self, pid: str, now: int) -> Action | None:
        """Choose what `pid` does from frame `now`: an open action, else a roll."""
        options, goals = self._options(pid, now)
        weights = np.array([w for w, _, _ in options] + [ROLL_AGAIN])
        pick = int(self.rng.choice(len(weights), p=weights / weights.sum()))
        if pick < len(options):
            _, event, partners = options[pick]
        else:
            rolled = self._roll(pid, goals)
            if rolled is None:
                return None
            event, partners = rolled, ()
        frames = self._timing(event["type"], now)
        timing = Timing(*(frame / self.fps for frame in frames))
        action = Action(pid, {**event, "t": round(timing.done, 3)}, timing, partners)
        return action if self._still_legal(action) else None

    def _still_legal(self, action: Action) -> bool:
        """Tell whether the action stays legal among the pending ones, in completion order."""
        trial = self.game.copy()
        queue = [(a.timing.done, k, a) for k, (_, _, a) in enumerate(sorted(self.pending))]
        queue.append((action.timing.done, len(queue), action))
        return all(trial.apply(a.event).ok for _, _, a in sorted(queue, key=lambda q: q[:2]))

    def _options(
        self, pid: str, now: int
    ) -> tuple[
        list[tuple[float, dict[str, Any], tuple[str, ...]]], list[tuple[float, Counter[str]]]
    ]:
        """Return the doable actions as (weight, event, partners) and goals as (weight, need)."""
        game = self.game
        player = game.players[pid]
        here = player.cell
        assert here is not None
        doable: list[_Option] = []
        goals: list[_Goal] = []
        for option in open_actions(game, pid):
            event = dict(option.event)
            kind = option.action
            weight = _ACTION_WEIGHTS.get(kind, 1.0)
            partners: tuple[str, ...] = ()
            possible = option.possible
            if kind == "discover":
                cell = tuple(event["cell"])
                tiles = [t for t in game.drawable_tiles() if t.tile_id not in self.tiles]
                if cell in self.cells or not self.fits(cell) or not tiles:
                    continue
                event["tile"] = tiles[int(self.rng.integers(len(tiles)))].tile_id
                event["stairs"] = side_towards(cell, here)
            elif kind == "enter":
                gain = self._worth(tuple(event["cell"])) - self._worth(here)
                weight *= max(0.0, gain) + 0.3
            elif kind == "activate":
                found = self._activation(pid, event, now)
                if found is None:
                    continue
                event, partners, possible = found
                weight *= event["gems"]
            elif kind == "unlock":
                helper = event.get("by", pid)
                if helper != pid:  # a partner's golden mask: only one between two actions
                    if self.players[helper].busy_until > now:
                        continue
                    partners = (helper,)
                weight *= 2.0 if player.free_dice <= 2 else 1.0
            elif kind == "escape" and game.keys_to_escape > player.free_dice:
                continue
            if possible:
                doable.append((weight, event, partners))
            elif option.blocked is None:
                goals.append((weight, self._need(kind, event)))
        return doable, goals

    def _need(self, kind: str, event: dict[str, Any]) -> Counter[str]:
        """Return every icon an action costs (a roll turns over all the dice showing)."""
        game = self.game
        if kind == "discover":
            return Counter(DIE_ICONS_TO_DISCOVER)
        if kind == "escape":
            return Counter({KEY: game.keys_to_escape})
        if kind == "unlock":
            return Counter({GOLDEN_MASK: 1})
        chamber = game.temple.at(tuple(event["cell"]))
        assert chamber is not None
        if kind == "enter":
            return Counter(chamber.tile.enter)
        spec = chamber.tile.gems
        assert spec is not None
        return Counter({spec.icon: spec.cost(event["gems"])})

    def _worth(self, cell: Cell) -> float:
        """Return how much a chamber is worth standing in: gems to activate, the exit, a door."""
        game = self.game
        chamber = game.temple.at(cell)
        assert chamber is not None
        if chamber.tile.kind == "exit" and game.keys_to_escape <= 5:
            return 20.0
        if (
            chamber.tile.gems is not None
            and not chamber.gems
            and cell not in self.chambers
            and game.depot > self.gems_in_flight
        ):
            return 10.0
        frontier = [
            c
            for _, c in game.temple.passages(cell)
            if game.temple.at(c) is None and c not in self.cells and self.fits(c)
        ]
        return 4.0 if frontier else 1.0

    def _activation(
        self, pid: str, event: dict[str, Any], now: int
    ) -> tuple[dict[str, Any], tuple[str, ...], bool] | None:
        """Return the activation with the idle partners it needs, and whether it is paid for.

        Only partners between two actions join (their dice are at rest); None when the
        activation cannot be done now whatever is rolled.
        """
        game = self.game
        cell = tuple(event["cell"])
        gems = int(event["gems"])
        if cell in self.chambers or game.depot - self.gems_in_flight < gems:
            return None
        chamber = game.temple.at(cell)
        assert chamber is not None and chamber.tile.gems is not None
        icon, need = chamber.tile.gems.icon, chamber.tile.gems.cost(gems)
        payers = [pid]
        have = game.players[pid].showing[icon]
        for other in game.players_in(cell):
            if have >= need and (gems == 1 or len(payers) >= 2):
                break
            if other.player_id != pid and self.players[other.player_id].busy_until <= now:
                payers.append(other.player_id)
                have += other.showing[icon]
        if gems >= 2 and len(payers) < 2:
            return None
        return {**event, "players": payers}, tuple(payers[1:]), have >= need

    def _roll(self, pid: str, goals: list[_Goal]) -> dict[str, Any] | None:
        """Return a roll of every free die, luckier for the icons of one goal."""
        player = self.game.players[pid]
        if player.free_dice == 0:
            return None  # every die cursed: no golden mask can show, so wait
        chances = ROLL_WEIGHTS / ROLL_WEIGHTS.sum()
        faces = [str(f) for f in self.rng.choice(FACES, size=player.free_dice, p=chances)]
        if goals:
            weights = np.array([w for w, _ in goals])
            _, need = goals[int(self.rng.choice(len(goals), p=weights / weights.sum()))]
            slots = [int(k) for k in self.rng.permutation(len(faces))]
            for icon in sorted(need.elements()):
                if slots and self.rng.random() < LUCK:
                    faces[slots.pop()] = icon
        faces += [BLACK_MASK] * player.locked
        order = self.rng.permutation(len(faces))
        return {"type": "dice", "player": pid, "faces": [faces[int(i)] for i in order]}


def opening_dice(rng: np.random.Generator, players: list[str], dice: int) -> list[dict[str, Any]]:
    """Return each player's dice at the start of the video as `dice` events at t = 0."""
    weights = ROLL_WEIGHTS / ROLL_WEIGHTS.sum()
    return [
        {
            "type": "dice",
            "player": pid,
            "faces": [str(f) for f in rng.choice(FACES, size=dice, p=weights)],
            "t": 0.0,
        }
        for pid in players
    ]


def play_game(
    rng: np.random.Generator,
    setup: dict[str, Any],
    fits: Callable[[Cell], bool],
    seconds: float,
    fps: float,
) -> GameScript:
    """Play a lively legal game for `seconds` of video at `fps`; every event completes in it.

    `fits(cell)` tells whether a new chamber at `cell` would lie on the table in view.
    """
    game = Game.from_setup_line(setup)
    players = list(game.players)
    opening = opening_dice(rng, players, game.setup.starting_dice)
    last_frame = frame_count(seconds, fps) - 1
    planner = _Planner(rng, setup, fits, fps, last_frame)
    actions = planner.run(opening)
    script = GameScript(setup, opening, actions)
    check = Game.from_setup_line(setup)
    for event in script.record()[1:]:
        verdict = check.apply(event)
        if not verdict.ok:
            raise AssertionError(f"the record does not replay: {event}: {verdict.reason}")
    return script
