"""POST /api/correct on a real server: any earlier event fixed, saved in the record, resumed."""

import json
import urllib.error
import urllib.request

from conftest import (
    COUNTDOWN_SOON,
    free_port,
    hold_the_clock,
    start_the_clock,
    wait_for_line,
)

A, K, T = "adventurer", "key", "torch"
MISREAD = {"type": "dice", "player": "red", "faces": [A, K, K, K, T]}
RIGHT = {"type": "dice", "player": "red", "faces": [A, A, A, K, T]}
DISCOVER = {"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1]}


def post_status(url, path, body):
    """POST and return (status, JSON answer), without raising on an HTTP error."""
    request = urllib.request.Request(
        url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def by_line(state):
    return {entry["line"]: entry for entry in state["log"]}


def test_a_correction_fixes_an_earlier_roll_is_saved_and_survives_a_restart(start_server):
    port = free_port()
    running = start_server(COUNTDOWN_SOON, port)
    server = running.server
    game_id = server.post("/api/games", {"players": ["red", "blue"], "track_dice": True})["game_id"]
    hold_the_clock(server)
    server.post("/api/event", {"event": MISREAD})  # line 2
    refused = server.post("/api/event", {"event": DISCOVER})  # line 3
    assert refused["verdict"] == {
        "ok": False,
        "reason": "red shows 1 adventurer, 2 needed to discover a chamber",
    }
    server.post("/api/clock", {"action": "resume"})
    assert wait_for_line(server, "countdown_start") == 4  # the clock's own line

    answer = server.post("/api/correct", {"line": 2, "event": RIGHT})  # line 5
    assert answer["verdict"] == {"ok": True}
    state = answer["state"]
    assert [tile["tile"] for tile in state["game"]["temple"]] == ["start", "exit"]
    assert state["game"]["players"]["red"]["showing"] == {"adventurer": 1, "key": 1, "torch": 1}
    log = by_line(state)
    assert log[2]["corrected_by"] == 5 and not log[2]["struck"]
    assert log[2]["text"] == "Red rolls 1 adventurer, 3 keys, 1 torch"
    assert log[2]["corrected_text"] == "Red rolls 3 adventurers, 1 key, 1 torch"
    assert log[2]["event"]["faces"] == RIGHT["faces"]
    assert log[3]["ok"] and log[3]["corrected_by"] is None  # re-judged: the discover fits now
    assert log[4]["correctable"] is False and log[2]["correctable"] is True
    assert log[5]["text"] == "Fix of #2: Red rolls 3 adventurers, 1 key, 1 torch"
    assert log[5]["source"] == "manual" and log[5]["correctable"] is False
    assert state["warnings"] == []

    struck = server.post("/api/correct", {"line": 3, "event": None})  # line 6
    assert struck["verdict"] == {"ok": True}
    assert by_line(struck["state"])[3]["struck"] is True
    assert by_line(struck["state"])[6]["text"] == "Fix of #3: removed"
    assert len(struck["state"]["game"]["temple"]) == 1
    server.post("/api/correct", {"line": 3, "event": DISCOVER})  # line 7: put back

    saved = (server.data_dir / "games" / f"{game_id}.jsonl").read_text(encoding="utf-8")
    lines = [json.loads(text) for text in saved.splitlines()]
    assert lines[4]["type"] == "correct" and lines[4]["line"] == 2
    assert lines[4]["event"] == RIGHT and isinstance(lines[4]["t"], float)
    assert lines[5] == {"type": "correct", "line": 3, "event": None, "t": lines[5]["t"]}
    before = server.get("/api/state")

    running.stop()
    revived = start_server(COUNTDOWN_SOON, port).server
    after = revived.get("/api/state")
    assert after["game_id"] == game_id
    assert after["game"]["state"] == before["game"]["state"]
    assert after["log"] == before["log"]
    assert by_line(after)[3]["corrected_by"] == 7
    replay = revived.get(f"/api/games/{game_id}")
    assert [v["ok"] for v in replay["verdicts"]] == [True, False, True, True, True, True]
    assert replay["state"] == after["game"]["state"]


def test_bad_corrections_get_the_engines_reason_or_a_clear_422(live_server):
    url = live_server.url
    live_server.post("/api/games", {"players": ["red", "blue"], "track_dice": True})
    start_the_clock(live_server)
    live_server.post("/api/event", {"event": MISREAD})  # line 2
    assert wait_for_line(live_server, "countdown_start") == 3  # the clock's own line
    live_server.post("/api/clock", {"action": "pause"})
    live_server.post("/api/undo", {})  # line 4

    expected = {
        9: "line 9 is not an earlier line: this correction is line 5",
        3: "line 3 is the clock's countdown_start: the soundtrack's events cannot be corrected",
        4: "line 4 is an undo, which cannot be corrected",
        1: "line 1 is the setup: start a new game to change it",
    }
    for line, reason in expected.items():
        status, answer = post_status(url, "/api/correct", {"line": line, "event": RIGHT})
        assert status == 200
        assert answer["verdict"] == {"ok": False, "reason": reason}
    # A replacement the engine rejects at its place changes nothing and says why.
    status, answer = post_status(
        url, "/api/correct", {"line": 2, "event": {**RIGHT, "faces": [A, A]}}
    )
    assert status == 200
    assert answer["verdict"]["reason"] == (
        "line 2 as corrected would be rejected: red holds 5 dice but 2 faces were reported"
    )
    assert answer["state"]["game"]["players"]["red"]["rolled"] is False  # still undone

    status, answer = post_status(url, "/api/correct", {"line": "second", "event": None})
    assert status == 422 and "line" in json.dumps(answer["detail"])
    status, answer = post_status(url, "/api/correct", {"line": 2})
    assert status == 422 and "event" in json.dumps(answer["detail"])
    status, answer = post_status(url, "/api/correct", {"line": 2, "event": "red rolls"})
    assert status == 422
