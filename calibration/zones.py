"""Player zones and the gem depot: defaults from the camera's view and seats, or set by hand."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import cv2
import numpy as np
from pydantic import ValidationError

from calibration.geometry import largest_rect_inside
from calibration.table import CalibrationError, PlayerZone, TableCalibration

SIDES = ("S", "N", "E", "W")
"""Table sides in the order default seats fill them."""
ZONE_DEPTH = 0.22
"""A zone reaches this share of the view's shorter side in from its edge."""

Rect = tuple[float, float, float, float]
"""(x0, y0, x1, y1) in table mm, x0 < x1 and y0 < y1."""


def rectangle(rect: Rect) -> list[list[float]]:
    """Return an axis-aligned rectangle as a polygon (counter-clockwise from south-west)."""
    x0, y0, x1, y1 = (float(v) for v in rect)
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


def view_polygon_mm(calibration: TableCalibration, per_edge: int = 16) -> np.ndarray:
    """Return the outline (N, 2) in table mm of what the camera sees, lens included."""
    width, height = calibration.image_size
    steps = np.linspace(0.0, 1.0, per_edge, endpoint=False)
    border = np.concatenate(
        [
            np.column_stack([steps * width, np.zeros_like(steps)]),
            np.column_stack([np.full_like(steps, width), steps * height]),
            np.column_stack([width - steps * width, np.full_like(steps, height)]),
            np.column_stack([np.zeros_like(steps), height - steps * height]),
        ]
    )
    return calibration.image_to_table(border)


def view_rect_mm(calibration: TableCalibration) -> Rect:
    """Return a large axis-aligned table rectangle in mm that lies wholly in the camera's view."""
    width, height = calibration.image_size
    centre = calibration.image_to_table(np.array([[width / 2, height / 2]]))[0]
    return largest_rect_inside(view_polygon_mm(calibration), centre, steps=18)


def default_seats(count: int) -> list[str]:
    """Return the seats of `count` players: S, N, E, W, S, N, ..."""
    return [SIDES[i % len(SIDES)] for i in range(count)]


def _side_strips(view: Rect, depth: float) -> dict[str, Rect]:
    """Return each side's strip along the view's edge, the corner squares left out."""
    x0, y0, x1, y1 = view
    return {
        "S": (x0 + depth, y0, x1 - depth, y0 + depth),
        "N": (x0 + depth, y1 - depth, x1 - depth, y1),
        "W": (x0, y0 + depth, x0 + depth, y1 - depth),
        "E": (x1 - depth, y0 + depth, x1, y1 - depth),
    }


def default_layout(
    calibration: TableCalibration, players: Sequence[str], seats: Sequence[str] | None = None
) -> TableCalibration:
    """Return the calibration with default zones and depot, from the view and the seats.

    Each player gets a rectangle along their side of the view (players on one side share its
    edge, west to east or south to north, in the order given); the depot is the view's
    north-east corner square, which no zone covers.
    """
    seats = list(seats) if seats is not None else default_seats(len(players))
    if len(seats) != len(players):
        raise CalibrationError(
            f"{len(players)} players but {len(seats)} seats: give one seat per player"
        )
    bad = [s for s in seats if s not in SIDES]
    if bad:
        raise CalibrationError(f"seat {bad[0]!r} is not a table side: use N, E, S or W")
    view = view_rect_mm(calibration)
    depth = ZONE_DEPTH * min(view[2] - view[0], view[3] - view[1])
    strips = _side_strips(view, depth)
    zones: list[PlayerZone] = []
    for side in SIDES:
        sharing = [p for p, s in zip(players, seats, strict=True) if s == side]
        x0, y0, x1, y1 = strips[side]
        for i, player in enumerate(sharing):
            if side in "SN":
                step = (x1 - x0) / len(sharing)
                part = (x0 + i * step, y0, x0 + (i + 1) * step, y1)
            else:
                step = (y1 - y0) / len(sharing)
                part = (x0, y0 + i * step, x1, y0 + (i + 1) * step)
            zones.append(make_zone(player, rectangle(part)))
    order = {p: i for i, p in enumerate(players)}
    zones.sort(key=lambda z: order[z.player])
    depot = rectangle((view[2] - depth, view[3] - depth, view[2], view[3]))
    return calibration.model_copy(update={"zones": zones, "depot_mm": depot})


def make_zone(player: str, polygon_mm: list[list[float]]) -> PlayerZone:
    """Return a checked player zone; a bad player name is a CalibrationError."""
    try:
        return PlayerZone(player=player, polygon_mm=polygon_mm)
    except ValidationError:
        raise CalibrationError(
            f"player name {player!r} is not usable: use letters, digits, '-' and '_'"
        ) from None


def layout(
    calibration: TableCalibration,
    players: Sequence[str],
    seats: Sequence[str] | None = None,
    zones_mm: Mapping[str, Rect] | None = None,
    depot_mm: Rect | Literal["default"] | None = "default",
) -> TableCalibration:
    """Return the calibration with default zones, then the rectangles given replacing them.

    A player named only in `zones_mm` is added; `depot_mm` None means no depot.
    """
    laid = default_layout(calibration, players, seats)
    zones = {zone.player: zone for zone in laid.zones}
    for player, rect in (zones_mm or {}).items():
        zones[player] = make_zone(player, _checked_rectangle(rect, f"zone {player}"))
    depot = laid.depot_mm
    if depot_mm != "default":
        depot = None if depot_mm is None else _checked_rectangle(depot_mm, "depot")
    return laid.model_copy(update={"zones": list(zones.values()), "depot_mm": depot})


def _checked_rectangle(rect: Rect, what: str) -> list[list[float]]:
    """Return a rectangle's polygon after checking its corners are in order."""
    x0, y0, x1, y1 = rect
    if not (x0 < x1 and y0 < y1):
        raise CalibrationError(f"{what}: x0 must be below x1 and y0 below y1")
    return rectangle(rect)


def outside_view(calibration: TableCalibration) -> list[str]:
    """Name the zones ("zone red") and the depot ("depot") that reach outside the view."""
    outline = view_polygon_mm(calibration).astype(np.float32)
    shapes = [(f"zone {zone.player}", zone.polygon_mm) for zone in calibration.zones]
    if calibration.depot_mm is not None:
        shapes.append(("depot", calibration.depot_mm))
    return [
        name
        for name, polygon in shapes
        if any(cv2.pointPolygonTest(outline, (float(x), float(y)), False) < 0 for x, y in polygon)
    ]


def _polygon_mm(
    calibration: TableCalibration, polygon_px: Sequence[Sequence[float]], what: str
) -> list[list[float]]:
    """Check a polygon clicked on the camera picture and map it to table mm."""
    points = np.asarray(polygon_px, dtype=np.float64)
    if points.ndim != 2 or points.shape[1] != 2 or len(points) < 3:
        raise CalibrationError(f"{what}: give 3 or more (x, y) picture points")
    width, height = calibration.image_size
    if (
        not np.all(np.isfinite(points))
        or np.any(points < -1)
        or np.any(points > np.array([width + 1, height + 1]))
    ):
        raise CalibrationError(f"{what}: points must lie in the {width}x{height} picture")
    mm = calibration.image_to_table(points)
    if abs(cv2.contourArea(mm.astype(np.float32))) < 1.0:
        raise CalibrationError(f"{what}: the points enclose no area")
    return mm.round(2).tolist()


def set_zones_from_image(
    calibration: TableCalibration,
    zones_px: Mapping[str, Sequence[Sequence[float]]],
    depot_px: Sequence[Sequence[float]] | None = None,
) -> TableCalibration:
    """Return the calibration with zones (and depot) clicked on the camera picture, in px.

    The given zones replace all earlier ones; `depot_px` None keeps the depot as it is.
    """
    zones = [make_zone(p, _polygon_mm(calibration, px, f"zone {p}")) for p, px in zones_px.items()]
    update: dict[str, object] = {"zones": zones}
    if depot_px is not None:
        update["depot_mm"] = _polygon_mm(calibration, depot_px, "depot")
    return calibration.model_copy(update=update)
