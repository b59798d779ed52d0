"""The /dice page in Chromium on a phone (390 px), on a real server whose camera watches the empty
table: upload rendered photos of each face (dice of a look the shipped reader never saw), capture
the empty table from the camera, find the dice, move a crop, add a missed die, teach (a tiny
fine-tune in a real child process), compare, use the new reader, roll back; a model that failed
its checks cannot be used. The page also fits 1920 x 1080. Screenshots for the README."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from screenshots import screenshot, screenshot_folder
from test_browser import _script_errors
from test_teach_api import TINY, fake_model, render, start

from models.synth.prompted import write_prompted
from models.synth.settings import SynthSettings
from teach.prompted import FACES

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
WIDE = {"width": 1920, "height": 1080}
FAILED = "20261130-200000"
"""A taught model whose card says it failed its checks."""


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return render(tmp_path_factory.mktemp("dice-photos") / "prompted")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, photos: Path) -> Iterator[Any]:
    """A server whose camera (an image folder) shows the empty table, with a failed model."""
    base = tmp_path_factory.mktemp("dice-browser")
    camera = base / "camera"
    camera.mkdir()
    shutil.copy(photos / "empty" / "capture_0000.jpg", camera / "0.jpg")
    fake_model(base / "data", FAILED, passed=False)
    running = start(base, base / "data", ("--camera", str(camera)), TINY)
    try:
        yield running.server
    finally:
        running.stop()


def no_sideways_scrolling(page: Page) -> None:
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]"
    )
    assert max(widths[:2]) <= widths[2], f"the page is {widths[:2]} px wide on a {widths[2]} screen"


def picture(page: Page, testid: str, name: str) -> None:
    """Save one part of the page as `name` in the screenshot folder."""
    folder = screenshot_folder()
    folder.mkdir(parents=True, exist_ok=True)
    page.get_by_test_id(testid).screenshot(path=str(folder / name))


def group_count(page: Page, label: str) -> int:
    return page.get_by_test_id(f"group-{label}").get_by_test_id("crop").count()


def test_teaching_the_reader_your_dice_on_a_phone(
    chromium: Browser, server: Any, photos: Path, tmp_path: Path
) -> None:
    context = chromium.new_context(viewport=PHONE, base_url=server.url)
    context.set_default_timeout(30_000)
    page = context.new_page()
    errors = _script_errors(page)
    try:
        page.goto("/setup")
        page.get_by_test_id("dice-link").click()
        page.wait_for_url("**/dice")
        expect(page.get_by_test_id("camera-note")).to_contain_text("Camera:")
        expect(page.get_by_test_id("ask")).to_contain_text("shows the ADVENTURER")
        expect(page.get_by_test_id("count-adventurer")).to_have_text("0 of 3")
        no_sideways_scrolling(page)

        # 1. photos: uploads for each face, the camera for the empty table
        for face in FACES:
            page.get_by_test_id(f"step-{face}").click()
            files = sorted((photos / face).glob("*.jpg"))
            page.get_by_test_id("upload").set_input_files([str(f) for f in files])
            expect(page.get_by_test_id(f"count-{face}")).to_have_text("2 of 3")
        junk = tmp_path / "notes.txt"
        junk.write_text("not a photo")
        page.get_by_test_id("upload").set_input_files(str(junk))
        expect(page.get_by_test_id("capture-message")).to_contain_text("notes.txt is not a photo")
        page.get_by_test_id("step-empty").click()
        expect(page.get_by_test_id("ask")).to_contain_text("Take every die off the table")
        page.get_by_test_id("capture").click()
        expect(page.get_by_test_id("count-empty")).to_have_text("1 of 2")
        page.get_by_test_id("capture").click()
        expect(page.get_by_test_id("count-empty")).to_have_text("2 of 2")
        page.wait_for_function("document.querySelector('[data-testid=live]').naturalWidth > 0")
        screenshot(page, "dice-phone.png")

        # 2. review: every die found, grouped; move one, add one the localiser missed
        page.get_by_test_id("label").click()
        expect(page.get_by_test_id("review-message")).to_contain_text("Found")
        expect(page.get_by_test_id("group-key").get_by_test_id("crop").first).to_be_visible()
        assert group_count(page, "not_die") >= 1, "the empty table's finds are hard negatives"
        expect(page.get_by_test_id("group-golden_mask")).to_contain_text("Golden mask")
        keys, torches = group_count(page, "key"), group_count(page, "torch")
        first_key = page.get_by_test_id("group-key").get_by_test_id("crop").first
        moved = first_key.get_attribute("data-index")
        first_key.click()
        page.get_by_test_id("move-to-torch").click()
        expect(page.get_by_test_id("review-message")).to_contain_text("Moved to Torch")
        expect(page.get_by_test_id("group-torch").get_by_test_id("crop")).to_have_count(torches + 1)
        assert group_count(page, "key") == keys - 1
        review = server.get("/api/dice/review")
        assert review["dice"][int(moved)]["label"] == "torch", "saved at once"
        page.get_by_test_id("group-torch").locator(f"[data-index='{moved}']").click()
        page.get_by_test_id("move-to-key").click()
        expect(page.get_by_test_id("group-key").get_by_test_id("crop")).to_have_count(keys)

        page.get_by_test_id("photo-button").first.click()
        photo = page.get_by_test_id("photo-image")
        expect(photo).to_be_visible()
        page.wait_for_function(
            "document.querySelector('[data-testid=photo-image]').naturalWidth > 0"
        )
        photo.click(position={"x": 6, "y": 6})
        expect(page.get_by_test_id("review-message")).to_contain_text("Added a die as Adventurer")
        added = server.get("/api/dice/review")["dice"][-1]
        assert added["source"] == "added" and added["image"].startswith("adventurer/")
        no_sideways_scrolling(page)
        page.get_by_test_id("review-card").evaluate("card => card.scrollIntoView()")
        page.screenshot(path=str(screenshot_folder() / "dice-review-phone.png"))

        # 3. teach: only once the labels are checked, then its progress bar, then 4. compare
        expect(page.get_by_test_id("teach-start")).to_be_disabled()
        expect(page.get_by_test_id("teach-ready")).to_contain_text(
            "check the labels, then press The labels are right"
        )
        page.get_by_test_id("review-done").click()
        expect(page.get_by_test_id("review-done-note")).to_have_text("Labels checked.")
        expect(page.get_by_test_id("teach-ready")).to_be_hidden()
        assert server.get("/api/dice")["readiness"]["ready"]
        page.get_by_test_id("teach-start").click()
        expect(page.get_by_test_id("teach-progress")).to_be_visible()
        expect(page.get_by_test_id("teach-stage")).to_contain_text("%")
        expect(page.get_by_test_id("teach-cancel")).to_be_visible()
        expect(page.get_by_test_id("teach-message")).to_contain_text(
            "Done: compare", timeout=300_000
        )
        compare = page.get_by_test_id("compare-card")
        expect(compare).to_be_visible()
        expect(page.get_by_test_id("compare-key")).to_contain_text("%")
        expect(page.get_by_test_id("compare-shipped")).to_contain_text("%")
        expect(page.get_by_test_id("wrong-before")).to_contain_text("misread")
        expect(page.get_by_test_id("use-reason")).to_be_hidden()
        no_sideways_scrolling(page)
        page.get_by_test_id("use-model").click()
        expect(page.get_by_test_id("models-message")).to_contain_text(
            "The camera now reads the dice with the reader taught"
        )
        name = server.get("/api/dice/teach")["model"]
        assert server.get("/api/vision")["faces"] == name
        new_row = page.locator(f"[data-testid=model][data-name='{name}']")
        expect(new_row.get_by_test_id("in-use")).to_be_visible()
        expect(page.get_by_test_id("use-model")).to_be_disabled()

        # the model that failed its checks: listed with the reason, never usable
        failed = page.locator(f"[data-testid=model][data-name='{FAILED}']")
        expect(failed).to_contain_text("Failed its checks")
        expect(failed.get_by_test_id("model-use")).to_be_disabled()
        failed.get_by_test_id("model-compare").click()
        expect(page.get_by_test_id("use-reason")).to_contain_text("failed its checks")
        expect(page.get_by_test_id("use-model")).to_be_disabled()

        # roll back to the shipped reader
        shipped = page.locator("[data-testid=model][data-name='shipped']")
        shipped.get_by_test_id("model-use").click()
        expect(page.get_by_test_id("models-message")).to_contain_text("the shipped reader")
        expect(shipped.get_by_test_id("in-use")).to_be_visible()
        assert server.get("/api/vision")["faces"] == "shipped"
        new_row.get_by_test_id("model-compare").click()
        expect(page.get_by_test_id("use-model")).to_be_enabled()
        no_sideways_scrolling(page)
        text = page.locator("main").inner_text()
        assert "golden_mask" not in text and "not_die" not in text and name not in text

        # the same page at 1920 x 1080
        page.set_viewport_size(WIDE)
        no_sideways_scrolling(page)
        picture(page, "compare-card", "dice-compare.png")

        page.get_by_test_id("export").click()
        expect(page.get_by_test_id("photos-message")).to_contain_text("datasets/dice-")
        page.get_by_test_id("start-over").click()
        page.get_by_test_id("start-over-confirm").click()
        expect(page.get_by_test_id("photos-message")).to_contain_text("moved to teach/earlier-")
        expect(page.get_by_test_id("count-key")).to_have_text("0 of 3")
    finally:
        context.close()
    assert not errors, f"the page's scripts failed: {errors}"


def test_without_a_camera_the_page_asks_for_uploads_and_teaching_waits_for_every_face(
    chromium: Browser, tmp_path: Path
) -> None:
    """Two faces of photos, the second face's photos showing torches: the page says what is
    missing, warns of the mislabelled face, and Teach stays off (the server refuses it too)."""
    look = tmp_path / "standard"
    # at 1080p, where the dice are the size the reader is made for (30 px; the reader misreads
    # most keys of this look at 960x540, where they are 15 px)
    write_prompted(look, SynthSettings(width=1920, height=1080), 2, 1, seed=7)
    data = tmp_path / "data"
    current = data / "teach" / "current"
    shutil.copytree(look / "key", current / "key")
    shutil.copytree(look / "torch", current / "golden_mask")  # mislabelled: torches
    running = start(tmp_path, data, ("--no-camera",), TINY)
    context = chromium.new_context(viewport=PHONE, base_url=running.server.url)
    context.set_default_timeout(30_000)
    page = context.new_page()
    errors = _script_errors(page)
    try:
        page.goto("/dice")
        expect(page.get_by_test_id("ask")).to_contain_text("upload a photo of it (Upload photos)")
        expect(page.get_by_test_id("ask")).not_to_contain_text("Capture")
        expect(page.get_by_test_id("capture")).to_be_hidden()
        expect(page.get_by_test_id("teach-start")).to_be_disabled()
        ready = page.get_by_test_id("teach-ready")
        expect(ready).to_contain_text("Adventurer (0 of 2)")
        expect(ready).to_contain_text("find the dice in the photos")

        page.get_by_test_id("label").click()
        expect(page.get_by_test_id("review-message")).to_contain_text("Found")
        warning = page.get_by_test_id("warning-golden_mask")
        expect(warning).to_contain_text("The shipped reader reads")
        expect(warning).to_contain_text("labelled Golden mask")
        expect(page.get_by_test_id("warning-key")).to_have_count(0)
        page.get_by_test_id("review-done").click()
        expect(page.get_by_test_id("review-done-note")).to_have_text("Labels checked.")
        expect(page.get_by_test_id("teach-start")).to_be_disabled()
        expect(ready).to_contain_text("photograph every face")
        expect(ready).not_to_contain_text("check the labels")
        no_sideways_scrolling(page)

        answer = page.evaluate(
            "fetch('/api/dice/teach', {method: 'POST'})"
            ".then(r => r.json().then(j => [r.status, j]))"
        )
        assert answer[0] == 409 and "photograph every face" in answer[1]["detail"], answer
        assert running.server.get("/api/dice/teach")["state"] != "running"
        assert not errors, errors
    finally:
        context.close()
        running.stop()
