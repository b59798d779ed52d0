"""Read from the camera (issue 12, page 5): a real server whose camera is an image folder of a
rendered starting temple, with its calibration, reads the two chambers beside the start; the
set-up page on a phone fills them in by name; without a calibration the page and the API say to
draw them instead."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import SHORT_TIMELINE, LiveServer, ServerProcess, free_port, start_the_game
from playwright.sync_api import expect
from starting_table import render_starting_temple, write_camera_folder

from rules.catalog import basic_catalog
from server.starting_seen_api import camera_not_ready

WEST, EAST = "gem3-torch-1", "chamber-4"
NAMES = {tile_id: tile.name for tile_id, tile in basic_catalog().items()}


def get(server: LiveServer, path: str) -> tuple[int, Any]:
    """GET a JSON document: (status, body), errors included."""
    try:
        with urllib.request.urlopen(server.url + path, timeout=30) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def wait_for(check: Callable[[], Any], seconds: float = 60.0) -> Any:
    """Poll `check` until it returns something true."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError("timed out waiting")


@pytest.fixture(scope="module")
def table_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An image folder of a rendered starting temple, calibration.json and truth.json beside it."""
    folder = tmp_path_factory.mktemp("starting-table")
    write_camera_folder(render_starting_temple(WEST, EAST, seed=0), folder)
    return folder


def serve(base: Path, camera: list[str]) -> ServerProcess:
    """Start `templecam serve` with these camera options in its own folder."""
    return ServerProcess(base, SHORT_TIMELINE, base / "data", free_port(), camera)


@pytest.fixture(scope="module")
def calibrated(
    table_folder: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """A server watching the rendered table through a calibrated camera."""
    camera = ["--camera", str(table_folder / "frames")]
    camera += ["--calibration", str(table_folder / "calibration.json")]
    running = serve(tmp_path_factory.mktemp("calibrated"), camera)
    try:
        server = running.server
        wait_for(lambda: (v := get(server, "/api/vision")[1])["calibrated"] and v["camera"])
        yield server
    finally:
        running.stop()


@pytest.fixture(scope="module")
def uncalibrated(
    table_folder: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """A server watching the same table with no calibration."""
    running = serve(
        tmp_path_factory.mktemp("uncalibrated"), ["--camera", str(table_folder / "frames")]
    )
    try:
        yield running.server
    finally:
        running.stop()


def test_the_camera_reads_the_chambers_laid_beside_the_start(calibrated, table_folder):
    truth = json.loads((table_folder / "truth.json").read_text())["starting_chambers"]
    status, seen = get(calibrated, "/api/starting-temple/seen")
    assert status == 200, seen
    assert seen["ok"] is True and seen["drawn"] == [truth["W"], truth["E"]]
    assert [(s["side"], s["tile"]["name"], s["problem"]) for s in seen["sides"]] == [
        ("W", NAMES[WEST], None),
        ("E", NAMES[EAST], None),
    ]
    assert seen["message"] == (
        f"The camera sees {NAMES[WEST]} left of the starting chamber; "
        f"{NAMES[EAST]} right of the starting chamber."
    )


def test_a_chamber_the_chosen_modules_replace_is_named_as_not_in_this_game(calibrated):
    # with curses the 13 basic chambers (Chamber 4 among them) leave the pile; gem chambers stay
    status, seen = get(calibrated, "/api/starting-temple/seen?modules=curses")
    assert status == 200 and seen["ok"] is False and seen["drawn"] is None
    assert seen["sides"][0]["tile"]["name"] == NAMES[WEST]
    assert seen["sides"][1]["tile"] is None
    assert "a tile this game does not play with" in seen["sides"][1]["problem"]
    assert "draw them instead" in seen["message"]


def test_without_a_calibration_or_a_camera_the_answer_says_to_draw_instead(uncalibrated, tmp_path):
    status, body = get(uncalibrated, "/api/starting-temple/seen")
    assert status == 409
    assert body["detail"].startswith("The table is not calibrated")
    assert body["detail"].endswith("pick the tiles you drew, or draw them instead")
    manual = serve(tmp_path, ["--no-camera"])
    try:
        status, body = get(manual.server, "/api/starting-temple/seen")
    finally:
        manual.stop()
    assert status == 409 and body["detail"].startswith("No camera is watching the table")


@pytest.mark.browser
def test_the_set_up_page_on_a_phone_fills_in_the_chambers_the_camera_sees(chromium, calibrated):
    context = chromium.new_context(viewport={"width": 390, "height": 844}, base_url=calibrated.url)
    context.set_default_timeout(20_000)
    page = context.new_page()
    try:
        page.goto("/setup")
        expect(page.get_by_test_id("start-layout").locator(".pile-tile")).to_have_count(3)
        read = page.get_by_test_id("read-start")
        expect(read).to_be_visible()
        read.click()
        seen = page.get_by_test_id("start-seen")
        expect(seen).to_have_text(
            f"The camera sees {NAMES[WEST]} left of the starting chamber; "
            f"{NAMES[EAST]} right of the starting chamber."
        )
        for side, tile_id in (("W", WEST), ("E", EAST)):
            slot = page.get_by_test_id(f"start-tile-{side}")
            expect(slot).to_have_attribute("title", NAMES[tile_id])
            expect(slot.locator(".pile-tile")).to_be_visible()  # its picture
            choice = page.get_by_test_id(f"start-choice-{side}")
            chosen = choice.evaluate("select => select.selectedOptions[0].textContent")
            assert chosen == NAMES[tile_id]
        assert WEST not in seen.inner_text() and EAST not in seen.inner_text()
        widths = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]"
        )
        assert max(widths[:2]) <= widths[2]
        page.get_by_test_id("player-toggle-red").click()
        start_the_game(page)
        temple = calibrated.get("/api/state")["game"]["state"]["temple"]  # type: ignore[index]
        assert [(t["tile"], t["cell"], t["stairs"]) for t in temple] == [
            ("start", [0, 0], "S"),
            (WEST, [-1, 0], "E"),
            (EAST, [1, 0], "W"),
        ]
    finally:
        context.close()


@pytest.mark.browser
def test_without_a_calibration_the_page_offers_no_reading(chromium, uncalibrated):
    context = chromium.new_context(
        viewport={"width": 390, "height": 844}, base_url=uncalibrated.url
    )
    page = context.new_page()
    try:
        with page.expect_response("**/api/vision") as vision:
            page.goto("/setup")
        assert vision.value.json()["calibrated"] is False
        expect(page.get_by_test_id("start-layout").locator(".pile-tile")).to_have_count(3)
        expect(page.get_by_test_id("redraw")).to_be_visible()
        expect(page.get_by_test_id("read-start")).to_be_hidden()
    finally:
        context.close()


@pytest.mark.parametrize(
    ("state", "said"),
    [
        ({"mode": "off"}, "No camera is watching the table (manual mode)"),
        ({"mode": "demo"}, "The demo recording plays, not a camera over your table"),
        ({"calibration": None}, "The table is not calibrated"),
        ({"detector": None}, "The camera's models did not open"),
    ],
)
def test_each_reason_the_camera_cannot_look_is_said_with_what_to_do(state, said):
    ready = {
        "mode": "camera",
        "calibration": object(),
        "detector": object(),
        "tile_reader": object(),
    }
    assert camera_not_ready(SimpleNamespace(**ready)) is None  # type: ignore[arg-type]
    reason = camera_not_ready(SimpleNamespace(**{**ready, **state}))  # type: ignore[arg-type]
    assert reason is not None and reason.startswith(said)
    assert reason.endswith(": pick the tiles you drew, or draw them instead")
