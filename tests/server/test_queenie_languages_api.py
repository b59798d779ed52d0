"""The Queenie modules' words in the asking page's language on a real server: the cards' and
treasures' names and effects, the chambers' and players' tokens, a log line of a module's own
event; the saved record and English unchanged."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import GAME_TIMELINE, free_port, start_the_clock
from test_languages_api import _call

from base.words import say

GAME = {
    "players": ["red", "blue"],
    "modules": ["curses", "treasures", "doomed", "map"],
    "track_dice": False,
}
"""Doomed (its curses and the Counterspell) with modules 1 and 2, and the Map."""
MOVES = (
    {"type": "discover", "player": "red", "cell": [0, 1], "tile": "map", "stairs": "S"},
    {"type": "enter", "player": "red", "cell": [0, 1]},
    {"type": "map_travel", "player": "red", "cell": [0, 0]},
)
"""Red finds the Map chamber, goes in and travels by the map back to the start."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from conftest import ServerProcess

    base = tmp_path_factory.mktemp("queenie-api")
    running = ServerProcess(base, GAME_TIMELINE, base / "data", free_port())
    try:
        running.server.post("/api/games", GAME)
        start_the_clock(running.server)
        for event in MOVES:
            verdict = running.server.post("/api/event", {"event": event})["verdict"]
            assert verdict["ok"], (event, verdict)
        yield running.server
    finally:
        running.stop()


@pytest.mark.parametrize("lang", ["pt", "es", "el"])
def test_cards_tokens_and_log_of_a_queenie_game_in_the_pages_language(server: Any, lang: str):
    status, state = _call(server, "/api/state", lang)
    assert status == 200
    game = state["game"]
    doomed = game["curse_cards"]["doomed"]
    assert (doomed["name"], doomed["effect"]) == (
        say(lang, "card.doomed"),
        say(lang, "card_effect.doomed"),
    )
    counterspell = game["treasures"]["counterspell"]
    assert counterspell["effect"] == say(lang, "treasure_effect.counterspell")
    assert game["curse_cards"]["trap"]["effect"] == say(lang, "card_effect.trap")
    the_map = next(tile for tile in game["temple"] if tile["tile"] == "map")
    assert the_map["label"] == say(lang, "mchamber.map")
    assert [t["label"] for t in the_map["tokens"]] == [say(lang, "qmark.map")]
    texts = [entry["text"] for entry in state["log"]]
    where = say(lang, "chamber.the_start")
    assert say(lang, "qnarr.map", player=say(lang, "colour.red"), where=where) in texts, texts


def test_english_and_the_record_keep_the_modules_own_words(server: Any):
    game = _call(server, "/api/state", "en")[1]["game"]
    the_map = next(tile for tile in game["temple"] if tile["tile"] == "map")
    assert [t["label"] for t in the_map["tokens"]] == [
        "Map: 2 torches here take you to any discovered chamber"
    ]
    assert game["curse_cards"]["doomed"]["effect"] == (
        "may not escape from the temple until the curse is lifted"
    )
    log = _call(server, "/api/state", "en")[1]["log"]
    assert "Red travels by the map to the start chamber" in [entry["text"] for entry in log]
