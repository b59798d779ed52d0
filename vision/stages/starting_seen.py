"""The starting temple as the camera sees it: the two chambers beside the starting chamber.

Page 5 lays two chambers drawn from the pile left and right of the starting chamber. With a
calibrated camera over the table, `look_at_temple` reads the newest frame into an Observation
(the temple grid is anchored on the starting chamber), and `starting_chambers_seen` (pure) turns
that observation into the two chambers, or says plainly why it cannot.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from calibration.table import TableCalibration
from rules.catalog import TileDef
from rules.game_setup import STARTING_SIDES, starting_candidates
from rules.vocabulary import neighbour, opposite
from vision.perception.detections import Detections
from vision.stages.observation import Cell, Observation
from vision.stages.scene import SceneReader, TileReader

START: Cell = (0, 0)
"""The starting chamber's cell: the vision grid is anchored on it, as the game record's is."""
WHERE = {"W": "left of", "E": "right of", "N": "above", "S": "below"}
"""How the page says where a side of the starting chamber lies on the table."""
DRAW_INSTEAD = "pick the tiles you drew, or draw them instead"
LOOKS_PER_TILE = 2
"""Passes over the frame per tile in view: the scene stage reads one tile a pass."""
MAX_LOOKS = 24


@dataclass(frozen=True)
class SeenSide:
    """One side of the starting chamber as seen: the chamber there, or why there is none."""

    side: str
    """The table side of the starting chamber (W: left, E: right)."""
    cell: Cell
    tile: str | None
    """The chamber's tile id when the camera identified a chamber that may be drawn."""
    problem: str | None
    """Why no chamber is given for this side (None when `tile` is given)."""
    turned: str | None = None
    """The side its stairway faces when that is not towards the start (the game turns it)."""

    @property
    def where(self) -> str:
        """Say where the side lies: "left of", "right of", ..."""
        return WHERE[self.side]


@dataclass(frozen=True)
class SeenStart:
    """What the camera makes of the starting temple: the chambers beside the start, or why not."""

    sides: tuple[SeenSide, ...]
    problem: str | None = None
    """Why nothing could be read at all (no starting chamber in view), else None."""

    @property
    def drawn(self) -> tuple[str, str] | None:
        """Return the two chambers (the first side's, then the second's) when both were read."""
        tiles = [side.tile for side in self.sides]
        if self.problem is not None or len(tiles) != 2 or None in tiles:
            return None
        return (str(tiles[0]), str(tiles[1]))

    def message(self, catalog: Mapping[str, TileDef]) -> str:
        """Say in one line what the camera sees, by the tiles' names (never their ids)."""
        if self.problem is not None:
            return f"{self.problem}: {DRAW_INSTEAD}."
        parts = []
        for side in self.sides:
            if side.tile is not None:
                part = f"{catalog[side.tile].name} {side.where} the starting chamber"
                if side.turned is not None:
                    part += " (its stairway will face the start)"
            else:
                part = f"{side.where} the starting chamber: {side.problem}"
                part = part[0].upper() + part[1:]
            parts.append(part)
        text = "; ".join(parts)
        if self.drawn is not None:
            return f"The camera sees {text}."
        missing = sum(side.tile is None for side in self.sides)
        sides = "that side" if missing == 1 else "those sides"
        return f"{text}. For {sides}, {DRAW_INSTEAD}."


def starting_sides(catalog: Mapping[str, TileDef], start_id: str = "start") -> tuple[str, ...]:
    """Return the sides of the starting chamber the two drawn chambers lie on (as
    rules.game_setup.starting_temple lays them: left and right)."""
    start = catalog[start_id]
    return tuple(side for side in STARTING_SIDES if side in start.own_open_sides)[:2]


def starting_chambers_seen(
    observation: Observation, catalog: Mapping[str, TileDef], start_id: str = "start"
) -> SeenStart:
    """Return the chambers an observation shows beside the starting chamber, each checked
    against the tiles a game with `catalog` may draw at set-up, or why none."""
    tiles = observation.tiles
    middle = tiles.get(START)
    if not tiles:
        return SeenStart((), "The camera does not see the starting chamber")
    if middle is not None and middle.tile not in (start_id, "unknown"):
        name = _name(catalog, middle.tile)
        return SeenStart(
            (), f"The tile in the middle of the temple is {name}, not the starting chamber"
        )
    drawable = set(starting_candidates(catalog))
    sides = []
    for side in starting_sides(catalog, start_id):
        cell = neighbour(START, side)
        seen = tiles.get(cell)
        if seen is None:
            sides.append(SeenSide(side, cell, None, "no tile there"))
        elif seen.tile == "unknown":
            sides.append(SeenSide(side, cell, None, "a tile the camera cannot identify"))
        elif seen.tile not in drawable:
            sides.append(SeenSide(side, cell, None, _not_drawable(catalog, seen.tile, start_id)))
        else:
            turned = None if seen.stairs == opposite(side) else seen.stairs
            sides.append(SeenSide(side, cell, seen.tile, None, turned))
    if len(sides) == 2 and sides[0].tile is not None and sides[0].tile == sides[1].tile:
        twice = f"{catalog[sides[0].tile].name} again (one tile cannot lie on both sides)"
        sides[1] = SeenSide(sides[1].side, sides[1].cell, None, twice)
    return SeenStart(tuple(sides))


def _name(catalog: Mapping[str, TileDef], tile_id: str) -> str:
    tile = catalog.get(tile_id)
    return tile.name if tile is not None else "a tile this game does not play with"


def _not_drawable(catalog: Mapping[str, TileDef], tile_id: str, start_id: str) -> str:
    """Say why the tile seen cannot be one of the starting chambers."""
    if tile_id == start_id:
        return "a second starting chamber"
    tile = catalog.get(tile_id)
    if tile is None:
        return "a tile this game does not play with (tick its module, or pick the tile you drew)"
    if tile.kind == "exit":
        return f"{tile.name}, which is never drawn at set-up"
    return f"{tile.name}, which is not laid at set-up"


def look_at_temple(
    image: np.ndarray,
    detect: Callable[[np.ndarray], Detections],
    calibration: TableCalibration,
    tile_reader: TileReader,
    cells: tuple[Cell, ...] = (START, (-1, 0), (1, 0)),
) -> Observation:
    """Read the temple in one frame: find the pieces once, then let the scene stage read the
    tiles (one a pass) until the grid is anchored on the starting chamber and `cells` are read."""
    detections = detect(image)
    scene = SceneReader(calibration, [], tile_reader=tile_reader)
    tiles = int(np.count_nonzero(np.array(detections.names, dtype=object) == "tile"))
    observation = Observation(seq=0, t=0.0)
    for look in range(min(MAX_LOOKS, LOOKS_PER_TILE * tiles + 1)):
        # After the first pass nothing is seen afresh: a tile read in vain is not read again.
        fresh = None if look == 0 else ()
        observation = scene.observe(image, detections, seq=look, t=0.0, redetected=fresh)
        if scene.grid is not None and all(
            cell not in observation.tiles or observation.tiles[cell].tile != "unknown"
            for cell in cells
            if cell != START
        ):
            break
    return observation
