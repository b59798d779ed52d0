"""Compositing with an instance map: every drawn object leaves its id on the pixels it covers."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

_COVERED = 0.5
"""Coverage above which a pixel counts as showing the object (for ids and boxes)."""


def _fixed(points: np.ndarray) -> np.ndarray:
    """Return pixel points as OpenCV fixed-point coordinates (4 fractional bits)."""
    return (np.asarray(points, dtype=np.float64) * 16).round().astype(np.int32)


@dataclass
class Layer:
    """One object's pixels before compositing: premultiplied colour and coverage at an offset."""

    x0: int
    y0: int
    rgb: np.ndarray
    alpha: np.ndarray

    @classmethod
    def around(cls, points: np.ndarray, pad: int = 2, limit: int = 4096) -> Layer:
        """Return an empty layer covering image points (N, 2) plus `pad` pixels."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        x0 = math.floor(pts[:, 0].min()) - pad
        y0 = math.floor(pts[:, 1].min()) - pad
        w = min(limit, math.ceil(pts[:, 0].max()) + pad + 1 - x0)
        h = min(limit, math.ceil(pts[:, 1].max()) + pad + 1 - y0)
        return cls(x0, y0, np.zeros((h, w, 3), np.float32), np.zeros((h, w), np.float32))

    @property
    def shape(self) -> tuple[int, int]:
        """Return (height, width)."""
        return self.alpha.shape[0], self.alpha.shape[1]

    def over(self, colour: np.ndarray, coverage: np.ndarray, at: tuple[int, int] = (0, 0)) -> None:
        """Paint `colour` where `coverage` (whose corner lies at layer row, column `at`) says."""
        y, x = at
        h, w = coverage.shape
        a = coverage[..., None]
        rgb = self.rgb[y : y + h, x : x + w]
        rgb *= 1 - a
        rgb += np.asarray(colour, dtype=np.float32) * a
        alpha = self.alpha[y : y + h, x : x + w]
        alpha *= 1 - coverage
        alpha += coverage

    def _region(self, points: np.ndarray, pad: float) -> tuple[int, int, int, int] | None:
        """Return the layer rows and columns (y0, x0, y1, x1) that points plus `pad` touch."""
        h, w = self.shape
        local = np.asarray(points, dtype=np.float64).reshape(-1, 2) - (self.x0, self.y0)
        x0 = max(0, math.floor(local[:, 0].min() - pad))
        y0 = max(0, math.floor(local[:, 1].min() - pad))
        x1 = min(w, math.ceil(local[:, 0].max() + pad) + 1)
        y1 = min(h, math.ceil(local[:, 1].max() + pad) + 1)
        return (y0, x0, y1, x1) if x0 < x1 and y0 < y1 else None

    def fill(self, points: np.ndarray, colour: tuple[float, ...], opacity: float = 1.0) -> None:
        """Paint a polygon (image pixels) in one colour."""
        region = self._region(points, 1)
        if region is None:
            return
        y0, x0, y1, x1 = region
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(
            mask, [_fixed(np.asarray(points) - (self.x0 + x0, self.y0 + y0))], 255, cv2.LINE_AA, 4
        )
        self.over(np.array(colour, np.float32), mask.astype(np.float32) * (opacity / 255), (y0, x0))

    def circle(
        self, centre: np.ndarray, radius: float, colour: tuple[float, ...], opacity: float = 1.0
    ) -> None:
        """Paint a disc (image pixels)."""
        region = self._region(np.asarray(centre).reshape(1, 2), radius + 1)
        if region is None:
            return
        y0, x0, y1, x1 = region
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        c = _fixed(np.asarray(centre) - (self.x0 + x0, self.y0 + y0))
        cv2.circle(mask, (int(c[0]), int(c[1])), round(radius * 16), 255, -1, cv2.LINE_AA, 4)
        self.over(np.array(colour, np.float32), mask.astype(np.float32) * (opacity / 255), (y0, x0))

    def paste(self, texture: np.ndarray, quad: np.ndarray, alpha: np.ndarray | None = None) -> None:
        """Warp a texture (straight RGB, optional alpha) onto an image quad NW, NE, SE, SW."""
        th, tw = texture.shape[:2]
        a = np.ones((th, tw), np.float32) if alpha is None else alpha
        rgba = np.dstack([texture * a[..., None], a]).astype(np.float32)
        src = np.float32([[-0.5, -0.5], [tw - 0.5, -0.5], [tw - 0.5, th - 0.5], [-0.5, th - 0.5]])
        dst = (np.asarray(quad, dtype=np.float64) - (self.x0, self.y0)).astype(np.float32)
        matrix = cv2.getPerspectiveTransform(src, dst)
        h, w = self.shape
        warped = cv2.warpPerspective(
            rgba, matrix, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
        )
        cover = warped[..., 3]
        self.rgb *= 1 - cover[..., None]
        self.rgb += warped[..., :3]
        self.alpha *= 1 - cover
        self.alpha += cover

    def shade(self, factor: np.ndarray | float) -> None:
        """Multiply the layer's colour (not its coverage) by `factor`."""
        f = np.asarray(factor, dtype=np.float32)
        self.rgb *= f[..., None] if f.ndim == 2 else f

    def blur(self, sigma: float) -> None:
        """Soften the whole layer (defocus), growing it so nothing is cut off."""
        if sigma <= 0.1:
            return
        self._grow(math.ceil(3 * sigma))
        self.rgb = cv2.GaussianBlur(self.rgb, (0, 0), sigma)
        self.alpha = cv2.GaussianBlur(self.alpha, (0, 0), sigma)

    def motion_blur(self, dx: float, dy: float) -> None:
        """Smear the layer along (dx, dy) pixels, as a tumbling die moves during the exposure."""
        length = math.hypot(dx, dy)
        if length < 1.0:
            return
        self._grow(math.ceil(length / 2) + 1)
        size = 2 * math.ceil(length / 2) + 1
        kernel = np.zeros((size, size), np.uint8)
        c = size // 2
        start = _fixed([c - dx / 2, c - dy / 2])
        end = _fixed([c + dx / 2, c + dy / 2])
        cv2.line(kernel, tuple(start), tuple(end), 255, 1, cv2.LINE_AA, 4)
        k = kernel.astype(np.float32)
        k /= k.sum()
        self.rgb = cv2.filter2D(self.rgb, -1, k, borderType=cv2.BORDER_CONSTANT)
        self.alpha = cv2.filter2D(self.alpha, -1, k, borderType=cv2.BORDER_CONSTANT)

    def _grow(self, pad: int) -> None:
        """Add `pad` empty pixels on every side."""
        self.rgb = cv2.copyMakeBorder(self.rgb, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
        self.alpha = cv2.copyMakeBorder(
            self.alpha, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0
        )
        self.x0 -= pad
        self.y0 -= pad


@dataclass
class Coverage:
    """How many pixels an object covered when drawn, and where its layer lay."""

    full: int
    """Pixels of the whole footprint, the part outside the image included."""
    inside: int
    """Pixels of the footprint inside the image, before later objects covered any."""
    box: tuple[int, int, int, int]


@dataclass
class Canvas:
    """The image being drawn plus an id map saying which object shows at each pixel."""

    rgb: np.ndarray
    ids: np.ndarray = field(init=False)
    drawn: dict[int, Coverage] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.ids = np.zeros(self.rgb.shape[:2], np.int32)

    @property
    def size(self) -> tuple[int, int]:
        """Return (width, height)."""
        return self.rgb.shape[1], self.rgb.shape[0]

    def composite(self, layer: Layer, obj_id: int = 0, smeared: bool = False) -> None:
        """Lay `layer` over the image; pixels it covers now show `obj_id` (0: background).

        A smeared (motion-blurred) layer is never opaque: its pixels count as covered where it
        is at least half as opaque as its most opaque pixel, so its id covers the whole streak.
        """
        threshold = (
            _COVERED * min(1.0, float(layer.alpha.max(initial=0.0))) if smeared else _COVERED
        )
        w, h = self.size
        lh, lw = layer.shape
        x0, y0 = max(0, layer.x0), max(0, layer.y0)
        x1, y1 = min(w, layer.x0 + lw), min(h, layer.y0 + lh)
        sub = (slice(y0 - layer.y0, y1 - layer.y0), slice(x0 - layer.x0, x1 - layer.x0))
        a = layer.alpha[sub] if x0 < x1 and y0 < y1 else np.zeros((0, 0), np.float32)
        if obj_id:
            full = int(np.count_nonzero(layer.alpha > threshold))
            inside = int(np.count_nonzero(a > threshold))
            box = (x0, y0, max(x1, x0), max(y1, y0))
            previous = self.drawn.get(obj_id)
            if previous is not None:
                full, inside = full + previous.full, inside + previous.inside
                box = (
                    min(box[0], previous.box[0]),
                    min(box[1], previous.box[1]),
                    max(box[2], previous.box[2]),
                    max(box[3], previous.box[3]),
                )
            self.drawn[obj_id] = Coverage(full, inside, box)
        if a.size == 0:
            return
        roi = self.rgb[y0:y1, x0:x1]
        roi *= 1 - a[..., None]
        roi += layer.rgb[sub]
        if obj_id:
            self.ids[y0:y1, x0:x1][a > threshold] = obj_id

    def visible(self, obj_id: int) -> tuple[int, tuple[int, int, int, int] | None]:
        """Return how many pixels still show `obj_id` and their box (x0, y0, x1, y1), exclusive."""
        coverage = self.drawn.get(obj_id)
        if coverage is None:
            return 0, None
        x0, y0, x1, y1 = coverage.box
        if x0 >= x1 or y0 >= y1:
            return 0, None
        mine = self.ids[y0:y1, x0:x1] == obj_id
        count = int(np.count_nonzero(mine))
        if count == 0:
            return 0, None
        cols = np.flatnonzero(mine.any(axis=0))
        rows = np.flatnonzero(mine.any(axis=1))
        box = (x0 + int(cols[0]), y0 + int(rows[0]), x0 + int(cols[-1]) + 1, y0 + int(rows[-1]) + 1)
        return count, box
