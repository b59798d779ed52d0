"""The temple fills its space (issue 19), in Chromium at 390x844, 1280x800 and 1920x1080 with 2,
4 and 6 players (the six with modules on), on a real server: a temple of many tiles built from
real discover and enter events, most players crowded in a gem chamber. Checked from the DOM's
boxes: every player's token is drawn inside its tile and is what the page shows there (or, only
where nothing else fits, counted in the tile's "+k"), shape and initial on it; no tile name is cut
short; nothing clipped inside a tile; nothing wider than the screen; the clock still on screen
after scrolling to the bottom; at 1920x1080 six players with modules fit one screen; at 1280x800
two player cards share a row. No JavaScript error anywhere."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from conftest import LiveServer, start_the_clock
from contrast import describe, low_contrast
from playwright.sync_api import Browser
from screenshots import screenshot

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
WIDE = {"width": 1920, "height": 1080}
PLAYERS = ["red", "blue", "green", "yellow", "purple", "orange"]
MODULES = ["curses", "treasures", "special", "characters", "time"]


def build_temple(server: LiveServer, players: list[str], modules: list[str], tiles: int) -> dict:
    """A manual game under way: everyone in the gem chamber north of the start, then one or two
    scouts discover chambers (and walk into the harmless ones) until the temple has `tiles`."""
    server.post("/api/games", {"players": players, "modules": modules})
    start_the_clock(server)
    rng = random.Random(7)

    def post(event: dict[str, Any]) -> dict:
        answer = server.post("/api/event", {"event": event})
        assert answer["verdict"]["ok"], (event, answer.get("reason_text"))  # type: ignore[index]
        return answer["state"]["game"]  # type: ignore[index]

    game = post({"type": "discover", "player": players[0], "cell": [0, 1], "tile": "gem3-key-1"})
    for pid in players:
        game = post({"type": "enter", "player": pid, "cell": [0, 1]})
    scouts = players[-2:] if len(players) > 2 else players[-1:]

    def harmless(tile: dict) -> bool:  # no curse to draw, no sand timer, no chalice
        return not (tile.get("curse") or tile.get("time") or tile.get("special") == "chalice")

    for _ in range(80):
        if len(game["temple"]) >= tiles:
            break
        pile = sorted(
            (t for t in game["draw_pile"] if t["id"] != "exit"), key=lambda t: not harmless(t)
        )
        laid = {tuple(t["cell"]): t for t in game["temple"]}
        for pid in scouts:
            found = [
                a
                for a in game["players"][pid]["actions"]
                if a["action"] == "discover" and a["possible"]
            ]
            if found and pile:
                action = rng.choice(found)
                game = post({**action["event"], "tile": pile[0]["id"]})
                if harmless(pile[0]):
                    game = post({"type": "enter", "player": pid, "cell": action["event"]["cell"]})
                break
        else:
            for pid in scouts:
                doors = [
                    a
                    for a in game["players"][pid]["actions"]
                    if a["action"] == "enter"
                    and a["possible"]
                    and harmless(laid.get(tuple(a["event"]["cell"]), {}))
                ]
                if doors:
                    game = post(rng.choice(doors)["event"])
    assert len(game["temple"]) >= tiles, f"only {len(game['temple'])} tiles laid"
    return game


CHECK_TEMPLE = (Path(__file__).parent / "temple_check.js").read_text()
"""The DOM check of the temple (a function of {player: "x_y"})."""


def check_page(chromium: Browser, server: LiveServer, size: dict[str, int], game: dict) -> dict:
    """Open /game at `size` and check the temple, the width and the sticky clock."""
    context = chromium.new_context(viewport=size, base_url=server.url)
    context.set_default_timeout(8_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto("/game")
        page.get_by_test_id(f"player-{PLAYERS[0]}").wait_for()
        page.wait_for_function(
            "n => document.querySelectorAll('#temple .tile:not(.spot)').length === n",
            arg=len(game["temple"]),
        )
        page.wait_for_timeout(200)  # the temple fits its room after the cards are drawn
        where = {
            pid: f"{t['cell'][0]}_{t['cell'][1]}" for t in game["temple"] for pid in t["players"]
        }
        assert sorted(where) == sorted(game["players"])
        start = page.evaluate(  # before the check below scrolls tiles into view
            """() => { const wrap = document.getElementById('temple-wrap').getBoundingClientRect();
              const tile = document.querySelector('#temple .kind-start').getBoundingClientRect();
              return tile.left >= wrap.left && tile.right <= wrap.right
                && tile.top >= wrap.top && tile.bottom <= wrap.bottom; }"""
        )
        assert start, f"{size}: the starting chamber is not in view on the map"
        found = page.evaluate(CHECK_TEMPLE, where)
        assert not found["problems"], f"{size}: {found['problems']}"
        faint = low_contrast(page)
        assert not faint, f"{size}: text below 4.5:1: {describe(faint)}"
        widths = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
        assert widths[0] <= widths[1], f"{size}: the page is {widths[0]} px wide"
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        page.wait_for_timeout(100)
        clock = page.get_by_test_id("clock").evaluate(
            "e => { const r = e.getBoundingClientRect();"
            " return [r.top, r.bottom, innerHeight, scrollY]; }"
        )
        assert clock[0] >= 0 and clock[1] <= clock[2], f"{size}: the clock left the screen {clock}"
        measured = page.evaluate(
            """() => { const side = document.querySelector('.side');
              const cards = [...document.querySelectorAll('.player')]
                .map(e => e.getBoundingClientRect());
              return { height: document.documentElement.scrollHeight, viewport: innerHeight,
                side: [side.scrollHeight, side.clientHeight],
                rowOfTwo: cards.length > 1 && Math.abs(cards[0].top - cards[1].top) < 2
                  && cards[1].left > cards[0].right } }"""
        )
        measured.update(cell=found["cell"], hidden=found["hidden"])
        page.evaluate("window.scrollTo(0, 0)")
        if size == WIDE and len(game["players"]) == 6:
            screenshot(page, "game-temple-6-players.png")
        assert not errors, f"{size}: JavaScript errors {errors}"
        return measured
    finally:
        context.close()


@pytest.mark.parametrize(
    ("count", "modules", "tiles"),
    [(2, [], 12), (4, [], 16), (6, MODULES, 19)],
    ids=["2-players", "4-players", "6-players-with-modules"],
)
def test_the_temple_fills_its_space_with_every_token_inside_its_tile(
    chromium, game_server, count, modules, tiles
):
    players = PLAYERS[:count]
    game = build_temple(game_server, players, modules, tiles)
    crowd = next(t for t in game["temple"] if t["tile"] == "gem3-key-1")
    assert len(crowd["players"]) >= count - 2 and crowd["gem_icons"], "a crowded tile with icons"
    measured = {}
    for size in (PHONE, LAPTOP, WIDE):
        measured[size["width"]] = check_page(chromium, game_server, size, game)
    print(f"{count} players, {len(game['temple'])} tiles: {measured}")
    assert measured[1280]["rowOfTwo"], "at 1280 x 800 two player cards share a row"
    if count >= 3:
        wide = measured[1920]
        assert wide["height"] <= wide["viewport"], (
            f"at 1920 x 1080 the page is {wide['height']} px tall"
        )
    if count >= 4:  # every card whole, no scrolling inside the cards' column either
        assert measured[1920]["side"][0] <= measured[1920]["side"][1], measured[1920]["side"]
