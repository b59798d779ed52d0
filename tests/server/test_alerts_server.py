"""Spoken alerts on a real server: the table's choice remembered over a restart, a countdown's
warning announced on the stream with its voice served as WAV, and a server without espeak-ng
telling the table the one command that installs it, never failing."""

from __future__ import annotations

import io
import json
import os
import threading
import time
import urllib.error
import urllib.request
import wave
from pathlib import Path
from typing import Any

from conftest import LiveServer, free_port

from server.speech import ENGINE, INSTALL_COMMAND

ALERT_TIMELINE = {
    "intro_seconds": 0.5,
    "game_seconds": 60.0,
    "countdowns": [
        {"n": 1, "start": 1.0, "end": 16.0},
        {"n": 2, "start": 20.0, "end": 25.0},
        {"n": 3, "start": 40.0, "end": 60.0},
    ],
}
"""Countdown 1 ends 16 s after "Escape!": its door-slam warning comes 6 s after it."""


class AlertStream:
    """Reads /api/alerts/stream in the background and keeps every alert it brings."""

    def __init__(self, server: LiveServer) -> None:
        self.alerts: list[dict[str, Any]] = []
        self.hello = threading.Event()
        self._response = urllib.request.urlopen(server.url + "/api/alerts/stream", timeout=60)
        threading.Thread(target=self._read, daemon=True).start()
        assert self.hello.wait(10), "the alert stream said nothing"

    def _read(self) -> None:
        try:
            self._take(self._response)
        except (OSError, ValueError, AttributeError):  # closed under the reader by `close`
            return

    def _take(self, lines: Any) -> None:
        kind = "message"
        for raw in lines:
            line = raw.decode("utf-8").rstrip("\n")
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                if kind == "hello":
                    self.hello.set()
                else:
                    self.alerts.append(json.loads(line[6:]))
            elif not line:
                kind = "message"

    def wait_for(self, key: str, within: float = 20.0) -> dict[str, Any]:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            found = [a for a in self.alerts if a["key"] == key]
            if found:
                return found[0]
            time.sleep(0.05)
        raise AssertionError(f"no {key} came; the stream brought {self.alerts}")

    def close(self) -> None:
        self._response.close()


def play_to_the_door_warning(server: LiveServer) -> dict[str, Any]:
    """Start a game and run the clock to countdown 1's door-slam warning; return the alert
    the stream brought."""
    server.post("/api/games", {"players": ["red", "blue"], "track_dice": False})
    stream = AlertStream(server)
    try:
        server.post("/api/clock", {"action": "start"})
        return stream.wait_for("alert.door_soon")
    finally:
        stream.close()


def test_the_table_s_choice_is_remembered_over_a_restart(start_server):
    port = free_port()
    first = start_server(ALERT_TIMELINE, port)
    server = first.server
    assert server.get("/api/alerts/settings")["frequency"] == "all"
    status, answer = server.send(
        "/api/alerts/settings", {"frequency": "countdowns", "volume": 0.4}, "PUT"
    )
    assert status == 200 and (answer["frequency"], answer["volume"]) == ("countdowns", 0.4)
    status, answer = server.send("/api/alerts/settings", {"volume": 7}, "PUT")
    assert status == 422 and "volume" in json.dumps(answer)
    status, answer = server.send("/api/alerts/settings", {"frequency": "sometimes"}, "PUT")
    assert status == 422
    first.stop()  # the same data folder and port again: a restart
    again = start_server(ALERT_TIMELINE, port).server
    settings = again.get("/api/alerts/settings")
    assert (settings["frequency"], settings["volume"]) == ("countdowns", 0.4)
    assert "Traceback" not in server.log_path.read_text()


def test_a_countdown_warning_is_announced_and_its_voice_served(start_server):
    server = start_server(ALERT_TIMELINE, free_port()).server
    alert = play_to_the_door_warning(server)
    assert alert["text"] == "Door slams in ten seconds!"
    assert alert["category"] == "countdown" and alert["language"] == "en"
    with urllib.request.urlopen(server.url + alert["url"], timeout=10) as response:
        assert response.headers["Content-Type"] == "audio/wav"
        data = response.read()
    with wave.open(io.BytesIO(data)) as wav:
        seconds = wav.getnframes() / wav.getframerate()
    assert 1.0 < seconds < 4.0
    try:
        urllib.request.urlopen(server.url + "/api/alerts/0123456789abcdef.wav", timeout=10)
        raise AssertionError("an unknown alert was served")
    except urllib.error.HTTPError as error:
        assert error.code == 404 and "never announced" in json.load(error)["detail"]


def test_a_server_without_espeak_ng_says_how_to_install_it(start_server, monkeypatch, tmp_path):
    folders = os.environ["PATH"].split(os.pathsep)
    without = [f for f in folders if f and not (Path(f) / ENGINE).exists()]
    monkeypatch.setenv("PATH", os.pathsep.join(without) or str(tmp_path))
    server = start_server(ALERT_TIMELINE, free_port()).server
    settings = server.get("/api/alerts/settings")
    assert settings["engine"]["available"] is False
    assert INSTALL_COMMAND in settings["engine"]["notice"]
    notices = server.get("/api/state")["notices"]
    assert any(INSTALL_COMMAND in notice for notice in notices)
    tried = server.post("/api/alerts/try", {})
    assert tried["url"] is None and INSTALL_COMMAND in tried["notice"]
    # the game goes on: its alerts still come, in words, without a voice
    alert = play_to_the_door_warning(server)
    assert alert["text"] == "Door slams in ten seconds!" and alert["url"] is None
    assert server.get("/api/state")["game"]["state"]["outcome"] == "running"
    assert "Traceback" not in server.log_path.read_text()
