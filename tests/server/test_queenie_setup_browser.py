"""The set-up page starts a game with several Queenie modules, on a real server in Chromium on
a phone's 390 px: their own choices shown when ticked, the new characters' cards offered, the
game's setup line carrying what the table chose."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import GAME_TIMELINE, LiveServer, ServerProcess, checked_page, free_port
from playwright.sync_api import Page, expect

from rules.queenie.queenie_quests import NAMES as QUEENIE_QUESTS

PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    base = tmp_path_factory.mktemp("queenie-setup")
    running = ServerProcess(base, GAME_TIMELINE, base / "data", free_port())
    try:
        yield running.server
    finally:
        running.stop()


def no_sideways_scrolling(page: Page, where: str) -> None:
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]"
    )
    assert max(widths[:2]) <= widths[2], f"{where}: {widths}"


def tick(page: Page, module: str) -> None:
    box = page.get_by_test_id(f"module-{module}")
    box.check()
    expect(box).to_be_checked()


def saved_setup(server: LiveServer) -> dict[str, Any]:
    game_id = server.get("/api/state")["game_id"]  # type: ignore[index]
    record = server.data_dir / "games" / f"{game_id}.jsonl"
    line: dict[str, Any] = json.loads(record.read_text().splitlines()[0])
    return line


@pytest.mark.browser
def test_the_set_up_page_starts_a_game_with_several_queenie_modules_on_a_phone(chromium, server):
    with checked_page(chromium, server.url, PHONE) as page:
        page.goto("/setup")
        for colour in ("red", "blue"):
            page.get_by_test_id(f"player-toggle-{colour}").click()
        choices = page.get_by_test_id("queenie-choices")
        expect(choices).to_be_hidden()
        tick(page, "curses")
        tick(page, "queenie_quests")
        expect(page.get_by_test_id("module-quests")).to_be_checked()  # its requirement
        tick(page, "characters")
        tick(page, "new_characters")
        tick(page, "maze")
        tick(page, "maya_calendar")
        tick(page, "cursed_gems")
        tick(page, "new_quests")
        expect(choices).to_be_visible()
        for quest in ("riddle", "ascension", "guardian"):
            expect(page.get_by_test_id(f"new-quest-{quest}")).to_be_checked()
        page.get_by_test_id("new-quest-ascension").uncheck()
        expect(page.get_by_test_id("maya-side")).to_have_value("eternal")
        page.get_by_test_id("maya-side").select_option("doomed")
        expect(page.get_by_test_id("queenie-note-cursed_gems")).to_contain_text("at random")
        expect(page.get_by_test_id("queenie-note-queenie_quests")).to_contain_text("Snake pit")
        red = page.get_by_test_id("character-red")
        expect(red.locator("option[value=trickster-swap]")).to_have_count(1)
        expect(red.locator("option[value=trickster-swap]")).to_contain_text("Trickster")
        red.select_option("trickster-swap")
        page.get_by_test_id("quest-count").select_option("3")
        page.wait_for_load_state("networkidle")
        no_sideways_scrolling(page, "the set-up page with the Queenie choices")
        page.get_by_test_id("start-game").click()
        page.wait_for_url("**/game")
        line = saved_setup(server)
        assert set(line["modules"]) == {
            "curses",
            "quests",
            "queenie_quests",
            "characters",
            "new_characters",
            "maze",
            "maya_calendar",
            "cursed_gems",
            "new_quests",
        }
        assert line["new_quests"] == ["riddle", "guardian"]
        assert line["maya_side"] == "doomed"
        assert set(line["cursed_gems"]) == {"red", "blue"}
        assert line["characters"]["red"] == "trickster-swap"
        assert len(line["quests"]) == 3 and set(line["quests"]) & set(QUEENIE_QUESTS)
        expect(page.get_by_test_id("clock-start")).to_be_visible()
        no_sideways_scrolling(page, "the game page")


@pytest.mark.browser
def test_unticking_new_characters_takes_its_cards_back(chromium, server):
    with checked_page(chromium, server.url, PHONE) as page:
        page.goto("/setup")
        page.get_by_test_id("player-toggle-green").click()
        tick(page, "characters")
        tick(page, "new_characters")
        green = page.get_by_test_id("character-green")
        green.select_option("void-runner-step")
        page.get_by_test_id("module-new_characters").uncheck()
        expect(green.locator("option[value=void-runner-step]")).to_have_count(0)
        page.wait_for_load_state("networkidle")
        page.get_by_test_id("start-game").click()
        page.wait_for_url("**/game")
        line = saved_setup(server)
        assert "new_characters" not in line["modules"]
        assert not line["characters"]["green"].startswith("void-runner")
