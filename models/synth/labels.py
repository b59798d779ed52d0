"""From the instance map to labels: visible boxes, the class of each object, YOLO lines."""

from __future__ import annotations

from dataclasses import dataclass

from models.synth.render import Drawn, Rendered
from models.synth.scene import Scene
from vision.perception.classes import DETECTION_NAMES, DIE_UNREADABLE

__all__ = ["DETECTION_NAMES", "Annotation", "annotate", "die_face", "yolo_lines"]

MIN_VISIBLE = 0.4
"""Objects showing less than this fraction of their footprint get no label."""
MIN_SIDE_PX = 4
"""Objects whose visible box is narrower than this get no label."""
READABLE_TILT = 25.0
"""A die whose top face tilts more than this (degrees) cannot be read."""
LEANING_TILT = 40.0
"""A die leaning on another is read up to this tilt: it has come to rest and its top face is
what the roll shows (the renderer leans dice 12-38 degrees)."""
READABLE_BLUR = 0.3
"""A die smeared by more than this fraction of its size cannot be read."""
READABLE_VISIBLE = 0.6
"""A die showing less than this fraction of itself cannot be read."""

_KIND_CLASS = {
    "chamber": "tile",
    "tile_back": "tile_back",
    "gem": "gem",
    "figure": "figure",
    "hand": "hand",
}


@dataclass
class Annotation:
    """One drawn object with what the image shows of it."""

    drawn: Drawn
    box: tuple[int, int, int, int] | None
    """Visible pixels' box (x0, y0, x1, y1), x1 and y1 exclusive; None when nothing shows."""
    visible: float
    """Visible pixels over the whole footprint (hidden and off-image parts count against it)."""
    occluded: float
    """Fraction of the in-image footprint hidden by objects drawn over it."""
    in_frame: float
    """Fraction of the footprint inside the image."""
    label: str | None
    """The class name written to the label file, or None when the object gets no label."""
    face: str | None = None
    """For a die: the top face when it is readable."""


def die_face(scene: Scene, drawn: Drawn, visible: float) -> str | None:
    """Return a die's readable top face, or None when tilt, blur or cover hide it."""
    die = scene.dice[drawn.index]
    face, tilt = die.top()
    blur = drawn.extra.get("blur_px", 0.0) / max(drawn.extra.get("size_px", 1.0), 1e-6)
    limit = LEANING_TILT if die.state == "leaning" else READABLE_TILT
    if tilt > limit or blur > READABLE_BLUR or visible < READABLE_VISIBLE:
        return None
    return face


def annotate(scene: Scene, rendered: Rendered) -> list[Annotation]:
    """Measure every drawn object and decide its label."""
    out = []
    for drawn in rendered.drawn:
        count, box = rendered.canvas.visible(drawn.obj_id)
        coverage = rendered.canvas.drawn.get(drawn.obj_id)
        full = coverage.full if coverage else 0
        inside = coverage.inside if coverage else 0
        visible = count / full if full else 0.0
        occluded = 1 - count / inside if inside else 1.0
        in_frame = inside / full if full else 0.0
        face = die_face(scene, drawn, visible) if drawn.kind == "die" else None
        if drawn.kind == "die":
            label: str | None = face or DIE_UNREADABLE
        else:
            label = _KIND_CLASS.get(drawn.kind)
        big_enough = box is not None and min(box[2] - box[0], box[3] - box[1]) >= MIN_SIDE_PX
        if visible < MIN_VISIBLE or not big_enough:
            label = None
        out.append(Annotation(drawn, box, visible, occluded, in_frame, label, face))
    return out


def yolo_lines(annotations: list[Annotation], width: int, height: int) -> str:
    """Return the label file: one `class cx cy w h` line per labelled object, normalised."""
    lines = []
    for a in annotations:
        if a.label is None or a.box is None:
            continue
        x0, y0, x1, y1 = a.box
        cx, cy = (x0 + x1) / 2 / width, (y0 + y1) / 2 / height
        w, h = (x1 - x0) / width, (y1 - y0) / height
        lines.append(f"{DETECTION_NAMES.index(a.label)} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}")
    return "".join(line + "\n" for line in lines)
