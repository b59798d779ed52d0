"""The set-up page's Timer section on a phone (390 px) in Debian's Chromium, on a real server:
the options, what they say, a game started with them, and random times the pages never show."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from conftest import checked_page, start_the_clock, start_the_game
from playwright.sync_api import Page, expect
from screenshots import screenshot_folder

from rules.timeline import parse_timeline
from rules.timer_options import TimerOptions, clock_words, timer_timeline

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def fits_the_width(page: Page) -> None:
    """Nothing on the page reaches past its 390 px (no sideways scrolling)."""
    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide"
    box = page.get_by_test_id("timer-options").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]


def slide(page: Page, test_id: str, value: int) -> None:
    page.get_by_test_id(test_id).fill(str(value))


def saved_setup(server: Any, game_id: str) -> dict[str, Any]:
    record = server.data_dir / "games" / f"{game_id}.jsonl"
    return json.loads(record.read_text(encoding="utf-8").splitlines()[0])


def test_the_timer_options_on_a_phone(chromium: Any, game_server: Any) -> None:
    with checked_page(chromium, game_server.url, PHONE) as page:
        page.goto("/setup")
        section = page.get_by_test_id("timer-options")
        expect(section).to_be_visible()
        expect(page.get_by_test_id("timer-official")).to_be_checked()
        expect(page.get_by_test_id("timer-settings")).to_be_hidden()
        fits_the_width(page)

        page.get_by_test_id("timer-custom").check()
        expect(page.get_by_test_id("timer-settings")).to_be_visible()
        slide(page, "timer-minutes", 12)
        slide(page, "timer-countdowns", 4)
        slide(page, "timer-length", 30)
        slide(page, "timer-delay", 120)
        expect(page.get_by_test_id("timer-minutes-shown")).to_have_text("12 min")
        expect(page.get_by_test_id("timer-delay-shown")).to_have_text("2:00")
        summary = page.get_by_test_id("timer-summary")
        expect(summary).to_have_text(re.compile(r"^4 countdowns of 30 s, at 2:00, .*12:00\.$"))
        fits_the_width(page)

        # Too much for the game's length: the page says so, and so does the server.
        slide(page, "timer-minutes", 5)
        slide(page, "timer-countdowns", 6)
        slide(page, "timer-length", 120)
        expect(summary).to_contain_text("need a game of at least")
        page.get_by_test_id("player-toggle-red").click()
        page.get_by_test_id("start-game").click()
        expect(page.get_by_test_id("setup-error")).to_contain_text(
            "need a game of at least", timeout=5_000
        )
        fits_the_width(page)

        # Random times: the page says how many, never when.
        slide(page, "timer-minutes", 10)
        slide(page, "timer-countdowns", 4)
        slide(page, "timer-length", 30)
        page.get_by_test_id("timer-random").check()
        expect(summary).to_contain_text("at a random time")
        expect(summary).not_to_contain_text("2:00,")
        section.screenshot(path=str(screenshot_folder() / "setup-timer-phone.png"))
        start_the_game(page)

        state: Any = game_server.get("/api/state")
        setup = saved_setup(game_server, state["game_id"])
        assert setup["timer"]["random"] is True and setup["timer"]["minutes"] == 10
        truth = parse_timeline(setup["timeline"])
        assert len(truth.countdowns) == 4
        assert state["clock"]["timeline"]["hidden"] == 3
        # The game page shows the game's length, and no time of a countdown still to come.
        expect(page.get_by_test_id("clock")).to_be_visible()
        text = page.locator("body").inner_text()
        for countdown in truth.countdowns[:-1]:
            assert clock_words(countdown.start) not in text
            assert clock_words(truth.game_seconds - countdown.start) not in text
        assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
        expect(page.get_by_test_id("practice-hints")).to_be_hidden()  # not a practice game


def test_practice_starts_a_longer_game(chromium: Any, game_server: Any) -> None:
    with checked_page(chromium, game_server.url, PHONE) as page:
        page.goto("/setup")
        page.get_by_test_id("timer-practice").check()
        expect(page.get_by_test_id("timer-summary")).to_contain_text("collapse at 20:00")
        fits_the_width(page)
        page.get_by_test_id("player-toggle-blue").click()
        start_the_game(page)
        state: Any = game_server.get("/api/state")
        assert state["clock"]["timeline"]["game_seconds"] == 1200.0
        assert state["clock"]["timeline"]["timer"]["practice"] is True
        # The game page's hints: what the engine says Blue can do (manual mode: no dice needed).
        hints = page.get_by_test_id("practice-hints")
        expect(hints).to_contain_text("Press Start")
        start_the_clock(game_server)
        expect(page.get_by_test_id("hint-blue")).to_contain_text(re.compile(r"Blue: you can \w+"))
        expect(hints).not_to_contain_text(re.compile(r"\([NESW]\)|to the [NESW]\b"))
        hints.screenshot(path=str(screenshot_folder() / "practice-hints-phone.png"))
        box = hints.bounding_box()
        assert box is not None and box["x"] + box["width"] <= PHONE["width"]
        assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]


def seed_with_first_countdown_soon(
    options: dict[str, Any], within: float, after: float = 0.0
) -> int:
    """A seed whose first random countdown starts within `within` s of "Escape!" (and not
    before `after` s: time for a busy machine's page to get in sync before it)."""
    for seed in range(5000):
        timeline = timer_timeline(TimerOptions(**{**options, "seed": seed}), 0.5)
        if after <= timeline.countdowns[0].start <= within:
            return seed
    raise AssertionError("no such seed")


def test_the_browser_plays_a_random_countdown_from_its_gong(
    chromium: Any, game_server: Any
) -> None:
    options = {"minutes": 5, "countdowns": 2, "countdown_seconds": 10, "first_delay_seconds": 10}
    seed = seed_with_first_countdown_soon({**options, "random": True}, within=40.0, after=30.0)
    timer = {**options, "random": True, "seed": seed}
    game_server.post("/api/games", {"players": ["red"], "audio": "browser", "timer": timer})
    with checked_page(chromium, game_server.url, PHONE, timeout_ms=30_000) as page:
        page.goto("/game")
        page.get_by_test_id("clock-start").click()  # a click: the page may play sound
        status = page.get_by_test_id("audio-status")
        expect(status).to_contain_text("in sync", timeout=30_000)
        track = page.evaluate("window.templecam.audio.bufferUrl")
        assert page.evaluate("window.templecam.state().clock.timeline.hidden") == 1
        assert page.evaluate("window.templecamClips.started.length") == 0
        # At the gong the state shows countdown 1, and the page plays its clip from there.
        page.wait_for_function("() => window.templecamClips.started.length > 0", timeout=50_000)
        start = page.evaluate("window.templecamClips.started[0]")
        print(f"countdown 1's clip starts {start['offset']:.2f} s after its gong")
        assert start["n"] == 1 and 0 <= start["offset"] < 1.0
        assert page.evaluate("window.templecam.audio.bufferUrl") == track  # the same track
        expect(status).to_contain_text("in sync", timeout=30_000)
