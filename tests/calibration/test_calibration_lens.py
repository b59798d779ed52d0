"""Lens distortion from several views of the board, on renders through a known lens."""

from __future__ import annotations

import numpy as np
import pytest
from board_scenes import LENS, SIZE, lens_views, overhead_homography

from calibration.calibrate import calibrate, detect_board, fit_lens
from calibration.table import CalibrationError, TableCalibration


@pytest.fixture(scope="module")
def views():
    return [detect_board(image) for image in lens_views()]


@pytest.fixture(scope="module")
def truth() -> TableCalibration:
    matrix, dist = LENS
    return TableCalibration(
        image_size=SIZE,
        table_to_image=overhead_homography(matrix=matrix).tolist(),
        camera_matrix=matrix.tolist(),
        dist_coeffs=dist.tolist(),
    )


def picture_grid() -> np.ndarray:
    xs = np.linspace(10, SIZE[0] - 10, 14)
    ys = np.linspace(10, SIZE[1] - 10, 9)
    return np.array([(x, y) for x in xs for y in ys], np.float64)


def test_several_views_recover_the_lens(views):
    matrix, dist, rms = fit_lens(views)
    assert rms < 0.3
    assert dist[0] == pytest.approx(LENS[1][0], abs=0.015)
    assert dist[1] == pytest.approx(LENS[1][1], abs=0.03)
    assert matrix[0, 0] == pytest.approx(LENS[0][0, 0], rel=0.02)


def test_lens_makes_the_picture_corners_land_right_on_the_table(views, truth):
    grid = picture_grid()
    where = truth.image_to_table(grid)
    with_lens = calibrate(views, lens_views()[0])
    assert with_lens.lens_views == len(views)
    error = np.linalg.norm(with_lens.calibration.image_to_table(grid) - where, axis=1)
    assert error.max() < 1.5
    assert with_lens.error_px < 0.3
    # The same flat view without a lens model is centimetres off towards the corners.
    flat_only = calibrate(views[:1]).calibration
    error_flat = np.linalg.norm(flat_only.image_to_table(grid) - where, axis=1)
    assert error_flat.max() > 10 * error.max()
    # table -> raw px goes back through the same lens
    back = with_lens.calibration.table_to_image_px(where)
    assert np.abs(back - grid).max() < 1.5


def test_too_few_views_for_a_lens_is_a_clear_error(views):
    with pytest.raises(CalibrationError, match="3 or more views"):
        calibrate(views[:2], lens=True)
