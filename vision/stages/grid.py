"""The temple grid on the table: cells one tile apart, numbered as the engine numbers them
(cell [0, 0] is where the start chamber was laid)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.stages.observation import Cell


@dataclass(frozen=True)
class Grid:
    """Where the temple grid lies in table mm: the start chamber's centre and the grid's turn."""

    origin_mm: tuple[float, float]
    angle_deg: float
    """Counter-clockwise turn of the grid's east axis from the table's x axis."""
    tile_mm: float

    def _axes(self) -> tuple[np.ndarray, np.ndarray]:
        a = math.radians(self.angle_deg)
        return np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])

    def to_grid(self, points_mm: np.ndarray) -> np.ndarray:
        """Map table mm (N, 2) to grid units (N, 2): cell centres land on whole numbers."""
        east, north = self._axes()
        offset = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2) - self.origin_mm
        return np.column_stack([offset @ east, offset @ north]) / self.tile_mm

    def cell_of(self, point_mm: Sequence[float], inner: float = 0.5) -> Cell | None:
        """Return the cell holding the point, or None when it lies in the outer margin of a cell.

        `inner` is the half-width of the accepted square in tiles (0.5: the whole cell).
        """
        gx, gy = self.to_grid(np.asarray(point_mm))[0]
        cx, cy = round(gx), round(gy)
        if abs(gx - cx) > inner or abs(gy - cy) > inner:
            return None
        return int(cx), int(cy)

    def cell_centre(self, cell: Cell) -> tuple[float, float]:
        """Return the centre of a cell in table mm."""
        east, north = self._axes()
        point = np.asarray(self.origin_mm) + (cell[0] * east + cell[1] * north) * self.tile_mm
        return float(point[0]), float(point[1])

    def anchored(self, cell: Cell) -> Grid:
        """The same grid, renumbered so that the chamber at its origin is `cell` (the start
        chamber after the rules moved it: the Mirage)."""
        east, north = self._axes()
        origin = np.asarray(self.origin_mm) - (cell[0] * east + cell[1] * north) * self.tile_mm
        return Grid((float(origin[0]), float(origin[1])), self.angle_deg, self.tile_mm)

    def cell_corners(self, cell: Cell, margin: float = 0.0) -> np.ndarray:
        """Return a cell's corners NW, NE, SE, SW (4, 2) in mm, grown by `margin` tiles a side."""
        east, north = self._axes()
        half = (0.5 + margin) * self.tile_mm
        centre = np.asarray(self.cell_centre(cell))
        signs = ((-1, 1), (1, 1), (1, -1), (-1, -1))
        return np.array([centre + sx * half * east + sy * half * north for sx, sy in signs])


def locate_grid(start_mm: Sequence[float], tile_centres_mm: np.ndarray, tile_mm: float) -> Grid:
    """Place the grid on the start chamber, turned to fit the other chambers' centres.

    Neighbouring chambers lie one tile apart along the grid's axes, so the direction from each
    chamber near one tile away gives the grid's turn modulo a quarter turn.
    """
    start = np.asarray(start_mm, dtype=np.float64)
    centres = np.asarray(tile_centres_mm, dtype=np.float64).reshape(-1, 2)
    angles = []
    for centre in centres:
        offset = centre - start
        distance = float(np.hypot(*offset))
        if 0.7 * tile_mm < distance < 1.3 * tile_mm:
            angles.append(math.degrees(math.atan2(offset[1], offset[0])) % 90.0)
    angle = 0.0
    if angles:
        # average on the circle of quarter turns (angles near 0 and near 90 are the same turn)
        radians = np.radians(np.asarray(angles) * 4.0)
        angle = math.degrees(math.atan2(np.sin(radians).mean(), np.cos(radians).mean())) / 4.0
    return Grid((float(start[0]), float(start[1])), angle, tile_mm)
