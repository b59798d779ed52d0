"""The one live loop that the dashboard and both benchmarks run, fed by a scripted grabber."""

from __future__ import annotations

import ast
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from vision.live_loop import LiveLoop
from vision.sources.base import Frame
from vision.sources.grabber import CameraState

ROOT = Path(__file__).resolve().parents[2]


class ScriptedFeed:
    """Gives frames 1..n once each (as a grabber's newest frame), then says it ended."""

    def __init__(self, count: int, final: str = "ended") -> None:
        self.frames = [
            Frame(np.zeros((2, 2, 3), np.uint8), i, float(i)) for i in range(1, count + 1)
        ]
        self.final = final
        self.asked: list[int | None] = []

    def latest(self, after_seq: int | None = None, timeout: float | None = None) -> Frame | None:
        self.asked.append(after_seq)
        newer = [f for f in self.frames if after_seq is None or f.seq > after_seq]
        return newer[0] if newer else None

    def state(self) -> CameraState:
        done = all(f.seq <= (self.asked[-1] or 0) for f in self.frames) if self.asked else False
        return CameraState(
            source="scripted",
            live=False,
            status=self.final if done else "live",  # type: ignore[arg-type]
            fps=0.0,
            width=None,
            height=None,
            frames=len(self.frames),
            dropped=0,
            reconnects=0,
            last_error=None,
            last_error_at=None,
            retry_delay=None,
        )


def test_each_frame_is_handed_on_once_in_order_until_the_source_ends():
    feed = ScriptedFeed(3)
    seen: list[int] = []
    loop = LiveLoop(feed, lambda frame: seen.append(frame.seq))
    assert loop.run() == "ended"
    assert seen == [1, 2, 3] and loop.frames == 3 and loop.last_seq == 3
    assert feed.asked[:4] == [None, 1, 2, 3]


def test_a_failed_source_ends_the_loop_with_its_state():
    assert LiveLoop(ScriptedFeed(1, final="failed"), lambda frame: None).run() == "failed"


def test_a_frame_that_fails_is_counted_and_the_loop_goes_on(caplog):
    told: list[tuple[int, str]] = []

    def handle(frame: Frame) -> None:
        if frame.seq == 2:
            raise ValueError("bad pixels")

    loop = LiveLoop(ScriptedFeed(3), handle, on_error=lambda f, e: told.append((f.seq, str(e))))
    assert loop.run() == "ended"
    assert loop.frames == 3 and loop.errors == 1 and loop.last_error == "ValueError: bad pixels"
    assert told == [(2, "bad pixels")]
    assert "vision: frame 2 failed" in caplog.text


def test_a_benchmark_that_wants_to_see_an_error_gets_it():
    def handle(frame: Frame) -> None:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        LiveLoop(ScriptedFeed(2), handle, carry_on=False).run()


def test_a_loop_with_a_deadline_ticks_before_each_wait_and_stops_in_time():
    ticks: list[float] = []
    loop = LiveLoop(ScriptedFeed(0, final="live"), lambda frame: None, wait=0.01, tick=ticks.append)
    begun = time.monotonic()
    assert loop.run(until=begun + 0.1) == "time"
    assert ticks and all(begun <= t < begun + 0.1 for t in ticks)


def test_the_dashboard_waits_on_an_ended_video_until_it_is_stopped():
    stop = threading.Event()
    loop = LiveLoop(ScriptedFeed(2), lambda frame: None, wait_when_finished=True)
    threading.Timer(0.2, stop.set).start()
    begun = time.monotonic()
    assert loop.run(stop) == "stop"
    assert loop.frames == 2 and 0.15 < time.monotonic() - begun < 2.0


def test_no_other_module_pulls_frames_in_a_loop_of_its_own():
    """Only the live loop asks a grabber for the frame after the last one (`after_seq`)."""
    pulling = []
    for room in ("vision", "server", "templecam"):
        for path in sorted((ROOT / room).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "latest"
                    and any(k.arg == "after_seq" for k in node.keywords)
                ):
                    pulling.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert pulling == ["vision/live_loop.py:" + str(_latest_line())], pulling


def _latest_line() -> int:
    """The line of the live loop's one call to `latest`."""
    text = (ROOT / "vision" / "live_loop.py").read_text("utf-8").splitlines()
    return next(i for i, line in enumerate(text, 1) if "self.feed.latest(" in line)
