"""The story of a past game on a real server on loopback: a game played through the API, its
story (gem curve, moments), the PNG and PDF export, bad ids, deletion, and the camera video ring
fed by a real video file through the vision service."""

from __future__ import annotations

import io
import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from conftest import GAME_TIMELINE, LiveServer, ServerProcess, free_port, start_the_clock
from PIL import Image, ImageStat, PdfParser


def fetch(
    server: LiveServer, path: str, method: str = "GET", body: Any = None
) -> tuple[int, bytes, str]:
    """Any request; returns (status, body, content type) for errors too."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server.url + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read(), response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        return error.code, error.read(), error.headers.get("Content-Type", "")


def play(server: LiveServer, event: dict[str, Any]) -> dict[str, Any]:
    """Send one event of the running game; it must be accepted. Returns the new state."""
    answer = server.post("/api/event", {"event": event})
    assert answer["verdict"] == {"ok": True}, answer  # type: ignore[index]
    return answer["state"]  # type: ignore[index]


def play_a_won_game(server: LiveServer) -> tuple[str, list[list[float]], list[int]]:
    """Two players activate six gems in two chambers, find the exit and escape (an enter taken
    back on the way). Returns the game id, the depot curve as the live game showed it after each
    event, and the lines of the activations."""
    game_id = server.post("/api/games", {"players": ["red", "blue"]})["game_id"]  # type: ignore[index]
    start_the_clock(server)
    state = server.get("/api/state")
    curve = [[0.0, state["game"]["state"]["depot"]]]  # type: ignore[index]
    activations = []
    events = [
        {"type": "discover", "player": "red", "tile": "gem3-key-1", "cell": [1, 0]},
        {"type": "enter", "player": "red", "cell": [1, 0]},
        {"type": "enter", "player": "blue", "cell": [1, 0]},
        {"type": "activate", "cell": [1, 0], "gems": 3, "players": ["red", "blue"]},
        {"type": "enter", "player": "blue", "cell": [0, 0]},
        {"type": "discover", "player": "blue", "tile": "gem3-torch-1", "cell": [-1, 0]},
        {"type": "enter", "player": "blue", "cell": [-1, 0]},
        {"type": "enter", "player": "red", "cell": [0, 0]},
        {"type": "enter", "player": "red", "cell": [-1, 0]},
        {"type": "activate", "cell": [-1, 0], "gems": 3, "players": ["blue", "red"]},
        {"type": "discover", "player": "red", "tile": "exit", "cell": [-1, 1]},
        {"type": "enter", "player": "red", "cell": [-1, 1]},
        {"type": "enter", "player": "blue", "cell": [-1, 1]},
        {"type": "escape", "player": "red"},
        {"type": "escape", "player": "blue"},
    ]
    for number, event in enumerate(events):
        if number == 7:  # a move taken back: not part of the story
            play(server, {"type": "enter", "player": "red", "cell": [0, 0]})
            server.post("/api/undo", {})
        time.sleep(0.3)  # the clock moves on between events
        state = play(server, event)
        last = state["log"][-1]
        depot = state["game"]["state"]["depot"]
        if event["type"] == "activate":
            activations.append(last["line"])
        if depot != curve[-1][1]:
            curve.append([last["event"]["t"], depot])
    assert state["game"]["state"]["outcome"] == "won"
    return game_id, curve, activations


@pytest.fixture(scope="module")
def won_game(game_server: LiveServer) -> tuple[str, list[list[float]], list[int]]:
    return play_a_won_game(game_server)


def test_the_story_of_a_played_game_has_its_gem_curve_and_its_moments(
    game_server: LiveServer, won_game: tuple[str, list[list[float]], list[int]]
) -> None:
    game_id, curve, activations = won_game
    story = game_server.get(f"/api/games/{game_id}/story")
    assert story["outcome"] == "won" and story["outcome_text"] == "Won: Red and Blue escaped"
    assert story["depot"][: len(curve)] == curve
    assert story["depot"][-1] == [story["duration"], curve[-1][1]]
    gems = [m for m in story["moments"] if m["kind"] in ("gems", "last-gem")]
    assert [m["line"] for m in gems] == activations
    assert gems[-1]["kind"] == "last-gem"
    escapes = [m for m in story["moments"] if m["kind"] == "escape"]
    assert [m["text"].split()[0] for m in escapes] == ["Red", "Blue"]
    assert escapes[-1]["text"].endswith("the game is won")
    assert [m["text"] for m in story["moments"] if m["kind"] == "exit"] == [
        "Red discovers the Exit north-west of the start"
    ]
    told = [e["text"] for e in story["events"]]
    assert "Red enters the start chamber" in told  # red's walk back before the exit
    assert len(story["events"]) == 15, "the move taken back is told as if it happened"
    per_minute = story["per_minute"]
    assert sum(per_minute["actions"]) == 15 and sum(per_minute["rolls"]) == 0
    # everyone spent the game somewhere on the temple, until they escaped
    for pid in ("red", "blue"):
        spent = sum(tile["seconds"][pid] for tile in story["temple"])
        escaped = next(m["t"] for m in escapes if m["text"].lower().startswith(pid))
        assert spent == pytest.approx(escaped, abs=0.05)
    assert story["video"]["on"] is False and story["video"]["segments"] == []


def pdf_picture(body: bytes) -> Image.Image:
    """The one picture on the PDF's one page (read with Pillow's own PDF parser), checked to
    fill the page."""
    pdf = PdfParser.PdfParser(buf=body)
    assert len(pdf.pages) == 1
    page = pdf.read_indirect(pdf.pages[0])
    stream = pdf.read_indirect(page[b"Resources"][b"XObject"][b"image"])
    picture = Image.open(io.BytesIO(bytes(stream.buf)))
    width, height = page[b"MediaBox"][2:]
    assert width / height == pytest.approx(picture.width / picture.height, rel=0.01)
    return picture


@pytest.mark.parametrize("kind", ["png", "pdf"])
def test_the_story_exports_as_a_real_picture(
    game_server: LiveServer, won_game: tuple[str, list[list[float]], list[int]], kind: str
) -> None:
    game_id = won_game[0]
    status, body, media = fetch(game_server, f"/api/games/{game_id}/story.{kind}")
    assert status == 200 and media == {"png": "image/png", "pdf": "application/pdf"}[kind]
    picture = Image.open(io.BytesIO(body)) if kind == "png" else pdf_picture(body)
    picture.load()
    assert picture.width == 1200 and 1800 < picture.height < 5000
    spread = ImageStat.Stat(picture.convert("L")).stddev[0]
    assert spread > 20, "the picture is blank"
    colours = picture.convert("RGB").resize((300, 600)).getcolors(maxcolors=100_000)
    assert colours is not None and len(colours) > 50


@pytest.mark.parametrize(
    "path",
    [
        "/api/games/nope/story",
        "/api/games/20200101-000000-abcd/story",
        "/api/games/20200101-000000-abcd/story.png",
        "/api/games/20200101-000000-abcd/story.pdf",
        "/api/games/..%5C..%5Csecrets/story",
        "/api/games/20200101-000000-abcd/video/segment.webm",
    ],
)
def test_bad_game_ids_get_a_clear_404(game_server: LiveServer, path: str) -> None:
    status, body, media = fetch(game_server, path)
    assert status == 404 and media.startswith("application/json")
    assert "no saved game" in json.loads(body)["detail"]


def test_the_story_page_of_a_missing_game_says_so(game_server: LiveServer) -> None:
    status, body, media = fetch(game_server, "/games/%3Cimg%20src=x%20onerror=alert(1)%3E")
    assert status == 404 and media.startswith("text/html")
    assert b"There is no saved game" in body and b"<img" not in body and b"&lt;img" in body


def test_a_game_is_deleted_with_its_record_but_never_the_running_one(
    game_server: LiveServer,
) -> None:
    old = game_server.post("/api/games", {"players": ["green"]})["game_id"]  # type: ignore[index]
    status, body, _ = fetch(game_server, f"/api/games/{old}", "DELETE")
    assert status == 409 and "start a new game" in json.loads(body)["detail"]
    game_server.post("/api/games", {"players": ["yellow"]})
    status, body, _ = fetch(game_server, f"/api/games/{old}", "DELETE")
    assert status == 200 and json.loads(body)["deleted"] == old
    assert fetch(game_server, f"/api/games/{old}/story")[0] == 404
    assert old not in [g["game_id"] for g in game_server.get("/api/games")]  # type: ignore[union-attr]
    assert not list((game_server.data_dir / "games").glob(f"{old}*"))
    assert fetch(game_server, f"/api/games/{old}", "DELETE")[0] == 404


def write_clip(path: Path, seconds: float, fps: float = 10.0) -> None:
    """A camera clip: the green level tells the second; a patch of noise gives it weight."""
    rng = np.random.default_rng(9)
    noise = rng.integers(0, 255, (12, 160, 160, 3), dtype=np.uint8)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (640, 360))
    for k in range(int(seconds * fps)):
        image = np.zeros((360, 640, 3), dtype=np.uint8)
        image[:, :, 1] = 60
        image[100:260, 200:360] = noise[k % len(noise)]
        writer.write(image)
    writer.release()


def test_the_camera_video_is_kept_under_its_cap_and_deleted_with_the_game(
    tmp_path: Path,
) -> None:
    clip = tmp_path / "table.mp4"
    write_clip(clip, 40)
    data = tmp_path / "data"
    data.mkdir()
    (data / "video-ring.json").write_text(json.dumps({"segment_seconds": 3}))
    running = ServerProcess(tmp_path, GAME_TIMELINE, data, free_port(), ["--camera", str(clip)])
    try:
        server = running.server
        assert server.get("/api/video-ring")["megabytes"] == 0  # type: ignore[index]
        status, body, _ = fetch(server, "/api/video-ring", "PUT", {"megabytes": -3})
        assert status == 422 and "megabytes" in json.loads(body)["detail"]
        assert fetch(server, "/api/video-ring", "PUT", {"megabytes": 1})[0] == 200
        game_id = server.post("/api/games", {"players": ["red", "blue"]})["game_id"]  # type: ignore[index]
        start_the_clock(server)
        deadline = time.monotonic() + 60
        while True:
            video = server.get(f"/api/games/{game_id}/story")["video"]  # type: ignore[index]
            if video["segments"] and video["segments"][0]["start"] > 0:
                break  # the oldest seconds were dropped to stay under the cap
            assert time.monotonic() < deadline, f"no video ring came: {video}"
            time.sleep(0.5)
        assert video["on"] and video["megabytes"] == 1
        assert 0 < video["bytes"] <= 1_000_000 + 20_000
        segment = video["segments"][-1]
        status, body, media = fetch(server, f"/api/games/{game_id}/video/{segment['file']}")
        assert status == 200 and media == "video/webm"
        copy = tmp_path / "segment.webm"
        copy.write_bytes(body)
        capture = cv2.VideoCapture(str(copy))
        frames = 0
        while capture.read()[0]:
            frames += 1
        assert frames == len(segment["times"]) > 0
        assert fetch(server, f"/api/games/{game_id}/video/..%2Fvideo-ring.json")[0] == 404
        server.post("/api/games", {"players": ["green"]})
        assert fetch(server, f"/api/games/{game_id}", "DELETE")[0] == 200
        assert not (data / "video" / game_id).exists()
    finally:
        running.stop()
