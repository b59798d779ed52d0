"""Module 7 (Trap chambers) on the dashboard (issue 12), on a real server in Chromium at a
phone's 390 px: offered at set-up with how many to draw; a cliff discovered holds its
discoverer (marked on the tile, a reminder, his moves greyed out) until he climbs down with a
click; the slide trap's reminder; the log saying so."""

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
def test_a_cliff_holds_its_discoverer_until_he_climbs_down_on_a_phone(chromium, server):
    context = chromium.new_context(viewport={"width": 390, "height": 844}, base_url=server.url)
    context.set_default_timeout(8_000)
    page = context.new_page()
    try:
        page.goto("/setup")
        expect(page.get_by_test_id("module-choices")).to_contain_text("7 · Trap chambers")
        page.get_by_test_id("module-traps").check()
        expect(page.get_by_test_id("trap-count-row")).to_be_visible()
        page.get_by_test_id("trap-count").select_option("4")
        expect(page.get_by_test_id("setup-summary")).to_contain_text("Trap chambers (4)")
        server.post("/api/games", {"players": ["red"], "modules": ["traps"], "trap_count": 4})
        assert len(set(server.get("/api/state")["game"]["state"]["traps"])) == 4

        server.post(
            "/api/games",
            {
                "players": ["red", "blue"],
                "modules": ["traps"],
                "traps": ["cliff-torch", "slide"],
                "starting_chambers": ["chamber-1", "chamber-2"],
            },
        )
        start_the_clock(server)
        for event in (
            {"type": "discover", "player": "red", "tile": "trap-cliff-torch", "cell": [0, 1]},
            {"type": "enter", "player": "blue", "cell": [1, 0]},
            {"type": "discover", "player": "blue", "tile": "trap-slide", "cell": [2, 0]},
        ):
            verdict = server.post("/api/event", {"event": event})["verdict"]
            assert verdict["ok"], (event, verdict)

        page.goto("/game")
        cliff = page.get_by_test_id("tile-0_1")
        expect(cliff.locator(".tile-name")).to_have_text("Cliff (torches)")
        expect(cliff.locator(".mark-trap")).to_have_count(1)
        expect(page.get_by_test_id("where-red")).to_contain_text("Cliff (torches)")
        expect(page.get_by_test_id("reminder-trap-cliff")).to_contain_text(
            "Red is stuck on the cliff: 3 torches by himself to climb down"
        )
        screenshot(page, "game-traps-phone.png")
        expect(page.get_by_test_id("reminder-trap-slide")).to_contain_text(
            "nobody leaves it by its stairway"
        )
        enter = page.get_by_test_id("action-red-enter-0_0")
        expect(enter).to_be_disabled()
        expect(enter).to_contain_text("stuck on the cliff")
        widths = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]"
        )
        assert max(widths[:2]) <= widths[2]

        climb = page.get_by_test_id("action-red-climb")
        expect(climb).to_contain_text("Climb down the cliff (3 torches by yourself)")
        climb.click()
        expect(page.get_by_test_id("reminder-trap-cliff")).to_have_count(0)
        expect(page.get_by_test_id("action-red-enter-0_0")).to_be_enabled()
        expect(page.get_by_test_id("log")).to_contain_text("Red climbs down the cliff")
        expect(page.get_by_test_id("where-blue")).to_contain_text("Slide trap")
    finally:
        context.close()
