"""`Grabber`: reads a source on its own thread, keeps only the newest frame, never gives up.

A reader thread opens the source, reads, and puts each frame in a one-frame slot (a frame
nobody took before the next arrives is counted as dropped). Live sources that fail, hang or
end are reopened with exponential back-off. A watchdog thread notices an open or read that
does not return (OpenCV cannot interrupt it): it abandons that reader, which closes its capture
whenever the call comes back, and starts a new one.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from types import TracebackType
from typing import Any, Literal, TypeVar

import numpy as np

from vision.sources.base import Frame, FrameSource, SourceError, Stream

CameraStatus = Literal["starting", "live", "reconnecting", "ended", "failed", "stopped"]
"""starting: no frame yet; live: frames coming; reconnecting: a live source failed and is being
reopened; ended: a file or folder played to its end; failed: a file or folder cannot be read;
stopped: `stop()` was called."""

THREAD_PREFIX = "templecam-grabber"
"""Every grabber thread's name starts with this."""

MAX_LAG = 1.0
"""A file read this many seconds behind its schedule plays on from where it is, not in a burst."""

log = logging.getLogger(__name__)
T = TypeVar("T")


def backoff_delays(initial: float = 0.5, maximum: float = 10.0) -> Iterator[float]:
    """Yield the waits before each reconnect attempt: initial, doubling, capped at maximum."""
    delay = initial
    while True:
        yield min(delay, maximum)
        delay *= 2


@dataclass(frozen=True)
class CameraState:
    """How a grabber is doing at one moment, for the dashboard."""

    source: str
    """The source's description."""
    live: bool
    """A camera or stream (True) or a file or folder (False)."""
    status: CameraStatus
    """See CameraStatus."""
    fps: float
    """Frames grabbed per second over the last few seconds (0 when none came)."""
    width: int | None
    """Size of the newest frame in pixels; None before the first."""
    height: int | None
    frames: int
    """Frames grabbed since start."""
    dropped: int
    """Frames grabbed but replaced by a newer one before anybody took them."""
    reconnects: int
    """Attempts to reopen the source after a failure."""
    last_error: str | None
    """What went wrong last (kept after recovery, with its time)."""
    last_error_at: float | None
    """When, as `time.time()` seconds."""
    retry_delay: float | None
    """While reconnecting: the back-off wait before the current attempt, seconds."""

    def to_json(self) -> dict[str, Any]:
        """Return the state as a JSON object (fps to 0.1)."""
        data = asdict(self)
        data["fps"] = round(self.fps, 1)
        return data


class Grabber:
    """Grabs frames from `source` on a thread and hands out the newest one.

    Use: ``with Grabber(open_source("0")) as grabber: frame = grabber.latest(timeout=5)``.
    Files and folders play in real time (`realtime=True`: a slow consumer misses frames, as
    with a camera) or deliver every frame in order, the reader waiting for the consumer
    (`realtime=False`; cameras and streams are always real time). `loop` restarts a file at
    its end.
    """

    def __init__(
        self,
        source: FrameSource,
        *,
        realtime: bool = True,
        loop: bool = False,
        backoff: tuple[float, float] = (0.5, 10.0),
        watchdog: float = 15.0,
        fps_window: float = 2.0,
    ) -> None:
        """Prepare the grabber; `start()` starts it.

        backoff: the first and the longest wait between reconnect attempts, seconds.
        watchdog: an open or read taking longer than this many seconds counts as hung.
        fps_window: the measured frame rate covers this many seconds.
        """
        self.source = source
        self.realtime = realtime or source.live
        self.loop = loop
        self._backoff = backoff
        self._watchdog_s = watchdog
        self._fps_window = fps_window
        self._cond = threading.Condition()
        self._stopping = threading.Event()
        self._started = False
        self._generation = 0
        self._busy: tuple[int, str, float] | None = None
        self._reader: threading.Thread | None = None
        self._watchdog: threading.Thread | None = None
        self._frame: Frame | None = None
        self._taken = True
        self._seq = 0
        self._status: CameraStatus = "starting"
        self._grab_times: deque[float] = deque(maxlen=1024)
        self._size: tuple[int, int] | None = None
        self._frames = 0
        self._dropped = 0
        self._reconnects = 0
        self._error: tuple[str, float] | None = None
        self._retry_delay: float | None = None

    # --- public --------------------------------------------------------------------------

    def start(self) -> Grabber:
        """Start the reader and watchdog threads (once); return the grabber."""
        with self._cond:
            if self._started:
                return self
            self._started = True
        self._spawn_reader(0, first_delay=None)
        self._watchdog = threading.Thread(
            target=self._watch, name=f"{THREAD_PREFIX}-watchdog", daemon=True
        )
        self._watchdog.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        """Stop grabbing and wait up to `timeout` s for the threads (a hung read cannot be)."""
        self._stopping.set()
        with self._cond:
            if self._started:
                self._status = "stopped"
            self._cond.notify_all()
        for thread in (self._reader, self._watchdog):
            if thread is not None and thread is not threading.current_thread():
                thread.join(timeout)

    def __enter__(self) -> Grabber:
        """Start the grabber."""
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Stop the grabber."""
        self.stop()

    def latest(self, after_seq: int | None = None, timeout: float | None = None) -> Frame | None:
        """Return the newest frame, newer than `after_seq` if given, waiting for one if needed.

        Waits up to `timeout` seconds (None: until a frame comes; 0: no wait). Returns None when
        the time is up, or when no newer frame will come (the file ended or failed, or `stop()`).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            if not self._started:
                raise RuntimeError("start() the grabber before asking it for frames")
            while True:
                frame = self._frame
                if frame is not None and (after_seq is None or frame.seq > after_seq):
                    self._taken = True
                    self._cond.notify_all()
                    return frame
                if self._status in ("ended", "failed", "stopped"):
                    return None
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._cond.wait(remaining)

    def state(self) -> CameraState:
        """Return the grabber's state now."""
        now = time.monotonic()
        with self._cond:
            times = [t for t in self._grab_times if t >= now - self._fps_window]
            fps = (len(times) - 1) / (now - times[0]) if len(times) > 1 else 0.0
            return CameraState(
                source=self.source.description,
                live=self.source.live,
                status=self._status,
                fps=fps,
                width=self._size[0] if self._size else None,
                height=self._size[1] if self._size else None,
                frames=self._frames,
                dropped=self._dropped,
                reconnects=self._reconnects,
                last_error=self._error[0] if self._error else None,
                last_error_at=self._error[1] if self._error else None,
                retry_delay=self._retry_delay if self._status == "reconnecting" else None,
            )

    # --- reader --------------------------------------------------------------------------

    def _spawn_reader(self, generation: int, first_delay: float | None) -> None:
        self._reader = threading.Thread(
            target=self._read_loop,
            args=(generation, first_delay),
            name=f"{THREAD_PREFIX}-reader-{generation}",
            daemon=True,
        )
        self._reader.start()

    def _current(self, generation: int) -> bool:
        return generation == self._generation and not self._stopping.is_set()

    def _call(self, generation: int, what: str, call: Callable[[], T]) -> T:
        """Run a call that may block, where the watchdog can see how long it takes."""
        with self._cond:
            self._busy = (generation, what, time.monotonic())
        try:
            return call()
        finally:
            with self._cond:
                if self._busy is not None and self._busy[0] == generation:
                    self._busy = None

    def _read_loop(self, generation: int, first_delay: float | None) -> None:
        delays = backoff_delays(*self._backoff)
        delay = first_delay
        stream: Stream | None = None
        origin: float | None = None  # monotonic time at which the file's position 0 plays
        served = 0  # frames from the current opening
        try:
            while self._current(generation):
                if stream is None:
                    if delay is not None:
                        with self._cond:
                            self._retry_delay = delay
                            self._reconnects += 1
                        if self._stopping.wait(delay):
                            return
                    try:
                        stream = self._call(generation, "open", self.source.open)
                    except Exception as exc:
                        if not self._failed(generation, exc):
                            return
                        delay = next(delays)
                        continue
                    if not self._current(generation):
                        return
                    origin, served = None, 0
                try:
                    item = self._call(generation, "read", stream.read)
                except Exception as exc:
                    item, error = None, exc
                else:
                    error = None
                if not self._current(generation):
                    return
                if item is None:
                    stream.close()
                    stream = None
                    if self.source.live or error is not None or served == 0:
                        reason = error or SourceError(self._no_frame())
                        if not self._failed(generation, reason):
                            return
                        delay = next(delays)
                    elif self.loop:
                        delay = None
                    else:
                        self._set_status(generation, "ended")
                        return
                    continue
                image, source_t = item
                served += 1
                if self.realtime and source_t is not None:
                    origin = self._pace(origin, source_t)
                    if origin is None:
                        return
                if self._publish(generation, image, source_t):
                    delays = backoff_delays(*self._backoff)
        except Exception as exc:  # a bug must not end the grabber: a live source starts over
            log.exception("frame grabber for %s", self.source.description)
            if self._failed(generation, exc):
                self._spawn_reader(generation, first_delay=self._backoff[0])
        finally:
            if stream is not None:
                stream.close()

    def _no_frame(self) -> str:
        what = "sent no frame" if self.source.live else "has no readable frame"
        return f"{self.source.description} {what}"

    def _pace(self, origin: float | None, source_t: float) -> float | None:
        """Wait until a file frame is due; return the (new) origin, or None when stopped."""
        now = time.monotonic()
        if origin is None or now - (origin + source_t) > MAX_LAG:
            origin = now - source_t  # start, or fell far behind: play on from here, no burst
        if self._stopping.wait(max(0.0, origin + source_t - now)):
            return None
        return origin

    def _failed(self, generation: int, exc: BaseException) -> bool:
        """Record a failure; return whether to retry (live sources) or give up (files)."""
        with self._cond:
            if not self._current(generation):
                return False
            self._record_failure(str(exc) or type(exc).__name__)
        return self.source.live

    def _record_failure(self, message: str) -> None:
        """Note the error and the status it leads to (the caller holds the lock)."""
        self._error = (message, time.time())
        self._status = "reconnecting" if self.source.live else "failed"
        self._cond.notify_all()
        log.warning("%s", message)

    def _set_status(self, generation: int, status: CameraStatus) -> None:
        with self._cond:
            if self._current(generation):
                self._status = status
                self._cond.notify_all()

    def _publish(self, generation: int, image: np.ndarray, source_t: float | None) -> bool:
        """Put a frame in the slot; return False when this reader was abandoned or stopped."""
        image.flags.writeable = False
        grabbed = time.monotonic()
        with self._cond:
            if not self.realtime:
                while not self._taken and self._current(generation):
                    self._cond.wait()
            if not self._current(generation):
                return False
            if not self._taken:
                self._dropped += 1
            self._seq += 1
            self._frame = Frame(image=image, seq=self._seq, t=grabbed, source_t=source_t)
            self._taken = False
            self._frames += 1
            self._grab_times.append(grabbed)
            self._size = (int(image.shape[1]), int(image.shape[0]))
            self._status = "live"
            self._retry_delay = None
            self._cond.notify_all()
        return True

    # --- watchdog ------------------------------------------------------------------------

    def _watch(self) -> None:
        interval = min(0.25, self._watchdog_s / 4)
        while not self._stopping.wait(interval):
            with self._cond:
                busy = self._busy
                if busy is None or busy[0] != self._generation or self._stopping.is_set():
                    continue
                if time.monotonic() - busy[2] < self._watchdog_s:
                    continue
                # Abandon the stuck reader: it closes its stream if the call ever returns.
                self._generation += 1
                self._busy = None
                generation = self._generation
                self._record_failure(
                    f"{self.source.description}: {busy[1]} did not return in {self._watchdog_s:g} s"
                )
            if self.source.live:
                self._spawn_reader(generation, first_delay=self._backoff[0])
