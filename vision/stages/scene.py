"""Detections in image pixels + the table calibration -> an Observation in game terms."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.table import TableCalibration
from rules.vocabulary import OFFSETS
from vision.perception.classes import DIE_CLASSES, DIE_UNREADABLE
from vision.perception.detections import Detections, nms
from vision.stages.arm_paths import ArmPaths
from vision.stages.figures import FigureTracker, figure_shares
from vision.stages.grid import Grid, locate_grid
from vision.stages.motion import MotionMask, polygons_mask
from vision.stages.observation import Cell, Observation, SeenDie, SeenTile
from vision.stages.seats import SeatStrips

TileReader = Callable[[np.ndarray, Sequence[Sequence[float]]], SeenTile | None]
"""Reads the tile in a cell: (frame, corners NW NE SE SW in image px of the cell grown by
CELL_MARGIN tiles a side) -> the tile, or None."""
CELL_MARGIN = 0.15
SURE_TILE = 0.9
"""A tile read at least this sure is not read again."""
LONE_START_CONF = 0.8
"""A lone chamber seen this surely, while the engine's temple holds only the start chamber, is
the start chamber (at a game's start the figures on it hide its art: read in rendered games only
after 6 s, and every discovery before was credited late)."""
START_FIGURES = 2
"""Figures standing on a chamber that make it the start while the temple has no other."""
PROBE_AGAIN_FRAMES = 5
"""While the start chamber is not found, tiles read as something else are read again this
often (a hand or a die over it in the first read; measured on rendered games: the grid was
found only after 6 s, once motion over it made it read again, and every discovery before was
credited late and to the wrong player)."""
ARM_MIN_PX = 24
"""Moving regions smaller than this (motion-mask px) are no arm: a die, noise, a fingertip."""
MOTION_MARGIN_PX = 24
"""Motion this close (frame px) to a player's zone makes it busy: the moved pixels are only
where the picture changed enough, and a hand's still fingertips may lie beyond them."""


@dataclass(frozen=True)
class SceneSettings:
    """Thresholds of the scene stage."""

    die_conf: float = 0.15
    piece_conf: float = 0.35
    """Lowest confidence for tiles, gems and figures."""
    hand_conf: float = 0.3
    zone_margin_mm: float = 20.0
    """Dice this close outside a zone still count for it (dice roll a little past the edge)."""
    near_dice: bool = True
    """A zone is busy only where a hand or motion comes near its dice (within a die's side of
    one, or of where one lay while hidden): an arm reaching past a player's dice leaves them
    readable. False: busy wherever the hand or motion meets the zone."""


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
        self._zone_masks: dict[tuple[str, tuple[int, ...], int], np.ndarray] = {}
        self._dice_area: dict[str, np.ndarray] = {}
        """Per player: boxes (px) around the dice, grown by a die's side; while the zone is
        busy, the boxes of where dice lay before are kept too (a hand may hide them)."""
        self._figure_tracker = FigureTracker()
        self._seats = SeatStrips(calibration, self.players)
        self._arm_paths = ArmPaths(calibration, self.players)
        self._standing: dict[str, Cell] = {}
        """Where the engine has each player's figure (`follow` says)."""
        self._tile_cache: dict[Cell, SeenTile] = {}
        self._unreadable: set[Cell] = set()
        self._probed: set[tuple[int, int]] = set()
        """Tile centres (cm) read while looking for the start chamber, found elsewhere."""
        self._probe_turn = 0
        self.temple_size: int | None = None
        """Chambers in the engine's temple (`follow` says; None: not known)."""
        self.start_crowded = False
        """The engine has more players in the start chamber than in any other, at least
        `START_FIGURES` (`follow` says): then the tile most figures stand on is the start."""
        self._layout: dict[Cell, str] | None = None
        self._start_cell: Cell = (0, 0)

    def follow(
        self,
        layout: Mapping[Cell, str],
        start_cell: Cell | None = None,
        crowd: Mapping[Cell, int] | None = None,
        figures: Mapping[str, Cell] | None = None,
    ) -> None:
        """Follow the engine's temple (cell -> tile id), its start chamber's cell and how many
        players stand in each chamber (`crowd`).

        Where the rules moved or took away a chamber (the Mirage, the Gear, the platform, an
        illusion that vanished), what the camera read in that cell is forgotten and the cell
        read again: the table's tile there is another now, or the next one laid there. A grid
        found later is numbered from the start chamber's cell, wherever the rules put it."""
        self.temple_size = len(layout)
        self._standing = dict(figures or {})
        if start_cell is not None:
            self._start_cell = start_cell
        crowd = crowd or {}
        at_start = crowd.get(self._start_cell, 0)
        elsewhere = max((n for cell, n in crowd.items() if cell != self._start_cell), default=0)
        self.start_crowded = at_start >= START_FIGURES and at_start > elsewhere
        before = self._layout
        if before is not None and before != layout:
            for cell, tile in before.items():
                if layout.get(cell) != tile:
                    self._tile_cache.pop(cell, None)
                    self._unreadable.discard(cell)
        self._layout = dict(layout)

    def _open_cells(self) -> list[Cell]:
        """The cells beside the engine's temple that hold no chamber yet (where one may be
        laid); none before the engine's temple is known (`follow`)."""
        if not self._layout:
            return []
        return sorted(
            {(x + dx, y + dy) for x, y in self._layout for dx, dy in OFFSETS.values()}
            - set(self._layout)
        )

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
        redetected: Sequence[Sequence[float]] | None = None,
        stale: Sequence[Sequence[float]] = (),
        motion: MotionMask | None = None,
        unseen: np.ndarray | None = None,
    ) -> Observation:
        """Return what the frame shows: dice by player, tiles, gems, figures, busy zones.

        `moving`: boxes (px) of what moves in this frame; a zone they touch is busy.
        `redetected`: boxes (px) detected afresh this frame (None: all of it); a cell that
        could not be read is read again only once its part of the picture was.
        `stale`: boxes (px) whose detections are out of date: a zone they touch is busy too.
        `motion`: the moved pixels themselves; when given, a zone is busy only where they
        are, not wherever their `moving` boxes reach.
        `unseen`: the pixels (at the motion mask's size) changed since they were last
        detected; a zone whose dice lie on none of them and on no moved pixel is busy only
        beside its dice (`Observation.beside`).
        """
        s = self.settings
        detections = one_box_per_die(detections, s.die_conf)
        names = np.array(detections.names, dtype=object)
        centres_px = (detections.xyxy[:, :2] + detections.xyxy[:, 2:]) / 2
        centres_mm = self.calibration.image_to_table(centres_px) if len(detections) else centres_px
        conf = detections.confidence
        hands = detections[(names == "hand") & (conf >= s.hand_conf)]
        blockers = [*hands.xyxy, *stale, *(moving if motion is None else ())]
        dice, busy, beside = self._dice(names, centres_mm, blockers, motion, detections, unseen)
        tiles_mask = (names == "tile") & (conf >= s.piece_conf)
        self._forget_reads(redetected)
        if self.grid is None:
            figures_mm = centres_mm[(names == "figure") & (conf >= s.piece_conf)]
            self.grid = self._find_grid(
                frame, detections[tiles_mask], centres_mm[tiles_mask], figures_mm
            )
        tiles = self._tiles(frame, detections[tiles_mask], centres_mm[tiles_mask])
        gems, depot = self._gems(centres_mm[(names == "gem") & (conf >= s.piece_conf)], set(tiles))
        figures = self._figures(frame, detections, names, centres_mm, t)
        return Observation(
            seq=seq,
            t=t,
            dice=dice,
            tiles=tiles,
            gems=gems,
            depot_gems=depot,
            figures=figures,
            busy=frozenset(busy),
            beside=frozenset(beside),
            hands=len(hands),
            reach=self._reach(moving) if motion is None else self._reach_pixels(motion),
            arms_out=(
                self._seats.arms_out(motion, self.grid.origin_mm)
                if motion is not None and self.grid is not None
                else frozenset()
            ),
            arm_paths=(
                self._arm_paths.moved(motion, self.grid, self._open_cells())
                if motion is not None and self.grid is not None
                else {}
            ),
        )

    # ----- dice ----------------------------------------------------------------------------

    def _dice(
        self,
        names: np.ndarray,
        centres_mm: np.ndarray,
        blockers: Sequence[Sequence[float]],
        motion: MotionMask | None,
        detections: Detections,
        unseen: np.ndarray | None = None,
    ) -> tuple[dict[str, tuple[SeenDie, ...]], set[str], set[str]]:
        """Dice by the zone they lie in; zones with hands or motion near their dice are busy,
        and of those, the ones where the motion only passes beside the dice.

        An unreadable die does not make its zone busy: the stability stage votes each die's
        face over the frames it lies still, and waits while one has no sure read."""
        found: dict[str, list[SeenDie]] = {p: [] for p in self._zone_px}
        boxes: dict[str, list[np.ndarray]] = {p: [] for p in self._zone_px}
        busy: set[str] = set()
        beside: set[str] = set()
        conf = detections.confidence
        for i in np.flatnonzero(np.isin(names, DIE_CLASSES) & (conf >= self.settings.die_conf)):
            xy = (float(centres_mm[i][0]), float(centres_mm[i][1]))
            player = self._zone_for(xy)
            if player is None:
                continue
            face = None if names[i] == DIE_UNREADABLE else str(names[i])
            guess, share = detections.guessed_name(int(i)) if face is None else (None, 0.0)
            found[player].append(SeenDie(face, xy, float(conf[i]), guess, share))
            boxes[player].append(detections.xyxy[i])
        for player, polygon in self._zone_px.items():
            if not self.settings.near_dice:
                blocked = any(_box_meets_polygon(np.asarray(box), polygon) for box in blockers)
                moved = motion is not None and motion.meets(self._zone_mask(player, motion))
                if blocked or moved:
                    busy.add(player)
                continue
            area = self._near_dice(player, boxes[player])
            blocked = any(_boxes_meet(np.asarray(box), area) for box in blockers)
            if blocked or (motion is not None and motion.meets(_boxes_mask(area, motion))):
                busy.add(player)
                self._dice_area[player] = area
                if not blocked and self._in_plain_view(boxes[player], motion, unseen):
                    beside.add(player)
            else:
                self._dice_area.pop(player, None)
        dice = {p: tuple(sorted(d, key=lambda die: die.xy_mm)) for p, d in found.items()}
        return dice, busy, beside

    @staticmethod
    def _in_plain_view(
        boxes: Sequence[np.ndarray], motion: MotionMask | None, unseen: np.ndarray | None
    ) -> bool:
        """Tell whether dice lie where nothing moved and everything was detected afresh
        since it last changed (their detections are of the dice as they lie now)."""
        if motion is None or unseen is None or not boxes or unseen.shape != motion.mask.shape:
            return False
        drawn = _boxes_mask(np.asarray(boxes, np.float32).reshape(-1, 4), motion)
        return not (motion.mask & drawn).any() and not (unseen & drawn).any()

    def _near_dice(self, player: str, boxes: Sequence[np.ndarray]) -> np.ndarray:
        """Boxes (px) around the player's dice, each grown by the die's side, with those kept
        from the frames the zone has been busy in (dice a hand hides lay there)."""
        grown = np.zeros((0, 4), np.float32)
        if boxes:
            xyxy = np.asarray(boxes, np.float32).reshape(-1, 4)
            side = np.maximum(xyxy[:, 2:] - xyxy[:, :2], MOTION_MARGIN_PX).max(axis=1)[:, None]
            grown = np.concatenate([xyxy[:, :2] - side, xyxy[:, 2:] + side], axis=1)
        kept = self._dice_area.get(player)
        if kept is None:
            return grown
        # the same die seen frame after frame is one box (to a few px): the area stays small
        return np.unique(np.round(np.concatenate([kept, grown]) / 4) * 4, axis=0)

    def _zone_mask(self, player: str, motion: MotionMask) -> np.ndarray:
        """The player's zone, grown by `MOTION_MARGIN_PX`, drawn at the motion mask's size."""
        key = (player, motion.mask.shape, motion.scale)
        mask = self._zone_masks.get(key)
        if mask is None:
            drawn = polygons_mask([self._zone_px[player]], motion.mask.shape, motion.scale)
            side = 2 * round(MOTION_MARGIN_PX / motion.scale) + 1
            mask = cv2.dilate(drawn.astype(np.uint8), np.ones((side, side), np.uint8)).astype(bool)
            self._zone_masks[key] = mask
        return mask

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

    def _forget_reads(self, redetected: Sequence[Sequence[float]] | None) -> None:
        """Cells and spots read in vain may be read again where the picture was seen afresh."""
        if redetected is None:
            self._unreadable.clear()
            self._probed.clear()
            return
        self._unreadable -= {c for c in self._unreadable if self._cell_meets(c, redetected)}
        if self._probed:
            spots = sorted(self._probed)
            px = self.calibration.table_to_image_px(np.array(spots, np.float64) * 10)
            for spot, (x, y) in zip(spots, px.tolist(), strict=True):
                if any(b[0] <= x < b[2] and b[1] <= y < b[3] for b in redetected):
                    self._probed.discard(spot)

    def _find_grid(
        self,
        frame: np.ndarray,
        tiles: Detections,
        centres_mm: np.ndarray,
        figures_mm: np.ndarray | None = None,
    ) -> Grid | None:
        """The temple grid, anchored on the start chamber found among the tiles, numbered as
        the engine numbers its cells."""
        grid = self._find_start_grid(frame, tiles, centres_mm, figures_mm)
        if grid is None or self._start_cell == (0, 0):
            return grid
        return grid.anchored(self._start_cell)

    def _find_start_grid(
        self,
        frame: np.ndarray,
        tiles: Detections,
        centres_mm: np.ndarray,
        figures_mm: np.ndarray | None = None,
    ) -> Grid | None:
        """Find the start chamber among the tiles (one read a frame); the grid's origin is on it."""
        if self.tile_reader is None or not len(tiles):
            return None
        tile_mm = self.calibration.tile_mm
        self._probe_turn += 1
        spots = {(round(float(c[0]) / 10), round(float(c[1]) / 10)) for c in centres_mm}
        if spots <= self._probed and self._probe_turn % PROBE_AGAIN_FRAMES == 0:
            self._probed.clear()  # every tile was read and none was the start: read them again
        order = np.roll(np.arange(len(centres_mm)), -(self._probe_turn % len(centres_mm)))
        for centre in centres_mm[order]:
            spot = (round(float(centre[0]) / 10), round(float(centre[1]) / 10))
            if spot in self._probed:
                continue
            self._probed.add(spot)  # not read again until this part of the picture changes
            probe = Grid((float(centre[0]), float(centre[1])), 0.0, tile_mm)
            seen = self._read_cell(frame, probe, (0, 0))
            if seen is not None and seen.tile == "start":
                return locate_grid(centre, centres_mm, tile_mm)
            break
        if self.temple_size != 1 and not self.start_crowded:
            return None
        # The engine has the start chamber alone, or more figures in it than in any other
        # chamber (as at the start of a game): the chamber most figures stand on is the start
        # (their bodies hide its art from the reader), and so is a lone chamber seen surely.
        figures = np.zeros((0, 2)) if figures_mm is None else figures_mm.reshape(-1, 2)
        standing = [int((np.abs(figures - c).max(axis=1) < tile_mm / 2).sum()) for c in centres_mm]
        most = int(np.argmax(standing))
        apart = np.abs(centres_mm - centres_mm[most]).max(axis=1) >= tile_mm / 2  # other tiles
        runner_up = max((n for n, other in zip(standing, apart, strict=True) if other), default=0)
        if standing[most] >= START_FIGURES and standing[most] > runner_up:
            return locate_grid(centres_mm[most], centres_mm, tile_mm)
        lone = self.temple_size == 1 and len(tiles) == 1
        if lone and float(tiles.confidence[0]) >= LONE_START_CONF:
            return locate_grid(centres_mm[0], centres_mm, tile_mm)
        return None

    def _tiles(
        self, frame: np.ndarray, tiles: Detections, centres_mm: np.ndarray
    ) -> dict[Cell, SeenTile]:
        """Tiles by cell; a recognised tile is remembered, an unknown one read again later.

        Reading a tile costs tens of ms, so at most one cell is read per frame: a cell never
        read first, else one read unsure (or not at all) whose picture was seen afresh since.
        Placed tiles never leave the temple: a tile hidden by a hand is remembered meanwhile.
        """
        if self.grid is None:
            return {}
        placed: dict[Cell, float] = {}
        for i in np.argsort(-tiles.confidence):
            cell = self.grid.cell_of(centres_mm[i], inner=0.35)
            if cell is not None and cell not in placed:
                placed[cell] = float(tiles.confidence[i])
        if self.tile_reader is not None:
            cache = self._tile_cache
            new = [c for c in placed if c not in cache and c not in self._unreadable]
            unsure = [c for c in placed if c in cache and cache[c].conf < SURE_TILE]
            unsure = [c for c in unsure if c not in self._unreadable]
            for cell in (new or unsure)[:1]:
                read = self._read_cell(frame, self.grid, cell)
                self._unreadable.add(cell)  # until this part of the picture changes
                if read is not None and (cell not in cache or read.conf > cache[cell].conf):
                    cache[cell] = read
        return {
            cell: self._tile_cache.get(cell) or SeenTile("unknown", "S", conf * 0.5)
            for cell, conf in placed.items()
        }

    def _reach_pixels(self, motion: MotionMask) -> dict[Cell, str]:
        """Cells with an arm's hand over them, by the seat the arm reaches from, told from each
        moving region's own pixels: its pixel farthest from the temple lies at the seat, and its
        pixel farthest from that one at the hand (an arm reaching across the table on a slant
        fills little of its box, whose corners lie far from both)."""
        if self.grid is None or not self._zone_px:
            return {}
        origin = self.calibration.table_to_image_px(np.array([self.grid.origin_mm]))[0]
        arms = []
        for index in range(1, len(motion.stats)):
            x, y, w, h, area = motion.stats[index]
            if area < ARM_MIN_PX:
                continue
            ys, xs = np.nonzero(motion.labels[y : y + h, x : x + w] == index)
            points = (np.stack([xs + x, ys + y], axis=1) + 0.5) * motion.scale
            root = points[int(np.argmax(np.linalg.norm(points - origin, axis=1)))]
            arms.append((root, points[int(np.argmax(np.linalg.norm(points - root, axis=1)))]))
        return self._cells_reached(arms)

    def _reach(self, moving: Sequence[Sequence[float]]) -> dict[Cell, str]:
        """Cells with an arm's hand over them, by the seat the arm reaches from.

        An arm reaching into the temple moves from its player's seat: the corner of its
        motion box farthest from the temple lies at the seat (nearest that player's zone),
        and the opposite corner at the hand.
        """
        if self.grid is None or not moving or not self._zone_px:
            return {}
        origin = self.calibration.table_to_image_px(np.array([self.grid.origin_mm]))[0]
        arms = []
        for box in moving:
            x0, y0, x1, y1 = (float(v) for v in box)
            corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
            far = int(np.argmax(np.linalg.norm(corners - origin, axis=1)))
            arms.append((corners[far], corners[(far + 2) % 4]))
        return self._cells_reached(arms)

    def _cells_reached(self, arms: Sequence[tuple[np.ndarray, np.ndarray]]) -> dict[Cell, str]:
        """Each arm's (seat end, hand end) in px as the cell under the hand, by the player whose
        zone the seat end lies in or nearest (the first arm over a cell keeps it)."""
        assert self.grid is not None
        reach: dict[Cell, str] = {}
        for root, hand in arms:
            player = max(
                self._zone_px,
                key=lambda p: cv2.pointPolygonTest(self._zone_px[p], tuple(root), True),
            )
            cell = self.grid.cell_of(self.calibration.image_to_table(hand[None])[0])
            if cell is not None:
                reach.setdefault(cell, player)
        return reach

    def cell_box_px(self, cell: Cell) -> tuple[float, float, float, float] | None:
        """The box (frame px) around a cell of the temple grid; None before the grid is found."""
        if self.grid is None:
            return None
        corners = self.calibration.table_to_image_px(self.grid.cell_corners(cell, 0.0))
        (x0, y0), (x1, y1) = corners.min(axis=0), corners.max(axis=0)
        return float(x0), float(y0), float(x1), float(y1)

    def _cell_meets(self, cell: Cell, boxes: Sequence[Sequence[float]]) -> bool:
        """Tell whether a cell's box overlaps any of the boxes (frame px)."""
        box = self.cell_box_px(cell)
        if box is None:
            return True
        x0, y0, x1, y1 = box
        return any(x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1 for b in boxes)

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
        self,
        frame: np.ndarray,
        detections: Detections,
        names: np.ndarray,
        centres_mm: np.ndarray,
        t: float,
    ) -> dict[str, Cell | None]:
        """Each figure's cell by colour: every figure box is one adventurer, named by the
        colours it showed over the frames it stood there (`FigureTracker`)."""
        boxes = np.flatnonzero(
            (names == "figure") & (detections.confidence >= self.settings.piece_conf)
        )
        shares = [figure_shares(frame, detections.xyxy[i], self.players) for i in boxes]
        cells = [self.grid.cell_of(centres_mm[i]) if self.grid is not None else None for i in boxes]
        staying = [{p for p, at in self._standing.items() if at == cell} for cell in cells]
        named = self._figure_tracker.update(detections.xyxy[boxes], shares, t, staying)
        return {c: cell for c, cell in zip(named, cells, strict=True) if c is not None}


def _boxes_meet(box: np.ndarray, area: np.ndarray) -> bool:
    """Tell whether a box (px) overlaps any box of `area` (n x 4 px)."""
    if not len(area):
        return False
    return bool(
        (
            (area[:, 0] < box[2])
            & (box[0] < area[:, 2])
            & (area[:, 1] < box[3])
            & (box[1] < area[:, 3])
        ).any()
    )


def _boxes_mask(area: np.ndarray, motion: MotionMask) -> np.ndarray:
    """The boxes of `area` (px) filled in at the motion mask's size."""
    drawn = np.zeros(motion.mask.shape[:2], bool)
    h, w = drawn.shape
    for x0, y0, x1, y1 in np.round(area / motion.scale).astype(int):
        drawn[max(0, y0) : min(h, y1 + 1), max(0, x0) : min(w, x1 + 1)] = True
    return drawn


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
