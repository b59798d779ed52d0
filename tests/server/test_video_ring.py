"""The video ring (server/video_ring.py) writing real OpenCV video: off by default, under its cap,
playable segments that know the game time of every frame, a full disk, deletion."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from server.video_ring import DISK_FULL_NOTICE, RingSettingError, VideoRing

GAME = "20260102-030405-beef"
OTHER = "20260102-030406-cafe"


def table_frame(
    t: float, rng: np.random.Generator, size: tuple[int, int] = (360, 640)
) -> np.ndarray:
    """A camera frame whose green level tells the second it was taken, with a patch of noise
    (dice and hands moving: what makes a video heavy)."""
    image = np.zeros((*size, 3), dtype=np.uint8)
    image[:, :, 1] = min(250, 20 * int(t))
    image[100:260, 200:360] = rng.integers(0, 255, (160, 160, 3), dtype=np.uint8)
    return image


def offer_seconds(ring: VideoRing, game: str, seconds: float, fps: float = 4.0) -> None:
    rng = np.random.default_rng(5)
    for k in range(int(seconds * fps)):
        t = k / fps
        ring.offer(game, t, table_frame(t, rng))
        ring.drain()
    ring.flush()


def frames_in(path: Path) -> list[np.ndarray]:
    capture = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, image = capture.read()
        if not ok:
            break
        frames.append(image)
    capture.release()
    return frames


def test_the_ring_is_off_by_default_and_keeps_nothing(tmp_path: Path) -> None:
    ring = VideoRing(tmp_path, min_free_bytes=0)
    assert ring.settings.megabytes == 0
    offer_seconds(ring, GAME, 2)
    assert ring.segments(GAME) == []
    assert ring.size_bytes(GAME) == 0
    assert ring.describe(GAME)["on"] is False
    ring.close()


def test_the_ring_keeps_playable_segments_under_its_cap_dropping_the_oldest(
    tmp_path: Path,
) -> None:
    ring = VideoRing(tmp_path, min_free_bytes=0)
    ring.configure(1)  # 1 MB a game
    offer_seconds(ring, GAME, 16)
    segments = ring.segments(GAME)
    on_disk = sum(path.stat().st_size for path in ring.folder(GAME).iterdir())
    assert 0 < ring.size_bytes(GAME) == on_disk <= 1_000_000 + 10_000  # the index's few kB
    assert sum(s["bytes"] for s in segments) <= 1_000_000
    assert segments[0]["start"] > 0, "the oldest minutes were not dropped"
    assert segments[-1]["end"] == pytest.approx(15.75)
    for segment in segments:
        frames = frames_in(ring.folder(GAME) / segment["file"])
        assert len(frames) == len(segment["times"])
        assert frames[0].shape == (360, 640, 3)
        for frame, t in zip(frames, segment["times"], strict=True):
            assert abs(float(frame[:50, :, 1].mean()) - min(250, 20 * int(t))) < 12
    ring.close()


def test_a_new_ring_reads_the_saved_size_and_bad_sizes_are_refused(tmp_path: Path) -> None:
    VideoRing(tmp_path).configure(250)
    assert VideoRing(tmp_path).settings.megabytes == 250
    for bad in (-1, 10**9):
        with pytest.raises(RingSettingError, match="megabytes"):
            VideoRing(tmp_path).configure(bad)
    assert VideoRing(tmp_path).settings.megabytes == 250


def test_a_nearly_full_disk_stops_the_ring_with_a_notice(tmp_path: Path) -> None:
    said: list[str] = []
    free = shutil.disk_usage(tmp_path).free
    ring = VideoRing(tmp_path, notify=said.append, min_free_bytes=free + 10**12)
    ring.configure(50)
    offer_seconds(ring, GAME, 2)
    assert ring.segments(GAME) == [] and ring.size_bytes(GAME) == 0
    assert said == [DISK_FULL_NOTICE] and ring.describe(GAME)["notice"] == DISK_FULL_NOTICE
    ring.close()


def test_big_frames_are_kept_at_the_ring_s_width(tmp_path: Path) -> None:
    ring = VideoRing(tmp_path, min_free_bytes=0)
    ring.configure(20)
    rng = np.random.default_rng(3)
    for k in range(4):
        ring.offer(GAME, k / 4, table_frame(k / 4, rng, (1080, 1920)))
        ring.drain()
    ring.flush()
    (segment,) = ring.segments(GAME)
    frames = frames_in(ring.folder(GAME) / segment["file"])
    assert [f.shape for f in frames] == [(360, 640, 3)] * 4
    ring.close()


def test_deleting_a_game_deletes_its_video_only(tmp_path: Path) -> None:
    ring = VideoRing(tmp_path, min_free_bytes=0)
    ring.configure(20)
    offer_seconds(ring, GAME, 3)
    offer_seconds(ring, OTHER, 3)
    assert ring.segments(GAME) and ring.segments(OTHER)
    ring.delete(GAME)
    assert not ring.folder(GAME).exists() and ring.segments(GAME) == []
    assert ring.segments(OTHER), "another game's video went too"
    with pytest.raises(ValueError, match="not a game id"):
        ring.folder("../../etc")
    ring.close()
