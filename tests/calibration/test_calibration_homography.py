"""Board detection -> table homography, on rendered views with a known camera."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from board_scenes import SIZE, board_view, overhead_homography, paint_hand

from calibration.calibrate import BoardNotFoundError, calibrate, detect_board, merge_views

# Table points all over the camera's view, far beyond the board itself.
TABLE_POINTS = np.array(
    [(x, y) for x in range(-450, 451, 75) for y in range(-200, 241, 55)], np.float64
)


def truth_px(homography: np.ndarray, points_mm: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(points_mm.reshape(-1, 1, 2), homography).reshape(-1, 2)


def inside_picture(points_px: np.ndarray) -> np.ndarray:
    return np.all((points_px >= 0) & (points_px < np.array(SIZE)), axis=1)


@pytest.mark.parametrize(
    ("paper", "camera"),
    [
        ("a4", {}),
        ("letter", {"tilt": 14.0, "spin": -25.0, "height_mm": 1050.0, "offset_mm": (-20, 230)}),
    ],
)
def test_recovered_homography_maps_the_whole_view_to_within_a_millimetre(paper, camera):
    homography = overhead_homography(**camera)
    image = board_view(homography, paper=paper, seed=3, noise=4.0, blur=1.0)
    view = detect_board(image)
    assert view.board.paper == paper
    result = calibrate([view], image)
    calibration = result.calibration
    assert result.error_px < 0.3 and result.error_mm < 0.3
    expected_px = truth_px(homography, TABLE_POINTS)
    seen = inside_picture(expected_px)
    assert seen.sum() > 60
    px_error = np.linalg.norm(calibration.table_to_image_px(TABLE_POINTS) - expected_px, axis=1)
    mm_error = np.linalg.norm(calibration.image_to_table(expected_px) - TABLE_POINTS, axis=1)
    assert px_error[seen].max() < 1.0
    assert mm_error[seen].max() < 1.0
    assert calibration.image_size == SIZE
    assert calibration.camera_matrix is None  # one view: no lens model


def test_board_partly_under_a_hand_still_calibrates():
    homography = overhead_homography()
    image = board_view(homography, seed=5)
    centre = truth_px(homography, np.array([[60.0, -20.0]]))[0]
    covered = paint_hand(image, (int(centre[0]), int(centre[1])), 0.8)
    view = detect_board(covered)
    assert 8 <= len(view.ids) < 28
    calibration = calibrate([view]).calibration
    expected_px = truth_px(homography, TABLE_POINTS)
    seen = inside_picture(expected_px)
    mm_error = np.linalg.norm(calibration.image_to_table(expected_px) - TABLE_POINTS, axis=1)
    assert mm_error[seen].max() < 2.0


def test_measured_square_size_rescales_the_table():
    homography = overhead_homography()
    image = board_view(homography, seed=6)
    printed = detect_board(image)
    scaled = detect_board(image, square_mm=printed.square_mm * 1.1)
    assert np.array_equal(printed.ids, scaled.ids)
    assert scaled.table_mm == pytest.approx(printed.table_mm * 1.1, abs=1e-3)
    a = calibrate([printed]).calibration
    b = calibrate([scaled]).calibration
    point_px = truth_px(homography, np.array([[300.0, 150.0]]))
    assert b.image_to_table(point_px) == pytest.approx(a.image_to_table(point_px) * 1.1, abs=0.5)


def test_camera_frames_merge_into_one_steadier_view():
    homography = overhead_homography()
    frames = [board_view(homography, seed=7, noise=6.0, grain_seed=g) for g in (1, 2, 3)]
    views = [detect_board(frame) for frame in frames]
    merged = merge_views(views)
    assert set(merged.ids.tolist()) == set().union(*(v.ids.tolist() for v in views))
    expected = truth_px(homography, merged.table_mm)
    single = np.linalg.norm(views[0].image_px - truth_px(homography, views[0].table_mm), axis=1)
    together = np.linalg.norm(merged.image_px - expected, axis=1)
    assert together.mean() <= single.mean() * 1.05


def test_no_board_is_a_clear_error():
    image = board_view(overhead_homography(), board=False, seed=4)
    with pytest.raises(
        BoardNotFoundError, match=r"no calibration board found.*templecam calibrate board"
    ):
        detect_board(image)


def test_reference_for_drift_is_kept_with_the_calibration():
    image = board_view(overhead_homography(), seed=2)
    calibration = calibrate([detect_board(image)], image).calibration
    reference = calibration.reference_grey()
    assert reference is not None and reference.ndim == 2
    assert reference.shape[1] / reference.shape[0] == pytest.approx(SIZE[0] / SIZE[1], rel=0.01)
