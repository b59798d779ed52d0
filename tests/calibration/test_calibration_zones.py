"""Player zones and depot: defaults from the view and the seats, explicit ones, clicked ones."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from board_scenes import SIZE, overhead_homography

from calibration.table import CalibrationError, TableCalibration
from calibration.zones import (
    default_layout,
    layout,
    outside_view,
    set_zones_from_image,
    view_polygon_mm,
    view_rect_mm,
)


@pytest.fixture
def calibration() -> TableCalibration:
    return TableCalibration(image_size=SIZE, table_to_image=overhead_homography().tolist())


def bounds(polygon) -> tuple[float, float, float, float]:
    points = np.asarray(polygon)
    return (*points.min(axis=0), *points.max(axis=0))


def overlap(a, b) -> float:
    area, _ = cv2.intersectConvexConvex(np.float32(a), np.float32(b))
    return area


def test_view_rectangle_lies_in_the_picture(calibration):
    x0, y0, x1, y1 = view_rect_mm(calibration)
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    px = calibration.table_to_image_px(corners)
    assert np.all(px >= -0.5) and np.all(px <= np.array(SIZE) + 0.5)
    # and it fills most of what the camera sees
    outline = view_polygon_mm(calibration).astype(np.float32)
    assert (x1 - x0) * (y1 - y0) > 0.7 * cv2.contourArea(outline)


def test_default_seats_put_each_player_along_their_side(calibration):
    players = ["red", "blue", "green", "yellow"]
    laid = default_layout(calibration, players)  # seats S, N, E, W
    x0, y0, x1, y1 = view_rect_mm(calibration)
    zones = {zone.player: bounds(zone.polygon_mm) for zone in laid.zones}
    assert [zone.player for zone in laid.zones] == players
    assert zones["red"][1] == pytest.approx(y0)  # south edge
    assert zones["blue"][3] == pytest.approx(y1)  # north edge
    assert zones["green"][2] == pytest.approx(x1)  # east edge
    assert zones["yellow"][0] == pytest.approx(x0)  # west edge
    polygons = [zone.polygon_mm for zone in laid.zones] + [laid.depot_mm]
    for i, a in enumerate(polygons):
        for b in polygons[i + 1 :]:
            assert overlap(a, b) < 1e-6
    assert outside_view(laid) == []
    for zone in laid.zones:
        centre = np.mean(zone.polygon_mm, axis=0)
        assert laid.zone_of(tuple(centre)) == zone.player
        assert not laid.in_depot(tuple(centre))
    depot_centre = tuple(np.mean(laid.depot_mm, axis=0))
    assert laid.in_depot(depot_centre) and laid.zone_of(depot_centre) is None


def test_players_on_one_side_share_its_edge(calibration):
    laid = default_layout(calibration, ["red", "blue", "green"], ["S", "S", "N"])
    red, blue = (bounds(zone.polygon_mm) for zone in laid.zones[:2])
    assert red[1] == blue[1] and red[3] == blue[3]  # same strip
    assert red[2] == pytest.approx(blue[0])  # red west of blue, touching
    assert red[2] - red[0] == pytest.approx(blue[2] - blue[0])


@pytest.mark.parametrize(
    ("players", "seats", "message"),
    [
        (["red", "blue"], ["S"], "one seat per player"),
        (["red"], ["X"], "N, E, S or W"),
        (["red team"], None, "letters, digits"),
    ],
)
def test_bad_seats_and_names_are_clear_errors(calibration, players, seats, message):
    with pytest.raises(CalibrationError, match=message):
        default_layout(calibration, players, seats)


def test_explicit_rectangles_replace_defaults(calibration):
    laid = layout(
        calibration,
        ["red", "blue"],
        zones_mm={"red": (-300.0, -200.0, -100.0, -120.0), "purple": (100, 100, 200, 180)},
        depot_mm=(300.0, 150.0, 400.0, 220.0),
    )
    assert [zone.player for zone in laid.zones] == ["red", "blue", "purple"]
    assert laid.zone_of((-200.0, -150.0)) == "red"
    assert laid.zone_of((150.0, 140.0)) == "purple"
    assert laid.in_depot((350.0, 200.0))
    assert layout(calibration, ["red"], depot_mm=None).depot_mm is None
    with pytest.raises(CalibrationError, match="x0 must be below x1"):
        layout(calibration, [], zones_mm={"red": (10.0, 0.0, 5.0, 50.0)})


def test_zones_clicked_on_the_picture_become_table_zones(calibration):
    red_px = [[100, 600], [500, 610], [480, 700], [90, 690]]
    depot_px = [[1100, 60], [1250, 60], [1250, 160], [1100, 160]]
    placed = set_zones_from_image(calibration, {"red": red_px}, depot_px)
    (zone,) = placed.zones
    assert zone.player == "red"
    assert placed.table_to_image_px(np.array(zone.polygon_mm)) == pytest.approx(
        np.array(red_px, float), abs=0.05
    )
    inside_px = np.array([[300.0, 650.0]])
    assert placed.zone_of(tuple(placed.image_to_table(inside_px)[0])) == "red"
    assert placed.in_depot(tuple(placed.image_to_table(np.array([[1175.0, 110.0]]))[0]))
    assert calibration.zones == []  # the original is left alone


@pytest.mark.parametrize(
    ("zones", "message"),
    [
        ({"red": [[0, 0], [10, 10]]}, "3 or more"),
        ({"red": [[0, 0], [5000, 0], [0, 100]]}, "1280x720 picture"),
        ({"red": [[0, 0], [10, 10], [20, 20]]}, "no area"),
        ({"red!": [[0, 0], [100, 0], [0, 100]]}, "letters, digits"),
    ],
)
def test_bad_clicked_zones_are_clear_errors(calibration, zones, message):
    with pytest.raises(CalibrationError, match=message):
        set_zones_from_image(calibration, zones)
