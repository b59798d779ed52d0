"""Save frames of a camera, stream, video file or image folder as numbered JPEG files.

    source = capture_source("0", every=1.0)           # None: the first working webcam
    result = capture_frames(source, Path("shots"), every=1.0, frames=10, on_saved=print)

A live source (webcam, stream) is read without pause and the newest frame is saved every
`every` seconds of wall time. A video file is read as fast as it decodes and a frame is saved
every `every` seconds of *video* time; an image folder gives each of its images in turn. Files
are named 0001.jpg, 0002.jpg, ...: a folder that already holds some is added to, numbering on
after the highest, and no file is ever overwritten. Each file is written beside its final name
and linked into place, so a reader (or a crash) never sees half a JPEG.
"""

from __future__ import annotations

import errno
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.sources.base import FrameSource, SourceError, SourceSettings
from vision.sources.capture import CaptureFactory
from vision.sources.folder import FolderSource
from vision.sources.open import find_webcam, open_source

__all__ = [
    "JPEG_QUALITY",
    "WARMUP_S",
    "CaptureError",
    "CaptureResult",
    "Saved",
    "capture_frames",
    "capture_source",
    "next_number",
]

JPEG_QUALITY = 95
"""JPEG quality of saved frames (0-100): high, since they are for training and labelling."""
WARMUP_S = 0.5
"""Seconds of a webcam's first frames that are skipped (exposure and focus still settling)."""
_NUMBERED = re.compile(r"^(\d+)\.jpe?g$", re.IGNORECASE)


class CaptureError(Exception):
    """Frames cannot be captured or saved; the message says why and what to do."""


@dataclass(frozen=True)
class Saved:
    """One frame written to disk."""

    path: Path
    """The JPEG file."""
    count: int
    """1 for the first frame of this capture, 2 for the next, ..."""
    width: int
    """Frame width in pixels."""
    height: int
    """Frame height in pixels."""


@dataclass
class CaptureResult:
    """What a capture did: the files it wrote and, when it stopped early, why."""

    saved: list[Path] = field(default_factory=list)
    """The JPEG files written, in order."""
    ended: str | None = None
    """Why a file or folder gave fewer frames than asked for (its end); None otherwise."""


def next_number(out: Path) -> int:
    """Return the number the next frame in `out` gets: one past the highest NNNN.jpg there."""
    if not out.is_dir():
        return 1
    numbers = [int(m.group(1)) for p in out.iterdir() if (m := _NUMBERED.match(p.name))]
    return max(numbers, default=0) + 1


def capture_source(
    spec: str | None,
    every: float,
    *,
    capture_factory: CaptureFactory | None = None,
) -> FrameSource:
    """Open what `spec` names (None: the first working webcam); raise CaptureError if it can't.

    An image folder plays one image per `every` seconds, so each of its images is one frame.
    """
    factory = capture_factory or cv2.VideoCapture
    if spec is None or not spec.strip():
        index = find_webcam(capture_factory=factory)
        if index is None:
            raise CaptureError(
                "no webcam found (tried cameras 0, 1 and 2): plug one in, or give --source "
                "(a camera number, a /dev/video device, a stream URL, a video file or an image "
                "folder)"
            )
        spec = str(index)
    try:
        source = open_source(spec, settings=SourceSettings(), capture_factory=factory)
    except SourceError as error:
        raise CaptureError(str(error)) from None
    if isinstance(source, FolderSource):
        source = FolderSource(source.path, 1.0 / every)
    return source


def capture_frames(
    source: FrameSource,
    out: Path,
    *,
    every: float = 1.0,
    frames: int = 10,
    on_saved: Callable[[Saved], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
    warmup: float | None = None,
) -> CaptureResult:
    """Save `frames` frames of `source` (0: until it ends or Ctrl-C) into `out`, `every` s apart.

    `warmup` seconds of a live source's first frames are skipped (default: WARMUP_S).
    Raises CaptureError when a live source stops sending frames or the disk cannot take the
    next file; what was saved before stays saved (the message says how many and where).
    """
    if not every > 0:
        raise CaptureError(f"every {every} s: give a positive number of seconds")
    if frames < 0:
        raise CaptureError(f"{frames} frames: give 1 or more (or 0 for no limit)")
    _prepare(out)
    result = CaptureResult()
    try:
        stream = source.open()
    except SourceError as error:
        raise CaptureError(str(error)) from None
    try:
        start: float | None = None
        due = 0.0
        while frames == 0 or len(result.saved) < frames:
            try:
                item = stream.read()
            except SourceError as error:
                raise CaptureError(_stopped(source, result, out, str(error))) from None
            if item is None:
                if source.live:
                    raise CaptureError(_stopped(source, result, out, "it sent no more frames"))
                result.ended = f"{source.description} ended after {len(result.saved)} frames"
                break
            image, source_t = item
            now = source_t if source_t is not None and not source.live else clock()
            if start is None:
                settle = WARMUP_S if warmup is None else warmup
                start = now + (settle if source.live else 0.0)
                due = start
            if now < due - 1e-3:
                continue
            path = _save(image, out, result, source)
            result.saved.append(path)
            if on_saved is not None:
                height, width = image.shape[:2]
                on_saved(Saved(path, len(result.saved), int(width), int(height)))
            due += every
            if due <= now:  # fell behind (a slow disk, a gap in the video): no burst
                due = now + every
    finally:
        stream.close()
    return result


def _prepare(out: Path) -> None:
    """Make sure `out` is a folder that can be written to."""
    if out.exists() and not out.is_dir():
        raise CaptureError(f"{out} is a file: give a folder for the frames")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CaptureError(f"cannot create the folder {out}: {error.strerror or error}") from None


def _stopped(source: FrameSource, result: CaptureResult, out: Path, why: str) -> str:
    """Return the message for a live source that stopped mid-capture."""
    kept = _kept(result, out)
    return (
        f"{source.description} stopped: {why}. {kept} Check the cable or the stream, then run "
        "the same command again to add more."
    )


def _kept(result: CaptureResult, out: Path) -> str:
    """Say how many frames were saved before a failure, and where."""
    count = len(result.saved)
    if count == 0:
        return "No frame was saved."
    noun = "frame was" if count == 1 else "frames were"
    return f"The {count} {noun} saved in {out} (up to {result.saved[-1].name}) and are kept."


def _save(image: np.ndarray, out: Path, result: CaptureResult, source: FrameSource) -> Path:
    """Encode `image` as JPEG and write it under the next free number in `out`."""
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise CaptureError(f"cannot encode a frame of {source.description} as JPEG")
    try:
        return _write_new(out, encoded.tobytes())
    except OSError as error:
        if error.errno in (errno.ENOSPC, errno.EDQUOT):
            raise CaptureError(
                f"the disk is full: no room for another frame in {out}. {_kept(result, out)} "
                "Free some space (or choose another --out) and run the command again."
            ) from None
        raise CaptureError(
            f"cannot write a frame to {out}: {error.strerror or error}. {_kept(result, out)}"
        ) from None


def _write_new(out: Path, data: bytes) -> Path:
    """Write `data` as the next NNNN.jpg in `out`, whole or not at all, never over a file."""
    temporary = out / f".capture.{os.getpid()}.tmp"
    try:
        _write_bytes(temporary, data)
        number = next_number(out)
        while True:
            path = out / f"{number:04d}.jpg"
            try:
                os.link(temporary, path)  # fails if the name was taken meanwhile
                return path
            except FileExistsError:
                number += 1
            except OSError as error:
                if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
                    raise
                if path.exists():  # a file system without hard links
                    number += 1
                    continue
                os.replace(temporary, path)
                return path
    finally:
        temporary.unlink(missing_ok=True)


def _write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` and flush it to the disk."""
    with path.open("wb") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())
