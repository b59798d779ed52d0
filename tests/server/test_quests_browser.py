"""Module 5 (Quest chambers) on the dashboard (issue 12), on a real server in Chromium at a
phone's 390 px: offered at set-up; quest markers and each quest's progress in the reminders;
the altar's dice sacrificed with a click each by two players; the ghost shown in the start."""

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
def test_quest_progress_and_the_altar_on_a_phone(chromium, server):
    context = chromium.new_context(viewport={"width": 390, "height": 844}, base_url=server.url)
    context.set_default_timeout(8_000)
    page = context.new_page()
    try:
        page.goto("/setup")
        expect(page.get_by_test_id("module-quests")).to_be_visible()
        expect(page.get_by_test_id("module-choices")).to_contain_text("5 · Quest chambers")
        expect(page.get_by_test_id("quest-count-row")).to_be_hidden()
        page.get_by_test_id("module-quests").check()
        expect(page.get_by_test_id("quest-count-row")).to_be_visible()
        page.get_by_test_id("quest-count").select_option("3")
        expect(page.get_by_test_id("setup-summary")).to_contain_text("Quest chambers (3)")

        # The form sends the count; the server draws that many of the five (page 17).
        server.post("/api/games", {"players": ["red"], "modules": ["quests"], "quest_count": 3})
        quests = server.get("/api/state")["game"]["state"]["quests"]
        assert len(quests) == 3 and len(set(quests)) == 3
        server.post(
            "/api/games",
            {
                "players": ["red", "blue"],
                "modules": ["quests"],
                "quests": ["altar", "ghost"],
                "starting_chambers": ["chamber-1", "chamber-2"],
            },
        )
        start_the_clock(server)
        for event in (
            {"type": "discover", "player": "red", "tile": "quest-altar", "cell": [0, 1]},
            {"type": "enter", "player": "red", "cell": [0, 1]},
            {"type": "enter", "player": "blue", "cell": [0, 1]},
        ):
            verdict = server.post("/api/event", {"event": event})["verdict"]
            assert verdict["ok"], (event, verdict)

        page.goto("/game")
        altar = page.get_by_test_id("tile-0_1")
        expect(altar.locator(".tile-name")).to_have_text("Altar chamber")
        expect(altar.locator(".mark-quest")).to_have_count(1)
        expect(page.get_by_test_id("reminder-quest-markers")).to_contain_text(
            "Quest markers on the depot: 2 of 2 — nobody escapes until they are gone"
        )
        expect(page.get_by_test_id("reminder-quest-altar")).to_contain_text(
            "Altar chamber: 0 of 2 dice on the altar"
        )
        expect(page.get_by_test_id("reminder-quest-ghost")).to_contain_text("not found yet")
        widths = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]"
        )
        assert max(widths[:2]) <= widths[2]

        page.get_by_test_id("action-red-sacrifice-d1").click()
        expect(page.get_by_test_id("reminder-quest-altar")).to_contain_text("1 of 2 dice")
        expect(page.get_by_test_id("stats-red")).to_contain_text("4 dice")
        expect(page.get_by_test_id("action-red-sacrifice-d1")).to_be_disabled()
        page.get_by_test_id("action-blue-sacrifice-d1").click()
        expect(page.get_by_test_id("reminder-quest-altar")).to_contain_text("done ✓")
        expect(page.get_by_test_id("reminder-quest-markers")).to_contain_text("1 of 2")
        expect(altar.locator(".mark-quest.done")).to_have_count(1)
        expect(page.get_by_test_id("log")).to_contain_text("Blue sacrifices 1 die on the altar")

        event = {"type": "discover", "player": "blue", "tile": "quest-ghost", "cell": [0, 2]}
        assert server.post("/api/event", {"event": event})["verdict"]["ok"]
        expect(page.get_by_test_id("tile-0_0").locator(".ghost-token")).to_have_count(1)
        expect(page.get_by_test_id("reminder-quest-ghost-where")).to_contain_text(
            "The ghost is in the start chamber"
        )
        screenshot(page, "game-quests-phone.png")

    finally:
        context.close()
