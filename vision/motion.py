"""Motion gating: run the detector only where the picture changed, keep the rest of the boxes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.detections import Detections

DetectFn = Callable[[np.ndarray], Detections]
"""Runs the detector on a BGR image (a frame or a crop of one)."""


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
    full_share: float = 0.35
    """Changed windows covering more than this share of the frame: detect the whole frame."""
    refresh_seconds: float = 5.0
    """Detect the whole frame at least this often (slow light changes, missed motion)."""


@dataclass(frozen=True)
class GateResult:
    """One frame's detections and how they were made."""

    detections: Detections
    windows: tuple[tuple[int, int, int, int], ...]
    """Windows re-detected (x0, y0, x1, y1); the whole frame when `full`."""
    full: bool


class MotionGate:
    """Re-detects only the windows where the frame changed since the last detection."""

    def __init__(self, detect: DetectFn, settings: MotionSettings | None = None) -> None:
        self.detect = detect
        self.settings = settings or MotionSettings()
        self._reference: np.ndarray | None = None
        self._detections: Detections | None = None
        self._last_full = -np.inf

    def process(self, frame: np.ndarray, t: float) -> GateResult:
        """Return detections for the frame, re-detecting only what moved."""
        s = self.settings
        h, w = frame.shape[:2]
        small = self._small(frame)
        due = t - self._last_full >= s.refresh_seconds
        if self._reference is None or self._detections is None or due:
            return self._full(frame, small, t)
        windows = self._changed_windows(small, w, h)
        if not windows:
            return GateResult(self._detections, (), False)
        area = sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in windows)
        if area > s.full_share * w * h:
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
            parts.append(_inside(shifted, (x0, y0, x1, y1), w, h, s.margin // 2))
        self._detections = Detections.concatenate(parts).sorted()
        self._update_reference(small, windows)
        return GateResult(self._detections, tuple(windows), False)

    def _small(self, frame: np.ndarray) -> np.ndarray:
        s = self.settings.scale
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        small = cv2.resize(
            grey, (grey.shape[1] // s, grey.shape[0] // s), interpolation=cv2.INTER_AREA
        )
        return cv2.GaussianBlur(small, (5, 5), 0)

    def _full(self, frame: np.ndarray, small: np.ndarray, t: float) -> GateResult:
        h, w = frame.shape[:2]
        self._detections = self.detect(frame)
        self._reference = small
        self._last_full = t
        return GateResult(self._detections, ((0, 0, w, h),), True)

    def _changed_windows(
        self, small: np.ndarray, w: int, h: int
    ) -> list[tuple[int, int, int, int]]:
        """Windows (full-size px) around the regions that changed, merged when they overlap."""
        assert self._reference is not None
        s = self.settings
        moved = cv2.absdiff(small, self._reference) > s.threshold
        moved = cv2.dilate(moved.astype(np.uint8), np.ones((3, 3), np.uint8))
        count, _, stats, _ = cv2.connectedComponentsWithStats(moved)
        windows: list[tuple[int, int, int, int]] = []
        for x, y, bw, bh, px in stats[1:count]:
            if px < 2:
                continue
            box = (x * s.scale - s.margin, y * s.scale - s.margin)
            end = ((x + bw) * s.scale + s.margin, (y + bh) * s.scale + s.margin)
            windows.append(_grow((box[0], box[1], end[0], end[1]), s.window, w, h))
        return _merge(windows, s.window, w, h)

    def _keep_outside(
        self, detections: Detections, windows: list[tuple[int, int, int, int]], w: int, h: int
    ) -> Detections:
        """Keep the old boxes whose centre lies outside every re-detected window's inner part."""
        keep = np.ones(len(detections), bool)
        for window in windows:
            keep &= ~_centre_inside(detections, window, w, h, self.settings.margin // 2)
        return detections[keep]

    def _update_reference(
        self, small: np.ndarray, windows: list[tuple[int, int, int, int]]
    ) -> None:
        """The re-detected windows now show the new picture; the rest keeps the old reference."""
        assert self._reference is not None
        s = self.settings.scale
        for x0, y0, x1, y1 in windows:
            self._reference[y0 // s : y1 // s, x0 // s : x1 // s] = small[
                y0 // s : y1 // s, x0 // s : x1 // s
            ]


def _grow(box: tuple[int, int, int, int], size: int, w: int, h: int) -> tuple[int, int, int, int]:
    """Grow a box to at least `size` x `size` around its centre, kept inside the frame."""
    x0, y0, x1, y1 = box
    out = []
    for lo, hi, limit in ((x0, x1, w), (y0, y1, h)):
        length = min(max(hi - lo, size), limit)
        start = (lo + hi) // 2 - length // 2
        start = min(max(start, 0), limit - length)
        out.append((start, start + length))
    return out[0][0], out[1][0], out[0][1], out[1][1]


def _merge(
    windows: list[tuple[int, int, int, int]], size: int, w: int, h: int
) -> list[tuple[int, int, int, int]]:
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
    detections: Detections, window: tuple[int, int, int, int], w: int, h: int, inset: int
) -> np.ndarray:
    """Tell which boxes have their centre inside the window shrunk by `inset` (not at borders)."""
    x0, y0, x1, y1 = window
    lx, ly = (x0 + inset if x0 > 0 else 0), (y0 + inset if y0 > 0 else 0)
    hx, hy = (x1 - inset if x1 < w else w), (y1 - inset if y1 < h else h)
    cx = (detections.xyxy[:, 0] + detections.xyxy[:, 2]) / 2
    cy = (detections.xyxy[:, 1] + detections.xyxy[:, 3]) / 2
    return (cx >= lx) & (cx < hx) & (cy >= ly) & (cy < hy)


def _inside(
    detections: Detections, window: tuple[int, int, int, int], w: int, h: int, inset: int
) -> Detections:
    return detections[_centre_inside(detections, window, w, h, inset)]
