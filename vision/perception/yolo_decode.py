"""Decoding a YOLO model's raw output into boxes, scores and classes (in model input px)."""

from __future__ import annotations

import numpy as np

from vision.perception.detections import nms

MAX_NMS = 30000
"""Most candidates one input passes to NMS (the most confident first)."""


def decode_raw(
    raw: np.ndarray, conf: float, iou: float, max_det: int, agnostic: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decode one YOLOv8/11 output (4 + nc, N): cx, cy, w, h, class scores; NMS within classes.

    Return (xyxy, score, class_id) in input px, most confident first.
    """
    raw = np.asarray(raw, dtype=np.float32)
    scores_all = raw[4:]
    class_id = scores_all.argmax(axis=0)
    scores = scores_all[class_id, np.arange(raw.shape[1])]
    keep = np.flatnonzero(scores >= conf) if conf > 0 else np.arange(raw.shape[1])
    if keep.size > MAX_NMS:
        keep = keep[np.argsort(-scores[keep], kind="stable")[:MAX_NMS]]
    cx, cy, w, h = raw[:4, keep]
    xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    scores, class_id = scores[keep], class_id[keep]
    kept = nms(xyxy, scores, iou, None if agnostic else class_id)[:max_det]
    return xyxy[kept], scores[kept], class_id[kept]


def decode_end2end(
    raw: np.ndarray, conf: float, max_det: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decode one end-to-end output (K, 6): x1, y1, x2, y2, score, class (NMS done in the model)."""
    raw = np.asarray(raw, dtype=np.float32).reshape(-1, 6)
    raw = raw[raw[:, 4] >= conf]
    raw = raw[np.argsort(-raw[:, 4], kind="stable")][:max_det]
    return raw[:, :4], raw[:, 4], raw[:, 5].astype(np.int64)
