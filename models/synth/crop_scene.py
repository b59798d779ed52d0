"""The small world a crop is cut from: a patch camera, a background, cast shadows, placements.

A crop patch is a few die sizes square, in frame pixels. Its camera is a 1080p webcam's, seen
through a window around one spot: the spot lies off the optical axis (so a die there shows its
sides as it would near the frame's edge), the camera tilts a little, and the die there is
14-45 px across (24-35 px on about half the crops). Backgrounds and props reuse the frame
renderer's art: table tops (`materials.table_texture`), chamber tiles and tile backs
(`tileart`), the gem depot, flat clutter (the rulebook, a notepad, a phone) and the trinkets
(`draw_trinkets`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from art.noise import smooth_noise
from art.tiles import depot_texture, gem_spots, tile_back_texture, tile_texture
from models.synth.camera import Camera
from models.synth.canvas import Canvas, Layer
from models.synth.crop_die import axis_angle
from models.synth.draw_clutter import flat_quad, flat_texture
from models.synth.draw_props import TILE_TEXTURE, draw_flat
from models.synth.materials import table_texture
from models.synth.scene import Clutter, Hand, rotate_xy
from rules.catalog import TileDef, basic_catalog

DIE_MM = 16.0
"""A die's edge (the frame renderer's default)."""
TILE_MM = 100.0
FRAME = (1920, 1080)
"""The frame the patch is a window of."""
PATCH_DICE = 3.4
"""Patch side over the die's size in px: room for any crop window around the centre."""
_DOWN = np.diag([1.0, -1.0, -1.0])
_SKINS = [(0.96, 0.80, 0.69), (0.89, 0.68, 0.54), (0.76, 0.55, 0.40), (0.55, 0.37, 0.25)]
_SKINS += [(0.36, 0.24, 0.17), (0.98, 0.86, 0.76)]
_CLOTH = [(0.15, 0.2, 0.35), (0.5, 0.1, 0.12), (0.2, 0.2, 0.2), (0.85, 0.85, 0.82)]
_CLOTH += [(0.3, 0.45, 0.3), (0.55, 0.45, 0.3), (0.1, 0.1, 0.12)]


@dataclass(frozen=True)
class PatchView:
    """The patch's camera and where its centre lies on the table."""

    camera: Camera
    size: int
    """Patch side in px."""
    die_px: float
    """A die's edge in px at the centre."""
    target: np.ndarray
    """Table point (x, y) in mm under the patch centre, at a die's half height."""

    def at_height(self, z: float) -> np.ndarray:
        """Return the table (x, y) in mm seen at the patch centre at height `z` mm."""
        cam = self.camera
        ray = cam.rotation.T @ np.array(
            [(self.size / 2 - cam.cx) / cam.focal, (self.size / 2 - cam.cy) / cam.focal, 1.0]
        )
        t = (z - cam.centre[2]) / ray[2]
        return (cam.centre + t * ray)[:2]

    @property
    def px_per_mm(self) -> float:
        """Return the image scale at the centre."""
        return self.die_px / DIE_MM


def patch_view(rng: np.random.Generator) -> PatchView:
    """Draw a patch camera: a webcam over the table, looking at a random spot of its frame."""
    # Any camera from a 720p webcam far up (14 px dice) to a 1080p one close by (45 px).
    die_px = rng.uniform(24, 35) if rng.random() < 0.45 else rng.uniform(14, 45)
    size = math.ceil(PATCH_DICE * die_px)
    hfov = math.radians(rng.uniform(55, 80))
    focal = FRAME[0] / 2 / math.tan(hfov / 2)
    # How far off the optical axis the spot lies: dice near a wide frame's edge show their sides.
    off = math.radians(rng.uniform(0, 32) if rng.random() < 0.85 else rng.uniform(32, 40))
    heading = rng.uniform(0, 2 * math.pi)
    du, dv = focal * math.tan(off) * math.cos(heading), focal * math.tan(off) * math.sin(heading)
    pitch, roll = rng.normal(0, 3, 2).clip(-8, 8)
    rotation = (
        axis_angle(np.array([1.0, 0, 0]), math.radians(pitch))
        @ axis_angle(np.array([0, 1.0, 0]), math.radians(roll))
        @ axis_angle(np.array([0, 0, 1.0]), rng.uniform(0, 2 * math.pi))
        @ _DOWN
    )
    ray = rotation.T @ np.array([du / focal, dv / focal, 1.0])
    depth = focal * DIE_MM / die_px
    height = DIE_MM / 2 - depth * ray[2]
    centre = np.array([0.0, 0.0, height])
    camera = Camera(
        width=size,
        height=size,
        focal=focal,
        cx=size / 2 - du,
        cy=size / 2 - dv,
        rotation=rotation,
        centre=centre,
        k1=0.0,
        k2=0.0,
    )
    target = (centre + depth * ray)[:2]
    return PatchView(camera, size, float(die_px), target)


def background(rng: np.random.Generator, view: PatchView) -> tuple[np.ndarray, str]:
    """Return a table top for the patch (float RGB) and what it is."""
    size = view.size
    if rng.random() < 0.15:  # any colour of cloth or board
        colour = rng.uniform(0.05, 0.95, 3).astype(np.float32)
        tone = 1 + 0.05 * smooth_noise(rng, size, size, size / 4)
        tone *= 1 + 0.04 * rng.standard_normal((size, size)).astype(np.float32)
        return np.clip(tone[..., None] * colour, 0, 1), "plain"
    image, info = table_texture(rng, size, size, view.px_per_mm)
    image = np.ascontiguousarray(np.rot90(image, int(rng.integers(4))))
    return image, str(info["material"])


@lru_cache(maxsize=1)
def _tiles() -> tuple[TileDef, ...]:
    """Return the basic game's chamber tiles."""
    return tuple(basic_catalog().values())


def icon_spots(tile: TileDef) -> list[tuple[float, float]]:
    """Return where a tile prints icons (entry icons, gem icon, gem sockets), in its own uv."""
    centre_v = 0.78 if tile.kind == "exit" else 0.34
    spots = [(0.5, centre_v)] if len(tile.enter) == 1 else [(0.39, centre_v), (0.61, centre_v)]
    spots = spots if tile.enter else []
    if tile.gems is not None:
        spots.append((0.84, 0.78))
    spots += list(gem_spots(tile))
    if tile.kind == "start":
        spots.append((0.5, 0.5))
    return spots


def draw_tile(
    canvas: Canvas,
    view: PatchView,
    rng: np.random.Generator,
    on_icon: bool,
    obj_id: int,
    depot: bool = False,
) -> str:
    """Draw a chamber tile (or a tile back, or the gem depot) under the patch centre; name it."""
    roll = 1.0 if depot else rng.random()
    if on_icon or roll < 0.75:
        tile = _tiles()[int(rng.integers(len(_tiles())))]
        spots = icon_spots(tile)
        if on_icon and spots:
            u, v = spots[int(rng.integers(len(spots)))]
            u, v = u + rng.normal(0, 0.01), v + rng.normal(0, 0.01)
        else:
            u, v = rng.uniform(0.05, 0.95, 2)
        texture, kind = tile_texture(tile, TILE_TEXTURE), "tile"
        side = (TILE_MM, TILE_MM)
    elif roll < 0.9:
        u, v = rng.uniform(0.05, 0.95, 2)
        texture, kind, side = tile_back_texture(TILE_TEXTURE), "tile_back", (TILE_MM, TILE_MM)
    else:
        u, v = rng.uniform(0.1, 0.9, 2)
        texture, kind, side = depot_texture(224, 128), "depot", (140.0, 80.0)
    angle = 90.0 * int(rng.integers(4)) + rng.normal(0, 4)
    uv = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float) - (u, v)
    own = np.column_stack([uv[:, 0] * side[0], -uv[:, 1] * side[1]])
    xy = rotate_xy(own, angle) + view.at_height(2.0)
    draw_flat(canvas, view.camera, np.column_stack([xy, np.full(4, 2.0)]), texture, obj_id)
    return kind


def draw_clutter(canvas: Canvas, view: PatchView, rng: np.random.Generator, obj_id: int) -> str:
    """Draw a rulebook, notepad or phone under the patch centre; name it."""
    kind = str(rng.choice(["rulebook", "notepad", "phone"]))
    size = {"rulebook": 290.0, "notepad": 150.0, "phone": 150.0}[kind]
    offset = rng.uniform(-0.35, 0.35, 2) * size
    item = Clutter(
        kind, tuple(view.target + offset), rng.uniform(0, 360), tuple(rng.random(3)), size
    )
    rgb, alpha = flat_texture(item, rng)
    quad = view.camera.project(flat_quad(item))
    layer = Layer.around(quad, limit=8192)
    layer.paste(rgb, quad, alpha)
    canvas.composite(layer, obj_id)
    return kind


def random_hand(rng: np.random.Generator, height: float) -> Hand:
    """Return a hand (not yet placed: wrist at the origin, heading east) at `height` mm."""
    skin = np.array(_SKINS[int(rng.integers(len(_SKINS)))]) * rng.uniform(0.92, 1.06, 3)
    return Hand(
        wrist=(0.0, 0.0),
        heading=0.0,
        height=height,
        pose=str(rng.choice(["flat", "cupped", "pointing"])),
        skin=tuple(float(v) for v in np.clip(skin, 0, 1)),
        sleeve=_CLOTH[int(rng.integers(len(_CLOTH)))],
        sleeve_from=float(rng.uniform(60, 260)),
        scale=float(rng.uniform(0.85, 1.12)),
        reach=400.0,
        left=bool(rng.random() < 0.5),
    )


def place_hand(hand: Hand, local: np.ndarray, at: np.ndarray, heading: float) -> Hand:
    """Return `hand` turned to `heading` and moved so that its point `local` (mm) lies at `at`."""
    mirror = -1.0 if hand.left else 1.0
    x, y = float(local[0]), float(local[1]) * mirror
    a = math.radians(heading)
    turned = np.array([x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)])
    wrist = np.asarray(at, dtype=np.float64) - turned
    return Hand(
        wrist=(float(wrist[0]), float(wrist[1])),
        heading=heading,
        height=hand.height,
        pose=hand.pose,
        skin=hand.skin,
        sleeve=hand.sleeve,
        sleeve_from=hand.sleeve_from,
        scale=hand.scale,
        reach=hand.reach,
        left=hand.left,
    )


def fingertip(hand: Hand) -> np.ndarray:
    """Return the tip of the hand's longest finger in its own frame (mm, wrist at the origin)."""
    length = {"flat": 72.0, "cupped": 34.0, "pointing": 74.0}[hand.pose]
    return np.array([76.0 + length, 9.0]) * hand.scale


def overcast(canvas: Canvas, rng: np.random.Generator) -> None:
    """Shade part or all of the patch, as an arm or a head out of view does."""
    size = canvas.size[0]
    angle = rng.uniform(0, 2 * math.pi)
    edge = rng.uniform(-0.6, 0.4) * size
    normal = np.array([math.cos(angle), math.sin(angle)])
    along = np.array([-normal[1], normal[0]]) * size * 2
    start = np.array([size / 2, size / 2]) + normal * edge
    polygon = np.array(
        [
            start - along,
            start + along,
            start + along + normal * size * 3,
            start - along + normal * size * 3,
        ]
    )
    cast_shadows(canvas, [polygon], float(rng.uniform(0.3, 0.75)), size * rng.uniform(0.05, 0.3))


def cast_shadows(
    canvas: Canvas, polygons: list[np.ndarray], strength: float, sigma: float, hull: bool = True
) -> None:
    """Darken the patch under image polygons, soft-edged by `sigma` px."""
    if not polygons:
        return
    w, h = canvas.size
    mask = np.zeros((h, w), np.uint8)
    for poly in polygons:
        pts = np.asarray(poly, dtype=np.float32).reshape(-1, 2)
        if hull:
            pts = cv2.convexHull(pts).reshape(-1, 2)
        cv2.fillPoly(mask, [(pts * 16).round().astype(np.int32)], 255, cv2.LINE_AA, 4)
    soft = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), max(0.5, sigma))
    canvas.rgb = canvas.rgb * (1 - strength * soft)[..., None]
