"""Motion gating: re-detect only where the picture changed, and only once it is still again.

Hands and tumbling dice move; nothing that moves can give an event. So a changed region is
marked dirty and re-detected the first frame it stands still, and the boxes elsewhere are
kept. What moves right now is reported, so that the scene stage knows which zones are busy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.detections import Detections

DetectFn = Callable[[np.ndarray], Detections]
"""Runs the detector on a BGR image (a frame or a crop of one)."""

Window = tuple[int, int, int, int]
"""(x0, y0, x1, y1) in frame px."""


@dataclass(frozen=True)
class MotionSettings:
    """When and where to re-detect."""

    scale: int = 4
    """The frame is compared at 1/scale of its size."""
    threshold: int = 18
    """Grey-level change (0-255, after a blur) that counts as motion."""
    window: int = 640
    """Re-detected windows are at least this big (the detector's tile size)."""
    margin: int = 48
    """Px added around each changed region so that a moved object lies whole in its window."""
    full_share: float = 0.8
    """Windows covering more than this share of the frame: detect the whole frame at once."""
    refresh_seconds: float = 10.0
    """Re-detect everything that stands still at least this often (slow light changes)."""


@dataclass(frozen=True)
class GateResult:
    """One frame's detections, how they were made, and what moves."""

    detections: Detections
    windows: tuple[Window, ...]
    """Windows re-detected this frame; the whole frame when `full`."""
    full: bool
    moving: tuple[Window, ...] = ()
    """Boxes around what moved since the previous frame (hands, rolling dice), frame px."""


class MotionGate:
    """Keeps the last detections; re-detects changed regions once they stand still."""

    def __init__(self, detect: DetectFn, settings: MotionSettings | None = None) -> None:
        self.detect = detect
        self.settings = settings or MotionSettings()
        self._previous: np.ndarray | None = None
        self._reference: np.ndarray | None = None
        self._dirty: np.ndarray | None = None
        self._detections: Detections | None = None
        self._last_refresh = -np.inf

    def process(self, frame: np.ndarray, t: float) -> GateResult:
        """Return detections for the frame, re-detecting only what changed and is still now."""
        s = self.settings
        h, w = frame.shape[:2]
        small = self._small(frame)
        if (
            self._detections is None
            or self._previous is None
            or self._previous.shape != small.shape
        ):
            return self._full(frame, small, t)
        assert self._reference is not None and self._dirty is not None
        moving_mask = self._mask(cv2.absdiff(small, self._previous))
        self._previous = small
        self._dirty |= self._mask(cv2.absdiff(small, self._reference))
        if t - self._last_refresh >= s.refresh_seconds:
            self._dirty[:] = True
            self._last_refresh = t
        moving = self._boxes(moving_mask, w, h, grow=False)
        near_motion = cv2.dilate(moving_mask.astype(np.uint8), np.ones((9, 9), np.uint8)).astype(
            bool
        )
        still_dirty = self._dirty & ~near_motion
        windows = _merge(
            [_grow(b, s.window, w, h) for b in self._boxes(still_dirty, w, h)], s.window, w, h
        )
        if not windows:
            return GateResult(self._detections, (), False, tuple(moving))
        area = sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in windows)
        if area > s.full_share * w * h and not moving:
            return self._full(frame, small, t)
        parts = [self._keep_outside(self._detections, windows, w, h)]
        for x0, y0, x1, y1 in windows:
            found = self.detect(frame[y0:y1, x0:x1])
            shifted = Detections(
                found.xyxy + np.array([x0, y0, x0, y0], np.float32),
                found.confidence,
                found.class_id,
                found.class_names,
            )
            parts.append(shifted[_centre_inside(shifted, (x0, y0, x1, y1), w, h, s.margin // 2)])
            self._clean((x0, y0, x1, y1), small)
        self._detections = Detections.concatenate(parts).sorted()
        return GateResult(self._detections, tuple(windows), False, tuple(moving))

    # ----- pictures ------------------------------------------------------------------------

    def _small(self, frame: np.ndarray) -> np.ndarray:
        s = self.settings.scale
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        size = (grey.shape[1] // s, grey.shape[0] // s)
        return cv2.GaussianBlur(cv2.resize(grey, size, interpolation=cv2.INTER_AREA), (5, 5), 0)

    def _mask(self, difference: np.ndarray) -> np.ndarray:
        moved = (difference > self.settings.threshold).astype(np.uint8)
        return cv2.dilate(moved, np.ones((3, 3), np.uint8)).astype(bool)

    def _full(self, frame: np.ndarray, small: np.ndarray, t: float) -> GateResult:
        h, w = frame.shape[:2]
        self._detections = self.detect(frame)
        self._previous = small
        self._reference = small.copy()
        self._dirty = np.zeros(small.shape, bool)
        self._last_refresh = t
        return GateResult(self._detections, ((0, 0, w, h),), True)

    def _clean(self, window: Window, small: np.ndarray) -> None:
        """The window was re-detected: it now shows the reference picture and is clean."""
        assert self._reference is not None and self._dirty is not None
        s = self.settings.scale
        x0, y0, x1, y1 = (v // s for v in window)
        self._reference[y0:y1, x0:x1] = small[y0:y1, x0:x1]
        self._dirty[y0:y1, x0:x1] = False

    def _boxes(self, mask: np.ndarray, w: int, h: int, grow: bool = True) -> list[Window]:
        """Boxes (frame px) around the mask's regions, with the margin when `grow`."""
        s = self.settings
        count, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8))
        margin = s.margin if grow else 0
        boxes = []
        for x, y, bw, bh, px in stats[1:count]:
            if px < 2:
                continue
            boxes.append(
                (
                    max(0, x * s.scale - margin),
                    max(0, y * s.scale - margin),
                    min(w, (x + bw) * s.scale + margin),
                    min(h, (y + bh) * s.scale + margin),
                )
            )
        return boxes

    def _keep_outside(
        self, detections: Detections, windows: list[Window], w: int, h: int
    ) -> Detections:
        """Keep the old boxes whose centre lies outside every re-detected window's inner part."""
        keep = np.ones(len(detections), bool)
        for window in windows:
            keep &= ~_centre_inside(detections, window, w, h, self.settings.margin // 2)
        return detections[keep]


def _grow(box: Window, size: int, w: int, h: int) -> Window:
    """Grow a box to at least `size` x `size` around its centre, kept inside the frame."""
    x0, y0, x1, y1 = box
    out = []
    for lo, hi, limit in ((x0, x1, w), (y0, y1, h)):
        length = min(max(hi - lo, size), limit)
        start = (lo + hi) // 2 - length // 2
        start = min(max(start, 0), limit - length)
        out.append((start, start + length))
    return out[0][0], out[1][0], out[0][1], out[1][1]


def _merge(windows: list[Window], size: int, w: int, h: int) -> list[Window]:
    """Merge overlapping windows into their bounding boxes until none overlap."""
    merged = list(windows)
    changed = True
    while changed:
        changed = False
        for i in range(len(merged)):
            for j in range(i + 1, len(merged)):
                a, b = merged[i], merged[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    union = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    merged[i] = _grow(union, size, w, h)
                    del merged[j]
                    changed = True
                    break
            if changed:
                break
    return merged


def _centre_inside(
    detections: Detections, window: Window, w: int, h: int, inset: int
) -> np.ndarray:
    """Tell which boxes have their centre inside the window shrunk by `inset` (not at borders)."""
    x0, y0, x1, y1 = window
    lx, ly = (x0 + inset if x0 > 0 else 0), (y0 + inset if y0 > 0 else 0)
    hx, hy = (x1 - inset if x1 < w else w), (y1 - inset if y1 < h else h)
    cx = (detections.xyxy[:, 0] + detections.xyxy[:, 2]) / 2
    cy = (detections.xyxy[:, 1] + detections.xyxy[:, 3]) / 2
    return (cx >= lx) & (cx < hx) & (cy >= ly) & (cy < hy)
