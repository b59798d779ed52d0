"""Has the camera moved since calibration? Compare a frame with the calibration view."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.table import TableCalibration

REFERENCE_LONG_SIDE = 960
"""The drift reference is the calibration view in grey, at most this many px across."""
TOLERANCE_PX = 4.0
"""A median shift above this (full-size px) means the camera moved."""
MIN_INLIERS = 30
"""Fewer features agreeing than this: no verdict rather than a false alarm."""
_FEATURES = 3000
_RATIO = 0.8
_GRID = (16, 9)


@dataclass(frozen=True)
class DriftReport:
    """The verdict of one drift check; `shift_px` is None when it could not tell."""

    ok: bool
    """False only when the camera is known to have moved."""
    shift_px: float | None
    """Median displacement of the view, in full-size image px."""
    message: str
    inliers: int = 0
    """Features that agree on the camera's motion."""


def _shrink(grey: np.ndarray) -> np.ndarray:
    """Return `grey` scaled down (never up) to the reference size."""
    scale = REFERENCE_LONG_SIDE / max(grey.shape[:2])
    if scale >= 1.0:
        return grey
    size = (round(grey.shape[1] * scale), round(grey.shape[0] * scale))
    return cv2.resize(grey, size, interpolation=cv2.INTER_AREA)


def reference_from_frame(frame: np.ndarray) -> np.ndarray:
    """Return the drift reference for a calibration view: a small grey copy of it."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    return _shrink(grey)


def _motion(reference: np.ndarray, current: np.ndarray) -> tuple[np.ndarray | None, int]:
    """Return the homography taking reference px to current px, and how many features agree."""
    orb = cv2.ORB_create(nfeatures=_FEATURES, fastThreshold=10)
    ref_points, ref_desc = orb.detectAndCompute(reference, None)
    cur_points, cur_desc = orb.detectAndCompute(current, None)
    if ref_desc is None or cur_desc is None or len(ref_points) < 2 or len(cur_points) < 2:
        return None, 0
    pairs = cv2.BFMatcher(cv2.NORM_HAMMING).knnMatch(ref_desc, cur_desc, k=2)
    good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < _RATIO * p[1].distance]
    if len(good) < MIN_INLIERS:
        return None, len(good)
    source = np.float32([ref_points[m.queryIdx].pt for m in good])
    target = np.float32([cur_points[m.trainIdx].pt for m in good])
    homography, mask = cv2.findHomography(source, target, cv2.RANSAC, 2.0, maxIters=4000)
    inliers = 0 if mask is None else int(mask.sum())
    return (homography if inliers >= MIN_INLIERS else None), inliers


def check_drift(
    calibration: TableCalibration, frame_bgr: np.ndarray, tolerance_px: float = TOLERANCE_PX
) -> DriftReport:
    """Tell whether the camera was bumped since `calibration` was made, from one frame.

    Hands or new things on the table only hide some features; when too few agree the report
    says it cannot tell (ok, shift None) instead of raising a false alarm.
    """
    height, width = frame_bgr.shape[:2]
    expected = tuple(calibration.image_size)
    if (width, height) != expected:
        return DriftReport(
            False,
            None,
            f"the camera gives {width}x{height} frames but the calibration is for "
            f"{expected[0]}x{expected[1]}: recalibrate (templecam calibrate)",
        )
    reference = calibration.reference_grey()
    if reference is None:
        return DriftReport(
            True,
            None,
            "no reference view is saved with this calibration, so camera motion cannot be "
            "checked: run `templecam calibrate` again to save one",
        )
    current = reference_from_frame(frame_bgr)
    if current.shape != reference.shape:
        current = cv2.resize(current, reference.shape[::-1], interpolation=cv2.INTER_AREA)
    homography, inliers = _motion(reference, current)
    if homography is None:
        return DriftReport(
            True,
            None,
            f"cannot tell whether the camera moved: only {inliers} features match the "
            "calibration view (hands or things over the table?); try again later",
            inliers,
        )
    gx, gy = _GRID
    xs = (np.arange(gx) + 0.5) * reference.shape[1] / gx
    ys = (np.arange(gy) + 0.5) * reference.shape[0] / gy
    grid = np.array([(x, y) for y in ys for x in xs], np.float64).reshape(-1, 1, 2)
    moved = cv2.perspectiveTransform(grid, homography)
    scale = width / reference.shape[1]
    shift = float(np.median(np.linalg.norm((moved - grid).reshape(-1, 2), axis=1)) * scale)
    if shift > tolerance_px:
        return DriftReport(
            False,
            shift,
            f"the camera moved by {shift:.0f} px since calibration: recalibrate "
            "(templecam calibrate)",
            inliers,
        )
    return DriftReport(True, shift, f"camera in place (shift {shift:.1f} px)", inliers)
