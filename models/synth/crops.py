"""The crop renderer: labelled die-face reader inputs drawn directly at crop level.

`render_crop(seed, index, look, imgsz)` draws one small patch of table in frame pixels (see
`crop_scene`): a die showing one of the five faces, seen from above with a little perspective,
with neighbours, a finger over it, gems or tile art around, under a random light and camera
(`crop_effects`); or something that is no die (tile art, which prints the same icons, gems,
hands, figures, tile backs, clutter, bare table, the gap between two dice, a die's edge). A
localiser box around the object is jittered (centre up to 15 % of its side, size +-20 %) and the
crop is cut from the patch exactly as `vision.perception.face_reader` cuts it from a frame, then
turned by a random quarter turn. A die leaning on a neighbour (tipped 12-40 degrees, as dice come
to rest against each other) is read: its top face is what the roll shows. A die whose face cannot
be read (tipped over 42 degrees, smeared, mostly hidden, or showing a side nearly as large as its
top) is labelled `UNKNOWN`: the trainer teaches an even share over the five faces for it.
Crop `index` of a seed depends on nothing else, so any worker can draw any crop.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from models.synth.canvas import Canvas
from models.synth.crop_die import (
    DiePaint,
    axis_angle,
    draw_painted_die,
    lying_die,
    top_share,
)
from models.synth.crop_effects import apply_crop_effects
from models.synth.crop_look import LIGHTS, PRINTS, WOODS, Look, jitter_colour
from models.synth.crop_scene import (
    DIE_MM,
    PatchView,
    background,
    cast_shadows,
    draw_clutter,
    draw_tile,
    fingertip,
    overcast,
    patch_view,
    place_hand,
    random_hand,
)
from models.synth.draw_dice import die_shadow, far_to_near
from models.synth.draw_props import draw_figure, draw_gem, draw_hand, gem_shadow, hand_shadow
from models.synth.draw_trinkets import SMALL_KINDS, draw_trinket, random_trinket, trinket_shadow
from models.synth.layout import slide_to_touch
from models.synth.scene import PLAYER_COLOURS, Die, Figure, Gem
from rules.vocabulary import FACES
from vision.perception.detections import box_iou
from vision.perception.face_reader import CROP_SCALE, NOT_DIE, PAD_VALUE, crop_square, crop_window

UNKNOWN = "unknown"
"""A die whose face cannot be read (not a class: trained toward an even share of the faces)."""
LABELS: tuple[str, ...] = (*FACES, NOT_DIE)
"""The classes a crop is labelled with (besides `UNKNOWN`)."""
READABLE = 0.6
"""A die is read only when at least this share of it is in view (the frame renderer's rule)."""
TOP_SHARE = 1.5
"""A die is read only when its top face shows at least this many times any other face's area
in the image (a die tipped toward the camera, or far off its axis, shows a side as much)."""
LEANING = 0.55
"""Share of the readable die crops whose die leans on a neighbour. Raised from 0.3 (crop
renderer version 7): on four rendered games a leaning die was misread in 1 still frame of 21
and left unsure in 1 of 30, a flat die misread in 1 of 1,100, and each misread roll of the
worst of them had a leaning die."""
LEAN_TILT = (12.0, 40.0)
"""How far a leaning die is tipped (the game renderer leans dice 12-38 degrees)."""
LEAN_SHARE = 0.5
"""A leaning die is read while its top shows at least this share of the largest face in view:
seen from a camera off its axis, a die tipped 30 degrees toward it shows a side as large as its
top, yet the top (the lit face, square to the table's up) is what the roll shows."""
TIPPED = (42.0, 65.0)
"""How far an unreadable tipped die is tipped (beyond any leaning die, so no tilt is both)."""
NEGATIVE_IOU = 0.3
"""A not_die box overlaps every die less than this."""
SHIFT, ZOOM = 0.15, 0.2
"""A localiser box's centre error (share of its side) and size error."""
GEM_MM, FIGURE_MM = 13.0, 38.0

KINDS: dict[str, float] = {
    "die": 0.52,
    "unknown": 0.07,
    "trinket": 0.11,
    "tile_icon": 0.08,
    "tile": 0.03,
    "gem": 0.06,
    "hand": 0.04,
    "figure": 0.025,
    "table": 0.025,
    "clutter": 0.01,
    "between": 0.035,
    "edge": 0.035,
}
"""What a crop shows, with its share of the crops."""


@dataclass
class Crop:
    """One rendered crop: the BGR image at the input size, its label and how it was drawn."""

    image: np.ndarray
    label: str
    info: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Patch:
    """A patch being drawn: its view, canvas, look and the dice drawn so far."""

    rng: np.random.Generator
    view: PatchView
    canvas: Canvas
    light: np.ndarray
    light_family: str
    paint: DiePaint
    print_scheme: str
    dice: dict[int, Die] = field(default_factory=dict)
    next_id: int = 1
    shadows: list[np.ndarray] = field(default_factory=list)

    def new_id(self) -> int:
        """Return a fresh object id."""
        self.next_id += 1
        return self.next_id - 1


def _paint(rng: np.random.Generator, wood: str, scheme: str) -> DiePaint:
    """Draw a die set's look from a wood family and a print scheme."""
    woods = WOODS[wood]
    base = jitter_colour(rng, woods[int(rng.integers(len(woods)))], 0.08)
    colours = tuple(
        (face, tuple(float(v) for v in jitter_colour(rng, rgb, 0.12)))
        for face, rgb in PRINTS[scheme].items()
    )
    return DiePaint(
        wood=tuple(float(v) for v in base),
        colours=colours,
        grain=int(rng.integers(8)),
        swapped=bool(rng.random() < 0.15),
        wear=float(rng.uniform(0.0, 0.6)) if rng.random() < 0.5 else 0.0,
        wear_seed=int(rng.integers(1 << 30)),
        icon_scale=float(rng.uniform(0.7, 1.0)),
        ambient=float(rng.uniform(0.35, 0.5)),
        diffuse=float(rng.uniform(0.5, 0.7)),
    )


def _light(rng: np.random.Generator, family: str) -> np.ndarray:
    """Return the direction toward the light for a lighting family."""
    e = math.radians(rng.uniform(*LIGHTS[family].elevation))
    a = rng.uniform(0, 2 * math.pi)
    return np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])


def _place_die(patch: _Patch, die: Die) -> Die:
    """Lift a (tipped) die so that its lowest corner touches the table."""
    low = float(die.corners(DIE_MM)[:, 2].min())
    die.centre = die.centre + np.array([0.0, 0.0, -low])
    return die


def _add_die(
    patch: _Patch, face: str, xy: np.ndarray, tilt: float, paint: DiePaint | None = None
) -> tuple[int, Die, DiePaint]:
    """Put a die showing `face` at table `xy`; return its id, the die and its paint."""
    die = lying_die(face, np.array([xy[0], xy[1], DIE_MM / 2]), tilt, patch.rng)
    return _add_built(patch, _place_die(patch, die), paint)


def _add_built(patch: _Patch, die: Die, paint: DiePaint | None = None) -> tuple[int, Die, DiePaint]:
    """Put an already posed die on the table; return its id, the die and its paint."""
    obj = patch.new_id()
    patch.dice[obj] = die
    patch.shadows.append(die_shadow(patch.view.camera, die, DIE_MM, patch.light))
    return obj, die, paint or patch.paint


def _leaning_pair(
    patch: _Patch, face: str, centre: np.ndarray, tilt: float
) -> tuple[tuple[int, Die, DiePaint], tuple[int, Die, DiePaint]]:
    """Put a die showing `face` at `centre` leaning `tilt` degrees on a flat neighbour it
    touches; return the leaning die and its support."""
    rng = patch.rng
    heading = rng.uniform(0, 2 * math.pi)
    toward = np.array([math.cos(heading), math.sin(heading), 0.0])
    die = lying_die(face, np.array([centre[0], centre[1], DIE_MM / 2]), 0.0, rng)
    axis = np.cross(np.array([0.0, 0.0, 1.0]), toward)
    die.rotation = axis_angle(axis, math.radians(tilt)) @ die.rotation  # top toward `toward`
    die = _place_die(patch, die)
    other = str(FACES[int(rng.integers(len(FACES)))])
    support = lying_die(other, np.array([centre[0], centre[1], DIE_MM / 2]), 0.0, rng)
    slide_to_touch(support, die, toward, DIE_MM / 2, DIE_MM, step=0.25)
    paint = patch.paint if rng.random() < 0.8 else _paint(rng, "natural", "standard")
    return _add_built(patch, die), _add_built(patch, support, paint)


def _neighbours(
    patch: _Patch,
    centre: np.ndarray,
    count: int,
    touch: float = 0.35,
    taken: list[np.ndarray] | None = None,
) -> list[tuple[int, Die, DiePaint]]:
    """Put `count` dice around `centre` (touching, or a little apart), never on each other nor
    on the dice lying at `taken`."""
    rng = patch.rng
    placed: list[np.ndarray] = [centre, *(taken or [])]
    out = []
    for _ in range(count):
        for _attempt in range(10):
            angle = rng.uniform(0, 2 * math.pi)
            touching = rng.random() < touch
            dist = DIE_MM * (rng.uniform(1.03, 1.15) if touching else rng.uniform(1.45, 2.3))
            xy = centre + dist * np.array([math.cos(angle), math.sin(angle)])
            if all(np.hypot(*(xy - p)) > DIE_MM * 1.02 for p in placed):
                placed.append(xy)
                face = str(FACES[int(rng.integers(len(FACES)))])
                paint = patch.paint if rng.random() < 0.8 else _paint(rng, "natural", "standard")
                out.append(_add_die(patch, face, xy, 0.0, paint))
                break
    return out


def _box_of(patch: _Patch, obj: int) -> np.ndarray | None:
    """Return the visible box (x0, y0, x1, y1) of an object, None when hidden."""
    count, box = patch.canvas.visible(obj)
    return None if box is None or count == 0 else np.array(box, dtype=np.float64)


def jitter_box(box: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Return a localiser's imprecise box: centre off by up to `SHIFT`, size off by `ZOOM`."""
    x0, y0, x1, y1 = box
    side = max(x1 - x0, y1 - y0)
    cx, cy = (
        (x0 + x1) / 2 + rng.uniform(-SHIFT, SHIFT) * side,
        (y0 + y1) / 2 + rng.uniform(-SHIFT, SHIFT) * side,
    )
    k = rng.uniform(1 - ZOOM, 1 + ZOOM)
    w, h = (x1 - x0) * k * rng.uniform(0.95, 1.05), (y1 - y0) * k * rng.uniform(0.95, 1.05)
    return np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])


def _centre_box(patch: _Patch) -> np.ndarray:
    """Return a die-sized box at the patch centre (where a not_die crop looks)."""
    rng = patch.rng
    side = patch.view.die_px * rng.uniform(1.0, 1.35)
    w, h = side, side * rng.uniform(0.85, 1.15)
    c = patch.view.size / 2
    return jitter_box(np.array([c - w / 2, c - h / 2, c + w / 2, c + h / 2]), rng)


def _draw_dice(patch: _Patch, dice: list[tuple[int, Die, DiePaint]], motion: float = 0.0) -> None:
    """Draw dice, the farthest from the camera first (the first die listed may be smeared by
    `motion` px)."""
    for k in far_to_near([die for _, die, _ in dice], patch.view.camera):
        obj, die, paint = dice[k]
        smear = (0.0, 0.0)
        if k == 0 and motion > 0:
            a = patch.rng.uniform(0, 2 * math.pi)
            smear = (motion * math.cos(a), motion * math.sin(a))
        draw_painted_die(
            patch.canvas, patch.view.camera, die, DIE_MM, patch.light, paint, obj, smear
        )


def _finger_over(patch: _Patch, xy: np.ndarray, cover: float) -> None:
    """Draw a hand whose fingertip reaches over table point `xy` by `cover` die sizes."""
    rng = patch.rng
    hand = random_hand(rng, float(rng.uniform(5, 40)))
    heading = rng.uniform(0, 360)
    ahead = np.array([math.cos(math.radians(heading)), math.sin(math.radians(heading))])
    at = xy + ahead * DIE_MM * (cover - 0.5) + _parallax(patch, xy, hand.height)
    _draw_hand(patch, place_hand(hand, fingertip(hand), at, heading))


def _parallax(patch: _Patch, xy: np.ndarray, height: float) -> np.ndarray:
    """Return how far a point `height` mm up must move to be seen over table point `xy`."""
    return patch.view.at_height(height) - patch.view.at_height(DIE_MM / 2)


def _draw_hand(patch: _Patch, hand: Any) -> int:
    """Draw a hand with its soft shadow; return its id."""
    rng = patch.rng
    polys = hand_shadow(patch.view.camera, hand, patch.light)
    cast_shadows(patch.canvas, polys, 0.35, patch.view.die_px * 0.4, hull=False)
    obj = patch.new_id()
    draw_hand(patch.canvas, patch.view.camera, hand, rng, obj)
    return obj


def _gem(patch: _Patch, xy: np.ndarray, z: float = 0.0) -> tuple[int, Gem]:
    """Return a new gem lying at `xy` (drawn later)."""
    angle = float(patch.rng.uniform(0, 360))
    gem = Gem("spare", (float(xy[0]), float(xy[1]), z), angle, int(patch.rng.integers(8)))
    patch.shadows.append(gem_shadow(patch.view.camera, gem, GEM_MM, patch.light))
    return patch.new_id(), gem


def _trinket(patch: _Patch, xy: np.ndarray, kind: str | None = None) -> Callable[[], None]:
    """Put a trinket (bead, coin, token, crystal, card, pencil) at `xy`; return its drawing."""
    item = random_trinket(patch.rng, (float(xy[0]), float(xy[1])), kind)
    patch.shadows.append(trinket_shadow(patch.view.camera, item, patch.light))
    obj = patch.new_id()

    def drawn() -> None:
        draw_trinket(patch.canvas, patch.view.camera, item, patch.light, patch.rng, obj)

    return drawn


def _new_patch(rng: np.random.Generator, look: Look) -> tuple[_Patch, dict[str, Any]]:
    """Start a patch: its view, background, light and the die set's paint."""
    wood, scheme, light_family = look.sample(rng)
    view = patch_view(rng)
    image, table = background(rng, view)
    patch = _Patch(
        rng=rng,
        view=view,
        canvas=Canvas(image.astype(np.float32)),
        light=_light(rng, light_family),
        light_family=light_family,
        paint=_paint(rng, wood, scheme),
        print_scheme=scheme,
    )
    info = {"wood": wood, "print": scheme, "light": light_family, "table": table}
    info["die_px"] = round(view.die_px, 1)
    return patch, info


def _finish(patch: _Patch, drawn: Callable[[], None]) -> None:
    """Cast the shadows gathered so far, then draw what stands on the table."""
    strength = float(patch.rng.uniform(*LIGHTS[patch.light_family].shadow))
    cast_shadows(patch.canvas, patch.shadows, strength, patch.view.die_px * 0.06)
    drawn()


def _die_scene(patch: _Patch, info: dict[str, Any], unknown: bool) -> tuple[np.ndarray, str]:
    """Draw a die at the centre (readable, or not when `unknown`); return its box and label."""
    rng = patch.rng
    face = str(FACES[int(rng.integers(len(FACES)))])
    how = str(rng.choice(["tilt", "smear", "covered"])) if unknown else "read"
    if rng.random() < 0.18:
        info["under"] = draw_tile(patch.canvas, patch.view, rng, False, patch.new_id())
    elif rng.random() < 0.03:
        info["under"] = draw_clutter(patch.canvas, patch.view, rng, patch.new_id())
    tilt = 0.0
    leaning = how == "read" and rng.random() < LEANING
    if how == "tilt":
        tilt = rng.uniform(*TIPPED)
    elif leaning:
        tilt = rng.uniform(*LEAN_TILT)
    elif rng.random() < 0.3:
        tilt = rng.uniform(3, 20)
    elif rng.random() < 0.6:
        tilt = rng.uniform(0, 3)
    centre = patch.view.target
    if leaning:
        target, support = _leaning_pair(patch, face, centre, tilt)
        count = int(rng.choice(3, p=[0.5, 0.3, 0.2]))
        others = [support, *_neighbours(patch, centre, count, taken=[support[1].centre[:2]])]
    else:
        target = _add_die(patch, face, centre, tilt)
        count = int(rng.choice(4, p=[0.4, 0.3, 0.18, 0.12]))
        others = _neighbours(patch, centre, count)
    gems = []
    if rng.random() < 0.12:
        angle = rng.uniform(0, 2 * math.pi)
        gems.append(
            _gem(patch, centre + DIE_MM * 1.3 * np.array([math.cos(angle), math.sin(angle)]))
        )
    beside = []
    if rng.random() < 0.2:  # a bead, coin or token lying right beside it
        angle = rng.uniform(0, 2 * math.pi)
        dist = DIE_MM * rng.uniform(1.05, 1.6)
        at = centre + dist * np.array([math.cos(angle), math.sin(angle)])
        beside.append(_trinket(patch, at, str(rng.choice(SMALL_KINDS))))
    motion = 0.0
    if how == "smear":
        motion = patch.view.die_px * rng.uniform(0.35, 1.5)
    elif rng.random() < 0.1:
        motion = patch.view.die_px * rng.uniform(0.0, 0.2)

    def drawn() -> None:
        for obj, gem in gems:
            draw_gem(patch.canvas, patch.view.camera, gem, GEM_MM, obj)
        for draw in beside:
            draw()
        if leaning:  # the leaning die rests on its support: drawn over it
            _draw_dice(patch, others)
            _draw_dice(patch, [target], motion)
        else:
            _draw_dice(patch, [target, *others], motion)
        if how == "covered":
            _finger_over(patch, centre, rng.uniform(0.55, 0.95))
        elif rng.random() < 0.12:
            _finger_over(patch, centre, rng.uniform(0.0, 0.35))

    _finish(patch, drawn)
    obj = target[0]
    box = _box_of(patch, obj)
    full = patch.canvas.drawn[obj].full
    seen = patch.canvas.visible(obj)[0] / max(full, 1)
    info.update(face=face, tilt=round(tilt, 1), motion=round(motion, 1), seen=round(seen, 2))
    share = top_share(patch.view.camera, target[1], DIE_MM)
    info.update(swapped=patch.paint.swapped, neighbours=len(others), top_share=round(share, 2))
    info.update(leaning=leaning, how=how)
    least_share = LEAN_SHARE if leaning else TOP_SHARE
    readable = how == "read" and seen >= READABLE and share >= least_share and box is not None
    if box is None:
        box = np.array([0, 0, patch.view.size, patch.view.size], dtype=np.float64)
    return box, face if readable else UNKNOWN


def _negative_scene(patch: _Patch, kind: str, info: dict[str, Any]) -> None:
    """Draw something that is no die at the patch centre (dice may lie around it)."""
    rng = patch.rng
    centre = patch.view.target
    dice: list[tuple[int, Die, DiePaint]] = []
    gems: list[tuple[int, Gem]] = []
    extra: list[Callable[[], None]] = []
    if kind in ("tile_icon", "tile") or (kind == "figure" and rng.random() < 0.4):
        info["under"] = draw_tile(
            patch.canvas, patch.view, rng, kind == "tile_icon", patch.new_id()
        )
    if kind == "clutter":
        info["under"] = draw_clutter(patch.canvas, patch.view, rng, patch.new_id())
    if kind == "trinket":
        if rng.random() < 0.25:
            info["under"] = draw_tile(patch.canvas, patch.view, rng, False, patch.new_id())
        offset = rng.normal(0, 0.12, 2) * DIE_MM
        extra.append(_trinket(patch, centre + offset))
        for _ in range(int(rng.choice([0, 1, 2], p=[0.5, 0.3, 0.2]))):
            extra.append(_trinket(patch, centre + rng.normal(0, 1.2, 2) * DIE_MM))
    if kind == "gem" and rng.random() < 0.35:  # the depot: many gems on dark stone
        info["under"] = draw_tile(patch.canvas, patch.view, rng, False, patch.new_id(), True)
        for _ in range(int(rng.integers(3, 11))):
            gems.append(_gem(patch, centre + rng.normal(0, 0.9, 2) * GEM_MM, 2.0))
    elif kind == "gem":
        if rng.random() < 0.4:
            info["under"] = draw_tile(patch.canvas, patch.view, rng, False, patch.new_id())
        for _ in range(int(rng.choice([1, 2, 3], p=[0.6, 0.25, 0.15]))):
            gems.append(_gem(patch, centre + rng.normal(0, 0.35, 2) * GEM_MM, 2.0))
    elif kind == "between":
        angle = rng.uniform(0, 2 * math.pi)
        half = DIE_MM * rng.uniform(0.68, 0.95) * np.array([math.cos(angle), math.sin(angle)])
        dice += [_add_die(patch, str(rng.choice(FACES)), centre + s * half, 0.0) for s in (-1, 1)]
    elif kind == "edge":
        angle = rng.uniform(0, 2 * math.pi)
        off = DIE_MM * rng.uniform(0.8, 1.3) * np.array([math.cos(angle), math.sin(angle)])
        dice.append(_add_die(patch, str(rng.choice(FACES)), centre + off, 0.0))
    elif kind == "figure":
        colour = str(rng.choice(list(PLAYER_COLOURS)))
        offset = rng.normal(0, 0.15, 2) * DIE_MM
        figure = Figure(
            colour, (0, 0), (float(centre[0] + offset[0]), float(centre[1] + offset[1]), 0.0)
        )
        obj = patch.new_id()

        def figure_drawn() -> None:
            draw_figure(patch.canvas, patch.view.camera, figure, FIGURE_MM, patch.light, obj)

        extra.append(figure_drawn)
    elif kind == "hand":
        hand = random_hand(rng, float(rng.uniform(10, 120)))
        local = np.array([rng.uniform(-20, 150), rng.uniform(-35, 35)]) * hand.scale
        heading = rng.uniform(0, 360)
        placed = place_hand(hand, local, centre + _parallax(patch, centre, hand.height), heading)

        def hand_drawn() -> None:
            _draw_hand(patch, placed)

        extra.append(hand_drawn)
    if kind not in ("between", "edge") and rng.random() < 0.3:
        dice += _neighbours(patch, centre, int(rng.integers(1, 3)), touch=0.0)

    def drawn() -> None:
        for obj, gem in gems:
            draw_gem(patch.canvas, patch.view.camera, gem, GEM_MM, obj)
        _draw_dice(patch, dice)
        for draw in extra:
            draw()

    _finish(patch, drawn)


def _crop(
    patch: _Patch, box: np.ndarray, imgsz: int, crop_scale: float, bgr: np.ndarray
) -> np.ndarray:
    """Cut the reader's crop around `box` from the finished patch, as the reader does."""
    window = crop_window(box, crop_scale)
    return crop_square(bgr, window, imgsz)


def _frame_edge(bgr: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Grey out the patch beyond a frame edge that passes near the centre (a die at the border)."""
    out = bgr.copy()
    size = out.shape[0]
    cut = int(size / 2 + rng.uniform(0.25, 0.7) * size / 3.4)
    side = int(rng.integers(4))
    if side == 0:
        out[:, cut:] = PAD_VALUE
    elif side == 1:
        out[cut:, :] = PAD_VALUE
    elif side == 2:
        out[:, : size - cut] = PAD_VALUE
    else:
        out[: size - cut, :] = PAD_VALUE
    return out


def _pick_kind(rng: np.random.Generator) -> str:
    """Draw what a crop shows."""
    names = list(KINDS)
    weights = np.array([KINDS[n] for n in names])
    return names[int(rng.choice(len(names), p=weights / weights.sum()))]


def render_crop(
    seed: int,
    index: int,
    look: Look,
    imgsz: int = 40,
    crop_scale: float = CROP_SCALE,
    kind: str | None = None,
) -> Crop:
    """Render crop `index` of `seed` (see the module docstring); `kind` forces what it shows."""
    rng = np.random.default_rng([seed, index])
    kind = kind or _pick_kind(rng)
    for _attempt in range(30):
        patch, info = _new_patch(rng, look)
        info["kind"] = kind
        if kind in ("die", "unknown"):
            truth, label = _die_scene(patch, info, kind == "unknown")
            box = jitter_box(truth, rng)
            info["iou"] = round(float(box_iou(box[None], truth[None])[0, 0]), 3)
        else:
            _negative_scene(patch, kind, info)
            box, label = _centre_box(patch), NOT_DIE
            dice = [b for b in (_box_of(patch, obj) for obj in patch.dice) if b is not None]
            info["iou"] = round(float(box_iou(box[None], np.array(dice)).max()), 3) if dice else 0.0
            if info["iou"] >= NEGATIVE_IOU:
                continue
        if rng.random() < 0.12:
            overcast(patch.canvas, rng)
            info["overcast"] = True
        bgr, effects = apply_crop_effects(patch.canvas.rgb, rng, LIGHTS[patch.light_family])
        info.update(effects)
        if rng.random() < 0.03:
            bgr = _frame_edge(bgr, rng)
            info["frame_edge"] = True
        crop = _crop(patch, box, imgsz, crop_scale, bgr)
        turns = int(rng.integers(4))
        image = np.ascontiguousarray(np.rot90(crop, turns))
        return Crop(image, label, info)
    raise RuntimeError(f"crop {seed}/{index}: no clear {kind} box in 30 tries")
