"""Tiling a big frame: overlapping tiles at full resolution, and their detections merged into one.

Boxes cut by a tile edge give way to the tile that sees the object whole, pieces of big objects
are joined, and an optional whole-frame pass adds the objects too big for a tile.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from vision.perception.detections import Detections

EDGE_MARGIN = 3.0
"""A box edge this close (frame px) to a tile edge inside the frame counts as cut by it."""
MERGE_IOU = 0.5
"""Boxes from two tiles are one object when they overlap this much where both tiles see."""


def tile_starts(length: int, tile: int, overlap: int) -> list[int]:
    """Return tile starts along one axis: evenly spread, covering it, overlapping >= `overlap`."""
    if length <= tile:
        return [0]
    count = math.ceil((length - overlap) / (tile - overlap))
    span = length - tile
    return [i * span // (count - 1) for i in range(count)]


def tile_grid(width: int, height: int, tile: int, overlap: int) -> list[tuple[int, int, int, int]]:
    """Return the tiles (x0, y0, x1, y1) covering a `width` x `height` frame, row by row."""
    return [
        (x, y, min(x + tile, width), min(y + tile, height))
        for y in tile_starts(height, tile, overlap)
        for x in tile_starts(width, tile, overlap)
    ]


def grid_overlap(starts: Sequence[int], tile: int) -> float:
    """Return the least overlap of neighbouring tiles along one axis (infinite for one tile)."""
    if len(starts) < 2:
        return math.inf
    return float(tile - max(b - a for a, b in itertools.pairwise(starts)))


def cut_sides(
    xyxy: np.ndarray, window: tuple[int, int, int, int], width: int, height: int
) -> tuple[np.ndarray, np.ndarray]:
    """Tell which boxes touch a tile edge that lies inside the frame: (along x, along y)."""
    x0, y0, x1, y1 = window
    b = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
    m = EDGE_MARGIN
    cut_x = ((x0 > 0) & (b[:, 0] <= x0 + m)) | ((x1 < width) & (b[:, 2] >= x1 - m))
    cut_y = ((y0 > 0) & (b[:, 1] <= y0 + m)) | ((y1 < height) & (b[:, 3] >= y1 - m))
    return cut_x, cut_y


def join_pieces(dets: Detections, windows: np.ndarray, cut: np.ndarray) -> Detections:
    """Join boxes from different tiles that show one object where the tiles overlap.

    Two boxes of a class, at least one of them cut by its tile's edge, are one object when,
    clipped to the area both tiles see, they overlap by `MERGE_IOU`; each object becomes the
    union of its boxes, with the best confidence.
    """
    n = len(dets)
    if n < 2 or not cut.any():
        return dets
    b = dets.xyxy.astype(np.float64)
    w = np.asarray(windows, dtype=np.float64).reshape(-1, 4)
    pairs = []
    cut_rows = np.flatnonzero(cut)
    for start in range(0, len(cut_rows), 256):  # cut boxes against all, in bounded slices
        rows = cut_rows[start : start + 256]
        shared_lo = np.maximum(w[rows, None, :2], w[None, :, :2])
        shared_hi = np.minimum(w[rows, None, 2:], w[None, :, 2:])
        lo_i, hi_i = (
            np.maximum(b[rows, None, :2], shared_lo),
            np.minimum(b[rows, None, 2:], shared_hi),
        )
        lo_j, hi_j = np.maximum(b[None, :, :2], shared_lo), np.minimum(b[None, :, 2:], shared_hi)
        area_i = np.prod(np.clip(hi_i - lo_i, 0, None), axis=2)
        area_j = np.prod(np.clip(hi_j - lo_j, 0, None), axis=2)
        inter = np.prod(np.clip(np.minimum(hi_i, hi_j) - np.maximum(lo_i, lo_j), 0, None), axis=2)
        iou = inter / np.maximum(area_i + area_j - inter, 1e-9)
        same_tile = (w[rows, None, :] == w[None, :, :]).all(axis=2)
        same_class = dets.class_id[rows, None] == dets.class_id[None, :]
        r, j = np.nonzero(same_class & ~same_tile & (iou >= MERGE_IOU))
        pairs += list(zip(rows[r].tolist(), j.tolist(), strict=True))
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in pairs:
        parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    members = list(groups.values())
    xyxy = [np.concatenate([b[g, :2].min(axis=0), b[g, 2:].max(axis=0)]) for g in members]
    conf = [dets.confidence[g].max() for g in members]
    first = dets[[g[0] for g in members]]  # each object's class and guess: its first box's
    return replace(first, xyxy=np.array(xyxy), confidence=np.array(conf))


def merge_tiles(
    parts: Sequence[tuple[Detections, tuple[int, int, int, int]]],
    frame_pass: Detections | None,
    width: int,
    height: int,
    overlap: tuple[float, float],
    iou: float,
    agnostic: bool = False,
) -> Detections:
    """Merge per-tile detections (frame px) and an optional whole-frame pass into one set.

    Objects up to `overlap` (x, y) px lie whole in some tile, so a box cut by an inner tile edge
    is dropped when its cut side is shorter than the overlap (a neighbour sees more of it). With
    a whole-frame pass every cut box is dropped: the pass supplies the bigger objects (its small
    boxes are left to the tiles, which see them at full resolution). Without one, the pieces of a
    big object are joined (`join_pieces`). Class-wise NMS (`iou`) then removes the duplicates of
    objects seen whole in several tiles.
    """
    ox, oy = overlap
    names = parts[0][0].class_names if parts else frame_pass.class_names  # type: ignore[union-attr]
    kept, windows, cuts = [Detections.empty(names)], [np.zeros((0, 4))], [np.zeros(0, bool)]
    for dets, window in parts:
        cut_x, cut_y = cut_sides(dets.xyxy, window, width, height)
        w = dets.xyxy[:, 2] - dets.xyxy[:, 0]
        h = dets.xyxy[:, 3] - dets.xyxy[:, 1]
        cut = cut_x | cut_y
        drop = cut if frame_pass is not None else (cut_x & (w < ox)) | (cut_y & (h < oy))
        kept.append(dets[~drop])
        windows.append(np.tile(np.array(window, dtype=np.float64), (int((~drop).sum()), 1)))
        cuts.append(cut[~drop])
    merged = join_pieces(
        Detections.concatenate(kept), np.concatenate(windows), np.concatenate(cuts)
    )
    if frame_pass is not None:
        w = frame_pass.xyxy[:, 2] - frame_pass.xyxy[:, 0]
        h = frame_pass.xyxy[:, 3] - frame_pass.xyxy[:, 1]
        merged = Detections.concatenate([merged, frame_pass[(w > ox) | (h > oy)]])
    return merged.nms(iou, agnostic)
