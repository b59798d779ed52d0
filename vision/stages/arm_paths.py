"""Whose arm lies over a temple cell: the table between the cell and each player's seat (his
arm's path), and how much of each path moved in a frame. An arm laying a chamber tile lies
along the path from the cell to its player's seat while the tile is set down; the other
players' paths show the table, or another arm crossing them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import cv2
import numpy as np

from calibration.table import TableCalibration
from vision.stages.grid import Grid
from vision.stages.motion import MotionMask, polygons_mask
from vision.stages.observation import Cell
from vision.stages.seats import seat_strip_mm, zones_mm

PATH_TILES = 2.5
"""A path runs this many tile sides from the cell's centre toward the seat: far enough that
arms from neighbouring seats part, near enough to stay over the temple."""
PATH_WIDTH_TILES = 1.4
"""A path is this many tile sides wide (an arm and the slant it may come in at)."""


def seat_mm(zone_mm: np.ndarray, temple_mm: tuple[float, float]) -> np.ndarray:
    """Where a player's arm comes from (table mm): the middle of his seat strip."""
    strip = seat_strip_mm(zone_mm, temple_mm).astype(np.float32)
    moments = cv2.moments(strip)
    if moments["m00"] == 0:
        return strip.mean(axis=0).astype(np.float64)
    return np.array([moments["m10"] / moments["m00"], moments["m01"] / moments["m00"]])


def path_mm(centre_mm: np.ndarray, seat: np.ndarray, tile_mm: float) -> np.ndarray:
    """The path (polygon, table mm) from a cell's centre toward a seat."""
    along = seat - centre_mm
    along = along / max(1e-6, float(np.linalg.norm(along)))
    across = np.array([-along[1], along[0]]) * PATH_WIDTH_TILES * tile_mm / 2
    end = centre_mm + along * PATH_TILES * tile_mm
    return np.array([centre_mm + across, end + across, end - across, centre_mm - across])


class ArmPaths:
    """Tells, frame by frame, how much of each player's path to each open cell moved."""

    def __init__(self, calibration: TableCalibration, players: tuple[str, ...]) -> None:
        self.calibration = calibration
        self.zones_mm = zones_mm(calibration, players)
        self._paths: dict[tuple[object, ...], np.ndarray] = {}
        self._key: tuple[object, ...] | None = None

    def moved(
        self, motion: MotionMask, grid: Grid, cells: Iterable[Cell]
    ) -> dict[Cell, dict[str, float]]:
        """Per cell, the share of each player's path to it that moved this frame (cells whose
        paths did not move at all are left out)."""
        if not motion.mask.any():
            return {}
        flat = motion.mask.reshape(-1)
        shares: dict[Cell, dict[str, float]] = {}
        for cell in cells:
            paths = self._paths_to(cell, grid, motion)
            moved = {player: float(flat[index].mean()) for player, index in paths.items()}
            if any(moved.values()):
                shares[cell] = moved
        return shares

    def _paths_to(self, cell: Cell, grid: Grid, motion: MotionMask) -> Mapping[str, np.ndarray]:
        """Each player's path to `cell` as flat indices into the motion mask (cached)."""
        key = (grid.origin_mm, grid.angle_deg, grid.tile_mm, motion.mask.shape, motion.scale)
        if key != self._key:  # one grid and one size at a time
            self._paths, self._key = {}, key
        found: dict[str, np.ndarray] = {}
        centre = np.array(grid.cell_centre(cell))
        for player, zone in self.zones_mm.items():
            index = self._paths.get((cell, player))
            if index is None:
                polygon = path_mm(centre, seat_mm(zone, grid.origin_mm), grid.tile_mm)
                drawn = polygons_mask(
                    [self.calibration.table_to_image_px(polygon)], motion.mask.shape, motion.scale
                )
                index = np.flatnonzero(drawn)
                self._paths[(cell, player)] = index
            if len(index):
                found[player] = index
        return found
