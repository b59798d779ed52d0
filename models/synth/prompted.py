"""Rendered prompted captures: what `/dice` asks a user to photograph, for tests and benchmarks.

A prompted capture is a frame in which every die in view shows one face (the user was told
"turn every die so that it shows the KEY"), or a frame of the table without dice. The frames
are ordinary synthetic scenes (`models.synth.layout.random_scene`) whose dice are laid flat on
the prompted face (dice in the air or leaning are taken away, hands too: the user pressed
Capture with their hands off the table). `write_prompted` writes them in the folder layout
that `templecam teach --prompted` reads, with each frame's ground truth in a hidden `.truth/`
folder that teaching ignores and benchmarks read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from base.files import write_atomically
from models.synth.effects import apply_effects
from models.synth.frame import Frame, scene_record
from models.synth.labels import annotate, yolo_lines
from models.synth.layout import _face_up, random_scene
from models.synth.render import render_scene
from models.synth.scene import Scene, rotation_z
from models.synth.settings import JPEG_QUALITY, SynthSettings
from vision.perception.classes import FACES as FACE_NAMES

EMPTY = "empty"
"""The prompt folder of frames of the table without dice."""
TRUTH = ".truth"
"""The hidden folder of the frames' ground truth (scene JSON), beside the prompt folders."""


def prompted_scene(rng: np.random.Generator, settings: SynthSettings, prompt: str) -> Scene:
    """Return a table scene whose dice all lie flat on `prompt` (no dice for `EMPTY`)."""
    scene = random_scene(rng, settings)
    scene.hands = []
    if prompt == EMPTY:
        scene.dice = []
        return scene
    flat = []
    half = settings.die_mm / 2
    for die in scene.dice:
        if die.state == "tumbling" or abs(float(die.centre[2]) - half) > 0.5:
            continue  # in the air or leaning: a user spreads their dice flat
        yaw = float(rng.uniform(0, 90))
        flat.append(replace(die, state="rest", rotation=rotation_z(yaw) @ _face_up(prompt, rng)))
    scene.dice = flat
    return scene


def render_prompted(settings: SynthSettings, seed: int, index: int, prompt: str) -> Frame:
    """Render prompted capture `index` of `prompt` (frames do not depend on each other)."""
    rng = np.random.default_rng(
        [seed, FACE_NAMES.index(prompt) + 1 if prompt != EMPTY else 0, index]
    )
    scene = prompted_scene(rng, settings, prompt)
    rendered = render_scene(scene, rng)
    annotations = annotate(scene, rendered)
    image, effects = apply_effects(rendered.canvas.rgb, rng, settings.hard)
    record = scene_record(scene, annotations)
    record.update(table=rendered.table, effects=effects, seed=seed, index=index, prompt=prompt)
    return Frame(image, yolo_lines(annotations, settings.width, settings.height), record)


def write_prompted(
    out: Path,
    settings: SynthSettings,
    per_face: int,
    empty: int,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> list[Path]:
    """Write `per_face` captures of each face and `empty` of the bare table into `out`."""
    plan = [(face, i) for face in FACE_NAMES for i in range(per_face)]
    plan += [(EMPTY, i) for i in range(empty)]
    written = []
    for done, (prompt, index) in enumerate(plan, start=1):
        frame = render_prompted(settings, seed, index, prompt)
        ok, jpeg = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        if not ok:
            raise RuntimeError("OpenCV could not encode the frame as JPEG")
        path = out / prompt / f"capture_{index:04d}.jpg"
        truth = out / TRUTH / prompt / f"capture_{index:04d}.json"
        write_atomically(truth, (json.dumps(frame.scene, indent=1) + "\n").encode("utf-8"))
        write_atomically(path, jpeg.tobytes())
        written.append(path)
        if progress is not None:
            progress(done, len(plan))
    return written
