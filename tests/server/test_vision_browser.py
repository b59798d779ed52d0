"""The camera in a real browser: no webcam here, so the bundled demo recording plays."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import SHORT_TIMELINE, ServerProcess, free_port
from playwright.sync_api import Browser, expect
from screenshots import screenshot
from test_browser import VIEWPORT, _script_errors

pytestmark = pytest.mark.browser


@pytest.fixture
def demo_server(tmp_path: Path) -> Iterator[Any]:
    """`templecam serve` with the camera left to choose: no webcam, so the demo recording."""
    server = ServerProcess(tmp_path, SHORT_TIMELINE, tmp_path / "data", free_port(), camera=())
    try:
        yield server.server
    finally:
        server.stop()


def test_the_demo_game_plays_with_the_annotated_video(chromium: Browser, demo_server: Any) -> None:
    context = chromium.new_context(viewport=VIEWPORT, base_url=demo_server.url)
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors = _script_errors(page)
    try:
        page.goto("/setup")
        expect(page.get_by_test_id("demo-row")).to_be_visible()
        page.get_by_test_id("demo-game").click()
        page.wait_for_url("**/game")
        panel = page.get_by_test_id("camera-panel")
        expect(panel).to_be_visible()
        expect(page.get_by_test_id("camera-status")).to_contain_text("demo recording")
        expect(page.get_by_test_id("camera-notes")).to_contain_text("No camera found")
        video = page.get_by_test_id("camera-video")
        page.wait_for_function(
            "document.querySelector('[data-testid=camera-video]').naturalWidth > 0"
        )
        assert video.evaluate("img => img.naturalWidth") == 1280  # annotated for the enlarged panel
        expect(page.get_by_test_id("camera-status")).to_contain_text("vision")
        screenshot(page, "vision.png")
    finally:
        context.close()
    assert not errors, f"the page's scripts failed: {errors}"
