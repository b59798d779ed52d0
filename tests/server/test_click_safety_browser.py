"""No click breaks a game, and the pages speak in words (issue 19), in Debian's Chromium against a
real server: a double click on an action or on Undo records or takes back one event; Undo says
what it took back; an escape asks once, and the escape removed by Fix brings the game back; the
keyboard keeps its place; the roll entry asks for the free dice only; the Fix dialog and the past
games page name chambers, places and tiles (pictures), never cells or ids, and /games says each
game's outcome."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import checked_page, start_the_clock
from playwright.sync_api import Browser, Page, expect

pytestmark = pytest.mark.browser

A, K, T, B = "adventurer", "key", "torch", "black_mask"
CELL_OR_ID = re.compile(r"\[-?\d+, ?-?\d+\]|\b(?:gem1|gem3|chamber)-[a-z0-9-]+\b|Cell [xy]")


@pytest.fixture(scope="module")
def server(game_server: Any) -> Any:
    """The module's server: a whole game's clock, play starting half a second after Start."""
    return game_server


@pytest.fixture
def page(chromium: Browser, server: Any) -> Iterator[Page]:
    """A fresh 1280 x 800 page; its scripts must raise no error."""
    with checked_page(chromium, server.url, {"width": 1280, "height": 800}) as new_page:
        yield new_page


def new_game(server: Any, players: list[str], **setup: Any) -> str:
    """A new game with the two starting chambers west and east of the start, clock started."""
    body = {"players": players, "starting_chambers": ["chamber-1", "chamber-2"], **setup}
    game_id = server.post("/api/games", body)["game_id"]
    start_the_clock(server)
    return game_id


def post(server: Any, event: dict[str, Any]) -> None:
    verdict = server.post("/api/event", {"event": event})["verdict"]
    assert verdict["ok"], (event, verdict)


def log_of(server: Any) -> list[dict[str, Any]]:
    return server.get("/api/state")["log"]


def test_double_clicks_record_one_action_and_undo_one(page: Page, server: Any) -> None:
    new_game(server, ["red", "blue"])
    page.goto("/game")
    enter = page.get_by_test_id("action-red-enter-1_0")
    expect(enter).to_be_enabled()
    enter.dblclick()
    expect(page.get_by_test_id("where-red")).to_contain_text("Chamber east of the start")
    expect(page.get_by_test_id("toast").filter(has_text="second click")).to_be_visible()
    page.wait_for_timeout(700)  # anything a second click sent has been answered by now
    log = log_of(server)
    assert [(e["type"], e["ok"]) for e in log] == [("enter", True)], log

    post(server, {"type": "enter", "player": "blue", "cell": [-1, 0]})
    expect(page.get_by_test_id("where-blue")).to_contain_text("Chamber west of the start")
    page.wait_for_timeout(600)
    page.get_by_test_id("undo").dblclick()
    expect(
        page.get_by_test_id("toast").filter(
            has_text="Undone: Blue enters the Chamber west of the start."
        )
    ).to_be_visible()
    expect(page.get_by_test_id("where-blue")).to_have_text("in the start chamber")
    page.wait_for_timeout(700)
    log = log_of(server)
    assert [e["type"] for e in log] == ["enter", "enter", "undo"], log
    assert log[1]["undone_by"] == log[2]["line"] and log[0]["undone_by"] is None
    expect(page.get_by_test_id("where-red")).to_contain_text("Chamber east of the start")

    # Half a second later a click counts again: the next Undo takes back red's move.
    page.get_by_test_id("undo").click()
    expect(page.get_by_test_id("where-red")).to_have_text("in the start chamber")


def test_the_keyboard_keeps_its_place_after_an_action(page: Page, server: Any) -> None:
    new_game(server, ["red", "blue"])
    page.goto("/game")
    enter = page.get_by_test_id("action-red-enter-1_0")
    enter.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("where-red")).to_contain_text("Chamber east of the start")
    page.wait_for_timeout(300)  # the card has been rebuilt from the answer and the stream
    focused = page.evaluate(
        "() => { const a = document.activeElement; return a && "
        "a.closest('[data-testid=actions-red]') ? a.dataset.testid || a.tagName : null }"
    )
    assert focused is not None, "the focus left red's card after the action"
    page.keyboard.press("Tab")  # and the keyboard carries on from there, not from the top
    after = page.evaluate(
        "() => { const a = document.activeElement; return a.closest('[data-testid^=player-]')"
        " ? a.closest('[data-testid^=player-]').dataset.testid : a.tagName }"
    )
    assert after in ("player-red", "player-blue"), after


def test_an_escape_asks_once_and_fixing_it_away_brings_the_game_back(
    page: Page, server: Any
) -> None:
    new_game(server, ["red"])
    post(server, {"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1]})
    post(server, {"type": "enter", "player": "red", "cell": [0, 1]})
    page.goto("/game")
    escape = page.get_by_test_id("action-red-escape")
    escape.click()
    ask = page.get_by_test_id("confirm-escape")
    expect(ask).to_be_visible()
    expect(ask).to_contain_text("Red is the last one inside: this wins the game.")
    page.get_by_test_id("confirm-escape-no").click()
    expect(ask).to_have_count(0)
    page.wait_for_timeout(300)
    assert [e["type"] for e in log_of(server)] == ["discover", "enter"]

    page.wait_for_timeout(300)
    escape.click()
    page.get_by_test_id("confirm-escape-yes").click()
    expect(page.get_by_test_id("outcome")).to_contain_text("WON!")
    expect(page.get_by_test_id("clock-label")).to_have_text("Escaped!")
    line = next(e["line"] for e in log_of(server) if e["type"] == "escape")

    page.get_by_test_id("outcome-close").click()
    page.get_by_test_id(f"fix-{line}").click()
    page.get_by_test_id("fix-remove").click()
    expect(page.get_by_test_id(f"log-line-{line}")).to_contain_text("removed")
    # The game goes on: no overlay, the clock held where the game ended until Resume, the
    # escape offered again.
    expect(page.get_by_test_id("outcome")).to_be_hidden()
    expect(page.get_by_test_id("clock-label")).to_have_text("Paused")
    expect(page.get_by_test_id("notices")).to_contain_text("The game goes on")
    expect(page.get_by_test_id("action-red-escape")).to_be_visible()
    expect(page.get_by_test_id("team-over")).to_have_count(0)
    page.get_by_test_id("clock-resume").click()
    expect(page.get_by_test_id("clock-label")).to_have_text("Game time")
    state = server.get("/api/state")
    assert state["game"]["state"]["outcome"] == "running"
    assert state["clock"]["status"] == "running"


def test_the_fix_dialog_names_places_and_shows_tiles_as_pictures(page: Page, server: Any) -> None:
    new_game(server, ["red", "blue"])
    post(server, {"type": "discover", "player": "red", "tile": "gem1-torch-1", "cell": [0, 1]})
    post(server, {"type": "enter", "player": "red", "cell": [0, 1]})
    page.goto("/game")

    page.get_by_test_id("fix-2").click()
    dialog = page.get_by_test_id("fix-dialog")
    expect(dialog).to_be_visible()
    where = page.get_by_test_id("fix-where")
    expect(where.locator("option:checked")).to_have_text("north of the start (where it lies now)")
    expect(page.get_by_test_id("fix-player").locator("option:checked")).to_have_text("Red")
    chosen = page.get_by_test_id("fix-tile-gem1-torch-1")
    expect(chosen).to_have_attribute("aria-checked", "true")
    expect(chosen.locator(".pile-tile svg.walls")).to_have_count(1)  # a picture of the tile
    expect(chosen).to_contain_text("Chamber with one gem (torches) 1")
    form = page.get_by_test_id("fix-form").inner_text()
    assert not CELL_OR_ID.search(form), form

    # It was the key chamber: picked by its picture.
    page.get_by_test_id("fix-tile-gem1-key-1").click()
    expect(chosen).to_have_attribute("aria-checked", "false")
    page.get_by_test_id("fix-save").click()
    expect(dialog).to_be_hidden()
    expect(page.get_by_test_id("log-line-2")).to_contain_text(
        "Red discovers a One-gem chamber (keys) north of the start"
    )

    # A move's chamber is chosen by its name and place.
    page.get_by_test_id("fix-3").click()
    cell = page.get_by_test_id("fix-cell")
    expect(cell.locator("option:checked")).to_have_text("One-gem chamber north of the start")
    options = cell.locator("option").all_inner_texts()
    assert "the start chamber" in options and "Chamber east of the start" in options, options
    assert not any(CELL_OR_ID.search(text) for text in options), options
    page.get_by_test_id("fix-cancel").click()


def test_past_games_say_each_outcome_and_replay_in_words(page: Page, server: Any) -> None:
    won = new_game(server, ["red"])
    post(server, {"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1]})
    post(server, {"type": "enter", "player": "red", "cell": [0, 1]})
    post(server, {"type": "escape", "player": "red"})
    running = new_game(server, ["green", "yellow"])
    post(server, {"type": "enter", "player": "green", "cell": [1, 0]})

    listed = {game["game_id"]: game for game in server.get("/api/games")}
    assert listed[won]["outcome"] == "won" and listed[won]["escaped"] == ["red"]
    assert listed[running]["outcome"] == "running"

    page.goto("/games")
    expect(page.get_by_test_id(f"outcome-{won}")).to_have_text("Won: Red escaped")
    expect(page.get_by_test_id(f"outcome-{running}")).to_have_text("Running: 2 of 2 still inside")
    page.get_by_test_id(f"game-{running}").click()
    players = page.get_by_test_id("replay-players")
    expect(players).to_contain_text("the Chamber east of the start")
    expect(players).to_contain_text("the start chamber")
    temple = page.get_by_test_id("replay-temple")
    expect(temple).to_contain_text("Starting chamber")
    expect(temple).to_contain_text("west of the start")
    for text in (players.inner_text(), temple.inner_text()):
        assert not CELL_OR_ID.search(text), text
    page.get_by_test_id(f"game-{won}").click()
    expect(page.get_by_test_id("replay-players")).to_contain_text("out of the temple")
    expect(page.get_by_test_id("replay-outcome")).to_contain_text("WON")


def test_the_roll_entry_asks_for_the_free_dice_only(page: Page, server: Any) -> None:
    new_game(server, ["red", "blue"], track_dice=True)
    post(server, {"type": "dice", "player": "red", "faces": [B, A, K, T, T]})  # 1 die locked
    page.goto("/game")
    page.get_by_test_id("more-red").locator("summary").click()
    expect(page.get_by_test_id("roll-red")).to_contain_text("click 4 faces")
    expect(page.get_by_test_id("roll-locked-red")).to_contain_text("1 locked")
    report = page.get_by_test_id("report-roll-red")
    expect(report).to_have_text("Report roll (0/4)")
    for face in (A, A, K, B):
        page.get_by_test_id(f"face-red-{face}").click()
    expect(report).to_have_text("Report roll (4/4)")
    page.get_by_test_id(f"face-red-{T}").click()
    expect(page.get_by_test_id("toast").filter(has_text="Red rolls 4 dice")).to_be_visible()
    report.click()
    page.wait_for_timeout(500)
    last = log_of(server)[-1]
    assert last["type"] == "dice" and last["ok"], last
    assert sorted(last["event"]["faces"]) == sorted([A, A, K, B, B])
