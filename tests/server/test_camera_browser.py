"""The set-up page's camera panel in Chromium, on a phone (390 px) and at 1920 px: list, preview,
switch to an MJPEG stream and to a recorded table, bad addresses, and the view report."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import pytest
from conftest import SHORT_TIMELINE, ServerProcess, free_port
from playwright.sync_api import Browser, Page, expect
from scene_truth import calibration_of
from screenshots import screenshot_folder
from test_browser import _script_errors
from test_camera_switch import MjpegCamera, write_video

from models.synth.frame import render_frame
from models.synth.settings import SynthSettings

pytestmark = pytest.mark.browser

TIMES = "\u00d7"
"""The multiplication sign the page writes sizes with."""
PHONE = {"width": 390, "height": 844}
WIDE = {"width": 1920, "height": 1080}


@pytest.fixture(scope="module")
def camera_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A server with no webcam (the demo plays) and a data folder holding a calibrated table
    recording, a small video and an image folder."""
    base = tmp_path_factory.mktemp("camera-browser")
    data = base / "data"
    rendered = render_frame(SynthSettings(), seed=3, index=1)
    table = data / "videos" / "table.avi"
    table.parent.mkdir(parents=True)
    writer = cv2.VideoWriter(str(table), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (1920, 1080))
    for _ in range(20):
        writer.write(rendered.image)
    writer.release()
    calibration = calibration_of(rendered.scene)
    calibration.model_copy(update={"camera": "video videos/table.avi"}).save(
        data / "calibration.json"
    )
    write_video(data / "videos" / "small.avi", (640, 480))
    frames = data / "frames"
    frames.mkdir()
    for i in range(3):
        cv2.imwrite(str(frames / f"{i}.png"), rendered.image[::4, ::4])
    running = ServerProcess(base, SHORT_TIMELINE, data, free_port(), camera=())
    try:
        yield running.server
    finally:
        running.stop()


@pytest.fixture(scope="module")
def phone_camera() -> Iterator[MjpegCamera]:
    """A phone camera app's MJPEG stream on loopback."""
    camera = MjpegCamera()
    yield camera
    camera.close()


def open_setup(chromium: Browser, server: Any, size: dict[str, int]) -> Page:
    context = chromium.new_context(viewport=size, base_url=server.url)
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.goto("/setup#camera")
    return page


def no_sideways_scrolling(page: Page) -> None:
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]"
    )
    assert max(widths[:2]) <= widths[2], f"the page is {widths[:2]} px wide on a {widths[2]} screen"


def panel_picture(page: Page, name: str) -> Path:
    """Save the camera panel alone as `name` in the screenshot folder."""
    folder = screenshot_folder()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    page.get_by_test_id("camera-chooser").screenshot(path=str(path))
    return path


@pytest.mark.parametrize("size", [PHONE, WIDE], ids=["390px", "1920px"])
def test_choosing_previewing_and_switching_the_camera_from_the_page(
    chromium: Browser, camera_server: Any, phone_camera: MjpegCamera, size: dict[str, int]
) -> None:
    page = open_setup(chromium, camera_server, size)
    errors = _script_errors(page)
    try:
        use(page, "demo-choice")  # start from the demo, whatever the other size left
        expect(page.get_by_test_id("camera-in-use")).to_contain_text("the demo recording")
        expect(page.get_by_test_id("webcam-list")).to_contain_text("No webcam found")
        files = page.get_by_test_id("file-list")
        expect(files).to_contain_text("videos/table.avi")
        expect(files).to_contain_text("image folder · 3 images")

        page.get_by_test_id("stream-url").fill(phone_camera.url)
        page.get_by_test_id("camera-preview").click()
        expect(page.get_by_test_id("preview-info")).to_contain_text(f"320{TIMES}240")
        page.wait_for_function(
            "document.querySelector('[data-testid=preview-image]').naturalWidth === 320"
        )
        expect(page.get_by_test_id("camera-in-use")).to_contain_text("the demo recording")
        page.get_by_test_id("camera-use").click()
        expect(page.get_by_test_id("camera-message")).to_contain_text(
            f"now using stream {phone_camera.url}"
        )
        expect(page.get_by_test_id("camera-in-use")).to_contain_text(f"320{TIMES}240")

        page.get_by_test_id("stream-url").fill("ftp://192.168.1.20/video")
        page.get_by_test_id("camera-use").click()
        expect(page.get_by_test_id("camera-message")).to_contain_text("only http://")
        page.get_by_test_id("stream-url").fill(f"http://127.0.0.1:{free_port()}/video")
        page.get_by_test_id("camera-use").click()
        message = page.get_by_test_id("camera-message")
        expect(message).to_contain_text("did not work")
        expect(message).to_contain_text(f"stream {phone_camera.url} carries on")
        assert camera_server.get("/api/vision")["source"]["kind"] == "url"
        no_sideways_scrolling(page)

        files.get_by_text("videos/table.avi").click()
        expect(page.get_by_test_id("preview-info")).to_contain_text(f"1920{TIMES}1080")
        page.get_by_test_id("camera-use").click()
        expect(page.get_by_test_id("camera-message")).to_contain_text(
            "now using video videos/table.avi"
        )
        page.get_by_test_id("check-view").click()
        expect(page.get_by_test_id("view-summary")).to_contain_text("video videos/table.avi")
        report = page.get_by_test_id("view-report")
        expect(page.get_by_test_id("view-calibration")).to_have_attribute("data-level", "good")
        expect(page.get_by_test_id("view-die-size")).to_contain_text("px")
        expect(report).to_contain_text("Every player's zone is in view")
        no_sideways_scrolling(page)
        page.wait_for_function(
            "document.querySelector('[data-testid=preview-image]').naturalWidth > 0"
        )
        wide = size["width"] > 1000
        panel_picture(page, "camera.png" if wide else "camera-phone.png")
    finally:
        page.context.close()
    assert not errors, f"the page's scripts failed: {errors}"


def use(page: Page, group: str) -> None:
    """Choose the first source of a group on the panel and use it."""
    page.get_by_test_id(group).locator("input").first.check()
    page.get_by_test_id("camera-use").click()
    expect(page.get_by_test_id("camera-message")).to_contain_text(
        re.compile("now using|already in use"), timeout=30_000
    )


def test_the_game_page_leads_to_the_camera_panel(chromium: Browser, camera_server: Any) -> None:
    camera_server.post("/api/games", {"players": ["red", "blue"], "audio": "off"})
    context = chromium.new_context(viewport=PHONE, base_url=camera_server.url)
    page = context.new_page()
    try:
        page.goto("/game")
        page.get_by_test_id("camera-link").click()
        page.wait_for_url("**/setup#camera")
        expect(page.get_by_test_id("camera-chooser")).to_be_in_viewport()
        expect(page.get_by_test_id("running-game")).to_be_visible()
        no_sideways_scrolling(page)
    finally:
        context.close()


STREAM_STARTS = """
window.streamStarts = [];
const setAttribute = Element.prototype.setAttribute;
Element.prototype.setAttribute = function (name, value) {
  if (name === "src" && String(value).includes("video.mjpg")) {
    window.streamStarts.push(document.readyState);
  }
  return setAttribute.call(this, name, value);
};
"""
"""Records how far the page had loaded whenever it starts the camera's stream."""


def test_the_game_page_loads_while_a_slow_file_holds_it_back(
    chromium: Browser, camera_server: Any
) -> None:
    """The camera picture is an endless stream: begun before the page had loaded, it kept the
    page loading for ever (the tab's spinner never stopped, and Playwright's goto timed out).
    The page now asks for the stream once it has loaded."""
    camera_server.post("/api/camera/use", {"kind": "file", "value": "videos/table.avi"})
    camera_server.post("/api/games", {"players": ["red", "blue"], "audio": "off"})
    context = chromium.new_context(viewport=PHONE, base_url=camera_server.url)
    page = context.new_page()
    happened: list[str] = []
    page.on("load", lambda: happened.append("load"))
    page.on("request", lambda r: happened.append(r.url.split("/")[-1]))
    page.add_init_script(STREAM_STARTS)

    def late(route: Any) -> None:
        page.wait_for_timeout(3_000)  # the game's script learns of the camera meanwhile
        route.continue_()

    page.route("**/static/countdown-clips.js", late)
    try:
        page.goto("/game", timeout=20_000)
        expect(page.get_by_test_id("camera-status")).to_contain_text("1920")
        expect(page.get_by_test_id("camera-video")).to_have_attribute("src", "/api/video.mjpg")
        asked = [name for name in happened if name in ("vision", "load")]
        assert asked.index("vision") < asked.index("load"), f"no race to test: {asked}"
        assert page.evaluate("window.streamStarts") == ["complete"]
    finally:
        context.close()
