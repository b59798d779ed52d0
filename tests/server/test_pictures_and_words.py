"""What the table reads on the game page (Chromium, real server on loopback): the discover picker
shows each tile as a picture (the user's photo where one is enrolled), the log speaks of players,
chambers and die faces (no ids or cells), undone events are struck through, a server that cannot
be reached is no rejected event, and notices are plain and do not pile up."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from conftest import SHORT_TIMELINE, free_port, hold_the_clock
from playwright.sync_api import Browser, Page, expect

from calibration.enrollment import TileLibrary
from rules.timeline import Countdown, Timeline
from server.clock import Stopwatch
from server.session import NOTICES_KEPT, AudioPlan, Session
from server.store import GameStore

pytestmark = pytest.mark.browser
IDS_OR_CELLS = re.compile(r"\[-?\d+, -?\d+\]|gem\d-|chamber-\d|black_mask|golden_mask|\bred\b")


def game_page(chromium: Browser, url: str) -> Page:
    context = chromium.new_context(viewport={"width": 1600, "height": 1000}, base_url=url)
    context.set_default_timeout(8_000)
    page = context.new_page()
    page.goto("/game")
    return page


def enroll_a_photo(data_dir: Any, tile_id: str) -> None:
    """Enroll a picture of one tile, as `templecam enroll add` does with a photo."""
    rng = np.random.default_rng(7)
    photo = rng.integers(0, 255, (400, 400, 3), dtype=np.uint8)
    library = TileLibrary.load(data_dir / "tiles")
    library.enroll_image(tile_id, photo)
    library.save(data_dir / "tiles")


def test_the_discover_picker_shows_pictures_not_ids(chromium, live_server):
    live_server.post("/api/games", {"players": ["red", "blue"]})
    hold_the_clock(live_server)  # nothing is accepted before Start
    enroll_a_photo(live_server.data_dir, "chamber-3")
    page = game_page(chromium, live_server.url)
    try:
        page.get_by_test_id("action-red-discover-1_0").click()
        picker = page.get_by_test_id("tile-picker")
        expect(picker).to_be_visible()
        expect(page.locator("#picker-title")).to_have_text(
            "Red discovers the chamber to the east: which tile?"
        )
        vault = page.get_by_test_id("pick-tile-gem3-key-1")
        expect(vault.locator(".pile-tile svg.walls")).to_have_count(1)  # doors and stairway
        expect(vault.locator(".gem")).to_have_count(3)
        expect(vault.locator("svg.face-adventurer, svg.face-key")).to_have_count(3)  # in + gems
        expect(vault).to_contain_text("Gem chamber")
        # Discovered to the east, the tile's stairway faces west, toward red.
        stairs = vault.locator("svg.walls g.stairs")
        expect(stairs).to_have_attribute("transform", "rotate(90 50 50)")
        photo = page.get_by_test_id("pick-tile-chamber-3").locator("img.pile-photo")
        expect(photo).to_have_attribute("src", "/api/tiles/chamber-3/card.png")
        page.wait_for_function("() => document.querySelector('img.pile-photo').naturalWidth > 0")
        expect(picker).not_to_contain_text("gem3-key-1")  # the id is in the title only
        vault.click()
        expect(page.get_by_test_id("tile-1_0")).to_contain_text("Gem chamber")
    finally:
        page.context.close()


def test_the_log_names_players_chambers_and_faces(chromium, live_server):
    live_server.post("/api/games", {"players": ["red", "blue"]})
    hold_the_clock(live_server)  # nothing is accepted before Start
    for event in (
        {"type": "discover", "player": "red", "tile": "gem3-key-1", "cell": [1, 0]},  # 2
        {"type": "enter", "player": "red", "cell": [1, 0]},  # 3
        {"type": "dice", "player": "blue", "faces": ["key", "black_mask", "golden_mask"] * 1},
        {"type": "enter", "player": "blue", "cell": [0, 1]},  # 5: rejected, no chamber there
        {"type": "discover", "player": "blue", "tile": "exit", "cell": [0, 1]},  # 6
    ):
        live_server.post("/api/event", {"event": event})
    live_server.post("/api/undo", {})  # 7: takes back line 6
    page = game_page(chromium, live_server.url)
    try:
        log = page.get_by_test_id("log")
        expect(page.get_by_test_id("log-line-2")).to_contain_text(
            "Red discovers a Gem chamber (keys) east of the start"
        )
        expect(page.get_by_test_id("log-line-3")).to_contain_text(
            "Red enters the Gem chamber east of the start"
        )
        expect(page.get_by_test_id("log-line-2").get_by_label("Red", exact=True)).to_be_visible()
        roll = page.get_by_test_id("log-line-4")
        expect(roll).to_contain_text("Blue rolls")
        expect(roll.locator("svg.face-black_mask")).to_have_count(1)
        expect(roll.locator("svg.face-golden_mask")).to_have_count(1)
        expect(page.get_by_test_id("log-line-5")).to_contain_text(
            "Blue enters an empty spot north of the start"
        )
        undone = page.get_by_test_id("log-line-6")
        expect(undone).to_have_class(re.compile(r"\bundone\b"))
        expect(undone.locator("s")).to_contain_text("Blue discovers the Exit north of the start")
        expect(page.get_by_test_id("undone-6")).to_have_text("undone by #7")
        expect(page.get_by_test_id("log-line-7")).to_contain_text("Undo: takes back #6")
        text = log.inner_text()
        assert not IDS_OR_CELLS.search(text), f"ids or cells in the log: {text}"
        warnings = page.get_by_test_id("warnings").inner_text()
        assert "empty spot north of the start" in warnings and "Exit" not in warnings
    finally:
        page.context.close()


def test_a_server_that_cannot_be_reached_is_no_rejected_event(chromium, start_server):
    running = start_server(SHORT_TIMELINE, free_port())
    running.server.post("/api/games", {"players": ["red", "blue"]})
    page = game_page(chromium, running.server.url)
    try:
        expect(page.get_by_test_id("connection")).to_have_text("● live")
        running.kill_hard()
        page.get_by_test_id("action-red-enter-0_1").or_(
            page.get_by_test_id("action-red-discover-0_1")
        ).first.click()
        page.get_by_test_id("pick-tile-chamber-1").click()
        expect(page.get_by_test_id("toast")).to_contain_text("the server cannot be reached")
        expect(page.get_by_test_id("warnings")).to_have_text("No rejected events.")
        expect(page.get_by_test_id("connection")).not_to_have_text("● live")
    finally:
        page.context.close()


def test_the_audio_notice_is_plain_and_can_be_closed(chromium, live_server):
    live_server.post("/api/games", {"players": ["red"]})
    page = game_page(chromium, live_server.url)
    try:
        notices = page.get_by_test_id("notices")
        plain = "Sound on this computer is turned off: this page plays the soundtrack."
        expect(notices).to_have_text(f"Note: {plain}\u00d7")  # and its close button
        expect(notices).not_to_contain_text("host audio")
        page.get_by_label("close this note").click()
        expect(page.get_by_test_id("notice")).to_have_count(0)
    finally:
        page.context.close()


def test_notices_do_not_pile_up(tmp_path):
    timeline = Timeline(2.0, 40.0, (Countdown(1, 6, 9), Countdown(2, 14, 16), Countdown(3, 30, 40)))
    session = Session(GameStore(tmp_path), timeline, AudioPlan(False, "none"), Stopwatch)
    for _ in range(5):
        session.notify("playing the demo recording")
    assert session.notices == ["playing the demo recording"]
    for n in range(10):
        session.notify(f"notice {n}")
    assert session.notices == [f"notice {n}" for n in range(10 - NOTICES_KEPT, 10)]
