"""Turn the localiser's output maps into boxes: peaks of the centre heatmaps, sized by the box map.

Shared by the run-time localiser (`vision.perception.localiser`) and the training's validation
(`models.localiser`), so that both score the same boxes. Pure numpy.
"""

from __future__ import annotations

import numpy as np

from vision.perception.detections import nms

STRIDE = 4
"""Input pixels per output cell (the network's output stride)."""
BIG_PX = 24
"""Boxes wider than this (network input px) go through NMS; smaller ones peak only once."""
MAX_PEAKS = 1000
"""Most peaks decoded per image (the best first)."""


def sigmoid(x: np.ndarray) -> np.ndarray:
    """Return the logistic function of `x` (float32)."""
    return (1.0 / (1.0 + np.exp(-np.asarray(x, dtype=np.float32)))).astype(np.float32)


_NEIGHBOURS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
"""The cells around a cell: a peak is the largest score in its 3x3 neighbourhood."""
_EARLIER = _NEIGHBOURS[:4]
"""The neighbours that come before a cell in raster order."""


def find_peaks(heat: np.ndarray, conf: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (class, row, col) of every local maximum of heat (C, H, W) scoring `conf` or more,
    by class, then row, then column.

    A cell is a maximum when no cell of its 3x3 neighbourhood inside the map scores more. Only
    the cells scoring `conf` or more are compared (a few hundred of a map's 200,000).
    """
    heat = np.ascontiguousarray(heat, dtype=np.float32)
    height, width = heat.shape[1:]
    flat = heat.reshape(-1)
    where = np.flatnonzero(flat >= conf)  # a flat index is much quicker than np.nonzero's three
    cls, cell = np.divmod(where, height * width)
    rows, cols = np.divmod(cell, width)
    score = flat[where]
    peak = np.ones(len(where), dtype=bool)
    for dr, dc in _NEIGHBOURS:
        inside = (rows + dr >= 0) & (rows + dr < height) & (cols + dc >= 0) & (cols + dc < width)
        peak[inside] &= score[inside] >= flat[where[inside] + dr * width + dc]
    return cls[peak], rows[peak], cols[peak]


def first_of_ties(
    cls: np.ndarray, rows: np.ndarray, cols: np.ndarray, score: np.ndarray, which: np.ndarray
) -> np.ndarray:
    """Return the peaks of `which` that no earlier neighbouring peak of theirs equals.

    Two neighbouring cells of equal score both pass the peak test. An int8 network's output
    comes in steps of 1/255, so one small object (a gem, a die) then peaks twice; it keeps the
    first of its cells in raster order.
    """
    which = np.asarray(which, dtype=np.int64)
    if not len(which):
        return which
    # One number per cell, with a free row and column around the map so that neighbours of
    # edge cells never alias other cells.
    span_c, span_r = int(rows.max()) + 3, int(cols.max()) + 3
    key = (cls[which] * span_c + rows[which] + 1) * span_r + cols[which] + 1
    mine = score[which]
    order = np.argsort(key)
    keys, scores = key[order], mine[order]
    tied = np.zeros(len(which), dtype=bool)
    for dr, dc in _EARLIER:
        other = key + dr * span_r + dc
        at = np.minimum(np.searchsorted(keys, other), len(keys) - 1)
        tied |= (keys[at] == other) & (scores[at] == mine)
    return which[~tied]


def decode(
    heat: np.ndarray,
    box: np.ndarray,
    conf: float,
    scale: float = 1.0,
    iou: float = 0.5,
    max_det: int = 300,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decode one image's maps into (xyxy (N, 4), score (N,), class (N,)), best first.

    `heat` (C, H, W) holds centre probabilities, `box` (4, H, W) log width, log height and the
    centre's offset within its cell, all in input px. Boxes are divided by `scale` (the factor
    the frame was resized by before the network) so they come out in frame px. Peaks of big
    boxes of one class overlapping by more than `iou` keep the best (a tile may peak twice).
    """
    cls, rows, cols = find_peaks(heat, conf)
    if not len(cls):
        return np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64)
    score = heat[cls, rows, cols]
    if len(score) > MAX_PEAKS:  # a very low threshold: only the best peaks are worth boxes
        best = np.argpartition(-score, MAX_PEAKS)[:MAX_PEAKS]
        cls, rows, cols, score = cls[best], rows[best], cols[best], score[best]
    w = np.exp(np.clip(box[0, rows, cols], -2.0, 8.0))
    h = np.exp(np.clip(box[1, rows, cols], -2.0, 8.0))
    cx = (cols + 0.5 + box[2, rows, cols]) * STRIDE
    cy = (rows + 0.5 + box[3, rows, cols]) * STRIDE
    xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1) / scale
    # Small objects peak once (the 3x3 peak test, ties to the first); big ones may peak twice.
    big = (xyxy[:, 2] - xyxy[:, 0]) * scale > BIG_PX
    keep_small = first_of_ties(cls, rows, cols, score, np.flatnonzero(~big))
    keep_big = np.flatnonzero(big)[nms(xyxy[big], score[big], iou, cls[big])]
    keep = np.concatenate([keep_small, keep_big])
    keep = keep[np.argsort(-score[keep], kind="stable")][:max_det]
    return xyxy[keep].astype(np.float32), score[keep].astype(np.float32), cls[keep]
