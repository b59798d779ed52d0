"""Hardening, tried on a real server on loopback: no path of this computer leaves the server,
only this very origin (scheme, host and port) may change the game, no page can be framed."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from conftest import hold_the_clock


def fetch(url: str, body: object | None = None, **headers: str) -> tuple[int, Any, str]:
    """GET (or POST a JSON body); return the status, the headers and the text."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    for name, value in headers.items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode()


def test_the_tiles_api_names_no_folder_of_this_computer(live_server):
    status, _, text = fetch(live_server.url + "/api/tiles")
    assert status == 200
    tiles = json.loads(text)
    assert "folder" not in tiles and len(tiles["tiles"]) >= 19
    assert str(live_server.data_dir) not in text
    assert "/tmp" not in text and "/home" not in text and "/root" not in text


def test_only_this_very_origin_may_change_the_game(live_server):
    live_server.post("/api/games", {"players": ["red"]})
    hold_the_clock(live_server)
    event = {"event": {"type": "escape", "player": "red"}}
    port = int(live_server.url.rsplit(":", 1)[1])
    others = [
        f"http://127.0.0.1:{port + 1}",  # another server on this computer
        f"http://localhost:{port}",  # another host name is another origin
        f"https://127.0.0.1:{port}",
        "http://127.0.0.1",
        "null",
    ]
    for origin in others:
        status, _, text = fetch(live_server.url + "/api/event", event, Origin=origin)
        assert status == 403, origin
        assert "are not allowed: use the dashboard page" in json.loads(text)["detail"]
    status, _, _ = fetch(live_server.url + "/api/event", event, Origin=live_server.url)
    assert status == 200


@pytest.mark.parametrize("path", ["/game", "/setup", "/api/state", "/static/app.css", "/nowhere"])
def test_no_page_can_be_shown_in_another_sites_frame(live_server, path):
    _, headers, _ = fetch(live_server.url + path)
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["Content-Security-Policy"] == "frame-ancestors 'none'"
    assert headers["X-Content-Type-Options"] == "nosniff"
