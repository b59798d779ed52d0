"""The demo tells a story: a short clip of the demo recording played by a real server (real
video through OpenCV, the shipped ONNX models): its game's clock runs with the video, each loop
starts the same saved game over, and no event the recording's own game accepts is rejected;
the game page's camera panel enlarges."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import pytest
from conftest import GAME_TIMELINE, LiveServer, ServerProcess, free_port

from rules.engine import Game
from server.vision_demo import DEMO_FOLDER_VARIABLE, DEMO_RESTARTED, demo_files

CLIP_SECONDS = 8.0
"""The clip's length: two loops take about 20 s."""


def get_json(url: str) -> Any:
    """GET a JSON document."""
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


@pytest.fixture(scope="module")
def demo_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo recording's first seconds with the events of its own game until then."""
    folder = tmp_path_factory.mktemp("demo-clip")
    bundled = demo_files()
    capture = cv2.VideoCapture(str(bundled["video"]))
    fps = capture.get(cv2.CAP_PROP_FPS)
    size = (int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)), int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT)))
    writer = cv2.VideoWriter(
        str(folder / "demo-game.mp4"), cv2.VideoWriter_fourcc(*"mp4v"), fps, size
    )
    for _ in range(round(CLIP_SECONDS * fps)):
        ok, frame = capture.read()
        assert ok
        writer.write(frame)
    writer.release()
    capture.release()
    lines = bundled["record"].read_text("utf-8").splitlines()
    kept = [lines[0]] + [x for x in lines[1:] if json.loads(x)["t"] <= CLIP_SECONDS]
    (folder / "demo-game.jsonl").write_text("\n".join(kept) + "\n")
    (folder / "demo-calibration.json").write_bytes(bundled["calibration"].read_bytes())
    return folder


@pytest.fixture
def demo_server(
    demo_clip: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[LiveServer]:
    """`templecam serve` with no webcam: the demo clip plays (a whole game's clock)."""
    monkeypatch.setenv(DEMO_FOLDER_VARIABLE, str(demo_clip))
    server = ServerProcess(tmp_path, GAME_TIMELINE, tmp_path / "data", free_port(), camera=())
    try:
        deadline = time.monotonic() + 60
        while not get_json(server.server.url + "/api/vision")["demo_game"]:
            assert time.monotonic() < deadline, "the demo recording did not start"
            time.sleep(0.2)
        yield server.server
    finally:
        server.stop()


def _replays(clip: Path) -> None:
    """The clip's own game: every event accepted."""
    lines = [json.loads(x) for x in (clip / "demo-game.jsonl").read_text().splitlines()]
    game = Game.from_setup_line(lines[0])
    assert all(game.apply(event).ok for event in lines[1:])


def test_the_demo_plays_two_loops_in_one_saved_game_with_its_clock(
    demo_server: LiveServer, demo_clip: Path
) -> None:
    url = demo_server.url
    _replays(demo_clip)
    started = demo_server.post("/api/demo-game", {})
    game_id = started["game_id"]
    loops, last_video_t, steps, rejected, events = 0, 0.0, [], [], 0
    deadline = time.monotonic() + 2 * CLIP_SECONDS + 25
    while loops < 2 and time.monotonic() < deadline:
        time.sleep(0.5)
        state, vision = get_json(url + "/api/state"), get_json(url + "/api/vision")
        assert state["game_id"] == game_id
        video_t = vision["video_t"]
        if video_t is None:
            continue
        if video_t + 1.0 < last_video_t:
            loops += 1
        last_video_t = video_t
        clock = state["clock"]
        if clock["status"] == "running" and video_t > 1.0:
            steps.append(abs(clock["t"] - video_t))
        for entry in state.get("log") or []:  # the recording's own game rejects none
            if entry["source"] == "vision" and not entry["ok"] and entry not in rejected:
                rejected.append(entry)
        events = max(events, len(state.get("log") or []))
    assert loops >= 2, "the demo clip did not loop twice"
    assert steps and max(steps) < 2.0, f"the clock left the video behind: {steps}"
    assert events > 0, "the camera saw nothing in the demo"
    said = [(e["t"], e["text"], e["reason"]) for e in rejected]
    assert not said, f"rejected, though the demo's own game accepts every event: {said}"
    saved = sorted((demo_server.data_dir / "games").glob("*.jsonl"))
    assert [p.stem for p in saved] == [game_id], "one saved game, not one a loop"
    assert DEMO_RESTARTED in get_json(url + "/api/state")["notices"]


@pytest.mark.browser
def test_the_camera_panel_enlarges_and_reads(chromium: Any, demo_server: LiveServer) -> None:
    from playwright.sync_api import expect
    from screenshots import screenshot
    from test_browser import _script_errors

    context = chromium.new_context(
        viewport={"width": 1920, "height": 1080}, base_url=demo_server.url
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors = _script_errors(page)
    try:
        page.goto("/setup")
        page.get_by_test_id("demo-game").click()
        page.wait_for_url("**/game")
        expect(page.get_by_test_id("clock")).not_to_have_text("0:00", timeout=10_000)
        video = page.get_by_test_id("camera-video")
        page.wait_for_function(
            "document.querySelector('[data-testid=camera-video]').naturalWidth > 0"
        )
        assert video.evaluate("img => img.naturalWidth") == 1280  # labels drawn for 1280 px
        small = video.bounding_box()
        page.get_by_test_id("camera-enlarge").click()
        expect(page.get_by_test_id("camera-panel")).to_have_class("panel camera-panel enlarged")
        large = video.bounding_box()
        assert small is not None and large is not None
        assert large["width"] >= 1200 > small["width"], (small, large)
        screenshot(page, "vision-enlarged.png")
        page.keyboard.press("Escape")
        expect(page.get_by_test_id("camera-enlarge")).to_have_text("Enlarge")
        video.click()  # the picture itself enlarges too
        expect(page.get_by_test_id("camera-enlarge")).to_have_text("Smaller")
        page.set_viewport_size({"width": 390, "height": 844})
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page scrolls sideways at 390 px: {width}"
    finally:
        context.close()
    assert not errors, f"the page's scripts failed: {errors}"
