"""How perception holds up at a real table: the same rendered games under one condition a row.

Each condition is a change of the camera or the room: a resolution, a camera height or tilt,
a warm lamp, a dim room, glare from a window, motion blur, a phone's heavy JPEG stream, clutter,
small round things, hands. The renderer (`models/synth/robustness.py`) draws the frames and
makes the scene changes (size, camera, clutter, hands); the changes of the picture itself are
the OpenCV functions here, applied to the finished frame. Every row is scored as
`templecam eval` scores a dataset (`vision.evaluate.score`): die faces read right, dice found,
false dice a frame, gems found.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import cv2
import numpy as np

from rules.vocabulary import FACES
from vision.evaluate import MAP_CONF, MATCH_IOU, Model, Truth, score
from vision.perception.classes import DETECTION_NAMES
from vision.perception.detections import Detections, box_iou

DEFAULT_SEED = 7331
"""The seed of the frames: never used to render training or validation data."""
DEFAULT_FRAMES = 12
"""Frames a condition, by default."""

ImageChange = Callable[[np.ndarray, Truth, np.random.Generator], np.ndarray]
"""A change of a finished frame: (BGR image, its truth, a generator) -> the new BGR image."""


# --- Changes of the picture ---------------------------------------------------------------------

_GAMMA = 2.2
"""The display gamma the frames are encoded with (near enough to sRGB for these changes)."""


def _to_linear(image: np.ndarray) -> np.ndarray:
    """Return a uint8 BGR image as float32 linear light in 0..1."""
    return (image.astype(np.float32) / 255.0) ** _GAMMA


def _to_uint8(linear: np.ndarray) -> np.ndarray:
    """Return linear light in 0..1 (clipped) as a gamma-encoded uint8 image."""
    return (np.clip(linear, 0.0, 1.0) ** (1 / _GAMMA) * 255.0 + 0.5).astype(np.uint8)


def _die_px(image: np.ndarray, truth: Truth) -> float:
    """Return the median die edge in px of a frame (from its truth, else 30 px at 1920 wide)."""
    sides = _die_sides(truth)
    return float(np.median(sides)) if sides else 30.0 * image.shape[1] / 1920


WARM_RGB = (1.53, 1.0, 0.524)
"""The colour of a 2700 K lamp (black-body fit, green 1)."""
WARM_BALANCE = 0.3
"""How much of the lamp's colour the camera's white balance takes out."""


def warm_lamp(image: np.ndarray, truth: Truth, rng: np.random.Generator) -> np.ndarray:
    """Light the table with a 2700 K bulb that the white balance mostly leaves orange."""
    r, g, b = (c ** (1 - WARM_BALANCE) for c in WARM_RGB)
    luma = 0.2126 * r + 0.7152 * g + 0.0722 * b
    gains = np.array([b, g, r], np.float32) / luma  # BGR, the same brightness
    return _to_uint8(_to_linear(image) * gains)


DIM_LIGHT = 0.15
"""Light reaching the sensor in the dim room, against the rendered room."""
DIM_GAIN = 4.0
"""The camera's gain that brings the picture back up (to 0.6 of the light)."""
DIM_NOISE = (0.0004, 0.003)
"""Sensor noise before the gain: shot noise (variance a unit of light) and read noise (std)."""


def dim_room(image: np.ndarray, truth: Truth, rng: np.random.Generator) -> np.ndarray:
    """Dim the room to about a sixth of the light: the camera's gain brings back noise."""
    light = _to_linear(image) * DIM_LIGHT
    shot, read = DIM_NOISE
    std = np.sqrt(shot * light + read * read)
    noise = rng.standard_normal(light.shape[:2], dtype=np.float32)[..., None]
    colour = rng.standard_normal(light.shape, dtype=np.float32) * 0.5
    return _to_uint8((light + std * (noise + colour)) * DIM_GAIN)


GLARE_SIZE = (0.2, 0.15)
"""A window's reflection: the bright patch's half-axes as shares of the frame's width, height."""
GLARE_PEAK = 0.7
"""The patch's added light at its centre (linear; 1 is white: bright parts saturate)."""
GLARE_VEIL = 0.03
"""Stray light over the whole frame, lifting the blacks."""


def window_glare(image: np.ndarray, truth: Truth, rng: np.random.Generator) -> np.ndarray:
    """Add a window's soft reflection where the table is glossy, and a veil of stray light."""
    h, w = image.shape[:2]
    small_w, small_h = 192, max(2, round(192 * h / w))
    ys, xs = np.mgrid[0:small_h, 0:small_w].astype(np.float32)
    cx, cy = rng.uniform(0.2, 0.8) * small_w, rng.uniform(0.2, 0.8) * small_h
    angle = math.radians(rng.uniform(-40, 40))
    dx, dy = xs - cx, ys - cy
    u = (dx * math.cos(angle) + dy * math.sin(angle)) / (GLARE_SIZE[0] * small_w)
    v = (-dx * math.sin(angle) + dy * math.cos(angle)) / (GLARE_SIZE[1] * small_h)
    # A flat-topped patch with soft edges, as a window's bright pane shows in a glossy table.
    patch = GLARE_PEAK / (1.0 + (u * u + v * v) ** 3)
    field_ = cv2.resize(patch.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    light = _to_linear(image)
    return _to_uint8(light * (1 - GLARE_VEIL) + GLARE_VEIL + field_[..., None] * (0.3 + light))


BLUR_PX = 7.0
"""Motion blur at 1920 px wide: a 7 px smear (under the 0.3 die at which a die is unreadable)."""


def motion_kernel(length: float, angle_deg: float) -> np.ndarray:
    """Return a normalised line kernel of `length` px at `angle_deg` (a straight smear)."""
    size = max(3, math.ceil(length) | 1)
    kernel = np.zeros((size, size), np.float32)
    c = size // 2
    dx = math.cos(math.radians(angle_deg)) * (length - 1) / 2
    dy = math.sin(math.radians(angle_deg)) * (length - 1) / 2
    cv2.line(
        kernel,
        (round((c - dx) * 16), round((c - dy) * 16)),
        (round((c + dx) * 16), round((c + dy) * 16)),
        1.0,
        1,
        cv2.LINE_AA,
        4,
    )
    return kernel / kernel.sum()


def motion_blur(image: np.ndarray, truth: Truth, rng: np.random.Generator) -> np.ndarray:
    """Smear the whole frame along one direction (the camera shakes, or the table is bumped)."""
    length = BLUR_PX * image.shape[1] / 1920
    return cv2.filter2D(image, -1, motion_kernel(length, float(rng.uniform(0, 180))))


MJPEG_QUALITY = 25
"""JPEG quality of a phone's MJPEG stream over a busy Wi-Fi."""


def mjpeg_stream(image: np.ndarray, truth: Truth, rng: np.random.Generator) -> np.ndarray:
    """Send the frame as a phone's MJPEG stream over Wi-Fi does: JPEG at quality 25."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, MJPEG_QUALITY])
    if not ok:
        raise RuntimeError("OpenCV could not encode the frame as JPEG")
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


SMALL_THINGS = (18, 30)
"""How many small things lie on the table in the `small things` row (fewest, most)."""
_BEAD_COLOURS = [(40, 200, 240), (40, 170, 60), (30, 30, 200), (190, 90, 30), (25, 25, 25)]
_BEAD_COLOURS += [(60, 215, 255), (140, 60, 160), (230, 230, 230)]
_COIN_COLOURS = [(60, 170, 215), (190, 190, 190), (70, 110, 180)]


def _draw_thing(
    layer: np.ndarray,
    alpha: np.ndarray,
    kind: str,
    centre: tuple[float, float],
    die: float,
    rng: np.random.Generator,
) -> None:
    """Draw one small thing (bead, coin, token or pencil) into a colour layer and its alpha."""
    x, y = centre
    shift = 4  # fixed-point bits for sub-pixel drawing
    s = 1 << shift

    def pt(px: float, py: float) -> tuple[int, int]:
        return round(px * s), round(py * s)

    if kind in ("bead", "coin"):
        radius = die * (rng.uniform(0.22, 0.4) if kind == "bead" else rng.uniform(0.5, 0.8))
        palette = _BEAD_COLOURS if kind == "bead" else _COIN_COLOURS
        colour = np.array(palette[int(rng.integers(len(palette)))], np.float64)
        colour *= rng.uniform(0.85, 1.1)
        cv2.circle(alpha, pt(x, y), round(radius * s), 1.0, -1, cv2.LINE_AA, shift)
        cv2.circle(layer, pt(x, y), round(radius * s), colour.tolist(), -1, cv2.LINE_AA, shift)
        if kind == "coin":
            rim = (colour * 0.7).tolist()
            cv2.circle(layer, pt(x, y), round(radius * 0.8 * s), rim, 1, cv2.LINE_AA, shift)
        glint = (x - radius * 0.35, y - radius * 0.35)
        light = np.minimum(colour * 0.4 + 170, 255).tolist()
        cv2.circle(layer, pt(*glint), round(radius * 0.3 * s), light, -1, cv2.LINE_AA, shift)
        return
    if kind == "token":
        side = die * rng.uniform(0.8, 1.2)
        size: tuple[float, float] = (side, side)
    else:  # a pencil
        size = (die * rng.uniform(5, 8), die * rng.uniform(0.3, 0.4))
    box = cv2.boxPoints(((x, y), size, float(rng.uniform(0, 180))))
    poly = [np.round(box * s).astype(np.int32)]
    colour = np.array(_BEAD_COLOURS[int(rng.integers(len(_BEAD_COLOURS)))], np.float64)
    cv2.fillPoly(alpha, poly, 1.0, cv2.LINE_AA, shift)
    cv2.fillPoly(layer, poly, colour.tolist(), cv2.LINE_AA, shift)
    if kind == "token":  # a printed mark, as game tokens have
        mark = (255 - colour).tolist()
        cv2.circle(layer, pt(x, y), round(size[0] * 0.25 * s), mark, -1, cv2.LINE_AA, shift)


def small_things(image: np.ndarray, truth: Truth, rng: np.random.Generator) -> np.ndarray:
    """Scatter beads, coins, tokens and pencils on the free table, near the dice, not on them."""
    h, w = image.shape[:2]
    die = _die_px(image, truth)
    taken = np.zeros((h, w), np.uint8)
    pad = die * 0.4
    for x0, y0, x1, y1 in truth.xyxy:
        cv2.rectangle(taken, (int(x0 - pad), int(y0 - pad)), (int(x1 + pad), int(y1 + pad)), 1, -1)
    layer = np.zeros((h, w, 3), np.float32)
    alpha = np.zeros((h, w), np.float32)
    dice = [i for i, name in enumerate(truth.names) if name in FACES]
    wanted = int(rng.integers(SMALL_THINGS[0], SMALL_THINGS[1] + 1))
    placed = 0
    for _ in range(wanted * 20):
        if placed == wanted:
            break
        kind = str(rng.choice(["bead", "bead", "coin", "token", "pencil"]))
        if dice and rng.random() < 0.6:  # most near a die
            x0, y0, x1, y1 = truth.xyxy[dice[int(rng.integers(len(dice)))]]
            x = rng.uniform(x0 - 2.5 * die, x1 + 2.5 * die)
            y = rng.uniform(y0 - 2.5 * die, y1 + 2.5 * die)
        else:
            x, y = rng.uniform(0, w), rng.uniform(0, h)
        reach = die * (4.2 if kind == "pencil" else 0.9)
        xa, ya = int(max(0, x - reach)), int(max(0, y - reach))
        xb, yb = int(min(w, x + reach + 1)), int(min(h, y + reach + 1))
        if xb <= xa or yb <= ya or taken[ya:yb, xa:xb].any():
            continue
        _draw_thing(layer, alpha, kind, (float(x), float(y)), die, rng)
        taken[ya:yb, xa:xb] = 1
        placed += 1
    sigma = max(0.5, 0.7 * w / 1920)
    alpha = cv2.GaussianBlur(alpha, (0, 0), sigma)
    layer = cv2.GaussianBlur(layer, (0, 0), sigma)
    # A soft shadow a little off each thing.
    offset = np.float32([[1, 0, die * 0.12], [0, 1, die * 0.15]])
    shadow = cv2.GaussianBlur(cv2.warpAffine(alpha, offset, (w, h)), (0, 0), die * 0.15)
    base = image.astype(np.float32) * (1 - 0.45 * shadow[..., None])
    colour = layer / np.maximum(alpha[..., None], 1e-3)
    out = base * (1 - alpha[..., None]) + colour * alpha[..., None]
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


# --- The conditions -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Condition:
    """One row of the table: what the renderer changes, then what changes in the picture."""

    name: str
    about: str
    size: float = 1.0
    """The frame's size against the base size (2/3: 1280x720 from 1920x1080)."""
    camera_height: float = 1.0
    """The camera's distance to the table against the rendered one (1.5: dice 2/3 as big)."""
    camera_tilt: float = 0.0
    """Degrees the camera is tilted more (it moves aside and still looks at the same spot)."""
    clutter: int = 0
    """This many more of the renderer's everyday things (cups, phones, books, bowls)."""
    trinkets: int = 0
    """At least this many more of the renderer's trinkets (beads, coins, tokens, crystals of
    other games, cards, pencils; a few loose gems among the dice come with them)."""
    hands: int = 0
    """At least this many hands over the table."""
    image: ImageChange | None = None
    """The change of the finished picture, if any."""


CONDITIONS: tuple[Condition, ...] = (
    Condition("1080p", "1920x1080, the renderer's usual light and camera (dice 27-33 px)"),
    Condition("720p", "1280x720: the same tables from a 720p webcam (dice 18-22 px)", size=2 / 3),
    Condition(
        "camera higher", "camera 1.5x higher over the table (dice 18-22 px)", camera_height=1.5
    ),
    Condition("camera lower", "camera at 0.7 of the height (dice 39-47 px)", camera_height=0.7),
    Condition(
        "tilted 15 deg",
        "camera tilted 15 degrees more, looking at the same spot: some perspective",
        camera_tilt=15.0,
    ),
    Condition(
        "tilted 30 deg",
        "camera tilted 30 degrees more (a shelf at the table's edge): perspective, die sides show",
        camera_tilt=30.0,
    ),
    Condition(
        "warm lamp",
        "a 2700 K bulb, white balance takes out only 30 % of its orange",
        image=warm_lamp,
    ),
    Condition(
        "dim room", "a sixth of the light, the camera's gain brings back noise", image=dim_room
    ),
    Condition(
        "window glare", "a window's bright reflection on the table, stray light", image=window_glare
    ),
    Condition("motion blur", "the whole frame smeared 7 px (at 1080p) one way", image=motion_blur),
    Condition(
        "phone MJPEG", "a phone's MJPEG stream over Wi-Fi: JPEG at quality 25", image=mjpeg_stream
    ),
    Condition(
        "clutter",
        "6 more of the renderer's cups, phones, books, bowls and 20 more of its trinkets "
        "(beads, coins, tokens, crystals, cards, pencils), next to dice",
        clutter=6,
        trinkets=20,
    ),
    Condition(
        "small things",
        "18-30 beads, coins, printed tokens and pencils near the dice, drawn flat on the "
        "picture (no renderer of training draws them so)",
        image=small_things,
    ),
    Condition("hands", "at least 2 hands and arms over the table", hands=2),
)
"""Every condition of `templecam bench robustness`, the base first."""


def find_conditions(names: Sequence[str]) -> tuple[Condition, ...]:
    """Return the conditions named (all when none); ValueError names an unknown one."""
    if not names:
        return CONDITIONS
    by_name = {c.name: c for c in CONDITIONS}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise ValueError(f"no condition {unknown[0]!r}; the conditions are: {', '.join(by_name)}")
    return tuple(by_name[n] for n in names)


# --- Scoring ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConditionResult:
    """What one condition measured."""

    name: str
    about: str
    frames: int
    width: int
    height: int
    dice: int
    """Dice of a readable face in the truth."""
    die_faces: float | None
    """Share of those dice found by exactly one detection, of the right face (as `eval`)."""
    dice_found: float | None
    """Share of those dice found by any face detection (IoU >= 0.5)."""
    false_dice_per_frame: float | None
    """Face detections on no readable die, a frame (as `eval`)."""
    gems: int
    gems_found: float | None
    """Share of the labelled gems found (recall at the confidence)."""
    die_px: float | None
    """The median edge of a readable die in px (the renderer's, else the box side)."""
    seconds: float
    scale: float | None = None
    """The localiser's input scale on these frames, where it tells."""


@dataclass(frozen=True)
class RobustnessResult:
    """Every condition's figures and the worst."""

    seed: int
    frames: int
    conf: float
    model: dict[str, Any]
    conditions: tuple[ConditionResult, ...]
    worst: str | None = None
    """The condition with the fewest die faces read right."""
    most_false: str | None = None
    """The condition with the most false dice a frame."""
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        """Return the figures as a JSON object (floats rounded to 4 digits)."""
        data = asdict(self)
        for row in data["conditions"]:
            for key, value in row.items():
                if isinstance(value, float):
                    row[key] = round(value, 4)
        return data


def _die_sides(truth: Truth) -> list[float]:
    """Return the edge in px of each readable die (the scene's `size_px`, else its box side)."""
    dice = (truth.scene or {}).get("dice") or []
    sides = [float(d["size_px"]) for d in dice if d.get("label") in FACES and d.get("size_px")]
    if sides:
        return sides
    return [
        float(max(b[2] - b[0], b[3] - b[1]))
        for b, n in zip(truth.xyxy, truth.names, strict=True)
        if n in FACES
    ]


def _dice_found(preds: Sequence[Detections], truths: Sequence[Truth], conf: float) -> float | None:
    """Return the share of readable dice that any face detection at `conf` overlaps at IoU 0.5."""
    dice = found = 0
    for pred, truth in zip(preds, truths, strict=True):
        boxes = truth.xyxy[[n in FACES for n in truth.names]]
        faces = pred.above(conf).with_classes(FACES)
        dice += len(boxes)
        if len(boxes) and len(faces):
            found += int((box_iou(faces.xyxy, boxes).max(axis=0) >= MATCH_IOU).sum())
    return found / dice if dice else None


def score_condition(
    condition: Condition,
    images: Sequence[np.ndarray],
    preds: Sequence[Detections],
    truths: Sequence[Truth],
    conf: float,
    seconds: float = 0.0,
) -> ConditionResult:
    """Score one condition's detections against its truth, as `templecam eval` does."""
    result = score(preds, truths, DETECTION_NAMES, conf)
    gems = next((c for c in result.classes if c.name == "gem"), None)
    sides = [side for t in truths for side in _die_sides(t)]
    h, w = images[0].shape[:2] if images else (0, 0)
    return ConditionResult(
        name=condition.name,
        about=condition.about,
        frames=len(truths),
        width=w,
        height=h,
        dice=sum(n in FACES for t in truths for n in t.names),
        die_faces=result.die_face_accuracy,
        dice_found=_dice_found(preds, truths, conf),
        false_dice_per_frame=result.die_false_positives_per_image,
        gems=gems.instances if gems else 0,
        gems_found=gems.recall if gems else None,
        die_px=float(np.median(sides)) if sides else None,
        seconds=seconds,
    )


Render = Callable[[Condition, int], tuple[np.ndarray, Truth]]
"""Renders frame `index` of a condition: (BGR image, its truth)."""
Fit = Callable[[Condition, Sequence[np.ndarray]], Model]
"""Returns the model to run on a condition's frames, given them (as a camera's first frames
set the localiser's scale)."""
Progress = Callable[[Condition, int, int, ConditionResult | None], None]
"""Told (condition, frames done, frames, its result once done)."""


def run_robustness(
    model: Model,
    render: Render,
    conditions: Sequence[Condition] = CONDITIONS,
    frames: int = DEFAULT_FRAMES,
    conf: float = 0.25,
    seed: int = DEFAULT_SEED,
    model_info: dict[str, Any] | None = None,
    progress: Progress | None = None,
    fit: Fit | None = None,
) -> RobustnessResult:
    """Render `frames` frames a condition, run the model on each and score every condition.

    With `fit`, each condition runs the model `fit` returns for its frames (the localiser at
    the scale its dice ask for, as `templecam eval` fits it to a dataset's first images).
    """
    if frames < 1:
        raise ValueError("frames must be at least 1")
    rows = []
    for condition in conditions:
        start = time.perf_counter()
        rendered = [render(condition, index) for index in range(frames)]
        images = [image for image, _ in rendered]
        truths = [truth for _, truth in rendered]
        runner = fit(condition, images) if fit is not None else model
        preds = []
        for index, image in enumerate(images):
            preds.append(runner.detect(image, conf=min(conf, MAP_CONF)))
            if progress is not None:
                progress(condition, index + 1, frames, None)
        row = score_condition(condition, images, preds, truths, conf, time.perf_counter() - start)
        scale = getattr(runner, "scale", None)
        row = dataclasses.replace(row, scale=float(scale) if scale is not None else None)
        rows.append(row)
        if progress is not None:
            progress(condition, frames, frames, row)
    rated = [r for r in rows if r.die_faces is not None]
    worst = min(rated, key=lambda r: r.die_faces or 0.0).name if rated else None
    falsy = [r for r in rows if r.false_dice_per_frame is not None]
    most_false = max(falsy, key=lambda r: r.false_dice_per_frame or 0.0).name if falsy else None
    notes = []
    if any(r.dice == 0 for r in rows):
        notes.append("a condition had no readable die in its frames: its die figures are '-'")
    return RobustnessResult(
        seed, frames, conf, dict(model_info or {}), tuple(rows), worst, most_false, tuple(notes)
    )


# --- The table ----------------------------------------------------------------------------------


def _fmt(value: float | None, digits: int = 3) -> str:
    """Format a figure, or '-' where the frames cannot tell."""
    return "-" if value is None else f"{value:.{digits}f}"


TABLE_HEADER = (
    "condition",
    "frame",
    "die px",
    "scale",
    "dice",
    "die faces",
    "dice found",
    "false dice / frame",
    "gems found",
)
"""The table's columns."""


def table_rows(result: RobustnessResult) -> list[list[str]]:
    """Return the table's cells, a row a condition; the worst row's name says so."""
    rows = []
    for r in result.conditions:
        name = f"**{r.name}** (worst)" if r.name == result.worst else r.name
        rows.append(
            [
                name,
                f"{r.width}x{r.height}",
                _fmt(r.die_px, 0),
                _fmt(r.scale, 2),
                str(r.dice),
                _fmt(r.die_faces),
                _fmt(r.dice_found),
                _fmt(r.false_dice_per_frame, 2),
                _fmt(r.gems_found),
            ]
        )
    return rows


def format_table(result: RobustnessResult, markdown: bool = False) -> str:
    """Return the table as aligned text, or as a Markdown table."""
    rows = table_rows(result)
    if markdown:
        lines = ["| " + " | ".join(TABLE_HEADER) + " |", "|" + "---|" * len(TABLE_HEADER)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    plain = [[c.replace("**", "") for c in row] for row in rows]
    widths = [
        max(len(row[i]) for row in [list(TABLE_HEADER), *plain]) for i in range(len(TABLE_HEADER))
    ]
    out = []
    for row in [list(TABLE_HEADER), *plain]:
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        out.append("  ".join(cells).rstrip())
    return "\n".join(out)
