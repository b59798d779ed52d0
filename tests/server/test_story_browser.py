"""The story page (/games/N) in Chromium against a real server: a ten-minute saved game (played
event by event through the rules engine) with the camera video kept beside it; nothing
overflows a phone's 390 px, the page reads at 1920 x 1080, and a click on a moment seeks the
video to that moment of the game."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import cv2
import pytest
from conftest import LiveServer, checked_page
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from screenshots import screenshot

from models.synth.frame import render_frame
from models.synth.settings import SynthSettings
from rules.engine import Game
from server.video_ring import RingSettings, VideoRing

pytestmark = pytest.mark.browser

GAME_ID = "20260102-200000-51de"
A, K, T = "adventurer", "key", "torch"
SETUP = {"type": "setup", "players": ["red", "blue", "green"], "track_dice": True}
VIDEO_FROM, VIDEO_TO, VIDEO_FPS = 200.0, 302.0, 2.0
BAND_ROWS = 24
"""The camera frames' top rows: their green level tells the time (the rest is a rendered table)."""


class Script:
    """A game written event by event, each judged by the rules engine as it is written."""

    def __init__(self) -> None:
        self.game = Game.from_setup_line(SETUP)
        self.lines = [json.dumps(SETUP)]

    def at(self, t: float, **event: Any) -> None:
        event["t"] = t
        verdict = self.game.apply(event)
        assert verdict.ok, f"{event}: {verdict.reason}"
        self.lines.append(json.dumps(event))

    def roll(self, t: float, pid: str, *faces: str) -> None:
        held = self.game.players[pid].dice
        self.at(t, type="dice", player=pid, faces=[*faces, *[T] * (held - len(faces))])


def ten_minutes() -> list[str]:
    """Red and Blue activate three gems, Green and Blue three more, Red one; Green stays out at
    the first door slam and loses a die; Red finds the exit, escapes and gives Green a die."""
    s = Script()
    s.roll(8, "red", A, A)
    s.at(10, type="discover", player="red", tile="gem3-key-1", cell=[1, 0])
    s.roll(15, "red", A, K)
    s.at(17, type="enter", player="red", cell=[1, 0])
    s.roll(19, "blue", A, K)
    s.at(21, type="enter", player="blue", cell=[1, 0])
    s.roll(30, "red", K, K, K, K, K)
    s.roll(31, "blue", K, K, K, K, K)
    s.at(33, type="activate", cell=[1, 0], gems=3, players=["red", "blue"])
    s.roll(40, "green", A, A)
    s.at(42, type="discover", player="green", tile="gem3-torch-1", cell=[-1, 0])
    s.roll(47, "green", A, T)
    s.at(49, type="enter", player="green", cell=[-1, 0])
    s.at(55, type="enter", player="blue", cell=[0, 0])
    s.roll(58, "blue", A, T)
    s.at(60, type="enter", player="blue", cell=[-1, 0])
    s.roll(62, "red", A, A)
    s.at(64, type="discover", player="red", tile="gem1-key-1", cell=[1, 1])
    s.roll(70, "red", A, A)
    s.at(72, type="enter", player="red", cell=[1, 1])
    s.roll(120, "blue", T, T, T, T, T)
    s.roll(121, "green", T, T, T, T, T)
    s.at(125, type="activate", cell=[-1, 0], gems=3, players=["blue", "green"])
    s.roll(140, "red", K, K, K, K)
    s.at(142, type="activate", cell=[1, 1], gems=1, players=["red"])
    s.at(180, type="countdown_start", n=1)
    s.roll(184, "red", A, K)
    s.at(186, type="enter", player="red", cell=[1, 0])
    s.at(190, type="enter", player="red", cell=[0, 0])
    s.at(195, type="enter", player="blue", cell=[0, 0])
    s.at(215, type="countdown_end", n=1)
    s.roll(230, "red", A, A)
    s.at(232, type="discover", player="red", tile="exit", cell=[0, 1])
    s.roll(240, "red", A, K)
    s.at(242, type="enter", player="red", cell=[0, 1])
    s.roll(250, "blue", A, K)
    s.at(252, type="enter", player="blue", cell=[0, 1])
    s.roll(260, "red", K, K, K, K, K)
    s.at(262, type="escape", player="red")
    s.at(265, type="give_die", **{"from": "red", "to": "green"})
    s.roll(270, "blue", K, K, K, K, K)
    s.at(272, type="escape", player="blue")
    s.at(280, type="enter", player="green", cell=[0, 0])
    s.roll(290, "green", A, K)
    s.at(292, type="enter", player="green", cell=[0, 1])
    s.roll(300, "green", K, K, K, K, K)
    s.at(302, type="escape", player="green")
    assert s.game.outcome == "won"
    return s.lines


def shade(t: float) -> int:
    """The green level of the camera frame at game time `t`: it steps every five seconds."""
    return (int(t) // 5 % 12) * 20 + 10


@pytest.fixture(scope="module")
def saved_game(game_server: LiveServer) -> Iterator[str]:
    """The ten-minute game saved in the server's store, with its last 100 s of camera video
    kept by a video ring (real VP8 WebM written by OpenCV)."""
    games = game_server.data_dir / "games"
    (games / f"{GAME_ID}.jsonl").write_text("\n".join(ten_minutes()) + "\n", encoding="utf-8")
    ring = VideoRing(game_server.data_dir, min_free_bytes=0)
    ring.settings = RingSettings(megabytes=50, fps=VIDEO_FPS, width=640, segment_seconds=30)
    table = cv2.resize(render_frame(SynthSettings(), seed=11, index=1).image, (640, 360))
    for k in range(int((VIDEO_TO - VIDEO_FROM) * VIDEO_FPS) + 1):
        t = VIDEO_FROM + k / VIDEO_FPS
        image = table.copy()
        image[:BAND_ROWS] = (40, shade(t), 40)
        clock = f"{int(t) // 60}:{int(t) % 60:02d}"
        cv2.putText(image, clock, (500, 340), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (255, 255, 255), 3)
        ring.offer(GAME_ID, t, image)
        ring.drain()
    ring.close()
    assert len(ring.segments(GAME_ID)) == 4
    yield GAME_ID


def page_fits(page: Any, width: int) -> None:
    """Nothing sticks out sideways: the page does not scroll, and no box passes its edge."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    wide = page.evaluate(
        """(width) => [...document.querySelectorAll('main *')]
            .filter((n) => n.getClientRects().length && !n.closest('.heat'))
            .filter((n) => n.getBoundingClientRect().right > width + 0.5)
            .map((n) => n.tagName + ' ' + (n.textContent || '').slice(0, 30))""",
        width,
    )
    assert not wide, f"these stick out of the {width} px page: {wide[:5]}"


SHADE_JS = """() => {
    const video = document.getElementById('story-video');
    const canvas = document.createElement('canvas');
    canvas.width = 64; canvas.height = 36;
    const ctx = canvas.getContext('2d');
    ctx.drawImage(video, 0, 0, 64, 36);
    const data = ctx.getImageData(4, 0, 56, 1).data;  // the band of the time's shade
    let sum = 0;
    for (let i = 1; i < data.length; i += 4) sum += data[i];
    return sum / (data.length / 4);
}"""
"""The green level of the band the video shows now (drawn onto a canvas)."""


def shows(page: Any, game_t: float) -> None:
    """Wait until the video has been sought to the frame of game time `game_t` and shows it."""
    page.wait_for_function(
        """(t) => {
            const v = document.getElementById('story-video');
            return v.dataset.seeked === String(t) && v.readyState >= 2 && !v.seeking;
        }""",
        arg=game_t,
        timeout=15_000,
    )
    wanted = shade(game_t)
    try:
        page.wait_for_function(
            f"(wanted) => Math.abs(({SHADE_JS})() - wanted) < 8", arg=wanted, timeout=5_000
        )
    except PlaywrightTimeout:
        seen = page.evaluate(SHADE_JS)
        raise AssertionError(
            f"the video shows shade {seen:.0f}, not {wanted} ({game_t} s)"
        ) from None


def test_the_story_page_fits_a_phone(chromium: Any, game_server: LiveServer, saved_game: str):
    with checked_page(chromium, game_server.url, {"width": 390, "height": 844}) as page:
        page.goto(f"/games/{saved_game}")
        page.wait_for_selector("[data-testid=moment-34]")
        assert page.get_by_test_id("story-outcome").inner_text() == (
            "Won: Red, Blue and Green escaped"
        )
        page.wait_for_selector("[data-testid=heat] .pile-tile")
        page_fits(page, 390)
        heat = page.get_by_test_id("heat").bounding_box()
        assert heat["x"] >= 0 and heat["x"] + heat["width"] <= 390
        # the plots' words stay readable on a phone: 12 px letters at least
        smallest = page.evaluate(
            "Math.min(...[...document.querySelectorAll('svg.plot text')]"
            ".map((n) => n.getBoundingClientRect().height))"
        )
        assert smallest >= 12
        assert page.get_by_test_id("video-size").inner_text().startswith("Video kept for this game")
        screenshot(page, "story-phone.png")


def test_a_click_on_a_moment_seeks_the_video_at_1920(
    chromium: Any, game_server: LiveServer, saved_game: str
) -> None:
    with checked_page(chromium, game_server.url, {"width": 1920, "height": 1080}) as page:
        page.goto(f"/games/{saved_game}")
        slam = page.get_by_test_id("moment-32")
        assert slam.inner_text().endswith("The door slams: Green loses a die")
        page_fits(page, 1920)
        moments = page.get_by_test_id("moments").inner_text()
        assert "Red gives a die to Green" not in moments  # an event, not a moment
        assert "the last gems of the game: 5 keys to escape" in moments
        assert "Green escapes: the last one out, the game is won" in moments
        countdown = page.get_by_test_id("countdown-1").inner_text()
        back, lost = " ".join(countdown.split()).split("lost a die:")
        assert back.startswith("Countdown 1, the door slams at 3:35 made it back:")
        assert back.endswith("Red and Blue ") and lost.endswith("Green")
        slam.click()
        shows(page, 215)
        screenshot(page, "story.png")
        video = page.evaluate(
            "(() => { const v = document.getElementById('story-video');"
            " return [v.currentSrc, v.currentTime]; })()"
        )
        assert video[0].endswith(".webm") and video[1] == pytest.approx(15.25, abs=0.1)
        assert page.get_by_test_id("moment-32").get_attribute("aria-current") == "true"
        page.get_by_test_id("moment-34").click()  # the exit found, in a later segment
        shows(page, 232)
        page.wait_for_selector("[data-testid=moment-34].now")  # the list keeps step with the video
        cursor = page.locator("[data-testid=plot-depot] .cursor")
        assert cursor.get_attribute("visibility") == "visible"
        page.get_by_test_id("moment-10").click()  # long before the video kept
        shows(page, VIDEO_FROM)
        page.locator("summary", has_text="Every event").click()
        page.get_by_test_id("event-41").click()
        shows(page, 265)


def test_the_past_games_page_leads_to_the_story_and_its_downloads(
    chromium: Any, game_server: LiveServer, saved_game: str
) -> None:
    with checked_page(chromium, game_server.url, {"width": 1280, "height": 800}) as page:
        page.goto(f"/games#{saved_game}")
        page.get_by_test_id("story-link").click()
        page.wait_for_url(f"**/games/{saved_game}")
        page.wait_for_selector("[data-testid=download-pdf][href]")
        for kind, media in (("png", "image/png"), ("pdf", "application/pdf")):
            href = page.get_by_test_id(f"download-{kind}").get_attribute("href")
            got = page.evaluate(
                "async (href) => { const r = await fetch(href); const body = await r.arrayBuffer();"
                " return [r.status, r.headers.get('content-type'), body.byteLength]; }",
                href,
            )
            assert got[0] == 200 and got[1] == media and got[2] > 50_000
        field = page.get_by_test_id("ring-mb")
        field.fill("-5")
        page.get_by_test_id("ring-save").click()
        assert field.evaluate("(n) => n.validationMessage")  # the browser says what is allowed
        assert game_server.get("/api/video-ring")["megabytes"] == 0  # type: ignore[index]
        field.fill("25")
        page.get_by_test_id("ring-save").click()
        size = page.get_by_test_id("video-size")
        page.wait_for_function(
            "() => document.getElementById('video-size').textContent.includes('25 MB a game')"
        )
        assert size.inner_text().startswith("Video kept for this game: ")
        assert game_server.get("/api/video-ring")["megabytes"] == 25  # type: ignore[index]
        field.fill("0")
        page.get_by_test_id("ring-save").click()
        page.wait_for_function(
            "() => document.getElementById('video-size').textContent.includes('ring is off')"
        )
