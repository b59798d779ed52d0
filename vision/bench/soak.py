"""Soak the live pipeline: a game video looped as a camera for minutes; memory and lag over time.

The target: the pipeline keeps up with a 30 fps camera for a whole game without its memory or
its latency growing, dropping frames rather than queueing them. The grabber keeps only the
newest frame, so a frame's age when processing starts (now - grab time) is the queueing
latency: it must stay flat from the first interval to the last.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from rules.engine import Game
from vision.annotate import annotate, to_jpeg
from vision.bench.events import GameVideo, rss_mb
from vision.live_loop import LiveLoop
from vision.perception.detector import Detector
from vision.pipeline import FrameResult, FrameRunner, build_pipeline
from vision.sources.base import Frame
from vision.sources.grabber import Grabber
from vision.sources.open import open_source

PROGRESS_SECONDS = 1.0
"""The progress callback is called about this often."""


class SoakError(Exception):
    """The soak cannot go on: the video cannot be played; the message says what to do."""


@dataclass(frozen=True)
class SoakInterval:
    """The figures of one interval of a soak run (counts are totals since the start)."""

    end_s: float
    """Seconds from the start of the run to the end of this interval."""
    seconds: float
    """Length of this interval (the last one may be shorter)."""
    rss_mb: float
    """Resident memory of the process at the end of the interval."""
    grabbed: int
    processed: int
    dropped: int
    """Frames grabbed but replaced by a newer one before the pipeline took them."""
    grab_fps: float
    """Frames grabbed per second over this interval (the camera's rate as played)."""
    fps: float
    """Frames processed per second over this interval."""
    ms_median: float | None
    """Milliseconds per processed frame, all of it (pipeline, events, annotation, JPEG)."""
    ms_p95: float | None
    age_ms_median: float | None
    """Age of the frame when its processing started (now - grab time): the queueing latency."""
    age_ms_p95: float | None

    def to_json(self) -> dict[str, Any]:
        """Return the interval as a JSON object, times to 0.1."""
        return {k: round(v, 1) if isinstance(v, float) else v for k, v in asdict(self).items()}


@dataclass
class SoakResult:
    """A whole soak run: its intervals and what the engine made of the events."""

    video: str
    source_fps: float
    stream: bool
    intervals: list[SoakInterval]
    seconds: float
    loops: int
    """Times the video started over."""
    events_accepted: int
    events_rejected: int
    errors: int = 0
    """Frames the pipeline failed on (the dashboard carries on after such a frame; so does this)."""
    last_error: str = ""

    def verdict(self) -> dict[str, Any]:
        """Return the figures that say whether it keeps up: growth first vs last interval."""
        first, last = self.intervals[0], self.intervals[-1]
        processed = last.processed
        return {
            "memory_mb_first": round(first.rss_mb, 1),
            "memory_mb_last": round(last.rss_mb, 1),
            "memory_growth_mb": round(last.rss_mb - first.rss_mb, 1),
            "age_ms_first": _round(first.age_ms_median),
            "age_ms_last": _round(last.age_ms_median),
            "processed_fps": round(processed / max(self.seconds, 1e-9), 1),
            "dropped_share": round(last.dropped / max(1, last.grabbed), 3),
        }

    def to_json(self) -> dict[str, Any]:
        """Return every figure as one JSON object."""
        return {
            "video": self.video,
            "source_fps": round(self.source_fps, 2),
            "stream": self.stream,
            "seconds": round(self.seconds, 1),
            "loops": self.loops,
            "events_accepted": self.events_accepted,
            "events_rejected": self.events_rejected,
            "errors": self.errors,
            "last_error": self.last_error,
            "intervals": [interval.to_json() for interval in self.intervals],
            "verdict": self.verdict(),
        }


@dataclass
class _Interval:
    """What is measured while an interval runs."""

    start: float
    grabbed: int = 0
    processed: int = 0
    ms: list[float] = field(default_factory=list)
    ages: list[float] = field(default_factory=list)


def run_soak(
    game_video: GameVideo,
    detector: Detector,
    *,
    seconds: float,
    every: float,
    stream_video: bool = True,
    progress: Callable[[float], None] | None = None,
) -> SoakResult:
    """Play the video looped, in real time, through the grabber and the dashboard's pipeline.

    Runs `seconds` seconds and closes an interval every `every` seconds. Events go to a fresh
    rules engine game from the video's setup (the ones it rejects, after the video starts over,
    are only counted); with `stream_video` every processed frame is annotated and JPEG-encoded.
    """
    if not seconds > 0 or not every > 0:
        raise ValueError("seconds and every must be positive")
    game = Game.from_setup_line(game_video.setup)
    scene = game_video.scene(list(game.players))
    counts = {"accepted": 0, "rejected": 0}

    def deliver(event: dict[str, Any]) -> None:
        counts["accepted" if game.apply(event).ok else "rejected"] += 1

    def stream(result: FrameResult, image: np.ndarray) -> None:
        if stream_video:
            to_jpeg(annotate(image, result, game_video.calibration, scene.grid))

    runner = FrameRunner(build_pipeline(detector, scene, lambda: game), deliver, stream)
    source = open_source(str(game_video.video))
    with Grabber(source, realtime=True, loop=True) as grabber:
        soak = _Soak(grabber, runner, time.monotonic(), seconds, every, progress)
        loop = LiveLoop(grabber, soak.handle, tick=soak.tick, name="soak")
        if loop.run(until=soak.start + seconds) != "time":
            raise SoakError(f"the video stopped playing: {grabber.state().last_error}")
        now = soak.finish()
    if progress is not None:
        progress(1.0)
    return SoakResult(
        video=str(game_video.video.parent),
        source_fps=game_video.frame_rate()[0],
        stream=stream_video,
        intervals=soak.intervals,
        seconds=now - soak.start,
        loops=soak.loops,
        events_accepted=counts["accepted"],
        events_rejected=counts["rejected"],
        errors=loop.errors,
        last_error=loop.last_error,
    )


class _Soak:
    """What the soak does between frames (close intervals, report progress) and with each frame."""

    def __init__(
        self,
        grabber: Grabber,
        runner: FrameRunner,
        start: float,
        seconds: float,
        every: float,
        progress: Callable[[float], None] | None,
    ) -> None:
        self.grabber, self.runner = grabber, runner
        self.start, self.seconds, self.every, self.progress = start, seconds, every, progress
        self.intervals: list[SoakInterval] = []
        self.current = _Interval(start)
        self.loops = 0
        self.last_source_t: float | None = None
        self.last_progress = start

    def tick(self, now: float) -> None:
        """Before each wait for a frame: close the interval when it is over; report progress."""
        if now >= self.start + self.every * (len(self.intervals) + 1):
            self.intervals.append(self._close(now))
            last = self.intervals[-1]
            self.current = _Interval(now, last.grabbed, last.processed)
        if self.progress is not None and now - self.last_progress >= PROGRESS_SECONDS:
            self.last_progress = now
            self.progress((now - self.start) / self.seconds)

    def handle(self, frame: Frame) -> None:
        """Run one frame, measuring its age and how long it took (a failed one too)."""
        self.current.ages.append((time.monotonic() - frame.t) * 1000)
        if self.last_source_t is not None and frame.source_t is not None:
            self.loops += frame.source_t < self.last_source_t
        self.last_source_t = frame.source_t
        began = time.perf_counter()
        try:
            self.runner.step(frame)
        finally:  # the live loop logs and counts a frame that failed, and goes on
            self.current.ms.append((time.perf_counter() - began) * 1000)

    def finish(self) -> float:
        """Close the last interval (if it saw a frame, or is the only one); return the time."""
        now = time.monotonic()
        if self.current.ages or not self.intervals:
            self.intervals.append(self._close(now))
        return now

    def _close(self, now: float) -> SoakInterval:
        return _close(self.current, now, self.start, self.grabber, self.runner)


def _close(
    interval: _Interval, now: float, start: float, grabber: Grabber, runner: FrameRunner
) -> SoakInterval:
    """Turn what an interval measured into its figures."""
    state = grabber.state()
    span = max(now - interval.start, 1e-9)
    return SoakInterval(
        end_s=now - start,
        seconds=span,
        rss_mb=rss_mb(),
        grabbed=state.frames,
        processed=runner.stats.frames,
        dropped=state.dropped,
        grab_fps=(state.frames - interval.grabbed) / span,
        fps=(runner.stats.frames - interval.processed) / span,
        ms_median=_percentile(interval.ms, 50),
        ms_p95=_percentile(interval.ms, 95),
        age_ms_median=_percentile(interval.ages, 50),
        age_ms_p95=_percentile(interval.ages, 95),
    )


def _percentile(values: list[float], q: float) -> float | None:
    return float(np.percentile(values, q)) if values else None


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def format_report(result: SoakResult) -> str:
    """Return the per-interval table and the verdict line, for the terminal."""
    header = (
        f"{'t s':>6} {'RSS MB':>8} {'grabbed':>8} {'processed':>9} {'dropped':>8} "
        f"{'grab fps':>8} {'fps':>6} {'ms p50':>7} {'ms p95':>7} {'age p50':>8} {'age p95':>8}"
    )
    rows = [header]
    for i in result.intervals:
        rows.append(
            f"{i.end_s:6.0f} {i.rss_mb:8.1f} {i.grabbed:8d} {i.processed:9d} {i.dropped:8d} "
            f"{i.grab_fps:8.1f} {i.fps:6.1f} {_cell(i.ms_median, 7)} {_cell(i.ms_p95, 7)} "
            f"{_cell(i.age_ms_median, 8)} {_cell(i.age_ms_p95, 8)}"
        )
    v = result.verdict()
    rows.append(
        f"verdict: memory {v['memory_mb_first']} -> {v['memory_mb_last']} MB "
        f"({v['memory_growth_mb']:+.1f}); frame age p50 {v['age_ms_first']} -> "
        f"{v['age_ms_last']} ms; processed {v['processed_fps']} fps of the video's "
        f"{result.source_fps:.0f} ({v['dropped_share']:.0%} of frames dropped)"
    )
    if result.errors:
        rows.append(f"errors: {result.errors} frames failed (last: {result.last_error})")
    return "\n".join(rows)


def _cell(value: float | None, width: int) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:{width}.1f}"
