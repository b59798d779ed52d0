"""The Queenie modules in Portuguese in Debian's Chromium at 390 px, on a real server: the set-up
page lists them by their Portuguese names and summaries; a game of the Map, the Totem chamber,
and the Slide shows a Queenie chamber's name, a reminder, an open action and a
refusal's reason in Portuguese, nothing overflowing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import GAME_TIMELINE, checked_page, start_the_clock
from playwright.sync_api import Browser, expect
from test_languages_browser import GAME_PARTS, OVERFLOW, PHONE, SETUP_PARTS

from base.words import say
from rules.modules import offered_modules

pytestmark = pytest.mark.browser

GAME = {
    "players": ["red", "blue"],
    "modules": ["map", "totem", "slide"],
    "track_dice": False,
    "starting_chambers": ["chamber-1", "chamber-2"],
}
"""Three Queenie modules (dice not tracked: the actions are open at once)."""
MOVES = (
    {"type": "discover", "player": "red", "cell": [0, 1], "tile": "map", "stairs": "S"},
    {"type": "discover", "player": "blue", "cell": [0, -1], "tile": "totem", "stairs": "N"},
    {"type": "enter", "player": "red", "cell": [0, 1]},
)
"""Red finds the Map chamber and goes in; blue finds the Totem chamber."""
REFUSED = {"type": "map_travel", "player": "blue", "cell": [0, 1]}
"""Blue is not in the Map chamber: the engine refuses, in its own English."""


@pytest.fixture(scope="module")
def queenie_game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A server playing `GAME`, `MOVES` accepted and `REFUSED` refused."""
    from conftest import ServerProcess, free_port

    base = tmp_path_factory.mktemp("queenie-words")
    running = ServerProcess(base, GAME_TIMELINE, base / "data", free_port())
    server = running.server
    try:
        server.post("/api/games", GAME)
        start_the_clock(server)
        for event in MOVES:
            assert server.post("/api/event", {"event": event})["verdict"]["ok"], event
        status, answer = server.send("/api/event", {"event": REFUSED})
        assert status == 200 and not answer["verdict"]["ok"]  # refused, in the engine's English
        assert answer["verdict"]["reason"] == "blue is not in the Map chamber", answer
        yield server
    finally:
        running.stop()


def test_the_set_up_page_lists_the_queenie_modules_in_portuguese(
    chromium: Browser, queenie_game: Any
):
    with checked_page(chromium, queenie_game.url, PHONE) as page:
        page.add_init_script("localStorage.setItem('templecam.lang', 'pt')")
        page.goto("/setup")
        expect(page.locator("html")).to_have_attribute("lang", "pt")
        queenie = [m for m in offered_modules() if m.get("queenie")]
        for module in queenie:
            box = page.get_by_test_id(f"module-{module['id']}")
            choice = page.locator("label", has=box)
            expect(choice).to_contain_text(say("pt", f"module.{module['id']}"))
            expect(choice).to_contain_text(say("pt", f"module_summary.{module['id']}")[:40])
            expect(choice).not_to_contain_text(module["summary"][:30])
        the_map = page.locator("label", has=page.get_by_test_id("module-map"))
        expect(the_map).to_contain_text("Na câmara do mapa, role 2 tochas")
        the_map.scroll_into_view_if_needed()
        assert page.evaluate(OVERFLOW, SETUP_PARTS + ", .module-group") == []


def test_a_queenie_game_page_in_portuguese_fits_390_px(chromium: Browser, queenie_game: Any):
    with checked_page(chromium, queenie_game.url, PHONE) as page:
        page.add_init_script("localStorage.setItem('templecam.lang', 'pt')")
        page.goto("/game")
        where = page.get_by_test_id("where-red")
        expect(where).to_contain_text(say("pt", "mchamber.map"))  # the Queenie chamber's name
        reminder = page.get_by_test_id("reminder-queenie-totem")
        expect(reminder).to_have_text(say("pt", "qreminder.totem"))
        log = page.get_by_test_id("log")
        refused = say("pt", "reason.q_not_in_map", player=say("pt", "colour.blue"))
        expect(log).to_contain_text(refused)
        expect(log).to_contain_text(say("pt", "mchamber.totem"))
        card = page.get_by_test_id("player-red")
        card.scroll_into_view_if_needed()
        travel = card.locator(".action.kind-map_travel")
        expect(travel).to_contain_text(say("pt", "label.q_map")[1:])  # capitalised by the page
        shown = " ".join(
            [where.inner_text(), reminder.inner_text(), log.inner_text(), card.inner_text()]
        )
        for english in ("Map chamber", "Totem chamber", "is not in", "travel by", "stack dice"):
            assert english not in shown, english
        assert not re.search(r"\bthe\b", shown), shown
        for part in ("where-red", "reminder-queenie-totem", "log", "player-red"):
            page.get_by_test_id(part).scroll_into_view_if_needed()
            assert page.evaluate(OVERFLOW, GAME_PARTS + ", .reminder, .action .label") == []
