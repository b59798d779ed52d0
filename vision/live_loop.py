"""The one live loop: take the grabber's newest frame, hand it on, again, until told to stop.

The dashboard's vision service, `templecam bench events` and `templecam bench soak` all run it:
each frame is taken once (never a stale one twice; frames that came while the last one was being
processed are dropped by the grabber), a frame that fails is logged and counted and the loop goes
on (or, for a benchmark that wants to see it, the error ends the loop), and a source that will
give no more frames either ends the loop or is waited on. What happens to a frame (usually
`vision.pipeline.FrameRunner.step`) and what happens between frames are the caller's.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol, cast

from vision.sources.base import Frame
from vision.sources.grabber import CameraState

log = logging.getLogger(__name__)

FINISHED = ("ended", "failed", "stopped")
"""Grabber states after which no new frame will come."""
FINISHED_WAIT = 0.5
"""Seconds a loop told to wait on a finished source sleeps before it looks again."""

LoopEnd = Literal["stop", "time", "ended", "failed", "stopped"]
"""Why `LiveLoop.run` returned: asked to stop, its time was up, or the grabber's final state."""


class FrameFeed(Protocol):
    """What the loop needs of a `vision.sources.grabber.Grabber`."""

    def latest(self, after_seq: int | None = None, timeout: float | None = None) -> Frame | None:
        """Return the newest frame newer than `after_seq`, waiting up to `timeout` seconds."""
        ...

    def state(self) -> CameraState:
        """Return the grabber's state now."""
        ...


@dataclass
class LiveLoop:
    """Pulls frames from a grabber and hands each to `handle`; see the module's docstring."""

    feed: FrameFeed
    handle: Callable[[Frame], object]
    """What to do with a frame (step the pipeline, and whatever else the caller measures)."""
    wait: float = 0.5
    """Longest wait for a new frame before the loop looks at its stop conditions again."""
    carry_on: bool = True
    """A frame that fails is logged and counted and the loop goes on; False: the error is raised."""
    on_error: Callable[[Frame, Exception], None] | None = None
    """Also told of each frame that failed (when `carry_on`)."""
    wait_when_finished: bool = False
    """A source that gives no more frames is waited on (the dashboard); False: the loop ends."""
    tick: Callable[[float], None] | None = None
    """Called with `time.monotonic()` before each wait for a frame (a benchmark's intervals)."""
    name: str = "vision"
    """Says whose loop it is in the log."""
    frames: int = 0
    """Frames handed on so far."""
    errors: int = 0
    """Frames that failed so far."""
    last_error: str = ""
    """The last failure, as `Type: message`."""
    last_seq: int | None = None
    """The sequence number of the last frame taken."""

    def run(self, stop: threading.Event | None = None, until: float | None = None) -> LoopEnd:
        """Run until `stop` is set, `time.monotonic()` reaches `until`, or the source finishes."""
        stop = stop or threading.Event()
        while not stop.is_set():
            now = time.monotonic()
            if until is not None and now >= until:
                return "time"
            if self.tick is not None:
                self.tick(now)
            wait = self.wait if until is None else max(0.0, min(self.wait, until - now))
            frame = self.feed.latest(after_seq=self.last_seq, timeout=wait)
            if frame is None:
                status = self.feed.state().status
                if status in FINISHED:
                    if not self.wait_when_finished:
                        return cast(LoopEnd, status)
                    stop.wait(FINISHED_WAIT)  # a video that ended: wait, do not spin
                continue
            self.last_seq = frame.seq
            self._handle(frame)
        return "stop"

    def _handle(self, frame: Frame) -> None:
        """Hand one frame on; count (and log) it when it fails and the loop carries on."""
        self.frames += 1
        try:
            self.handle(frame)
        except Exception as error:
            if not self.carry_on:
                raise
            log.exception("%s: frame %s failed", self.name, frame.seq)
            self.errors += 1
            self.last_error = f"{type(error).__name__}: {error}"
            if self.on_error is not None:
                self.on_error(frame, error)
