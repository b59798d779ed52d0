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
from rules.module_characters import ABILITIES
from rules.modules import curse_cards_in_play, treasures_in_play
from rules.modules_registry import MODULES
from rules.open_action import forget_prices
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
    modules: tuple[str, ...] = ()
    module_events: int = 0
    """Accepted events of the modules (curse, lift, claim, use, ...) in the replayed game."""

    def to_json(self) -> dict[str, Any]:
        """Return the figures as a JSON object."""
        return asdict(self)


BENCH_QUESTS = ("altar", "task", "tree")
"""The quest chambers the benchmark plays with module 5."""
BENCH_TRAPS = ("cliff-torch", "invocation", "slide", "platform")
"""The trap chambers the benchmark plays with module 7."""
BENCH_TIME = ("prohibition-1", "sacrifice", "lava-1", "torch")
"""The time chambers the benchmark plays with module 8."""


def bench_characters(players: list[str]) -> dict[str, str]:
    """Module 6 in the benchmark: every player an activatable card, each character once
    (the Mechanic's turn lists 3 ways for every chamber: the heaviest action to price)."""
    cards = [a.ability_id for a in ABILITIES.values() if a.activatable]
    return {pid: cards[i % len(cards)] for i, pid in enumerate(players)}


def _add_modules(setup: dict[str, Any], modules: tuple[str, ...]) -> None:
    """Put the modules and the benchmark's choices for them into a setup line (nothing when
    there are none)."""
    if not modules:
        return
    setup["modules"] = list(modules)
    rng = random.Random(7)  # the Queenie modules' choices: the same in every run
    for module in modules:
        setup.update(MODULES[module].random_setup_fields(rng, list(setup["players"])))
    if "quests" in modules:
        setup["quests"] = list(BENCH_QUESTS)
    if "characters" in modules:
        setup["characters"] = bench_characters(setup["players"])
    if "traps" in modules:
        setup["traps"] = list(BENCH_TRAPS)
    if "time" in modules:
        setup["time_chambers"] = list(BENCH_TIME)


def long_game(
    events: int, seed: int, modules: tuple[str, ...] = ()
) -> tuple[dict[str, Any], list[Any]]:
    """Generate a long five-player game: its setup line and `events` events (a tenth nonsense),
    with these modules in play (their setup key only when there are some)."""
    rng = random.Random(seed)
    setup: dict[str, Any] = {
        "type": "setup",
        "players": list(PLAYER_COLOURS[:5]),
        "difficulty": "normal",
    }
    _add_modules(setup, modules)
    game = Game.from_setup_line(setup)
    per_event = 599.0 / events
    record = list(random_events(rng, game, events, noise=0.1, seconds_per_event=per_event))
    return setup, record


def grid_temple_game(seed: int, side: int = 5, modules: tuple[str, ...] = ()) -> Game:
    """Return a six-player game on a full `side` x `side` temple, players spread, dice showing;
    with modules, every player also holds a curse and a treasure of each kind, and every
    chamber holds a treasure tile, so that every module action is priced."""
    rng = random.Random(seed)
    setup: dict[str, Any] = {"type": "setup", "players": list(PLAYER_COLOURS), "tiles": {}}
    _add_modules(setup, modules)
    base = Game.from_setup_line(setup).catalog  # before its temple is laid: the whole pile
    tile_ids = [
        tid
        for tid in base
        if tid != "start"
        and base[tid].special != "chalice"
        and base[tid].quest is None
        and base[tid].trap is None
        and base[tid].time is None
    ]
    # The Queenie modules' chambers are never laid at set-up: they replace the first tiles of
    # the grid once the game is set up (so that their open actions are priced too).
    features = [tid for tid in tile_ids if base[tid].feature is not None]
    tile_ids = [tid for tid in tile_ids if base[tid].feature is None]
    del tile_ids[side * side - 1 :]
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
    for tid, cell in zip(features, cells, strict=False):
        old = game.temple.remove(cell)
        game.temple.place(game.catalog[tid], cell, old.stairs)
    for player in game.players.values():
        # Placed straight on a cell: the scene is a snapshot, not a game played to get there.
        player.cell = rng.choice(cells)
        game.apply(roll(rng, game, player.player_id))
    if "curses" in game.setup.modules:
        for player in game.players.values():
            player.curses = list(curse_cards_in_play(game.setup.modules))
            player.curses_to_draw = 1
    if game.quests is not None:
        # The task chamber and the tree of life under the first two players, so that every
        # task tile and the healing are priced; the ghost beside the first.
        for player, quest in zip(game.players.values(), ("quest-task", "quest-tree"), strict=False):
            assert player.cell is not None
            old = game.temple.remove(player.cell)
            game.temple.place(game.catalog[quest], player.cell, old.stairs)
        game.quests.ghost = next(iter(game.players.values())).cell
    if game.special is not None:
        first = next(iter(game.players.values()))
        game.special.chalice, game.special.chalice_rear = first.cell, first.rear
    if "treasures" in game.setup.modules:
        game.treasure_cells = list(cells)
        for player in game.players.values():
            player.treasures = list(treasures_in_play(game.setup.modules))
    return game


def _median_seconds(work: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run_rules_benchmark(
    events: int = 20000, repeats: int = 5, seed: int = 1, modules: tuple[str, ...] = ()
) -> RulesBenchmark:
    """Measure replay throughput and the time of all players' open actions (with `modules`
    in play in both games)."""
    setup, record = long_game(events, seed, modules)

    def replay() -> Game:
        game = Game.from_setup_line(setup)
        for event in record:
            game.apply(event)
        return game

    rejected, module_events = _count_rejected(setup, record)
    replay_seconds = _median_seconds(replay, repeats)
    temple = grid_temple_game(seed, modules=modules)
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
        modules=tuple(modules),
        module_events=module_events,
    )


def _count_rejected(setup: dict[str, Any], record: list[Any]) -> tuple[int, int]:
    """Count the rejected events, and the accepted events of the modules."""
    game = Game.from_setup_line(setup)
    basic = set(Game.EVENT_TYPES)
    rejected = module_events = 0
    for event in record:
        ok = game.apply(event).ok
        rejected += not ok
        module_events += ok and isinstance(event, dict) and event.get("type") not in basic
    return rejected, module_events


def _clear_odds_caches() -> None:
    for cached in (
        odds.roll_outcomes,
        odds.chance_in_one_roll,
        odds.expected_rolls_to_complete,
        odds.roll_odds,
    ):
        cached.cache_clear()
    forget_prices()
