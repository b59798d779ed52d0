"""Small things on a game table that are no dice: beads, coins, tokens, crystals, cards, pencils.

They are the look-alikes that made false dice (round beads and tokens read as golden masks,
small crystals of other games read as adventurers): round, coloured, shiny or printed, about a
die's size. Both renderers draw them (the frame renderer anywhere on the table and next to
dice, the crop renderer under a not_die box and beside a die); they get no label, so the
localiser learns them as background and the face reader as `not_die`.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from models.synth.camera import Camera
from models.synth.canvas import Canvas, Layer
from models.synth.draw_props import gem_sprite
from models.synth.scene import Clutter, rotate_xy

TRINKET_SIZES: dict[str, tuple[float, float]] = {
    "bead": (6.0, 13.0),
    "coin": (15.0, 28.0),
    "token": (13.0, 30.0),
    "crystal": (10.0, 18.0),
    "card": (80.0, 92.0),
    "pencil": (110.0, 180.0),
}
"""Each kind's size range in mm (diameter, edge or length)."""
TRINKET_KINDS: tuple[str, ...] = tuple(TRINKET_SIZES)
SMALL_KINDS = ("bead", "coin", "token", "crystal")
"""Trinkets about a die's size (they lie beside dice)."""
_WEIGHTS = {"bead": 0.24, "coin": 0.2, "token": 0.2, "crystal": 0.14, "card": 0.1, "pencil": 0.12}
_METALS = [(0.86, 0.68, 0.26), (0.78, 0.78, 0.80), (0.72, 0.42, 0.24), (0.62, 0.55, 0.35)]
_BRIGHT = [
    (0.95, 0.80, 0.10),
    (0.10, 0.60, 0.20),
    (0.80, 0.10, 0.10),
    (0.10, 0.25, 0.80),
    (0.08, 0.08, 0.08),
    (0.95, 0.95, 0.92),
    (0.95, 0.45, 0.05),
    (0.55, 0.15, 0.65),
    (0.20, 0.70, 0.80),
]
_CRYSTAL_TINTS = ((1, 0, 2), (0, 2, 1), (1, 1, 0), (2, 0, 1), (1, 1, 1))
"""Channel orders that turn a green gem sprite red, blue, yellow, purple or clear."""


def random_trinket(
    rng: np.random.Generator, centre: tuple[float, float], kind: str | None = None
) -> Clutter:
    """Return a trinket of `kind` (or a random one) lying at table `centre`."""
    if kind is None:
        names = list(_WEIGHTS)
        p = np.array([_WEIGHTS[n] for n in names])
        kind = names[int(rng.choice(len(names), p=p / p.sum()))]
    low, high = TRINKET_SIZES[kind]
    if kind == "coin":
        colour = _METALS[int(rng.integers(len(_METALS)))]
    elif rng.random() < 0.7:
        colour = _BRIGHT[int(rng.integers(len(_BRIGHT)))]
    else:
        colour = tuple(float(v) for v in rng.uniform(0.05, 0.95, 3))
    jitter = np.clip(np.array(colour) * rng.uniform(0.85, 1.12, 3), 0, 1)
    return Clutter(
        kind,
        (float(centre[0]), float(centre[1])),
        float(rng.uniform(0, 360)),
        tuple(float(v) for v in jitter),
        float(rng.uniform(low, high)),
    )


def trinket_radius(item: Clutter) -> float:
    """Return the radius (mm) of a circle around the trinket's footprint."""
    if item.kind == "card":
        return math.hypot(item.size * 0.36, item.size * 0.5)
    if item.kind == "pencil":
        return item.size / 2
    return item.size / 2


def trinket_outline(item: Clutter) -> np.ndarray:
    """Return the trinket's footprint polygon on the table (N, 2) in mm."""
    if item.kind == "card":
        w, h = item.size * 0.72, item.size
    elif item.kind == "pencil":
        w, h = item.size, 7.5
    else:
        r = item.size / 2
        t = np.linspace(0, 2 * math.pi, 16, endpoint=False)
        return np.column_stack([np.cos(t), np.sin(t)]) * r + item.centre
    own = np.array([[-w / 2, h / 2], [w / 2, h / 2], [w / 2, -h / 2], [-w / 2, -h / 2]])
    return rotate_xy(own, item.angle) + item.centre


def trinket_height(item: Clutter) -> float:
    """Return the height (mm) of the trinket's top above the table."""
    return {"bead": item.size, "coin": 1.8, "token": 2.0, "crystal": item.size * 0.5}.get(
        item.kind, 1.0 if item.kind == "card" else 7.0
    )


def trinket_shadow(camera: Camera, item: Clutter, light: np.ndarray) -> np.ndarray:
    """Return the image polygon of a trinket's shadow on the table."""
    outline = trinket_outline(item)
    z = trinket_height(item)
    lifted = outline - z * light[:2] / max(light[2], 0.2)
    return camera.project_flat(np.vstack([outline, lifted]))


def _card_texture(item: Clutter, rng: np.random.Generator) -> np.ndarray:
    """Return a playing or game card's face (or back): a border, coloured art, symbols."""
    h, w = 176, 127
    colour = np.array(item.colour, np.float32)
    if rng.random() < 0.4:  # a back: a pattern in one colour
        rgb = np.empty((h, w, 3), np.float32)
        rgb[:] = colour * 0.8
        for k in range(-h, w + h, 12):
            cv2.line(rgb, (k, 0), (k + h, h), tuple(float(v) for v in colour * 0.5), 3)
        cv2.rectangle(rgb, (6, 6), (w - 7, h - 7), (0.95, 0.95, 0.92), 5)
        return rgb
    rgb = np.full((h, w, 3), 0.94, np.float32)
    cv2.rectangle(rgb, (12, 24), (w - 13, h - 60), tuple(float(v) for v in colour), -1)
    for _ in range(int(rng.integers(2, 6))):
        c = (int(rng.integers(20, w - 20)), int(rng.integers(30, h - 70)))
        tone = tuple(float(v) for v in rng.uniform(0.05, 0.95, 3))
        cv2.circle(rgb, c, int(rng.integers(6, 22)), tone, -1, cv2.LINE_AA)
    for y in range(h - 50, h - 12, 9):
        cv2.line(rgb, (14, y), (w - 14 - int(rng.integers(0, 40)), y), (0.3, 0.3, 0.3), 2)
    return rgb


def _disc_layer(centre: np.ndarray, radius: float) -> Layer:
    """Return an empty layer around a disc in image px."""
    return Layer.around(np.vstack([centre - radius - 2, centre + radius + 2]))


def draw_trinket(
    canvas: Canvas,
    camera: Camera,
    item: Clutter,
    light: np.ndarray,
    rng: np.random.Generator,
    obj_id: int,
) -> None:
    """Draw one trinket lying on the table (or on whatever lies under it)."""
    x, y = item.centre
    colour = np.array(item.colour, np.float32)
    glint = light[:2] * np.array([1.0, -1.0])  # table north is image up
    if item.kind in ("bead", "coin", "token"):
        z = trinket_height(item) if item.kind != "bead" else item.size / 2
        centre = camera.project(np.array([[x, y, z]]))[0]
        radius = item.size / 2 * camera.px_per_mm(np.array([x, y, z]))
        layer = _disc_layer(centre, radius)
        if item.kind == "bead":
            layer.circle(centre, radius, tuple(colour * 0.45))
            layer.circle(centre - glint * radius * 0.1, radius * 0.82, tuple(colour * 0.85))
            if rng.random() < 0.3:  # a hole through it
                layer.circle(centre, radius * 0.22, tuple(colour * 0.25))
            shine = np.clip(colour * 0.4 + 0.65, 0, 1)
            layer.circle(centre + glint * radius * 0.4, radius * 0.28, tuple(shine), 0.85)
        elif item.kind == "coin":
            layer.circle(centre, radius, tuple(colour * 0.6))
            layer.circle(centre, radius * 0.9, tuple(colour))
            layer.circle(centre, radius * 0.72, tuple(colour * 0.8))
            layer.circle(centre, radius * 0.66, tuple(np.clip(colour * 1.05, 0, 1)))
            if rng.random() < 0.6:  # an embossed head or number
                layer.circle(
                    centre + np.array([radius * 0.08, 0.0]), radius * 0.3, tuple(colour * 0.75)
                )
            shine = np.clip(colour * 0.5 + 0.55, 0, 1)
            layer.circle(centre + glint * radius * 0.35, radius * 0.35, tuple(shine), 0.55)
        else:
            square = rng.random() < 0.5  # a square token of a die's size looks like a die top
            if square:
                quad = trinket_outline(item)[::4]  # four points of the circle: a turned square
                pts = camera.project(np.column_stack([quad, np.full(len(quad), z)]))
                layer.fill(pts, tuple(colour * 0.6))
                layer.fill(centre + (pts - centre) * 0.88, tuple(colour))
            else:
                layer.circle(centre, radius, tuple(colour * 0.6))
                layer.circle(centre, radius * 0.9, tuple(colour))
            mark = tuple(float(v) for v in rng.uniform(0.0, 1.0, 3))
            n = int(rng.integers(3, 7))
            a0 = rng.uniform(0, 2 * math.pi)
            star = [
                centre
                + radius
                * (0.55 if k % 2 == 0 else 0.25)
                * np.array([math.cos(a0 + k * math.pi / n), math.sin(a0 + k * math.pi / n)])
                for k in range(2 * n)
            ]
            layer.fill(np.array(star), mark)
        canvas.composite(layer, obj_id)
        return
    if item.kind == "crystal":
        rgb, alpha = gem_sprite(int(rng.integers(8)))
        order = _CRYSTAL_TINTS[int(rng.integers(len(_CRYSTAL_TINTS)))]
        rgb = np.ascontiguousarray(rgb[..., list(order)])
        if order == (1, 1, 1):
            rgb = np.clip(rgb * 0.6 + 0.35, 0, 1)
        w, h = item.size, item.size * 0.7
        own = np.array([[-w / 2, h / 2], [w / 2, h / 2], [w / 2, -h / 2], [-w / 2, -h / 2]])
        xy = rotate_xy(own, item.angle) + item.centre
        quad = camera.project(np.column_stack([xy, np.full(4, 0.45 * h)]))
        layer = Layer.around(quad)
        layer.paste(rgb, quad, alpha)
        canvas.composite(layer, obj_id)
        return
    outline = trinket_outline(item)
    z = trinket_height(item)
    quad = camera.project(np.column_stack([outline, np.full(len(outline), z)]))
    layer = Layer.around(quad)
    if item.kind == "card":
        layer.paste(_card_texture(item, rng), quad)
        canvas.composite(layer, obj_id)
        return
    # A pencil: a painted hexagonal body, a sharpened wooden tip, a ferrule and an eraser.
    (a, b, c, d) = quad  # NW, NE, SE, SW of a long thin box (its length along own x)

    def along(t: float) -> tuple[np.ndarray, np.ndarray]:
        return a + (b - a) * t, d + (c - d) * t

    body0, body1 = 0.08, 0.84
    top0, bot0 = along(body0)
    top1, bot1 = along(body1)
    layer.fill(np.array([top0, top1, bot1, bot0]), tuple(colour))
    mid0, mid1 = (top0 + bot0) / 2, (top1 + bot1) / 2
    stripe = np.array([top0 * 0.7 + mid0 * 0.3, top1 * 0.7 + mid1 * 0.3, mid1, mid0])
    layer.fill(stripe, tuple(np.clip(colour * 1.2 + 0.08, 0, 1)))
    tip = (b + c) / 2
    layer.fill(np.array([top1, tip, bot1]), (0.85, 0.7, 0.5))
    layer.fill(np.array([top1 * 0.25 + tip * 0.75, tip, bot1 * 0.25 + tip * 0.75]), (0.2,) * 3)
    ferrule0, ferrule1 = along(0.03)
    layer.fill(np.array([ferrule0, top0, bot0, ferrule1]), (0.75, 0.75, 0.72))
    layer.fill(np.array([a, ferrule0, ferrule1, d]), (0.9, 0.55, 0.6))
    canvas.composite(layer, obj_id)
