"""Local features and a small aligned thumbnail of one tile picture, for matching."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

CANONICAL_PX = 256
"""Side of an enrolled tile's canonical picture, in pixels (the tile edge to edge)."""

THUMB_PX = 48
"""Side of the thumbnail compared after alignment (colour and layout cue)."""

REFERENCE_FEATURES = 400
"""Keypoints kept per enrolled picture."""

QUERY_FEATURES = 500
"""Keypoints kept per cell picture (it also shows some table around the tile)."""


@dataclass(frozen=True)
class Features:
    """ORB keypoint positions (N, 2) and descriptors (N, 32) of one picture, strongest first."""

    points: np.ndarray
    descriptors: np.ndarray | None

    def __len__(self) -> int:
        return len(self.points)


def _orb(features: int) -> cv2.ORB:
    # A low FAST threshold keeps keypoints on blurred or dim pictures; a small edge margin keeps
    # the walls' corners near the tile's border.
    return cv2.ORB_create(
        nfeatures=features,
        scaleFactor=1.2,
        nlevels=6,
        edgeThreshold=15,
        fastThreshold=10,
        patchSize=25,
    )


def grey(image_bgr: np.ndarray) -> np.ndarray:
    """Return an 8-bit grey picture with its contrast stretched (light-level changes drop out)."""
    if image_bgr.ndim == 3:
        image_bgr = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    return cv2.normalize(image_bgr, None, 0, 255, cv2.NORM_MINMAX)


def describe(image_bgr: np.ndarray, features: int = REFERENCE_FEATURES) -> Features:
    """Compute the ORB keypoints and descriptors of a picture, strongest keypoints first."""
    keypoints, descriptors = _orb(features).detectAndCompute(grey(image_bgr), None)
    if descriptors is None or not keypoints:
        return Features(np.zeros((0, 2), np.float32), None)
    order = np.argsort([-k.response for k in keypoints], kind="stable")
    points = np.array([keypoints[i].pt for i in order], dtype=np.float32).reshape(-1, 2)
    return Features(points, np.ascontiguousarray(descriptors[order]))


def thumbnail(image_bgr: np.ndarray) -> np.ndarray:
    """Return a THUMB_PX square Lab thumbnail, each channel zero-mean and unit-norm."""
    small = cv2.resize(image_bgr, (THUMB_PX, THUMB_PX), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    lab -= lab.mean(axis=(0, 1), keepdims=True)
    norms = np.sqrt((lab**2).sum(axis=(0, 1), keepdims=True))
    return lab / np.maximum(norms, 1e-6)


CHANNEL_WEIGHTS = np.array([0.6, 0.2, 0.2], np.float32)
"""How much lightness, green-red and blue-yellow count in `likeness`."""


def likeness(thumbs: np.ndarray, other: np.ndarray) -> np.ndarray:
    """Return the correlation (-1..1) of each thumbnail in `thumbs` (K, T, T, 3) with `other`."""
    weighted = (other * CHANNEL_WEIGHTS).reshape(-1)
    return thumbs.reshape(len(thumbs), -1) @ weighted
