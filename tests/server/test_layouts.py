"""Every page at a phone's 390 x 844 and a laptop's 1920 x 1080 in Chromium, on a real server:
nothing wider than the screen, the clock, the keys to escape and the countdown banner in view on
a phone, everything for play on one 1920 x 1080 screen for 3 to 6 players, temple labels large
enough to read across a table. The screenshots go to the screenshot folder (`make screenshots`)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import free_port
from playwright.sync_api import Browser, Page, expect
from screenshots import screenshot

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1920, "height": 1080}
TIMELINE = {
    "intro_seconds": 0.5,
    "game_seconds": 900.0,
    "countdowns": [
        {"n": 1, "start": 1.0, "end": 700.0},
        {"n": 2, "start": 750.0, "end": 760.0},
        {"n": 3, "start": 880.0, "end": 900.0},
    ],
}
"""Countdown 1 runs from a second after "Escape!" on: its banner is on every page tested."""
PLAYERS = ["red", "blue", "green", "yellow", "purple", "orange"]
MIN_TEMPLE_TEXT_PX = 18.0
"""Temple labels at 1920 x 1080: 18 px is about 3.5 mm on a 15.6-inch laptop, 5 minutes of arc
at 1.5 m, the size a letter chart calls readable."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from conftest import ServerProcess

    base = tmp_path_factory.mktemp("layouts")
    running = ServerProcess(base, TIMELINE, base / "data", free_port())
    try:
        yield running.server
    finally:
        running.stop()


def start_game(server: Any, players: list[str]) -> None:
    """A game under way: the clock past "Escape!", three chambers found, one player moved."""
    server.post("/api/games", {"players": players})
    server.post("/api/clock", {"action": "start"})
    deadline = time.monotonic() + 10
    while server.get("/api/state")["clock"]["t"] < 0:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    first = players[0]
    for event in (
        {"type": "discover", "player": first, "tile": "gem3-key-1", "cell": [1, 0]},
        {"type": "discover", "player": first, "tile": "exit", "cell": [0, 1]},
        {"type": "discover", "player": first, "tile": "gem1-torch-2", "cell": [-1, 0]},
        {"type": "enter", "player": first, "cell": [1, 0]},
        {"type": "escape", "player": players[-1]},  # rejected: something in the warnings
    ):
        server.post("/api/event", {"event": event})


def open_page(chromium: Browser, server: Any, size: dict[str, int], path: str) -> Page:
    context = chromium.new_context(viewport=size, base_url=server.url)
    context.set_default_timeout(8_000)
    page = context.new_page()
    page.goto(path)
    return page


def no_sideways_scrolling(page: Page) -> None:
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]"
    )
    assert max(widths[:2]) <= widths[2], f"the page is {widths[:2]} px wide on a {widths[2]} screen"


def in_view(page: Page, testid: str) -> dict[str, float]:
    """The element's box; it must lie inside the viewport."""
    box = page.get_by_test_id(testid).evaluate(
        "e => { const r = e.getBoundingClientRect();"
        " return {left: r.left, top: r.top, right: r.right, bottom: r.bottom,"
        " width: innerWidth, height: innerHeight}; }"
    )
    assert box["left"] >= 0 and box["right"] <= box["width"], f"{testid} {box}"
    assert box["top"] >= 0 and box["bottom"] <= box["height"], f"{testid} {box}"
    return box


@pytest.mark.parametrize("path", ["/setup", "/games", "/game", "/calibrate", "/tiles"])
def test_every_page_fits_a_phone_without_sideways_scrolling(chromium, server, path):
    start_game(server, PLAYERS[:4])
    page = open_page(chromium, server, PHONE, path)
    try:
        page.wait_for_load_state("networkidle")
        if path == "/games":
            page.locator("#games-list [data-game]").first.click()
            expect(page.get_by_test_id("replay-events")).to_be_visible()
        if path == "/game":
            expect(page.get_by_test_id("player-red")).to_be_visible()
        no_sideways_scrolling(page)
        if path == "/setup":
            screenshot(page, "setup-phone.png")
    finally:
        page.context.close()


def test_the_game_on_a_phone_keeps_clock_keys_and_the_countdown_in_view(chromium, server):
    start_game(server, PLAYERS[:3])
    page = open_page(chromium, server, PHONE, "/game")
    try:
        expect(page.get_by_test_id("countdown-alert")).to_be_visible()
        expect(page.get_by_test_id("must-run-back")).to_contain_text("red")
        no_sideways_scrolling(page)
        for testid in ("clock", "keys-to-escape", "countdown-alert"):
            in_view(page, testid)
        screenshot(page, "game-phone.png")
        page.mouse.wheel(0, 1500)  # down to the players and the log: the glance stays on top
        page.wait_for_function("() => scrollY > 1000")
        for testid in ("clock", "keys-to-escape", "countdown-alert"):
            in_view(page, testid)
        clock, banner = in_view(page, "clock"), in_view(page, "countdown-alert")
        assert clock["bottom"] < banner["top"]
    finally:
        page.context.close()


@pytest.mark.parametrize("count", [3, 6])
def test_at_1920_by_1080_everything_for_play_fits_one_screen(chromium, server, count):
    players = PLAYERS[:count]
    start_game(server, players)
    page = open_page(chromium, server, LAPTOP, "/game")
    try:
        for pid in players:
            expect(page.get_by_test_id(f"player-{pid}")).to_be_visible()
        expect(page.get_by_test_id("countdown-alert")).to_be_visible()
        page.wait_for_timeout(300)  # the temple sizes its cells to the room left
        no_sideways_scrolling(page)
        banner = in_view(page, "countdown-alert")
        needed = ["clock", "keys-to-escape", "depot", "turns-of-fate", "temple", "team-actions"]
        needed += ["warnings", *(f"player-{pid}" for pid in players)]
        for testid in needed:
            box = in_view(page, testid)
            assert box["bottom"] <= banner["top"], f"the countdown banner hides {testid}"
        if count == 6:
            screenshot(page, "game-6-players.png")
        sizes = page.evaluate(
            "() => [...document.querySelectorAll("
            "'#temple .tile-name, #temple .tile-row, #temple .gem-costs')]"
            ".map(e => [e.className, parseFloat(getComputedStyle(e).fontSize)])"
        )
        assert sizes
        small = [(name, px) for name, px in sizes if px < MIN_TEMPLE_TEXT_PX]
        assert not small, f"temple text smaller than {MIN_TEMPLE_TEXT_PX} px: {small}"
    finally:
        page.context.close()
