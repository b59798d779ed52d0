"""What every frame source shares: the `Frame` value, `SourceError`, settings and protocols."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np


class SourceError(Exception):
    """A frame source cannot be opened or read; the message says why and what to do."""


@dataclass(frozen=True, eq=False)
class Frame:
    """One grabbed image with its number, when it was grabbed and where it sits in its file."""

    image: np.ndarray
    """BGR uint8 pixels (H, W, 3), read-only because consumers share it: copy before drawing."""
    seq: int
    """1, 2, 3, ... in grab order (per grabber or `read_all`); a gap means frames were dropped."""
    t: float
    """`time.monotonic()` when the frame was grabbed."""
    source_t: float | None = None
    """Position in the video file or image folder in seconds; None for cameras and streams."""

    @property
    def size(self) -> tuple[int, int]:
        """Return (width, height) in pixels."""
        return int(self.image.shape[1]), int(self.image.shape[0])


@dataclass(frozen=True)
class SourceSettings:
    """How sources are opened: the webcam mode asked for, timeouts, an image folder's rate."""

    width: int = 1920
    """Webcam frame width requested (the camera may choose the nearest mode it has)."""
    height: int = 1080
    """Webcam frame height requested."""
    fps: float = 30.0
    """Webcams: the frame rate requested. Image folders: the rate their images play at."""
    fourcc: str = "MJPG"
    """Webcam pixel format requested (MJPG: USB 2 carries raw 1080p at only about 5 fps)."""
    open_timeout: float = 10.0
    """Seconds an open may take, where the OpenCV backend supports it (FFmpeg: URLs)."""
    read_timeout: float = 5.0
    """Seconds a read may take, where the OpenCV backend supports it (FFmpeg: URLs)."""

    def __post_init__(self) -> None:
        """Refuse settings no camera can honour, saying which value is wrong."""
        if self.width <= 0 or self.height <= 0:
            raise SourceError(
                f"camera size must be positive, got {self.width}x{self.height}: try 1920x1080"
            )
        if not self.fps > 0:
            raise SourceError(f"frame rate must be positive, got {self.fps}: try 30")
        if len(self.fourcc) != 4:
            raise SourceError(f"pixel format must be 4 characters, got {self.fourcc!r}: try MJPG")
        if not (self.open_timeout > 0 and self.read_timeout > 0):
            raise SourceError("open and read timeouts must be positive seconds")


class Stream(Protocol):
    """One opening of a source: frames in order until it ends, then `close()`."""

    def read(self) -> tuple[np.ndarray, float | None] | None:
        """Return the next BGR image and its position in seconds (None live), or None at the end.

        Raises SourceError when the source fails in a way it can say more about.
        """
        ...

    def close(self) -> None:
        """Release the camera or file; safe to call twice."""
        ...


class FrameSource(Protocol):
    """Where frames come from: a webcam, a stream URL, a video file or an image folder."""

    description: str
    """What the user chose, for messages and the dashboard (passwords in URLs hidden)."""
    live: bool
    """True for cameras and streams: they never end, and a failure is retried."""

    def open(self) -> Stream:
        """Open a new stream from the start; raise SourceError saying why it cannot."""
        ...
