"""Module 3 (Illusion chambers) on the dashboard (issue 12), on a real server in Chromium at a
phone's 390 px: offered at set-up, an illusion chamber marked in the temple, the countdown
banner warning who stands on one, and at the door slam the chamber gone, its player back in the
start with a die less, the log saying so."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import free_port
from playwright.sync_api import expect

TIMELINE = {
    "intro_seconds": 0.5,
    "game_seconds": 900.0,
    "countdowns": [
        {"n": 1, "start": 1.0, "end": 9.0},
        {"n": 2, "start": 600.0, "end": 630.0},
        {"n": 3, "start": 880.0, "end": 900.0},
    ],
}
"""Countdown 1 from a second after "Escape!" to the ninth: the slam comes while the page looks."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from conftest import ServerProcess

    base = tmp_path_factory.mktemp("illusions")
    running = ServerProcess(base, TIMELINE, base / "data", free_port())
    try:
        yield running.server
    finally:
        running.stop()


@pytest.mark.browser
def test_an_illusion_chamber_vanishes_at_the_door_slam_on_a_phone(chromium, server):
    context = chromium.new_context(viewport={"width": 390, "height": 844}, base_url=server.url)
    context.set_default_timeout(8_000)
    page = context.new_page()
    try:
        page.goto("/setup")
        expect(page.get_by_test_id("module-illusions")).to_be_visible()
        expect(page.get_by_test_id("module-choices")).to_contain_text("vanish")

        server.post(
            "/api/games",
            {
                "players": ["red", "blue"],
                "modules": ["illusions"],
                "starting_chambers": ["chamber-1", "chamber-2"],
            },
        )
        server.post("/api/clock", {"action": "start"})
        deadline = time.monotonic() + 10
        while server.get("/api/state")["clock"]["t"] < 0:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        for event in (
            {"type": "discover", "player": "red", "tile": "illusion-1", "cell": [0, 1]},
            {"type": "enter", "player": "red", "cell": [0, 1]},
        ):
            assert server.post("/api/event", {"event": event})["verdict"]["ok"]

        page.goto("/game")
        tile = page.get_by_test_id("tile-0_1")
        expect(tile).to_have_class("tile kind-chamber gems-key illusion")
        expect(tile.locator(".mark-illusion")).to_have_count(1)
        expect(tile.locator(".tile-name")).to_have_text("Illusion chamber")
        expect(page.get_by_test_id("illusion-warning")).to_have_text(
            "Illusion chambers vanish at the slam: Red on one!"
        )
        widths = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]"
        )
        assert max(widths[:2]) <= widths[2]

        # The door slams (game time 9 s): the chamber is gone, red is back with a die less.
        expect(tile).to_have_count(0, timeout=15_000)
        expect(page.get_by_test_id("spot-0_1")).to_be_visible()
        expect(page.get_by_test_id("where-red")).to_have_text("in the start chamber")
        expect(page.get_by_test_id("stats-red")).to_contain_text("4 dice")
        expect(page.get_by_test_id("stats-blue")).to_contain_text("5 dice")
        expect(page.get_by_test_id("log")).to_contain_text(
            "Countdown 1 ends: the door slams and the illusion chambers vanish"
        )
        game = server.get("/api/state")["game"]
        pile = [t["id"] for t in game["draw_pile"]]
        assert "illusion-1" not in pile and pile  # under the pile: others are drawn first
        assert "(1 under it, vanished)" in game["piles"]
        expect(page.get_by_test_id("piles")).to_contain_text("(1 under it, vanished)")
    finally:
        context.close()
