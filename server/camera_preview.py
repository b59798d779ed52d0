"""A look at a source before it is used: its own grabber, closed when nobody watches it.

The set-up page's camera panel opens one source at a time here and polls its state and newest
frame; the running vision service is not touched. Previewing the source already in use shows the
service's own frames (a webcam cannot be opened twice). A live source being previewed is handed
to the service when it is chosen, so a webcam is never held by both.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import cv2

from server.camera_choice import ChosenSource
from vision.sources.base import SourceError
from vision.sources.grabber import Grabber
from vision.sources.open import open_source

log = logging.getLogger(__name__)

IDLE_SECONDS = 15.0
"""A preview nobody asked about for this long is closed (the page was closed or went away)."""
PREVIEW_WIDTH = 640
"""Preview frames are scaled down to at most this width."""


class Preview:
    """At most one source being looked at; see the module's docstring."""

    def __init__(self) -> None:
        """Start with nothing open; a reaper thread closes an abandoned preview."""
        self._lock = threading.Lock()
        self._grabber: Grabber | None = None
        self._owned = False
        self.chosen: ChosenSource | None = None
        self.error: str | None = None
        self._seen = 0.0
        self._closed = threading.Event()
        threading.Thread(target=self._reap, name="templecam-preview", daemon=True).start()

    def open(self, chosen: ChosenSource, shared: Grabber | None = None) -> None:
        """Preview `chosen` (the previous preview closes); `shared`: the service's own grabber
        for the source already in use, shown but never stopped here."""
        self.close()
        grabber, error = shared, None
        if grabber is None:
            try:
                source = open_source(chosen.spec, check=False)
                grabber = Grabber(source, loop=not source.live).start()
            except SourceError as failure:
                error = str(failure)
        with self._lock:
            self.chosen, self._grabber, self._owned = chosen, grabber, shared is None
            self.error = error
            self._seen = time.monotonic()

    def take(self, chosen: ChosenSource) -> Grabber | None:
        """Hand over the preview's grabber when it is `chosen`, live and giving frames."""
        with self._lock:
            grabber = self._grabber
            if (
                grabber is None
                or not self._owned
                or self.chosen is None
                or self.chosen.spec != chosen.spec
                or not grabber.source.live
                or grabber.state().status != "live"
            ):
                return None
            self._grabber, self.chosen, self._owned = None, None, False
            return grabber

    def close(self) -> None:
        """Stop previewing (a shared grabber is left running)."""
        with self._lock:
            grabber, owned = self._grabber, self._owned
            self._grabber, self.chosen, self.error, self._owned = None, None, None, False
        if grabber is not None and owned:
            grabber.stop(timeout=0.5)

    def shutdown(self) -> None:
        """Close the preview and end the reaper."""
        self._closed.set()
        self.close()

    def state(self) -> dict[str, Any]:
        """Return what the page shows: the source, its status, size, frame rate and any error."""
        with self._lock:
            self._seen = time.monotonic()
            chosen, grabber, error = self.chosen, self._grabber, self.error
        if chosen is None:
            return {"open": False}
        data: dict[str, Any] = {"open": True, "source": chosen.to_json(), "error": error}
        if grabber is None:
            data.update(status="failed", width=None, height=None, fps=0.0, frames=0)
            return data
        state = grabber.state()
        data.update(
            status=state.status,
            width=state.width,
            height=state.height,
            fps=round(state.fps, 1),
            frames=state.frames,
            in_use=not self._owned,
        )
        if state.status in ("reconnecting", "failed") and state.last_error:
            data["error"] = state.last_error
        return data

    def jpeg(self) -> bytes | None:
        """Return the newest preview frame as a JPEG, scaled down, or None when there is none."""
        with self._lock:
            self._seen = time.monotonic()
            grabber = self._grabber
        if grabber is None:
            return None
        frame = grabber.latest(timeout=0.0)
        if frame is None:
            return None
        image = frame.image
        if image.shape[1] > PREVIEW_WIDTH:
            scale = PREVIEW_WIDTH / image.shape[1]
            size = (PREVIEW_WIDTH, max(1, round(image.shape[0] * scale)))
            image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return data.tobytes() if ok else None

    def _reap(self) -> None:
        while not self._closed.wait(1.0):
            with self._lock:
                idle = self._grabber is not None and time.monotonic() - self._seen > IDLE_SECONDS
            if idle:
                log.info("closing the camera preview: nobody watches it")
                self.close()
