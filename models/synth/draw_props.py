"""Drawing everything but dice: tiles, the depot, gems, figures, hands and table clutter."""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from models.synth.camera import Camera
from models.synth.canvas import Canvas, Layer
from models.synth.scene import (
    PLAYER_COLOURS,
    Chamber,
    Figure,
    Gem,
    Hand,
    rotate_xy,
)

TILE_TEXTURE = 224
_HAND_RISE = math.tan(math.radians(18))  # the forearm climbs toward the player's shoulder


def draw_flat(
    canvas: Canvas,
    camera: Camera,
    quad_mm: np.ndarray,
    texture: np.ndarray,
    obj_id: int,
    shade: float = 1.0,
) -> None:
    """Draw a flat textured piece (a tile, a tile back, the depot board) from its corners."""
    quad = camera.project(quad_mm)
    layer = Layer.around(quad, limit=8192)
    layer.paste(texture * shade, quad)
    # A dark rim where the cardboard's edge shows.
    layer.shade(1.0)
    canvas.composite(layer, obj_id)


def chamber_quad(chamber: Chamber, tile_mm: float, z: float = 2.0) -> np.ndarray:
    """Return a chamber's corners NW, NE, SE, SW of its own frame, in table mm (4, 3)."""
    uv = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)
    return np.column_stack([chamber.to_table(uv, tile_mm), np.full(4, z)])


@lru_cache(maxsize=8)
def gem_sprite(variant: int, size: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """Return (rgb, alpha) of a translucent green crystal seen from above (long axis along x)."""
    rng = np.random.default_rng([104729, variant])
    w, h = size, int(size * 0.7)
    cx, cy = w / 2, h / 2
    n = 8 if variant % 2 == 0 else 6
    outer = [
        (
            cx + 0.48 * w * math.cos(2 * math.pi * k / n),
            cy + 0.48 * h * math.sin(2 * math.pi * k / n),
        )
        for k in range(n)
    ]
    inner = [
        (
            cx + 0.22 * w * math.cos(2 * math.pi * k / n),
            cy + 0.22 * h * math.sin(2 * math.pi * k / n),
        )
        for k in range(n)
    ]
    rgb = np.zeros((h, w, 3), np.float32)
    alpha = np.zeros((h, w), np.float32)
    base = np.array([0.18, 0.72, 0.32]) * rng.uniform(0.85, 1.1)
    fix = 16.0
    for k in range(n):
        facet = np.array([outer[k], outer[(k + 1) % n], inner[(k + 1) % n], inner[k]]) * fix
        tone = base * (0.55 + 0.55 * (0.5 + 0.5 * math.cos(2 * math.pi * k / n + variant)))
        cv2.fillPoly(
            rgb, [facet.round().astype(np.int32)], np.clip(tone, 0, 1).tolist(), cv2.LINE_AA, 4
        )
    cv2.fillPoly(
        rgb,
        [(np.array(inner) * fix).round().astype(np.int32)],
        np.clip(base * 1.25, 0, 1).tolist(),
        cv2.LINE_AA,
        4,
    )
    cv2.fillPoly(alpha, [(np.array(outer) * fix).round().astype(np.int32)], 1.0, cv2.LINE_AA, 4)
    glint = (int(cx - 0.12 * w) * 16, int(cy - 0.12 * h) * 16)
    cv2.ellipse(
        rgb,
        glint,
        (int(0.08 * w * 16), int(0.04 * h * 16)),
        -20,
        0,
        360,
        (0.9, 1.0, 0.9),
        -1,
        cv2.LINE_AA,
        4,
    )
    alpha *= 0.86  # translucent: the tile shows through a little
    return rgb, alpha


def draw_gem(canvas: Canvas, camera: Camera, gem: Gem, length: float, obj_id: int) -> None:
    """Draw a gem crystal lying on the table, a tile or the depot."""
    rgb, alpha = gem_sprite(gem.variant)
    w, h = length, length * 0.7
    own = np.array([[-w / 2, h / 2], [w / 2, h / 2], [w / 2, -h / 2], [-w / 2, -h / 2]])
    xy = rotate_xy(own, gem.angle) + gem.position[:2]
    quad = camera.project(np.column_stack([xy, np.full(4, gem.position[2] + 0.45 * h)]))
    layer = Layer.around(quad)
    layer.paste(rgb, quad, alpha)
    canvas.composite(layer, obj_id)


def gem_shadow(camera: Camera, gem: Gem, length: float, light: np.ndarray) -> np.ndarray:
    """Return the image polygon of a gem's shadow."""
    x, y, z = gem.position
    top = np.array([x, y]) - (z + 0.5 * length) * light[:2] / light[2]
    pts = [
        np.array([x, y]) + length * 0.4 * np.array([math.cos(a), math.sin(a)])
        for a in np.linspace(0, 2 * math.pi, 8, endpoint=False)
    ]
    pts += [
        top + length * 0.3 * np.array([math.cos(a), math.sin(a)])
        for a in np.linspace(0, 2 * math.pi, 8, endpoint=False)
    ]
    return camera.project_flat(np.array(pts), z=0.0)


def _profile(height: float) -> list[tuple[float, float]]:
    """Return (z, radius) slices of an adventurer figure: base, body, head and explorer hat."""
    k = height / 38.0
    slices = [(z, 10.0) for z in np.arange(0, 3, 1.0)]
    slices += [(z, 8.5 - 2.5 * (z - 3) / 21) for z in np.arange(3, 24, 1.5)]
    slices += [(24.0, 7.0), (26.0, 7.0), (27.5, 4.5)]
    slices += [(z, math.sqrt(max(0.0, 30.25 - (z - 32) ** 2))) for z in np.arange(27.5, 35, 1.0)]
    slices += [(35.0, 8.8), (35.6, 8.8)] + [(z, 5.2) for z in np.arange(36, 39.5, 0.8)]
    return [(z * k, r * k) for z, r in slices]


def draw_figure(
    canvas: Canvas, camera: Camera, figure: Figure, height: float, light: np.ndarray, obj_id: int
) -> None:
    """Draw an adventurer figure as stacked lit slices, lowest first."""
    colour = np.array(PLAYER_COLOURS[figure.colour])
    x, y, z0 = figure.position
    slices = _profile(height)
    centres = camera.project(np.array([[x, y, z0 + z] for z, _ in slices]))
    scale = np.array([camera.px_per_mm(np.array([x, y, z0 + z])) for z, _ in slices])
    radii = np.array([r for _, r in slices]) * scale
    layer = Layer.around(np.vstack([centres - radii[:, None], centres + radii[:, None]]))
    glint = light[:2] * np.array([1, -1])  # table north is image up
    for (z, _), c, r in zip(slices, centres, radii, strict=True):
        tone = colour * (0.45 + 0.5 * z / height)
        # A darker rim on each slice keeps the hat, head and shoulders apart, as edges do.
        layer.circle(c, r, tuple(np.clip(tone * 0.6, 0, 1)))
        layer.circle(c, max(0.5, r - 0.8), tuple(np.clip(tone, 0, 1)))
    head = centres[-1]
    layer.circle(
        head + glint * radii[-1] * 0.35,
        radii[-1] * 0.45,
        tuple(np.clip(colour * 1.3 + 0.15, 0, 1)),
        0.6,
    )
    canvas.composite(layer, obj_id)


def figure_shadow(camera: Camera, figure: Figure, height: float, light: np.ndarray) -> np.ndarray:
    """Return the image polygon of a figure's shadow."""
    x, y, _ = figure.position
    pts = []
    for z, r in ((0.0, 10.0), (height * 0.6, 7.0), (height, 7.0)):
        c = np.array([x, y]) - z * light[:2] / light[2]
        pts += [
            c + r * np.array([math.cos(a), math.sin(a)])
            for a in np.linspace(0, 2 * math.pi, 10, endpoint=False)
        ]
    return camera.project_flat(np.array(pts))


def _capsule(a: np.ndarray, b: np.ndarray, width: float, steps: int = 6) -> np.ndarray:
    """Return a stadium polygon around segment a-b (2D points)."""
    d = b - a
    angle = math.atan2(d[1], d[0])
    r = width / 2
    arc1 = [
        b + r * np.array([math.cos(t), math.sin(t)])
        for t in np.linspace(angle - math.pi / 2, angle + math.pi / 2, steps)
    ]
    arc2 = [
        a + r * np.array([math.cos(t), math.sin(t)])
        for t in np.linspace(angle + math.pi / 2, angle + 3 * math.pi / 2, steps)
    ]
    return np.array(arc1 + arc2)


def _finger(a: np.ndarray, b: np.ndarray, base: float, tip: float, steps: int = 7) -> np.ndarray:
    """Return a tapered finger polygon from knuckle `a` to a rounded tip at `b` (2D points)."""
    d = (b - a) / np.linalg.norm(b - a)
    n = np.array([-d[1], d[0]])
    angle = math.atan2(d[1], d[0])
    arc = [
        b + tip / 2 * np.array([math.cos(t), math.sin(t)])
        for t in np.linspace(angle - math.pi / 2, angle + math.pi / 2, steps)
    ]
    return np.array([a - n * base / 2, *arc, a + n * base / 2])


def hand_parts(hand: Hand) -> list[tuple[str, np.ndarray]]:
    """Return the hand's polygons in table mm with heights (N, 3), drawn in this order."""
    s = hand.scale
    parts: list[tuple[str, np.ndarray]] = []
    end = -hand.reach
    arm = np.array([[-10 * s, -30 * s], [-10 * s, 30 * s], [end, 48 * s], [end, -48 * s]])
    start = -min(hand.sleeve_from, hand.reach)
    sleeve = np.array([[start, -36 * s], [start, 36 * s], [end, 54 * s], [end, -54 * s]])
    palm = _capsule(np.array([0.0, 0.0]), np.array([55.0, 0.0]), 82) * s
    parts += [("skin", arm), ("sleeve", sleeve), ("skin", palm)]
    lengths = {"flat": (62, 72, 68, 52), "cupped": (30, 34, 32, 26), "pointing": (74, 30, 28, 24)}
    spread = 0.12 if hand.pose == "flat" else 0.04
    thumb = _finger(np.array([25.0, 30.0]), np.array([62.0, 62.0]), 26, 19) * s
    parts.append(("finger", thumb))
    for k, (offset, length) in enumerate(zip((27, 9, -9, -27), lengths[hand.pose], strict=True)):
        angle = (k - 1.5) * -spread
        a = np.array([76.0, offset])
        d = np.array([math.cos(angle), math.sin(angle)])
        b = a + length * d
        parts.append(("finger", _finger(a * s, b * s, 19 * s, 15 * s)))
        if length > 45:  # an outstretched finger shows its nail
            nail = _capsule(b - d * 9, b - d * 4, 10) * s
            parts.append(("nail", nail))
        crease = _capsule(a + d * 14 - [0, 5], a + d * 14 + [0, 5], 1.6) * s
        parts.append(("crease", crease))
    heading = math.radians(hand.heading)
    c, si = math.cos(heading), math.sin(heading)
    mirror = -1.0 if hand.left else 1.0
    out = []
    for kind, poly in parts:
        x, y = poly[:, 0], poly[:, 1] * mirror
        xy = np.column_stack([x * c - y * si, x * si + y * c]) + hand.wrist
        z = hand.height + np.clip(-poly[:, 0], 0, None) * _HAND_RISE
        out.append((kind, np.column_stack([xy, z])))
    return out


def draw_hand(
    canvas: Canvas, camera: Camera, hand: Hand, rng: np.random.Generator, obj_id: int
) -> None:
    """Draw an arm and hand close to the camera: big, soft and slightly blurred."""
    parts = hand_parts(hand)
    projected = [(kind, camera.project(pts)) for kind, pts in parts]
    w, h = canvas.size
    margin = 40
    every = np.vstack([p for _, p in projected])
    x0, y0 = np.floor(every.min(axis=0)).astype(int) - 4
    x1, y1 = np.ceil(every.max(axis=0)).astype(int) + 4
    x0, y0 = max(x0, -margin), max(y0, -margin)
    x1, y1 = min(x1, w + margin), min(y1, h + margin)
    if x0 >= x1 or y0 >= y1:
        return
    layer = Layer(
        int(x0),
        int(y0),
        np.zeros((y1 - y0, x1 - x0, 3), np.float32),
        np.zeros((y1 - y0, x1 - x0), np.float32),
    )
    skin = np.array(hand.skin)
    for kind, pts in projected:
        if kind == "sleeve":
            layer.fill(pts, tuple(hand.sleeve))
        elif kind == "finger":
            grown = pts + (pts - pts.mean(axis=0)) * 0.06
            layer.fill(grown, tuple(skin * 0.62))
            layer.fill(pts, tuple(skin * 0.97))
        elif kind == "nail":
            layer.fill(pts, tuple(np.clip(skin * 1.1 + [0.08, 0.02, 0.04], 0, 1)), 0.8)
        elif kind == "crease":
            layer.fill(pts, tuple(skin * 0.7), 0.6)
        else:
            layer.fill(pts, tuple(skin))
    # Arms and fingers are round: darker toward their outlines.
    inside = (layer.alpha > 0.5).astype(np.uint8)
    depth = cv2.distanceTransform(inside, cv2.DIST_L2, 3)
    reach = 22 * camera.px_per_mm(np.array([*hand.wrist, hand.height]))
    layer.shade(0.68 + 0.32 * np.sqrt(np.clip(depth / reach, 0, 1)))
    lh, lw = layer.shape
    tone = 1 + 0.08 * cv2.resize(
        rng.standard_normal((4, 4)).astype(np.float32), (lw, lh), interpolation=cv2.INTER_CUBIC
    )
    layer.shade(tone)
    layer.blur(float(rng.uniform(0.6, 2.0)))
    canvas.composite(layer, obj_id)


def hand_shadow(camera: Camera, hand: Hand, light: np.ndarray) -> list[np.ndarray]:
    """Return the image polygons of a hand's shadow on the table."""
    out = []
    for _, pts in hand_parts(hand):
        flat = pts[:, :2] - pts[:, 2:3] * light[:2] / light[2]
        out.append(camera.project_flat(flat))
    return out
