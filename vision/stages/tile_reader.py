"""Reads a temple cell from the frame: cut it out top-down, match it against the enrolled tiles."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import cv2
import numpy as np

from calibration.enrollment import TileLibrary
from calibration.tile_match import identify
from vision.stages.observation import SeenTile
from vision.stages.scene import CELL_MARGIN


class EnrolledTileReader:
    """The scene stage's tile reader: a top-down cell picture matched against the library."""

    def __init__(self, library: TileLibrary, tile_px: int = 160) -> None:
        """Match cells against every tile of `library` (`for_game` narrows it to a game's)."""
        self.library = library
        self.tile_px = tile_px
        self.size = round(tile_px * (1 + 2 * CELL_MARGIN))

    def for_game(self, catalog: Iterable[str]) -> EnrolledTileReader:
        """Return a reader of only the tiles a game plays with (its catalog's ids) and the back:
        a basic game never reads a module's tile. Features already computed are shared."""
        return EnrolledTileReader(self.library.only(catalog), self.tile_px)

    def cell_picture(self, frame: np.ndarray, corners_px: Sequence[Sequence[float]]) -> np.ndarray:
        """Return the area inside `corners_px` (NW, NE, SE, SW) as a square, north up."""
        target = np.float32([[0, 0], [self.size, 0], [self.size, self.size], [0, self.size]])
        matrix = cv2.getPerspectiveTransform(np.float32(corners_px), target)
        return cv2.warpPerspective(frame, matrix, (self.size, self.size), flags=cv2.INTER_AREA)

    def __call__(self, frame: np.ndarray, corners_px: Sequence[Sequence[float]]) -> SeenTile | None:
        """Return the tile lying in the cell, or None when no enrolled tile matches."""
        match = identify(self.library, self.cell_picture(frame, corners_px), tile_px=self.tile_px)
        if match is None or match.tile == "back":
            return None
        return SeenTile(match.tile, match.stairs, float(match.confidence))
