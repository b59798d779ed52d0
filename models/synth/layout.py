"""A random but plausible table: player zones with dice, a growing temple, gems, figures, hands."""

from __future__ import annotations

import math

import cv2
import numpy as np

from art.tiles import gem_spots
from models.synth.camera import random_camera
from models.synth.crop_look import HELD_OUT, LIGHTS, WOODS
from models.synth.draw_trinkets import SMALL_KINDS, random_trinket, trinket_outline
from models.synth.scene import (
    DIE_FACES,
    DIE_NORMALS,
    PLAYER_COLOURS,
    Chamber,
    Clutter,
    Die,
    Figure,
    FlatPiece,
    Gem,
    Hand,
    Light,
    Scene,
    Zone,
    rotate_xy,
    rotation_z,
)
from models.synth.settings import SynthSettings
from rules.catalog import basic_catalog
from rules.temple import PlacedTile, quarter_turns_for
from rules.vocabulary import FACES, SIDES, neighbour, opposite

TOTAL_GEMS = 25
SPARE_GEMS = 2
_FACE_WEIGHTS = np.array([2, 1, 1, 1, 1]) / 6
_WOODS = [(0.86, 0.70, 0.48), (0.80, 0.62, 0.40), (0.90, 0.78, 0.58), (0.74, 0.55, 0.34)]
_SKINS = [(0.96, 0.80, 0.69), (0.89, 0.68, 0.54), (0.76, 0.55, 0.40), (0.55, 0.37, 0.25)]
_SKINS += [(0.36, 0.24, 0.17), (0.98, 0.86, 0.76)]
_CLOTH = [(0.15, 0.2, 0.35), (0.5, 0.1, 0.12), (0.2, 0.2, 0.2), (0.85, 0.85, 0.82)]
_CLOTH += [(0.3, 0.45, 0.3), (0.55, 0.45, 0.3), (0.1, 0.1, 0.12)]
_CATALOG = basic_catalog()

HELD_OUT_LIGHT = LIGHTS[HELD_OUT["light"]].elevation
"""Sun elevations (degrees) of the held-out look: lower than any training frame's (35-80)."""


class Footprints:
    """Rotated rectangles already taken on the table, to keep new things from overlapping."""

    def __init__(self) -> None:
        self.rects: list[tuple[tuple[float, float], tuple[float, float], float]] = []

    def free(self, centre: tuple[float, float], size: tuple[float, float], angle: float) -> bool:
        """Tell whether a rectangle (angle in degrees, either sense) overlaps nothing taken."""
        rect = ((float(centre[0]), float(centre[1])), (float(size[0]), float(size[1])), angle)
        for other in self.rects:
            kind, _ = cv2.rotatedRectangleIntersection(rect, other)
            if kind != cv2.INTERSECT_NONE:
                return False
        return True

    def take(self, centre: tuple[float, float], size: tuple[float, float], angle: float) -> None:
        """Mark a rectangle as taken."""
        self.rects.append(
            ((float(centre[0]), float(centre[1])), (float(size[0]), float(size[1])), angle)
        )


def random_scene(rng: np.random.Generator, settings: SynthSettings) -> Scene:
    """Draw a whole table scene; the same generator state always gives the same scene."""
    camera = random_camera(rng, settings)
    low, high = HELD_OUT_LIGHT if settings.look == "held_out" else (35, 80)
    light = Light(azimuth=float(rng.uniform(0, 360)), elevation=float(rng.uniform(low, high)))
    scene = Scene(settings=settings, camera=camera, light=light)
    view = camera.table_rect()
    taken = Footprints()
    zones = _zones(rng, view, settings.tile_mm)
    for zone in zones:
        taken.take(zone.centre, zone.size, 0.0)
    origin = _start_spot(rng, view, taken, settings.tile_mm)
    if origin is None:  # a cramped view: the start chamber goes in the middle, crowding a zone out
        t = settings.tile_mm
        origin = ((view[0] + view[2]) / 2, (view[1] + view[3]) / 2)
        alone = Footprints()
        alone.take(origin, (t, t), 0.0)
        zones = [z for z in zones if alone.free(z.centre, z.size, 0.0)]
        zones = [Zone(i, z.colour, z.side, z.centre, z.size) for i, z in enumerate(zones)]
        taken = Footprints()
        for zone in zones:
            taken.take(zone.centre, zone.size, 0.0)
    scene.zones = zones
    for zone in scene.zones:
        scene.dice += _zone_dice(rng, settings, zone)
    _temple(rng, settings, scene, view, taken, origin)
    _gems_and_figures(rng, settings, scene, view, taken)
    scene.hands = _hands(rng, settings, scene, view)
    scene.clutter = _clutter(rng, view, taken, settings.hard)
    scene.clutter += trinkets(rng, settings, scene, view)
    return scene


def _zones(
    rng: np.random.Generator,
    view: tuple[float, float, float, float],
    tile_mm: float,
    players: int | None = None,
) -> list[Zone]:
    """Place 2-6 player zones (or `players` of them) along the view's edges, never overlapping.

    Fewer zones come back when an end of the table has no room for one.
    """
    x0, y0, x1, y1 = view
    width, height = x1 - x0, y1 - y0
    slots = [("S", k) for k in range(3)] + [("N", k) for k in range(3)] + [("W", 0), ("E", 0)]
    weights = np.array([1.0] * 6 + [0.5, 0.5])
    players = int(rng.integers(2, 7)) if players is None else players
    chosen = rng.choice(len(slots), size=players, replace=False, p=weights / weights.sum())
    colours = rng.permutation(list(PLAYER_COLOURS))
    placed: list[tuple[str, tuple[float, float], tuple[float, float]]] = []
    for slot in sorted(int(c) for c in chosen):  # S and N first, then the ends between them
        side, k = slots[slot]
        along = min(rng.uniform(190, 250), width / 3 - 32)
        inset = rng.uniform(-12, 30)
        # Leave a tile's height between the near and far players' zones.
        room = (height - tile_mm) / 2 - 10 - max(inset, 0.0)
        depth = max(40.0, min(rng.uniform(85, 115), room))
        if side in "SN":
            cx = x0 + (k + 0.5) * width / 3 + rng.uniform(-15, 15)
            cy = y0 + inset + depth / 2 if side == "S" else y1 - inset - depth / 2
            placed.append((side, (float(cx), float(cy)), (along, depth)))
            continue
        cx = x0 + inset + depth / 2 if side == "W" else x1 - inset - depth / 2
        low, high = y0, y1
        for other, (ox, oy), (ow, oh) in placed:
            if abs(ox - cx) < (ow + depth) / 2 + 5:
                if other == "S":
                    low = max(low, oy + oh / 2 + 8)
                else:
                    high = min(high, oy - oh / 2 - 8)
        along = min(along, high - low)
        if along < 70:
            continue  # no room at this end of the table
        cy = (low + high) / 2 + rng.uniform(-0.5, 0.5) * (high - low - along)
        placed.append((side, (float(cx), float(cy)), (depth, along)))
    return [
        Zone(i, str(colours[i]), side, centre, (float(size[0]), float(size[1])))
        for i, (side, centre, size) in enumerate(placed)
    ]


def _random_rotation(rng: np.random.Generator) -> np.ndarray:
    """Return a uniformly random rotation matrix."""
    q = rng.standard_normal(4)
    w, x, y, z = q / np.linalg.norm(q)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def _face_up(face: str, rng: np.random.Generator) -> np.ndarray:
    """Return a die rotation (before yaw) that puts `face` on top."""
    index = [i for i, f in enumerate(DIE_FACES) if f == face]
    normal = DIE_NORMALS[index[int(rng.integers(len(index)))]]
    turns = {
        (0, 0, 1): np.eye(3),
        (0, 0, -1): np.diag([1.0, -1.0, -1.0]),
        (1, 0, 0): np.array([[0.0, 0, -1], [0, 1, 0], [1, 0, 0]]),
        (-1, 0, 0): np.array([[0.0, 0, 1], [0, 1, 0], [-1, 0, 0]]),
        (0, 1, 0): np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]]),
        (0, -1, 0): np.array([[1.0, 0, 0], [0, 0, 1], [0, -1, 0]]),
    }
    return turns[tuple(int(v) for v in normal)]


def _zone_dice(rng: np.random.Generator, settings: SynthSettings, zone: Zone) -> list[Die]:
    """Roll one player's dice: most at rest, locked black masks aside, some leaning or flying."""
    s = settings.die_mm
    count = 5 if rng.random() < 0.7 else int(rng.integers(2, 5))
    mode = rng.choice(
        ["settled", "rolling", "mixed"], p=[0.3, 0.4, 0.3] if settings.hard else [0.55, 0.25, 0.2]
    )
    wood = np.array(_WOODS[int(rng.integers(len(_WOODS)))]) * rng.uniform(0.9, 1.08, 3)
    paint = "standard"
    if settings.look == "held_out":
        woods = WOODS[HELD_OUT["wood"]]
        wood = np.array(woods[int(rng.integers(len(woods)))]) * rng.uniform(0.94, 1.06, 3)
        paint = HELD_OUT["print"]
    wood = tuple(float(v) for v in np.clip(wood, 0, 1))
    swapped = bool(rng.random() < 0.05)  # a misprinted set: shape, not colour, tells them apart
    x0, y0, x1, y1 = zone.rect()
    taken = Footprints()
    dice: list[Die] = []
    for _ in range(count):
        face = str(rng.choice(FACES, p=_FACE_WEIGHTS))
        grain = int(rng.integers(8))
        flying = rng.random() < {"rolling": 0.7, "mixed": 0.3}.get(str(mode), 0.0)
        if flying:
            centre = np.array([*_inside(rng, (x0, y0, x1, y1), s), rng.uniform(s, 3.2 * s)])
            reach = rng.uniform(3, 60 if settings.hard else 30)
            heading = rng.uniform(0, 2 * math.pi)
            rotation = _random_rotation(rng)
            if rng.random() < 0.3:  # settling: nearly flat and slow
                rotation = rotation_z(rng.uniform(0, 360)) @ _face_up(face, rng)
                rotation = _tilt(rng, rng.uniform(0, 20)) @ rotation
                reach = rng.uniform(0, 8)
                centre[2] = rng.uniform(s / 2, s)
            motion = (float(reach * math.cos(heading)), float(reach * math.sin(heading)))
            dice.append(
                Die(zone.index, "tumbling", centre, rotation, wood, grain, motion, swapped, paint)
            )
            continue
        state = "locked" if face == "black_mask" and rng.random() < 0.7 else "rest"
        for _attempt in range(40):
            yaw = rng.uniform(0, 90)
            if state == "locked":
                cx = x0 + s + len([d for d in dice if d.state == "locked"]) * s * 1.15
                cy = y0 + s * 0.7 if zone.side != "N" else y1 - s * 0.7
                yaw = rng.uniform(-6, 6)
                cx += rng.uniform(-1, 1)
            elif dice and rng.random() < 0.4:  # touching a neighbour, edges aligned
                other = dice[int(rng.integers(len(dice)))]
                yaw = math.degrees(math.atan2(other.rotation[1, 0], other.rotation[0, 0]))
                yaw += rng.uniform(-4, 4)
                step = rotation_z(yaw)[:2, :2] @ np.array([[1, 0], [0, 1], [-1, 0], [0, -1]]).T
                dx, dy = step[:, int(rng.integers(4))] * s * rng.uniform(1.02, 1.1)
                cx, cy = other.centre[0] + dx, other.centre[1] + dy
            else:
                cx, cy = _inside(rng, (x0, y0, x1, y1), s)
            if taken.free((cx, cy), (s, s), -yaw):
                taken.take((cx, cy), (s, s), -yaw)
                rotation = rotation_z(yaw) @ _face_up(face, rng)
                centre = np.array([cx, cy, s / 2])
                dice.append(
                    Die(
                        zone.index,
                        state,
                        centre,
                        rotation,
                        wood,
                        grain,
                        swapped=swapped,
                        paint=paint,
                    )
                )
                break
    resting = [d for d in dice if d.state == "rest"]
    if resting and rng.random() < (0.5 if settings.hard else 0.3):
        victim = [d for d in dice if d.state == "rest"][-1]
        if len(resting) > 1:
            _lean(rng, settings, victim, resting[0])
    return dice


def _inside(
    rng: np.random.Generator,
    rect: tuple[float, float, float, float],
    margin: float,
    margin_y: float | None = None,
) -> tuple[float, float]:
    """Return a random point of `rect` at least `margin` from its edges (or its middle)."""
    x0, y0, x1, y1 = rect
    mx = min(margin, (x1 - x0) / 2)
    my = min(margin if margin_y is None else margin_y, (y1 - y0) / 2)
    return float(rng.uniform(x0 + mx, x1 - mx)), float(rng.uniform(y0 + my, y1 - my))


def _tilt(rng: np.random.Generator, degrees: float) -> np.ndarray:
    """Return a rotation tilting by `degrees` about a random horizontal axis."""
    heading = rng.uniform(0, 2 * math.pi)
    axis = np.array([math.cos(heading), math.sin(heading), 0.0])
    a = math.radians(degrees)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(a) * k + (1 - math.cos(a)) * k @ k


def _lean(rng: np.random.Generator, settings: SynthSettings, die: Die, support: Die) -> None:
    """Move `die` so that it leans against `support`, tilted toward it."""
    s = settings.die_mm
    heading = rng.uniform(0, 2 * math.pi)
    d = np.array([math.cos(heading), math.sin(heading), 0.0])
    angle = rng.uniform(12, 38)
    axis = np.cross(np.array([0.0, 0.0, 1.0]), d)
    a = -math.radians(angle)  # top toward the support
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    tilt = np.eye(3) + math.sin(a) * k + (1 - math.cos(a)) * k @ k
    die.rotation = tilt @ die.rotation
    low = -(die.corners(s) - die.centre)[:, 2].min()
    slide_to_touch(die, support, d, low, s)
    die.state = "leaning"


def slide_to_touch(
    moving: Die, fixed: Die, direction: np.ndarray, height: float, size: float, step: float = 0.5
) -> None:
    """Slide `moving` (its centre at `height`) in toward `fixed` from two die sizes away along
    the horizontal `direction` (from `fixed` to `moving`) until a corner of either die would
    enter the other, then back one `step`: the two dice touch."""
    for dist in np.arange(2.0 * size, 0.5 * size, -step):
        centre = fixed.centre + direction * dist
        centre[2] = height
        moving.centre = centre
        if cubes_touch(moving, fixed, size):
            moving.centre = fixed.centre + direction * (dist + step)
            moving.centre[2] = height
            break


def cubes_touch(a: Die, b: Die, size: float) -> bool:
    """Tell whether any sampled edge point of one cube lies inside the other."""
    t = np.linspace(-1, 1, 5)
    samples = np.array(
        [[x, y, z] for x in t for y in t for z in t if max(abs(x), abs(y), abs(z)) == 1]
    )
    for first, second in ((a, b), (b, a)):
        pts = first.centre + (samples * size / 2) @ first.rotation.T
        local = (pts - second.centre) @ second.rotation
        if np.any(np.all(np.abs(local) < size / 2, axis=1)):
            return True
    return False


def _temple(
    rng: np.random.Generator,
    settings: SynthSettings,
    scene: Scene,
    view: tuple[float, float, float, float],
    taken: Footprints,
    origin: tuple[float, float],
) -> None:
    """Lay the start chamber at `origin`, grow the temple, put the draw pile and depot beside."""
    t = settings.tile_mm
    x0, y0, x1, y1 = view
    gap = rng.uniform(0.3, 2.0)
    pitch = t + gap
    reserved = Footprints()
    reserved.rects = list(taken.rects)
    start_rect = len(reserved.rects)
    reserved.take(origin, (t * 1.05, t * 1.05), 0.0)  # keeps the pile and depot off the start
    pile_spot = _free_spot(rng, view, reserved, (t * 1.25, t * 1.25), inside=1.0)
    if pile_spot is not None:
        reserved.take(pile_spot, (t * 1.25, t * 1.25), 0.0)
    depot_size = (rng.uniform(120, 150), rng.uniform(80, 100))
    # Room for the spare gems beside it and for a turn of up to 8 degrees.
    depot_room = (depot_size[0] + 50, depot_size[1] + 30)
    depot_spot = _free_spot(rng, view, reserved, depot_room, 1.0)
    if depot_spot is not None:
        reserved.take(depot_spot, depot_room, 0.0)

    del reserved.rects[start_rect]  # the temple itself may grow next to the start chamber

    def cell_centre(cell: tuple[int, int]) -> tuple[float, float]:
        return (origin[0] + cell[0] * pitch, origin[1] + cell[1] * pitch)

    def fits(cell: tuple[int, int]) -> bool:
        cx, cy = cell_centre(cell)
        inside = x0 - 0.35 * t < cx < x1 + 0.35 * t and y0 - 0.35 * t < cy < y1 + 0.35 * t
        return inside and reserved.free((cx, cy), (t * 0.98, t * 0.98), 0.0)

    wanted = 1 + int(rng.integers(0, 17))
    ids = [tid for tid in _CATALOG if tid != "start"]
    rng.shuffle(ids)
    placed: dict[tuple[int, int], PlacedTile] = {}
    start = PlacedTile(_CATALOG["start"], (0, 0), str(rng.choice(SIDES)))
    placed[(0, 0)] = start
    order = [start]
    while len(order) < wanted and ids:
        frontier = [
            (p, side)
            for p in order
            for side in SIDES
            if side in p.open_sides
            and neighbour(p.cell, side) not in placed
            and fits(neighbour(p.cell, side))
        ]
        if not frontier:
            break
        parent, side = frontier[int(rng.integers(len(frontier)))]
        tile_id = ids.pop() if len(order) > 5 or ids[-1] != "exit" else ids.pop(0)
        cell = neighbour(parent.cell, side)
        new = PlacedTile(_CATALOG[tile_id], cell, opposite(side))
        placed[cell] = new
        order.append(new)
    for p in order:
        cx, cy = cell_centre(p.cell)
        # Hands push tiles edge to edge: small errors, never overlaps.
        angle = 90 * quarter_turns_for(p.stairs) + float(np.clip(rng.normal(0, 0.8), -1.5, 1.5))
        dx, dy = np.clip(rng.normal(0, 0.6, 2), -1.2, 1.2)
        centre = (cx + dx, cy + dy)
        gems = int(rng.integers(0, p.tile.gems.count + 1)) if p.tile.gems else 0
        scene.chambers.append(Chamber(p.tile, p.cell, p.stairs, centre, float(angle), gems))
        taken.take(centre, (t, t), -angle)
    remaining = len(_CATALOG) - len(order)
    if pile_spot is not None and remaining:
        base = 90 * int(rng.integers(4)) + rng.uniform(-10, 10)
        for level in range(min(remaining, 6)):
            off = rng.normal(0, 1.5, 2)
            angle = base + rng.normal(0, 2.5)
            pos = (pile_spot[0] + off[0], pile_spot[1] + off[1])
            scene.draw_pile.append(FlatPiece(pos, (t, t), float(angle), 2.0 * (level + 1)))
        taken.take(pile_spot, (t * 1.25, t * 1.25), 0.0)
        scene.pile_count = remaining
    if depot_spot is not None:
        angle = float(np.clip(rng.normal(0, 4), -8, 8))
        scene.depot = FlatPiece(depot_spot, depot_size, angle, 3.0)
        taken.take(depot_spot, depot_room, 0.0)


def _start_spot(
    rng: np.random.Generator,
    view: tuple[float, float, float, float],
    taken: Footprints,
    tile_mm: float,
) -> tuple[float, float] | None:
    """Find a free place for the start chamber: near the middle, else anywhere in view."""
    x0, _, x1, _ = view
    for attempt in range(120):
        margin = 0.3 * (x1 - x0) if attempt < 60 else tile_mm / 2
        spot = _inside(rng, view, margin, tile_mm / 2 if attempt >= 60 else tile_mm)
        if taken.free(spot, (tile_mm, tile_mm), 0.0):
            return spot
    return None


def _free_spot(
    rng: np.random.Generator,
    view: tuple[float, float, float, float],
    taken: Footprints,
    size: tuple[float, float],
    inside: float,
) -> tuple[float, float] | None:
    """Find a free place for a rectangle, at least `inside` (fraction) within the view."""
    mx, my = size[0] * (inside - 0.5), size[1] * (inside - 0.5)
    for _ in range(80):
        c = _inside(rng, view, mx, my)
        if taken.free(c, size, 0.0):
            return c
    return None


def _gems_and_figures(
    rng: np.random.Generator,
    settings: SynthSettings,
    scene: Scene,
    view: tuple[float, float, float, float],
    taken: Footprints,
) -> None:
    """Put activated gems on gem icons, the rest in the depot, two spares, and the figures."""
    t = settings.tile_mm
    for chamber in scene.chambers:
        spots = gem_spots(chamber.tile)[: chamber.gems]
        for uv in spots:
            x, y = chamber.to_table(np.array(uv), t)[0] + rng.normal(0, 1.0, 2)
            scene.gems.append(_gem(rng, "cell", (x, y), chamber.cell))
    in_depot = max(0, TOTAL_GEMS - SPARE_GEMS - sum(c.gems for c in scene.chambers))
    if scene.depot is not None:
        d = scene.depot
        w, h = d.size
        cols, rows = 7, 4
        slots = rng.permutation(cols * rows)
        for k in range(in_depot):
            slot = int(slots[k % len(slots)])
            u = (slot % cols + 0.5) / cols - 0.5 + rng.normal(0, 0.02)
            v = (slot // cols + 0.5) / rows - 0.5 + rng.normal(0, 0.03)
            local = np.array([[u * (w - 24), v * (h - 22)]])
            x, y = rotate_xy(local, d.angle)[0] + d.centre
            scene.gems.append(
                _gem(rng, "depot", (x, y), None, z=d.z + (3 if k >= len(slots) else 0))
            )
        for k in range(SPARE_GEMS):
            side = 1 if k == 0 else 1.3
            local = np.array([[w / 2 + 10 * side, rng.uniform(-h / 3, h / 3)]])
            x, y = rotate_xy(local, d.angle)[0] + d.centre
            scene.gems.append(_gem(rng, "spare", (x, y), None))
    cells = {c.cell: c for c in scene.chambers}
    crowd: dict[tuple[int, int], int] = {}
    spots = [(0.28, 0.3), (0.72, 0.3), (0.3, 0.5), (0.7, 0.5), (0.5, 0.46), (0.5, 0.2)]
    for zone in scene.zones:
        if not cells:
            break
        chamber = (
            scene.chambers[0]
            if rng.random() < 0.35
            else scene.chambers[int(rng.integers(len(cells)))]
        )
        k = crowd.get(chamber.cell, 0)
        if k >= len(spots):
            continue
        crowd[chamber.cell] = k + 1
        x, y = chamber.to_table(np.array(spots[k]), t)[0] + rng.normal(0, 2.0, 2)
        scene.figures.append(Figure(zone.colour, chamber.cell, (float(x), float(y), 2.0)))


def _gem(
    rng: np.random.Generator,
    where: str,
    xy: tuple[float, float],
    cell: tuple[int, int] | None,
    z: float = 2.0,
) -> Gem:
    """Return a gem lying at `xy` with a random turn and look."""
    return Gem(
        where,
        (float(xy[0]), float(xy[1]), z),
        float(rng.uniform(0, 360)),
        int(rng.integers(4)),
        cell,
    )


def _hands(
    rng: np.random.Generator,
    settings: SynthSettings,
    scene: Scene,
    view: tuple[float, float, float, float],
) -> list[Hand]:
    """Reach over the table: over rolling dice most often, sometimes over the temple."""
    x0, y0, x1, y1 = view
    count = int(
        rng.choice(
            [0, 1, 2, 3, 4],
            p=[0.1, 0.3, 0.3, 0.2, 0.1] if settings.hard else [0.4, 0.38, 0.18, 0.04, 0.0],
        )
    )
    hands = []
    busy = [z for z in scene.zones if any(d.zone == z.index and not d.at_rest for d in scene.dice)]
    for _ in range(count):
        if busy and rng.random() < 0.75:
            zone = busy.pop(int(rng.integers(len(busy))))  # one hand per player's dice
            target = np.array(zone.centre) + rng.normal(0, 25, 2)
            side = zone.side
        elif scene.chambers:
            chamber = scene.chambers[int(rng.integers(len(scene.chambers)))]
            target = np.array(chamber.centre) + rng.normal(0, 30, 2)
            side = str(rng.choice(SIDES))
        else:
            target = np.array([rng.uniform(x0, x1), rng.uniform(y0, y1)])
            side = str(rng.choice(SIDES))
        if not settings.hard and any(np.hypot(*(target - h.wrist)) < 150 for h in hands):
            continue  # hands of different players rarely pile up in one spot
        inward = {"S": 90.0, "N": -90.0, "W": 0.0, "E": 180.0}[side] + rng.normal(0, 25)
        back = -np.array([math.cos(math.radians(inward)), math.sin(math.radians(inward))])
        exits = [
            (edge - target[axis]) / back[axis]
            for axis, edge in ((0, x0), (0, x1), (1, y0), (1, y1))
            if abs(back[axis]) > 1e-6 and (edge - target[axis]) / back[axis] > 0
        ]
        reach = float(np.clip(min(exits, default=300.0) + 140, 160, 650))
        skin = np.array(_SKINS[int(rng.integers(len(_SKINS)))]) * rng.uniform(0.92, 1.06, 3)
        hands.append(
            Hand(
                wrist=(float(target[0]), float(target[1])),
                heading=float(inward),
                height=float(rng.uniform(40, 200 if settings.hard else 150)),
                pose=str(rng.choice(["flat", "cupped", "pointing"])),
                skin=tuple(float(v) for v in np.clip(skin, 0, 1)),
                sleeve=_CLOTH[int(rng.integers(len(_CLOTH)))],
                sleeve_from=float(rng.uniform(60, 260)),
                scale=float(rng.uniform(0.85, 1.12)),
                reach=reach,
                left=bool(rng.random() < 0.5),
            )
        )
    return hands


def _clutter(
    rng: np.random.Generator, view: tuple[float, float, float, float], taken: Footprints, hard: bool
) -> list[Clutter]:
    """Put a few everyday things on the free parts of the table, partly out of view."""
    kinds = {"cup": 85.0, "phone": 150.0, "rulebook": 250.0, "notepad": 130.0, "bowl": 125.0}
    items = []
    for _ in range(int(rng.integers(0, 6 if hard else 4))):
        kind = str(rng.choice(list(kinds)))
        size = kinds[kind] * rng.uniform(0.9, 1.1)
        spot = _free_spot(rng, view, taken, (size * 0.8, size * 0.8), inside=0.5)
        if spot is None:
            continue
        taken.take(spot, (size * 0.8, size * 0.8), 0.0)
        colour = tuple(float(v) for v in rng.uniform(0.1, 0.9, 3))
        items.append(Clutter(kind, spot, float(rng.uniform(0, 360)), colour, float(size)))
    return items


def _clear_of(scene: Scene, outline: np.ndarray, die_mm: float, gap: float) -> bool:
    """Tell whether a footprint (N, 2) keeps `gap` mm from every die, gem and figure."""
    centre = outline.mean(axis=0)
    reach = float(np.max(np.hypot(*(outline - centre).T)))
    path = cv2.convexHull(outline.astype(np.float32))
    for xy, r in (
        [(d.centre[:2], die_mm * 0.72) for d in scene.dice]
        + [(np.array(g.position[:2]), 7.0) for g in scene.gems]
        + [(np.array(f.position[:2]), 11.0) for f in scene.figures]
    ):
        if np.hypot(*(xy - centre)) > reach + r + gap:
            continue
        inside = cv2.pointPolygonTest(path, (float(xy[0]), float(xy[1])), True)
        if inside > -(r + gap):
            return False
    return True


def trinkets(
    rng: np.random.Generator,
    settings: SynthSettings,
    scene: Scene,
    view: tuple[float, float, float, float],
) -> list[Clutter]:
    """Scatter look-alikes that are no dice (beads, coins, tokens, crystals of other games,
    cards, pencils) anywhere on the table and right beside dice; a few loose gems by the dice
    (gems are pieces: they are labelled gems)."""
    s = settings.die_mm
    x0, y0, x1, y1 = view
    items: list[Clutter] = []
    count = int(rng.integers(3, 14) if settings.hard else rng.integers(2, 10))
    for _ in range(count):
        for _attempt in range(8):
            item = random_trinket(rng, (rng.uniform(x0, x1), rng.uniform(y0, y1)))
            if _clear_of(scene, trinket_outline(item), s, 0.5) and _apart(item, items):
                items.append(item)
                break
    resting = [d for d in scene.dice if d.at_rest]
    for zone in scene.zones:
        mine = [d for d in resting if d.zone == zone.index]
        if not mine or rng.random() > 0.6:
            continue
        for _ in range(int(rng.integers(1, 4))):
            die = mine[int(rng.integers(len(mine)))]
            kind = str(rng.choice(SMALL_KINDS))
            angle = rng.uniform(0, 2 * math.pi)
            item = random_trinket(rng, (0.0, 0.0), kind)
            dist = s * 0.72 + item.size / 2 + rng.uniform(0.3, 8.0)
            at = die.centre[:2] + dist * np.array([math.cos(angle), math.sin(angle)])
            item.centre = (float(at[0]), float(at[1]))
            if _clear_of(scene, trinket_outline(item), s, 0.2) and _apart(item, items):
                items.append(item)
        if rng.random() < 0.3:  # a spare gem rolled in among the dice
            die = mine[int(rng.integers(len(mine)))]
            angle = rng.uniform(0, 2 * math.pi)
            at = die.centre[:2] + (s * 0.72 + 8 + rng.uniform(0.5, 6)) * np.array(
                [math.cos(angle), math.sin(angle)]
            )
            ring = at + 7 * np.column_stack(
                [np.cos(np.linspace(0, 6.2, 8)), np.sin(np.linspace(0, 6.2, 8))]
            )
            if _clear_of(scene, ring, s, 0.2):
                scene.gems.append(_gem(rng, "loose", (float(at[0]), float(at[1])), None))
    return items


def _apart(item: Clutter, others: list[Clutter]) -> bool:
    """Tell whether a trinket's circle keeps clear of the other trinkets' circles."""
    return all(
        np.hypot(item.centre[0] - o.centre[0], item.centre[1] - o.centre[1])
        > (item.size + o.size) / 2 + 0.5
        for o in others
        if o.kind in SMALL_KINDS
    )
