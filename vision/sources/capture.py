"""Sources read through `cv2.VideoCapture`: webcams, network streams and video files."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit, urlunsplit

import cv2
import numpy as np

from vision.sources.base import SourceError, SourceSettings

DEFAULT_FILE_FPS = 30.0
"""Frame rate assumed for a video file that does not say its own."""


class Capture(Protocol):
    """What templecam uses of `cv2.VideoCapture` (a test may stand in for webcam hardware)."""

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        """Return whether the capture opened."""
        ...

    def read(self) -> tuple[bool, np.ndarray | None]:
        """Grab and decode the next frame."""
        ...

    def set(self, prop: int, value: float) -> bool:
        """Set a property; False when the backend refuses it."""
        ...

    def get(self, prop: int) -> float:
        """Return a property's value (0 when unknown)."""
        ...

    def release(self) -> None:
        """Close the device or file."""
        ...


CaptureFactory = Callable[[int | str, int, Sequence[int]], Capture]
"""Opens a capture like `cv2.VideoCapture(target, api_preference, params)`."""


def hide_password(url: str) -> str:
    """Return `url` with any password replaced by ***, for messages and the dashboard."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


class CaptureStream:
    """One opened capture; a video file's frames also get their position in seconds."""

    def __init__(self, capture: Capture, file_fps: float | None = None) -> None:
        """Wrap an opened capture; `file_fps` is given for files only (live sources: None)."""
        self._capture: Capture | None = capture
        self._file_fps = file_fps
        self._index = 0
        self._last_t = -math.inf

    def read(self) -> tuple[np.ndarray, float | None] | None:
        """Return the next image and its file position (None live), or None when none came."""
        if self._capture is None:
            return None
        ok, image = self._capture.read()
        if not ok or image is None:
            return None
        source_t = None
        if self._file_fps is not None:
            source_t = self._capture.get(cv2.CAP_PROP_POS_MSEC) / 1000.0
            if not source_t > self._last_t:  # a container without timestamps
                source_t = self._index / self._file_fps
            self._last_t = source_t
        self._index += 1
        return image, source_t

    def close(self) -> None:
        """Release the capture; safe to call twice."""
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class CameraSource:
    """A webcam (index or device path) or a network stream URL (RTSP/HTTP): a live source."""

    live = True

    def __init__(
        self,
        target: int | str,
        settings: SourceSettings,
        capture_factory: CaptureFactory = cv2.VideoCapture,
    ) -> None:
        """Describe the camera; nothing is opened until `open()`."""
        self.target = target
        self.settings = settings
        self._factory = capture_factory
        self.is_url = isinstance(target, str) and "://" in target
        if self.is_url:
            self.description = f"stream {hide_password(str(target))}"
        else:
            self.description = f"camera {target}"

    def open(self) -> CaptureStream:
        """Open the camera or stream; raise SourceError when it does not open."""
        if self.is_url:
            capture = self._factory(self.target, cv2.CAP_FFMPEG, self._timeouts())
        else:
            capture = self._open_webcam()
        if not capture.isOpened():
            capture.release()
            raise SourceError(self._open_failure())
        return CaptureStream(capture)

    def _timeouts(self) -> list[int]:
        return [
            cv2.CAP_PROP_OPEN_TIMEOUT_MSEC,
            round(self.settings.open_timeout * 1000),
            cv2.CAP_PROP_READ_TIMEOUT_MSEC,
            round(self.settings.read_timeout * 1000),
        ]

    def _open_webcam(self) -> Capture:
        capture = self._factory(self.target, cv2.CAP_ANY, self._timeouts())
        if not capture.isOpened():
            capture.release()
            # A backend refuses to open when given parameters it does not know, and only some
            # (FFmpeg, GStreamer) know the timeouts: try once more without them.
            capture = self._factory(self.target, cv2.CAP_ANY, [])
        if capture.isOpened():
            self._request_mode(capture)
        return capture

    def _request_mode(self, capture: Capture) -> None:
        s = self.settings
        # The format must come before the size: V4L2 picks the size among the modes of the
        # current format, and a camera left in raw YUYV offers 1080p at a few fps at best.
        capture.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*s.fourcc))
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, s.width)
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, s.height)
        capture.set(cv2.CAP_PROP_FPS, s.fps)

    def _open_failure(self) -> str:
        if self.is_url:
            return (
                f"could not open the {self.description}: check the address, that the camera "
                "app is streaming and that this computer can reach it (same network)"
            )
        return (
            f"{self.description} did not open: check that it is plugged in and not in use by "
            "another program, or choose another camera (0, 1, 2 or a /dev/video device)"
        )


class VideoFileSource:
    """A recorded video file, read from the start at each `open()`."""

    live = False

    def __init__(self, path: Path, capture_factory: CaptureFactory = cv2.VideoCapture) -> None:
        """Describe the file; nothing is opened until `open()`."""
        self.path = path
        self.description = f"video {path}"
        self._factory = capture_factory

    def open(self) -> CaptureStream:
        """Open the file; raise SourceError when OpenCV cannot read it as a video."""
        if not self.path.is_file():
            raise SourceError(f"no video file at {self.path}: check the path")
        capture = self._factory(str(self.path), cv2.CAP_ANY, [])
        if not capture.isOpened():
            capture.release()
            raise SourceError(unreadable_video(self.path))
        fps = capture.get(cv2.CAP_PROP_FPS)
        if not 0 < fps < 1000:
            fps = DEFAULT_FILE_FPS
        return CaptureStream(capture, file_fps=fps)


def unreadable_video(path: Path) -> str:
    """Return the message for a video file OpenCV cannot decode."""
    return (
        f"{path} cannot be read as a video: it is damaged, cut short or in a format OpenCV "
        "cannot decode; record it again or convert it (for example to MP4 with H.264)"
    )
