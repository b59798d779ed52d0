"""Plane geometry shared by the calibration and the renderer's camera."""

from __future__ import annotations

import cv2
import numpy as np


def largest_rect_inside(
    polygon: np.ndarray, centre: np.ndarray, steps: int = 16
) -> tuple[float, float, float, float]:
    """Return a large axis-aligned rectangle (x0, y0, x1, y1) centred on `centre`, inside a polygon.

    Tries nine aspect ratios around the polygon's own and, for each, halves its way (`steps`
    times) to the largest scale whose corners all lie inside; the largest area wins.
    """
    outline = np.asarray(polygon, dtype=np.float32).reshape(-1, 2)
    centre = np.asarray(centre, dtype=np.float64).reshape(2)
    half = (outline.max(axis=0) - outline.min(axis=0)) / 2
    best, best_area = (centre, half * 0.0), -1.0
    for stretch in np.linspace(0.6, 1.4, 9):
        shape = half * np.array([stretch, 1 / stretch])
        low, high = 0.0, 1.0
        for _ in range(steps):
            k = (low + high) / 2
            corners = centre + shape * k * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]])
            inside = all(
                cv2.pointPolygonTest(outline, (float(x), float(y)), False) >= 0 for x, y in corners
            )
            low, high = (k, high) if inside else (low, k)
        area = float(np.prod(shape * low))
        if area > best_area:
            best, best_area = (centre, shape * low), area
    (cx, cy), (hx, hy) = best
    return float(cx - hx), float(cy - hy), float(cx + hx), float(cy + hy)
