"""Each player's seat strip: the table between his dice zone and his chair (less any dice zone),
which his arm crosses whenever it reaches into the temple. Motion there says his arm is out:
a chamber he is laying may still be on its way."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import cv2
import numpy as np

from calibration.table import TableCalibration
from vision.stages.motion import MotionMask, polygons_mask

StripMask = tuple[np.ndarray, int]
"""A seat strip drawn at the motion mask's size, and how many of its pixels must move."""
STRIP_FROM = 0.5
"""The strip sweeps the zone outward from this many of its depths (the zone itself is cut out
again, so the strip starts at its outer edge) ..."""
STRIP_TO = 1.5
"""... to this many: it ends 1.5 depths beyond the zone's outer edge."""
ARM_OUT_MM2 = 1000.0
"""Moving table area in a strip (mm², about a hand's back) that says an arm is out; a
fingertip or a die rolling over the edge moves less."""


def seat_strip_mm(zone_mm: np.ndarray, temple_mm: Sequence[float]) -> np.ndarray:
    """The seat strip behind a zone (polygon, table mm): beyond its long side that faces away
    from the temple's origin, where its player sits at the table's edge."""
    zone = np.asarray(zone_mm, np.float64).reshape(-1, 2)
    centred = zone - zone.mean(axis=0)
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    outward = axes[-1]  # across the zone's long side
    if outward @ (zone.mean(axis=0) - np.asarray(temple_mm, np.float64)) < 0:
        outward = -outward
    depth = float(np.ptp(zone @ outward))
    both = np.concatenate([zone + outward * depth * STRIP_FROM, zone + outward * depth * STRIP_TO])
    return cv2.convexHull(both.astype(np.float32))[:, 0].astype(np.float64)


def zones_mm(calibration: TableCalibration, players: Sequence[str]) -> dict[str, np.ndarray]:
    """Each playing player's dice zone (polygon, table mm)."""
    return {
        zone.player: np.asarray(zone.polygon_mm, np.float64)
        for zone in calibration.zones
        if zone.player in players
    }


class SeatStrips:
    """Tells, frame by frame, whose arm is out: enough motion in his seat strip."""

    def __init__(self, calibration: TableCalibration, players: tuple[str, ...]) -> None:
        self.calibration = calibration
        self.zones_mm = zones_mm(calibration, players)
        self._masks: dict[tuple[object, ...], dict[str, StripMask]] = {}

    def arms_out(self, motion: MotionMask, temple_mm: tuple[float, float]) -> frozenset[str]:
        """The players whose seat strip moved over at least `ARM_OUT_MM2` of the table."""
        masks = self._strip_masks(motion, temple_mm)
        return frozenset(
            player
            for player, (mask, least) in masks.items()
            if np.count_nonzero(motion.mask & mask) >= least
        )

    def _strip_masks(
        self, motion: MotionMask, temple_mm: tuple[float, float]
    ) -> Mapping[str, StripMask]:
        """Each strip drawn at the motion mask's size, with the moving pixels that make an
        arm out there (cached)."""
        key = (tuple(temple_mm), motion.mask.shape, motion.scale)
        masks = self._masks.get(key)
        if masks is None:
            masks = {}
            shape, scale = motion.mask.shape, motion.scale
            to_px = self.calibration.table_to_image_px
            zones = polygons_mask([to_px(zone) for zone in self.zones_mm.values()], shape, scale)
            for player, zone in self.zones_mm.items():
                strip_mm = seat_strip_mm(zone, temple_mm)
                strip_px = to_px(strip_mm)
                px_per_mm2 = cv2.contourArea(strip_px.astype(np.float32)) / cv2.contourArea(
                    strip_mm.astype(np.float32)
                )
                least = max(1, round(ARM_OUT_MM2 * px_per_mm2 / scale**2))
                # dice rolled in another player's zone are no arm of this one
                masks[player] = (polygons_mask([strip_px], shape, scale) & ~zones, least)
            self._masks = {key: masks}  # one temple origin and one size at a time
        return masks
