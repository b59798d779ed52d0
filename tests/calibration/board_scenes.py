"""Synthetic camera views of the printed board with known geometry, for the calibration tests."""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from calibration.board import BOARDS, DPI, MM_PER_INCH, SQUARES, render_sheet

SIZE = (1280, 720)
FOCAL = 1150.0
SHEET_PX_PER_MM = 4.0
_SUPERSAMPLE = 2


def camera_matrix(focal: float = FOCAL, size: tuple[int, int] = SIZE) -> np.ndarray:
    """A pinhole camera matrix with the principal point at the image centre."""
    return np.array([[focal, 0, size[0] / 2], [0, focal, size[1] / 2], [0, 0, 1]], np.float64)


def rotation(tilt_x: float = 0.0, tilt_y: float = 0.0, spin: float = 0.0) -> np.ndarray:
    """A rotation from angles in degrees about x, y, then z."""
    rx, _ = cv2.Rodrigues(np.array([np.radians(tilt_x), 0.0, 0.0]))
    ry, _ = cv2.Rodrigues(np.array([0.0, np.radians(tilt_y), 0.0]))
    rz, _ = cv2.Rodrigues(np.array([0.0, 0.0, np.radians(spin)]))
    return rz @ ry @ rx


def overhead_homography(
    height_mm: float = 950.0,
    tilt: float = 8.0,
    spin: float = 3.0,
    offset_mm: tuple[float, float] = (40.0, 150.0),
    matrix: np.ndarray | None = None,
) -> np.ndarray:
    """Table mm -> undistorted px for a camera above the table, north up in the picture."""
    matrix = camera_matrix() if matrix is None else matrix
    down = np.diag([1.0, -1.0, -1.0])  # camera x east, y south, z down into the table
    world_to_camera = rotation(tilt_x=tilt, spin=spin) @ down
    centre = np.array([offset_mm[0], offset_mm[1], height_mm])
    t = -world_to_camera @ centre
    h = matrix @ np.column_stack([world_to_camera[:, 0], world_to_camera[:, 1], t])
    return h / h[2, 2]


def posed_homography(
    base: np.ndarray, pose: np.ndarray, shift_mm: tuple[float, float, float], matrix: np.ndarray
) -> np.ndarray:
    """Board plane -> px when the board is lifted off the table by a rotation and shift.

    `base` is the table's homography (from `overhead_homography` with the same matrix).
    """
    inner = np.linalg.inv(matrix) @ base  # [r1 r2 t] up to scale
    scale = np.linalg.norm(inner[:, 0])
    r1, r2 = inner[:, 0] / scale, inner[:, 1] / scale
    world_to_camera = np.column_stack([r1, r2, np.cross(r1, r2)])
    t = inner[:, 2] / scale
    board_axes = world_to_camera @ pose
    position = t + world_to_camera @ np.asarray(shift_mm, np.float64)
    h = matrix @ np.column_stack([board_axes[:, 0], board_axes[:, 1], position])
    return h / h[2, 2]


TABLE_MM = (-900.0, -600.0, 900.0, 600.0)
"""The textured table top's extent (x0, y0, x1, y1) in mm."""
TEXTURE_PX_PER_MM = 2.0


@lru_cache(maxsize=4)
def textured_table(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A cluttered, feature-rich table top (BGR) and its px (centres) -> table mm matrix."""
    rng = np.random.default_rng(seed)
    x0, y0, x1, y1 = TABLE_MM
    ppm = TEXTURE_PX_PER_MM
    width, height = round((x1 - x0) * ppm), round((y1 - y0) * ppm)
    base = np.empty((height, width, 3), np.uint8)
    streaks = np.cumsum(rng.normal(0, 1.0, width)).astype(np.float32)
    streaks = (streaks - streaks.min()) / max(float(np.ptp(streaks)), 1e-6)
    base[:] = (np.array([60, 100, 140]) + 40 * streaks[None, :, None]).astype(np.uint8)
    for _ in range(420):
        colour = tuple(int(c) for c in rng.integers(0, 256, 3))
        x, y = int(rng.integers(0, width)), int(rng.integers(0, height))
        kind = rng.integers(0, 3)
        if kind == 0:
            w, h = (int(v) for v in rng.integers(10, 120, 2))
            cv2.rectangle(base, (x, y), (x + w, y + h), colour, -1)
        elif kind == 1:
            cv2.circle(base, (x, y), int(rng.integers(5, 50)), colour, -1)
        else:
            end = (x + int(rng.integers(-120, 120)), y + int(rng.integers(-120, 120)))
            cv2.line(base, (x, y), end, colour, int(rng.integers(2, 7)))
    to_table = np.array([[1 / ppm, 0, 0.5 / ppm + x0], [0, -1 / ppm, y1 - 0.5 / ppm], [0, 0, 1]])
    return base, to_table


@lru_cache(maxsize=2)
def sheet_to_table(paper: str) -> tuple[np.ndarray, np.ndarray]:
    """The sheet image at SHEET_PX_PER_MM and its px (centres) -> table mm matrix."""
    sheet = render_sheet(paper)
    spec = BOARDS[paper]
    height, width = sheet.shape
    ppm = DPI / MM_PER_INCH
    small = (round(width / ppm * SHEET_PX_PER_MM), round(height / ppm * SHEET_PX_PER_MM))
    image = cv2.resize(sheet, small, interpolation=cv2.INTER_AREA)
    sx, sy = small[0] / width, small[1] / height
    board_w, board_h = SQUARES[0] * spec.square_px, SQUARES[1] * spec.square_px
    left, top = (width - board_w) // 2, (height - board_h) // 2
    # sheet px (centre) u -> 300 dpi edge coordinate (u + 0.5) / sx -> board mm -> table mm
    to_edges = np.array([[1 / sx, 0, 0.5 / sx - left], [0, 1 / sy, 0.5 / sy - top], [0, 0, 1]])
    to_table = np.array(
        [[1 / ppm, 0, -board_w / ppm / 2], [0, -1 / ppm, board_h / ppm / 2], [0, 0, 1]]
    )
    return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), to_table @ to_edges


def distort(image: np.ndarray, matrix: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Bend an ideal pinhole picture through radial lens distortion (OpenCV's model)."""
    height, width = image.shape[:2]
    step = 8  # the map is smooth: solve it on a coarse grid, interpolate the rest
    xs = np.arange(0, width + step, step, dtype=np.float64)
    ys = np.arange(0, height + step, step, dtype=np.float64)
    grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-9)
    source = cv2.undistortPoints(grid, matrix, dist, P=matrix, criteria=criteria)
    coarse = source.reshape(len(ys), len(xs), 2)
    # coarse sample (i, j) sits at pixel (j * step, i * step): resize with matching corners
    fine = cv2.resize(coarse, (len(xs) * step, len(ys) * step), interpolation=cv2.INTER_LINEAR)
    shift = (step - 1) / 2  # resize puts coarse sample j at fine (j + 0.5) * step - 0.5
    fine = cv2.warpAffine(
        fine, np.float32([[1, 0, -shift], [0, 1, -shift]]), (width, height), flags=cv2.INTER_LINEAR
    )
    maps = fine.astype(np.float32)
    return cv2.remap(image, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR, cv2.BORDER_REPLICATE)


def paint_hand(image: np.ndarray, centre: tuple[int, int], scale: float = 1.0) -> np.ndarray:
    """Paint a skin-coloured hand and forearm over part of the picture."""
    out = image.copy()
    skin = (120, 160, 215)
    x, y = centre
    s = scale
    cv2.ellipse(out, (x, y), (int(70 * s), int(85 * s)), 0, 0, 360, skin, -1)
    for i, dx in enumerate((-50, -18, 14, 46)):
        tip = (x + int(dx * s), y - int((150 - 12 * abs(i - 1.5)) * s))
        cv2.line(out, (x + int(dx * s), y - int(40 * s)), tip, skin, int(26 * s))
    cv2.line(out, (x + int(70 * s), y), (x + int(140 * s), y - int(60 * s)), skin, int(28 * s))
    cv2.rectangle(out, (x - int(60 * s), y), (x + int(60 * s), image.shape[0]), skin, -1)
    return out


def board_view(
    table_to_px: np.ndarray,
    *,
    paper: str = "a4",
    seed: int = 0,
    board: bool = True,
    lens: tuple[np.ndarray, np.ndarray] | None = None,
    noise: float = 3.0,
    grain_seed: int | None = None,
    blur: float = 0.7,
    size: tuple[int, int] = SIZE,
) -> np.ndarray:
    """Render a camera picture (BGR) of the table with the sheet lying on it.

    `table_to_px` maps the sheet's table mm (board centre origin) to undistorted px; the
    picture is drawn at twice the size and shrunk, then bent by `lens` = (matrix, dist).
    """
    k = _SUPERSAMPLE
    big = (size[0] * k, size[1] * k)
    up = np.array([[k, 0, (k - 1) / 2], [0, k, (k - 1) / 2], [0, 0, 1]], np.float64)
    texture, texture_to_table = textured_table(seed)
    canvas = cv2.warpPerspective(
        texture, up @ table_to_px @ texture_to_table, big, flags=cv2.INTER_LINEAR
    )
    if board:
        sheet, to_table = sheet_to_table(paper)
        warp = up @ table_to_px @ to_table
        flat = cv2.warpPerspective(sheet, warp, big, flags=cv2.INTER_LINEAR)
        mask = cv2.warpPerspective(np.full(sheet.shape[:2], 255, np.uint8), warp, big)
        shaded = cv2.convertScaleAbs(flat, alpha=0.92)  # paper under room light, not pure white
        cv2.copyTo(shaded, cv2.compare(mask, 127, cv2.CMP_GT), canvas)
    image = cv2.resize(canvas, size, interpolation=cv2.INTER_AREA)
    if lens is not None:
        image = distort(image, *lens)
    if blur:
        image = cv2.GaussianBlur(image, (0, 0), blur)
    if noise:
        grain = np.empty(image.shape, np.int16)
        cv2.setRNGSeed(seed + 1000 if grain_seed is None else grain_seed)
        cv2.randn(grain, 0, noise)
        image = cv2.add(image, grain, dtype=cv2.CV_8U)
    return image


LENS = (camera_matrix(), np.array([-0.12, 0.03, 0.0, 0.0]))
"""A webcam-like barrel distortion (OpenCV's k1, k2)."""
_TILTED_POSES = (
    ((25.0, 0.0, 10.0), (-280.0, 120.0, 60.0)),
    ((-25.0, 15.0, -20.0), (300.0, -100.0, 80.0)),
    ((10.0, -30.0, 40.0), (250.0, 150.0, 40.0)),
    ((-20.0, -25.0, 0.0), (-300.0, -120.0, 90.0)),
)


@lru_cache(maxsize=1)
def lens_views() -> tuple[np.ndarray, ...]:
    """Pictures through `LENS`: the board flat on the table, then held at four angles."""
    flat = overhead_homography(matrix=LENS[0])
    images = [board_view(flat, lens=LENS)]
    for i, (angles, shift) in enumerate(_TILTED_POSES, start=1):
        posed = posed_homography(flat, rotation(*angles), shift, LENS[0])
        images.append(board_view(posed, seed=i, lens=LENS))
    return tuple(images)
