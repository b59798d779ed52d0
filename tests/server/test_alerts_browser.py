"""Spoken alerts in Chromium: the page that plays the soundtrack fetches the voice the server
announces and schedules it over the music with Web Audio, the music ducked under it; the table's
choice is made on the page, fits a phone and is remembered. (No sound card here: the real
audio graph runs, and the test reads what it scheduled.)"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import checked_page, free_port, open_alerts
from playwright.sync_api import expect
from test_alerts_server import ALERT_TIMELINE

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}
PANEL_STATE = """() => {
  const fold = document.querySelector('[data-testid="spoken-alerts-fold"]');
  const box = document.querySelector('[data-testid="spoken-alerts"]');
  const shown = box.getBoundingClientRect();
  const button = document.querySelector('[data-testid="alerts-toggle"]').getBoundingClientRect();
  return {open: fold.open, box: [shown.left, shown.right, shown.top, shown.width],
          button: [button.left, button.right, button.bottom], width: innerWidth,
          style: box.style.cssText, seen: document.visibilityState, lang: navigator.language};
}"""


def test_the_page_fetches_and_schedules_a_countdown_warning(chromium, start_server):
    server = start_server(ALERT_TIMELINE, free_port()).server
    server.post("/api/games", {"players": ["red", "blue"], "track_dice": False})
    with checked_page(chromium, server.url, PHONE, timeout_ms=30_000) as page:
        fetched: list[str] = []
        page.on("request", lambda r: fetched.append(r.url) if "/api/alerts/" in r.url else None)
        page.goto("/game")
        expect(page.get_by_test_id("alerts-frequency")).to_have_value("all")
        expect(page.get_by_test_id("alerts-volume")).to_have_value("80")
        page.get_by_test_id("clock-start").click()
        expect(page.get_by_test_id("audio-status")).to_contain_text("in sync", timeout=30_000)
        page.wait_for_function(
            "() => window.templecam.audio.alerts.scheduled.length > 0", timeout=30_000
        )
        scheduled = page.evaluate("() => window.templecam.audio.alerts.scheduled[0]")
        assert scheduled["text"] == "Door slams in ten seconds!"
        assert scheduled["volume"] == 0.8 and 1.0 < scheduled["duration"] < 4.0
        assert any(url.endswith(scheduled["url"]) for url in fetched)
        # under the voice the soundtrack's gain goes down, and comes back after it
        page.wait_for_function("() => window.templecam.audio.music.gain.value < 0.35")
        page.wait_for_function("() => window.templecam.audio.music.gain.value > 0.95")
        assert page.evaluate("() => window.templecam.audio.ctx.state") == "running"
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]


def settled(page: Any) -> None:
    """Wait for the top bar's last moves: the game's state shows the Start button a row above the
    alerts' button, and once the soundtrack has loaded, Enable sound may show beside it where
    the browser wants a click first (a click before may land where the alerts' button was)."""
    expect(page.get_by_test_id("clock-start")).to_be_visible()
    expect(page.get_by_test_id("audio-status")).not_to_contain_text("…", timeout=30_000)


def test_the_table_chooses_on_the_page_and_it_is_remembered(chromium, start_server):
    server = start_server(ALERT_TIMELINE, free_port()).server
    server.post("/api/games", {"players": ["red", "blue"], "track_dice": False})
    with checked_page(chromium, server.url, PHONE) as page:
        page.goto("/game")
        settled(page)
        choice = page.get_by_test_id("alerts-frequency")
        expect(choice).to_be_hidden()  # folded behind one button: the top bar stays one row less
        open_alerts(page)
        expect(choice).to_be_visible()
        expect(choice).to_be_enabled()
        with page.expect_response("**/api/alerts/settings") as saved:
            choice.select_option("countdowns")
        assert saved.value.ok
        with page.expect_response("**/api/alerts/settings") as saved:
            page.get_by_test_id("alerts-language").select_option("el")
        assert saved.value.ok
        page.reload()
        settled(page)
        open_alerts(page)
        expect(choice).to_be_visible()
        expect(page.get_by_test_id("alerts-frequency")).to_have_value("countdowns")
        expect(page.get_by_test_id("alerts-language")).to_have_value("el")
        # the open panel lies on the screen, whatever moved in the top bar after the click
        try:
            page.wait_for_function(
                """() => {
                  const box = document.querySelector('[data-testid="spoken-alerts"]')
                    .getBoundingClientRect();
                  return box.left >= 0 && box.right <= innerWidth && box.width > 0;
                }""",
                timeout=10_000,
            )
        except Exception:  # say where the panel and its button were, to see why
            pytest.fail(f"the alerts panel is not on the screen: {page.evaluate(PANEL_STATE)}")
        box = page.get_by_test_id("spoken-alerts").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    settings = server.get("/api/alerts/settings")
    assert (settings["frequency"], settings["language"]) == ("countdowns", "el")
