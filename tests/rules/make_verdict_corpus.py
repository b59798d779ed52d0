"""Write `data/verdict_corpus.jsonl.gz`: random games, every module set, with malformed fields.

Run from the repository root (`python tests/rules/make_verdict_corpus.py`) with the engine whose
verdicts the corpus should keep: each game is a setup and its lines, plausible events mixed
with copies whose fields were dropped, retyped or swapped, each line with the verdict (accepted,
or the reason) that engine gave. `test_verdict_corpus.py` replays them and wants the same
verdicts word for word: a reshaped engine must judge every record saved before as this one did.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[2]))

from test_modules_properties import module_setup

from rules.engine import Game
from rules.game_setup import KNOWN_MODULES
from rules.simulate import random_events

CORPUS = Path(__file__).parent / "data" / "verdict_corpus.jsonl.gz"
ODD_VALUES: list[Any] = [
    None,
    [],
    {},
    "",
    "x",
    "nobody",
    0,
    1,
    2,
    -1,
    7,
    True,
    1.5,
    [0, 0],
    [0, 1],
    [1],
    ["a", "b"],
    {"a": 1},
    ["key", "torch"],
    "red",
    "N",
]
EXTRA_FIELDS = ["player", "cell", "n", "count", "by", "players", "card", "tile", "line", "gems"]


def mutated(rng: random.Random, event: dict[str, Any], players: list[str]) -> dict[str, Any]:
    """A copy of `event` with one field dropped, retyped, swapped or added."""
    copy = dict(event)
    names = [k for k in copy if k not in ("type", "t")]
    how = rng.random()
    if names and how < 0.3:
        del copy[rng.choice(names)]
    elif names and how < 0.75:
        copy[rng.choice(names)] = rng.choice([*ODD_VALUES, *players])
    elif len(names) >= 2 and how < 0.85:
        a, b = rng.sample(names, 2)
        copy[a], copy[b] = copy[b], copy[a]
    else:
        copy[rng.choice(EXTRA_FIELDS)] = rng.choice([*ODD_VALUES, *players])
    return copy


def one_game(seed: int) -> dict[str, Any]:
    """A random game of seed `seed`: its setup, lines and verdicts."""
    rng = random.Random(seed)
    modules = rng.sample(list(KNOWN_MODULES), rng.randint(0, 6))
    setup = module_setup(rng, modules, rng.randint(1, 6))
    game = Game.from_setup_line(setup)
    judge = Game.from_setup_line(setup)
    lines: list[Any] = []
    verdicts: list[Any] = []
    for event in random_events(rng, game, 160, noise=0.05, seconds_per_event=2.0):
        if isinstance(event, dict) and rng.random() < 0.35:
            probe = mutated(rng, event, list(judge.players))
            verdict = judge.apply(probe)
            lines.append(probe)
            verdicts.append(None if verdict.ok else verdict.reason)
        verdict = judge.apply(event)
        lines.append(event)
        verdicts.append(None if verdict.ok else verdict.reason)
    return {"seed": seed, "setup": setup, "lines": lines, "verdicts": verdicts}


def main(games: int = 160) -> None:
    """Write the corpus of `games` games."""
    with gzip.open(CORPUS, "wt", encoding="utf-8") as out:
        for seed in range(games):
            out.write(json.dumps(one_game(seed), separators=(",", ":")) + "\n")
            print(f"game {seed + 1}/{games}", end="\r", flush=True)
    print(f"\nwrote {CORPUS}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 160)
