"""Kill the real server mid-game (SIGKILL), start it again: the game and its clock are intact."""

import time

from conftest import free_port

TIMELINE = {
    "intro_seconds": 1.0,
    "game_seconds": 60.0,
    "countdowns": [
        {"n": 1, "start": 4.0, "end": 6.0},
        {"n": 2, "start": 20.0, "end": 22.0},
        {"n": 3, "start": 50.0, "end": 60.0},
    ],
}


def test_a_killed_server_resumes_the_game_clock_included(start_server):
    port = free_port()
    running = start_server(TIMELINE, port)
    server = running.server
    game_id = server.post("/api/games", {"players": ["red", "blue"]})["game_id"]
    server.post("/api/clock", {"action": "start"})
    deadline = time.monotonic() + 10
    while server.get("/api/state")["clock"]["t"] < 0:  # nobody acts before "Escape!"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    steps = [
        {"type": "discover", "player": "red", "tile": "gem1-key-1", "cell": [1, 0]},
        {"type": "enter", "player": "red", "cell": [1, 0]},
        {"type": "activate", "cell": [1, 0], "gems": 1, "players": ["red"]},
        {"type": "escape", "player": "blue"},
    ]
    for step in steps:
        server.post("/api/event", {"event": step})
    deadline = time.monotonic() + 15
    while server.get("/api/state")["clock"]["t"] < 7.0:  # past countdown 1's door slam
        assert time.monotonic() < deadline
        time.sleep(0.1)
    before = server.get("/api/state")
    running.kill_hard()

    revived = start_server(TIMELINE, port).server
    after = revived.get("/api/state")
    assert after["game_id"] == game_id
    assert after["game"]["state"] == before["game"]["state"]
    assert after["game"]["state"]["depot"] == 6
    assert after["game"]["players"]["red"]["dice"] == 4  # lost at countdown 1's end
    assert after["clock"]["status"] == "running"
    # It carries on from where it was, plus the seconds the restart took.
    assert before["clock"]["t"] - 1.5 <= after["clock"]["t"] <= before["clock"]["t"] + 15
    texts = [entry["text"] for entry in after["log"]]
    assert texts.count("Countdown 1 ends: the door slams; Red loses a die") == 1
    assert after["warnings"][-1]["reason"] == "Blue is not in the exit chamber"
    replay = revived.get(f"/api/games/{game_id}")
    assert [v["ok"] for v in replay["verdicts"]][:4] == [True, True, True, False]
