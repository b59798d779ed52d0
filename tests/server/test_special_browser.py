"""Module 4 (Special chambers) on the dashboard (issue 12), on a real server in Chromium at a
phone's 390 px: offered at set-up; the treasure chamber, a linked and a double chamber marked in
the temple (the double chamber's inner wall drawn); reminders of the chalice, the linked chambers
and the rear entrance; the chalice carried with a click, the log saying so."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import start_the_clock
from playwright.sync_api import expect
from screenshots import screenshot


@pytest.fixture(scope="module")
def server(game_server: Any) -> Any:
    """The module's server: a whole game's clock."""
    return game_server


@pytest.mark.browser
def test_special_chambers_and_the_chalice_on_a_phone(chromium, server):
    context = chromium.new_context(viewport={"width": 390, "height": 844}, base_url=server.url)
    context.set_default_timeout(8_000)
    page = context.new_page()
    try:
        page.goto("/setup")
        expect(page.get_by_test_id("module-special")).to_be_visible()
        expect(page.get_by_test_id("module-choices")).to_contain_text("4 · Special chambers")
        expect(page.get_by_test_id("module-choices")).to_contain_text("chalice")

        server.post(
            "/api/games",
            {
                "players": ["red", "blue"],
                "modules": ["special"],
                "starting_chambers": ["chamber-1", "chamber-2"],
            },
        )
        start_the_clock(server)
        for event in (
            {"type": "discover", "player": "red", "tile": "treasure-chamber", "cell": [0, 1]},
            {"type": "enter", "player": "red", "cell": [0, 1]},
            {"type": "enter", "player": "blue", "cell": [-1, 0]},
            {"type": "discover", "player": "blue", "tile": "linked-1", "cell": [-2, 0]},
            {"type": "discover", "player": "blue", "tile": "double-1", "cell": [-1, 1]},
        ):
            verdict = server.post("/api/event", {"event": event})["verdict"]
            assert verdict["ok"], (event, verdict)

        page.goto("/game")
        treasure = page.get_by_test_id("tile-0_1")
        expect(treasure.locator(".tile-name")).to_have_text("Treasure chamber")
        expect(treasure.locator(".mark-chalice")).to_have_count(1)
        expect(treasure.locator(".chalice-token")).to_have_count(1)
        expect(page.get_by_test_id("tile--2_0").locator(".mark-linked")).to_have_count(1)
        double = page.get_by_test_id("tile--1_1")
        expect(double.locator(".tile-name")).to_have_text("Double chamber")
        expect(double.locator(".inner-wall")).to_have_count(1)
        expect(page.get_by_test_id("reminder-chalice")).to_contain_text(
            "The chalice lies in the Treasure chamber north of the start"
        )
        expect(page.get_by_test_id("reminder-linked")).to_contain_text("1 of 3 found")
        expect(page.get_by_test_id("reminder-double")).to_contain_text("behind the inner wall")
        widths = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]"
        )
        assert max(widths[:2]) <= widths[2]

        carry = page.get_by_test_id("action-red-carry-0_0")
        expect(carry).to_contain_text("Carry the chalice into Start")
        carry.click()
        expect(page.get_by_test_id("tile-0_0").locator(".chalice-token")).to_have_count(1)
        expect(treasure.locator(".chalice-token")).to_have_count(0)
        expect(page.get_by_test_id("reminder-chalice")).to_contain_text(
            "The chalice lies in the start chamber"
        )
        expect(page.get_by_test_id("log")).to_contain_text(
            "Red enters the start chamber carrying the chalice"
        )
        assert server.get("/api/state")["game"]["state"]["chalice"] == [0, 0]
        screenshot(page, "game-special-phone.png")
    finally:
        context.close()
