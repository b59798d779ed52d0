"""What a request may put into a game, tried on a real server on loopback: numbers JSON does not
have, a chunked body larger than the limit, and an undo that must stay bound to its line through
a correction and a restart. The page that cannot read the live stream says so (Chromium)."""

from __future__ import annotations

import contextlib
import http.client
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from conftest import SHORT_TIMELINE, free_port, hold_the_clock
from playwright.sync_api import Browser, expect

MAX_BODY_BYTES = 64 * 1024


def request(
    url: str, method: str, path: str, body: bytes | Iterator[bytes] | None = None, **headers: str
) -> tuple[int, Any]:
    """Send one raw request (a byte string, or chunks sent chunked); return (status, JSON)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=20)
    try:
        head = {"Content-Type": "application/json", **headers}
        chunked = body is not None and not isinstance(body, bytes)
        if chunked:
            head["Transfer-Encoding"] = "chunked"
        # The server may answer and close before the whole body is sent.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            connection.request(method, path, body=body, headers=head, encode_chunked=chunked)
        response = connection.getresponse()
        data = response.read()
        return response.status, json.loads(data) if data else None
    finally:
        connection.close()


def record_lines(server: Any, game_id: str) -> list[str]:
    path = server.data_dir / "games" / f"{game_id}.jsonl"
    return path.read_text(encoding="utf-8").splitlines()


@pytest.fixture
def game(live_server: Any) -> str:
    created = live_server.post("/api/games", {"players": ["red", "blue"]})
    hold_the_clock(live_server)
    return created["game_id"]


@pytest.mark.parametrize(
    ("path", "body", "where"),
    [
        (
            "/api/event",
            '{"event": {"type": "enter", "player": "red", "cell": [NaN, Infinity]}}',
            "event.cell[0]",
        ),
        ("/api/event", '{"event": {"type": "turn_of_fate", "t": -Infinity}}', "event.t"),
        ("/api/event", '{"event": {"type": "escape", "player": "red", "conf": 1e999}}', "conf"),
        ("/api/correct", '{"line": 2, "event": {"type": "escape", "player": NaN}}', "player"),
        ("/api/games", '{"players": ["red"], "temple": [{"cell": [NaN, 0]}]}', "temple[0]"),
    ],
)
def test_numbers_json_does_not_have_are_refused_at_the_door(live_server, game, path, body, where):
    before = record_lines(live_server, game)
    status, answer = request(live_server.url, "POST", path, body.encode())
    assert status == 422
    assert answer["detail"].startswith("the request body is not valid JSON: ")
    assert where in answer["detail"] and "is not a finite number" in answer["detail"]
    assert record_lines(live_server, game) == before, "the record changed"
    state = live_server.get("/api/state")
    assert state["game_id"] == game
    json.dumps(state, allow_nan=False)  # what every page parses


def test_a_chunked_body_is_limited_by_what_is_read(live_server, game):
    before = record_lines(live_server, game)
    faces = json.dumps(["key"] * 200_000)  # about 1.4 MB, announced by no Content-Length

    def chunks() -> Iterator[bytes]:
        text = f'{{"event": {{"type": "dice", "player": "red", "faces": {faces}}}}}'.encode()
        for start in range(0, len(text), 16 * 1024):
            yield text[start : start + 16 * 1024]

    status, answer = request(live_server.url, "POST", "/api/event", chunks())
    assert status == 413
    assert answer == {"detail": "the request body is larger than 64 KiB"}
    assert record_lines(live_server, game) == before
    # A small chunked body is fine: the limit is on size, not on the way it is sent.
    small = json.dumps({"event": {"type": "escape", "player": "blue"}}).encode()
    status, answer = request(live_server.url, "POST", "/api/event", iter([small[:10], small[10:]]))
    assert status == 200 and answer["verdict"]["reason"] == "blue is not in the exit chamber"
    assert len(record_lines(live_server, game)) == len(before) + 1


SCENARIO = [
    {"type": "discover", "player": "red", "tile": "gem3-key-1", "cell": [1, 0]},  # line 2
    {"type": "enter", "player": "blue", "cell": [1, 0]},  # line 3
    {"type": "enter", "player": "red", "cell": [1, 0]},  # line 4
    {"type": "activate", "cell": [1, 0], "gems": 2, "players": ["red", "blue"]},  # line 5
]


def test_an_undo_after_a_fix_stays_bound_and_is_saved_with_its_line(start_server):
    port = free_port()
    server = start_server(SHORT_TIMELINE, port).server
    game_id = server.post("/api/games", {"players": ["red", "blue"]})["game_id"]
    hold_the_clock(server)
    for event in SCENARIO:
        assert server.post("/api/event", {"event": event})["verdict"]["ok"]
    assert server.post("/api/undo", {})["verdict"]["ok"]  # line 6: takes back line 5
    fixed = server.post("/api/correct", {"line": 4, "event": None})  # red never entered
    assert fixed["verdict"] == {"ok": True}

    def check(state: dict[str, Any]) -> None:
        players = state["game"]["state"]["players"]
        assert players["blue"]["cell"] == [1, 0], "the undo sent blue back to the start"
        assert players["red"]["cell"] == [0, 0]
        assert state["game"]["state"]["depot"] == 7
        log = {entry["line"]: entry for entry in state["log"]}
        assert log[5]["undone_by"] == 6 and log[3]["undone_by"] is None
        assert log[4]["struck"] is True
        assert [w["line"] for w in state["warnings"]] == [], "an undone line shown as rejected"

    check(fixed["state"])
    saved = [json.loads(line) for line in record_lines(server, game_id)]
    assert {k: v for k, v in saved[5].items() if k != "t"} == {"type": "undo", "line": 5}

    replay = server.get(f"/api/games/{game_id}")  # the past games page replays the record
    assert replay["state"]["players"]["blue"]["cell"] == [1, 0]


def test_an_undo_stays_bound_when_the_server_comes_back(start_server):
    port = free_port()
    running = start_server(SHORT_TIMELINE, port)
    server = running.server
    server.post("/api/games", {"players": ["red", "blue"]})
    hold_the_clock(server)
    for event in SCENARIO:
        server.post("/api/event", {"event": event})
    server.post("/api/undo", {})
    running.kill_hard()
    revived = start_server(SHORT_TIMELINE, port).server
    fixed = revived.post("/api/correct", {"line": 4, "event": None})
    assert fixed["verdict"] == {"ok": True}
    assert fixed["state"]["game"]["state"]["players"]["blue"]["cell"] == [1, 0]
    assert fixed["state"]["warnings"] == []


@pytest.mark.browser
def test_a_page_that_cannot_read_the_stream_says_so(chromium: Browser, live_server: Any) -> None:
    live_server.post("/api/games", {"players": ["red", "blue"]})
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(8_000)
    page = context.new_page()
    try:
        # What the server sent before NaN was refused: JSON no browser can parse.
        bad = 'data: {"version": 7, "log": [{"cell": [NaN, Infinity]}]}\n\n'
        page.route(
            "**/api/stream?*",  # the page names its language: /api/stream?lang=en
            lambda route: route.fulfill(
                status=200, headers={"Content-Type": "text/event-stream"}, body=bad
            ),
        )
        page.goto(live_server.url + "/game")
        status = page.get_by_test_id("connection")
        expect(status).to_contain_text("cannot read")
        expect(status).to_contain_text("not live")
        expect(status).not_to_contain_text("● live")
        expect(status).to_have_class("broken")
        # The page still shows the game, from polling /api/state.
        expect(page.get_by_test_id("player-red")).to_be_visible()
        page.unroute("**/api/stream?*")
        page.reload()
        expect(status).to_have_text("● live")
    finally:
        context.close()
