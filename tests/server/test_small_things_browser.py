"""Small things of issue 19 on a real server and Debian's Chromium: the calibration board to
download at its true printed size, links to a section landing on it once the page has loaded,
and one tab of a browser playing the sound while the others mute themselves."""

from __future__ import annotations

import io
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import start_the_clock
from PIL import Image
from playwright.sync_api import BrowserContext, Page, expect

from calibration.board import BOARDS, PAPER_MM

pytestmark = pytest.mark.browser

MM_PER_POINT = 25.4 / 72


@pytest.fixture
def context(chromium: Any) -> Iterator[BrowserContext]:
    context = chromium.new_context(viewport={"width": 390, "height": 844}, accept_downloads=True)
    context.set_default_timeout(10_000)
    errors: list[str] = []
    context.on("page", lambda page: page.on("pageerror", lambda e: errors.append(str(e))))
    yield context
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def _fetch(url: str) -> tuple[bytes, str, str]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return (
            response.read(),
            response.headers["Content-Type"],
            response.headers.get("Content-Disposition", ""),
        )


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_board_downloads_as_a_png_and_a_pdf_of_its_true_size(
    context: BrowserContext, game_server: Any, paper: str
) -> None:
    page = context.new_page()
    page.goto(game_server.url + "/calibrate")
    width_mm, height_mm = PAPER_MM[paper]

    with page.expect_download() as pdf_download:
        page.get_by_test_id(f"board-pdf-{paper}").click()
    pdf = open(pdf_download.value.path(), "rb").read()  # noqa: SIM115
    assert pdf.startswith(b"%PDF-")
    assert pdf_download.value.suggested_filename.endswith(f"{paper}.pdf")
    box = re.search(rb"/MediaBox \[ ?([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+) ?\]", pdf)
    assert box, "the PDF names its page size"
    x0, y0, x1, y1 = (float(v) for v in box.groups())
    assert abs((x1 - x0) * MM_PER_POINT - width_mm) < 0.5, "the page is the paper's width"
    assert abs((y1 - y0) * MM_PER_POINT - height_mm) < 0.5, "and its height"

    with page.expect_download() as png_download:
        page.get_by_test_id(f"board-png-{paper}").click()
    image = Image.open(io.BytesIO(open(png_download.value.path(), "rb").read()))  # noqa: SIM115
    assert image.format == "PNG"
    dpi = image.info["dpi"]
    assert round(dpi[0]) == round(dpi[1]) == 300
    assert abs(image.width / dpi[0] * 25.4 - width_mm) < 0.5
    assert abs(image.height / dpi[1] * 25.4 - height_mm) < 0.5

    data, kind, disposition = _fetch(f"{game_server.url}/api/calibration/board.png?paper={paper}")
    assert kind == "image/png" and "attachment" in disposition
    assert data == open(png_download.value.path(), "rb").read()  # noqa: SIM115
    # The squares print at the size the calibration expects of this sheet.
    assert BOARDS[paper].square_px * 25.4 / 300 == pytest.approx(BOARDS[paper].square_mm)


def test_an_unknown_board_is_refused(game_server: Any) -> None:
    for path in ("/api/calibration/board.gif", "/api/calibration/board.pdf?paper=a3"):
        try:
            _fetch(game_server.url + path)
        except urllib.error.HTTPError as error:
            assert error.code in (404, 422), path
        else:
            raise AssertionError(f"{path} was answered")


def _top(page: Page, selector: str) -> float:
    return float(page.locator(selector).evaluate("node => node.getBoundingClientRect().top"))


@pytest.mark.parametrize(
    ("path", "section"),
    [
        ("/setup#camera", "#camera"),
        ("/dice#teach", "#teach"),
        ("/dice#models", "#models"),
        ("/calibrate#board", "#board"),
    ],
)
@pytest.mark.parametrize("viewport", [(390, 844), (1920, 1080)])
def test_a_link_to_a_section_lands_on_it(
    chromium: Any, game_server: Any, path: str, section: str, viewport: tuple[int, int]
) -> None:
    context = chromium.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    try:
        page = context.new_page()
        page.goto(game_server.url + path)
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(1500)  # the page has loaded what it shows, and stayed put
        top = _top(page, section)
        scrolled = page.evaluate("window.scrollY")
        bottom = page.evaluate("document.documentElement.scrollHeight - window.innerHeight")
        # At the top of the screen, or as near as the page's end lets it come.
        assert -2 <= top <= 2 or (scrolled >= bottom - 2 and 0 <= top < viewport[1]), (
            f"{path}: the section is {top:.0f} px from the top of the screen"
        )
    finally:
        context.close()


def test_a_link_to_a_section_does_not_fight_the_user(chromium: Any, game_server: Any) -> None:
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(game_server.url + "/setup#camera")
        page.wait_for_load_state("networkidle")
        page.mouse.wheel(0, -100_000)
        page.wait_for_timeout(1500)
        assert page.evaluate("window.scrollY") == 0, "the user's scroll is left alone"
    finally:
        context.close()


def _status(page: Page) -> Any:
    return page.get_by_test_id("audio-status")


def test_one_tab_plays_the_sound_and_the_others_mute_themselves(
    context: BrowserContext, game_server: Any
) -> None:
    game_server.post("/api/games", {"players": ["red", "blue"], "audio": "browser"})
    start_the_clock(game_server)
    first = context.new_page()
    first.goto(game_server.url + "/game")
    expect(first.get_by_test_id("mute-here")).to_have_text("Mute here")
    expect(_status(first)).to_contain_text("Sound: this browser")

    # A second tab of the same browser finds the first playing and mutes itself.
    second = context.new_page()
    second.goto(game_server.url + "/game")
    second.wait_for_timeout(1000)
    expect(_status(second)).to_have_text("Sound: playing in another tab")
    expect(second.get_by_test_id("mute-here")).to_have_text("Play here")
    expect(_status(first)).to_contain_text("Sound: this browser")

    # Play here: the second takes the sound over, the first mutes itself.
    second.get_by_test_id("mute-here").click()
    expect(_status(first)).to_have_text("Sound: playing in another tab")
    expect(_status(second)).to_contain_text("Sound: this browser")
    expect(second.get_by_test_id("mute-here")).to_have_text("Mute here")

    # The choice is remembered: after a reload the second plays again, the first stays muted.
    second.reload()
    expect(_status(second)).to_contain_text("Sound: this browser")
    expect(second.get_by_test_id("mute-here")).to_have_text("Mute here")
    first.reload()
    expect(_status(first)).to_have_text("Sound: playing in another tab")
    expect(_status(second)).to_contain_text("Sound: this browser")

    # The tab that played closes: the one muted for it takes over.
    second.close()
    expect(_status(first)).to_contain_text("Sound: this browser", timeout=6_000)
    expect(first.get_by_test_id("mute-here")).to_have_text("Mute here")

    # Mute here is this tab's own choice, kept over a reload, and a new tab then plays.
    first.get_by_test_id("mute-here").click()
    expect(_status(first)).to_have_text("Sound: muted on this page")
    first.reload()
    expect(_status(first)).to_have_text("Sound: muted on this page")
    third = context.new_page()
    third.goto(game_server.url + "/game")
    third.wait_for_timeout(1000)  # it asked the other tabs, and nobody plays
    expect(_status(third)).to_contain_text("Sound: this browser")
    expect(third.get_by_test_id("mute-here")).to_have_text("Mute here")
    expect(_status(first)).to_have_text("Sound: muted on this page")
