"""A die for the crop renderer: the frame renderer's die, with any wood, print colours and wear.

The faces reuse the frame renderer's art (`icons.face_icon`, `materials.die_grain`,
`materials.face_bevel`, `draw_dice.face_quads`); what changes is the paint (any print scheme,
key and torch possibly swapped), how much of it has worn off, and how large the icon is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from art.icons import FACE_COLOURS, face_icon
from art.noise import smooth_noise
from models.synth.camera import Camera
from models.synth.canvas import Canvas, Layer
from models.synth.draw_dice import face_quads
from models.synth.materials import die_grain, face_bevel
from models.synth.scene import DIE_FACES, DIE_NORMALS, Die, rotation_z

TEXTURE = 48
"""Side of a face texture in px (the frame renderer's)."""
_SWAPPED = {"key": "torch", "torch": "key"}


@dataclass(frozen=True)
class DiePaint:
    """How one die looks: its wood, icon paint, wear and icon size."""

    wood: tuple[float, float, float]
    colours: tuple[tuple[str, tuple[float, float, float]], ...]
    """(face, RGB) of each face's paint."""
    grain: int
    swapped: bool = False
    """Key and torch painted in each other's colours (reported on one owner's die)."""
    wear: float = 0.0
    """Share of the paint rubbed off where it wears (0 none)."""
    wear_seed: int = 0
    icon_scale: float = 1.0
    """Icon size relative to the frame renderer's (0.7-1.0)."""
    ambient: float = 0.42
    diffuse: float = 0.62


@lru_cache(maxsize=512)
def _icon_tone(face: str, paint: str, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (tone, alpha) of `face`'s icon: its embossed shading over its paint, and coverage."""
    rgb, alpha = face_icon(face, size, paint)
    base = np.asarray(FACE_COLOURS[paint], dtype=np.float32)
    return np.clip(rgb.mean(axis=2) / float(base.mean()), 0.3, 2.0), alpha


def _recoloured(face: str, paint: str, colour: np.ndarray, size: int) -> tuple[np.ndarray, ...]:
    """Return (rgb, alpha) of `face`'s icon painted `colour`, keeping its embossed shading."""
    tone, alpha = _icon_tone(face, paint, size)
    return np.clip(tone[..., None] * colour, 0, 1), alpha


def _wear(paint: DiePaint, index: int, size: int) -> np.ndarray:
    """Return the share of paint left (size x size) on face `index`."""
    if paint.wear <= 0:
        return np.ones((size, size), np.float32)
    rng = np.random.default_rng([paint.wear_seed, index])
    spots = smooth_noise(rng, size, size, size / 6) + 0.5 * smooth_noise(rng, size, size, 2.5)
    rubbed = np.clip((spots - rng.uniform(0.0, 1.2)) * 2.5, 0, 1)
    return (1 - paint.wear * rubbed).astype(np.float32)


def face_texture(face: str, index: int, paint: DiePaint) -> tuple[np.ndarray, np.ndarray]:
    """Return (rgb, alpha) of one die face: grained wood, the painted icon, darker edges."""
    shade, alpha = face_bevel(TEXTURE)
    wood = np.asarray(paint.wood, dtype=np.float32)
    base = die_grain(paint.grain, TEXTURE)[..., None] * wood
    colours = dict(paint.colours)
    painted = _SWAPPED.get(face, face) if paint.swapped else face
    icon_px = max(8, 2 * round(TEXTURE * paint.icon_scale / 2))
    rgb, icon_alpha = _recoloured(face, painted, np.asarray(colours[painted], np.float32), icon_px)
    if icon_px < TEXTURE:
        pad = TEXTURE - icon_px
        top, left = pad // 2, pad - pad // 2
        border = (top, pad - top, left, pad - left)
        rgb = cv2.copyMakeBorder(rgb, *border, cv2.BORDER_CONSTANT, value=0)
        icon_alpha = cv2.copyMakeBorder(icon_alpha, *border, cv2.BORDER_CONSTANT, value=0)
    a = (icon_alpha * _wear(paint, index, TEXTURE))[..., None]
    return (base * (1 - a) + rgb * a) * shade[..., None], alpha


def face_up(face: str, rng: np.random.Generator) -> np.ndarray:
    """Return a die rotation that puts `face` on top (either adventurer face for that one)."""
    index = [i for i, f in enumerate(DIE_FACES) if f == face]
    normal = DIE_NORMALS[index[int(rng.integers(len(index)))]]
    up = np.array([0.0, 0.0, 1.0])
    axis = np.cross(normal, up)
    if np.linalg.norm(axis) < 1e-9:
        return np.eye(3) if normal[2] > 0 else np.diag([1.0, -1.0, -1.0])
    return axis_angle(axis / np.linalg.norm(axis), math.pi / 2)


def axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    """Return the rotation by `angle` radians about a unit `axis` (Rodrigues)."""
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


def tilted(rotation: np.ndarray, degrees: float, rng: np.random.Generator) -> np.ndarray:
    """Return `rotation` tipped by `degrees` about a random horizontal axis."""
    heading = rng.uniform(0, 2 * math.pi)
    axis = np.array([math.cos(heading), math.sin(heading), 0.0])
    return axis_angle(axis, math.radians(degrees)) @ rotation


def lying_die(face: str, centre: np.ndarray, tilt: float, rng: np.random.Generator) -> Die:
    """Return a die showing `face`, turned at random about the vertical, tipped by `tilt` deg."""
    rotation = rotation_z(rng.uniform(0, 360)) @ face_up(face, rng)
    if tilt > 0:
        rotation = tilted(rotation, tilt, rng)
    return Die(0, "rest", np.asarray(centre, dtype=np.float64), rotation, (0.8, 0.6, 0.4), 0)


def top_share(camera: Camera, die: Die, size: float) -> float:
    """Return the top face's image area over the largest other face's (inf when none shows)."""
    quads = face_quads(die, size)
    normals = DIE_NORMALS @ die.rotation.T
    facing = np.einsum("ij,ij->i", normals, camera.centre - quads.mean(axis=1)) > 0
    pixels = camera.project(quads.reshape(-1, 3)).reshape(6, 4, 2)
    x, y = pixels[..., 0], pixels[..., 1]
    area = 0.5 * np.abs((x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y).sum(axis=1))
    top = int(np.argmax(normals[:, 2]))
    others = [area[k] for k in np.flatnonzero(facing) if k != top]
    return float(area[top] / max(others)) if others and max(others) > 0 else math.inf


def draw_painted_die(
    canvas: Canvas,
    camera: Camera,
    die: Die,
    size: float,
    light: np.ndarray,
    paint: DiePaint,
    obj_id: int,
    motion_px: tuple[float, float] = (0.0, 0.0),
) -> float:
    """Draw a die with its paint, lit from `light`; return its top face's edge in px."""
    quads = face_quads(die, size)
    normals = DIE_NORMALS @ die.rotation.T
    centres = quads.mean(axis=1)
    facing = np.einsum("ij,ij->i", normals, camera.centre - centres) > 0
    pixels = camera.project(quads.reshape(-1, 3)).reshape(6, 4, 2)
    layer = Layer.around(pixels[facing].reshape(-1, 2))
    for k in np.flatnonzero(facing):
        rgb, alpha = face_texture(DIE_FACES[k], int(k), paint)
        lit = paint.ambient + paint.diffuse * max(0.0, float(normals[k] @ light))
        layer.paste(rgb * lit, pixels[k], alpha)
    if motion_px != (0.0, 0.0):
        layer.motion_blur(*motion_px)
    canvas.composite(layer, obj_id, smeared=math.hypot(*motion_px) >= 1.0)
    top = int(np.argmax(normals[:, 2]))
    edges = np.roll(pixels[top], -1, axis=0) - pixels[top]
    return float(np.mean(np.hypot(edges[:, 0], edges[:, 1])))
