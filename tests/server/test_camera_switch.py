"""Choosing the camera on a real server: real videos, an image folder and an MJPEG stream served
on loopback by the test; switching while a game goes on; bad sources failing safe; the choice
remembered and `--camera` overriding it; the view checked against a calibration."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from conftest import SHORT_TIMELINE, LiveServer, ServerProcess, free_port, hold_the_clock
from scene_truth import calibration_of

from models.synth.frame import render_frame
from models.synth.settings import SynthSettings

GAME = {"players": ["red", "blue"], "difficulty": "normal", "audio": "off"}


def write_video(path: Path, size: tuple[int, int], frames: int = 30, fps: float = 10.0) -> None:
    """Write a small real video (OpenCV, MJPG in AVI or mp4v in MP4) of a moving square."""
    fourcc = "MJPG" if path.suffix == ".avi" else "mp4v"
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), fps, size)
    for i in range(frames):
        image = np.full((size[1], size[0], 3), 90, np.uint8)
        cv2.rectangle(image, (10 + 5 * i, 20), (60 + 5 * i, 70), (0, 200, 255), -1)
        writer.write(image)
    writer.release()


@pytest.fixture(scope="module")
def data_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder holding a video, an image folder, a broken video and a text file."""
    data = tmp_path_factory.mktemp("camera-data") / "data"
    write_video(data / "videos" / "table.avi", (640, 480))
    frames = data / "frames"
    frames.mkdir(parents=True)
    for i in range(5):
        image = np.full((600, 800, 3), 40 * i, np.uint8)
        cv2.imwrite(str(frames / f"frame_{i}.png"), image)
    (data / "videos" / "broken.mp4").write_bytes(np.random.default_rng(1).bytes(4000))
    (data / "videos" / "notes.txt").write_text("not a video")
    (data / "games").mkdir()
    write_video(data / "games" / "not-offered.avi", (64, 48), frames=3)
    return data


class MjpegCamera:
    """An MJPEG-over-HTTP camera on loopback, as a phone's IP-camera app serves one."""

    def __init__(self, size: tuple[int, int] = (320, 240), fps: float = 10.0) -> None:
        self.size, self.fps, self.clients = size, fps, 0
        self.stopping = threading.Event()
        camera = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                camera.clients += 1
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.end_headers()
                n = 0
                try:
                    while not camera.stopping.is_set():
                        jpeg = camera.frame(n)
                        head = f"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpeg)}"
                        self.wfile.write(head.encode() + b"\r\n\r\n" + jpeg + b"\r\n")
                        n += 1
                        time.sleep(1 / camera.fps)
                except OSError:
                    pass  # the viewer went away

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/video"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def frame(self, n: int) -> bytes:
        image = np.full((self.size[1], self.size[0], 3), 120, np.uint8)
        cv2.putText(image, str(n), (20, 120), cv2.FONT_HERSHEY_SIMPLEX, 2, (255, 255, 255), 3)
        return cv2.imencode(".jpg", image)[1].tobytes()

    def close(self) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def phone() -> Iterator[MjpegCamera]:
    """A phone camera app's MJPEG stream on loopback."""
    camera = MjpegCamera()
    yield camera
    camera.close()


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """Start `templecam serve` on a data folder with camera options; stop them all after."""
    started: list[ServerProcess] = []

    def start(data: Path, camera: tuple[str, ...] = ()) -> ServerProcess:
        server = ServerProcess(tmp_path, SHORT_TIMELINE, data, free_port(), camera)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def call(server: LiveServer, path: str, body: object | None = None) -> tuple[int, Any]:
    """GET (or POST `body`); return the status and the JSON answer, errors included."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        server.url + path, data=data, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=40) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def use(server: LiveServer, kind: str, value: str = "") -> tuple[int, Any]:
    """Choose a source on the panel."""
    return call(server, "/api/camera/use", {"kind": kind, "value": value})


def wait_for(check: Callable[[], Any], seconds: float = 30.0) -> Any:
    """Poll `check` until it returns something true."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError("timed out waiting")


def camera_size(server: LiveServer) -> tuple[int, int] | None:
    """The size of the frames the running vision gets now."""
    camera = server.get("/api/vision")["camera"]  # type: ignore[index]
    return (camera["width"], camera["height"]) if camera and camera["width"] else None


def manual_roll(server: LiveServer) -> dict[str, Any]:
    """Enter a roll by hand for a player with free dice; return the engine's verdict.

    A camera may play into the same game (the demo video's events go into the game on the
    screen), so the roll is built from the live state, with as many faces as the player has
    free dice, and tried again when the camera changed the state in between.
    """
    verdict: dict[str, Any] = {}
    for _ in range(5):
        players = server.get("/api/state")["game"]["players"]  # type: ignore[index]
        player, free = max(((pid, p["free_dice"]) for pid, p in players.items()),
                           key=lambda item: item[1])  # fmt: skip
        event = {"type": "dice", "player": player, "faces": ["key"] * free}
        verdict = server.post("/api/event", {"event": event})["verdict"]  # type: ignore[index,assignment]
        if verdict["ok"]:
            break
    return verdict


def test_the_panel_lists_no_webcam_here_the_data_folder_and_the_demo(serve, data_folder):
    server = serve(data_folder).server
    status, sources = call(server, "/api/camera/sources")
    assert status == 200
    assert sources["webcams"] == [] and "No webcam found" in sources["webcam_note"]
    files = {item["value"]: item for item in sources["files"]}
    assert files["videos/table.avi"]["kind"] == "video"
    assert files["frames"]["kind"] == "images" and files["frames"]["images"] == 5
    assert "games/not-offered.avi" not in files  # templecam's own folders are not offered
    assert sources["demo"] is True and sources["in_use"]["kind"] == "demo"
    assert str(data_folder) not in json.dumps(sources)  # no folder of this computer


def test_switching_between_a_video_an_image_folder_and_an_mjpeg_stream_as_a_game_goes_on(
    serve, data_folder, phone
):
    server = serve(data_folder).server
    game_id = server.post("/api/games", GAME)["game_id"]  # type: ignore[index]
    hold_the_clock(server)  # nothing is accepted before Start

    status, answer = use(server, "file", "videos/table.avi")
    assert status == 200 and answer["message"] == "Camera: now using video videos/table.avi"
    assert wait_for(lambda: camera_size(server) == (640, 480))
    vision = server.get("/api/vision")
    assert vision["source"] == {"kind": "file", "label": "video videos/table.avi",  # type: ignore[index]
                                "value": "videos/table.avi"}  # fmt: skip
    assert vision["camera"]["source"] == "video videos/table.avi"  # type: ignore[index]

    assert use(server, "file", "frames")[0] == 200
    assert wait_for(lambda: camera_size(server) == (800, 600))

    preview = call(server, "/api/camera/preview", {"kind": "url", "value": phone.url})[1]
    assert preview["open"] is True and preview["source"]["label"] == f"stream {phone.url}"
    state = wait_for(lambda: (s := call(server, "/api/camera/preview")[1])["width"] and s)
    assert (state["width"], state["height"]) == (320, 240)
    with urllib.request.urlopen(server.url + "/api/camera/preview.jpg", timeout=10) as response:
        picture = cv2.imdecode(np.frombuffer(response.read(), np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape[:2] == (240, 320)
    assert camera_size(server) == (800, 600)  # the preview does not touch the camera in use

    status, answer = use(server, "url", phone.url)
    assert status == 200, answer
    assert wait_for(lambda: camera_size(server) == (320, 240))
    assert wait_for(lambda: server.get("/api/vision")["camera"]["fps"] > 3)  # type: ignore[index]
    assert call(server, "/api/camera/preview")[1]["open"] is False  # handed over to the camera

    assert use(server, "demo")[0] == 200
    assert wait_for(lambda: camera_size(server) == (1920, 1080))
    assert server.get("/api/vision")["demo_game"] is True  # type: ignore[index]
    state = server.get("/api/state")
    assert state["game_id"] == game_id  # type: ignore[index]
    verdict = manual_roll(server)
    assert verdict["ok"], verdict
    notices = " ".join(server.get("/api/state")["notices"])  # type: ignore[index]
    assert "Camera: now using stream" in notices


def test_manual_entries_go_on_while_a_stream_that_does_not_answer_is_tried(serve, data_folder):
    silent = socket.create_server(("127.0.0.1", 0))  # accepts, never answers
    url = f"http://127.0.0.1:{silent.getsockname()[1]}/video"
    server = serve(data_folder).server
    server.post("/api/games", GAME)
    hold_the_clock(server)  # nothing is accepted before Start
    outcome: list[tuple[int, Any]] = []
    trying = threading.Thread(target=lambda: outcome.append(use(server, "url", url)))
    started = time.monotonic()
    trying.start()
    wait_for(lambda: server.get("/api/vision")["switching_to"], 5)  # type: ignore[index]
    assert manual_roll(server)["ok"]
    assert time.monotonic() - started < 5  # the page is never blocked
    trying.join(40)
    silent.close()
    status, answer = outcome[0]
    assert status == 409
    assert f"stream {url} did not work" in answer["detail"]
    assert "Nothing changed: the demo recording carries on" in answer["detail"]
    vision = server.get("/api/vision")
    assert vision["mode"] == "demo" and vision["last_switch"]["ok"] is False  # type: ignore[index]


def test_bad_sources_fail_safe_with_a_clear_message(serve, data_folder):
    server = serve(data_folder).server
    assert use(server, "file", "frames")[0] == 200
    closed = free_port()
    refused = use(server, "url", f"rtsp://127.0.0.1:{closed}/live")
    assert refused[0] == 409 and "did not work" in refused[1]["detail"]
    assert "images frames carries on" in refused[1]["detail"]
    broken = use(server, "file", "videos/broken.mp4")
    assert broken[0] == 409 and "cannot be read as a video" in broken[1]["detail"]
    assert str(data_folder) not in broken[1]["detail"]
    for kind, value, words in [
        ("url", "ftp://127.0.0.1/video", "only http://, https:// and rtsp://"),
        ("url", "file:///etc/passwd", "only http://"),
        ("url", "http://", "names no computer"),
        ("file", "/etc/passwd", "only files inside the data folder"),
        ("file", "../../etc", "only files inside the data folder"),
        ("file", "videos/notes.txt", "is not a video"),
        ("file", "videos/gone.mp4", "there is no videos/gone.mp4"),
        ("webcam", "/dev/video7", "no webcam '/dev/video7'"),
    ]:
        status, answer = use(server, kind, value)
        assert status == 422 and words in answer["detail"], (value, answer)
    assert call(server, "/api/camera/use", {"kind": "tcp", "value": "x"})[0] == 422
    vision = server.get("/api/vision")
    assert vision["source"]["value"] == "frames"  # type: ignore[index]
    assert vision["camera"]["status"] in ("live", "ended")  # type: ignore[index]


def test_the_choice_is_remembered_and_camera_still_overrides_it(serve, data_folder, tmp_path):
    data = tmp_path / "data"
    write_video(data / "videos" / "table.avi", (640, 480))
    first = serve(data)
    assert use(first.server, "file", "videos/table.avi")[0] == 200
    first.stop()
    assert json.loads((data / "camera.json").read_text())["value"] == "videos/table.avi"

    again = serve(data)
    vision = again.server.get("/api/vision")
    assert vision["origin"] == "remembered" and vision["source"]["value"] == "videos/table.avi"  # type: ignore[index]
    again.stop()

    other = data_folder / "frames"
    forced = serve(data, ("--camera", str(other)))
    vision = forced.server.get("/api/vision")
    assert vision["origin"] == "--camera" and vision["cli_camera"] is True  # type: ignore[index]
    assert vision["source"]["label"] == "images frames"  # type: ignore[index]
    forced.stop()

    (data / "videos" / "table.avi").unlink()  # the remembered file vanished
    fallback = serve(data)
    vision = fallback.server.get("/api/vision")
    assert vision["mode"] == "demo"  # type: ignore[index]
    assert any("chosen last time" in p for p in vision["problems"])  # type: ignore[index]


def test_the_view_is_checked_and_a_calibration_for_another_camera_is_named(serve, tmp_path):
    data = tmp_path / "data"
    rendered = render_frame(SynthSettings(), seed=3, index=1)
    video = data / "videos" / "table.avi"
    video.parent.mkdir(parents=True)
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5.0, (1920, 1080))
    for _ in range(10):
        writer.write(rendered.image)
    writer.release()
    calibration = calibration_of(rendered.scene)
    calibration.model_copy(update={"camera": "webcam C920 (/dev/video0)"}).save(
        data / "calibration.json"
    )
    server = serve(data).server
    assert use(server, "file", "videos/table.avi")[0] == 200
    status, report = call(server, "/api/camera/check")
    assert status == 200
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["calibration"]["level"] == "bad"
    assert "another camera (webcam C920 (/dev/video0))" in checks["calibration"]["message"]
    assert "Calibrate the table" in checks["calibration"]["message"]
    assert checks["die size"]["level"] == "good" and checks["zones"]["level"] == "good"
    assert {"focus", "glare", "light", "frame rate", "play area"} <= set(checks)
    problems = server.get("/api/vision")["problems"]  # type: ignore[index]
    assert any("made for another camera" in p for p in problems)

    calibration.model_copy(update={"camera": "video videos/table.avi"}).save(
        data / "calibration.json"
    )
    assert use(server, "file", "frames")[0] == 422  # no such folder here: nothing changes
    assert use(server, "demo")[0] == 200 and use(server, "file", "videos/table.avi")[0] == 200
    report = call(server, "/api/camera/check")[1]
    assert {c["name"]: c for c in report["checks"]}["calibration"]["level"] == "good"
