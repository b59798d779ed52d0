"""Finding a chamber tile in a photo or scan and cutting it out as a square, top-down picture."""

from __future__ import annotations

import math

import cv2
import numpy as np

from calibration.table import TableCalibration
from calibration.tile_features import CANONICAL_PX
from rules.temple import quarter_turns_for

WORK_PX = 1000
"""Photos are searched at most this many pixels on their longer side."""

TABLE_PX_PER_MM = 2.0
"""Resolution of the top-down table view a calibrated photo is turned into."""

_MIN_AREA = 0.02
"""Smallest tile outline accepted, as a share of the picture."""


class TilePhotoError(Exception):
    """No tile could be found in a picture; the message says how to take a better one."""


def order_corners(quad: np.ndarray) -> np.ndarray:
    """Return four corners clockwise from the one nearest the picture's top-left."""
    points = np.asarray(quad, dtype=np.float32).reshape(4, 2)
    centre = points.mean(axis=0)
    angles = np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0])
    clockwise = points[np.argsort(angles)]  # image y points down: growing angle is clockwise
    turned = np.arctan2(clockwise[:, 1] - centre[1], clockwise[:, 0] - centre[0])
    first = int(np.argmin(np.abs(_wrap(turned + 3 * math.pi / 4))))
    return np.roll(clockwise, -first, axis=0)


def _wrap(angles: np.ndarray) -> np.ndarray:
    return (angles + math.pi) % (2 * math.pi) - math.pi


def _plausible(quad: np.ndarray, contour_area: float) -> bool:
    """Tell whether four corners can be a square tile seen from above or at a slant."""
    if not cv2.isContourConvex(quad.reshape(-1, 1, 2).astype(np.float32)):
        return False
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    if sides.min() < 8 or sides[0] / sides[2] > 1.6 or sides[2] / sides[0] > 1.6:
        return False
    if sides[1] / sides[3] > 1.6 or sides[3] / sides[1] > 1.6:
        return False
    if not 0.5 < (sides[0] + sides[2]) / (sides[1] + sides[3]) < 2.0:
        return False
    for k in range(4):
        a, b, c = quad[k - 1], quad[k], quad[(k + 1) % 4]
        u, v = a - b, c - b
        cosine = float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))
        if abs(cosine) > math.cos(math.radians(50)):
            return False
    return contour_area >= 0.85 * cv2.contourArea(quad.astype(np.float32))


def _quad_of(contour: np.ndarray) -> np.ndarray | None:
    """Return a contour's hull simplified to four corners, or None when it is no quadrilateral."""
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    for share in (0.01, 0.02, 0.03, 0.05):
        approx = cv2.approxPolyDP(hull, share * perimeter, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float32)
        if len(approx) < 4:
            return None
    return None


def _masks(image_bgr: np.ndarray, edges: np.ndarray) -> list[np.ndarray]:
    """Return binary pictures whose blobs may be the tile: what the table's edge-free area
    reached from the picture's border leaves over, and what differs from the border's colour."""
    h, w = edges.shape
    opening = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (max(5, w // 60) | 1,) * 2)
    masks = []
    for close in (3, 7):
        walls = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((close, close), np.uint8))
        walls = cv2.dilate(walls, np.ones((3, 3), np.uint8))
        outside = np.zeros((h + 2, w + 2), np.uint8)
        free = (walls == 0).astype(np.uint8)
        for y, x in zip(*np.nonzero(_border(free)), strict=True):
            if outside[y + 1, x + 1] == 0:
                cv2.floodFill(free, outside, (int(x), int(y)), 2, flags=4 | (1 << 8))
        inside = np.where(outside[1:-1, 1:-1] > 0, 0, 255).astype(np.uint8)
        masks.append(cv2.morphologyEx(inside, cv2.MORPH_OPEN, opening))
    # The table shows along the picture's border; the tile is what differs from it.
    lab = cv2.cvtColor(cv2.GaussianBlur(image_bgr, (7, 7), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    edges_of = (lab[:4], lab[-4:], lab[:, :4], lab[:, -4:])
    ring = np.concatenate([part.reshape(-1, 3) for part in edges_of])
    distance = np.linalg.norm(lab - np.median(ring, axis=0), axis=2)
    scaled = np.clip(distance * (255 / max(float(distance.max()), 1e-6)), 0, 255).astype(np.uint8)
    _, differs = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    masks.append(cv2.morphologyEx(differs, cv2.MORPH_OPEN, opening))
    return masks


def _border(mask: np.ndarray) -> np.ndarray:
    """Return `mask` with everything but its outermost rows and columns cleared."""
    ring = np.zeros_like(mask)
    ring[[0, -1], :] = mask[[0, -1], :]
    ring[:, [0, -1]] = mask[:, [0, -1]]
    return ring


def _edges(image_bgr: np.ndarray) -> np.ndarray:
    """Return the picture's edges (Canny with thresholds from its median grey level)."""
    grey = cv2.GaussianBlur(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    median = float(np.median(grey))
    return cv2.Canny(grey, max(10.0, 0.4 * median), max(30.0, 1.0 * median))


def _support(edges: np.ndarray, quad: np.ndarray) -> float:
    """Return the share of the quadrilateral's outline that runs along an edge of the picture."""
    near = cv2.dilate(edges, np.ones((5, 5), np.uint8))
    h, w = edges.shape
    hits = total = 0
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        for t in np.linspace(0.05, 0.95, 40):
            x, y = (a + t * (b - a)).round().astype(int)
            if 0 <= x < w and 0 <= y < h:
                hits += near[y, x] > 0
            total += 1
    return hits / total


def find_tile(image_bgr: np.ndarray, side_px: float | None = None) -> np.ndarray | None:
    """Return the largest square-looking outline's corners (4, 2), clockwise from top-left.

    `side_px`, when known (a top-down view at a known scale), is the tile's edge in pixels:
    outlines more than 25 % off are passed over.
    """
    h, w = image_bgr.shape[:2]
    shrink = min(1.0, WORK_PX / max(h, w))
    small = image_bgr
    if shrink < 1.0:
        small = cv2.resize(image_bgr, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
    area = small.shape[0] * small.shape[1]
    edges = _edges(small)
    best: tuple[float, np.ndarray] | None = None
    for mask in _masks(small, edges):
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            contour_area = cv2.contourArea(cv2.convexHull(contour))
            if not _MIN_AREA * area <= contour_area <= 0.98 * area:
                continue
            quad = _quad_of(contour)
            if quad is None:
                continue
            quad = order_corners(quad)
            if not _plausible(quad, contour_area) or _support(edges, quad) < 0.6:
                continue
            quad_area = cv2.contourArea(quad)
            if side_px is not None and abs(math.sqrt(quad_area) / (side_px * shrink) - 1) > 0.25:
                continue
            if best is None or quad_area > best[0]:
                best = (quad_area, quad)
    if best is None:
        return None
    return _refine(image_bgr, order_corners(best[1] / shrink))


def _refine(image_bgr: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Move each side onto the strongest nearby edge (a line fitted to it) and re-intersect."""
    grey = cv2.GaussianBlur(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    h, w = grey.shape
    lines = []
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        length = float(np.linalg.norm(b - a))
        direction = (b - a) / length
        normal = np.array([-direction[1], direction[0]])
        reach = 3 + 0.015 * length
        offsets = np.linspace(-reach, reach, int(2 * reach) + 1)
        found = []
        for t in np.linspace(0.08, 0.92, 48):
            probe = a + t * (b - a) + offsets[:, None] * normal
            xs, ys = probe[:, 0].round().astype(int), probe[:, 1].round().astype(int)
            inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
            if not inside.all():
                continue
            strength = np.abs(gx[ys, xs] * normal[0] + gy[ys, xs] * normal[1])
            if strength.max() > 0:
                # The normal points into the tile: take the outermost strong edge (its rim,
                # not a printed line just inside it).
                strong = np.flatnonzero(strength >= 0.5 * strength.max())
                found.append(probe[int(strong[0])])
        if len(found) < 12:
            return quad
        vx, vy, x0, y0 = cv2.fitLine(np.asarray(found, np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01)
        lines.append(
            (np.array([float(x0[0]), float(y0[0])]), np.array([float(vx[0]), float(vy[0])]))
        )
    corners = []
    for k in range(4):
        (p, u), (q, v) = lines[k - 1], lines[k]
        matrix = np.column_stack([u, -v])
        if abs(np.linalg.det(matrix)) < 1e-6:
            return quad
        t = np.linalg.solve(matrix, q - p)
        corners.append(p + t[0] * u)
    refined = np.asarray(corners, np.float32)
    if np.abs(refined - quad).max() > 0.05 * float(np.linalg.norm(quad[1] - quad[0])) + 3:
        return quad
    return refined


def cut_square(
    image_bgr: np.ndarray, corners: np.ndarray, size: int = 2 * CANONICAL_PX
) -> np.ndarray:
    """Warp the quadrilateral (clockwise from top-left) to a `size` square picture."""
    target = np.array([[0, 0], [size, 0], [size, size], [0, size]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), target)
    return cv2.warpPerspective(image_bgr, matrix, (size, size), flags=cv2.INTER_AREA)


def table_view(
    image_bgr: np.ndarray, calibration: TableCalibration, px_per_mm: float = TABLE_PX_PER_MM
) -> tuple[np.ndarray, float]:
    """Return the photo seen straight from above, north up, and its pixels per table mm."""
    h, w = image_bgr.shape[:2]
    border = np.array(
        [[x, y] for x in np.linspace(0, w, 9) for y in (0, h)]
        + [[x, y] for y in np.linspace(0, h, 9) for x in (0, w)],
        dtype=np.float64,
    )
    table = calibration.image_to_table(border)
    (x0, y0), (x1, y1) = (
        np.clip(table.min(axis=0), -2000, 2000),
        np.clip(table.max(axis=0), -2000, 2000),
    )
    scale = min(px_per_mm, 2500 / max(x1 - x0, y1 - y0, 1.0))
    cols, rows = int((x1 - x0) * scale), int((y1 - y0) * scale)
    if cols < 16 or rows < 16:
        raise TilePhotoError("the calibration does not fit this photo: it shows no table")
    xs = x0 + (np.arange(cols) + 0.5) / scale
    ys = y1 - (np.arange(rows) + 0.5) / scale
    grid = np.column_stack([np.tile(xs, rows), np.repeat(ys, cols)])
    pixels = calibration.table_to_image_px(grid).astype(np.float32).reshape(rows, cols, 2)
    return cv2.remap(image_bgr, pixels[..., 0], pixels[..., 1], cv2.INTER_LINEAR), scale


def tile_picture(
    image_bgr: np.ndarray,
    *,
    calibration: TableCalibration | None = None,
    whole: bool = False,
) -> np.ndarray:
    """Return the tile in a photo as a square picture, top = the photo's top (or table north).

    With a calibration the photo is first turned into a top-down view of the table, where the
    tile must be a square of the calibration's `tile_mm`. `whole` takes the picture as the tile
    itself (a scan or a crop).
    """
    if whole:
        return cv2.resize(
            image_bgr, (2 * CANONICAL_PX, 2 * CANONICAL_PX), interpolation=cv2.INTER_AREA
        )
    view, side = image_bgr, None
    if calibration is not None:
        view, scale = table_view(image_bgr, calibration)
        side = calibration.tile_mm * scale
    corners = find_tile(view, side)
    if corners is None:
        raise TilePhotoError(
            "no tile found in the picture: photograph it flat, whole and unobstructed on a "
            "plain surface of a different colour, or crop the picture to the tile and pass --whole"
        )
    return cut_square(view, corners)


def to_own_frame(square_bgr: np.ndarray, stairs: str) -> np.ndarray:
    """Turn a square tile picture whose stairway is on side `stairs` so that it is at the bottom."""
    return np.ascontiguousarray(np.rot90(square_bgr, k=quarter_turns_for(stairs)))
