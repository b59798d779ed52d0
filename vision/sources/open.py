"""Frame sources: open a camera, stream, video file or image folder from one spec string.

    source = open_source("0")                 # webcam 0 (or "/dev/video2")
    source = open_source("rtsp://phone:8554/live")
    source = open_source("game.mp4")          # or a folder of images
    with Grabber(source, loop=True) as grabber:
        frame = grabber.latest(timeout=5)     # the newest Frame
        grabber.state().to_json()             # status, fps, drops, reconnects, last error

`Grabber` and `CameraState` live in `vision.sources.grabber`, `Frame` and `SourceError` in
`vision.sources.base`.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

import cv2

from vision.sources.base import Frame, FrameSource, SourceError, SourceSettings
from vision.sources.capture import CameraSource, CaptureFactory, VideoFileSource, unreadable_video
from vision.sources.folder import IMAGE_SUFFIXES, FolderSource

__all__ = [
    "DEMO_NOTE",
    "SourceChoice",
    "default_source",
    "find_webcam",
    "open_source",
    "read_all",
]

STREAM_SCHEMES = ("rtsp", "rtsps", "rtmp", "http", "https", "udp", "tcp", "srt")
"""URL schemes opened as network streams (through OpenCV's FFmpeg backend)."""

DEMO_NOTE = (
    "No camera found: playing the demo recording. Plug a webcam in and choose it on the set-up "
    "page (Camera), or start with `templecam serve --camera SOURCE`."
)
"""What the dashboard shows when `default_source` falls back to the demo recording."""


def open_source(
    spec: str,
    *,
    settings: SourceSettings | None = None,
    check: bool = True,
    capture_factory: CaptureFactory = cv2.VideoCapture,
) -> FrameSource:
    """Return the source `spec` names: a webcam, a stream URL, a video file or an image folder.

    spec: "0" (webcam index), "/dev/video2" (device), "rtsp://..." or "http://..." (stream),
    a video file, an image folder or one image. `check` opens it once to make sure it works
    (a file must yield a frame); without it, a missing camera is simply retried by a Grabber.
    Raises SourceError with what was wrong and what to do.
    """
    settings = settings or SourceSettings()
    source = _source_for(spec.strip(), settings, capture_factory, check)
    if check:
        stream = source.open()
        try:
            if not source.live and stream.read() is None:
                raise SourceError(_no_frames(source))
        finally:
            stream.close()
    return source


def _source_for(
    spec: str, settings: SourceSettings, factory: CaptureFactory, check: bool
) -> FrameSource:
    if not spec:
        raise SourceError(
            "no source given: name a camera (0), a stream URL, a video file or an image folder"
        )
    if re.fullmatch(r"\d+", spec):
        return CameraSource(int(spec), settings, factory)
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", spec)
    if scheme:
        if scheme.group(1).lower() not in STREAM_SCHEMES:
            raise SourceError(
                f"cannot open {scheme.group(1)}:// addresses: use rtsp://, http:// or https:// "
                "(or a camera number, a video file or an image folder)"
            )
        return CameraSource(spec, settings, factory)
    if spec.startswith("/dev/"):
        if check and not Path(spec).exists():
            raise SourceError(
                f"no camera device {spec}: check that the camera is plugged in "
                "(ls /dev/video* lists the devices)"
            )
        return CameraSource(spec, settings, factory)
    path = Path(spec).expanduser()
    if path.is_dir() or path.suffix.lower() in IMAGE_SUFFIXES:
        return FolderSource(path, settings.fps)
    if check and not path.exists():
        raise SourceError(
            f"no video file or image folder at {path}: check the path (a webcam is given by "
            "its number, like 0, or its device, like /dev/video0)"
        )
    return VideoFileSource(path, factory)


def _no_frames(source: FrameSource) -> str:
    if isinstance(source, VideoFileSource):
        return unreadable_video(source.path)
    return f"{source.description} has no readable image: check the files"


def read_all(source: FrameSource) -> Iterator[Frame]:
    """Yield every frame of `source` in order, on the caller's thread (tests, benchmarks).

    A file or folder ends at its last frame; a live source runs until it fails (SourceError).
    """
    stream = source.open()
    try:
        seq = 0
        while (item := stream.read()) is not None:
            image, source_t = item
            image.flags.writeable = False
            seq += 1
            yield Frame(image=image, seq=seq, t=time.monotonic(), source_t=source_t)
        if source.live:
            raise SourceError(f"{source.description} sent no frame")
    finally:
        stream.close()


class SourceChoice(NamedTuple):
    """The source to start with and, when it is the demo recording, the note to show."""

    spec: str
    """What to pass to `open_source`."""
    note: str | None
    """DEMO_NOTE when this is the demo recording, else None."""

    @property
    def demo(self) -> bool:
        """Whether this is the demo recording (play it with `Grabber(..., loop=True)`)."""
        return self.note is not None


def default_source(
    preferred: str | None,
    demo_path: Path,
    *,
    camera_indexes: Iterable[int] = range(3),
    capture_factory: CaptureFactory = cv2.VideoCapture,
) -> SourceChoice:
    """Return `preferred` if given, else the first working webcam, else the demo recording.

    Unpacks as ``spec, note = default_source(...)``; `note` (DEMO_NOTE) is set only for the demo.
    """
    if preferred and preferred.strip():
        return SourceChoice(preferred.strip(), None)
    index = find_webcam(camera_indexes, capture_factory)
    if index is not None:
        return SourceChoice(str(index), None)
    return SourceChoice(str(demo_path), DEMO_NOTE)


def find_webcam(
    indexes: Iterable[int] = range(3), capture_factory: CaptureFactory = cv2.VideoCapture
) -> int | None:
    """Return the first webcam index that opens and gives a frame, or None."""
    with _quiet_opencv():
        for index in indexes:
            capture = capture_factory(index, cv2.CAP_ANY, [])
            try:
                if capture.isOpened() and capture.read()[0]:
                    return index
            finally:
                capture.release()
    return None


@contextlib.contextmanager
def _quiet_opencv() -> Iterator[None]:
    """Silence OpenCV's warnings while probing cameras that are expected to be missing."""
    logging = cv2.utils.logging
    level = logging.getLogLevel()
    logging.setLogLevel(logging.LOG_LEVEL_SILENT)
    try:
        yield
    finally:
        logging.setLogLevel(level)
