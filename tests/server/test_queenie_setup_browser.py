"""The set-up page starts a game with several Queenie modules, on a real server in Chromium on
a phone's 390 px (and the table's own boards at 1920 px too): their own choices shown when
ticked, the new characters' cards offered, module 5's quest chambers picked by their tiles, the
Maya calendar's spaces and bars and the beast's path set as the table's copy shows them, a
refusal's words beside its field, the game's setup line carrying what the table chose."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import (
    GAME_TIMELINE,
    LiveServer,
    ServerProcess,
    checked_page,
    free_port,
    start_the_game,
)
from playwright.sync_api import Page, expect
from screenshots import screenshot_folder

from rules.queenie.maya_calendar import DEFAULT_SPACES
from rules.queenie.queenie_quests import NAMES as QUEENIE_QUESTS

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1920, "height": 1080}


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
        start_the_game(page)
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
        start_the_game(page)
        line = saved_setup(server)
        assert "new_characters" not in line["modules"]
        assert not line["characters"]["green"].startswith("void-runner")


def start(page: Page, opens_the_game: bool = False) -> None:
    page.wait_for_load_state("networkidle")  # the starting temple drawn for the modules ticked
    if opens_the_game:
        start_the_game(page)
    else:
        page.get_by_test_id("start-game").click()


@pytest.mark.browser
@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1920px"])
def test_the_table_picks_its_quest_chambers_and_sets_its_boards(chromium, server, viewport):
    with checked_page(chromium, server.url, viewport) as page:
        page.goto("/setup")
        for colour in ("red", "blue"):
            page.get_by_test_id(f"player-toggle-{colour}").click()
        tick(page, "queenie_quests")  # ticks module 5 too
        tick(page, "maya_calendar")
        tick(page, "new_traps")
        # Module 5: drawn at random unless the table picks them by their tiles.
        expect(page.get_by_test_id("quest-pick-random")).to_be_checked()
        expect(page.get_by_test_id("quest-tiles")).to_be_hidden()
        expect(page.get_by_test_id("quest-count-row")).to_be_visible()
        page.get_by_test_id("quest-pick-chosen").check()
        expect(page.get_by_test_id("quest-count-row")).to_be_hidden()
        tiles = page.get_by_test_id("quest-tiles")
        expect(tiles).to_contain_text("Altar chamber")
        expect(tiles).to_contain_text("Snake pit")
        page.get_by_test_id("quest-tile-snake-pit").check()
        page.get_by_test_id("quest-tile-altar").check()
        expect(page.get_by_test_id("setup-summary")).to_contain_text("Quest chambers (2)")
        # The Maya calendar: the doomed side, a space and the bars as this board prints them.
        first = page.get_by_test_id("maya-board-space-1")
        expect(first).to_have_attribute("data-symbol", "sun")
        expect(page.get_by_test_id("maya-bar-1")).to_be_hidden()  # the eternal side has none
        page.get_by_test_id("maya-side").select_option("doomed")
        first.click()
        expect(first).to_have_attribute("data-symbol", "moon")
        expect(first).to_be_focused()  # a keyboard's place kept through the change
        page.get_by_test_id("maya-bar-1").select_option("2")
        page.get_by_test_id("maya-bar-2").select_option("8")
        expect(page.get_by_test_id("maya-board").locator(".maya-bar")).to_have_count(2)
        # The beast chamber's path: one space changed, one more added and changed.
        path = page.get_by_test_id("beast-path")
        expect(path.locator("button")).to_have_count(4)
        page.get_by_test_id("beast-step-1").click()
        page.get_by_test_id("beast-add").click()
        page.get_by_test_id("beast-step-5").click()
        expect(page.get_by_test_id("beast-step-5")).to_have_attribute("data-icon", "key")
        page.wait_for_load_state("networkidle")
        no_sideways_scrolling(page, "the set-up page with the table's own boards")
        if viewport is PHONE:
            folder = screenshot_folder()
            folder.mkdir(parents=True, exist_ok=True)
            for testid, name in (("quest-choice", "quests"), ("queenie-choices", "queenie-boards")):
                page.get_by_test_id(testid).screenshot(path=str(folder / f"setup-{name}-phone.png"))
        start(page, opens_the_game=True)
        line = saved_setup(server)
        assert line["quests"] == ["altar", "snake-pit"]
        assert line["maya_side"] == "doomed"
        assert line["maya_spaces"] == ["moon", *DEFAULT_SPACES[1:]]
        assert line["maya_bars"] == [2, 8]
        assert line["beast_path"] == ["key", "torch", "key", "adventurer", "key"]


@pytest.mark.browser
def test_ticking_the_modules_is_enough_the_printed_boards_are_the_engines(chromium, server):
    with checked_page(chromium, server.url, PHONE) as page:
        page.goto("/setup")
        page.get_by_test_id("player-toggle-green").click()
        tick(page, "quests")
        tick(page, "maya_calendar")
        tick(page, "new_traps")
        page.get_by_test_id("quest-count").select_option("3")
        start(page, opens_the_game=True)
        line = saved_setup(server)
        assert len(line["quests"]) == 3
        assert line["maya_side"] == "eternal"
        assert not {"maya_spaces", "maya_bars", "beast_path"} & set(line)


@pytest.mark.browser
def test_a_refused_choice_is_said_beside_its_field_until_it_is_mended(chromium, server):
    with checked_page(chromium, server.url, PHONE) as page:
        page.goto("/setup")
        page.get_by_test_id("player-toggle-yellow").click()
        tick(page, "quests")
        tick(page, "maya_calendar")
        page.get_by_test_id("quest-pick-chosen").check()  # and no chamber ticked
        page.get_by_test_id("maya-board-space-1").click()  # 3 suns, 4 moons: not the 9 tiles
        start(page)
        quests = page.get_by_test_id("field-error-quests")
        spaces = page.get_by_test_id("field-error-maya_spaces")
        expect(quests).to_have_text("pick 1 to 3 quest chambers, not 0")
        expect(spaces).to_contain_text("must hold 4 suns, 3 moons and 2 gears")
        expect(page.get_by_test_id("setup-error")).to_contain_text("4 suns")
        expect(page.get_by_test_id("field-error-maya_bars")).to_be_hidden()
        no_sideways_scrolling(page, "the set-up page with its refusals")
        # Mended: a chamber ticked, the space back; now the doomed side's bars the wrong way.
        page.get_by_test_id("quest-tile-obelisk").check()
        for _ in range(2):
            page.get_by_test_id("maya-board-space-1").click()  # moon -> gear -> sun
        page.get_by_test_id("maya-side").select_option("doomed")
        page.get_by_test_id("maya-bar-1").select_option("7")  # after bar 2's space 6
        start(page)
        bars = page.get_by_test_id("field-error-maya_bars")
        expect(bars).to_contain_text("two whole numbers rising from 1 to 9")
        expect(quests).to_be_hidden()
        expect(spaces).to_be_hidden()
        page.get_by_test_id("maya-bar-1").select_option("3")
        start(page, opens_the_game=True)
        line = saved_setup(server)
        assert line["quests"] == ["obelisk"]
        assert line["maya_side"] == "doomed"
        assert "maya_spaces" not in line and "maya_bars" not in line  # the printed board


@pytest.mark.browser
def test_the_new_choices_speak_the_tables_language(chromium, server):
    with checked_page(chromium, server.url, PHONE) as page:
        page.add_init_script("localStorage.setItem('templecam.lang', 'pt')")
        page.goto("/setup")
        tick(page, "queenie_quests")
        tick(page, "new_traps")
        expect(page.get_by_test_id("quest-choice")).to_contain_text("Quais câmaras de missão?")
        page.get_by_test_id("quest-pick-chosen").check()
        expect(page.get_by_test_id("quest-tiles")).to_contain_text("Câmara do altar")
        expect(page.get_by_test_id("beast-path-choice")).to_contain_text("Câmara da fera")
        expect(page.get_by_test_id("beast-step-2")).to_have_attribute(
            "aria-label", "espaço 2: tocha · toque para mudar"
        )
