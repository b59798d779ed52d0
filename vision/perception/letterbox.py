"""Letterboxing: a frame (or a tile of it) resized into a model input on grey padding, and back."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

PAD_VALUE = 114
"""Grey of the letterbox padding (what Ultralytics trains with)."""


@dataclass(frozen=True)
class Letterbox:
    """How an image crop became a model input: resized by `scale`, padded by `pad`.

    `offset` is the crop's top-left corner in the frame (non-zero for tiles).
    """

    scale: tuple[float, float]
    """Input px per frame px along x and y."""
    pad: tuple[int, int]
    """Padding left and top, in input px."""
    offset: tuple[int, int] = (0, 0)

    def to_input(self, xy: np.ndarray) -> np.ndarray:
        """Map frame points (..., 2) to input points."""
        xy = np.asarray(xy, dtype=np.float64)
        off, scale, pad = np.array(self.offset), np.array(self.scale), np.array(self.pad)
        return (xy - off) * scale + pad

    def to_frame(self, xy: np.ndarray) -> np.ndarray:
        """Map input points (..., 2) back to frame points."""
        xy = np.asarray(xy, dtype=np.float64)
        off, scale, pad = np.array(self.offset), np.array(self.scale), np.array(self.pad)
        return (xy - pad) / scale + off

    def boxes_to_frame(self, xyxy: np.ndarray) -> np.ndarray:
        """Map input boxes (N, 4) back to frame boxes."""
        return self.to_frame(np.asarray(xyxy, dtype=np.float64).reshape(-1, 2, 2)).reshape(-1, 4)


def letterbox(
    image: np.ndarray,
    size: tuple[int, int],
    offset: tuple[int, int] = (0, 0),
    scale_up: bool = True,
) -> tuple[np.ndarray, Letterbox]:
    """Resize `image` to fit (height, width) keeping its aspect, centred on grey padding.

    With `scale_up` False a smaller image keeps its size and is only padded.
    """
    h, w = image.shape[:2]
    out_h, out_w = size
    ratio = min(out_h / h, out_w / w)
    if not scale_up:
        ratio = min(ratio, 1.0)
    new_w, new_h = max(1, round(w * ratio)), max(1, round(h * ratio))
    if (new_w, new_h) != (w, h):
        interpolation = cv2.INTER_AREA if ratio < 1 else cv2.INTER_LINEAR
        image = cv2.resize(image, (new_w, new_h), interpolation=interpolation)
    left, top = (out_w - new_w) // 2, (out_h - new_h) // 2
    if (new_w, new_h) != (out_w, out_h):
        image = cv2.copyMakeBorder(
            image,
            top,
            out_h - new_h - top,
            left,
            out_w - new_w - left,
            cv2.BORDER_CONSTANT,
            value=(PAD_VALUE, PAD_VALUE, PAD_VALUE),
        )
    return image, Letterbox((new_w / w, new_h / h), (left, top), offset)


def rect_size(width: int, height: int, long_side: int, stride: int) -> tuple[int, int]:
    """Return the least (height, width), multiples of `stride`, holding the frame at `long_side`."""
    ratio = long_side / max(width, height)
    return (
        max(stride, math.ceil(height * ratio / stride) * stride),
        max(stride, math.ceil(width * ratio / stride) * stride),
    )


def to_tensor(images: Sequence[np.ndarray]) -> np.ndarray:
    """Stack BGR uint8 images (H, W, 3) into a float32 RGB batch (N, 3, H, W) in 0..1."""
    batch = np.stack(images)[..., ::-1].transpose(0, 3, 1, 2)
    return np.ascontiguousarray(batch, dtype=np.float32) / np.float32(255.0)
