"""Everyday things on a game table: the rulebook, a notepad, a phone, a cup, a bowl of snacks."""

from __future__ import annotations

import math

import cv2
import numpy as np

from models.synth.camera import Camera
from models.synth.canvas import Canvas, Layer
from models.synth.scene import Clutter, rotate_xy

FLAT_KINDS = ("rulebook", "notepad", "phone")
"""Clutter lying flat (drawn with the tiles); the rest stands up (drawn with the dice)."""

_SHAPES = {"rulebook": (1.0, 1.0), "notepad": (0.72, 1.0), "phone": (0.5, 1.0)}
_TALL = {"cup": (0.5, 95.0), "bowl": (0.5, 55.0)}


def flat_quad(item: Clutter) -> np.ndarray:
    """Return a flat item's corners NW, NE, SE, SW in table mm (4, 3)."""
    sx, sy = _SHAPES[item.kind]
    w, h = item.size * sx, item.size * sy
    own = np.array([[-w / 2, h / 2], [w / 2, h / 2], [w / 2, -h / 2], [-w / 2, -h / 2]])
    z = {"rulebook": 4.0, "notepad": 2.0, "phone": 8.0}[item.kind]
    return np.column_stack([rotate_xy(own, item.angle) + item.centre, np.full(4, z)])


def flat_texture(item: Clutter, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Return (rgb, alpha) of a flat item's top."""
    sx, sy = _SHAPES[item.kind]
    h = 256
    w = int(h * sx / sy)
    colour = np.array(item.colour, np.float32)
    alpha = np.ones((h, w), np.float32)
    if item.kind == "rulebook" and rng.random() < 0.5:
        rgb = np.full((h, w, 3), 0.93, np.float32)
        for y in range(30, h - 20, 9):
            for x0, x1 in ((16, w // 2 - 12), (w // 2 + 12, w - 16)):
                end = x1 - int(rng.integers(0, 40)) if rng.random() < 0.2 else x1
                cv2.line(rgb, (x0, y), (end, y), (0.45, 0.45, 0.45), 2)
        cv2.line(rgb, (w // 2, 0), (w // 2, h), (0.6, 0.6, 0.58), 3)
        cv2.rectangle(rgb, (20, 40), (w // 2 - 20, 110), (0.55, 0.4, 0.25), -1)
    elif item.kind == "rulebook":
        rgb = np.empty((h, w, 3), np.float32)
        rgb[:] = np.array([0.55, 0.3, 0.1]) * (0.7 + 0.6 * colour)
        cv2.rectangle(rgb, (10, 10), (w - 10, h - 10), (0.85, 0.65, 0.25), 4)
        title = np.zeros((h, w), np.uint8)  # putText draws on 8-bit images only
        cv2.putText(title, "ESCAPE", (28, 70), cv2.FONT_HERSHEY_TRIPLEX, 1.6, 255, 3, cv2.LINE_AA)
        t = title.astype(np.float32)[..., None] / 255
        rgb = rgb * (1 - t) + np.array([0.95, 0.85, 0.4], np.float32) * t
        steps = [(60 + 18 * k, 200 - 26 * k, w - 60 - 18 * k, 226 - 26 * k) for k in range(4)]
        for x0, y0, x1, y1 in steps:
            cv2.rectangle(rgb, (x0, y0), (x1, y1), (0.3, 0.2, 0.12), -1)
    elif item.kind == "notepad":
        rgb = np.full((h, w, 3), 0.95, np.float32) * (0.9 + 0.1 * colour)
        for y in range(24, h, 14):
            cv2.line(rgb, (0, y), (w, y), (0.6, 0.7, 0.9), 1)
        for _ in range(int(rng.integers(2, 8))):
            pts = np.cumsum(rng.normal(0, 6, (12, 2)), axis=0) + rng.uniform(30, w - 30, 2)
            cv2.polylines(rgb, [pts.astype(np.int32)], False, (0.25, 0.25, 0.3), 2, cv2.LINE_AA)
    else:
        rgb = np.zeros((h, w, 3), np.float32) + 0.05
        if rng.random() < 0.4:
            rgb[18:-18, 8:-8] = np.array([0.45, 0.6, 0.85]) * (0.7 + 0.3 * colour)
        ys = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
        rgb += 0.15 * np.clip(1 - np.abs(ys - rng.uniform(0.2, 0.8)) * 6, 0, 1)
        alpha = _rounded(h, w, 0.12 * w)
    return np.clip(rgb, 0, 1), alpha


def _rounded(h: int, w: int, radius: float) -> np.ndarray:
    """Return the alpha of a rounded rectangle."""
    mask = np.zeros((h * 4, w * 4), np.uint8)
    r = int(radius * 4)
    cv2.rectangle(mask, (r, 0), (w * 4 - r, h * 4), 255, -1)
    cv2.rectangle(mask, (0, r), (w * 4, h * 4 - r), 255, -1)
    for cx, cy in ((r, r), (w * 4 - r, r), (r, h * 4 - r), (w * 4 - r, h * 4 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1)
    return cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255


def _slices(item: Clutter) -> list[tuple[float, float]]:
    """Return (z, radius) slices of a standing item."""
    r, height = _TALL[item.kind][0] * item.size, _TALL[item.kind][1]
    if item.kind == "cup":
        return [(z, r) for z in np.linspace(0, height, 12)]
    return [(z, r * (0.55 + 0.45 * (z / height) ** 0.6)) for z in np.linspace(0, height, 12)]


def draw_tall(
    canvas: Canvas, camera: Camera, item: Clutter, rng: np.random.Generator, obj_id: int
) -> None:
    """Draw a cup or a bowl: a lit body, its rim and what is inside."""
    x, y = item.centre
    slices = _slices(item)
    centres = camera.project(np.array([[x, y, z] for z, _ in slices]))
    radii = np.array([r * camera.px_per_mm(np.array([x, y, z])) for z, r in slices])
    layer = Layer.around(
        np.vstack([centres - radii[:, None] * 1.5, centres + radii[:, None] * 1.5])
    )
    colour = np.array(item.colour)
    if item.kind == "cup":
        a = math.radians(item.angle)
        z_handle = 0.6 * slices[-1][0]
        ring = [
            np.array([x, y]) + (slices[0][1] + d) * np.array([math.cos(a), math.sin(a)])
            for d in (0.0, 22.0)
        ]
        ends = camera.project(np.array([[*ring[0], z_handle], [*ring[1], z_handle]]))
        width = 9 * camera.px_per_mm(np.array([x, y, z_handle]))
        mask = np.zeros(layer.shape, np.uint8)
        p0, p1 = ((ends - (layer.x0, layer.y0)) * 16).round().astype(int)
        cv2.line(mask, tuple(p0), tuple(p1), 255, max(1, int(width)), cv2.LINE_AA, 4)
        layer.over(colour * 0.8, mask.astype(np.float32) / 255)
    for (z, _), c, r in zip(slices, centres, radii, strict=True):
        layer.circle(c, r, tuple(colour * (0.5 + 0.4 * z / slices[-1][0])))
    top_c, top_r = centres[-1], radii[-1]
    layer.circle(top_c, top_r, tuple(np.clip(colour * 1.1 + 0.05, 0, 1)))
    inside = (
        (0.25, 0.14, 0.07) if item.kind == "cup" and rng.random() < 0.6 else tuple(colour * 0.7)
    )
    layer.circle(top_c, top_r * 0.86, inside)
    if item.kind == "bowl":
        for _ in range(40):
            off = rng.normal(0, 0.35, 2) * top_r
            if np.hypot(*off) < top_r * 0.75:
                tone = np.array([0.85, 0.62, 0.25]) * rng.uniform(0.7, 1.1)
                layer.circle(
                    top_c + off, top_r * rng.uniform(0.08, 0.14), tuple(np.clip(tone, 0, 1))
                )
    canvas.composite(layer, obj_id)


def tall_shadow(camera: Camera, item: Clutter, light: np.ndarray) -> np.ndarray:
    """Return the image polygon of a cup's or bowl's shadow."""
    pts = []
    for z, r in (_slices(item)[0], _slices(item)[-1]):
        c = np.array(item.centre) - z * light[:2] / light[2]
        pts += [
            c + r * np.array([math.cos(t), math.sin(t)])
            for t in np.linspace(0, 2 * math.pi, 16, endpoint=False)
        ]
    return camera.project_flat(np.array(pts))
