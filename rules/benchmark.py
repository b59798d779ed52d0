"""The rules benchmark: replay speed on a long game, and open-action time on a 25-tile temple."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from rules import odds
from rules.actions import all_open_actions
from rules.engine import Game
from rules.simulate import PLAYER_COLOURS, random_events, roll
from rules.vocabulary import SIDES


@dataclass(frozen=True)
class RulesBenchmark:
    """Measured figures of the rules engine (medians over the repeats)."""

    events: int
    rejected_share: float
    events_per_second: float
    open_actions_ms_warm: float
    open_actions_ms_cold: float
    temple_tiles: int
    players: int
    repeats: int

    def to_json(self) -> dict[str, Any]:
        """Return the figures as a JSON object."""
        return asdict(self)


def long_game(events: int, seed: int) -> tuple[dict[str, Any], list[Any]]:
    """Generate a long five-player game: its setup line and `events` events (a tenth nonsense)."""
    rng = random.Random(seed)
    setup = {"type": "setup", "players": list(PLAYER_COLOURS[:5]), "difficulty": "normal"}
    game = Game.from_setup_line(setup)
    per_event = 599.0 / events
    record = list(random_events(rng, game, events, noise=0.1, seconds_per_event=per_event))
    return setup, record


def grid_temple_game(seed: int, side: int = 5) -> Game:
    """Return a six-player game on a full `side` x `side` temple, players spread, dice showing."""
    rng = random.Random(seed)
    setup: dict[str, Any] = {"type": "setup", "players": list(PLAYER_COLOURS), "tiles": {}}
    base = Game.from_setup_line({"type": "setup", "players": ["red"]}).catalog
    tile_ids = [tid for tid in base if tid != "start"]
    extra = side * side - 1 - len(tile_ids)
    for index in range(extra):
        setup["tiles"][f"extra-{index}"] = {
            "name": f"Extra chamber {index}",
            "kind": "chamber",
            "doors": ["N", "E", "W"],
            "enter": ["adventurer", "key"],
            "gems": {"count": 1, "icon": "torch", "costs": [4]},
        }
        tile_ids.append(f"extra-{index}")
    half = side // 2
    cells = [(x, y) for y in range(-half, side - half) for x in range(-half, side - half)]
    cells.remove((0, 0))
    setup["temple"] = [{"tile": "start", "cell": [0, 0], "stairs": "S"}] + [
        {"tile": tid, "cell": list(cell), "stairs": rng.choice(SIDES)}
        for tid, cell in zip(tile_ids, cells, strict=True)
    ]
    game = Game.from_setup_line(setup)
    for player in game.players.values():
        # Placed straight on a cell: the scene is a snapshot, not a game played to get there.
        player.cell = rng.choice(cells)
        game.apply(roll(rng, game, player.player_id))
    return game


def _median_seconds(work: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run_rules_benchmark(events: int = 20000, repeats: int = 5, seed: int = 1) -> RulesBenchmark:
    """Measure replay throughput and the time of all players' open actions."""
    setup, record = long_game(events, seed)

    def replay() -> Game:
        game = Game.from_setup_line(setup)
        for event in record:
            game.apply(event)
        return game

    rejected = _count_rejected(setup, record)
    replay_seconds = _median_seconds(replay, repeats)
    temple = grid_temple_game(seed)
    cold = []
    for _ in range(repeats):
        _clear_odds_caches()
        start = time.perf_counter()
        all_open_actions(temple)
        cold.append(time.perf_counter() - start)
    warm = _median_seconds(lambda: all_open_actions(temple), 200 * repeats)
    return RulesBenchmark(
        events=len(record),
        rejected_share=rejected / len(record),
        events_per_second=len(record) / replay_seconds,
        open_actions_ms_warm=warm * 1000,
        open_actions_ms_cold=statistics.median(cold) * 1000,
        temple_tiles=len(temple.temple),
        players=len(temple.players),
        repeats=repeats,
    )


def _count_rejected(setup: dict[str, Any], record: list[Any]) -> int:
    game = Game.from_setup_line(setup)
    return sum(not game.apply(event).ok for event in record)


def _clear_odds_caches() -> None:
    for cached in (
        odds.roll_outcomes,
        odds.chance_in_one_roll,
        odds.expected_rolls_to_complete,
        odds.roll_odds,
    ):
        cached.cache_clear()
