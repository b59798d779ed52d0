"""Detections in image pixels + the table calibration -> an Observation in game terms."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.table import TableCalibration
from vision.detections import Detections, nms
from vision.figures import figure_colour
from vision.grid import Grid, locate_grid
from vision.observation import Cell, Observation, SeenDie, SeenTile

FACE_CLASSES = ("adventurer", "key", "torch", "golden_mask", "black_mask")
UNREADABLE = "die_unreadable"
DIE_CLASSES = (*FACE_CLASSES, UNREADABLE)

TileReader = Callable[[np.ndarray, Sequence[Sequence[float]]], SeenTile | None]
"""Reads the tile in a cell: (frame, corners NW NE SE SW in image px of the cell grown by
CELL_MARGIN tiles a side) -> the tile, or None."""
CELL_MARGIN = 0.15


@dataclass(frozen=True)
class SceneSettings:
    """Thresholds of the scene stage."""

    die_conf: float = 0.15
    piece_conf: float = 0.35
    """Lowest confidence for tiles, gems and figures."""
    hand_conf: float = 0.3
    zone_margin_mm: float = 20.0
    """Dice this close outside a zone still count for it (dice roll a little past the edge)."""


class SceneReader:
    """Turns each frame's detections into an Observation; remembers the grid and tile ids."""

    def __init__(
        self,
        calibration: TableCalibration,
        players: Sequence[str],
        tile_reader: TileReader | None = None,
        grid: Grid | None = None,
        settings: SceneSettings | None = None,
    ) -> None:
        self.calibration = calibration
        self.players = tuple(players)
        self.tile_reader = tile_reader
        self.grid = grid
        self.settings = settings or SceneSettings()
        self._zone_px = {
            zone.player: calibration.table_to_image_px(np.asarray(zone.polygon_mm)).astype(
                np.float32
            )
            for zone in calibration.zones
            if zone.player in self.players
        }
        self._tile_cache: dict[Cell, SeenTile] = {}

    def zone_polygons(self) -> list[np.ndarray]:
        """The players' zones as polygons in frame px (where dice are rolled)."""
        return list(self._zone_px.values())

    # ----- the whole frame -----------------------------------------------------------------

    def observe(
        self,
        frame: np.ndarray,
        detections: Detections,
        seq: int,
        t: float,
        moving: Sequence[Sequence[float]] = (),
    ) -> Observation:
        """Return what the frame shows: dice by player, tiles, gems, figures, busy zones.

        `moving`: boxes (px) of what moves in this frame; a zone they touch is busy.
        """
        s = self.settings
        detections = one_box_per_die(detections, s.die_conf)
        names = np.array(detections.names, dtype=object)
        centres_px = (detections.xyxy[:, :2] + detections.xyxy[:, 2:]) / 2
        centres_mm = self.calibration.image_to_table(centres_px) if len(detections) else centres_px
        conf = detections.confidence
        hands = detections[(names == "hand") & (conf >= s.hand_conf)]
        dice, busy = self._dice(names, centres_mm, conf, [*hands.xyxy, *moving])
        tiles_mask = (names == "tile") & (conf >= s.piece_conf)
        if self.grid is None:
            self.grid = self._find_grid(frame, detections[tiles_mask], centres_mm[tiles_mask])
        tiles = self._tiles(frame, detections[tiles_mask], centres_mm[tiles_mask])
        gems, depot = self._gems(centres_mm[(names == "gem") & (conf >= s.piece_conf)], set(tiles))
        figures = self._figures(frame, detections, names, centres_mm)
        return Observation(
            seq=seq,
            t=t,
            dice=dice,
            tiles=tiles,
            gems=gems,
            depot_gems=depot,
            figures=figures,
            busy=frozenset(busy),
            hands=len(hands),
        )

    # ----- dice ----------------------------------------------------------------------------

    def _dice(
        self,
        names: np.ndarray,
        centres_mm: np.ndarray,
        conf: np.ndarray,
        blockers: Sequence[Sequence[float]],
    ) -> tuple[dict[str, tuple[SeenDie, ...]], set[str]]:
        """Dice by the zone they lie in; zones with hands, motion or unreadable dice are busy."""
        found: dict[str, list[SeenDie]] = {p: [] for p in self._zone_px}
        busy: set[str] = set()
        for i in np.flatnonzero(np.isin(names, DIE_CLASSES) & (conf >= self.settings.die_conf)):
            xy = (float(centres_mm[i][0]), float(centres_mm[i][1]))
            player = self._zone_for(xy)
            if player is None:
                continue
            face = None if names[i] == UNREADABLE else str(names[i])
            found[player].append(SeenDie(face, xy, float(conf[i])))
            if face is None:
                busy.add(player)
        for player, polygon in self._zone_px.items():
            if any(_box_meets_polygon(np.asarray(box), polygon) for box in blockers):
                busy.add(player)
        return {p: tuple(sorted(d, key=lambda die: die.xy_mm)) for p, d in found.items()}, busy

    def _zone_for(self, xy: tuple[float, float]) -> str | None:
        player = self.calibration.zone_of(xy)
        if player is not None or self.settings.zone_margin_mm <= 0:
            return player if player in self._zone_px else None
        best, best_distance = None, self.settings.zone_margin_mm
        for zone in self.calibration.zones:
            if zone.player not in self._zone_px:
                continue
            polygon = np.asarray(zone.polygon_mm, dtype=np.float32)
            distance = -cv2.pointPolygonTest(polygon, xy, True)
            if distance <= best_distance:
                best, best_distance = zone.player, distance
        return best

    # ----- temple --------------------------------------------------------------------------

    def _find_grid(
        self, frame: np.ndarray, tiles: Detections, centres_mm: np.ndarray
    ) -> Grid | None:
        """Find the start chamber among the tiles; the grid is anchored on it."""
        if self.tile_reader is None or not len(tiles):
            return None
        tile_mm = self.calibration.tile_mm
        for centre in centres_mm:
            probe = Grid((float(centre[0]), float(centre[1])), 0.0, tile_mm)
            seen = self._read_cell(frame, probe, (0, 0))
            if seen is not None and seen.tile == "start":
                return locate_grid(centre, centres_mm, tile_mm)
        return None

    def _tiles(
        self, frame: np.ndarray, tiles: Detections, centres_mm: np.ndarray
    ) -> dict[Cell, SeenTile]:
        """Tiles by cell; a recognised tile is remembered, an unknown one re-read a frame later.

        Reading a tile costs a few ms, so at most one unknown cell is read per frame.
        """
        if self.grid is None:
            return {}
        found: dict[Cell, SeenTile] = {}
        reads_left = 1
        for i in np.argsort(-tiles.confidence):
            cell = self.grid.cell_of(centres_mm[i], inner=0.35)
            if cell is None or cell in found:
                continue
            seen = self._tile_cache.get(cell)
            if seen is None and self.tile_reader is not None and reads_left:
                reads_left -= 1
                seen = self._read_cell(frame, self.grid, cell)
                if seen is not None:
                    self._tile_cache[cell] = seen
            found[cell] = seen or SeenTile("unknown", "S", float(tiles.confidence[i]) * 0.5)
        for cell in set(self._tile_cache) - set(found):
            del self._tile_cache[cell]  # gone (or hidden): read it again when it is back
        return found

    def _read_cell(self, frame: np.ndarray, grid: Grid, cell: Cell) -> SeenTile | None:
        assert self.tile_reader is not None
        corners_px = self.calibration.table_to_image_px(grid.cell_corners(cell, CELL_MARGIN))
        return self.tile_reader(frame, corners_px.tolist())

    # ----- gems and figures ----------------------------------------------------------------

    def _gems(
        self, centres_mm: np.ndarray, tile_cells: set[Cell]
    ) -> tuple[dict[Cell, int], int | None]:
        """Gems in the depot zone, and gems on chambers (spares and strays lie elsewhere)."""
        gems: dict[Cell, int] = {}
        depot = 0 if self.calibration.depot_mm is not None else None
        for centre in centres_mm:
            xy = (float(centre[0]), float(centre[1]))
            if depot is not None and self.calibration.in_depot(xy):
                depot += 1
                continue
            cell = self.grid.cell_of(xy) if self.grid is not None else None
            if cell is not None and cell in tile_cells:
                gems[cell] = gems.get(cell, 0) + 1
        return gems, depot

    def _figures(
        self, frame: np.ndarray, detections: Detections, names: np.ndarray, centres_mm: np.ndarray
    ) -> dict[str, Cell | None]:
        figures: dict[str, tuple[float, Cell | None]] = {}
        mask = (names == "figure") & (detections.confidence >= self.settings.piece_conf)
        for i in np.flatnonzero(mask):
            colour = figure_colour(frame, detections.xyxy[i], self.players)
            if colour is None:
                continue
            cell = self.grid.cell_of(centres_mm[i]) if self.grid is not None else None
            conf = float(detections.confidence[i])
            if colour not in figures or figures[colour][0] < conf:
                figures[colour] = (conf, cell)
        return {colour: cell for colour, (_, cell) in figures.items()}


def one_box_per_die(detections: Detections, conf: float, iou: float = 0.45) -> Detections:
    """Keep one box per die: of die boxes (any face) overlapping this much, the surest one."""
    names = np.array(detections.names, dtype=object)
    is_die = np.isin(names, DIE_CLASSES) & (detections.confidence >= conf)
    dice = np.flatnonzero(is_die)
    kept = dice[nms(detections.xyxy[dice], detections.confidence[dice], iou)]
    others = np.flatnonzero(~np.isin(names, DIE_CLASSES))
    return detections[np.sort(np.concatenate([kept, others]))]


def _box_meets_polygon(box: np.ndarray, polygon: np.ndarray) -> bool:
    """Tell whether an axis-aligned box and a convex polygon (px) overlap."""
    x0, y0, x1, y1 = (float(v) for v in box)
    rect = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32)
    area, _ = cv2.intersectConvexConvex(rect, polygon.reshape(-1, 2).astype(np.float32))
    return area > 0
