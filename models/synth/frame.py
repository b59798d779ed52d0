"""One synthetic frame from (settings, seed, index): image, YOLO labels and ground-truth scene."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from models.synth.effects import apply_effects
from models.synth.labels import DETECTION_NAMES, Annotation, annotate, yolo_lines
from models.synth.layout import SPARE_GEMS, random_scene
from models.synth.render import render_scene
from models.synth.scene import Scene
from models.synth.settings import SynthSettings

SCENE_FORMAT = "templecam-synth-scene/1"
SCENE_ABOUT = (
    "box: [x0, y0, x1, y1] image px of the visible part, x1 and y1 exclusive; label: the class "
    "in the label file, null when under 40 % visible or 4 px; visible: visible px over the "
    "whole footprint; occluded: share of the in-image footprint hidden by things above it; "
    "in_frame: share of the footprint inside the image; die face: the readable top face, null "
    "when tilted over 25 deg, smeared over 0.3 die or under 60 % visible; table mm: x east, "
    "y north, z up; cells: the temple grid of the game record (start at [0, 0])"
)


@dataclass
class Frame:
    """A finished frame: the BGR image, the label file's text and the scene record."""

    image: np.ndarray
    labels: str
    scene: dict[str, Any]


def render_frame(settings: SynthSettings, seed: int, index: int) -> Frame:
    """Render frame `index` of the dataset with `seed`; frames do not depend on each other."""
    rng = np.random.default_rng([seed, index])
    scene = random_scene(rng, settings)
    rendered = render_scene(scene, rng)
    annotations = annotate(scene, rendered)
    image, effects = apply_effects(rendered.canvas.rgb, rng, settings.hard)
    labels = yolo_lines(annotations, settings.width, settings.height)
    record = scene_record(scene, annotations)
    record.update(table=rendered.table, effects=effects, seed=seed, index=index)
    return Frame(image, labels, record)


def render_frames(
    count: int, seed: int = 0, width: int = 1920, height: int = 1080
) -> list[np.ndarray]:
    """Render `count` table frames (BGR images only), e.g. to time the detector on."""
    settings = SynthSettings(width=width, height=height)
    return [render_frame(settings, seed, i).image for i in range(count)]


def _r(value: float, digits: int = 3) -> float:
    """Round for stable, short JSON."""
    return round(float(value), digits)


def _box(a: Annotation | None) -> list[int] | None:
    """Return an annotation's visible box as a list, or None."""
    return None if a is None or a.box is None else [int(v) for v in a.box]


def _seen(a: Annotation | None) -> dict[str, Any]:
    """Return what every object record says about its pixels and label."""
    if a is None:
        return {"box": None, "label": None, "visible": 0.0, "occluded": 1.0, "in_frame": 0.0}
    return {
        "box": _box(a),
        "label": a.label,
        "visible": _r(a.visible),
        "occluded": _r(a.occluded),
        "in_frame": _r(a.in_frame),
    }


def scene_record(scene: Scene, annotations: list[Annotation]) -> dict[str, Any]:
    """Return the ground truth of a frame as JSON-ready data (boxes in image pixels)."""
    by = {(a.drawn.kind, a.drawn.index): a for a in annotations}
    zones = {z.index: z for z in scene.zones}
    dice = []
    for i, die in enumerate(scene.dice):
        a = by.get(("die", i))
        top, tilt = die.top()
        extra = a.drawn.extra if a else {}
        dice.append(
            {
                "zone": die.zone,
                "colour": zones[die.zone].colour,
                "face": a.face if a else None,
                "top_face": top,
                "tilt_deg": _r(tilt, 2),
                "state": die.state,
                "at_rest": die.at_rest,
                "colours_swapped": die.swapped,
                **_seen(a),
                "size_px": _r(extra.get("size_px", 0.0), 2),
                "blur_px": _r(extra.get("blur_px", 0.0), 2),
                "centre_mm": [_r(v) for v in die.centre],
                "rotation": np.round(die.rotation, 6).tolist(),
            }
        )
    tiles = [
        {
            "cell": list(c.cell),
            "id": c.tile.tile_id,
            "stairs": c.stairs,
            "angle_deg": _r(c.angle),
            "centre_mm": [_r(v) for v in c.centre],
            "gems": c.gems,
            **_seen(by.get(("chamber", i))),
        }
        for i, c in enumerate(scene.chambers)
    ]
    per_cell: dict[tuple[int, int], int] = {}
    gems = []
    for i, gem in enumerate(scene.gems):
        if gem.cell is not None:
            per_cell[gem.cell] = per_cell.get(gem.cell, 0) + 1
        gems.append(
            {
                "where": gem.where,
                "cell": list(gem.cell) if gem.cell else None,
                **_seen(by.get(("gem", i))),
            }
        )
    depot = sum(1 for g in scene.gems if g.where == "depot")
    figures = [
        {"colour": f.colour, "cell": list(f.cell), **_seen(by.get(("figure", i)))}
        for i, f in enumerate(scene.figures)
    ]
    pile = [_seen(by.get(("tile_back", i))) for i in range(len(scene.draw_pile))]
    s = scene.settings
    return {
        "format": SCENE_FORMAT,
        "about": SCENE_ABOUT,
        "image": {"width": s.width, "height": s.height},
        "classes": list(DETECTION_NAMES),
        "camera": scene.camera.to_json(),
        "light": {
            "azimuth_deg": _r(scene.light.azimuth),
            "elevation_deg": _r(scene.light.elevation),
        },
        "zones": [
            {
                "index": z.index,
                "colour": z.colour,
                "side": z.side,
                "rect_mm": [_r(v) for v in z.rect()],
            }
            for z in scene.zones
        ],
        "dice": dice,
        "tiles": tiles,
        "draw_pile": {"count": scene.pile_count, "pieces": pile},
        "gems": {
            "per_cell": [{"cell": list(c), "count": n} for c, n in sorted(per_cell.items())],
            "depot": depot if scene.depot is not None else None,
            "spare": SPARE_GEMS if scene.depot is not None else 0,
            "items": gems,
        },
        "figures": figures,
        "hands": [_seen(by.get(("hand", i))) for i in range(len(scene.hands))],
        "clutter": [
            {"kind": c.kind, **_seen(by.get(("clutter", i)))} for i, c in enumerate(scene.clutter)
        ],
    }
