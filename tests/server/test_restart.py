"""Kill the real server mid-game (SIGKILL), start it again: the game and its clock are intact."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

TIMELINE = {
    "intro_seconds": 1.0,
    "game_seconds": 60.0,
    "countdowns": [
        {"n": 1, "start": 4.0, "end": 6.0},
        {"n": 2, "start": 20.0, "end": 22.0},
        {"n": 3, "start": 50.0, "end": 60.0},
    ],
}


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """`templecam serve` in a subprocess on loopback."""

    def __init__(self, data_dir, timeline, port):
        self.url = f"http://127.0.0.1:{port}"
        command = [sys.executable, "-m", "templecam", "serve", "--no-host-audio"]
        command += ["--port", str(port), "--data-dir", str(data_dir), "--timeline", str(timeline)]
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                self.get("/api/state")
                return
            except OSError:
                time.sleep(0.1)
        self.process.kill()
        output = self.process.communicate()[0].decode()
        raise AssertionError(f"the server did not start:\n{output}")

    def get(self, path):
        with urllib.request.urlopen(self.url + path, timeout=5) as response:
            return json.load(response)

    def post(self, path, body):
        request = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.load(response)

    def kill_hard(self):
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill_hard()


@pytest.fixture
def setup_files(tmp_path):
    timeline = tmp_path / "timeline.json"
    timeline.write_text(json.dumps(TIMELINE))
    return tmp_path / "data", timeline


def test_a_killed_server_resumes_the_game_clock_included(setup_files):
    data_dir, timeline = setup_files
    port = free_port()
    server = Server(data_dir, timeline, port)
    try:
        game_id = server.post("/api/games", {"players": ["red", "blue"]})["game_id"]
        server.post("/api/clock", {"action": "start"})
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
        server.kill_hard()
    finally:
        server.stop()

    revived = Server(data_dir, timeline, port)
    try:
        after = revived.get("/api/state")
        assert after["game_id"] == game_id
        assert after["game"]["state"] == before["game"]["state"]
        assert after["game"]["state"]["depot"] == 6
        assert after["game"]["players"]["red"]["dice"] == 4  # lost at countdown 1's end
        assert after["clock"]["status"] == "running"
        # It carries on from where it was, plus the seconds the restart took.
        assert before["clock"]["t"] - 1.5 <= after["clock"]["t"] <= before["clock"]["t"] + 15
        texts = [entry["text"] for entry in after["log"]]
        assert texts.count("countdown 1 ends: the door slams") == 1
        assert after["warnings"][-1]["reason"] == "blue is not in the exit chamber"
        replay = revived.get(f"/api/games/{game_id}")
        assert [v["ok"] for v in replay["verdicts"]][:4] == [True, True, True, False]
    finally:
        revived.stop()
