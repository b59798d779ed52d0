"""The game clock: the soundtrack's playback position, from the host's audio or the wall clock."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

from rules.timeline import Timeline


class PositionSource(Protocol):
    """Something that plays the soundtrack and knows where it is (a host player or a stopwatch)."""

    def start(self, at_seconds: float = 0.0) -> None:
        """Play from `at_seconds` of the audio."""

    def pause(self) -> None:
        """Hold the position."""

    def resume(self) -> None:
        """Go on from the held position."""

    def position_seconds(self) -> float:
        """Return the position in the audio, in seconds."""


class Stopwatch:
    """A silent position source on a monotonic clock (used when the browser plays the audio)."""

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self._now = now
        self._anchor_position = 0.0
        self._anchor_time: float | None = None
        self._lock = threading.Lock()

    def start(self, at_seconds: float = 0.0) -> None:
        """Run from `at_seconds`."""
        with self._lock:
            self._anchor_position = at_seconds
            self._anchor_time = self._now()

    def pause(self) -> None:
        """Hold the position."""
        with self._lock:
            if self._anchor_time is not None:
                self._anchor_position += self._now() - self._anchor_time
                self._anchor_time = None

    def resume(self) -> None:
        """Go on from the held position."""
        with self._lock:
            if self._anchor_time is None:
                self._anchor_time = self._now()

    def position_seconds(self) -> float:
        """Return the position, in seconds."""
        with self._lock:
            if self._anchor_time is None:
                return self._anchor_position
            return self._anchor_position + self._now() - self._anchor_time


class GameClock:
    """Game time from a position source and the timeline: `t` is seconds since "Escape!"."""

    def __init__(self, timeline: Timeline, source: PositionSource) -> None:
        self.timeline = timeline
        self.source = source
        self.status = "ready"
        """`ready` (not started), `running`, `paused` or `over`."""

    @property
    def position(self) -> float:
        """Return the position in the soundtrack, in seconds (0 before the start)."""
        if self.status == "ready":
            return 0.0
        return min(self.source.position_seconds(), self.timeline.total_seconds)

    @property
    def t(self) -> float:
        """Return the game clock: negative during the introduction, 0 at "Escape!"."""
        return self.timeline.game_clock(self.position)

    def start(self, at_position: float = 0.0, *, running: bool = True) -> None:
        """Start (or restart) the soundtrack at `at_position`; held there when not `running`."""
        self.source.start(at_position)
        self.status = "running"
        if not running:
            self.pause()

    def pause(self) -> None:
        """Pause the soundtrack and the clock."""
        if self.status == "running":
            self.source.pause()
            self.status = "paused"

    def resume(self) -> None:
        """Resume a paused clock."""
        if self.status == "paused":
            self.source.resume()
            self.status = "running"

    def finish(self) -> None:
        """Stop the clock for good (the game is over)."""
        if self.status == "running":
            self.source.pause()
        self.status = "over"

    def reopen(self) -> None:
        """Hold a finished clock paused where it stopped (a correction took the game's end
        back: the game goes on)."""
        if self.status == "over":
            self.status = "paused"
