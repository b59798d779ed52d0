"""The calibration and tile pages' routes on a real server, a real video as the camera."""

from __future__ import annotations

import importlib.util
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import cv2
import numpy as np
import pytest
from conftest import SHORT_TIMELINE, LiveServer, ServerProcess, checked_page, free_port

from calibration.enrollment import TileLibrary
from calibration.table import FILE_NAME, TableCalibration
from rules.catalog import basic_catalog
from rules.every_tile import every_tile

TESTS = Path(__file__).resolve().parents[1]


def _helper(name: str) -> ModuleType:
    """Load a scene helper of the calibration tests by its path."""
    spec = importlib.util.spec_from_file_location(name, TESTS / "calibration" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _write_video(path: Path, image: np.ndarray, frames: int = 15) -> Path:
    height, width = image.shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 5.0, (width, height))
    for _ in range(frames):
        writer.write(image)
    writer.release()
    return path


def _serve(base: Path, camera: list[str]) -> ServerProcess:
    base.mkdir(parents=True, exist_ok=True)
    return ServerProcess(base, SHORT_TIMELINE, base / "data", free_port(), camera)


def _post(server: LiveServer, path: str, body: object) -> tuple[int, Any]:
    """POST JSON; return (status, JSON answer) for success and HTTP errors alike."""
    try:
        return 200, server.post(path, body)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def _get(server: LiveServer, path: str) -> tuple[int, bytes, str]:
    try:
        with urllib.request.urlopen(server.url + path, timeout=10) as response:
            return response.status, response.read(), response.headers["Content-Type"]
    except urllib.error.HTTPError as error:
        return error.code, error.read(), error.headers["Content-Type"]


@pytest.fixture(scope="module")
def board_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server whose camera is a video of the printed board lying on a cluttered table."""
    scenes = _helper("board_scenes")
    base = tmp_path_factory.mktemp("board-server")
    image = scenes.board_view(scenes.overhead_homography())
    running = _serve(base, ["--camera", str(_write_video(base / "board.mp4", image))])
    try:
        yield running.server
    finally:
        running.stop()


@pytest.fixture(scope="module")
def tile_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server whose camera is a video of one chamber tile on a table, and no board."""
    scenes = _helper("tile_scenes")
    base = tmp_path_factory.mktemp("tile-server")
    art = TileLibrary.default().tile("gem3-key-1").appearance.image
    image = scenes.photo_of_tile(art, [(300, 150), (640, 180), (660, 520), (280, 500)])
    running = _serve(base, ["--camera", str(_write_video(base / "tile.mp4", image))])
    try:
        yield running.server
    finally:
        running.stop()


@pytest.fixture(scope="module")
def no_camera(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server in manual mode (--no-camera)."""
    running = _serve(tmp_path_factory.mktemp("no-camera"), ["--no-camera"])
    try:
        yield running.server
    finally:
        running.stop()


def test_calibrating_from_the_board_saves_and_uses_the_calibration(
    board_server: LiveServer,
) -> None:
    status, frame, kind = _get(board_server, "/api/camera/frame.jpg")
    assert status == 200 and kind == "image/jpeg"
    picture = cv2.imdecode(np.frombuffer(frame, np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape[:2] == (720, 1280)  # the raw frame, not the dashboard's smaller one

    status, answer = _post(
        board_server,
        "/api/calibrate",
        {"players": ["red", "blue", "green"], "seats": ["S", "N", "E"]},
    )
    assert status == 200, answer
    assert answer["error_px"] < 1.0 and answer["error_mm"] < 1.5
    saved = TableCalibration.load(board_server.data_dir / FILE_NAME, image_size=(1280, 720))
    assert [z.player for z in saved.zones] == ["red", "blue", "green"]
    assert saved.depot_mm is not None and saved.reference_grey() is not None
    assert saved.reprojection_px == pytest.approx(answer["error_px"], abs=1e-3)
    vision = board_server.get("/api/vision")
    assert isinstance(vision, dict) and vision["calibrated"] is True
    shown = board_server.get("/api/calibration")
    assert isinstance(shown, dict)
    assert [z["player"] for z in shown["calibration"]["zones"]] == ["red", "blue", "green"]
    # the calibration names its camera, and "is the view good enough?" comes with it (issue 14)
    assert saved.camera == vision["source"]["label"] and saved.camera == "video board.mp4"
    checks = {check["name"]: check for check in answer["view"]["checks"]}
    assert checks["calibration"]["level"] == "good" and checks["zones"]["level"] == "good"
    assert checks["die size"]["value"] > 0 and "px" in checks["die size"]["message"]


def test_bad_seats_are_refused_with_the_reason(board_server: LiveServer) -> None:
    status, answer = _post(
        board_server, "/api/calibrate", {"players": ["red", "blue"], "seats": ["S"]}
    )
    assert status == 422 and "one seat per player" in answer["detail"]


def test_no_board_in_view_is_a_422_and_nothing_is_saved(tile_server: LiveServer) -> None:
    status, answer = _post(tile_server, "/api/calibrate", {"players": ["red"]})
    assert status == 422
    assert answer["detail"].startswith("no calibration board in view: lay the printed sheet")
    assert not (tile_server.data_dir / FILE_NAME).exists()


def test_enrolling_a_tile_from_the_camera(tile_server: LiveServer) -> None:
    status, answer = _post(tile_server, "/api/tiles/gem3-key-1/enroll", {"stairs": "S"})
    assert status == 200, answer
    library = TileLibrary.load(tile_server.data_dir / "tiles")
    assert library.tile("gem3-key-1").appearance.photo is True
    listed = tile_server.get("/api/tiles")
    assert isinstance(listed, dict)
    entry = next(t for t in listed["tiles"] if t["id"] == "gem3-key-1")
    assert entry["photo"] is True and entry["changed"] is True


def test_enrolling_a_module_tile_from_the_camera(tile_server: LiveServer) -> None:
    status, answer = _post(tile_server, "/api/tiles/quest-altar/enroll", {"stairs": "E"})
    assert status == 200, answer
    library = TileLibrary.load(tile_server.data_dir / "tiles")
    assert library.tile("quest-altar").appearance.photo is True
    assert library.tile("quest-altar").definition == every_tile()["quest-altar"]
    listed = tile_server.get("/api/tiles")
    assert isinstance(listed, dict)
    entry = next(t for t in listed["tiles"] if t["id"] == "quest-altar")
    assert entry["photo"] is True and entry["modules"] == ["quests"]


def test_without_a_camera_calibrating_and_enrolling_are_409(no_camera: LiveServer) -> None:
    status, answer = _post(no_camera, "/api/calibrate", {"players": ["red"]})
    assert status == 409 and "camera" in answer["detail"]
    status, answer = _post(no_camera, "/api/tiles/gem3-key-1/enroll", {"stairs": "N"})
    assert status == 409
    assert _get(no_camera, "/api/camera/frame.jpg")[0] == 409
    assert not (no_camera.data_dir / FILE_NAME).exists()
    # the set-up page's camera panel says the camera is off and changes nothing (issue 14)
    sources = no_camera.get("/api/camera/sources")
    assert isinstance(sources, dict) and sources["off"] is True and "--no-camera" in sources["note"]
    status, answer = _post(no_camera, "/api/camera/use", {"kind": "demo", "value": ""})
    assert status == 409 and "--no-camera" in answer["detail"]
    assert _get(no_camera, "/api/camera/check")[0] == 409
    assert not (no_camera.data_dir / "camera.json").exists()


def test_tiles_are_listed_with_their_cards(no_camera: LiveServer) -> None:
    listed = no_camera.get("/api/tiles")
    assert isinstance(listed, dict)
    ids = [t["id"] for t in listed["tiles"]]
    assert ids == TileLibrary.default().ids()
    assert all(t["photo"] is False for t in listed["tiles"])
    status, data, kind = _get(no_camera, f"/api/tiles/{ids[0]}/card.png")
    assert status == 200 and kind == "image/png"
    card = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert card is not None and card.shape[0] > 100


def test_every_modules_tiles_are_listed_grouped_under_its_name(no_camera: LiveServer) -> None:
    listed = no_camera.get("/api/tiles")
    assert isinstance(listed, dict)
    groups = {tuple(g["modules"]): g for g in listed["groups"]}
    assert listed["groups"][0]["modules"] == [] and groups[()]["tiles"] == list(basic_catalog())
    assert groups[("curses", "treasures")]["names"] == ["Curses", "Treasures"]
    assert "ct-chamber-1" in groups[("curses", "treasures")]["tiles"]
    assert groups[("traps",)]["names"] == ["Trap chambers"]
    assert len(groups[("time",)]["tiles"]) == 8 and len(groups[("quests",)]["tiles"]) == 5
    grouped = [tile_id for g in listed["groups"] for tile_id in g["tiles"]]
    assert sorted(grouped) == sorted(every_tile()) and len(grouped) == len(set(grouped))
    slide = next(t for t in listed["tiles"] if t["id"] == "trap-slide")
    assert slide["modules"] == ["traps"] and slide["trap"] == "slide"
    names = [t["name"] for t in listed["tiles"]]
    assert len(names) == len(set(names))  # the page tells tiles apart by their names
    status, _, kind = _get(no_camera, "/api/tiles/trap-slide/card.png")
    assert status == 200 and kind == "image/png"


def test_an_unknown_tile_is_404_naming_the_known_ones(no_camera: LiveServer) -> None:
    status, answer = _post(no_camera, "/api/tiles/no-such-tile/enroll", {"stairs": "S"})
    assert status == 404
    assert "no-such-tile" in answer["detail"] and "gem3-key-1" in answer["detail"]
    assert _get(no_camera, "/api/tiles/..%2Fsecret/card.png")[0] == 404
    status, answer = _post(no_camera, "/api/tiles/gem3-key-1/enroll", {"stairs": "up"})
    assert status == 422


@pytest.mark.parametrize(
    ("page", "heading"), [("calibrate", "Calibrate the table"), ("tiles", "Chamber tiles")]
)
def test_the_pages_are_served(no_camera: LiveServer, page: str, heading: str) -> None:
    status, html, _ = _get(no_camera, f"/{page}")
    assert status == 200 and heading in html.decode()
    setup = _get(no_camera, "/setup")[1].decode()
    assert f'href="/{page}"' in setup


@pytest.mark.browser
def test_the_tiles_page_shows_the_cards_and_the_reason_an_enrollment_failed(
    chromium: Any, no_camera: LiveServer
) -> None:
    context = chromium.new_context(base_url=no_camera.url)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto("/tiles")
        cards = page.locator(".tile-card")
        cards.first.wait_for()
        assert cards.count() == len(TileLibrary.default())
        page.get_by_test_id("enroll").click()
        message = page.get_by_test_id("enroll-error")
        message.wait_for()
        assert "camera" in message.inner_text()
        page.goto("/calibrate")
        page.locator(".seat-row").first.wait_for()
        page.get_by_test_id("calibrate").click()
        page.get_by_test_id("calibrate-error").wait_for()
        assert "camera" in page.get_by_test_id("calibrate-error").inner_text()
    finally:
        context.close()
    assert errors == []


@pytest.mark.browser
def test_the_tiles_page_groups_every_modules_tiles_by_name_on_a_phone(
    chromium: Any, no_camera: LiveServer
) -> None:
    with checked_page(chromium, no_camera.url, {"width": 390, "height": 844}) as page:
        page.goto("/tiles")
        groups = page.get_by_test_id("tile-group")
        groups.first.wait_for()
        headings = page.locator(".tile-group-head").evaluate_all(
            "heads => heads.map((head) => head.textContent)"
        )
        assert headings[:3] == ["Basic game", "Curses + Treasures", "Illusion chambers"]
        assert "Trap chambers" in headings and "Time chambers" in headings
        assert page.locator(".tile-card").count() == len(every_tile())
        slide = page.get_by_test_id("tile-trap-slide")
        slide.scroll_into_view_if_needed()
        assert "Slide trap" in slide.inner_text()
        slide.locator("img").wait_for()
        page.wait_for_function(
            "() => document.querySelector('[data-testid=tile-trap-slide] img').naturalWidth > 0"
        )
        text = page.locator("body").inner_text()
        assert not any(tile_id in text for tile_id in ("trap-slide", "ct-chamber-1", "gem3-key"))
        options = page.locator("#tile-id option").all_inner_texts()
        assert "Slide trap" in options and "trap-slide" not in options
        widths = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]"
        )
        assert max(widths) <= 390, widths
