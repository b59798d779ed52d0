"""Every text of every page reads at 4.5:1 at least, on a phone and on a 1920 x 1080 screen.

A real server on loopback, Debian's Chromium: each page is opened, left to load its content,
and every drawn text is measured against the background it is drawn on (tests/server/contrast).
"""

from __future__ import annotations

import contextlib
import urllib.error
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import start_the_clock
from contrast import AA_NORMAL, describe, measure
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

VIEWPORTS = {"phone": (390, 844), "desktop": (1920, 1080)}
PAGES = ("/setup", "/game", "/games", "/calibrate", "/tiles", "/dice")


@pytest.fixture(scope="module")
def played(game_server: Any) -> Any:
    """The game server with a finished game in /games and a running one with modules on."""
    game_server.post("/api/games", {"players": ["green", "yellow"]})
    start_the_clock(game_server)
    game_server.post("/api/event", {"event": {"type": "escape", "player": "yellow"}})
    game_server.post(
        "/api/games",
        {"players": ["red", "blue", "green", "purple"], "modules": ["curses", "treasures"]},
    )
    start_the_clock(game_server)
    discover = {"type": "discover", "player": "red", "cell": [1, 0], "tile": "chamber-2"}
    for event in (discover, {"type": "escape", "player": "blue"}):  # one accepted, one not
        with contextlib.suppress(urllib.error.HTTPError):
            game_server.post("/api/event", {"event": event})
    return game_server


@pytest.fixture(params=list(VIEWPORTS))
def page(request: pytest.FixtureRequest, chromium: Any, played: Any) -> Iterator[Page]:
    width, height = VIEWPORTS[request.param]
    context = chromium.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.set_default_navigation_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.base_url = played.url  # type: ignore[attr-defined]
    yield page
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def _settle(page: Page, path: str) -> None:
    """Wait until the page has drawn what it loads."""
    if path == "/game":
        expect(page.get_by_test_id("tile-0_0")).to_be_visible()
    elif path == "/games":
        expect(page.locator("[data-testid^=game-]").first).to_be_visible()
    elif path == "/tiles":
        expect(page.locator("#tiles img, .tile-grid img").first).to_be_visible()
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(300)


@pytest.mark.parametrize("path", PAGES)
def test_every_text_reads_at_4_5_to_1(page: Page, path: str) -> None:
    page.goto(page.base_url + path)  # type: ignore[attr-defined]
    _settle(page, path)
    offenders, checked = measure(page)
    assert checked > 10, f"{path}: only {checked} texts measured: the page did not load"
    assert not offenders, (
        f"{path}: {len(offenders)} texts below {AA_NORMAL}:1 of {checked}:\n{describe(offenders)}"
    )


def test_the_helper_finds_faint_text(chromium: Any) -> None:
    """The check itself: grey on grey, text faded by an ancestor's opacity and text on a
    half-transparent panel are caught; white on black and text over a picture are not."""
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.set_content(
        """<body style="background:#000;color:#fff">
        <p>white on black</p>
        <p style="color:#777;background:#666">grey on grey</p>
        <div style="opacity:.3"><p>faded</p></div>
        <div style="background:rgba(255,255,255,.9)"><p>white on a light panel</p></div>
        <div style="background:linear-gradient(#000,#eee)"><p>on a gradient</p></div>
        <div style="background:url(data:image/gif;base64,R0lGODlhAQABAAAAACw=)">
          <p style="color:#111">over a picture</p></div>
        <p hidden style="color:#000">hidden</p>
        </body>"""
    )
    offenders, checked = measure(page)
    context.close()
    assert sorted(o.text for o in offenders) == [
        "faded",
        "grey on grey",
        "on a gradient",
        "white on a light panel",
    ], describe(offenders)
    assert checked == 5
