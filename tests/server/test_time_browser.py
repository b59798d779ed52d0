"""Module 8 (Time chambers) on the dashboard (issue 12), on a real server in Chromium at a
phone's 390 px: offered at set-up with how many to draw; a prohibition chamber found starts the
green sand timer on the game clock, shown with what it forbids, the seconds left and a draining
bar; a beep at 10 seconds; when the sand runs out the server records `time_up` by itself, the
page chimes and shows the timer turned over beside the lower icon."""

from __future__ import annotations

import json
import re
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
def test_a_sand_timer_runs_beeps_and_turns_over_on_a_phone(chromium, server):
    context = chromium.new_context(viewport={"width": 390, "height": 844}, base_url=server.url)
    context.set_default_timeout(8_000)
    page = context.new_page()
    try:
        page.goto("/setup")
        expect(page.get_by_test_id("module-choices")).to_contain_text("8 · Time chambers")
        page.get_by_test_id("module-time").check()
        expect(page.get_by_test_id("time-count-row")).to_be_visible()
        page.get_by_test_id("time-count").select_option("2")
        expect(page.get_by_test_id("setup-summary")).to_contain_text("Time chambers (2)")
        expect(page.get_by_test_id("torch-penalty-row")).to_be_visible()  # page 25's 2 tables
        page.get_by_test_id("torch-penalty").select_option("gems")

        created = server.post(
            "/api/games",
            {
                "players": ["red", "blue"],
                "modules": ["time"],
                "time_chambers": ["prohibition-1", "sacrifice"],
                "starting_chambers": ["chamber-1", "chamber-2"],
                "torch_penalty": "gems",
            },
        )
        saved = server.data_dir / "games" / f"{created['game_id']}.jsonl"
        assert json.loads(saved.read_text(encoding="utf-8").splitlines()[0])["torch_penalty"] == (
            "gems"
        )
        start_the_clock(server)
        event = {"type": "discover", "player": "red", "tile": "time-prohibition-1", "cell": [0, 1]}
        assert server.post("/api/event", {"event": event})["verdict"]["ok"]

        page.goto("/game")
        page.get_by_test_id("temple").click()  # a gesture: the page may sound
        timer = page.get_by_test_id("timer-green")
        expect(timer).to_contain_text("Prohibition chamber 1: nobody activates gems (upper")
        expect(page.get_by_test_id("timer-left-green")).to_have_text(re.compile(r"^(2\d|30) s$"))
        expect(page.get_by_test_id("tile-0_1").locator(".mark-time")).to_have_count(1)
        screenshot(page, "game-time-phone.png")
        widths = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]"
        )
        assert max(widths[:2]) <= widths[2]

        timers = page.get_by_test_id("timers")
        expect(timers).to_have_attribute("data-last-sound", "ten-seconds", timeout=30_000)
        expect(timer).to_have_class("timer timer-green hurry")
        # The sand runs out: the server records time_up, the timer is turned over.
        expect(timer).to_contain_text("lower sand icon", timeout=15_000)
        expect(timer).to_contain_text("nobody frees black masks with golden masks")
        expect(page.get_by_test_id("log")).to_contain_text(
            "The sand timer runs out on the Prohibition chamber 1, north of the start"
        )
        state = server.get("/api/state")["game"]["state"]
        assert state["timers"][0]["phase"] == 2
        assert timers.get_attribute("data-sounds") in ("2", "3")
    finally:
        context.close()
