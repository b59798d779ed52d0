"""A new game from the set-up page starts as page 5 lays it out: the starting chamber with two
drawn chambers beside it, stairways towards it (issue 12); and the API refuses bodies nested too
deeply with a clear 422."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import free_port, start_the_game
from playwright.sync_api import expect

TIMELINE = {
    "intro_seconds": 0.5,
    "game_seconds": 900.0,
    "countdowns": [
        {"n": 1, "start": 300.0, "end": 330.0},
        {"n": 2, "start": 600.0, "end": 630.0},
        {"n": 3, "start": 880.0, "end": 900.0},
    ],
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from conftest import ServerProcess

    base = tmp_path_factory.mktemp("starting")
    running = ServerProcess(base, TIMELINE, base / "data", free_port())
    try:
        yield running.server
    finally:
        running.stop()


def post_raw(url: str, body: bytes) -> tuple[int, str]:
    request = urllib.request.Request(url, data=body, method="POST")
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_the_api_draws_two_chambers_and_never_the_exit(server):
    for _ in range(10):
        draw = server.get("/api/starting-temple")
        assert len(set(draw["drawn"])) == 2
        assert "exit" not in draw["drawn"] and "start" not in draw["drawn"]
        assert {tile["id"] for tile in draw["candidates"]} >= set(draw["drawn"])


def test_a_new_game_lays_the_drawn_chambers_beside_the_start(server):
    drawn = ["chamber-2", "gem1-key-1"]
    server.post("/api/games", {"players": ["red"], "starting_chambers": drawn})
    temple = server.get("/api/state")["game"]["state"]["temple"]
    assert temple == [
        {"tile": "start", "cell": [0, 0], "stairs": "S", "gems": 0},
        {"tile": "chamber-2", "cell": [-1, 0], "stairs": "E", "gems": 0},
        {"tile": "gem1-key-1", "cell": [1, 0], "stairs": "W", "gems": 0},
    ]
    status, text = post_raw(
        server.url + "/api/games",
        json.dumps({"players": ["red"], "starting_chambers": ["exit", "chamber-1"]}).encode(),
    )
    assert status == 422 and "'exit' is not a chamber of the draw pile" in text


def test_a_body_nested_30000_brackets_deep_is_a_clear_422(server):
    status, text = post_raw(server.url + "/api/event", b"[" * 30_000 + b"]" * 30_000)
    assert status == 422
    assert "brackets nest deeper than 64 levels" in json.loads(text)["detail"]


@pytest.mark.browser
def test_the_set_up_page_lays_out_the_starting_temple_on_a_phone(chromium, server):
    context = chromium.new_context(viewport={"width": 390, "height": 844}, base_url=server.url)
    context.set_default_timeout(8_000)
    page = context.new_page()
    try:
        page.goto("/setup")
        layout = page.get_by_test_id("start-layout")
        expect(layout.locator(".pile-tile")).to_have_count(3)
        west = page.get_by_test_id("start-tile-W")
        east = page.get_by_test_id("start-tile-E").get_attribute("data-tile")
        chosen = "chamber-5" if east == "chamber-6" else "chamber-6"  # (the same tile swaps)
        page.get_by_test_id("start-choice-W").select_option(chosen)
        expect(west).to_have_attribute("data-tile", chosen)
        expect(page.get_by_test_id("start-tile-W").locator(".tile-name")).to_have_text("Chamber")
        widths = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]"
        )
        wide = page.evaluate(
            "() => [...document.querySelectorAll('body *')].filter(e => "
            "e.getBoundingClientRect().right > innerWidth).map(e => e.tagName + '.' + "
            "e.className + ' ' + Math.round(e.getBoundingClientRect().right)).slice(0, 8)"
        )
        assert max(widths[:2]) <= widths[2], wide
        page.get_by_test_id("player-toggle-red").click()
        start_the_game(page)
        expect(page.get_by_test_id("tile--1_0")).to_be_visible()
        temple = server.get("/api/state")["game"]["state"]["temple"]
        assert [(t["tile"], t["cell"], t["stairs"]) for t in temple] == [
            ("start", [0, 0], "S"),
            (chosen, [-1, 0], "E"),
            (east, [1, 0], "W"),
        ]
    finally:
        context.close()
