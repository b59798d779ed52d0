"""Motion gating: re-detect only where the picture changed, and only once it is still again.

Hands and tumbling dice move; nothing that moves can give an event. So a changed region is
marked dirty and re-detected the first frame it stands still, and the boxes elsewhere are
kept. What moves right now is reported, so that the scene stage knows which zones are busy.

Windows fit the change (a model with a dynamic input runs a small window at its own size,
for a fraction of a full tile's time). Each frame re-detects at most `budget_px` of window
area, so that no frame takes long: a big change is worked off over a few frames, the player
zones and the oldest changes first; what still waits is reported as `stale`, and the scene
treats it as busy.

A die's own picture is kept too: where it lost its pattern, the die's place counts as changed
even when the blurred, shrunk picture hardly moved (a black mask lifted off a dark table).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from vision.perception.classes import DIE_CLASSES
from vision.perception.detections import Detections, box_iou
from vision.perception.tiling import tile_grid

DetectFn = Callable[[np.ndarray], Detections]
"""Runs the detector on a BGR image (a frame or a crop of one)."""

Window = tuple[int, int, int, int]
"""(x0, y0, x1, y1) in frame px."""

DUPLICATE_IOU = 0.5
"""Boxes from two overlapping windows of one frame that overlap this much are one object."""


@dataclass(frozen=True)
class MotionSettings:
    """When and where to re-detect."""

    scale: int = 4
    """The frame is compared at 1/scale of its size."""
    threshold: int = 18
    """Grey-level change (0-255, after a blur) that counts as motion."""
    window: int = 640
    """Re-detected windows are at most this big (the detector's tile size)."""
    min_window: int = 128
    """...and at least this big (640 for a model with a fixed input size: it costs the same)."""
    stride: int = 32
    """Window sides are multiples of this (the model's stride: no padding is wasted)."""
    margin: int = 48
    """Px added around each changed region so that a moved object lies whole in its window."""
    budget_px: int = 2 * 640 * 640
    """Window area re-detected per frame at most (the first window always runs); the rest
    waits for the next frames, so that no frame takes long."""
    focus_seconds: float = 1.0
    """A change in a focus area (a player's zone) goes before changes this much older."""
    still_seconds: float = 0.15
    """A region is still only when it has not changed over at least this long (at a high frame
    rate two frames in a row can hardly differ while a die slowly comes to rest)."""
    box_threshold: float = 12.0
    """Mean grey-level change (0-255) over a die's own box, at full size, that counts as
    its picture changing, when its pattern is gone too (`box_likeness`): a die picked up off a
    dark table (a black mask's dark face, its light rim a few px wide) can change the blurred,
    shrunk picture by less than `threshold`, and its box would stay, a die no longer there,
    until something else moved beside it."""
    box_likeness: float = 0.5
    """...pattern gone: the box's picture now correlates with the one it was found in less
    than this (a hand's shadow darkens a die but keeps its pattern, about 0.9; a die lifted
    off the table leaves wood, below 0)."""
    refresh_seconds: float = 10.0
    """Re-detect everything that stands still at least this often (slow light changes)."""
    gate: bool = True
    """False: re-detect the whole frame every frame (to measure what the gate saves)."""


def polygons_mask(
    polygons_px: Sequence[np.ndarray], shape: tuple[int, ...], scale: int
) -> np.ndarray:
    """Polygons in frame px drawn (True inside) on a mask of `shape` at 1/`scale` of the frame."""
    drawn = np.zeros(shape[:2], np.uint8)
    for polygon in polygons_px:
        cv2.fillPoly(drawn, [np.round(np.asarray(polygon) / scale).astype(np.int32)], 1)
    return drawn.astype(bool)


@dataclass(frozen=True)
class MotionMask:
    """Where the picture moved this frame, at 1/`scale` of the frame's size."""

    mask: np.ndarray
    """Bool, True where the picture moved."""
    scale: int
    """Frame px per mask px."""
    labels: np.ndarray = field(init=False, repr=False)
    """Each moved pixel's region (0: still), labelled once for the gate and the scene."""
    stats: np.ndarray = field(init=False, repr=False)
    """Per region (row 0: the still background): x, y, width, height, pixels."""

    def __post_init__(self) -> None:
        _, labels, stats, _ = cv2.connectedComponentsWithStats(self.mask.astype(np.uint8))
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "stats", stats)

    def meets(self, polygon_mask: np.ndarray) -> bool:
        """Tell whether anything moved inside a polygon drawn at the mask's size."""
        return bool((self.mask & polygon_mask).any())


@dataclass(frozen=True)
class GateResult:
    """One frame's detections, how they were made, and what moves."""

    detections: Detections
    windows: tuple[Window, ...]
    """Windows re-detected this frame; the whole frame when `full`."""
    full: bool
    moving: tuple[Window, ...] = ()
    """Boxes around what moved since the previous frame (hands, rolling dice), frame px."""
    stale: tuple[Window, ...] = ()
    """Boxes around changes that stand still but wait for a later frame: their boxes are old."""
    motion: MotionMask | None = None
    """The pixels that moved (`moving` boxes only bound them: an arm reaching across the
    table has a box over zones it never touches)."""
    unseen: np.ndarray | None = None
    """Bool, at the motion mask's size: pixels that changed since they were last detected
    (their detections are old); None when unknown."""


class MotionGate:
    """Keeps the last detections; re-detects changed regions once they stand still."""

    def __init__(
        self,
        detect: DetectFn,
        settings: MotionSettings | None = None,
        focus: Sequence[np.ndarray] = (),
    ) -> None:
        """`focus`: polygons (frame px) whose changes go first, such as the players' zones."""
        self.detect = detect
        self.settings = settings or MotionSettings()
        self.focus = [np.asarray(p, np.float32).reshape(-1, 2) for p in focus]
        self._focus_mask: np.ndarray | None = None
        self._reference: np.ndarray | None = None
        self._dirty: np.ndarray | None = None
        self._dirty_since: np.ndarray | None = None
        self._detections: Detections | None = None
        self._last_refresh = -np.inf
        self._history: deque[tuple[float, np.ndarray]] = deque()
        self._pictures: dict[tuple[int, ...], np.ndarray] = {}
        """Each kept die's picture (grey, full size) when it was found, by its box."""

    def _older_than(self, when: float) -> np.ndarray | None:
        """The newest remembered small frame from `when` or before, else the oldest one (older
        ones are dropped)."""
        while len(self._history) > 1 and self._history[1][0] <= when:
            self._history.popleft()
        return self._history[0][1] if self._history else None

    def process(self, frame: np.ndarray, t: float) -> GateResult:
        """Return detections for the frame, re-detecting what changed and is still now."""
        s = self.settings
        h, w = frame.shape[:2]
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        small = self._small(grey)
        previous = self._history[-1][1] if self._history else None
        if (
            not s.gate
            or self._detections is None
            or previous is None
            or previous.shape != small.shape
        ):
            if not s.gate:  # what moves is still reported: the scene needs it
                motion = None
                if previous is not None and previous.shape == small.shape:
                    motion = MotionMask(self._mask(cv2.absdiff(small, previous)), s.scale)
                moving = () if motion is None else tuple(self._region_boxes(motion.stats, w, h))
                result = self._full(frame, grey, small, t)
                return GateResult(
                    result.detections, result.windows, True, moving, (), motion, result.unseen
                )
            return self._full(frame, grey, small, t)
        assert self._reference is not None and self._dirty is not None
        assert self._dirty_since is not None
        moving_mask = self._mask(cv2.absdiff(small, previous))
        older = self._older_than(t - s.still_seconds)
        if older is not None and older is not previous:
            moving_mask |= self._mask(cv2.absdiff(small, older))
        self._history.append((t, small))
        changed = self._mask(cv2.absdiff(small, self._reference)) | self._boxes_changed(grey)
        if t - self._last_refresh >= s.refresh_seconds:
            changed[:] = True
            self._last_refresh = t
        self._dirty_since[changed & ~self._dirty] = t
        self._dirty |= changed
        motion = MotionMask(moving_mask, s.scale)
        moving = self._region_boxes(motion.stats, w, h)
        near_motion = cv2.dilate(moving_mask.astype(np.uint8), np.ones((9, 9), np.uint8)).astype(
            bool
        )
        still_dirty = self._dirty & ~near_motion
        candidates = self._plan(still_dirty, w, h)
        if not candidates:
            return GateResult(
                self._detections, (), False, tuple(moving), (), motion, self._dirty.copy()
            )
        count, area = 0, 0
        for x0, y0, x1, y1 in candidates:
            area += (x1 - x0) * (y1 - y0)
            if count and area > s.budget_px:
                break
            count += 1
        windows = candidates[:count]
        stale = [self._dirty_box(still_dirty, window) for window in candidates[count:]]
        changed_before = self._dirty.copy()
        found = []
        for x0, y0, x1, y1 in windows:
            part = self.detect(frame[y0:y1, x0:x1])
            shifted = replace(part, xyxy=part.xyxy + np.array([x0, y0, x0, y0], np.float32))
            found.append(shifted[_centre_inside(shifted, (x0, y0, x1, y1), w, h, s.margin // 2)])
            self._clean((x0, y0, x1, y1), small)
        new = Detections.concatenate(found).nms(DUPLICATE_IOU) if len(found) > 1 else found[0]
        kept = self._keep_outside(self._detections, windows, w, h, changed_before, new)
        self._detections = Detections.concatenate([kept, new]).sorted()
        self._remember(grey)
        return GateResult(
            self._detections,
            tuple(windows),
            False,
            tuple(moving),
            tuple(stale),
            motion,
            self._dirty.copy(),
        )

    # ----- planning ------------------------------------------------------------------------

    def _plan(self, still_dirty: np.ndarray, w: int, h: int) -> list[Window]:
        """Windows over the still, changed regions; the most urgent first."""
        s = self.settings
        assert self._dirty_since is not None
        windows: list[Window] = []
        for box in self._boxes(still_dirty, w, h):
            x0, y0, x1, y1 = box
            if x1 - x0 <= s.window and y1 - y0 <= s.window:
                windows.append(self._fit(box, w, h))
                continue
            for tx0, ty0, tx1, ty1 in tile_grid(x1 - x0, y1 - y0, s.window, 2 * s.margin):
                tile = (x0 + tx0, y0 + ty0, x0 + tx1, y0 + ty1)
                if self._cut(still_dirty, tile).any():
                    windows.append(self._fit(self._inside(tile, still_dirty, w, h), w, h))
        windows = _merge_small(windows, s.window)
        focus = self._focus(still_dirty.shape)

        def urgency(window: Window) -> float:
            region = self._cut(still_dirty, window)
            since = self._cut(self._dirty_since, window)[region]
            oldest = float(since.min()) if since.size else np.inf
            return oldest - (s.focus_seconds if self._cut(focus, window)[region].any() else 0.0)

        return sorted(windows, key=urgency)

    def _inside(self, tile: Window, still_dirty: np.ndarray, w: int, h: int) -> Window:
        """The changed pixels under a tile, with the margin, kept within the tile."""
        x0, y0, x1, y1 = self._dirty_box(still_dirty, tile)
        m = self.settings.margin
        return (
            max(tile[0], x0 - m, 0),
            max(tile[1], y0 - m, 0),
            min(tile[2], x1 + m, w),
            min(tile[3], y1 + m, h),
        )

    def _fit(self, box: Window, w: int, h: int) -> Window:
        """Grow a box to a window: sides multiples of the stride, at least `min_window`."""
        s = self.settings
        x0, y0, x1, y1 = box
        side_w = max(s.min_window, -(-(x1 - x0) // s.stride) * s.stride)
        side_h = max(s.min_window, -(-(y1 - y0) // s.stride) * s.stride)
        return _grow_to(box, min(side_w, s.window), min(side_h, s.window), w, h)

    def _dirty_box(self, still_dirty: np.ndarray, window: Window) -> Window:
        """The box (frame px) around the changed pixels under a window."""
        scale = self.settings.scale
        ys, xs = np.nonzero(self._cut(still_dirty, window))
        x0, y0 = window[0] // scale, window[1] // scale
        return (
            (x0 + int(xs.min())) * scale,
            (y0 + int(ys.min())) * scale,
            (x0 + int(xs.max()) + 1) * scale,
            (y0 + int(ys.max()) + 1) * scale,
        )

    def _cut(self, small_image: np.ndarray, window: Window) -> np.ndarray:
        """The part of a small-scale image under a frame-px window."""
        x0, y0, x1, y1 = (v // self.settings.scale for v in window)
        return small_image[y0:y1, x0:x1]

    def _focus(self, shape: tuple[int, ...]) -> np.ndarray:
        if self._focus_mask is None or self._focus_mask.shape != shape:
            self._focus_mask = polygons_mask(self.focus, shape, self.settings.scale)
        return self._focus_mask

    # ----- pictures ------------------------------------------------------------------------

    def _small(self, grey: np.ndarray) -> np.ndarray:
        s = self.settings.scale
        size = (grey.shape[1] // s, grey.shape[0] // s)
        return cv2.GaussianBlur(cv2.resize(grey, size, interpolation=cv2.INTER_AREA), (5, 5), 0)

    def _mask(self, difference: np.ndarray) -> np.ndarray:
        moved = (difference > self.settings.threshold).astype(np.uint8)
        return cv2.dilate(moved, np.ones((3, 3), np.uint8)).astype(bool)

    def _full(self, frame: np.ndarray, grey: np.ndarray, small: np.ndarray, t: float) -> GateResult:
        h, w = frame.shape[:2]
        self._detections = self.detect(frame)
        self._pictures = {}
        self._remember(grey)
        self._reference = small.copy()
        self._dirty = np.zeros(small.shape, bool)
        self._dirty_since = np.full(small.shape, np.inf)
        self._last_refresh = t
        self._history = deque([(t, small)])
        return GateResult(self._detections, ((0, 0, w, h),), True, unseen=self._dirty.copy())

    def _remember(self, grey: np.ndarray) -> None:
        """Keep each die's picture from when it was found (new boxes: this frame's). Only dice:
        a figure's box holds its neighbours, who come and go."""
        assert self._detections is not None
        pictures = {}
        names = np.asarray(self._detections.class_names)[self._detections.class_id]
        for box in self._detections.xyxy[np.isin(names, DIE_CLASSES)]:
            key = _box_key(box, grey.shape)
            picture = self._pictures.get(key)
            if picture is None:
                x0, y0, x1, y1 = key
                picture = grey[y0:y1, x0:x1].copy()
            pictures[key] = picture
        self._pictures = pictures

    def _boxes_changed(self, grey: np.ndarray) -> np.ndarray:
        """Mark (at the small scale) the dice whose own picture changed since they were found."""
        s = self.settings
        marked = np.zeros((grey.shape[0] // s.scale, grey.shape[1] // s.scale), bool)
        for (x0, y0, x1, y1), picture in self._pictures.items():
            now = grey[y0:y1, x0:x1]
            if now.size < 4 or cv2.absdiff(now, picture).mean() <= s.box_threshold:
                continue
            likeness = cv2.matchTemplate(now, picture, cv2.TM_CCOEFF_NORMED)[0, 0]
            if likeness < s.box_likeness:  # its middle only: a die touching it is not marked
                middle = _inner(np.array([x0, y0, x1, y1], np.float32))
                ix0, iy0, ix1, iy1 = (v // s.scale for v in middle)
                marked[iy0 : iy1 + 1, ix0 : ix1 + 1] = True
        return marked

    def _clean(self, window: Window, small: np.ndarray) -> None:
        """The window's inner part was re-detected: it shows the reference picture again.

        Its outer band, a margin wide (but at the frame's edge), stays dirty, and a later window
        sees it whole: boxes are taken from a window only half a margin from its edge (nearer,
        a box kept from before stays, see `_keep_outside`), and a die between the two, which
        the detector may miss so near the border, would otherwise not be looked at again until
        something moves there.
        """
        assert self._reference is not None and self._dirty is not None
        assert self._dirty_since is not None
        s = self.settings
        height, width = small.shape[:2]
        inset = s.margin // s.scale
        x0, y0, x1, y1 = (v // s.scale for v in window)
        x0, y0 = (x0 + inset if x0 > 0 else 0), (y0 + inset if y0 > 0 else 0)
        x1, y1 = (x1 - inset if x1 < width else width), (y1 - inset if y1 < height else height)
        self._reference[y0:y1, x0:x1] = small[y0:y1, x0:x1]
        self._dirty[y0:y1, x0:x1] = False
        self._dirty_since[y0:y1, x0:x1] = np.inf

    def _boxes(self, mask: np.ndarray, w: int, h: int) -> list[Window]:
        """Boxes (frame px) around the mask's regions, with the margin."""
        _, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8))
        return self._region_boxes(stats, w, h, self.settings.margin)

    def _region_boxes(self, stats: np.ndarray, w: int, h: int, margin: int = 0) -> list[Window]:
        """Boxes (frame px) around labelled regions (`cv2.connectedComponentsWithStats`'s stats,
        row 0 the background), grown by `margin`; regions of one mask pixel are left out."""
        s = self.settings
        boxes = []
        for x, y, bw, bh, px in stats[1:].tolist():
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
        self,
        detections: Detections,
        windows: Sequence[Window],
        w: int,
        h: int,
        changed: np.ndarray,
        new: Detections,
    ) -> Detections:
        """Keep the old boxes whose centre lies outside every re-detected window's inner part,
        and those inside whose picture has not changed since they were found, unless a new box
        overlaps them: a window re-detected for a change beside a die may miss the die at its
        edge (under a hand's shadow, cut by the border), and nothing would find it again until
        something moves there."""
        keep = np.ones(len(detections), bool)
        for window in windows:
            keep &= ~_centre_inside(detections, window, w, h, self.settings.margin // 2)
        dropped = np.flatnonzero(~keep)
        overlapped = (box_iou(detections.xyxy[dropped], new.xyxy) > 0).any(axis=1)
        for i, covered in zip(dropped, overlapped, strict=True):
            keep[i] = not covered and not self._cut(changed, _inner(detections.xyxy[i])).any()
        return detections[keep]


def _box_key(box: np.ndarray, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """A box as whole px inside the frame: its picture's place and its key."""
    h, w = shape[:2]
    x0, y0, x1, y1 = (round(float(v)) for v in box)
    return max(0, x0), max(0, y0), min(w, max(x1, x0 + 1)), min(h, max(y1, y0 + 1))


def _grow_to(box: Window, width: int, height: int, w: int, h: int) -> Window:
    """Grow a box to at least `width` x `height` around its centre, kept inside the frame."""
    x0, y0, x1, y1 = box
    out = []
    for lo, hi, size, limit in ((x0, x1, width, w), (y0, y1, height, h)):
        length = min(max(hi - lo, size), limit)
        start = (lo + hi) // 2 - length // 2
        start = min(max(start, 0), limit - length)
        out.append((start, start + length))
    return out[0][0], out[1][0], out[0][1], out[1][1]


def _merge_small(windows: list[Window], size: int) -> list[Window]:
    """Join overlapping windows when their union fits one window and costs no more than both."""
    merged = list(dict.fromkeys(windows))
    changed = True
    while changed:
        changed = False
        for i in range(len(merged)):
            for j in range(i + 1, len(merged)):
                a, b = merged[i], merged[j]
                union = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                fits = union[2] - union[0] <= size and union[3] - union[1] <= size
                if fits and _area(union) <= _area(a) + _area(b):
                    merged[i] = union
                    del merged[j]
                    changed = True
                    break
            if changed:
                break
    return merged


def _area(box: Window) -> int:
    return (box[2] - box[0]) * (box[3] - box[1])


def _inner(box: np.ndarray, share: float = 0.5) -> Window:
    """The middle `share` of a box (frame px, at least 1 px a side): its object's own picture."""
    x0, y0, x1, y1 = (float(v) for v in box)
    dx, dy = (x1 - x0) * (1 - share) / 2, (y1 - y0) * (1 - share) / 2
    left, top = max(0, round(x0 + dx)), max(0, round(y0 + dy))
    return left, top, max(round(x1 - dx), left + 1), max(round(y1 - dy), top + 1)


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
