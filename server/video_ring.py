"""The video ring: a bounded ring of each game's camera video, kept beside its record.

Frames offered while a game's clock runs are scaled down, written with OpenCV's VideoWriter
(VP8 in WebM, which browsers play) into short segments under `<data>/video/<game id>/`; each
closed segment is listed in that folder's `index.json` with the game-clock time of every frame,
so the story page can seek to any moment. The oldest segments are deleted to stay under the
game's cap (the setting, off by default), and nothing more is kept while the disk is nearly full.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from base.files import write_atomically
from server.store import GAME_ID_PATTERN

log = logging.getLogger(__name__)

SETTINGS_FILE = "video-ring.json"
INDEX_FILE = "index.json"
MAX_MEGABYTES = 20_000
"""The largest ring a game may keep (20 GB)."""
MIN_FREE_BYTES = 1_000_000_000
"""Nothing more is kept while the data folder's disk has less than this free."""
FOURCC = "VP80"
SUFFIX = ".webm"
IDLE_CLOSE_SECONDS = 2.0
"""A segment is closed (and playable) when no frame came for this long (the clock stopped)."""
DISK_FULL_NOTICE = (
    "The disk is nearly full: the camera video of this game is no longer kept "
    "(the game itself is still saved). Free some space or lower the video ring's size"
)


class RingSettingError(ValueError):
    """A video ring setting out of range; the message says what is allowed."""


@dataclass(frozen=True)
class RingSettings:
    """How much camera video a game keeps: `megabytes` 0 is off (the default)."""

    megabytes: int = 0
    fps: float = 4.0
    width: int = 640
    segment_seconds: float = 10.0

    def __post_init__(self) -> None:
        if not isinstance(self.megabytes, int) or not 0 <= self.megabytes <= MAX_MEGABYTES:
            raise RingSettingError(
                f"the video ring's size must be a whole number of megabytes from 0 (off) to "
                f"{MAX_MEGABYTES}"
            )
        if not 0.5 <= float(self.fps) <= 30:
            raise RingSettingError("the video ring keeps from 0.5 to 30 frames a second")
        if not 64 <= int(self.width) <= 1920:
            raise RingSettingError("the video ring's width must be from 64 to 1920 pixels")
        if not 1 <= float(self.segment_seconds) <= 600:
            raise RingSettingError("a video ring segment lasts from 1 to 600 seconds")

    @property
    def cap_bytes(self) -> int:
        """The most bytes one game's ring keeps."""
        return self.megabytes * 1_000_000


@dataclass
class _Open:
    """The segment being written."""

    game_id: str
    path: Path
    writer: Any
    size: tuple[int, int]
    times: list[float]
    last_frame: float


class VideoRing:
    """Keeps each game's ring of camera video; `offer` is cheap and never blocks the caller."""

    def __init__(
        self,
        data_dir: Path,
        notify: Callable[[str], None] | None = None,
        min_free_bytes: int = MIN_FREE_BYTES,
    ) -> None:
        self.root = data_dir / "video"
        self._settings_path = data_dir / SETTINGS_FILE
        self.settings = self._load_settings()
        self.notice: str | None = None
        self._notify = notify
        self._min_free = min_free_bytes
        self._queue: queue.Queue[tuple[str, float, np.ndarray] | None] = queue.Queue(maxsize=8)
        self._lock = threading.Lock()
        self._open: _Open | None = None
        self._last_offer = -1e9
        self._thread: threading.Thread | None = None
        self._closing = False

    # ----- settings -----------------------------------------------------------------------

    def _load_settings(self) -> RingSettings:
        try:
            data = json.loads(self._settings_path.read_text(encoding="utf-8"))
            return RingSettings(**{k: data[k] for k in asdict(RingSettings()) if k in data})
        except (OSError, ValueError, TypeError):
            return RingSettings()

    def configure(self, megabytes: int) -> RingSettings:
        """Set the ring's size per game (0: off), saved for the next start; raises
        `RingSettingError` for a size out of range."""
        settings = RingSettings(**{**asdict(self.settings), "megabytes": megabytes})
        self._settings_path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(self._settings_path, json.dumps(asdict(settings)))
        self.settings = settings
        self.notice = None  # a new size tries again (the disk may have room now)
        if settings.megabytes == 0:
            self._queue_put(None)
        return settings

    # ----- taking frames --------------------------------------------------------------------

    def offer_from(self, session: Any, image: np.ndarray) -> None:
        """Offer the camera's frame for the session's running game (the vision thread's hook)."""
        clock = getattr(session, "clock", None)
        if clock is None or getattr(clock, "status", None) != "running":
            return
        game_id = session.game_id
        if game_id is not None:
            self.offer(game_id, float(clock.t), image)

    def offer(self, game_id: str, t: float, image: np.ndarray) -> None:
        """Keep this frame of game `game_id` at game-clock time `t`, if the ring is on, it is
        time for a frame, the disk has room and the writer keeps up (else it is dropped)."""
        if self.settings.megabytes == 0 or t < 0 or self.notice is not None:
            return
        if abs(t - self._last_offer) < 1.0 / self.settings.fps:
            return
        self._last_offer = t
        self._start_writer()
        self._queue_put((game_id, t, image))

    def _queue_put(self, item: tuple[str, float, np.ndarray] | None) -> None:
        with contextlib.suppress(queue.Full):  # the writer is behind: this frame is not kept
            self._queue.put_nowait(item)

    def _start_writer(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(
                target=self._write_forever, name="video-ring", daemon=True
            )
            self._thread.start()

    def _write_forever(self) -> None:
        while True:
            try:
                item = self._queue.get(timeout=IDLE_CLOSE_SECONDS)
            except queue.Empty:
                with self._lock:
                    self._close_segment()
                continue
            try:
                self._handle(item)
            finally:
                self._queue.task_done()
            if item is None and self._closing:
                return

    def _handle(self, item: tuple[str, float, np.ndarray] | None) -> None:
        """Write one offered frame, or close the open segment (None)."""
        with self._lock:
            if item is None:
                self._close_segment()
                return
            try:
                self._write(*item)
            except Exception:  # a frame that cannot be written never stops the game
                log.exception("video ring: a frame could not be kept")

    def drain(self, timeout: float = 10.0) -> None:
        """Wait until every frame offered so far is written (or dropped)."""
        deadline = time.monotonic() + timeout
        while self._queue.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.01)

    def flush(self, timeout: float = 10.0) -> None:
        """Write every frame offered so far and close the open segment (its video playable)."""
        self.drain(timeout)
        with self._lock:
            self._close_segment()

    def close(self) -> None:
        """Stop the writer, closing the open segment."""
        self._closing = True
        if self._thread is not None and self._thread.is_alive():
            with contextlib.suppress(queue.Full):
                self._queue.put(None, timeout=2)
            self._thread.join(timeout=10)
        with self._lock:
            self._close_segment()

    def _write(self, game_id: str, t: float, image: np.ndarray) -> None:
        import cv2

        if shutil.disk_usage(self.root.parent if not self.root.exists() else self.root).free < (
            self._min_free
        ):
            self._close_segment()
            self._say(DISK_FULL_NOTICE)
            return
        settings = self.settings
        current = self._open
        if current is not None and (
            current.game_id != game_id
            or t < current.times[-1]
            or t - current.times[0] >= settings.segment_seconds
            or current.path.stat().st_size * 4 >= settings.cap_bytes
        ):
            self._close_segment()
            current = None
        height, width = image.shape[:2]
        scale = min(1.0, settings.width / width)
        size = (max(2, int(width * scale) // 2 * 2), max(2, int(height * scale) // 2 * 2))
        if current is None:
            folder = self.folder(game_id)
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"segment-{int(time.time() * 1000)}-{t:09.2f}{SUFFIX}"
            writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*FOURCC), settings.fps, size)
            if not writer.isOpened():
                self._say("The camera video cannot be kept: OpenCV cannot write WebM video here")
                return
            current = self._open = _Open(game_id, path, writer, size, [], time.monotonic())
        frame = image if image.shape[1::-1] == current.size else cv2.resize(image, current.size)
        if frame.ndim == 2:
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        current.writer.write(np.ascontiguousarray(frame))
        current.times.append(round(t, 3))
        current.last_frame = time.monotonic()
        self._keep_under_cap(game_id)

    def _close_segment(self) -> None:
        current, self._open = self._open, None
        if current is None:
            return
        current.writer.release()
        if not current.times or not current.path.exists():
            current.path.unlink(missing_ok=True)
            return
        index = self._index(current.game_id)
        index.append(
            {
                "file": current.path.name,
                "start": current.times[0],
                "end": current.times[-1],
                "fps": self.settings.fps,
                "times": current.times,
                "bytes": current.path.stat().st_size,
            }
        )
        self._save_index(current.game_id, index)
        self._keep_under_cap(current.game_id)

    def _keep_under_cap(self, game_id: str) -> None:
        """Delete the game's oldest segments until its ring is under the cap."""
        cap = self.settings.cap_bytes
        index = self._index(game_id)
        open_bytes = 0
        if self._open is not None and self._open.game_id == game_id and self._open.path.exists():
            open_bytes = self._open.path.stat().st_size
        changed = False
        while index and sum(s["bytes"] for s in index) + open_bytes > cap:
            oldest = index.pop(0)
            (self.folder(game_id) / oldest["file"]).unlink(missing_ok=True)
            changed = True
        if changed:
            self._save_index(game_id, index)

    def _say(self, message: str) -> None:
        if self.notice == message:
            return
        self.notice = message
        log.warning("video ring: %s", message)
        if self._notify is not None:
            self._notify(message)

    # ----- reading and deleting ---------------------------------------------------------------

    def folder(self, game_id: str) -> Path:
        """The folder of a game's video (for an id the store could have made)."""
        if not GAME_ID_PATTERN.match(game_id):
            raise ValueError(f"{game_id!r} is not a game id")
        return self.root / game_id

    def _index(self, game_id: str) -> list[dict[str, Any]]:
        try:
            data = json.loads((self.folder(game_id) / INDEX_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        return data if isinstance(data, list) else []

    def _save_index(self, game_id: str, index: list[dict[str, Any]]) -> None:
        write_atomically(self.folder(game_id) / INDEX_FILE, json.dumps(index))

    def segments(self, game_id: str) -> list[dict[str, Any]]:
        """The game's closed segments, oldest first, each with the game-clock time of every
        frame (only those whose file is still there)."""
        folder = self.folder(game_id)
        return [s for s in self._index(game_id) if (folder / str(s.get("file"))).is_file()]

    def segment_path(self, game_id: str, name: str) -> Path | None:
        """The file of one listed segment of the game, or None when there is no such segment."""
        for segment in self.segments(game_id):
            if segment["file"] == name:
                return self.folder(game_id) / name
        return None

    def size_bytes(self, game_id: str) -> int:
        """Bytes the game's video takes on disk."""
        total = 0
        try:
            paths = list(self.folder(game_id).iterdir())
        except FileNotFoundError:
            return 0
        for path in paths:
            with contextlib.suppress(FileNotFoundError):  # the writer may drop it meanwhile
                total += path.stat().st_size
        return total

    def describe(self, game_id: str) -> dict[str, Any]:
        """The game's video for the story page: its segments, size, the cap and any notice."""
        return {
            "on": self.settings.megabytes > 0,
            "cap_bytes": self.settings.cap_bytes,
            "megabytes": self.settings.megabytes,
            "bytes": self.size_bytes(game_id),
            "segments": self.segments(game_id),
            "notice": self.notice,
        }

    def delete(self, game_id: str) -> None:
        """Delete all of the game's video (with the game)."""
        with self._lock:
            if self._open is not None and self._open.game_id == game_id:
                self._open.writer.release()
                self._open = None
            shutil.rmtree(self.folder(game_id), ignore_errors=True)
