"""Write `data/open_actions_corpus.jsonl.gz`: what the engine lists as open in random games.

Run from the repository root (`python tests/rules/make_open_actions_corpus.py`) with the engine
whose open actions the corpus should keep: each game is a random set of modules, a setup and its
lines; every few lines the full listing (every player's open actions and the team's, as the
dashboard reads them) is recorded as a digest, some of them also of a `loaded` copy of the game
where every player inside carries every curse and treasure in play. `test_open_actions_corpus.py`
replays the games and wants the same listings: a faster listing must list what this one did,
in the same order, with the same labels, odds and reasons. `data/open_actions_grid.json` holds
the digests of the benchmark's scene (six players on a full 5x5 temple, `rules/benchmark.py`).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[2]))

from test_modules_properties import module_setup

from rules.actions import all_open_actions, team_actions
from rules.benchmark import grid_temple_game
from rules.engine import Game
from rules.game_setup import BIG_BOX_IDS, KNOWN_MODULES
from rules.modules import curse_cards_in_play, treasures_in_play
from rules.simulate import random_events

CORPUS = Path(__file__).parent / "data" / "open_actions_corpus.jsonl.gz"
GRID = Path(__file__).parent / "data" / "open_actions_grid.json"
"""The digests of the benchmark's scene (`rules/benchmark.py`'s grid temple), by module set."""
GRID_MODULES = {"none": (), "big-box": BIG_BOX_IDS, "all": KNOWN_MODULES}
EVENTS = 120
"""Events a game plays (some are nonsense the engine rejects)."""
EVERY = 6
"""Lines between two recorded listings."""
LOADED_EVERY = 4
"""Every how many recorded listings a loaded copy is recorded too."""


def listing(game: Game) -> dict[str, Any]:
    """Every player's open actions and the team's, as JSON, by player id (`team` last)."""
    found: dict[str, Any] = {
        pid: [action.to_json() for action in actions]
        for pid, actions in all_open_actions(game).items()
    }
    found["team"] = [action.to_json() for action in team_actions(game)]
    return found


def digests(found: dict[str, Any]) -> dict[str, str]:
    """A short digest of each player's (and the team's) listing."""
    return {
        who: hashlib.sha256(json.dumps(actions).encode()).hexdigest()[:16]
        for who, actions in found.items()
    }


def loaded(game: Game) -> Game:
    """A copy of the game where every player inside carries every curse and treasure in play,
    owes a curse card, and every chamber holds a treasure tile (the benchmark's heavy table)."""
    copy = game.copy()
    modules = copy.setup.modules
    for player in copy.players.values():
        if not player.inside:
            continue
        if "curses" in modules:
            player.curses = list(curse_cards_in_play(modules))
            player.curses_to_draw = 1
        if "treasures" in modules:
            player.treasures = list(treasures_in_play(modules))
    if "treasures" in modules:
        copy.treasure_cells = [placed.cell for placed in copy.temple]
    return copy


def one_game(seed: int) -> dict[str, Any]:
    """A random game of seed `seed`: its setup, lines and the digests of its listings."""
    rng = random.Random(seed)
    modules = rng.sample(list(KNOWN_MODULES), rng.randint(0, len(KNOWN_MODULES)))
    setup = module_setup(rng, modules, rng.randint(1, 6))
    game = Game.from_setup_line(setup)
    judge = Game.from_setup_line(setup)
    lines: list[Any] = []
    snapshots: list[Any] = []
    for event in random_events(rng, game, EVENTS, noise=0.05, seconds_per_event=4.0):
        judge.apply(event)
        lines.append(event)
        if len(lines) % EVERY == 0:
            snapshots.append([len(lines), False, digests(listing(judge))])
            if len(snapshots) % LOADED_EVERY == 0:
                snapshots.append([len(lines), True, digests(listing(loaded(judge)))])
    return {"seed": seed, "setup": setup, "lines": lines, "snapshots": snapshots}


def grid_digests() -> dict[str, dict[str, str]]:
    """The digests of the benchmark's scene for seeds 1-3 and each of `GRID_MODULES`."""
    return {
        f"{name} {seed}": digests(listing(grid_temple_game(seed, modules=modules)))
        for name, modules in GRID_MODULES.items()
        for seed in (1, 2, 3)
    }


def main(games: int = 240) -> None:
    """Write the corpus of `games` games, and the digests of the benchmark's scene."""
    GRID.write_text(json.dumps(grid_digests(), indent=1) + "\n", encoding="utf-8")
    with gzip.open(CORPUS, "wt", encoding="utf-8") as out:
        for seed in range(games):
            out.write(json.dumps(one_game(seed), separators=(",", ":")) + "\n")
            print(f"game {seed + 1}/{games}", end="\r", flush=True)
    print(f"\nwrote {CORPUS}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 240)
