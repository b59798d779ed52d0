"""Motion gating with the real ONNX detector on a rendered frame."""

from __future__ import annotations

import numpy as np
import pytest

from models.synth.frame import render_frame
from models.synth.settings import SynthSettings
from vision.perception.classes import DIE_CLASSES
from vision.perception.detections import Detections
from vision.perception.detector import Detector
from vision.perception.shipped import BASELINE as SHIPPED_BASELINE
from vision.perception.shipped import shipped_path
from vision.stages.motion import MotionGate, MotionSettings

BASELINE = shipped_path(SHIPPED_BASELINE)


@pytest.fixture(scope="module")
def detector() -> Detector:
    """The shipped baseline model on ONNX Runtime."""
    return Detector(BASELINE)


@pytest.fixture(scope="module")
def frame() -> np.ndarray:
    """A rendered table frame."""
    return render_frame(SynthSettings(), seed=5, index=0).image


class Recorder:
    """Runs the real detector and remembers the size of every image it was given."""

    def __init__(self, detector: Detector) -> None:
        self.detector = detector
        self.shapes: list[tuple[int, int]] = []

    def __call__(self, image: np.ndarray) -> Detections:
        self.shapes.append(image.shape[:2])
        return self.detector.detect(image)


def test_a_still_frame_reuses_the_detections(detector: Detector, frame: np.ndarray) -> None:
    recorder = Recorder(detector)
    gate = MotionGate(recorder)
    first = gate.process(frame, 0.0)
    noisy = np.clip(
        frame.astype(np.int16) + np.random.default_rng(0).integers(-3, 4, frame.shape), 0, 255
    )
    second = gate.process(noisy.astype(np.uint8), 0.1)
    assert first.full and not second.full and second.windows == ()
    assert len(recorder.shapes) == 1
    assert np.array_equal(first.detections.xyxy, second.detections.xyxy)


def test_a_change_is_re_detected_in_its_window_only(detector: Detector, frame: np.ndarray) -> None:
    recorder = Recorder(detector)
    gate = MotionGate(recorder, MotionSettings())
    first = gate.process(frame, 0.0)
    changed = frame.copy()
    changed[100:160, 1700:1760] = (30, 200, 240)  # something new in the top-right corner
    moving = gate.process(changed, 0.2)  # it has just moved: wait until it stands still
    assert moving.windows == () and len(moving.moving) == 1 and len(recorder.shapes) == 1
    mx0, my0, mx1, my1 = moving.moving[0]
    assert mx0 <= 1700 <= mx1 and my0 <= 100 <= my1
    still = MotionSettings().still_seconds + 0.05
    result = gate.process(changed, 0.2 + still)  # unchanged long enough: still
    assert not result.full and len(result.windows) == 1 and result.moving == ()
    x0, y0, x1, y1 = result.windows[0]
    assert x0 <= 1700 and x1 >= 1760 and y0 <= 100 and y1 >= 160
    # The window fits the change (a dynamic model runs it at its own size), in stride steps.
    assert x1 - x0 < 640 and y1 - y0 < 640 and (x1 - x0) % 32 == 0 and (y1 - y0) % 32 == 0
    assert recorder.shapes[-1] == (y1 - y0, x1 - x0)
    outside = (first.detections.xyxy[:, 0] > x1) | (first.detections.xyxy[:, 2] < x0)
    outside |= (first.detections.xyxy[:, 1] > y1) | (first.detections.xyxy[:, 3] < y0)
    kept = {tuple(b) for b in result.detections.xyxy.round(1).tolist()}
    assert {tuple(b) for b in first.detections.xyxy[outside].round(1).tolist()} <= kept
    again = gate.process(changed, 0.3 + still)  # nothing changed since: no detector run
    assert again.windows == () and len(recorder.shapes) == 2


def covered(windows: list[tuple[int, int, int, int]], shape: tuple[int, ...]) -> np.ndarray:
    """The pixels of a frame that the windows cover."""
    mask = np.zeros(shape[:2], bool)
    for x0, y0, x1, y1 in windows:
        mask[y0:y1, x0:x1] = True
    return mask


def test_the_whole_frame_is_refreshed_now_and_then_a_budget_at_a_time(
    detector: Detector, frame: np.ndarray
) -> None:
    recorder = Recorder(detector)
    settings = MotionSettings(refresh_seconds=1.0)
    gate = MotionGate(recorder, settings)
    gate.process(frame, 0.0)
    assert gate.process(frame, 0.5).windows == ()
    windows = []
    for step in range(12):
        result = gate.process(frame, 1.2 + step * 0.1)
        area = sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in result.windows)
        assert not result.full
        assert len(result.windows) == 1 or area <= settings.budget_px
        windows += result.windows
        if not result.stale:
            break
    else:
        pytest.fail("the refresh never finished")
    assert covered(windows, frame.shape).all() and step > 0  # spread over several frames


def test_waiting_changes_are_stale_and_the_focus_goes_first(
    detector: Detector, frame: np.ndarray
) -> None:
    recorder = Recorder(detector)
    focus = np.array([[1200, 700], [1900, 700], [1900, 1060], [1200, 1060]], np.float32)
    gate = MotionGate(recorder, MotionSettings(budget_px=1), focus=[focus])
    gate.process(frame, 0.0)
    changed = frame.copy()
    changed[100:160, 100:160] = (30, 200, 240)  # far from the focus
    # in the focus (a player's zone); dark, so that it differs in grey from any table
    changed[900:960, 1500:1560] = (20, 20, 20)
    assert gate.process(changed, 0.1).windows == ()  # both have just moved
    still = MotionSettings().still_seconds + 0.05
    first = gate.process(changed, 0.1 + still)
    assert len(first.windows) == 1 and len(first.stale) == 1  # one window a frame
    x0, y0, x1, y1 = first.windows[0]
    assert x0 <= 1500 and x1 >= 1560 and y0 <= 900 and y1 >= 960  # the focus went first
    sx0, sy0, sx1, sy1 = first.stale[0]
    assert sx0 <= 100 < 160 <= sx1 and sy0 <= 100 < 160 <= sy1  # the other one waits
    second = gate.process(changed, 0.2 + still)
    assert len(second.windows) == 1 and second.stale == ()
    assert covered(list(second.windows), frame.shape)[130, 130]


def test_a_slow_change_at_a_high_frame_rate_is_not_still(
    detector: Detector, frame: np.ndarray
) -> None:
    recorder = Recorder(detector)
    gate = MotionGate(recorder)
    gate.process(frame, 0.0)
    results = []
    # A patch brightening each 1/30 s by less than the motion threshold, as a die settling:
    # two frames in a row hardly differ, but over 0.1 s they do.
    for step in range(1, 7):
        changed = frame.copy()
        patch = changed[500:540, 900:940].astype(np.int16) + 8 * step
        changed[500:540, 900:940] = np.clip(patch, 0, 255).astype(np.uint8)
        results.append(gate.process(changed, step / 30))
    assert all(r.windows == () and r.moving for r in results[3:])  # changing over 0.1 s
    assert len(recorder.shapes) == 1
    for step in range(7, 20):  # now it stays put
        result = gate.process(changed, step / 30)
        if result.windows:
            break
    assert result.windows  # re-detected once it has stood still


def test_without_the_gate_every_frame_is_detected_whole_and_motion_still_reported(
    detector: Detector, frame: np.ndarray
) -> None:
    recorder = Recorder(detector)
    gate = MotionGate(recorder, MotionSettings(gate=False))
    moved = frame.copy()
    moved[500:600, 900:1000] = 255 - moved[500:600, 900:1000]
    results = [gate.process(image, t) for t, image in ((0.0, frame), (0.1, frame), (0.2, moved))]
    assert all(r.full for r in results)
    assert recorder.shapes == [frame.shape[:2]] * 3
    assert results[1].moving == ()
    x0, y0, x1, y1 = results[2].moving[0]
    assert x0 <= 900 and y0 <= 500 and x1 >= 1000 and y1 >= 600


def test_the_gate_reports_the_pixels_that_moved(detector: Detector, frame: np.ndarray) -> None:
    gate = MotionGate(Recorder(detector), MotionSettings())
    gate.process(frame, 0.0)
    changed = frame.copy()
    changed[100:160, 1700:1760] = (30, 200, 240)
    changed[900:960, 100:160] = (30, 200, 240)  # two things move, far apart
    moving = gate.process(changed, 0.1)
    assert moving.motion is not None
    scale = moving.motion.scale
    ys, xs = np.nonzero(moving.motion.mask)
    inside = ((xs * scale >= 1690) & (ys * scale < 170)) | (
        (xs * scale < 170) & (ys * scale >= 890)
    )
    assert inside.all() and len(xs) > 0  # only where the picture moved, not the box between
    assert len(moving.moving) == 2
    still = gate.process(changed, 0.1 + MotionSettings().still_seconds + 0.05)
    assert still.motion is not None and not still.motion.mask.any()


class MissesDiceInWindows:
    """The real detector, but a window re-detected misses every die in it (as one may miss a
    die cut by the window's border or shaded by a hand beside it)."""

    def __init__(self, detector: Detector, frame_shape: tuple[int, ...]) -> None:
        self.detector = detector
        self.frame_shape = frame_shape

    def __call__(self, image: np.ndarray) -> Detections:
        found = self.detector.detect(image)
        if image.shape == self.frame_shape:
            return found
        names = np.array(found.class_names)[found.class_id]
        return found[~np.isin(names, DIE_CLASSES)]


def _a_die(detections: Detections, shape: tuple[int, ...]) -> np.ndarray:
    """The box of a confidently found die well inside the frame."""
    names = np.array(detections.class_names)[detections.class_id]
    h, w = shape[:2]
    for box, name, conf in zip(detections.xyxy, names, detections.confidence, strict=True):
        x0, y0 = box[:2]
        if name in DIE_CLASSES and conf > 0.5 and 200 < x0 < w - 300 and 200 < y0 < h - 300:
            return box
    raise AssertionError("the rendered frame shows a die well inside it")


def _has_box(detections: Detections, box: np.ndarray) -> bool:
    return bool((np.abs(detections.xyxy - box).max(axis=1) < 1).any())


def test_a_die_whose_picture_did_not_change_outlives_a_window_that_misses_it(
    detector: Detector, frame: np.ndarray
) -> None:
    gate = MotionGate(MissesDiceInWindows(detector, frame.shape))
    die = _a_die(gate.process(frame, 0.0).detections, frame.shape)
    x1, y0 = int(die[2]), int(die[1])
    changed = frame.copy()
    changed[y0 : y0 + 30, x1 + 12 : x1 + 42] = (30, 200, 240)  # something put down beside it
    gate.process(changed, 0.2)
    result = gate.process(changed, 0.2 + MotionSettings().still_seconds + 0.05)
    window = result.windows[0]
    assert window[0] <= die[0] and die[2] <= window[2]  # re-detected over the die, which it missed
    assert _has_box(result.detections, die)
    gone = changed.copy()
    gone[int(die[1]) - 4 : int(die[3]) + 4, int(die[0]) - 4 : int(die[2]) + 4] = frame[5, 5]
    gate.process(gone, 1.0)  # the die is picked up: its picture changed, and no window finds it
    result = gate.process(gone, 1.0 + MotionSettings().still_seconds + 0.05)
    assert result.windows and not _has_box(result.detections, die)


def test_a_die_landing_at_a_windows_edge_is_looked_at_again(
    detector: Detector, frame: np.ndarray
) -> None:
    """A window re-detected for a change while a die still rolled near its edge: the band
    where that die lands is looked at again once it lies still (one frame's detection so near a
    window's border may miss it, and nothing else would look there until it moved)."""
    still = MotionSettings().still_seconds + 0.05
    patch = (slice(400, 460), slice(900, 960))
    alone = MotionGate(detector.detect)
    alone.process(frame, 0.0)
    first = frame.copy()
    first[patch] = (30, 200, 240)
    alone.process(first, 0.2)
    x0, y0, _, y1 = alone.process(first, 0.2 + still).windows[0]

    def with_die(x: int) -> np.ndarray:
        image = first.copy()
        cy = (y0 + y1) // 2
        image[cy - 6 : cy + 6, x - 6 : x + 6] = (240, 240, 240)  # the die, still rolling
        return image

    die_x = x0 + 46
    gate = MotionGate(detector.detect)
    gate.process(frame, 0.0)
    gate.process(with_die(die_x + 8), 0.2)
    planned = gate.process(with_die(die_x), 0.2 + still)  # the change stands still, the die not
    left = planned.windows[0][0]
    # the die lies well past the half margin the window takes boxes from, within its margin
    assert left + 36 <= die_x - 6 < left + 48
    landed = with_die(die_x)
    looks = [gate.process(landed, 0.2 + still + 0.1 * k) for k in range(1, 4)]
    seen = [w for look in looks for w in look.windows if w[0] + 24 <= die_x <= w[2] - 24]
    assert seen, "a later window sees the die's place"
    assert looks[-1].windows == ()  # and then the gate rests


def test_a_die_picked_up_goes_even_when_the_shrunk_picture_hardly_changed(
    detector: Detector, frame: np.ndarray
) -> None:
    # A black mask's dark face lifted off a dark table, at 720p, changes the blurred quarter-size
    # picture by less than the motion threshold; here no change at all counts there.
    gate = MotionGate(detector.detect, MotionSettings(threshold=255))
    die = _a_die(gate.process(frame, 0.0).detections, frame.shape)
    gone = frame.copy()
    gone[int(die[1]) - 4 : int(die[3]) + 4, int(die[0]) - 4 : int(die[2]) + 4] = frame[5, 5]
    result = gate.process(gone, 1.0)  # nothing moves in the shrunk picture: still at once
    assert result.windows, "the die's own picture changed: its place is looked at again"
    assert not _has_box(result.detections, die)
    assert gate.process(gone, 2.0).windows == ()  # and once looked at, left alone
