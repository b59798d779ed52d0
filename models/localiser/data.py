"""Training data for the localiser: rendered frames in memory, native-scale patches and targets.

Frames come from `templecam synth` datasets (images/ and scenes/*.json). Each is kept in memory
once, downscaled to the largest training scale; a patch is a window of it resized to a random
scale around the run-time one (dice 10-17 px), centred on a die, on a look-alike (tile art,
gems, hands, figures: the hard negatives) or anywhere. Targets follow CenterNet: one Gaussian
per object centre in its class's heatmap, the box size and centre offset at the centre's cell,
and a mask of cells to ignore around objects too hidden to label.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.perception.classes import DIE_CLASSES
from vision.perception.localiser_decode import STRIDE

LOCALISER_CLASSES: tuple[str, ...] = ("die", "gem", "tile", "tile_back", "figure", "hand")
"""What the localiser finds: every die as one class (the face reader names its face) and the
pieces the scene needs."""
RUN_SCALE = 0.5
"""The run-time resize of a 1080p frame whose dice are about 30 px (they become 15 px)."""
NATIVE_DIE_PX = 15.0
"""The die edge, in network input px, the localiser expects: a camera whose dice are D px
across in the frame runs at input scale NATIVE_DIE_PX / D (0.5 for 30 px dice at 1080p, 0.75
for 20 px dice at 720p)."""
DIE_PX_RANGE = (9.5, 22.0)
"""Training patches show dice of this many input px (random scale per patch): a scale chosen
from a die size measured 30 % off still lands inside."""
CAMERA_DIE_PX = (13.0, 46.0)
"""Dice as small or big as this in the camera's own frame are simulated (a 720p webcam far up:
13 px; a 1080p one close by: 46 px) by degrading patches to that resolution."""
SCALE_RANGE = (0.38, 0.65)
"""Scales of the full frame for frames whose die size is unknown (old scene files)."""
CACHE_SCALE = SCALE_RANGE[1]
DEFAULT_DIE_PX = 30.0
"""A frame's die edge when its scene file does not say (1080p renders: 27-33 px)."""


class LocaliserDataError(Exception):
    """The training data cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class Objects:
    """One frame's objects in full-frame px: boxes (N, 4), class index (N,), ignore flag (N,)."""

    xyxy: np.ndarray
    cls: np.ndarray
    ignore: np.ndarray
    negatives: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))
    """Boxes (M, 4) of things that are no piece (beads, coins, cards, cups...): patches are
    centred on them as hard negatives."""
    die_px: float = DEFAULT_DIE_PX
    """The frame's median die edge in px (from the renderer's `size_px`)."""


def class_of(label: str | None) -> int | None:
    """Return the localiser class of a scene label (None: not one of ours)."""
    if label in DIE_CLASSES:
        return 0
    if label in LOCALISER_CLASSES:
        return LOCALISER_CLASSES.index(label)
    return None


def scene_objects(scene: dict) -> Objects:
    """Return every object of a renderer scene JSON; unlabelled but visible ones are ignored."""
    items: list[tuple[list[float], int, bool]] = []

    def add(entry: dict, kind: str) -> None:
        box = entry.get("box")
        if box is None:
            return
        label = entry.get("label")
        cls = class_of(label) if label is not None else class_of(kind)
        if cls is None:
            return
        if label is None and float(entry.get("visible", 0.0)) < 0.05:
            return
        items.append(([float(v) for v in box], cls, label is None))

    for die in scene.get("dice", []):
        add(die, "die_unreadable")
    for tile in scene.get("tiles", []):
        add(tile, "tile")
    for piece in (scene.get("draw_pile") or {}).get("pieces", []):
        add(piece, "tile_back")
    for gem in (scene.get("gems") or {}).get("items", []):
        add(gem, "gem")
    for figure in scene.get("figures", []):
        add(figure, "figure")
    for hand in scene.get("hands", []):
        add(hand, "hand")
    clutter = [c["box"] for c in scene.get("clutter", []) if c.get("box") is not None]
    negatives = np.asarray(clutter, np.float32).reshape(-1, 4)
    sizes = [float(d.get("size_px") or 0.0) for d in scene.get("dice", [])]
    sizes = [v for v in sizes if v > 0]
    die_px = float(np.median(sizes)) if sizes else DEFAULT_DIE_PX
    if not items:
        empty = np.zeros((0, 4), np.float32)
        return Objects(empty, np.zeros(0, np.int64), np.zeros(0, bool), negatives, die_px)
    boxes, classes, ignore = zip(*items, strict=True)
    return Objects(
        np.asarray(boxes, np.float32),
        np.asarray(classes, np.int64),
        np.asarray(ignore, bool),
        negatives,
        die_px,
    )


def frame_scale(die_px: float) -> float:
    """Return the input scale that shows dice of `die_px` frame px at `NATIVE_DIE_PX`."""
    return NATIVE_DIE_PX / max(die_px, 1.0)


def synth_frames(folder: Path, split: str) -> list[tuple[Path, Path]]:
    """Return (image, scene JSON) pairs of a `templecam synth` dataset's split."""
    images = folder / "images" / split
    scenes = folder / "scenes" / split
    if not images.is_dir() or not scenes.is_dir():
        raise LocaliserDataError(
            f"{folder}: no images/{split} and scenes/{split} folders; make the data with "
            f"`templecam synth --out {folder}`"
        )
    pairs = []
    for image in sorted(images.iterdir()):
        scene = scenes / f"{image.stem}.json"
        if image.suffix.lower() in (".jpg", ".png") and scene.is_file():
            pairs.append((image, scene))
    return pairs


@dataclass
class Frame:
    """A frame in memory at `scale` of its full size, with its objects in full-frame px."""

    image: np.ndarray
    scale: float
    objects: Objects


def load_frames(
    pairs: Sequence[tuple[Path, Path]],
    scale: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Frame]:
    """Read frames (RGB) downscaled to `scale` (None: to the largest scale training draws for
    the frame's die size), with their objects."""
    frames = []
    for i, (image_path, scene_path) in enumerate(pairs):
        image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if image is None:
            raise LocaliserDataError(f"{image_path}: not an image OpenCV can read")
        scene = json.loads(scene_path.read_text())
        objects = scene_objects(scene)
        k = scale or min(1.0, DIE_PX_RANGE[1] / objects.die_px)
        small = cv2.resize(image, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        frames.append(Frame(cv2.cvtColor(small, cv2.COLOR_BGR2RGB), k, objects))
        if progress is not None:
            progress(i + 1, len(pairs))
    return frames


def gaussian_targets(
    objects: Objects, scale: float, origin: tuple[float, float], size: int, classes: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return heat (C, S, S), box (4, S, S), box mask (S, S) and loss weight (C, S, S).

    `origin` is the patch's top-left corner in full-frame px, `scale` the patch's px per
    full-frame px and `size` the patch side in px; S = size / STRIDE.
    """
    cells = size // STRIDE
    heat = np.zeros((classes, cells, cells), np.float32)
    weight = np.ones((classes, cells, cells), np.float32)
    box = np.zeros((4, cells, cells), np.float32)
    mask = np.zeros((cells, cells), np.float32)
    ox, oy = origin
    for (x0, y0, x1, y1), cls, ignore in zip(
        objects.xyxy, objects.cls, objects.ignore, strict=True
    ):
        w, h = (x1 - x0) * scale, (y1 - y0) * scale
        cx, cy = ((x0 + x1) / 2 - ox) * scale / STRIDE, ((y0 + y1) / 2 - oy) * scale / STRIDE
        if ignore:
            c0, c1 = int(max(0, (x0 - ox) * scale / STRIDE)), int((x1 - ox) * scale / STRIDE) + 1
            r0, r1 = int(max(0, (y0 - oy) * scale / STRIDE)), int((y1 - oy) * scale / STRIDE) + 1
            if c0 < cells and r0 < cells and c1 > 0 and r1 > 0:
                weight[cls, r0:r1, c0:c1] = 0.0
            continue
        if not (0 <= cx < cells and 0 <= cy < cells) or w < 1 or h < 1:
            continue
        sx = max(0.5, w / STRIDE / 6)
        sy = max(0.5, h / STRIDE / 6)
        col, row = int(cx), int(cy)
        rx, ry = int(3 * sx) + 1, int(3 * sy) + 1
        c0, c1, r0, r1 = (
            max(0, col - rx),
            min(cells, col + rx + 1),
            max(0, row - ry),
            min(cells, row + ry + 1),
        )
        gx = np.exp(-(((np.arange(c0, c1) - col) / sx) ** 2) / 2)
        gy = np.exp(-(((np.arange(r0, r1) - row) / sy) ** 2) / 2)
        region = heat[cls, r0:r1, c0:c1]
        np.maximum(region, gy[:, None] * gx[None, :], out=region)
        heat[cls, row, col] = 1.0
        box[:, row, col] = (np.log(w), np.log(h), cx - col - 0.5, cy - row - 0.5)
        mask[row, col] = 1.0
    return heat, box, mask, weight


class PatchSampler:
    """Draws training patches: centred on a die, a hard negative, or anywhere, at random scales."""

    def __init__(
        self,
        frames: Sequence[Frame],
        size: int = 256,
        seed: int = 0,
        mix: tuple[float, float] = (0.45, 0.25),
        clutter: float = 0.15,
        degrade: float = 0.35,
    ) -> None:
        """Sample `size` px patches; `mix`: the share centred on a die, then on another piece;
        `clutter`: the share centred on a thing that is no piece (when the frame has one);
        `degrade`: the share brought down to a smaller camera's resolution first."""
        if not frames:
            raise LocaliserDataError("no training frames")
        self.frames = list(frames)
        self.size = size
        self.rng = np.random.default_rng(seed)
        self.mix = mix
        self.clutter = clutter
        self.degrade = degrade

    def _centre(self, frame: Frame, scale: float) -> tuple[float, float]:
        """Pick the patch centre in full-frame px."""
        objects = frame.objects
        roll = self.rng.random()
        dice = np.flatnonzero((objects.cls == 0) & ~objects.ignore)
        others = np.flatnonzero(objects.cls != 0)
        pick = None
        if roll < self.mix[0] and len(dice):
            pick = self.rng.choice(dice)
        elif roll < self.mix[0] + self.mix[1] and len(others):
            pick = self.rng.choice(others)
        h, w = frame.image.shape[:2]
        negatives = objects.negatives
        if pick is None and roll < sum(self.mix) + self.clutter and len(negatives):
            x0, y0, x1, y1 = negatives[self.rng.integers(len(negatives))]
            span = self.size / scale / 4
            return (
                self.rng.uniform(x0, x1) + self.rng.uniform(-span, span),
                self.rng.uniform(y0, y1) + self.rng.uniform(-span, span),
            )
        if pick is None:
            return self.rng.uniform(0, w / frame.scale), self.rng.uniform(0, h / frame.scale)
        x0, y0, x1, y1 = objects.xyxy[pick]
        # Anywhere over the object, and up to a patch's width around it: the network must see
        # dice at every position of its window, not always in the middle.
        span = self.size / scale / 2
        return (
            self.rng.uniform(x0, x1) + self.rng.uniform(-span, span) * 0.8,
            self.rng.uniform(y0, y1) + self.rng.uniform(-span, span) * 0.8,
        )

    def sample(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Return one patch (3, S, S) float in 0..1 and its targets (see `gaussian_targets`)."""
        frame = self.frames[self.rng.integers(len(self.frames))]
        die_px = frame.objects.die_px
        scale = float(self.rng.uniform(*DIE_PX_RANGE)) / die_px
        scale = min(scale, frame.scale)  # never enlarge the cached copy
        cx, cy = self._centre(frame, scale)
        side = self.size / scale  # full-frame px
        ox, oy = cx - side / 2, cy - side / 2
        # The affine map full-frame px -> patch px, applied to the cached (downscaled) image.
        k = scale / frame.scale
        matrix = np.array([[k, 0, -ox * scale], [0, k, -oy * scale]], np.float32)
        patch = cv2.warpAffine(
            frame.image,
            matrix,
            (self.size, self.size),
            flags=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=(114, 114, 114),
        )
        if self.rng.random() < self.degrade:
            patch = self._low_resolution(patch, scale * die_px)
        patch = self._photometric(patch)
        heat, box, mask, weight = gaussian_targets(
            frame.objects, scale, (ox, oy), self.size, len(LOCALISER_CLASSES)
        )
        if self.rng.random() < 0.5:  # a table has no up: flips keep the targets' meaning
            patch, heat, box, mask, weight = _flip(patch, heat, box, mask, weight, axis=1)
        if self.rng.random() < 0.5:
            patch, heat, box, mask, weight = _flip(patch, heat, box, mask, weight, axis=0)
        image = patch.astype(np.float32).transpose(2, 0, 1) / 255.0
        return image, heat, box, mask, weight

    def _low_resolution(self, patch: np.ndarray, die_here: float) -> np.ndarray:
        """Return the patch as a camera whose dice are fewer px would show it at this scale:
        down to that camera's resolution and back up (blurrier, fewer details)."""
        camera_die = float(self.rng.uniform(*CAMERA_DIE_PX))
        ratio = camera_die / max(die_here, 1e-6)
        if ratio >= 1.0:
            return patch  # that camera would have shown more than the patch holds
        side = max(8, round(self.size * ratio))
        small = cv2.resize(patch, (side, side), interpolation=cv2.INTER_AREA)
        if self.rng.random() < 0.5:  # and its stream was compressed at that size
            quality = int(self.rng.integers(35, 90))
            ok, data = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, quality])
            if ok:
                small = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
        return cv2.resize(small, (self.size, self.size), interpolation=cv2.INTER_LINEAR)

    def _photometric(self, patch: np.ndarray) -> np.ndarray:
        """Vary brightness, contrast, white balance, blur and noise a little more than rendered."""
        rng = self.rng
        out = patch.astype(np.float32)
        out = out * rng.uniform(0.7, 1.3) + rng.uniform(-20, 20)
        out = out * rng.uniform(0.88, 1.12, size=3)
        if rng.random() < 0.25:
            out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.0))
        if rng.random() < 0.5:
            out = out + rng.normal(0, rng.uniform(1, 6), out.shape)
        return np.clip(out, 0, 255).astype(np.uint8)

    def batch(self, n: int) -> tuple[np.ndarray, ...]:
        """Return `n` stacked samples."""
        samples = [self.sample() for _ in range(n)]
        return tuple(np.stack(part) for part in zip(*samples, strict=True))


def _flip(
    patch: np.ndarray,
    heat: np.ndarray,
    box: np.ndarray,
    mask: np.ndarray,
    weight: np.ndarray,
    axis: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mirror a patch and its targets left-right (axis=1) or top-bottom (axis=0)."""
    patch = np.ascontiguousarray(np.flip(patch, axis=axis))
    heat = np.ascontiguousarray(np.flip(heat, axis=axis + 1))
    weight = np.ascontiguousarray(np.flip(weight, axis=axis + 1))
    mask = np.ascontiguousarray(np.flip(mask, axis=axis))
    box = np.ascontiguousarray(np.flip(box, axis=axis + 1))
    offset = 2 if axis == 1 else 3
    box[offset] = -box[offset] * mask
    return patch, heat, box, mask, weight
