"""The fixed table of a game video: camera, zones, temple grid, pile, depot, and where pieces go."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from art.tiles import gem_spots
from models.synth.camera import random_camera
from models.synth.layout import (
    _WOODS,
    SPARE_GEMS,
    Footprints,
    _clutter,
    _face_up,
    _free_spot,
    _inside,
    _lean,
    _start_spot,
    _zones,
    cubes_touch,
)
from models.synth.scene import (
    Chamber,
    Die,
    Figure,
    FlatPiece,
    Gem,
    Light,
    Scene,
    Zone,
    rotate_xy,
    rotation_z,
)
from models.synth.settings import SynthSettings
from rules.catalog import TileDef, basic_catalog
from rules.game_setup import BASE_DEPOT_BY_PLAYERS
from rules.temple import PlacedTile, quarter_turns_for
from rules.vocabulary import BLACK_MASK, SIDES, Cell, neighbour, opposite

FIGURE_SPOTS = ((0.28, 0.3), (0.72, 0.3), (0.3, 0.5), (0.7, 0.5), (0.5, 0.46), (0.5, 0.2))
"""Where figures stand on a chamber, in its own texture frame, clear of the gem icons."""
_ATTEMPTS = 60
_FIGURE_ROOM = 26.0
"""Side of the square a standing figure needs, in mm."""
PILE_SHOWN = 6
"""Tile backs drawn for the draw pile (the rest lie hidden below them)."""
_CATALOG = basic_catalog()


class TableError(Exception):
    """No table layout with room for every player's zone was found for this seed and size."""


@dataclass(frozen=True)
class Grid:
    """The temple grid on the table: cell [0, 0] (the start chamber) at `origin`, axes x and y."""

    origin: tuple[float, float]
    pitch: float
    """Centre-to-centre distance of neighbouring cells in mm (the tile edge plus a small gap)."""

    def centre(self, cell: Cell) -> tuple[float, float]:
        """Return the nominal centre of `cell` in table mm."""
        return (self.origin[0] + cell[0] * self.pitch, self.origin[1] + cell[1] * self.pitch)


@dataclass
class GameTable:
    """The table of one video as it is when the video starts (what never moves, and the pieces)."""

    settings: SynthSettings
    scene: Scene
    """Camera, light, zones, start temple, pile, depot, depot gems, figures and clutter; no dice."""
    grid: Grid
    view: tuple[float, float, float, float]
    obstacles: Footprints
    """What a new chamber must not cover: the zones, the pile, the depot and the clutter."""
    woods: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    """Each player's dice colour (a set of dice per player)."""
    escapes: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Where each player's figure stands once escaped: beside their zone, kept free."""

    @property
    def players(self) -> list[str]:
        """Return the players: the colours of the zones, in zone order."""
        return [zone.colour for zone in self.scene.zones]

    def zone(self, player: str) -> Zone:
        """Return the player's dice zone."""
        return next(z for z in self.scene.zones if z.colour == player)

    def fits(self, cell: Cell) -> bool:
        """Tell whether a chamber at `cell` would lie wholly in view, clear of everything else."""
        t = self.settings.tile_mm
        cx, cy = self.grid.centre(cell)
        x0, y0, x1, y1 = self.view
        margin = t / 2 + 4
        if not (x0 + margin <= cx <= x1 - margin and y0 + margin <= cy <= y1 - margin):
            return False
        return self.obstacles.free((cx, cy), (t * 1.02, t * 1.02), 0.0)

    def setup_line(self) -> dict[str, Any]:
        """Return the game record's setup line for this table (the temple as it lies now)."""
        return {
            "type": "setup",
            "players": self.players,
            "difficulty": "normal",
            "modules": [],
            "temple": [
                {"tile": c.tile.tile_id, "cell": list(c.cell), "stairs": c.stairs}
                for c in self.scene.chambers
            ],
            "track_dice": True,
        }

    def chamber(self, rng: np.random.Generator, tile: TileDef, cell: Cell, stairs: str) -> Chamber:
        """Return a chamber laid at `cell` by hand: pushed edge to edge, a little off."""
        angle = 90 * quarter_turns_for(stairs) + float(np.clip(rng.normal(0, 0.8), -1.5, 1.5))
        cx, cy = self.grid.centre(cell)
        if cell != (0, 0):
            dx, dy = np.clip(rng.normal(0, 0.6, 2), -1.2, 1.2)
            cx, cy = cx + float(dx), cy + float(dy)
        return Chamber(tile, cell, stairs, (cx, cy), angle)


def build_table(
    rng: np.random.Generator, settings: SynthSettings, players: int, preplaced: int
) -> GameTable:
    """Draw a table for `players` with room for the temple to grow; `preplaced` tiles at most.

    Raises `TableError` when no view drawn has room for that many zones, the pile and the depot.
    """
    for attempt in range(_ATTEMPTS):
        # Later attempts keep less room clear around the start chamber for the temple.
        table = _try_table(rng, settings, players, 3 - 2 * attempt // _ATTEMPTS)
        if table is not None:
            break
    else:
        raise TableError(f"no room for {players} player zones, the draw pile and the depot")
    scene = table.scene
    for zone in scene.zones:
        spot = escape_spot(rng, table, zone)
        table.escapes[zone.colour] = spot
        table.obstacles.take(spot, (_FIGURE_ROOM, _FIGURE_ROOM), 0.0)
    _start_temple(rng, table, preplaced)
    scene.pile_count = sum(1 for tile in _CATALOG.values() if tile.kind != "start") - (
        len(scene.chambers) - 1
    )
    _depot_gems(rng, scene, BASE_DEPOT_BY_PLAYERS[players])
    start = scene.chambers[0]
    t = settings.tile_mm
    for k, zone in enumerate(scene.zones):
        x, y = start.to_table(np.array(FIGURE_SPOTS[k]), t)[0] + rng.normal(0, 1.5, 2)
        scene.figures.append(Figure(zone.colour, start.cell, (float(x), float(y), 2.0)))
    for zone in scene.zones:
        wood = np.array(_WOODS[int(rng.integers(len(_WOODS)))]) * rng.uniform(0.9, 1.08, 3)
        table.woods[zone.colour] = tuple(float(v) for v in np.clip(wood, 0, 1))
    return table


def _try_table(
    rng: np.random.Generator, settings: SynthSettings, players: int, room: int
) -> GameTable | None:
    """Draw a camera, zones, the start, pile, depot and clutter; None when something won't fit.

    `room` cells across stay clear around the start chamber for the temple to grow into.
    """
    camera = random_camera(rng, settings)
    view = camera.table_rect()
    zones = _zones(rng, view, settings.tile_mm, players)
    if len(zones) != players:
        return None
    light = Light(azimuth=float(rng.uniform(0, 360)), elevation=float(rng.uniform(40, 80)))
    scene = Scene(settings=settings, camera=camera, light=light, zones=zones)
    t = settings.tile_mm
    obstacles = Footprints()
    for zone in zones:
        obstacles.take(zone.centre, zone.size, 0.0)
    origin = _start_spot(rng, view, obstacles, t)
    if origin is None:
        return None
    grid = Grid(origin, t + float(rng.uniform(0.3, 2.0)))
    growth = Footprints()
    growth.rects = list(obstacles.rects)
    growth.take(origin, (room * grid.pitch, room * grid.pitch), 0.0)
    if not _pile_and_depot(rng, settings, scene, view, growth, obstacles):
        return None
    scene.clutter = _clutter(rng, view, growth, False)
    for item in scene.clutter:
        obstacles.take(item.centre, (item.size * 0.8, item.size * 0.8), 0.0)
    return GameTable(settings, scene, grid, view, obstacles)


def _pile_and_depot(
    rng: np.random.Generator,
    settings: SynthSettings,
    scene: Scene,
    view: tuple[float, float, float, float],
    growth: Footprints,
    obstacles: Footprints,
) -> bool:
    """Put the draw pile and the depot board clear of `growth`; False when they do not fit."""
    t = settings.tile_mm
    pile_spot = _free_spot(rng, view, growth, (t * 1.25, t * 1.25), inside=1.0)
    if pile_spot is None:
        return False
    growth.take(pile_spot, (t * 1.25, t * 1.25), 0.0)
    obstacles.take(pile_spot, (t * 1.25, t * 1.25), 0.0)
    base = 90 * int(rng.integers(4)) + rng.uniform(-10, 10)
    for level in range(PILE_SHOWN):
        off = rng.normal(0, 1.5, 2)
        pos = (pile_spot[0] + off[0], pile_spot[1] + off[1])
        angle = float(base + rng.normal(0, 2.5))
        scene.draw_pile.append(FlatPiece(pos, (t, t), angle, 2.0 * (level + 1)))
    size = (float(rng.uniform(120, 150)), float(rng.uniform(80, 100)))
    room = (size[0] + 50, size[1] + 30)
    depot_spot = _free_spot(rng, view, growth, room, 1.0)
    if depot_spot is None:
        return False
    growth.take(depot_spot, room, 0.0)
    obstacles.take(depot_spot, room, 0.0)
    scene.depot = FlatPiece(depot_spot, size, float(np.clip(rng.normal(0, 4), -8, 8)), 3.0)
    return True


def _start_temple(rng: np.random.Generator, table: GameTable, preplaced: int) -> None:
    """Lay the start chamber and up to `preplaced` more tiles (never the exit) that fit."""
    scene = table.scene
    placed = [PlacedTile(_CATALOG["start"], (0, 0), str(rng.choice(SIDES)))]
    ids = [tid for tid in _CATALOG if _CATALOG[tid].kind == "chamber"]
    rng.shuffle(ids)
    while len(placed) < 1 + preplaced:
        cells = {p.cell for p in placed}
        frontier = [
            (p, side)
            for p in placed
            for side in SIDES
            if side in p.open_sides
            and neighbour(p.cell, side) not in cells
            and table.fits(neighbour(p.cell, side))
        ]
        if not frontier:
            break
        parent, side = frontier[int(rng.integers(len(frontier)))]
        cell = neighbour(parent.cell, side)
        placed.append(PlacedTile(_CATALOG[ids.pop()], cell, opposite(side)))
    for p in placed:
        scene.chambers.append(table.chamber(rng, p.tile, p.cell, p.stairs))


def _depot_gems(rng: np.random.Generator, scene: Scene, count: int) -> None:
    """Fill the depot with `count` gems and lay the two spares beside it."""
    depot = scene.depot
    assert depot is not None
    w, h = depot.size
    cols, rows = 7, 4
    slots = rng.permutation(cols * rows)
    for k in range(count):
        slot = int(slots[k % len(slots)])
        u = (slot % cols + 0.5) / cols - 0.5 + rng.normal(0, 0.02)
        v = (slot // cols + 0.5) / rows - 0.5 + rng.normal(0, 0.03)
        x, y = rotate_xy(np.array([[u * (w - 24), v * (h - 22)]]), depot.angle)[0] + depot.centre
        z = depot.z + (3 if k >= len(slots) else 0)
        scene.gems.append(new_gem(rng, "depot", (float(x), float(y)), None, z))
    for k in range(SPARE_GEMS):
        local = np.array([[w / 2 + 10 * (1 if k == 0 else 1.3), rng.uniform(-h / 3, h / 3)]])
        x, y = rotate_xy(local, depot.angle)[0] + depot.centre
        scene.gems.append(new_gem(rng, "spare", (float(x), float(y)), None))


def new_gem(
    rng: np.random.Generator,
    where: str,
    xy: tuple[float, float],
    cell: Cell | None,
    z: float = 2.0,
) -> Gem:
    """Return a gem lying at `xy` with a random turn and look."""
    return Gem(where, (xy[0], xy[1], z), float(rng.uniform(0, 360)), int(rng.integers(4)), cell)


def chamber_gems(
    rng: np.random.Generator, chamber: Chamber, count: int, tile_mm: float
) -> list[Gem]:
    """Return `count` gems put on a chamber's gem icons."""
    gems = []
    for uv in gem_spots(chamber.tile)[:count]:
        x, y = chamber.to_table(np.array(uv), tile_mm)[0] + rng.normal(0, 1.0, 2)
        gems.append(new_gem(rng, "cell", (float(x), float(y)), chamber.cell))
    return gems


def lay_dice(
    rng: np.random.Generator,
    settings: SynthSettings,
    zone: Zone,
    faces: list[str],
    keep: list[Die],
    wood: tuple[float, float, float],
) -> list[Die]:
    """Lay dice showing `faces` at rest in `zone`, clear of `keep`; some touch, one may lean.

    Black masks come out "locked" (the rules lock every black mask rolled).
    """
    s = settings.die_mm
    rect = zone.rect()
    taken = Footprints()
    for die in keep:
        taken.take((die.centre[0], die.centre[1]), (s * 1.45, s * 1.45), 0.0)
    dice: list[Die] = []
    for face in faces:
        grain = int(rng.integers(8))
        state = "locked" if face == BLACK_MASK else "rest"
        for attempt in range(80):
            yaw = float(rng.uniform(0, 90))
            if dice and rng.random() < 0.25:  # touching a neighbour, edges aligned
                other = dice[int(rng.integers(len(dice)))]
                yaw = math.degrees(math.atan2(other.rotation[1, 0], other.rotation[0, 0]))
                yaw += float(rng.uniform(-4, 4))
                step = rotation_z(yaw)[:2, :2] @ np.array([[1, 0], [0, 1], [-1, 0], [0, -1]]).T
                dx, dy = step[:, int(rng.integers(4))] * s * rng.uniform(1.02, 1.1)
                cx, cy = float(other.centre[0] + dx), float(other.centre[1] + dy)
                inside = (
                    rect[0] + s / 2 < cx < rect[2] - s / 2
                    and rect[1] + s / 2 < cy < rect[3] - s / 2
                )
                if not inside:
                    continue
            else:
                cx, cy = _inside(rng, rect, s)
            if taken.free((cx, cy), (s, s), -yaw) or attempt == 79:
                taken.take((cx, cy), (s, s), -yaw)
                rotation = rotation_z(yaw) @ _face_up(face, rng)
                centre = np.array([cx, cy, s / 2])
                dice.append(Die(zone.index, state, centre, rotation, wood, grain))
                break
    resting = [d for d in dice if d.state == "rest"]
    if len(resting) > 1 and rng.random() < 0.25:
        _lean_if_room(rng, settings, resting[-1], resting[0], [*keep, *dice])
    return dice


def _lean_if_room(
    rng: np.random.Generator, settings: SynthSettings, die: Die, support: Die, around: list[Die]
) -> None:
    """Lean `die` on `support`, unless it would then pass into a die of `around` (sliding in
    toward its support it may cross a third die, or never meet the support's sampled edges):
    then it stays where it lay, flat. A die inside another is nothing a camera can see."""
    centre, rotation = die.centre.copy(), die.rotation.copy()
    _lean(rng, settings, die, support)
    if any(cubes_touch(die, other, settings.die_mm) for other in around if other is not die):
        die.centre, die.rotation, die.state = centre, rotation, "rest"


def escape_spot(rng: np.random.Generator, table: GameTable, zone: Zone) -> tuple[float, float]:
    """Return a free place beside a zone for the figure of a player who escapes."""
    x0, y0, x1, y1 = zone.rect()
    cx, cy = zone.centre
    gap = 22.0
    candidates = [(x0 - gap, cy), (x1 + gap, cy), (cx, y0 - gap), (cx, y1 + gap)]
    vx0, vy0, vx1, vy1 = table.view
    for k in rng.permutation(len(candidates)):
        x, y = candidates[int(k)]
        inside = vx0 + 15 < x < vx1 - 15 and vy0 + 15 < y < vy1 - 15
        if inside and table.obstacles.free((x, y), (_FIGURE_ROOM, _FIGURE_ROOM), 0.0):
            return float(x), float(y)
    return float(x0 + 14), float(y1 - 14)  # a corner of the zone itself
