"""The dashboard server watching a real video file through the vision pipeline (real ONNX model)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from conftest import SHORT_TIMELINE, ServerProcess, free_port, hold_the_clock
from scene_truth import calibration_of

from models.synth.frame import render_frame
from models.synth.settings import SynthSettings


@pytest.fixture(scope="module")
def table_video(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[str]]:
    """A short real video of a rendered table, its calibration, and the players' colours."""
    folder = tmp_path_factory.mktemp("table-video")
    frame = render_frame(SynthSettings(), seed=11, index=1)
    video = folder / "table.mp4"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 5.0, (1920, 1080))
    for _ in range(40):
        writer.write(frame.image)
    writer.release()
    calibration = folder / "calibration.json"
    calibration_of(frame.scene).save(calibration)
    return video, calibration, [z["colour"] for z in frame.scene["zones"]]


@pytest.fixture
def serve_with(tmp_path: Path) -> Iterator[Callable[[list[str]], ServerProcess]]:
    """Start `templecam serve` with the given camera options; stop it after the test."""
    started: list[ServerProcess] = []

    def start(camera: list[str]) -> ServerProcess:
        server = ServerProcess(tmp_path, SHORT_TIMELINE, tmp_path / "data", free_port(), camera)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def get_json(url: str) -> Any:
    """GET a JSON document."""
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def wait_for(check: Callable[[], Any], seconds: float = 60.0) -> Any:
    """Poll `check` until it returns something true."""
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError("timed out waiting")


def test_a_video_is_watched_annotated_and_streamed(
    serve_with: Callable[[list[str]], ServerProcess], table_video: tuple[Path, Path, list[str]]
) -> None:
    video, calibration, players = table_video
    server = serve_with(["--camera", str(video), "--calibration", str(calibration)]).server
    server.post("/api/games", {"players": players[:3], "difficulty": "normal", "audio": "off"})
    vision = wait_for(
        lambda: (
            (v := get_json(server.url + "/api/vision"))["pipeline"]
            and v["pipeline"]["frames"] >= 2
            and v
        )
    )
    assert vision["mode"] == "camera" and vision["calibrated"] is True
    assert vision["camera"]["width"] == 1920 and vision["camera"]["height"] == 1080
    assert vision["camera"]["status"] in ("live", "ended")
    with urllib.request.urlopen(server.url + "/api/video.jpg", timeout=10) as response:
        picture = cv2.imdecode(np.frombuffer(response.read(), np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape[1] == 1280  # the annotated frame, scaled for the dashboard
    with urllib.request.urlopen(server.url + "/api/video.mjpg", timeout=10) as response:
        assert response.headers["Content-Type"].startswith("multipart/x-mixed-replace")
        head = response.read(200)
    assert b"Content-Type: image/jpeg" in head


def test_a_video_that_ended_unwatched_still_shows_its_last_frame(
    serve_with: Callable[[list[str]], ServerProcess], table_video: tuple[Path, Path, list[str]]
) -> None:
    """Nobody watched while the video played (no game, no page open): its picture was never
    published, and the game page showed no picture at all once it had ended."""
    video, calibration, _ = table_video
    server = serve_with(["--camera", str(video), "--calibration", str(calibration)]).server
    wait_for(lambda: get_json(server.url + "/api/vision")["camera"]["status"] == "ended", 60)
    with urllib.request.urlopen(server.url + "/api/video.jpg", timeout=10) as response:
        picture = cv2.imdecode(np.frombuffer(response.read(), np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape[:2] == (540, 960)
    rendered = cv2.resize(render_frame(SynthSettings(), seed=11, index=1).image, (960, 540))
    assert float(np.abs(picture.astype(int) - rendered.astype(int)).mean()) < 8
    with urllib.request.urlopen(server.url + "/api/video.mjpg", timeout=10) as response:
        head = response.read(200)
    assert b"Content-Type: image/jpeg" in head


def test_no_calibration_still_shows_the_video_and_the_game_goes_on(
    serve_with: Callable[[list[str]], ServerProcess], table_video: tuple[Path, Path, list[str]]
) -> None:
    video, _, players = table_video
    server = serve_with(["--camera", str(video)]).server
    server.post("/api/games", {"players": players[:2], "difficulty": "normal", "audio": "off"})
    hold_the_clock(server)  # nothing is accepted before Start
    vision = get_json(server.url + "/api/vision")
    assert vision["calibrated"] is False
    assert any("templecam calibrate" in p for p in vision["problems"])
    with urllib.request.urlopen(server.url + "/api/video.jpg", timeout=10) as response:
        assert response.headers["Content-Type"] == "image/jpeg"
    state = get_json(server.url + "/api/state")
    assert any("templecam calibrate" in n for n in state["notices"])
    event = {"type": "dice", "player": players[0], "faces": ["key"] * 5}
    assert server.post("/api/event", {"event": event})["verdict"]["ok"] is True


def test_a_corrupt_video_is_a_clear_message_not_a_crash(
    serve_with: Callable[[list[str]], ServerProcess], tmp_path: Path
) -> None:
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(np.random.default_rng(0).bytes(5000))
    server = serve_with(["--camera", str(broken)]).server
    vision = get_json(server.url + "/api/vision")
    assert vision["mode"] == "off" or vision["problems"]
    assert any("broken.mp4" in p for p in vision["problems"])
    with pytest.raises(urllib.error.HTTPError) as failure:
        server.post("/api/demo-game", {})
    assert failure.value.code == 409
    created = server.post(
        "/api/games", {"players": ["red"], "difficulty": "normal", "audio": "off"}
    )
    assert created["game_id"]


def test_a_bumped_camera_is_reported(
    serve_with: Callable[[list[str]], ServerProcess],
    table_video: tuple[Path, Path, list[str]],
    tmp_path: Path,
) -> None:
    video, calibration_path, players = table_video
    from calibration.table import TableCalibration

    calibration = TableCalibration.load(calibration_path)
    capture = cv2.VideoCapture(str(video))
    ok, frame = capture.read()
    capture.release()
    assert ok
    shifted = np.roll(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), 40, axis=1)  # as calibrated before
    calibration.attach_reference(shifted)
    moved = tmp_path / "moved-calibration.json"
    calibration.save(moved)
    server = serve_with(["--camera", str(video), "--calibration", str(moved)]).server
    server.post("/api/games", {"players": players[:2], "difficulty": "normal", "audio": "off"})
    hold_the_clock(server)  # nothing is accepted before Start
    vision = wait_for(lambda: (v := get_json(server.url + "/api/vision"))["camera_moved"] and v)
    assert "recalibrate" in vision["camera_moved"]


def test_a_calibration_from_another_camera_is_set_aside_with_a_message(
    serve_with: Callable[[list[str]], ServerProcess],
    table_video: tuple[Path, Path, list[str]],
    tmp_path: Path,
) -> None:
    video, calibration_path, players = table_video
    from calibration.table import TableCalibration

    other = TableCalibration.load(calibration_path).model_copy(update={"image_size": (1280, 720)})
    other_path = tmp_path / "other-camera.json"
    other.save(other_path)
    server = serve_with(["--camera", str(video), "--calibration", str(other_path)]).server
    server.post("/api/games", {"players": players[:2], "difficulty": "normal", "audio": "off"})
    hold_the_clock(server)  # nothing is accepted before Start
    vision = wait_for(
        lambda: (v := get_json(server.url + "/api/vision"))["calibrated"] is False and v
    )
    assert any("1280x720" in p and "templecam calibrate" in p for p in vision["problems"])
    event = {"type": "dice", "player": players[0], "faces": ["key"] * 5}
    assert server.post("/api/event", {"event": event})["verdict"]["ok"] is True
