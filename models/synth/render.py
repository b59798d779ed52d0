"""Drawing a scene: table, flat pieces, shadows, dice and props, hands; with an instance map."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from art.tiles import depot_texture, tile_back_texture, tile_texture
from models.synth.canvas import Canvas, Layer
from models.synth.draw_clutter import FLAT_KINDS, draw_tall, flat_quad, flat_texture, tall_shadow
from models.synth.draw_dice import die_shadow, draw_die, far_to_near
from models.synth.draw_props import (
    TILE_TEXTURE,
    chamber_quad,
    draw_figure,
    draw_flat,
    draw_gem,
    draw_hand,
    figure_shadow,
    gem_shadow,
    hand_shadow,
)
from models.synth.draw_trinkets import TRINKET_KINDS, draw_trinket, trinket_shadow
from models.synth.materials import table_texture
from models.synth.scene import Die, Scene


@dataclass
class Drawn:
    """One drawn object: its id in the instance map and which scene item it is."""

    obj_id: int
    kind: str
    """"die", "chamber", "tile_back", "gem", "figure", "hand", "depot" or "clutter"."""
    index: int
    """Index into the scene's list of that kind (0 for the depot)."""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Rendered:
    """A rendered frame before photometric effects."""

    canvas: Canvas
    drawn: list[Drawn]
    table: dict[str, Any]


def _table(scene: Scene, rng: np.random.Generator) -> tuple[np.ndarray, dict[str, Any]]:
    """Draw the table top in table space and warp it into the image."""
    cam = scene.camera
    w, h = cam.width, cam.height
    to_table = np.linalg.inv(cam.homography())
    corners = np.array([[-50, -50, 1], [w + 50, -50, 1], [w + 50, h + 50, 1], [-50, h + 50, 1]])
    table = corners @ to_table.T
    table = table[:, :2] / table[:, 2:]
    (x0, y0), (x1, y1) = table.min(axis=0), table.max(axis=0)
    scale = 0.5 * cam.px_per_mm(np.array([(x0 + x1) / 2, (y0 + y1) / 2, 0.0]))
    tw, th = int((x1 - x0) * scale) + 1, int((y1 - y0) * scale) + 1
    texture, info = table_texture(rng, th, tw, scale)
    # Texture pixel (u, v) lies at table (x0 + u / scale, y1 - v / scale).
    from_texture = np.array([[1 / scale, 0, x0], [0, -1 / scale, y1], [0, 0, 1]])
    matrix = cam.homography() @ from_texture
    image = cv2.warpPerspective(
        texture, matrix, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )
    return image, info


def render_scene(scene: Scene, rng: np.random.Generator) -> Rendered:
    """Draw every object of `scene` in a physically sensible order; return the instance map."""
    s = scene.settings
    cam = scene.camera
    light = scene.light.direction()
    image, table = _table(scene, rng)
    canvas = Canvas(image)
    drawn: list[Drawn] = []

    def new(kind: str, index: int) -> int:
        drawn.append(Drawn(len(drawn) + 1, kind, index))
        return len(drawn)

    for k, item in enumerate(scene.clutter):
        if item.kind in FLAT_KINDS:
            rgb, alpha = flat_texture(item, rng)
            quad = cam.project(flat_quad(item))
            layer = Layer.around(quad, limit=8192)
            layer.paste(rgb, quad, alpha)
            canvas.composite(layer, new("clutter", k))
    if scene.depot is not None:
        d = scene.depot
        tex = depot_texture(int(d.size[0] * 1.6), int(d.size[1] * 1.6))
        draw_flat(canvas, cam, d.quad(), tex, new("depot", 0))
    for k, piece in enumerate(scene.draw_pile):
        tone = 0.8 + 0.2 * (k + 1) / len(scene.draw_pile)
        draw_flat(
            canvas, cam, piece.quad(), tile_back_texture(TILE_TEXTURE), new("tile_back", k), tone
        )
    for k, chamber in enumerate(scene.chambers):
        quad = chamber_quad(chamber, s.tile_mm)
        draw_flat(canvas, cam, quad, tile_texture(chamber.tile, TILE_TEXTURE), new("chamber", k))

    polygons = [die_shadow(cam, d, s.die_mm, light) for d in scene.dice if d.at_rest]
    polygons += [gem_shadow(cam, g, s.gem_mm, light) for g in scene.gems]
    polygons += [figure_shadow(cam, f, s.figure_mm, light) for f in scene.figures]
    standing = [c for c in scene.clutter if c.kind not in FLAT_KINDS + TRINKET_KINDS]
    polygons += [tall_shadow(cam, c, light) for c in standing]
    polygons += [trinket_shadow(cam, c, light) for c in scene.clutter if c.kind in TRINKET_KINDS]
    # A die in the air throws a fainter shadow, smeared along its path.
    swept = [
        np.vstack(
            [die_shadow(cam, d, s.die_mm, light), die_shadow(cam, _moved(d), s.die_mm, light)]
        )
        for d in scene.dice
        if not d.at_rest
    ]
    strength = float(rng.uniform(0.3, 0.6))
    sharp = float(rng.uniform(1.0, 3.0)) * cam.width / 1920
    _shadows(canvas, [(p, 1.0) for p in polygons], strength, sharp)
    _shadows(canvas, [(p, 1.0) for p in swept], strength * 0.45, sharp * 4)

    trinkets = [k for k, c in enumerate(scene.clutter) if c.kind in TRINKET_KINDS]
    for k in sorted(trinkets, key=lambda k: scene.clutter[k].kind not in ("card", "pencil")):
        draw_trinket(canvas, cam, scene.clutter[k], light, rng, new("clutter", k))
    for k, gem in enumerate(scene.gems):
        draw_gem(canvas, cam, gem, s.gem_mm, new("gem", k))
    order = far_to_near(scene.dice, cam)
    flying = [i for i in order if not scene.dice[i].at_rest]
    for i in (i for i in order if scene.dice[i].at_rest):
        obj = new("die", i)
        drawn[-1].extra = draw_die(canvas, cam, scene.dice[i], s.die_mm, light, obj)
    for k, figure in enumerate(scene.figures):
        draw_figure(canvas, cam, figure, s.figure_mm, light, new("figure", k))
    for k, item in enumerate(scene.clutter):
        if item.kind not in FLAT_KINDS + TRINKET_KINDS:
            draw_tall(canvas, cam, item, rng, new("clutter", k))
    for i in flying:
        obj = new("die", i)
        drawn[-1].extra = draw_die(canvas, cam, scene.dice[i], s.die_mm, light, obj)

    if scene.hands:
        hand_polys = [(p, 1.0) for hand in scene.hands for p in hand_shadow(cam, hand, light)]
        soft = float(rng.uniform(10, 25)) * cam.width / 1920
        _shadows(canvas, hand_polys, strength * 0.8, soft, hull=False)
    for k, hand in enumerate(scene.hands):
        draw_hand(canvas, cam, hand, rng, new("hand", k))
    return Rendered(canvas, drawn, table)


def _moved(die: Die) -> Die:
    """Return the die where it is at the end of the exposure."""
    centre = die.centre + np.array([*die.motion, 0.0])
    return Die(
        die.zone, die.state, centre, die.rotation, die.wood, die.grain, die.motion
    )  # shadow only


def _shadows(
    canvas: Canvas,
    polygons: list[tuple[np.ndarray, float]],
    strength: float,
    sigma: float,
    hull: bool = True,
) -> None:
    """Darken the image under (polygon, darkness) pairs, soft-edged by `sigma` pixels."""
    if not polygons:
        return
    w, h = canvas.size
    factor = 4 if sigma > 6 else 1
    mask = np.zeros((h // factor + 1, w // factor + 1), np.uint8)
    for poly, darkness in polygons:
        pts = np.asarray(poly, dtype=np.float32) / factor
        if hull:
            pts = cv2.convexHull(pts).reshape(-1, 2)
        cv2.fillPoly(
            mask, [(pts * 16).round().astype(np.int32)], int(255 * darkness), cv2.LINE_AA, 4
        )
    soft = cv2.GaussianBlur(mask, (0, 0), max(0.5, sigma / factor))
    if factor > 1:
        soft = cv2.resize(soft, (w, h), interpolation=cv2.INTER_LINEAR)
    light = cv2.convertScaleAbs(soft[:h, :w], alpha=-strength, beta=255)  # 255 - strength * soft
    canvas.rgb = cv2.multiply(
        canvas.rgb, cv2.merge([light, light, light]), scale=1 / 255, dtype=cv2.CV_32F
    )
