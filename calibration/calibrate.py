"""From photos of the printed board to a `TableCalibration`: homography in mm, optional lens."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import cv2
import numpy as np

from calibration.board import BOARDS, BoardSpec, board_to_table
from calibration.drift import reference_from_frame
from calibration.table import CalibrationError, TableCalibration

MIN_CORNERS = 8
"""Fewer chessboard corners than this is not enough to trust a view."""
MIN_LENS_VIEWS = 3
RANSAC_PX = 3.0
_MAX_LENS_RMS_PX = 2.0


class BoardNotFoundError(CalibrationError):
    """No calibration board (or too little of it) in an image."""


@dataclass(frozen=True)
class BoardView:
    """The board's chessboard corners found in one image: raw px and the same points in mm."""

    board: BoardSpec
    image_size: tuple[int, int]
    ids: np.ndarray
    """Corner ids (N,), as OpenCV numbers the board's inner corners."""
    image_px: np.ndarray
    """Corner positions (N, 2) in raw image px."""
    board_mm: np.ndarray
    """Corner positions (N, 3) on the board plane (OpenCV's frame: top-left origin, y down)."""
    table_mm: np.ndarray
    """Corner positions (N, 2) in the table frame (board centre, x right, y to the top edge)."""
    square_mm: float


@dataclass(frozen=True)
class CalibrationResult:
    """A calibration and how well the board's corners agree with it."""

    calibration: TableCalibration
    error_px: float
    """Mean distance between found corners and the corners projected back, px."""
    error_mm: float
    """Mean distance between the corners mapped to the table and where they are, mm."""
    corners: int
    """Corners in the view that defines the table."""
    lens_views: int
    """Views used for the lens (0: lens taken as distortion-free)."""
    lens_rms_px: float


def _grey(image: np.ndarray) -> np.ndarray:
    """Return a grey uint8 copy of a BGR or grey image."""
    if image.ndim == 3:
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return image


def detect_board(image: np.ndarray, square_mm: float | None = None) -> BoardView:
    """Find the printed board (A4 or Letter, told apart by its marker ids) in an image.

    `square_mm` replaces the printed square edge when the sheet was printed at another scale.
    """
    if image is None or image.ndim not in (2, 3) or min(image.shape[:2]) < 16:
        raise BoardNotFoundError("the image is empty or too small to hold the board")
    grey = _grey(image)
    best: tuple[BoardSpec, np.ndarray, np.ndarray] | None = None
    for spec in BOARDS.values():
        board = spec.charuco(square_mm)
        corners, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(grey)
        if ids is not None and (best is None or len(ids) > len(best[2])):
            best = (spec, corners.reshape(-1, 2), ids.reshape(-1))
    if best is None or len(best[2]) < MIN_CORNERS:
        found = 0 if best is None else len(best[2])
        raise BoardNotFoundError(
            f"no calibration board found ({found} of its corners seen, {MIN_CORNERS} needed): "
            "print it with `templecam calibrate board`, lay it flat in good light where the "
            "camera sees all of it, and keep hands and glare off it"
        )
    spec, corners, ids = best
    board = spec.charuco(square_mm)
    if board.checkCharucoCornersCollinear(ids.reshape(-1, 1).astype(np.int32)):
        raise BoardNotFoundError(
            "only one row of the board's corners was found: make the whole board visible"
        )
    board_mm = board.getChessboardCorners()[ids].astype(np.float64)
    height, width = grey.shape[:2]
    return BoardView(
        board=spec,
        image_size=(width, height),
        ids=ids,
        image_px=corners.astype(np.float64),
        board_mm=board_mm,
        table_mm=board_to_table(spec, board_mm, square_mm),
        square_mm=float(square_mm or spec.square_mm),
    )


def merge_views(views: Sequence[BoardView]) -> BoardView:
    """Combine views of the board lying still (frames of one camera) into one, less noisy view."""
    if not views:
        raise BoardNotFoundError("no view of the board to merge")
    first = views[0]
    if any(v.board != first.board or v.image_size != first.image_size for v in views):
        raise CalibrationError("the frames show different boards or have different sizes")
    by_id: dict[int, list[np.ndarray]] = {}
    for view in views:
        for corner_id, point in zip(view.ids.tolist(), view.image_px, strict=True):
            by_id.setdefault(corner_id, []).append(point)
    ids = np.array(sorted(by_id), dtype=np.int64)
    image_px = np.array([np.median(by_id[i], axis=0) for i in ids.tolist()])
    board_mm = first.board.charuco(first.square_mm).getChessboardCorners()[ids].astype(np.float64)
    return BoardView(
        board=first.board,
        image_size=first.image_size,
        ids=ids,
        image_px=image_px,
        board_mm=board_mm,
        table_mm=board_to_table(first.board, board_mm, first.square_mm),
        square_mm=first.square_mm,
    )


def fit_lens(views: Sequence[BoardView]) -> tuple[np.ndarray, np.ndarray, float]:
    """Fit focal length and radial distortion (k1, k2) to several views of the board.

    The principal point is held at the image centre and the pixels square, which few views of
    a flat board pin down far better than a free model. Returns (matrix, dist, rms px).
    """
    if len(views) < MIN_LENS_VIEWS:
        raise CalibrationError(
            f"lens distortion needs {MIN_LENS_VIEWS} or more views of the board, got {len(views)}"
        )
    width, height = views[0].image_size
    if any(v.image_size != (width, height) for v in views):
        raise CalibrationError("the images for the lens have different sizes: use one camera mode")
    guess = np.array([[width, 0, width / 2], [0, width, height / 2], [0, 0, 1]], np.float64)
    flags = (
        cv2.CALIB_USE_INTRINSIC_GUESS
        | cv2.CALIB_FIX_PRINCIPAL_POINT
        | cv2.CALIB_FIX_ASPECT_RATIO
        | cv2.CALIB_ZERO_TANGENT_DIST
        | cv2.CALIB_FIX_K3
    )
    rms, matrix, dist, _, _ = cv2.calibrateCamera(
        [v.board_mm.astype(np.float32).reshape(-1, 1, 3) for v in views],
        [v.image_px.astype(np.float32).reshape(-1, 1, 2) for v in views],
        (width, height),
        guess,
        np.zeros(5),
        flags=flags,
    )
    dist = np.asarray(dist, np.float64).reshape(-1)[:4]
    if not np.all(np.isfinite(matrix)) or not np.isfinite(rms) or rms > _MAX_LENS_RMS_PX:
        raise CalibrationError(
            f"the views do not pin down the lens (fit error {rms:.1f} px): photograph the board "
            "held at different angles, near the picture's corners and edges"
        )
    return matrix, dist, float(rms)


def calibrate(
    views: Sequence[BoardView],
    frame: np.ndarray | None = None,
    *,
    lens: bool | None = None,
    tile_mm: float = 100.0,
    die_mm: float = 16.0,
    source: str = "board",
) -> CalibrationResult:
    """Calibrate the table from `views[0]` (the board lying on the table).

    All views also fit the lens when `lens` is true (default: when there are 3 or more).
    `frame`, the picture of `views[0]`, becomes the drift reference.
    """
    if not views:
        raise BoardNotFoundError("no view of the board to calibrate from")
    table = views[0]
    use_lens = len(views) >= MIN_LENS_VIEWS if lens is None else lens
    matrix = dist = None
    rms = 0.0
    if use_lens:
        matrix, dist, rms = fit_lens(views)
    undistorted = table.image_px
    if matrix is not None:
        undistorted = cv2.undistortPoints(
            table.image_px.reshape(-1, 1, 2), matrix, dist, P=matrix
        ).reshape(-1, 2)
    homography, inliers = cv2.findHomography(table.table_mm, undistorted, cv2.RANSAC, RANSAC_PX)
    if homography is None or int(inliers.sum()) < MIN_CORNERS:
        raise BoardNotFoundError(
            "the board's corners do not fit a flat board: lay it flat and make it all visible"
        )
    calibration = TableCalibration(
        image_size=table.image_size,
        table_to_image=(homography / homography[2, 2]).tolist(),
        camera_matrix=None if matrix is None else matrix.tolist(),
        dist_coeffs=None if dist is None else dist.tolist(),
        tile_mm=tile_mm,
        die_mm=die_mm,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        source=source,
    )
    error_px = float(
        np.linalg.norm(
            calibration.table_to_image_px(table.table_mm) - table.image_px, axis=1
        ).mean()
    )
    error_mm = float(
        np.linalg.norm(calibration.image_to_table(table.image_px) - table.table_mm, axis=1).mean()
    )
    calibration.reprojection_px = round(error_px, 4)
    calibration.reprojection_mm = round(error_mm, 4)
    if frame is not None:
        calibration.attach_reference(reference_from_frame(frame))
    return CalibrationResult(
        calibration=calibration,
        error_px=error_px,
        error_mm=error_mm,
        corners=len(table.ids),
        lens_views=len(views) if use_lens else 0,
        lens_rms_px=rms,
    )
