"""The Queenie modules' server-side needs on the dashboard, on a real server in Chromium at a
phone's 390 px: the Maze's Time out pausing and resuming the clock from the card's own button,
a Lost treasure card asking which treasure tile goes, the Riddle chamber's statue colour picked,
and the Queenie quests in the quest progress rows."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import (
    GAME_TIMELINE,
    LiveServer,
    ServerProcess,
    checked_page,
    free_port,
    start_the_clock,
)
from playwright.sync_api import expect

PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    base = tmp_path_factory.mktemp("queenie-dashboard")
    running = ServerProcess(base, GAME_TIMELINE, base / "data", free_port())
    try:
        yield running.server
    finally:
        running.stop()


def play(server: LiveServer, modules: list[str], events: list[dict[str, Any]], **form: Any) -> None:
    """A new game of red and blue with these modules, its clock started, these events taken."""
    status, answer = server.send(
        "/api/games", {"players": ["red", "blue"], "modules": modules, **form}
    )
    assert status == 201, answer
    start_the_clock(server)
    for event in events:
        status, answer = server.send("/api/event", {"event": event})
        assert status == 200 and answer["verdict"]["ok"], (event, answer)


def claim(treasure: str, tile: str, cell: list[int]) -> list[dict[str, Any]]:
    """Red discovers a treasure chamber, enters it and claims the treasure found there."""
    return [
        {"type": "discover", "player": "red", "tile": tile, "cell": cell},
        {"type": "enter", "player": "red", "cell": cell},
        {"type": "claim", "player": "red", "treasure": treasure},
    ]


@pytest.mark.browser
def test_the_time_out_button_pauses_the_clock_and_play_resumes_it(chromium, server):
    play(server, ["treasures", "maze"], claim("time_out", "ct-gem1-key-2", [0, 1]))
    with checked_page(chromium, server.url, PHONE) as page:
        page.goto("/game")
        expect(page.get_by_test_id("clock-pause")).to_be_visible()
        page.get_by_test_id("action-red-time_out-start").click()
        expect(page.get_by_test_id("clock-label")).to_have_text("Time out (Red)")
        expect(page.get_by_test_id("clock-resume")).to_be_hidden()  # play is the card's button
        expect(page.get_by_test_id("clock-pause")).to_be_hidden()
        clock = server.get("/api/state")["clock"]  # type: ignore[index]
        assert (clock["status"], clock["time_out"]) == ("paused", "red")
        end = page.get_by_test_id("action-red-time_out-end")
        expect(end).to_contain_text("Press play")
        end.click()
        expect(page.get_by_test_id("clock-pause")).to_be_visible()
        assert server.get("/api/state")["clock"]["status"] == "running"  # type: ignore[index]


@pytest.mark.browser
def test_a_lost_treasure_card_asks_which_treasure_tile_goes(chromium, server):
    events = [
        *claim("teleport", "ct-gem1-key-2", [0, 1]),
        {"type": "discover", "player": "red", "tile": "ct-gem1-torch-2", "cell": [0, 2]},
        {"type": "enter", "player": "red", "cell": [0, 2]},
        {"type": "claim", "player": "red", "treasure": "extra_gem"},
        {"type": "discover", "player": "red", "tile": "ct-gem1-key-1", "cell": [1, 2]},
    ]
    play(server, ["curses", "treasures", "pit"], events)
    with checked_page(chromium, server.url, PHONE) as page:
        page.goto("/game")
        page.get_by_test_id("action-red-curse").click()
        page.get_by_test_id("pick-curse-lost_treasure").click()
        picker = page.get_by_test_id("module-picker")
        expect(picker).to_contain_text("which treasure tile does Red discard?")
        expect(picker.locator(".module-choice")).to_have_count(2)
        page.get_by_test_id("pick-discard-teleport").click()
        expect(picker).to_be_hidden()
        expect(page.get_by_test_id("log")).to_contain_text("Lost treasure")
    red = server.get("/api/state")["game"]["players"]["red"]  # type: ignore[index]
    assert red["treasures"] == ["extra_gem"]
    assert "lost_treasure" not in red["curses"]


@pytest.mark.browser
def test_the_riddle_chambers_statue_colour_is_the_tables_choice(chromium, server):
    events = [
        {"type": "discover", "player": "red", "tile": "riddle", "cell": [0, 1]},
        {"type": "enter", "player": "red", "cell": [0, 1]},
    ]
    play(server, ["new_quests"], events, new_quests=["riddle", "guardian"])
    with checked_page(chromium, server.url, PHONE) as page:
        page.goto("/game")
        reminders = page.get_by_test_id("reminders")
        expect(reminders).to_contain_text("Quest markers on the depot: 2 of 2")
        expect(reminders).to_contain_text("Riddle chamber: 0 of 4 statues face up")
        expect(reminders).to_contain_text("Guardian chamber: not found yet")
        page.get_by_test_id("action-red-reveal_statue-s1").click()
        picker = page.get_by_test_id("module-picker")
        expect(picker).to_contain_text("which colour does it show?")
        expect(picker.locator(".module-choice")).to_have_count(4)
        expect(page.get_by_test_id("pick-choice-0")).to_contain_text("Blue statue")
        page.get_by_test_id("pick-choice-0").click()
        expect(reminders).to_contain_text("Riddle chamber: 1 of 4 statues face up")
    state = server.get("/api/state")["game"]["state"]  # type: ignore[index]
    assert state["statues_face_up"] == ["blue"]
