"""Frames for `templecam bench robustness`: one rendered table under one condition, with truth.

Every condition draws the same tables (frame i of a seed is the same scene in mm whatever the
condition); the renderer then changes what a condition asks of it (the frame's size, the
camera's height or tilt, more clutter, more hands) and the condition's picture change
(`vision.bench.robustness`) is applied to the finished frame. The truth comes from the
renderer's own instance map, so boxes follow the camera.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from models.synth.camera import Camera, _rotation
from models.synth.effects import apply_effects
from models.synth.frame import scene_record
from models.synth.labels import annotate
from models.synth.layout import Footprints, _clutter, _hands, random_scene, trinkets
from models.synth.render import render_scene
from models.synth.scene import Scene
from models.synth.settings import SynthSettings
from vision.bench.robustness import Condition
from vision.evaluate import Truth

KNOB_STREAM = 0x0B0B
"""The extra stream of random numbers for a condition's changes (the scene's own is untouched)."""
_TRIES = 12
"""Draws of the layout's clutter or hands before giving up on reaching a condition's count."""


def moved_camera(camera: Camera, height: float = 1.0, tilt_deg: float = 0.0) -> Camera:
    """Return the camera moved `height` times as far from the spot it looks at, tilted more.

    The spot on the table the camera looks at stays in the middle of the picture: a tilted
    camera moves aside (as on a tripod at the table's edge), a higher one moves back along its
    line of sight.
    """
    axis = camera.rotation[2]  # the line of sight, in table mm
    reach = -float(camera.centre[2]) / float(axis[2])
    target = camera.centre + reach * axis
    rotation = _rotation(0, tilt_deg) @ camera.rotation
    centre = target - reach * height * rotation[2]
    return dataclasses.replace(camera, rotation=rotation, centre=centre)


def _taken(scene: Scene) -> Footprints:
    """Return the table's taken places: tiles, the pile, the depot, dice and clutter."""
    taken = Footprints()
    tile = scene.settings.tile_mm
    for chamber in scene.chambers:
        taken.take(chamber.centre, (tile, tile), chamber.angle)
    for piece in [*scene.draw_pile, *([scene.depot] if scene.depot else [])]:
        taken.take(piece.centre, piece.size, piece.angle)
    for die in scene.dice:
        side = scene.settings.die_mm * 1.6
        taken.take((float(die.centre[0]), float(die.centre[1])), (side, side), 0.0)
    for item in scene.clutter:
        taken.take(item.centre, (item.size * 0.8, item.size * 0.8), 0.0)
    return taken


def change_scene(scene: Scene, condition: Condition, rng: np.random.Generator) -> None:
    """Make the renderer's changes a condition asks for: clutter, trinkets, hands, camera."""
    view = scene.camera.table_rect()
    rougher = dataclasses.replace(scene.settings, hard=True)
    if condition.clutter:
        taken, added = _taken(scene), []
        for _ in range(_TRIES):
            if len(added) >= condition.clutter:
                break
            added += _clutter(rng, view, taken, True)
        scene.clutter += added[: condition.clutter]
    if condition.trinkets:
        added = []
        for _ in range(_TRIES):
            if len(added) >= condition.trinkets:
                break
            added += trinkets(rng, rougher, scene, view)
        scene.clutter += added
    if condition.hands > len(scene.hands):
        for _ in range(_TRIES):
            if len(scene.hands) >= condition.hands:
                break
            scene.hands += _hands(rng, rougher, scene, view)
    if condition.camera_height != 1.0 or condition.camera_tilt:
        scene.camera = moved_camera(scene.camera, condition.camera_height, condition.camera_tilt)


def render_condition(
    condition: Condition, seed: int, index: int, width: int = 1920, height: int = 1080
) -> tuple[np.ndarray, Truth]:
    """Render frame `index` of `seed` under `condition`: the BGR frame and its truth."""
    settings = SynthSettings(
        width=max(32, round(width * condition.size)), height=max(32, round(height * condition.size))
    )
    rng = np.random.default_rng([seed, index])
    scene = random_scene(rng, settings)
    knobs = np.random.default_rng([seed, index, KNOB_STREAM])
    change_scene(scene, condition, knobs)
    rendered = render_scene(scene, rng)
    annotations = annotate(scene, rendered)
    image, _ = apply_effects(rendered.canvas.rgb, rng, settings.hard)
    labelled = [a for a in annotations if a.label is not None and a.box is not None]
    truth = Truth(
        np.array([a.box for a in labelled], dtype=np.float64).reshape(-1, 4),
        tuple(str(a.label) for a in labelled),
        scene_record(scene, annotations),
    )
    if condition.image is not None:
        image = condition.image(image, truth, knobs)
    return image, truth
