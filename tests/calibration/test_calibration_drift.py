"""Drift: a bumped camera is noticed, hands and a removed board are not taken for one."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from board_scenes import SIZE, board_view, overhead_homography, paint_hand

from calibration.calibrate import calibrate, detect_board
from calibration.drift import TOLERANCE_PX, check_drift
from calibration.table import TableCalibration


@pytest.fixture(scope="module")
def calibration() -> TableCalibration:
    image = board_view(overhead_homography(), seed=0)
    return calibrate([detect_board(image)], image).calibration


def true_shift(before: np.ndarray, after: np.ndarray) -> float:
    """Median displacement over the picture when the camera goes from `before` to `after`."""
    xs, ys = np.meshgrid(np.linspace(40, SIZE[0] - 40, 16), np.linspace(40, SIZE[1] - 40, 9))
    grid = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
    moved = cv2.perspectiveTransform(grid, after @ np.linalg.inv(before))
    return float(np.median(np.linalg.norm((moved - grid).reshape(-1, 2), axis=1)))


def test_same_view_with_board_gone_hand_over_it_and_dimmer_light_is_fine(calibration):
    frame = board_view(overhead_homography(), board=False, seed=0, grain_seed=9)
    frame = paint_hand(frame, (500, 450), 1.3)
    frame = cv2.convertScaleAbs(frame, alpha=0.8, beta=5)
    report = check_drift(calibration, frame)
    assert report.ok
    assert report.shift_px is not None and report.shift_px < 1.0
    assert "in place" in report.message


@pytest.mark.parametrize(
    "camera",
    [{"offset_mm": (50.0, 150.0)}, {"spin": 4.5}, {"tilt": 9.5, "offset_mm": (44.0, 156.0)}],
)
def test_bumped_camera_is_reported_with_its_shift(calibration, camera):
    before = overhead_homography()
    after = overhead_homography(**camera)
    frame = paint_hand(board_view(after, board=False, seed=0), (800, 400))
    report = check_drift(calibration, frame)
    expected = true_shift(before, after)
    assert expected > 2 * TOLERANCE_PX
    assert not report.ok
    assert report.shift_px == pytest.approx(expected, abs=1.0)
    assert f"moved by {report.shift_px:.0f} px" in report.message
    assert "recalibrate" in report.message


def test_view_mostly_hidden_gives_no_verdict_rather_than_a_false_alarm(calibration):
    frame = board_view(overhead_homography(), board=False, seed=0)
    frame[:, 150:] = (90, 120, 170)  # a cloth over nearly all the table
    report = check_drift(calibration, frame)
    assert report.ok and report.shift_px is None
    assert "cannot tell" in report.message


def test_other_frame_size_is_reported(calibration):
    frame = np.zeros((480, 640, 3), np.uint8)
    report = check_drift(calibration, frame)
    assert not report.ok and "640x480" in report.message and "1280x720" in report.message


def test_without_a_reference_it_says_so(calibration):
    bare = TableCalibration(image_size=SIZE, table_to_image=calibration.table_to_image)
    report = check_drift(bare, board_view(overhead_homography(), board=False))
    assert report.ok and report.shift_px is None and "no reference view" in report.message


def test_reference_is_saved_beside_the_file_and_used_after_loading(calibration, tmp_path):
    path = calibration.save(tmp_path / "table.json")
    assert (tmp_path / "table.reference.png").is_file()
    loaded = TableCalibration.load(path, image_size=SIZE)
    assert loaded.reference_image == "table.reference.png"
    moved = board_view(overhead_homography(offset_mm=(52.0, 150.0)), board=False, seed=0)
    assert not check_drift(loaded, moved).ok
