"""Frame sources and the grabber: real video files and image folders, a stand-in webcam.

Videos are written with cv2.VideoWriter; frame i is filled with the grey level 16 + 8 i, which
survives compression, so every test can read back which frame it was given. Only the webcam
hardware is faked (`FakeWebcam`): the real grabber code drives it through open, read failures,
hangs and reconnects.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.sources.base import SourceError, SourceSettings
from vision.sources.grabber import THREAD_PREFIX, Grabber, backoff_delays
from vision.sources.open import DEMO_NOTE, default_source, open_source, read_all

W, H = 64, 48


def grey(number: int) -> int:
    return 16 + 8 * number


def number_of(image: np.ndarray) -> int:
    """Which frame this is, read back from its grey level."""
    return round((float(image.mean()) - 16) / 8)


def write_video(path: Path, frames: int = 30, fps: float = 30.0, fourcc: str = "mp4v") -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*fourcc), fps, (W, H))
    assert writer.isOpened()
    for i in range(frames):
        writer.write(np.full((H, W, 3), grey(i), np.uint8))
    writer.release()
    return path


@pytest.fixture
def video(tmp_path: Path) -> Path:
    return write_video(tmp_path / "game.mp4")


def wait_for(condition, timeout: float = 10.0) -> None:
    """Poll until `condition()` holds (a deadline against hangs, not a timing check)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.01)


def grabber_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(THREAD_PREFIX)]


@pytest.fixture(autouse=True)
def _no_thread_left():
    yield
    wait_for(lambda: not grabber_threads(), timeout=5)


def take_all(grabber: Grabber, pause: float = 0.0) -> list:
    """Consume frames until the source ends, pausing after each like a slow detector."""
    frames, last = [], None
    while (frame := grabber.latest(after_seq=last, timeout=10)) is not None:
        frames.append(frame)
        last = frame.seq
        time.sleep(pause)
    return frames


# --- a stand-in for webcam hardware -----------------------------------------------------------


class FakeCapture:
    """Behaves like cv2.VideoCapture on a webcam that follows one step of FakeWebcam's plan."""

    def __init__(self, camera: FakeWebcam, step):
        self.camera, self.step = camera, step
        self.frames_left = step if isinstance(step, int) else None
        self.released = False
        self.props: dict[int, float] = {}

    def isOpened(self):  # noqa: N802
        return self.step is not None and not self.released

    def read(self):
        if self.released or self.step is None:
            return False, None
        if self.step == "raise":
            raise RuntimeError("USB device reset")
        if self.step == "hang":
            self.camera.hanging.set()
            self.camera.unhang.wait()
            return False, None
        if self.frames_left is not None:
            if self.frames_left == 0:
                return False, None
            self.frames_left -= 1
        time.sleep(0.002)  # a camera waits for its next frame
        self.camera.served += 1
        return True, np.full((H, W, 3), self.camera.served % 256, np.uint8)

    def set(self, prop, value):
        self.camera.settings.append((prop, value))
        self.props[prop] = value
        return True

    def get(self, prop):
        return self.props.get(prop, 0.0)

    def release(self):
        self.released = True


class FakeWebcam:
    """Webcam hardware whose openings follow `plan`: an int (that many frames, then the read
    fails), None (does not open), "hang" (the read never returns until `unhang`), "raise" (the
    read raises) or "forever".
    After the plan, it works forever."""

    def __init__(self, *plan):
        self.plan = list(plan)
        self.opened: list[tuple] = []
        self.captures: list[FakeCapture] = []
        self.settings: list[tuple[int, float]] = []
        self.served = 0
        self.hanging, self.unhang = threading.Event(), threading.Event()
        self.on_open = None
        self._step = "forever"

    def __call__(self, target, api, params):
        self.opened.append((target, api, list(params)))
        if params:  # a new attempt (a refused open is retried without the timeouts)
            self._step = self.plan.pop(0) if self.plan else "forever"
            if self.on_open:
                self.on_open()
        capture = FakeCapture(self, self._step)
        self.captures.append(capture)
        return capture


class Cameras(FakeWebcam):
    """Webcam hardware at the indexes in `working` (every other index does not open)."""

    def __init__(self, *working):
        super().__init__()
        self.working = set(working)

    def __call__(self, target, api, params):
        capture = super().__call__(target, api, params)
        capture.step = "forever" if target in self.working else None
        return capture


# --- video files ------------------------------------------------------------------------------


def test_read_all_gives_every_frame_of_a_video_in_order_with_its_position(video):
    frames = list(read_all(open_source(str(video))))

    assert [number_of(f.image) for f in frames] == list(range(30))
    assert [f.seq for f in frames] == list(range(1, 31))
    assert [f.source_t for f in frames] == pytest.approx([i / 30 for i in range(30)], abs=1e-3)
    assert frames[0].size == (W, H)
    assert not frames[0].image.flags.writeable


def test_grabber_without_realtime_waits_for_the_consumer_and_drops_nothing(video):
    with Grabber(open_source(str(video)), realtime=False) as grabber:
        frames = take_all(grabber, pause=0.005)
        state = grabber.state()

    assert [number_of(f.image) for f in frames] == list(range(30))
    assert (state.status, state.frames, state.dropped) == ("ended", 30, 0)
    assert (state.width, state.height) == (W, H)


def test_a_slow_consumer_gets_the_newest_frame_and_the_rest_are_counted_as_dropped(video):
    with Grabber(open_source(str(video))) as grabber:
        frames = take_all(grabber, pause=0.1)
        state = grabber.state()

    numbers = [number_of(f.image) for f in frames]
    # Played at its own pace, not in one burst: a consumer pausing 0.1 s sees several frames
    # of the one-second video, though not all of them; none twice, never out of order.
    assert numbers == sorted(set(numbers)) and 3 < len(numbers) < 30
    assert numbers == [f.seq - 1 for f in frames]  # seq is the grab order
    assert numbers[-1] == 29
    assert state.frames == 30 and state.dropped == 30 - len(frames)


def test_a_consumer_that_comes_late_gets_only_the_newest_frame(video):
    with Grabber(open_source(str(video))) as grabber:
        wait_for(lambda: grabber.state().status == "ended")
        frame = grabber.latest()
        assert grabber.latest(after_seq=frame.seq, timeout=1) is None  # nothing newer will come
        state = grabber.state()

    assert number_of(frame.image) == 29
    assert (state.frames, state.dropped) == (30, 29)


def test_loop_restarts_the_video_at_its_end(video):
    with Grabber(open_source(str(video)), realtime=False, loop=True) as grabber:
        frames, last = [], None
        while len(frames) < 45:
            frames.append(grabber.latest(after_seq=last, timeout=10))
            last = frames[-1].seq
        state = grabber.state()

    assert [number_of(f.image) for f in frames] == list(range(30)) + list(range(15))
    assert [f.seq for f in frames] == list(range(1, 46))
    assert state.status == "live"


def test_a_truncated_avi_plays_what_can_be_read_then_ends(tmp_path):
    whole = write_video(tmp_path / "whole.avi", fourcc="MJPG").read_bytes()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(whole[: len(whole) // 2])

    with Grabber(open_source(str(cut)), realtime=False) as grabber:
        frames = take_all(grabber)
        state = grabber.state()

    numbers = [number_of(f.image) for f in frames]
    assert 0 < len(numbers) < 30 and numbers == list(range(len(numbers)))
    assert state.status == "ended"


def test_a_file_that_disappears_before_playing_leaves_the_grabber_failed_with_the_reason(video):
    source = open_source(str(video))
    video.unlink()

    with Grabber(source) as grabber:
        assert grabber.latest(timeout=10) is None
        state = grabber.state()

    assert state.status == "failed"
    assert "no video file at" in state.last_error and state.last_error_at is not None


# --- image folders ----------------------------------------------------------------------------


def test_an_image_folder_plays_in_natural_name_order_skipping_unreadable_files(tmp_path):
    for i in range(12):
        cv2.imwrite(str(tmp_path / f"frame_{i + 1}.png"), np.full((H, W, 3), grey(i), np.uint8))
    (tmp_path / "frame_5b.png").write_bytes(os.urandom(200))
    (tmp_path / "notes.txt").write_text("not an image")

    source = open_source(str(tmp_path), settings=SourceSettings(fps=10))
    frames = list(read_all(source))

    assert [number_of(f.image) for f in frames] == list(range(12))
    # The broken frame_5b.png (sixth in order) keeps its place in time.
    positions = [i / 10 for i in range(13) if i != 5]
    assert [f.source_t for f in frames] == pytest.approx(positions)


def test_a_single_image_is_a_one_frame_source(tmp_path):
    path = tmp_path / "table.jpg"
    cv2.imwrite(str(path), np.full((H, W, 3), grey(3), np.uint8))

    frames = list(read_all(open_source(str(path))))

    assert [number_of(f.image) for f in frames] == [3]


# --- clear errors -----------------------------------------------------------------------------


def error_for(spec: str, **kwargs) -> str:
    with pytest.raises(SourceError) as caught:
        open_source(spec, **kwargs)
    return str(caught.value)


def test_a_missing_file_says_where_it_looked_and_how_cameras_are_named(tmp_path):
    message = error_for(str(tmp_path / "nope.mp4"))
    assert str(tmp_path / "nope.mp4") in message and "check the path" in message
    assert "like 0" in message


def test_a_folder_without_images_says_so(tmp_path):
    (tmp_path / "readme.txt").write_text("no frames here")
    message = error_for(str(tmp_path))
    assert f"{tmp_path} has no images" in message and ".png" in message


def test_a_folder_of_broken_images_has_no_readable_image(tmp_path):
    (tmp_path / "a.png").write_bytes(os.urandom(100))
    assert "no readable image" in error_for(str(tmp_path))


def test_a_corrupt_video_says_it_cannot_be_read_and_what_to_do(tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(np.random.default_rng(0).bytes(20_000))
    message = error_for(str(bad))
    assert f"{bad} cannot be read as a video" in message and "convert it" in message


def test_a_truncated_mp4_cannot_be_read(tmp_path, video):
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(video.read_bytes()[:-500])
    assert "cannot be read as a video" in error_for(str(cut))


def test_a_camera_that_does_not_open_says_what_to_check():
    message = error_for("3", capture_factory=Cameras(0))
    assert message.startswith("camera 3 did not open") and "plugged in" in message


def test_a_missing_camera_device_and_odd_specs_are_refused_with_a_hint():
    assert "no camera device /dev/video-none" in error_for("/dev/video-none")
    assert "use rtsp://" in error_for("ftp://example.com/x")
    assert "no source given" in error_for("  ")


def test_bad_settings_say_which_value_is_wrong():
    with pytest.raises(SourceError, match="0x1080"):
        SourceSettings(width=0)
    with pytest.raises(SourceError, match="MJPG"):
        SourceSettings(fourcc="MJPEG")


def test_a_stream_url_hides_its_password_and_gets_open_and_read_timeouts():
    camera = FakeWebcam()
    source = open_source(
        "rtsp://me:secret@192.168.1.20:8554/live",
        capture_factory=camera,
        settings=SourceSettings(open_timeout=3, read_timeout=2),
    )

    assert source.live and "secret" not in source.description and "me:***@" in source.description
    _, api, params = camera.opened[0]
    assert api == cv2.CAP_FFMPEG
    assert params == [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, 3000, cv2.CAP_PROP_READ_TIMEOUT_MSEC, 2000]


# --- webcams: mode, reconnects, hangs ---------------------------------------------------------


def test_a_webcam_gets_mjpg_before_its_size_and_rate():
    camera = FakeWebcam()
    settings = SourceSettings(width=1280, height=720, fps=15)
    source = open_source("0", settings=settings, capture_factory=camera)
    assert source.description == "camera 0" and source.live

    mjpg = cv2.VideoWriter.fourcc(*"MJPG")
    assert camera.settings == [
        (cv2.CAP_PROP_FOURCC, mjpg),
        (cv2.CAP_PROP_FRAME_WIDTH, 1280),
        (cv2.CAP_PROP_FRAME_HEIGHT, 720),
        (cv2.CAP_PROP_FPS, 15),
    ]


def test_a_webcam_that_refuses_the_timeouts_is_opened_without_them():
    class NoTimeouts(FakeWebcam):
        def __call__(self, target, api, params):
            capture = super().__call__(target, api, params)
            capture.step = None if params else "forever"
            return capture

    camera = NoTimeouts()
    frames = list(zip(range(3), read_all(open_source("0", capture_factory=camera)), strict=False))
    assert len(frames) == 3
    assert [params == [] for _, _, params in camera.opened[:2]] == [False, True]


def test_backoff_doubles_up_to_its_maximum():
    delays = backoff_delays(0.5, 10.0)
    assert [next(delays) for _ in range(7)] == [0.5, 1, 2, 4, 8, 10, 10]


def test_a_webcam_that_fails_is_reopened_with_backoff_and_the_state_follows():
    # 3 frames, the read fails; two openings fail; then it works again.
    camera = FakeWebcam(3, None, None)
    source = open_source("0", capture_factory=camera, check=False)
    grabber = Grabber(source, backoff=(0.01, 0.02))
    seen = []

    def record():
        state = grabber.state()
        seen.append((state.status, state.retry_delay, state.reconnects))

    camera.on_open = record

    with grabber:
        first = grabber.latest(timeout=10)
        wait_for(lambda: grabber.state().reconnects == 3 and grabber.state().frames > 5)
        later = grabber.latest(timeout=10)
        state = grabber.state()

    assert seen == [
        ("starting", None, 0),
        ("reconnecting", 0.01, 1),
        ("reconnecting", 0.02, 2),
        ("reconnecting", 0.02, 3),
    ]
    assert state.status == "live" and state.reconnects == 3 and later.seq > first.seq
    assert state.last_error.startswith("camera 0 did not open")
    assert all(c.released for c in camera.captures)


def test_a_live_source_that_ends_is_reconnected_not_ended():
    camera = FakeWebcam(2, 2)  # twice two frames, then no more
    source = open_source("0", capture_factory=camera, check=False)
    with Grabber(source, backoff=(0.01, 0.01)) as grabber:
        wait_for(lambda: grabber.state().frames >= 6)
        state = grabber.state()

    assert (
        state.status == "live"
        and state.reconnects == 2
        and state.last_error == "camera 0 sent no frame"
    )


def test_a_read_that_raises_is_a_failure_like_any_other():
    camera = FakeWebcam("raise")
    source = open_source("0", capture_factory=camera, check=False)
    with Grabber(source, backoff=(0.01, 0.01)) as grabber:
        assert grabber.latest(timeout=10) is not None
        state = grabber.state()

    assert state.reconnects == 1 and state.last_error == "USB device reset"


def test_a_looping_folder_whose_images_all_break_fails_instead_of_spinning(tmp_path):
    (tmp_path / "a.png").write_bytes(os.urandom(100))
    source = open_source(str(tmp_path), check=False)

    with Grabber(source, loop=True) as grabber:
        assert grabber.latest(timeout=10) is None
        state = grabber.state()

    assert (
        state.status == "failed" and state.last_error == f"images {tmp_path} has no readable frame"
    )


def test_the_watchdog_abandons_a_hung_read_and_reopens_the_camera():
    camera = FakeWebcam("hang")
    with Grabber(
        open_source("0", capture_factory=camera, check=False), watchdog=0.2, backoff=(0.01, 0.01)
    ) as grabber:
        assert camera.hanging.wait(10)
        frame = grabber.latest(timeout=10)  # from the new opening, while the old read hangs
        state = grabber.state()
        hung = camera.captures[0]
        assert not hung.released

    assert frame is not None and state.status == "live" and state.reconnects == 1
    assert state.last_error == "camera 0: read did not return in 0.2 s"
    camera.unhang.set()  # the stuck read returns at last: its reader closes the capture and ends
    wait_for(lambda: hung.released and not grabber_threads())


def test_stop_ends_a_backoff_wait_and_wakes_a_waiting_consumer():
    grabber = Grabber(
        open_source("0", capture_factory=FakeWebcam(None), check=False), backoff=(60, 60)
    ).start()
    wait_for(lambda: grabber.state().status == "reconnecting")
    results = []
    consumer = threading.Thread(target=lambda: results.append(grabber.latest()))
    consumer.start()

    grabber.stop(timeout=5)
    consumer.join(5)

    assert not grabber_threads() and results == [None]
    assert grabber.state().status == "stopped"


def test_latest_before_start_is_a_programming_error(video):
    with pytest.raises(RuntimeError, match="start"):
        Grabber(open_source(str(video))).latest()


def test_state_is_json_for_the_dashboard(video):
    with Grabber(open_source(str(video)), realtime=False) as grabber:
        take_all(grabber)
        data = json.loads(json.dumps(grabber.state().to_json()))

    assert data["source"] == f"video {video}" and data["status"] == "ended"
    assert data["frames"] == 30 and data["live"] is False and data["last_error"] is None


# --- the default source -----------------------------------------------------------------------


def test_default_source_prefers_what_was_asked_for(tmp_path):
    assert default_source(" 2 ", tmp_path / "demo.mp4") == ("2", None)


def test_default_source_takes_the_first_webcam_that_gives_a_frame(tmp_path):
    camera = Cameras(1, 2)
    spec, note = default_source(None, tmp_path / "demo.mp4", capture_factory=camera)

    assert (spec, note) == ("1", None)
    assert all(c.released for c in camera.captures)


def test_without_a_webcam_the_demo_recording_loops_with_a_note(tmp_path):
    demo = write_video(tmp_path / "demo.mp4")
    choice = default_source(None, demo, capture_factory=Cameras())

    assert choice.spec == str(demo) and choice.note == DEMO_NOTE and choice.demo
    assert "No camera found" in DEMO_NOTE and "--camera" in DEMO_NOTE
    with Grabber(open_source(choice.spec), loop=choice.demo, realtime=False) as grabber:
        frames = [grabber.latest(after_seq=n, timeout=10) for n in range(35)]
    assert number_of(frames[-1].image) == 4
