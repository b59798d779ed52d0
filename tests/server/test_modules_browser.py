"""Modules 1 (Curses) and 2 (Treasures) on the dashboard (issue 12), on a real server in
Chromium: chosen on the set-up page, their chambers in the starting temple's draw, a curse drawn
from a picker, shown by name and picture on the player's card and lifted, a treasure claimed from
a picker and used; on a phone's 390 px without sideways scrolling, and at 1920 x 1080 with every
card's curses and treasures on one screen."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import free_port, start_the_game
from playwright.sync_api import Page, expect
from screenshots import screenshot, screenshot_folder

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1920, "height": 1080}
TIMELINE = {
    "intro_seconds": 0.5,
    "game_seconds": 900.0,
    "countdowns": [
        {"n": 1, "start": 300.0, "end": 330.0},
        {"n": 2, "start": 600.0, "end": 630.0},
        {"n": 3, "start": 880.0, "end": 900.0},
    ],
}
BOTH_MARKS = ["ct-gem1-key-3", "ct-gem1-torch-3", "ct-chamber-3", "ct-chamber-6"]
"""The curse and treasure chambers that show a purple mask and a treasure icon."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from conftest import ServerProcess

    base = tmp_path_factory.mktemp("modules")
    running = ServerProcess(base, TIMELINE, base / "data", free_port())
    try:
        yield running.server
    finally:
        running.stop()


def element_shot(page: Page, testid: str, name: str) -> None:
    """Save one element's picture in the screenshot folder (for the README)."""
    folder = screenshot_folder()
    folder.mkdir(parents=True, exist_ok=True)
    page.get_by_test_id(testid).screenshot(path=str(folder / name))


def no_sideways_scrolling(page: Page, where: str) -> None:
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]"
    )
    wide = page.evaluate(
        "() => [...document.querySelectorAll('body *')].filter(e => "
        "e.getBoundingClientRect().right > innerWidth + 0.5).map(e => e.tagName + '.' + "
        "e.className).slice(0, 6)"
    )
    assert max(widths[:2]) <= widths[2], f"{where}: {widths} {wide}"


def test_the_api_lists_the_modules_and_a_basic_game_shows_none(server):
    modules = server.get("/api/modules")
    assert [(m["id"], m["name"]) for m in modules[:8]] == [
        ("curses", "Curses"),
        ("treasures", "Treasures"),
        ("illusions", "Illusion chambers"),
        ("special", "Special chambers"),
        ("quests", "Quest chambers"),
        ("characters", "Characters"),
        ("traps", "Trap chambers"),
        ("time", "Time chambers"),
    ]
    assert [m["number"] for m in modules[:8]] == list(range(1, 9))
    queenie = [m for m in modules[8:] if m["queenie"]]
    assert len(queenie) == len(modules) - 8 == 15  # the Queenie modules follow, each named
    assert all(m["name"] and m["summary"] and m["rulebook"] for m in queenie)
    assert {m["id"]: m["requires"] for m in queenie}["exchange_teleport"] == ["curses", "treasures"]
    draw = server.get("/api/starting-temple?modules=curses")
    ids = [t["id"] for t in draw["candidates"]]
    assert not any(i.startswith(("chamber-", "gem1-")) for i in ids)  # replaced (page 10)
    assert any(t.get("curse") for t in draw["candidates"])
    server.post("/api/games", {"players": ["red"]})
    game = server.get("/api/state")["game"]
    assert "curse_cards" not in game and "treasures" not in game
    assert "curses" not in game["players"]["red"]


@pytest.mark.browser
def test_curses_and_treasures_from_set_up_to_lifting_and_using_on_a_phone(chromium, server):
    context = chromium.new_context(viewport=PHONE, base_url=server.url)
    context.set_default_timeout(8_000)
    page = context.new_page()
    try:
        # Set-up: both modules ticked, described; the starting temple drawn from their chambers.
        page.goto("/setup")
        curses = page.get_by_test_id("module-curses")
        expect(page.get_by_test_id("module-choices")).to_contain_text("lift it")
        curses.check()
        with page.expect_response(lambda r: "modules=curses%2Ctreasures" in r.url):
            page.get_by_test_id("module-treasures").check()  # the temple is drawn again
        page.wait_for_function(
            "() => [...document.querySelectorAll('[data-testid=start-choice-W] option')]"
            ".some(o => o.value.startsWith('ct-'))"
        )
        page.wait_for_load_state("networkidle")
        expect(page.get_by_test_id("setup-summary")).to_contain_text("Curses + Treasures")
        drawn = [
            page.get_by_test_id(f"start-tile-{side}").get_attribute("data-tile") for side in "WE"
        ]
        tile = next(t for t in BOTH_MARKS if t not in drawn)
        for colour in ("red", "blue"):
            page.get_by_test_id(f"player-toggle-{colour}").click()
        no_sideways_scrolling(page, "set-up")
        element_shot(page, "modules-card", "setup-modules.png")
        start_the_game(page)
        assert server.get("/api/state")["game"]["setup"]["modules"] == ["curses", "treasures"]

        page.get_by_test_id("clock-start").click()
        discover = page.get_by_test_id("action-red-discover-0_1")
        expect(discover).to_be_enabled()

        # A chamber with a purple mask and a treasure icon: red owes a curse card.
        discover.click()
        page.get_by_test_id(f"pick-tile-{tile}").click()
        expect(page.get_by_test_id("tile-0_1").locator(".mark-curse")).to_have_count(1)
        expect(page.get_by_test_id("tile-0_1").locator(".mark-treasure.lying")).to_have_count(1)
        expect(page.get_by_test_id("curses-owed-red")).to_have_text("draws 1 curse card")
        page.get_by_test_id("action-red-curse").click()
        picker = page.get_by_test_id("module-picker")
        expect(picker).to_be_visible()
        expect(picker.locator(".module-choice")).to_have_count(6)
        expect(page.get_by_test_id("pick-curse-broken_die")).to_contain_text("Broken die")
        no_sideways_scrolling(page, "the curse picker")
        page.get_by_test_id("pick-curse-broken_die").click()
        chip = page.get_by_test_id("curse-red-broken_die")
        expect(chip.locator(".chip-name")).to_have_text("Broken die")
        expect(chip.locator("svg.curse-broken_die")).to_have_count(1)
        expect(page.get_by_test_id("stats-red")).to_contain_text("4 dice")  # one on the card
        expect(page.get_by_test_id("piles")).to_contain_text("curse pile: 13 cards")
        log = page.get_by_test_id("log")
        expect(log).to_contain_text("Red draws the curse Broken die")
        expect(log).to_contain_text("with a purple mask and a treasure icon north of the start")
        expect(page.get_by_test_id("player-red")).not_to_contain_text("broken_die")
        element_shot(page, "player-red", "player-cursed-phone.png")

        # Lifted by his own roll (manual mode: the table says he rolled it).
        lift = page.get_by_test_id("action-red-lift-broken_die")
        expect(lift).to_contain_text("Lift the curse Broken die")
        lift.click()
        expect(chip).to_have_count(0)
        expect(page.get_by_test_id("stats-red")).to_contain_text("5 dice")
        expect(log).to_contain_text("Red lifts the curse Broken die")

        # The treasure: enter, claim with 2 keys (a picker of the tile turned up), use it.
        page.get_by_test_id("action-red-enter-0_1").click()
        page.get_by_test_id("action-red-claim").click()
        expect(picker.locator(".module-choice")).to_have_count(6)
        page.get_by_test_id("pick-treasure-extra_gem").click()
        held = page.get_by_test_id("treasure-red-extra_gem")
        expect(held.locator(".chip-name")).to_have_text("Extra gem")
        expect(page.get_by_test_id("tile-0_1").locator(".mark-treasure.lying")).to_have_count(0)
        expect(log).to_contain_text("Red claims a treasure: the Extra gem")
        depot = int(page.get_by_test_id("depot").inner_text())
        no_sideways_scrolling(page, "the game with a treasure")
        page.get_by_test_id("action-red-use-extra_gem").click()
        expect(page.get_by_test_id("depot")).to_have_text(str(depot - 1))
        expect(held).to_have_count(0)
        expect(log).to_contain_text("Red uses the Extra gem")

        assert server.get("/api/state")["game"]["players"]["red"]["treasures"] == []
    finally:
        context.close()


@pytest.mark.browser
def test_a_double_key_is_spent_with_the_next_action_and_cards_fit_1920(chromium, server):
    server.post(
        "/api/games",
        {
            "players": ["red", "blue", "green"],
            "modules": ["curses", "treasures"],
            "starting_chambers": ["ct-chamber-1", "ct-chamber-4"],  # east: enter with 2 keys
        },
    )
    server.post("/api/clock", {"action": "start"})
    deadline = time.monotonic() + 10
    while server.get("/api/state")["clock"]["t"] < 0:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    for event in (
        {"type": "discover", "player": "blue", "tile": "ct-gem1-key-3", "cell": [0, 1]},
        {"type": "curse", "player": "blue", "card": "silence"},
        {"type": "enter", "player": "blue", "cell": [0, 1]},
        {"type": "claim", "player": "blue", "treasure": "double_key"},
        {"type": "enter", "player": "blue", "cell": [0, 0]},
    ):
        server.post("/api/event", {"event": event})
    context = chromium.new_context(viewport=LAPTOP, base_url=server.url)
    context.set_default_timeout(8_000)
    page = context.new_page()
    try:
        page.goto("/game")
        toggle = page.get_by_test_id("treasure-blue-double_key")
        expect(toggle).to_contain_text("Double key")
        expect(page.get_by_test_id("curse-blue-silence").locator(".chip-name")).to_have_text(
            "Silence"
        )
        for testid in ("modules-red", "modules-blue", "modules-green", "temple", "clock"):
            box = page.get_by_test_id(testid).bounding_box()
            assert box and box["y"] + box["height"] <= LAPTOP["height"], testid
        page.wait_for_timeout(300)
        screenshot(page, "game-modules.png")
        toggle.click()
        expect(toggle).to_have_attribute("aria-pressed", "true")
        enter = page.get_by_test_id("action-blue-enter-1_0")
        expect(enter).to_contain_text("with the Double key")
        enter.click()
        expect(page.get_by_test_id("treasure-blue-double_key")).to_have_count(0)
        expect(page.get_by_test_id("log")).to_contain_text(
            "Blue enters the Chamber east of the start with the Double key"
        )
    finally:
        context.close()
