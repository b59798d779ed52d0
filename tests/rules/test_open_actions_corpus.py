"""The open actions list what they listed before they were made fast (issue 21: open actions
under 1 ms with every module on): every player's and the team's, in the same order, with the
same labels, events, odds and reasons.

`data/open_actions_corpus.jsonl.gz` holds 240 random games over random sets of modules (1-8
and Queenie); `make_open_actions_corpus.py` wrote it with the engine before the speed-ups,
recording a digest of the full listing every few lines, some of them of a copy where every
player carries every curse and treasure in play. The games replay here and must list the same;
so must the benchmark's scene (`data/open_actions_grid.json`).
"""

import gzip
import json
from pathlib import Path

import pytest
from make_open_actions_corpus import GRID, GRID_MODULES, digests, listing, loaded

from rules.actions import open_actions
from rules.benchmark import grid_temple_game
from rules.engine import Game

CORPUS = Path(__file__).parent / "data" / "open_actions_corpus.jsonl.gz"


def _games() -> list[dict]:
    with gzip.open(CORPUS, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


GAMES = _games()


def test_the_corpus_covers_every_set_of_modules_and_loaded_tables():
    modules = {m for game in GAMES for m in game["setup"].get("modules", [])}
    assert len(GAMES) == 240 and len(modules) >= 23
    assert sum(len(game["setup"].get("modules", [])) >= 20 for game in GAMES) >= 10
    snapshots = [s for game in GAMES for s in game["snapshots"]]
    assert len(snapshots) > 4000 and sum(loaded for _, loaded, _ in snapshots) > 800


@pytest.mark.parametrize("chunk", range(8))
def test_every_recorded_listing_is_listed_again(chunk):
    kinds: set[str] = set()
    for game in GAMES[chunk::8]:
        judge = Game.from_setup_line(game["setup"])
        applied = 0
        for after, heavy, wanted in game["snapshots"]:
            for event in game["lines"][applied:after]:
                judge.apply(event)
            applied = after
            scene = loaded(judge) if heavy else judge
            before = scene.state_json()
            found = listing(scene)
            assert scene.state_json() == before, "listing the open actions changed the game"
            for who, digest in digests(found).items():
                assert digest == wanted[who], (
                    f"game {game['seed']} after line {after}{' (loaded)' if heavy else ''}: "
                    f"{who}'s open actions are not those recorded; now "
                    f"{[a['label'] for a in found[who]]}"
                )
            kinds.update(a["action"] for actions in found.values() for a in actions)
            for pid in scene.players:  # one player asked alone: the same as in the full listing
                assert [a.to_json() for a in open_actions(scene, pid)] == found[pid]
    assert len(kinds) >= 25


@pytest.mark.parametrize("scene", sorted(json.loads(GRID.read_text(encoding="utf-8"))))
def test_the_benchmark_scene_lists_what_it_listed(scene):
    name, seed = scene.split()
    game = grid_temple_game(int(seed), modules=GRID_MODULES[name])
    found = listing(game)
    wanted = json.loads(GRID.read_text(encoding="utf-8"))[scene]
    for who, digest in digests(found).items():
        assert digest == wanted[who], (
            f"{scene}: {who}'s open actions are not those recorded (or rules/benchmark.py's "
            f"scene changed); now {[a['label'] for a in found[who]]}"
        )
