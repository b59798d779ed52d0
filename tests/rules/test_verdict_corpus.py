"""Every record saved before replays with the same verdicts, word for word (issue 21).

`data/verdict_corpus.jsonl.gz` holds 240 random games over every set of modules, plausible
events mixed with copies whose fields were dropped, retyped or swapped, each line with the
verdict the engine gave before events became typed values (`make_verdict_corpus.py` wrote it).
"""

import gzip
import json
from pathlib import Path

import pytest

from rules.engine import Game

CORPUS = Path(__file__).parent / "data" / "verdict_corpus.jsonl.gz"


def _games() -> list[dict]:
    with gzip.open(CORPUS, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


GAMES = _games()


def test_the_corpus_covers_malformed_fields_of_every_kind_of_event():
    reasons = [v for game in GAMES for v in game["verdicts"] if v is not None]
    accepted = [v for game in GAMES for v in game["verdicts"] if v is None]
    assert len(GAMES) == 240 and len(accepted) > 20_000 and len(reasons) > 5_000
    assert any("needs a 'player' field" in r for r in reasons)
    assert any("must be a whole number" in r for r in reasons)
    assert any("must be a cell" in r for r in reasons)
    assert any("unknown player" in r for r in reasons)
    modules = {m for game in GAMES for m in game["setup"].get("modules", [])}
    assert len(modules) >= 20


@pytest.mark.parametrize("chunk", range(8))
def test_every_line_of_the_corpus_gets_the_verdict_it_got_before(chunk):
    for game in GAMES[chunk::8]:
        judge = Game.from_setup_line(game["setup"])
        for number, (event, wanted) in enumerate(
            zip(game["lines"], game["verdicts"], strict=True), start=2
        ):
            verdict = judge.apply(event)
            got = None if verdict.ok else verdict.reason
            assert got == wanted, f"game {game['seed']}, line {number}: {event}"
