"""Is the camera's view good enough? A plain report from one frame and the calibration.

    report = check_view(frame, calibration, fps=9.8, camera="webcam HD Pro Webcam C920")
    report.verdict       # "good", "warn" or "bad"
    report.to_json()     # every check with its level, value and what to do

What it looks at: that the calibration belongs to this camera and resolution, that the play
area and every player's zone lie in the picture, how many pixels a die measures (the face
reader needs about 20 at least), focus and motion blur, glare, the light level and the frame
rate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import cv2
import numpy as np

from calibration.table import TableCalibration

Level = Literal["good", "warn", "bad"]
"""good: nothing to do; warn: it works, but worse; bad: fix it before playing."""

DIE_PX_BAD = 20.0
"""A die smaller than this (px across) is too small to read its face."""
DIE_PX_GOOD = 26.0
"""A die at least this big reads as well as the models were trained for."""
DETAIL_BAD = 0.17
"""Fine detail at the strongest edges, as a share of coarse detail: below this, blurred."""
DETAIL_GOOD = 0.28
"""...and at least this much is sharp."""
STREAK_RATIO = 0.7
"""One direction keeping less than this share of the other's fine detail: motion blur."""
GLARE_LEVEL = 250
"""A pixel this bright in every channel is blown out."""
DARK_BAD, DARK_WARN, BRIGHT_BAD = 35.0, 60.0, 215.0
"""Mean brightness (0-255) over the play area: too dark, dim, too bright."""
FPS_BAD, FPS_GOOD = 4.0, 9.0
"""Frames per second: too few to see a die come to rest; enough."""
RANK = {"good": 0, "warn": 1, "bad": 2}
REDO = (
    "calibrate again for this camera: lay the printed board on the table and press Calibrate "
    "the table (or run `templecam calibrate --camera ...`)"
)
"""How to redo a calibration, in every message that asks for it."""


@dataclass(frozen=True)
class ViewCheck:
    """One thing looked at, with its verdict and what to do."""

    name: str
    """What was checked: "calibration", "play area", "zones", "die size", "focus", ..."""
    level: Level
    message: str
    """A plain sentence: what was seen and, unless good, what to do."""
    value: float | None = None
    """The measure behind it (px, %, fps, ...), when there is one."""

    def to_json(self) -> dict[str, Any]:
        """Return the check as JSON (the value rounded)."""
        value = None if self.value is None else round(float(self.value), 2)
        return {"name": self.name, "level": self.level, "message": self.message, "value": value}


@dataclass(frozen=True)
class ViewReport:
    """Every check of one frame."""

    checks: tuple[ViewCheck, ...]
    width: int
    height: int

    @property
    def verdict(self) -> Level:
        """The worst level of any check."""
        return max((c.level for c in self.checks), key=RANK.__getitem__, default="good")

    @property
    def summary(self) -> str:
        """One sentence for the whole view."""
        if self.verdict == "good":
            return "The view is good enough: every check passed."
        worst = [c.name for c in self.checks if c.level == self.verdict]
        if self.verdict == "warn":
            return f"The view works, but could be better: {', '.join(worst)}."
        return f"Fix this before playing: {', '.join(worst)}."

    def check(self, name: str) -> ViewCheck:
        """Return the check called `name` (KeyError when it was not made)."""
        for item in self.checks:
            if item.name == name:
                return item
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        """Return the report as JSON."""
        return {
            "verdict": self.verdict,
            "summary": self.summary,
            "size": [self.width, self.height],
            "checks": [c.to_json() for c in self.checks],
        }


def check_view(
    frame: np.ndarray,
    calibration: TableCalibration | None,
    fps: float | None = None,
    *,
    camera: str | None = None,
) -> ViewReport:
    """Check one BGR frame against the calibration; `camera` names the source in use."""
    height, width = frame.shape[:2]
    checks: list[ViewCheck] = []
    fits = calibration is not None and tuple(calibration.image_size) == (width, height)
    checks.append(_calibration_check(calibration, width, height, camera))
    mask = None
    if fits:
        assert calibration is not None
        checks += _placement_checks(calibration, width, height)
        mask = _play_area_mask(calibration, width, height)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    checks.append(_focus_check(grey, mask))
    checks.append(_glare_check(frame, mask, calibration if fits else None))
    checks.append(_light_check(grey, mask))
    checks.append(_fps_check(fps))
    return ViewReport(tuple(checks), width, height)


# ----- the calibration and where things lie ----------------------------------------------------


def _calibration_check(
    calibration: TableCalibration | None, width: int, height: int, camera: str | None
) -> ViewCheck:
    if calibration is None:
        return ViewCheck(
            "calibration",
            "bad",
            "The table is not calibrated yet, so the zones and die size cannot be checked: "
            "lay the printed board on the table and press Calibrate the table "
            "(or run `templecam calibrate`).",
        )
    made_w, made_h = calibration.image_size
    made_for = f" ({calibration.camera})" if calibration.camera else ""
    if (made_w, made_h) != (width, height):
        return ViewCheck(
            "calibration",
            "bad",
            f"The calibration was made for {made_w}x{made_h} frames{made_for}, but this camera "
            f"gives {width}x{height}: {REDO}.",
        )
    if calibration.camera and camera and calibration.camera != camera:
        return ViewCheck(
            "calibration",
            "bad",
            f"The calibration was made for another camera ({calibration.camera}), not "
            f"{camera}: {REDO}.",
        )
    error = calibration.reprojection_px
    return ViewCheck(
        "calibration",
        "good",
        f"Calibrated for this camera at {width}x{height} (error {error:.1f} px).",
        error,
    )


def _image_polygon(calibration: TableCalibration, polygon_mm: list[list[float]]) -> np.ndarray:
    """Return a table polygon in image px, its edges densified (lens distortion bends them)."""
    points = np.asarray(polygon_mm, dtype=np.float64)
    dense = []
    for a, b in zip(points, np.roll(points, -1, axis=0), strict=True):
        for t in np.linspace(0.0, 1.0, 8, endpoint=False):
            dense.append(a + (b - a) * t)
    return calibration.table_to_image_px(np.asarray(dense)).astype(np.float32)


def _share_in_view(polygon_px: np.ndarray, width: int, height: int) -> tuple[float, list[str]]:
    """Return the share of a polygon's area inside the picture, and the edges it crosses."""
    area = abs(cv2.contourArea(polygon_px))
    if area <= 0:
        return 0.0, []
    frame = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    hull = cv2.convexHull(polygon_px)
    inside, _ = cv2.intersectConvexConvex(hull, frame)
    share = min(1.0, float(inside) / float(abs(cv2.contourArea(hull))))
    xs, ys = polygon_px[:, 0], polygon_px[:, 1]
    edges = [
        name
        for name, crossed in (
            ("left", xs.min() < 0),
            ("right", xs.max() > width),
            ("top", ys.min() < 0),
            ("bottom", ys.max() > height),
        )
        if crossed
    ]
    return share, edges


def _play_area_mm(calibration: TableCalibration) -> list[list[float]] | None:
    """The rectangle around every zone and the depot, in table mm (None without zones)."""
    points = [p for zone in calibration.zones for p in zone.polygon_mm]
    points += calibration.depot_mm or []
    if not points:
        return None
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return [[min(xs), min(ys)], [max(xs), min(ys)], [max(xs), max(ys)], [min(xs), max(ys)]]


def _placement_checks(calibration: TableCalibration, width: int, height: int) -> list[ViewCheck]:
    checks = []
    area = _play_area_mm(calibration)
    if area is None:
        checks.append(
            ViewCheck(
                "play area",
                "bad",
                f"The calibration has no player zones: {REDO}, naming the players and seats.",
            )
        )
    else:
        share, edges = _share_in_view(_image_polygon(calibration, area), width, height)
        if share >= 0.995:
            checks.append(
                ViewCheck("play area", "good", "The whole play area is in view.", share * 100)
            )
        else:
            checks.append(
                ViewCheck(
                    "play area",
                    "bad",
                    f"Only {share:.0%} of the play area is in view; it is cut off at the "
                    f"{' and '.join(edges) or 'edge'} of the picture: raise the camera or turn "
                    f"it toward the middle of the table, then {REDO}.",
                    share * 100,
                )
            )
    cut = []
    for zone in calibration.zones:
        share, edges = _share_in_view(_image_polygon(calibration, zone.polygon_mm), width, height)
        if share < 0.995:
            cut.append(f"{zone.player} ({share:.0%} in view, cut at the {' and '.join(edges)})")
    if calibration.zones:
        if cut:
            checks.append(
                ViewCheck(
                    "zones",
                    "bad",
                    f"Not every player's zone is in view: {'; '.join(cut)}. Move the camera so "
                    f"that every seat's edge of the table shows, then {REDO}.",
                    float(len(cut)),
                )
            )
        else:
            names = ", ".join(zone.player for zone in calibration.zones)
            checks.append(
                ViewCheck("zones", "good", f"Every player's zone is in view ({names}).", 0.0)
            )
    checks.append(_die_check(calibration, width, height))
    return checks


def _die_px(calibration: TableCalibration, centre_mm: np.ndarray) -> float:
    """Return how many px across a die lying at `centre_mm` measures."""
    return calibration.die_px_at(centre_mm)


def _die_check(calibration: TableCalibration, width: int, height: int) -> ViewCheck:
    places: list[tuple[str, np.ndarray]] = [
        (f"in {zone.player}'s zone", np.asarray(zone.polygon_mm, np.float64).mean(axis=0))
        for zone in calibration.zones
    ]
    if not places:
        centre = calibration.image_to_table(np.array([[width / 2, height / 2]]))[0]
        places = [("in the middle of the picture", centre)]
    sizes = [(_die_px(calibration, centre), where) for where, centre in places]
    smallest, where = min(sizes)
    text = f"A {calibration.die_mm:g} mm die measures {smallest:.0f} px {where} (the smallest)"
    if smallest < DIE_PX_BAD:
        return ViewCheck(
            "die size",
            "bad",
            f"{text}: too small to read (about {DIE_PX_BAD:.0f} px at least). Lower the camera, "
            "zoom in or choose a higher resolution, then calibrate again.",
            smallest,
        )
    if smallest < DIE_PX_GOOD:
        return ViewCheck(
            "die size",
            "warn",
            f"{text}: readable, but misreads are likelier below {DIE_PX_GOOD:.0f} px; a "
            "lower camera or a higher resolution helps.",
            smallest,
        )
    return ViewCheck("die size", "good", f"{text}: big enough to read.", smallest)


def _play_area_mask(calibration: TableCalibration, width: int, height: int) -> np.ndarray | None:
    area = _play_area_mm(calibration)
    if area is None:
        return None
    mask = np.zeros((height, width), np.uint8)
    cv2.fillPoly(mask, [np.round(_image_polygon(calibration, area)).astype(np.int32)], 255)
    return mask if mask.any() else None


# ----- the picture itself ----------------------------------------------------------------------


def _where(x: float, y: float, width: int, height: int) -> str:
    """Name a picture position: "top left", "middle", ..."""
    row = ("top", "middle", "bottom")[min(2, int(3 * y / height))]
    column = ("left", "middle", "right")[min(2, int(3 * x / width))]
    return "middle" if row == column == "middle" else f"{row} {column}"


def detail_ratio(grey: np.ndarray, mask: np.ndarray | None = None) -> tuple[float, float, int]:
    """Return fine detail as a share of coarse detail at the strongest edges, along x and y.

    Blur (out of focus) lowers both; motion blur lowers the one across the streaks. The third
    value is how many edge pixels it was measured on (few: the picture is too plain to tell).
    """
    image = grey.astype(np.float32)
    scores = []
    count = 0
    for axis in (1, 0):  # along x, then along y
        size = (7, 1) if axis == 1 else (1, 7)
        wide = (25, 1) if axis == 1 else (1, 25)
        fine = np.abs(image - cv2.GaussianBlur(image, size, 1.0))
        coarse = np.abs(image - cv2.GaussianBlur(image, wide, 4.0))
        if mask is not None:
            fine, coarse = fine[mask > 0], coarse[mask > 0]
        else:
            fine, coarse = fine.ravel(), coarse.ravel()
        if coarse.size == 0:
            return 0.0, 0.0, 0
        threshold = max(12.0, float(np.percentile(coarse, 98)))
        strong = coarse >= threshold
        count = max(count, int(strong.sum()))
        scores.append(float(fine[strong].mean() / coarse[strong].mean()) if strong.any() else 0.0)
    return scores[0], scores[1], count


def _focus_check(grey: np.ndarray, mask: np.ndarray | None) -> ViewCheck:
    along_x, along_y, edges = detail_ratio(grey, mask)
    if edges < 200:
        return ViewCheck(
            "focus",
            "warn",
            "The picture is too plain to judge the focus: check it again with the board, tiles "
            "or dice on the table.",
        )
    sharp, soft = max(along_x, along_y), min(along_x, along_y)
    if soft < DETAIL_GOOD and soft < STREAK_RATIO * sharp:
        across = "sideways" if along_x < along_y else "up and down"
        return ViewCheck(
            "focus",
            "bad" if soft < DETAIL_BAD else "warn",
            f"Motion blur: the picture is smeared {across} (camera shaking, or a long exposure "
            "in dim light). Fix the camera firmly and add light.",
            soft,
        )
    if soft < DETAIL_BAD:
        return ViewCheck(
            "focus",
            "bad",
            "The picture is out of focus: dice faces will not read. Turn the lens ring or tap "
            "the table on the phone's screen to focus, or move the camera to its focus range.",
            soft,
        )
    if soft < DETAIL_GOOD:
        return ViewCheck(
            "focus",
            "warn",
            "The picture is a little soft: focus the camera on the table if you can.",
            soft,
        )
    return ViewCheck("focus", "good", "Sharp: in focus and no motion blur.", soft)


def _glare_check(
    frame: np.ndarray, mask: np.ndarray | None, calibration: TableCalibration | None
) -> ViewCheck:
    bright = np.all(frame >= GLARE_LEVEL, axis=2) if frame.ndim == 3 else frame >= GLARE_LEVEL
    if mask is not None:
        bright &= mask > 0
        total = int((mask > 0).sum())
    else:
        total = bright.size
    share = float(bright.sum()) / max(1, total)
    count, _, stats, centres = cv2.connectedComponentsWithStats(bright.astype(np.uint8), 8)
    if count <= 1:
        return ViewCheck("glare", "good", "No glare.", 0.0)
    largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    blob = int(stats[largest, cv2.CC_STAT_AREA])
    die_area = 24.0**2
    if calibration is not None and calibration.zones:
        centre = np.asarray(calibration.zones[0].polygon_mm, np.float64).mean(axis=0)
        die_area = _die_px(calibration, centre) ** 2
    height, width = frame.shape[:2]
    where = _where(*centres[largest], width, height)
    if blob >= 0.5 * die_area or share > 0.01:
        return ViewCheck(
            "glare",
            "bad" if blob >= 2 * die_area or share > 0.03 else "warn",
            f"Glare: {share:.1%} of the play area is blown out white, the largest patch "
            f"({blob} px) at the {where}; a die under it cannot be read. Move the lamp, "
            "tilt the camera a little or dim a direct light.",
            share * 100,
        )
    return ViewCheck("glare", "good", "No glare worth speaking of.", share * 100)


def _light_check(grey: np.ndarray, mask: np.ndarray | None) -> ViewCheck:
    values = grey[mask > 0] if mask is not None else grey
    level = float(values.mean()) if values.size else 0.0
    if level < DARK_BAD:
        return ViewCheck(
            "light",
            "bad",
            f"Too dark (brightness {level:.0f} of 255): turn on a lamp over the table.",
            level,
        )
    if level < DARK_WARN:
        return ViewCheck(
            "light",
            "warn",
            f"Dim (brightness {level:.0f} of 255): more light gives sharper, less noisy pictures.",
            level,
        )
    if level > BRIGHT_BAD:
        return ViewCheck(
            "light",
            "bad",
            f"Too bright (brightness {level:.0f} of 255): the picture is washed out; dim the "
            "light or let the camera expose for the table.",
            level,
        )
    return ViewCheck("light", "good", f"Good light (brightness {level:.0f} of 255).", level)


def _fps_check(fps: float | None) -> ViewCheck:
    if fps is None or fps <= 0:
        return ViewCheck(
            "frame rate", "warn", "No frame rate measured yet: check again in a moment."
        )
    if fps < FPS_BAD:
        return ViewCheck(
            "frame rate",
            "bad",
            f"{fps:.1f} frames a second: too few to see when a die comes to rest. Choose a "
            "lower resolution, MJPEG, or a stronger Wi-Fi for a phone.",
            fps,
        )
    if fps < FPS_GOOD:
        return ViewCheck(
            "frame rate",
            "warn",
            f"{fps:.1f} frames a second: events will come late; 10 or more is better.",
            fps,
        )
    return ViewCheck("frame rate", "good", f"{fps:.1f} frames a second.", fps)
