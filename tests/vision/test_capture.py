"""`templecam capture` and vision.sources.save_frames: real video files and image folders
through OpenCV, a stand-in only for webcam hardware.

Frame i of a test video is filled with the grey level 16 + 8 i, which survives compression, so
a test can read back which frame was saved.
"""

from __future__ import annotations

import errno
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.sources.save_frames as capture_module
from templecam.cli import main
from vision.sources.save_frames import CaptureError, capture_frames, capture_source, next_number

W, H = 64, 48


def grey(number: int) -> int:
    return 16 + 8 * number


def number_of(image: np.ndarray) -> int:
    return round((float(image.mean()) - 16) / 8)


def write_video(path: Path, frames: int, fps: float) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), fps, (W, H))
    assert writer.isOpened()
    for i in range(frames):
        writer.write(np.full((H, W, 3), grey(i), np.uint8))
    writer.release()
    return path


def write_folder(folder: Path, count: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        assert cv2.imwrite(str(folder / f"shot_{i + 1}.png"), np.full((H, W, 3), grey(i), np.uint8))
    return folder


def jpegs(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


class FakeCapture:
    """cv2.VideoCapture on a webcam that gives `frames` frames (then its reads fail)."""

    def __init__(self, camera: FakeWebcam, opens: bool):
        self.camera, self.opens = camera, opens

    def isOpened(self):  # noqa: N802
        return self.opens

    def read(self):
        if not self.opens or self.camera.frames_left == 0:
            return False, None
        self.camera.frames_left -= 1
        self.camera.served += 1
        time.sleep(self.camera.delay)  # a camera waits for its next frame
        return True, np.full((H, W, 3), grey(self.camera.served % 30), np.uint8)

    def set(self, prop, value):
        return True

    def get(self, prop):
        return 0.0

    def release(self):
        pass


class FakeWebcam:
    """Webcam hardware at index `index` that serves `frames` frames in all (one every `delay`
    seconds), then stops."""

    def __init__(self, frames: int, index: int = 0, delay: float = 0.0):
        self.frames_left, self.index, self.served, self.delay = frames, index, 0, delay

    def __call__(self, target, api, params):
        return FakeCapture(self, target in (self.index, str(self.index)))


class Clock:
    """Wall time that moves `step` seconds at each look (a camera's frame interval)."""

    def __init__(self, step: float):
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


# --- video files and image folders through the command line ---------------------------------


def test_a_video_gives_one_frame_every_given_second_of_its_own_time(tmp_path, capsys):
    video = write_video(tmp_path / "table.mp4", frames=30, fps=8)  # 3.75 s
    out = tmp_path / "shots"

    status = main(["capture", "--source", str(video), "--out", str(out), "--every", "1.5"])

    assert status == 0
    assert jpegs(out) == ["0001.jpg", "0002.jpg", "0003.jpg"]
    seen = [number_of(cv2.imread(str(out / name))) for name in jpegs(out)]
    assert seen == [0, 12, 24]  # t = 0, 1.5 and 3 s at 8 fps
    printed = capsys.readouterr().out
    assert f"saved {out / '0002.jpg'} (2/10, {W}x{H})" in printed
    assert "ended after 3 frames (asked for 10)" in printed


def test_frames_limits_how_many_are_saved(tmp_path):
    video = write_video(tmp_path / "table.mp4", frames=30, fps=10)
    out = tmp_path / "shots"

    assert main(["capture", "--source", str(video), "--out", str(out), "--frames", "2"]) == 0

    assert [number_of(cv2.imread(str(out / n))) for n in jpegs(out)] == [0, 10]


def test_an_image_folder_gives_each_image_once_and_an_existing_folder_is_added_to(tmp_path):
    photos = write_folder(tmp_path / "photos", 4)
    out = tmp_path / "shots"
    out.mkdir()
    (out / "0002.jpg").write_bytes(b"an earlier frame")
    (out / "notes.txt").write_text("not a frame")

    assert main(["capture", "--source", str(photos), "--out", str(out), "--every", "5"]) == 0

    assert jpegs(out) == ["0002.jpg", "0003.jpg", "0004.jpg", "0005.jpg", "0006.jpg", "notes.txt"]
    assert (out / "0002.jpg").read_bytes() == b"an earlier frame"
    new = [number_of(cv2.imread(str(out / f"{n:04d}.jpg"))) for n in range(3, 7)]
    assert new == [0, 1, 2, 3]
    assert next_number(out) == 7


def test_a_missing_source_and_a_file_as_out_are_clear_errors(tmp_path, capsys):
    assert main(["capture", "--source", str(tmp_path / "nothing.mp4"), "--out", "x"]) == 2
    assert "no video file or image folder" in capsys.readouterr().err

    video = write_video(tmp_path / "table.mp4", frames=5, fps=10)
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    assert main(["capture", "--source", str(video), "--out", str(not_a_folder)]) == 2
    assert "is a file: give a folder" in capsys.readouterr().err


# --- webcams (stand-in hardware) ---------------------------------------------------------------


def test_the_default_is_the_first_working_webcam_and_frames_are_due_every_seconds(tmp_path):
    camera = FakeWebcam(frames=1000, index=1)
    source = capture_source(None, 1.0, capture_factory=camera)
    assert source.description == "camera 1"

    out = tmp_path / "shots"
    result = capture_frames(source, out, every=1.0, frames=3, clock=Clock(0.1), warmup=0.5)

    assert [p.name for p in result.saved] == ["0001.jpg", "0002.jpg", "0003.jpg"]
    # Frames come every 0.1 s; the warm-up skips 0.5 s, then one is saved each second.
    assert [number_of(cv2.imread(str(p))) for p in result.saved] == [7, 17, 27]


def test_no_webcam_at_all_says_to_plug_one_in_or_give_a_source():
    with pytest.raises(CaptureError, match=r"no webcam found.*--source"):
        capture_source(None, 1.0, capture_factory=FakeWebcam(frames=10, index=7))


def test_a_camera_that_stops_midway_keeps_what_was_saved_and_exits_2(tmp_path, monkeypatch, capsys):
    camera = FakeWebcam(frames=40, delay=0.01)  # about 0.4 s of frames, then nothing
    monkeypatch.setattr(cv2, "VideoCapture", camera)
    monkeypatch.setattr(capture_module, "WARMUP_S", 0.0)
    out = tmp_path / "shots"

    status = main(["capture", "--source", "0", "--out", str(out), "--every", "0.1"])

    assert status == 2
    err = capsys.readouterr().err
    assert "camera 0 stopped: it sent no more frames" in err
    saved = jpegs(out)
    assert 2 <= len(saved) < 10
    assert saved == [f"{n:04d}.jpg" for n in range(1, len(saved) + 1)]
    assert f"The {len(saved)} frames were saved in {out} (up to {saved[-1]}) and are kept" in err
    assert all(cv2.imread(str(out / name)) is not None for name in saved)


def test_a_full_disk_keeps_the_frames_already_saved_and_leaves_no_half_file(tmp_path, monkeypatch):
    photos = write_folder(tmp_path / "photos", 5)
    writes = []
    real_write = capture_module._write_bytes

    def fill_up(path, data):
        writes.append(path)
        if len(writes) == 3:
            path.write_bytes(data[: len(data) // 2])  # the disk filled up in the middle
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(path, data)

    monkeypatch.setattr(capture_module, "_write_bytes", fill_up)
    out = tmp_path / "shots"
    source = capture_source(str(photos), 1.0)

    with pytest.raises(CaptureError) as caught:
        capture_frames(source, out, every=1.0, frames=5)

    message = str(caught.value)
    assert "the disk is full" in message and "The 2 frames were saved" in message
    assert sorted(p.name for p in out.iterdir()) == ["0001.jpg", "0002.jpg"]  # no temp left
    assert all(cv2.imread(str(p)) is not None for p in out.iterdir())


def test_a_name_taken_meanwhile_is_never_overwritten(tmp_path, monkeypatch):
    out = tmp_path / "shots"
    out.mkdir()
    real_next = capture_module.next_number

    def racing(folder):
        number = real_next(folder)
        if number == 1:  # another program writes 0001.jpg right after we looked
            (folder / "0001.jpg").write_bytes(b"theirs")
        return number

    monkeypatch.setattr(capture_module, "next_number", racing)
    result = capture_frames(capture_source(str(write_folder(tmp_path / "p", 1)), 1.0), out)

    assert [p.name for p in result.saved] == ["0002.jpg"]
    assert (out / "0001.jpg").read_bytes() == b"theirs"
