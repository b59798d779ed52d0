"""The rules of time on a real server: nobody acts during the introduction, before "Escape!";
after the collapse the page offers nothing that no longer exists (Chromium)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from conftest import free_port, start_the_clock, wait_for_line
from playwright.sync_api import Browser, expect

THREE_SECOND_GAME = {
    "intro_seconds": 0.5,
    "game_seconds": 3.0,
    "countdowns": [
        {"n": 1, "start": 0.5, "end": 1.0},
        {"n": 2, "start": 1.5, "end": 2.0},
        {"n": 3, "start": 2.5, "end": 3.0},
    ],
}
"""A game over three seconds after \"Escape!\": the temple collapses by the clock."""

TIMELINE = {
    "intro_seconds": 3.0,
    "game_seconds": 40.0,
    "countdowns": [
        {"n": 1, "start": 10.0, "end": 12.0},
        {"n": 2, "start": 20.0, "end": 22.0},
        {"n": 3, "start": 30.0, "end": 40.0},
    ],
}


def wait_for(server: Any, condition: Any, seconds: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        state = server.get("/api/state")
        if condition(state):
            return state
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_moves_and_a_turn_of_fate_wait_for_escape(start_server):
    server = start_server(TIMELINE, free_port()).server
    game_id = server.post("/api/games", {"players": ["red", "blue"]})["game_id"]
    state = server.post("/api/clock", {"action": "start"})
    assert state["clock"]["t"] < 0
    for event in (
        {"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1]},
        {"type": "turn_of_fate"},
        {"type": "dice", "player": "red", "faces": ["key"] * 5},
    ):
        status, answer = server.send("/api/event", {"event": event})
        assert status == 409, event
        assert answer["detail"].startswith("the game has not begun: nobody may act before")
    # The page is told so: every open action waits for "Escape!".
    waiting = server.get("/api/state")["game"]
    assert waiting["before_escape"] is True
    actions = [*waiting["team_actions"], *waiting["players"]["red"]["actions"]]
    assert actions and all(a["blocked"] == 'wait for "Escape!"' for a in actions)
    record = server.data_dir / "games" / f"{game_id}.jsonl"
    assert len(record.read_text().splitlines()) == 1, "a refused event was saved"

    after = wait_for(server, lambda s: s["clock"]["t"] >= 0)  # "Escape!"
    assert after["game"]["before_escape"] is False
    assert after["game"]["team_actions"][0]["possible"] is True
    ok = server.post("/api/event", {"event": {"type": "turn_of_fate"}})
    assert ok["verdict"] == {"ok": True}


@pytest.mark.browser
def test_after_the_collapse_the_page_offers_nothing_that_is_gone(
    chromium: Browser, start_server: Any
) -> None:
    live_server = start_server(THREE_SECOND_GAME, free_port()).server
    live_server.post("/api/games", {"players": ["red", "blue"]})
    start_the_clock(live_server)
    wait_for_line(live_server, "collapse")  # the clock's: no player may post it
    context = chromium.new_context(viewport={"width": 1600, "height": 1000})
    context.set_default_timeout(8_000)
    page = context.new_page()
    try:
        page.goto(live_server.url + "/game")
        expect(page.get_by_test_id("outcome")).to_contain_text("LOST")
        page.get_by_test_id("outcome-close").click()
        team = page.get_by_test_id("team-actions")
        expect(team).to_contain_text("The temple has collapsed")
        expect(team).not_to_contain_text("turn of fate")
        expect(team).not_to_contain_text("spare")
        expect(page.get_by_test_id("team-turn_of_fate")).to_have_count(0)
        expect(page.get_by_test_id("turns-of-fate")).to_have_text("\u2013")  # a dash: none
        expect(page.get_by_test_id("actions-red")).to_have_text("caught in the collapse")
        expect(page.get_by_test_id("more-red")).to_be_hidden()
        expect(page.get_by_test_id("advanced")).to_be_hidden()
        expect(page.get_by_test_id("undo")).to_be_disabled()
    finally:
        context.close()
