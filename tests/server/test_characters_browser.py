"""Module 6 (Characters) on the dashboard (issue 12), on a real server in Chromium at a phone's
390 px: each player's card chosen on the set-up page; on the game page the character on each
player's card with its ability and charge; the Mechanic's turn picked from the chambers, his
card then face down until the next door slam, the log saying so."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import start_the_clock
from playwright.sync_api import expect
from screenshots import screenshot


@pytest.fixture(scope="module")
def server(game_server: Any) -> Any:
    """The module's server: a whole game's clock."""
    return game_server


@pytest.mark.browser
def test_characters_from_set_up_to_a_used_card_on_a_phone(chromium, server):
    context = chromium.new_context(viewport={"width": 390, "height": 844}, base_url=server.url)
    context.set_default_timeout(8_000)
    page = context.new_page()
    try:
        page.goto("/setup")
        page.get_by_test_id("player-toggle-red").click()
        page.get_by_test_id("player-toggle-blue").click()
        expect(page.get_by_test_id("character-choices")).to_be_hidden()
        page.get_by_test_id("module-characters").check()
        expect(page.get_by_test_id("character-choices")).to_be_visible()
        red = page.get_by_test_id("character-red")
        expect(red).to_contain_text("Mechanic · activatable: 2 torches: turn any chamber")
        red.select_option("mechanic-rotate")
        expect(page.get_by_test_id("character-blue")).to_have_value("doc-masks")
        widths = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]"
        )
        assert max(widths[:2]) <= widths[2]
        page.wait_for_function(
            "() => document.querySelector('[data-testid=start-tile-W]')?.dataset.tile"
        )
        with page.expect_navigation():
            page.get_by_test_id("start-game").click()
        setup = server.get("/api/state")["game"]["setup"]
        assert setup["modules"] == ["characters"]

        start_the_clock(server)

        chip = page.get_by_test_id("character-red")
        expect(chip).to_contain_text("Mechanic")
        expect(chip).to_contain_text("activatable: 2 torches: turn any chamber")
        expect(chip).to_contain_text("ready")
        expect(page.get_by_test_id("character-blue")).to_contain_text("Doc")
        expect(page.get_by_test_id("character-blue")).to_contain_text("always on")

        turn = page.get_by_test_id("action-red-ability")
        expect(turn).to_contain_text("Turn a chamber (2 torches)")
        turn.click()
        choice = page.get_by_test_id("pick-choice-0")
        expect(choice).to_contain_text("a quarter turn clockwise")
        choice.click()
        expect(chip).to_contain_text("used: face up after the next slam")
        expect(chip).to_have_class("chip character activatable spent")
        expect(page.get_by_test_id("action-red-ability")).to_be_disabled()
        expect(page.get_by_test_id("log")).to_contain_text("(Mechanic)")
        screenshot(page, "game-characters-phone.png")
        assert max(page.evaluate("() => [document.body.scrollWidth, innerWidth]")) <= 390
    finally:
        context.close()
