"""Real-browser tests of the dashboard: Debian's Chromium, driven by Playwright, against a real
`templecam serve` on loopback with a 42-second soundtrack (see conftest.py).

They check what a person at the table sees: the clock moving, the counters dropping after a gem
is activated, a rejected event's reason, the countdown alert naming who must run back, undo, the
past games page, and live updates between two open pages. They take screenshots of the main
pages; with TEMPLECAM_SCREENSHOTS=docs/screenshots they refresh the README's pictures
(`make screenshots`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import hold_the_clock, start_the_clock, start_the_game
from playwright.sync_api import Browser, Page, expect
from screenshots import screenshot

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1600, "height": 1000}
UI_TIMEOUT_MS = 5_000
COUNTDOWN_TIMEOUT_MS = 15_000
"""Countdown 1 starts 8 s of soundtrack after Start (2 s intro + 6 s)."""


@pytest.fixture
def page(chromium: Browser, live_server: Any) -> Iterator[Page]:
    """A fresh 1600 x 1000 page on the live server; its script must raise no error."""
    context = chromium.new_context(viewport=VIEWPORT, base_url=live_server.url)
    context.set_default_timeout(UI_TIMEOUT_MS)
    new_page = context.new_page()
    errors = _script_errors(new_page)
    try:
        yield new_page
    finally:
        context.close()
    assert not errors, f"the page's scripts failed: {errors}"


def _script_errors(page: Page) -> list[str]:
    """Collect the page's uncaught script errors (to assert there were none)."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def _temple_tiles(live_server: Any) -> set[str]:
    state = live_server.get("/api/state")
    assert isinstance(state, dict)
    return {tile["tile"] for tile in state["game"]["temple"]}


def test_a_short_manual_game_as_the_table_sees_it(page: Page, live_server: Any) -> None:
    # Set-up: red and blue, manual mode (the camera box is unchecked by default).
    page.goto("/setup")
    page.get_by_test_id("player-toggle-red").click()
    page.get_by_test_id("player-toggle-blue").click()
    expect(page.get_by_test_id("player-toggle-red")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_test_id("track-dice")).not_to_be_checked()
    # The starting temple (page 5): the table drew the one-gem key chamber (east) and chamber 2.
    page.get_by_test_id("start-choice-E").select_option("gem1-key-1")
    page.get_by_test_id("start-choice-W").select_option("chamber-2")
    expect(page.get_by_test_id("start-tile-E")).to_have_attribute("data-tile", "gem1-key-1")
    screenshot(page, "setup.png")
    start_the_game(page)

    keys = page.get_by_test_id("keys-to-escape")
    depot = page.get_by_test_id("depot")
    expect(depot).to_have_text("7")
    expect(keys).to_have_text("8")

    # Start: the clock moves, through the intro to "Escape!".
    page.get_by_test_id("clock-start").click()
    clock = page.get_by_test_id("clock")
    label = page.get_by_test_id("clock-label")
    expect(page.get_by_test_id("clock-pause")).to_be_visible()
    before = clock.inner_text()
    expect(clock).not_to_have_text(before, timeout=3_000)
    expect(label).to_have_text("Game time", timeout=5_000)

    # Pause while the table sorts things out (so that countdown 1 cannot come too early).
    page.get_by_test_id("clock-pause").click()
    expect(label).to_have_text("Paused")
    expect(page.get_by_test_id("clock-resume")).to_be_visible()

    # Red enters the one-gem key chamber east of the start and activates its gem.
    expect(page.get_by_test_id("tile-1_0")).to_contain_text("One-gem chamber")
    title = re.compile(r"^Chamber with one gem \(keys\) 1 ")
    expect(page.get_by_test_id("tile-1_0")).to_have_attribute("title", title)
    page.get_by_test_id("action-red-enter-1_0").click()
    where = "in the One-gem chamber east of the start"
    expect(page.get_by_test_id("where-red")).to_have_text(where)
    expect(page.get_by_test_id("tile-1_0").get_by_label("red")).to_be_visible()
    page.get_by_test_id("action-red-activate-1_0-g1").click()
    expect(depot).to_have_text("6")
    expect(keys).to_have_text("7")

    # Blue discovers a chamber to the north (taken back by undo below) and stays in the start.
    page.get_by_test_id("action-blue-discover-0_1").click()
    expect(page.get_by_test_id("tile-picker")).to_be_visible()
    page.get_by_test_id("pick-tile-chamber-1").click()
    expect(page.get_by_test_id("tile-0_1")).to_have_attribute("title", re.compile("^Chamber 1 "))

    # A rejected event, entered as JSON: its reason is shown loudly.
    page.get_by_test_id("advanced").locator("summary").click()
    page.get_by_test_id("advanced-json").fill('{"type": "escape", "player": "blue"}')
    page.get_by_test_id("advanced-send").click()
    toast = page.get_by_test_id("toast").filter(has_text="not in the exit chamber")
    expect(toast).to_be_visible()
    expect(page.get_by_test_id("warnings")).to_contain_text("Blue is not in the exit chamber")
    expect(page.get_by_test_id("log")).to_contain_text("Blue escapes")

    page.get_by_test_id("clock-resume").click()
    expect(label).to_have_text("Game time")
    # No sound card on this server: the browser plays the soundtrack, in step with the clock.
    expect(page.get_by_test_id("audio-status")).to_contain_text("Sound: this browser (in sync")
    screenshot(page, "game.png")
    toast.click()  # dismissed, so that it does not hide the countdown alert
    expect(toast).to_have_count(0)

    # Countdown 1: the alert flashes and names red, who is outside the start chamber.
    alert = page.get_by_test_id("countdown-alert")
    expect(alert).to_be_visible(timeout=COUNTDOWN_TIMEOUT_MS)
    expect(alert).to_contain_text("COUNTDOWN 1")
    expect(alert).to_contain_text("back to the start chamber")
    must_run = page.get_by_test_id("must-run-back")
    expect(must_run).to_contain_text("red")
    expect(must_run).not_to_contain_text("blue")
    screenshot(page, "countdown.png")

    # Undo takes back the last player event: blue's discovery disappears, red's stays.
    page.get_by_test_id("undo").click()
    expect(page.get_by_test_id("tile-0_1")).to_have_count(0)
    expect(page.get_by_test_id("tile-1_0")).to_be_visible()
    assert _temple_tiles(live_server) == {"start", "gem1-key-1", "chamber-2"}


def test_past_games_lists_a_game_and_shows_its_replay(page: Page, live_server: Any) -> None:
    created = live_server.post("/api/games", {"players": ["green", "yellow"]})
    assert isinstance(created, dict)
    start_the_clock(live_server)  # nothing is accepted before Start
    game_id = created["game_id"]
    discover = {"type": "discover", "player": "green", "cell": [0, 1], "tile": "chamber-2"}
    live_server.post("/api/event", {"event": discover})
    live_server.post("/api/event", {"event": {"type": "escape", "player": "yellow"}})

    page.goto("/games")
    item = page.get_by_test_id(f"game-{game_id}")
    expect(item).to_contain_text("2 events")
    expect(item.get_by_label("green")).to_be_visible()
    item.click()

    expect(page.get_by_test_id("replay-title")).to_contain_text(game_id)
    events = page.get_by_test_id("replay-events")
    expect(events).to_contain_text("Green discovers a Chamber north of the start")
    rejected = events.locator("li.rejected")
    expect(rejected).to_have_count(1)
    expect(rejected).to_contain_text("Yellow is not in the exit chamber")
    expect(page.get_by_test_id("replay-outcome")).to_contain_text("RUNNING")
    expect(page.get_by_test_id("replay-state")).to_contain_text("keys to escape")
    screenshot(page, "games.png")


def test_an_action_on_one_page_appears_live_on_another(chromium: Browser, live_server: Any) -> None:
    live_server.post("/api/games", {"players": ["purple", "orange"]})
    hold_the_clock(live_server)  # nothing is accepted before Start
    context = chromium.new_context(viewport=VIEWPORT, base_url=live_server.url)
    context.set_default_timeout(UI_TIMEOUT_MS)
    try:
        first, second = context.new_page(), context.new_page()
        errors = _script_errors(first)
        errors_second = _script_errors(second)
        for page in (first, second):
            page.goto("/game")
            expect(page.get_by_test_id("connection")).to_contain_text("live")
            expect(page.get_by_test_id("player-purple")).to_be_visible()

        first.bring_to_front()  # clicks wait for animation frames, which background tabs lack
        first.get_by_test_id("action-purple-discover-0_1").click()
        first.get_by_test_id("pick-tile-chamber-2").click()
        chamber = second.get_by_test_id("tile-0_1")
        expect(chamber).to_have_attribute("title", re.compile("^Chamber 2 "))
        expect(second.get_by_test_id("log")).to_contain_text("Purple discovers a Chamber north")

        second.bring_to_front()
        second.get_by_test_id("action-orange-enter-0_1").click()
        expect(first.get_by_test_id("where-orange")).to_contain_text("Chamber north of the start")
        expect(first.get_by_test_id("tile-0_1").get_by_label("orange")).to_be_visible()
        assert not errors and not errors_second, f"scripts failed: {errors + errors_second}"
    finally:
        context.close()
