"""Finding a chamber tile in a photo or scan and cutting it out as a square, top-down picture."""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np

from calibration.table import TableCalibration
from calibration.tile_features import CANONICAL_PX
from rules.temple import quarter_turns_for

WORK_PX = 1000
"""Photos are searched at most this many pixels on their longer side."""

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
    if sides.min() < 8:
        return False
    if (
        max(sides[0] / sides[2], sides[2] / sides[0], sides[1] / sides[3], sides[3] / sides[1])
        > 1.6
    ):
        return False
    if not 0.5 < (sides[0] + sides[2]) / (sides[1] + sides[3]) < 2.0:
        return False
    if max(_corner_errors(quad)) > 40:
        return False
    return contour_area >= 0.85 * cv2.contourArea(quad.astype(np.float32))


def _corner_errors(quad: np.ndarray) -> list[float]:
    """Return how far each corner's angle is from a right angle, in degrees."""
    errors = []
    for k in range(4):
        u, v = quad[k - 1] - quad[k], quad[(k + 1) % 4] - quad[k]
        cosine = float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))
        errors.append(abs(90 - math.degrees(math.acos(np.clip(cosine, -1, 1)))))
    return errors


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


def _masks(image_bgr: np.ndarray, edges: np.ndarray, smallest_px: float) -> list[np.ndarray]:
    """Return binary pictures whose blobs may be the tile: what the table's edge-free area
    reached from the picture's border leaves over, and what differs from the border's colour."""
    h, w = edges.shape
    # Opening drops table grain that touches the tile, without rounding a small tile's corners.
    size = max(3, int(0.06 * smallest_px)) | 1
    opening = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
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


def find_tile(
    image_bgr: np.ndarray, accept: Callable[[np.ndarray], bool] | None = None
) -> np.ndarray | None:
    """Return the largest square-looking outline's corners (4, 2), clockwise from top-left.

    `accept`, when given, must also approve an outline's corners (in picture pixels).
    """
    h, w = image_bgr.shape[:2]
    shrink = min(1.0, WORK_PX / max(h, w))
    small = image_bgr
    if shrink < 1.0:
        small = cv2.resize(image_bgr, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
    area = small.shape[0] * small.shape[1]
    smallest = _MIN_AREA * area
    edges = _edges(small)
    best: tuple[float, np.ndarray] | None = None
    for mask in _masks(small, edges, math.sqrt(smallest)):
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            contour_area = cv2.contourArea(cv2.convexHull(contour))
            if not smallest <= contour_area <= 0.98 * area:
                continue
            quad = _quad_of(contour)
            if quad is None:
                continue
            quad = order_corners(quad)
            if not _plausible(quad, contour_area) or _support(edges, quad) < 0.6:
                continue
            if accept is not None and not accept(quad / shrink):
                continue
            quad_area = cv2.contourArea(quad)
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


def on_table(calibration: TableCalibration, corners_px: np.ndarray) -> np.ndarray | None:
    """Return a tile outline's corners in table mm, clockwise from north-west, when they form a
    square of the calibration's tile size (25 % and 12 degrees of slack); otherwise None."""
    corners = calibration.image_to_table(np.asarray(corners_px, np.float64))
    flipped = corners * np.array([1.0, -1.0])  # y north -> y down, as in a picture
    ordered = order_corners(flipped).astype(np.float64) * np.array([1.0, -1.0])
    sides = np.linalg.norm(ordered - np.roll(ordered, -1, axis=0), axis=1)
    if np.abs(sides / calibration.tile_mm - 1).max() > 0.25:
        return None
    if max(_corner_errors(ordered * np.array([1.0, -1.0]))) > 12:
        return None
    return ordered


def cut_from_table(
    image_bgr: np.ndarray,
    calibration: TableCalibration,
    corners_mm: np.ndarray,
    size: int = 2 * CANONICAL_PX,
) -> np.ndarray:
    """Sample a tile's square (corners in table mm, from north-west) from a camera frame."""
    square = np.array([[0, 0], [size, 0], [size, size], [0, size]], dtype=np.float64)
    to_table = cv2.getPerspectiveTransform(square.astype(np.float32), corners_mm.astype(np.float32))
    u = np.arange(size) + 0.5
    grid = np.column_stack([np.tile(u, size), np.repeat(u, size)]).reshape(-1, 1, 2)
    table = cv2.perspectiveTransform(grid, to_table.astype(np.float64)).reshape(-1, 2)
    pixels = calibration.table_to_image_px(table).astype(np.float32).reshape(size, size, 2)
    return cv2.remap(image_bgr, pixels[..., 0], pixels[..., 1], cv2.INTER_LINEAR)


def tile_picture(
    image_bgr: np.ndarray,
    *,
    calibration: TableCalibration | None = None,
    whole: bool = False,
) -> np.ndarray:
    """Return the tile in a photo as a square picture, top = the photo's top (or table north).

    With a calibration the photo is a camera frame: the tile must be a square of the
    calibration's `tile_mm` on the table, and comes out north up. `whole` takes the picture
    as the tile itself (a scan or a crop).
    """
    if whole:
        side = 2 * CANONICAL_PX
        return cv2.resize(image_bgr, (side, side), interpolation=cv2.INTER_AREA)
    if calibration is None:
        corners = find_tile(image_bgr)
    else:
        corners = find_tile(image_bgr, lambda quad: on_table(calibration, quad) is not None)
    if corners is None:
        size = f" of {calibration.tile_mm:g} mm" if calibration is not None else ""
        raise TilePhotoError(
            f"no tile{size} found in the picture: photograph it flat, whole and unobstructed "
            "on a plain surface of a different colour, or crop the picture to the tile and "
            "pass --whole"
        )
    if calibration is None:
        return cut_square(image_bgr, corners)
    corners_mm = on_table(calibration, corners)
    if corners_mm is None:  # refining the corners moved them off the square
        raise TilePhotoError("the tile's outline is unclear: take the photo again, sharper")
    return cut_from_table(image_bgr, calibration, corners_mm)


def to_own_frame(square_bgr: np.ndarray, stairs: str) -> np.ndarray:
    """Turn a square tile picture whose stairway is on side `stairs` so that it is at the bottom."""
    return np.ascontiguousarray(np.rot90(square_bgr, k=quarter_turns_for(stairs)))
