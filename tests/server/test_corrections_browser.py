"""The Fix dialog in Debian's Chromium against a real server: a misread roll corrected from the
game log, the log and the player's dice changing with it, and an event removed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import checked_page, start_the_clock
from playwright.sync_api import Browser, Page, expect
from screenshots import screenshot

pytestmark = pytest.mark.browser

A, K, T = "adventurer", "key", "torch"


@pytest.fixture
def page(chromium: Browser, live_server: Any) -> Iterator[Page]:
    """A fresh 1600 x 1000 page on the live server; its script must raise no error."""
    with checked_page(chromium, live_server.url, {"width": 1600, "height": 1000}, 5_000) as p:
        yield p


def test_fix_a_misread_roll_from_the_log(page: Page, live_server: Any) -> None:
    live_server.post("/api/games", {"players": ["red", "blue"], "track_dice": True})
    start_the_clock(live_server)  # nothing is accepted before Start
    misread = {"type": "dice", "player": "red", "faces": [A, K, K, K, T]}
    live_server.post("/api/event", {"event": misread})  # line 2
    discover = {"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1]}
    live_server.post("/api/event", {"event": discover})  # line 3: 1 adventurer, rejected

    page.goto("/game")
    expect(page.get_by_test_id("log-line-3")).to_contain_text("Red shows 1 adventurer, 2 needed")
    expect(page.get_by_test_id("showing-red").get_by_label("adventurer")).to_have_count(1)

    # Escape leaves the dialog without a change.
    page.get_by_test_id("fix-3").click()
    dialog = page.get_by_test_id("fix-dialog")
    expect(dialog).to_be_visible()
    expect(page.get_by_test_id("fix-tile-exit")).to_have_attribute("aria-checked", "true")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()

    # The roll showed two more adventurers: fix faces 2 and 3, save with Enter.
    page.get_by_test_id("fix-2").click()
    title = page.get_by_test_id("fix-title")
    expect(title).to_contain_text("Fix line 2: Red rolls 1 adventurer, 3 keys")
    expect(page.get_by_test_id("fix-die-4")).to_have_value(T)
    page.get_by_test_id("fix-die-1").select_option(A)
    page.get_by_test_id("fix-die-2").select_option(A)
    screenshot(page, "fix.png")
    page.get_by_test_id("fix-die-2").press("Enter")
    expect(dialog).to_be_hidden()
    expect(page.get_by_test_id("toast").filter(has_text="Line 2 corrected.")).to_be_visible()

    entry = page.get_by_test_id("log-line-2")
    expect(page.get_by_test_id("corrected-2")).to_have_text("corrected by #4")
    expect(entry).to_contain_text("→ Red rolls 3 adventurers, 1 key, 1 torch")
    expect(page.get_by_test_id("log-line-4")).to_contain_text("Fix of #2")
    # The discover of line 3 is judged again: the exit is in the temple, the warning is gone.
    expect(page.get_by_test_id("tile-0_1")).to_contain_text("Exit")
    expect(page.get_by_test_id("log-line-3")).not_to_have_class("rejected")
    expect(page.get_by_test_id("warnings")).to_contain_text("No rejected events.")
    # Red's dice as corrected, less the two adventurers the discover used.
    showing = page.get_by_test_id("showing-red")
    expect(showing.get_by_label("adventurer")).to_have_count(1)
    expect(showing.get_by_label("key")).to_have_count(1)

    # Remove the discover: the exit leaves the temple, the line shows struck out.
    page.get_by_test_id("fix-3").click()
    page.get_by_test_id("fix-remove").click()
    expect(dialog).to_be_hidden()
    expect(page.get_by_test_id("tile-0_1")).to_have_count(0)
    expect(page.get_by_test_id("log-line-3")).to_contain_text("removed")
    expect(page.get_by_test_id("log-line-5")).to_contain_text("Fix of #3: removed")
    expect(showing.get_by_label("adventurer")).to_have_count(3)
