"""Drawing dice: wooden cubes with rounded edges and an embossed icon on every face, lit."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from art.icons import face_icon
from models.synth.camera import Camera
from models.synth.canvas import Canvas, Layer
from models.synth.crop_look import PRINTS
from models.synth.materials import die_grain, face_bevel
from models.synth.scene import DIE_FACES, DIE_NORMALS, Die

_TEXTURE = 48
# In-plane axes of each face: texture x runs along u, texture y along -v.
_U = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], dtype=float)
_V = np.cross(DIE_NORMALS, _U)
_QUAD = np.array([[-1, 1], [1, 1], [1, -1], [-1, -1]], dtype=float)  # NW, NE, SE, SW in (u, v)


def face_quads(die: Die, size: float) -> np.ndarray:
    """Return each face's corners (6, 4, 3) in table mm, in texture order NW, NE, SE, SW."""
    half = size / 2
    local = (
        DIE_NORMALS[:, None, :] * half
        + _QUAD[None, :, 0:1] * _U[:, None, :] * half
        + _QUAD[None, :, 1:2] * _V[:, None, :] * half
    )
    return die.centre + local @ die.rotation.T


_SWAPPED = {"key": "torch", "torch": "key"}


def _face_texture(
    face: str, wood: tuple[float, float, float], grain: int, swapped: bool, paint: str
) -> tuple[np.ndarray, np.ndarray]:
    """Return (rgb, alpha) of one die face: grained wood, the icon, darker rounded edges."""
    shade, alpha = face_bevel(_TEXTURE)
    base = die_grain(grain, _TEXTURE)[..., None] * np.asarray(wood, dtype=np.float32)
    painted = (_SWAPPED.get(face) if swapped else None) or face
    colour = tuple(PRINTS[paint][painted]) if paint != "standard" else None
    icon, icon_alpha = face_icon(face, _TEXTURE, painted, colour=colour)
    a = icon_alpha[..., None]
    rgb = (base * (1 - a) + icon * a) * shade[..., None]
    return rgb, alpha


FLAT_TILT = 10.0
"""A die at rest tipped less than this (degrees) lies flat on the table; more: it leans."""


def far_to_near(dice: Sequence[Die], camera: Camera) -> list[int]:
    """Return the dice's indices in the order to paint them: flat dice the farthest from the
    camera first, so that a nearer die hides the side of a die it touches, never the other way
    round (in any other order a die's side may be drawn over its neighbour's top); then raised
    dice (leaning on a neighbour, or in the air) the same way, as they lie over the flat ones."""
    flat = [die.at_rest and die.top()[1] < FLAT_TILT for die in dice]
    distance = [float(np.linalg.norm(die.centre - camera.centre)) for die in dice]
    return sorted(range(len(dice)), key=lambda i: (not flat[i], -distance[i]))


def draw_die(
    canvas: Canvas, camera: Camera, die: Die, size: float, light: np.ndarray, obj_id: int
) -> dict[str, Any]:
    """Draw a die (with its motion blur); return its measured size and blur in pixels."""
    quads = face_quads(die, size)
    normals = DIE_NORMALS @ die.rotation.T
    centres = quads.mean(axis=1)
    facing = np.einsum("ij,ij->i", normals, camera.centre - centres) > 0
    pixels = camera.project(quads.reshape(-1, 3)).reshape(6, 4, 2)
    layer = Layer.around(pixels[facing].reshape(-1, 2))
    for k in np.flatnonzero(facing):
        rgb, alpha = _face_texture(DIE_FACES[k], die.wood, die.grain, die.swapped, die.paint)
        lit = 0.42 + 0.62 * max(0.0, float(normals[k] @ light))
        layer.paste(rgb * lit, pixels[k], alpha)
    top = int(np.argmax(normals[:, 2]))
    edges = np.roll(pixels[top], -1, axis=0) - pixels[top]
    size_px = float(np.mean(np.hypot(edges[:, 0], edges[:, 1])))
    blur_px = 0.0
    if die.motion != (0.0, 0.0):
        end = die.centre + np.array([*die.motion, 0.0])
        moved = camera.project(np.vstack([die.centre, end]))
        dx, dy = moved[1] - moved[0]
        blur_px = math.hypot(dx, dy)
        layer.motion_blur(dx, dy)
    canvas.composite(layer, obj_id, smeared=blur_px >= 1.0)
    return {"size_px": size_px, "blur_px": blur_px}


def die_shadow(camera: Camera, die: Die, size: float, light: np.ndarray) -> np.ndarray:
    """Return the image polygon of the die's shadow on the table (convex hull not yet taken)."""
    corners = die.corners(size)
    on_table = corners[:, :2] - corners[:, 2:3] * light[:2] / light[2]
    return camera.project_flat(on_table)
