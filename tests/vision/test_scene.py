"""The scene stage on a real rendered frame, fed its ground-truth boxes as saved detections."""

from __future__ import annotations

from collections import Counter
from typing import Any

import cv2
import numpy as np
import pytest
from scene_truth import calibration_of, grid_of, truth_detections

from calibration.enrollment import TileLibrary
from calibration.table import TableCalibration
from models.synth.frame import render_frame
from models.synth.settings import SynthSettings
from vision.perception.classes import DIE_CLASSES
from vision.perception.detections import Detections
from vision.stages.motion import MotionMask
from vision.stages.scene import SceneReader, SceneSettings, _box_meets_polygon
from vision.stages.seats import seat_strip_mm
from vision.stages.tile_reader import EnrolledTileReader


@pytest.fixture(scope="module")
def rendered() -> tuple[np.ndarray, dict[str, Any]]:
    """One full-size rendered table frame and its scene record."""
    frame = render_frame(SynthSettings(), seed=11, index=3)
    return frame.image, frame.scene


def test_dice_are_read_per_player_zone(rendered: tuple[np.ndarray, dict[str, Any]]) -> None:
    image, scene = rendered
    players = [z["colour"] for z in scene["zones"]]
    reader = SceneReader(calibration_of(scene), players, grid=grid_of(scene))
    obs = reader.observe(image, truth_detections(scene), seq=1, t=0.0)
    for zone in scene["zones"]:
        player = zone["colour"]
        dice = [d for d in scene["dice"] if d["zone"] == zone["index"] and d["label"]]
        seen = obs.dice[player]
        assert Counter(d.face for d in seen) == Counter(
            None if d["label"] == "die_unreadable" else d["label"] for d in dice
        )
    # A zone is busy where a hand lies over it, never for an unreadable die alone (the
    # stability stage waits for that die's vote instead): the busy zones are the hands' zones.
    hands = [h["box"] for h in scene["hands"] if h.get("label")]
    blocked = {
        z["colour"]
        for z in scene["zones"]
        if any(_box_meets_polygon(np.asarray(box), reader._zone_px[z["colour"]]) for box in hands)
    }
    assert obs.busy == blocked
    assert set(DIE_CLASSES) >= {d["label"] for d in scene["dice"] if d["label"]}


def test_gems_and_figures_land_in_their_cells(rendered: tuple[np.ndarray, dict[str, Any]]) -> None:
    image, scene = rendered
    players = [z["colour"] for z in scene["zones"]]
    reader = SceneReader(calibration_of(scene), players, grid=grid_of(scene))
    obs = reader.observe(image, truth_detections(scene), seq=1, t=0.0)
    items = scene["gems"]["items"]
    on_cells = Counter(tuple(g["cell"]) for g in items if g["where"] == "cell" and g["label"])
    assert dict(obs.gems) == dict(on_cells)
    assert obs.depot_gems == sum(1 for g in items if g["where"] == "depot" and g["label"])
    expected = {f["colour"]: tuple(f["cell"]) for f in scene["figures"] if f["label"]}
    assert expected and {c: obs.figures.get(c) for c in expected} == expected


@pytest.fixture(scope="module")
def temple_frame() -> tuple[np.ndarray, dict[str, Any]]:
    """A rendered frame with a ten-chamber temple."""
    frame = render_frame(SynthSettings(), seed=11, index=1)
    return frame.image, frame.scene


def test_enrolled_tiles_are_named_and_turned_and_anchor_the_grid(
    temple_frame: tuple[np.ndarray, dict[str, Any]],
) -> None:
    image, scene = temple_frame
    calibration = calibration_of(scene)
    players = [z["colour"] for z in scene["zones"]]
    reader = EnrolledTileReader(TileLibrary.default())
    scene_reader = SceneReader(calibration, players, tile_reader=reader)
    truth = {tuple(t["cell"]): (t["id"], t["stairs"]) for t in scene["tiles"] if t["label"]}
    assert len(truth) >= 8
    for seq in range(2 * len(truth) + 1):  # one read a frame: the start first, then each cell
        obs = scene_reader.observe(image, truth_detections(scene), seq=seq, t=seq * 0.1)
    assert scene_reader.grid is not None
    assert np.allclose(scene_reader.grid.origin_mm, grid_of(scene).origin_mm, atol=5.0)
    assert {c: (s.tile, s.stairs) for c, s in obs.tiles.items()} == truth


class CountingReader:
    """The real enrolled-tile reader, counting the cells it is asked to read."""

    def __init__(self) -> None:
        self.reader = EnrolledTileReader(TileLibrary.default())
        self.calls = 0

    def __call__(self, frame: np.ndarray, corners: Any) -> Any:
        self.calls += 1
        return self.reader(frame, corners)


def test_a_cell_is_read_once_until_its_picture_is_seen_afresh(
    temple_frame: tuple[np.ndarray, dict[str, Any]],
) -> None:
    image, scene = temple_frame
    players = [z["colour"] for z in scene["zones"]]
    reader = CountingReader()
    scene_reader = SceneReader(
        calibration_of(scene), players, tile_reader=reader, grid=grid_of(scene)
    )
    detections = truth_detections(scene)
    hidden = image.copy()
    hidden[:, :] = (90, 120, 150)  # a blank table: no tile can be read
    tiles = len(detections.with_classes(["tile"]))
    for seq in range(3 * tiles):
        obs = scene_reader.observe(hidden, detections, seq=seq, t=seq * 0.1, redetected=())
    assert all(seen.tile == "unknown" for seen in obs.tiles.values())
    calls = reader.calls
    assert calls <= 2 * tiles  # each cell tried once, not every frame
    for seq in range(3 * tiles, 4 * tiles):
        scene_reader.observe(hidden, detections, seq=seq, t=seq * 0.1, redetected=())
    assert reader.calls == calls  # nothing was seen afresh: nothing is read again
    cell = next(iter(obs.tiles))
    box = scene_reader.cell_box_px(cell)
    assert box is not None
    obs = scene_reader.observe(image, detections, seq=99, t=9.9, redetected=[box])
    assert reader.calls == calls + 1 and obs.tiles[cell].tile != "unknown"


@pytest.mark.parametrize("told_by", ["box", "pixels"])
def test_an_arm_from_a_seat_reaches_the_cell_under_its_hand(
    rendered: tuple[np.ndarray, dict[str, Any]], told_by: str
) -> None:
    """An arm is told by its motion box (corners) or by its moving pixels (farthest ends)."""
    image, scene = rendered
    calibration, grid = calibration_of(scene), grid_of(scene)
    players = [z["colour"] for z in scene["zones"]]
    # busy wherever the arm meets the zone, as before `near_dice` (tested on its own below)
    reader = SceneReader(calibration, players, grid=grid, settings=SceneSettings(near_dice=False))
    h, w = image.shape[:2]
    scale = 4
    start_px = calibration.table_to_image_px(np.array([grid.cell_centre((0, 0))]))[0]
    for zone in calibration.zones:
        seat_px = calibration.table_to_image_px(np.asarray(zone.polygon_mm)).mean(axis=0)
        if told_by == "box":
            (x0, y0), (x1, y1) = np.minimum(seat_px, start_px), np.maximum(seat_px, start_px)
            obs = reader.observe(image, truth_detections(scene), 1, 0.0, moving=[(x0, y0, x1, y1)])
        else:
            arm = np.zeros((h // scale, w // scale), np.uint8)
            ends = [tuple(int(v) for v in np.round(p / scale)) for p in (seat_px, start_px)]
            cv2.line(arm, ends[0], ends[1], 1, thickness=5)
            motion = MotionMask(arm.astype(bool), scale)
            obs = reader.observe(image, truth_detections(scene), 1, 0.0, motion=motion)
            assert zone.player in obs.busy
        assert obs.reach == {(0, 0): zone.player}
    still = reader.observe(image, truth_detections(scene), 2, 0.1)
    assert still.reach == {}


def _a_zone_with_dice(
    scene: dict[str, Any],
) -> tuple[TableCalibration, list[str], Detections, dict[str, Any], list[list[float]]]:
    """The rendered table's calibration, players and true detections, and a zone with dice in
    it with its dice's boxes (px)."""
    calibration = calibration_of(scene)
    players = [z["colour"] for z in scene["zones"]]
    zone = next(z for z in scene["zones"] if sum(d["zone"] == z["index"] for d in scene["dice"]))
    dice = [d["box"] for d in scene["dice"] if d["zone"] == zone["index"]]
    return calibration, players, truth_detections(scene), zone, dice


def test_motion_makes_a_zone_busy_only_near_its_dice(
    rendered: tuple[np.ndarray, dict[str, Any]],
) -> None:
    """An arm moving through a zone far from its dice leaves them readable; motion over a die,
    or where a die lay before a hand hid it, makes the zone busy."""
    image, scene = rendered
    calibration, players, detections, zone, dice = _a_zone_with_dice(scene)
    h, w = image.shape[:2]
    scale = 4
    polygon = calibration.table_to_image_px(np.asarray(calibration.zones[zone["index"]].polygon_mm))
    # the corner of the zone farthest from its dice
    centres = np.array([[(b[0] + b[2]) / 2, (b[1] + b[3]) / 2] for b in dice])
    corner = max(polygon, key=lambda p: np.linalg.norm(centres - p, axis=1).min())
    side = max(b[2] - b[0] for b in dice)
    assert np.linalg.norm(centres - corner, axis=1).min() > 4 * side  # room for the test

    def blob(at: np.ndarray) -> MotionMask:
        moved = np.zeros((h // scale, w // scale), np.uint8)
        cv2.circle(moved, tuple(int(v) for v in np.round(at / scale)), 3, 1, -1)
        return MotionMask(moved.astype(bool), scale)

    far, over_a_die = blob(corner), blob(centres[0])
    near = SceneReader(calibration, players)
    zonal = SceneReader(calibration, players, settings=SceneSettings(near_dice=False))
    assert zone["colour"] not in near.observe(image, detections, 1, 0.0, motion=far).busy
    assert zone["colour"] in zonal.observe(image, detections, 1, 0.0, motion=far).busy
    assert zone["colour"] in near.observe(image, detections, 2, 0.1, motion=over_a_die).busy
    # a hand hides the die (it is no longer found) while it moves: still busy where it lay
    hidden = detections[
        [i for i, b in enumerate(detections.xyxy) if not np.allclose(b, dice[0], atol=0.5)]
    ]
    assert zone["colour"] in near.observe(image, hidden, 3, 0.2, motion=over_a_die).busy


def test_motion_beside_dice_detected_afresh_leaves_them_in_plain_view(
    rendered: tuple[np.ndarray, dict[str, Any]],
) -> None:
    """Motion within a die's side of the dice makes the zone busy; when none of it lies over a
    die and the dice's pixels were all detected since they last changed, only beside them."""
    image, scene = rendered
    calibration, players, detections, zone, dice = _a_zone_with_dice(scene)
    h, w = image.shape[:2]
    scale = 4
    boxes = np.array(dice, float)
    dice_mask = np.zeros((h // scale, w // scale), bool)
    for x0, y0, x1, y1 in np.round(boxes / scale).astype(int):
        dice_mask[y0 : y1 + 1, x0 : x1 + 1] = True
    side = float((boxes[:, 2:] - boxes[:, :2]).max())
    grown = cv2.dilate(dice_mask.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    near = cv2.dilate(dice_mask.astype(np.uint8), np.ones((int(side / scale),) * 2, np.uint8))
    beside_only = near.astype(bool) & ~grown
    assert beside_only.any()
    none_unseen = np.zeros_like(dice_mask)
    colour = zone["colour"]

    def look(moved: np.ndarray, unseen: np.ndarray | None) -> tuple[bool, bool]:
        obs = SceneReader(calibration, players).observe(
            image, detections, 1, 0.0, motion=MotionMask(moved, scale), unseen=unseen
        )
        return colour in obs.busy, colour in obs.beside

    assert look(beside_only, none_unseen) == (True, True)
    assert look(beside_only, dice_mask) == (True, False)  # their detections are old
    assert look(beside_only, None) == (True, False)  # not known to be fresh
    assert look(beside_only | dice_mask, none_unseen) == (True, False)  # moving over a die


def _cell_quad(reader: SceneReader, cell: tuple[int, int]) -> np.ndarray:
    assert reader.grid is not None
    corners = reader.grid.cell_corners(cell, 0.0)
    return reader.calibration.table_to_image_px(corners).astype(np.float32)


def _swapped(image: np.ndarray, reader: SceneReader, a: Any, b: Any) -> np.ndarray:
    """The picture with the tiles of cells `a` and `b` changed places (each turned as it lay)."""
    out = image.copy()
    size = image.shape[1], image.shape[0]
    for src, dst in ((a, b), (b, a)):
        warp = cv2.getPerspectiveTransform(_cell_quad(reader, src), _cell_quad(reader, dst))
        moved = cv2.warpPerspective(image, warp, size)
        mask = np.zeros(image.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, _cell_quad(reader, dst).astype(np.int32), 255)
        out[mask > 0] = moved[mask > 0]
    return out


def test_chambers_the_rules_move_are_read_again_where_they_lie_now(
    temple_frame: tuple[np.ndarray, dict[str, Any]],
) -> None:
    image, scene = temple_frame
    players = [z["colour"] for z in scene["zones"]]
    scene_reader = SceneReader(
        calibration_of(scene), players, tile_reader=CountingReader(), grid=grid_of(scene)
    )
    truth = {tuple(t["cell"]): t["id"] for t in scene["tiles"] if t["label"]}
    detections = truth_detections(scene)
    seq = 0

    def look(picture: np.ndarray, frames: int) -> dict[Any, str]:
        nonlocal seq
        for _ in range(frames):
            seq += 1
            obs = scene_reader.observe(picture, detections, seq=seq, t=seq * 0.1)
        return {cell: seen.tile for cell, seen in obs.tiles.items()}

    scene_reader.follow(truth, (0, 0))
    assert look(image, 2 * len(truth)) == truth
    a, b = sorted(cell for cell in truth if truth[cell] != "start")[:2]
    # two chambers change places on the table (as the Mirage and the starting chamber): until
    # the rules say so, a chamber read surely is not read again
    table = _swapped(image, scene_reader, a, b)
    assert look(table, 4) == truth
    moved = {**truth, a: truth[b], b: truth[a]}
    scene_reader.follow(moved, (0, 0))
    assert look(table, 4) == moved
    # a chamber the rules took away (an illusion that vanished): the next laid there is read
    gone = {cell: tile for cell, tile in moved.items() if cell != a}
    scene_reader.follow(gone, (0, 0))
    table = _swapped(table, scene_reader, a, b)  # the tile laid in `a` now is the one first there
    assert look(table, 4)[a] == truth[a]


def test_the_grid_is_numbered_from_where_the_rules_put_the_start_chamber(
    temple_frame: tuple[np.ndarray, dict[str, Any]],
) -> None:
    image, scene = temple_frame
    players = [z["colour"] for z in scene["zones"]]
    scene_reader = SceneReader(
        calibration_of(scene), players, tile_reader=EnrolledTileReader(TileLibrary.default())
    )
    truth = {tuple(t["cell"]): t["id"] for t in scene["tiles"] if t["label"]}
    east = {(x + 1, y): tile for (x, y), tile in truth.items()}  # the engine's cells
    scene_reader.follow(east, (1, 0))
    for seq in range(2 * len(truth) + 1):
        obs = scene_reader.observe(image, truth_detections(scene), seq=seq, t=seq * 0.1)
    assert scene_reader.grid is not None
    assert scene_reader.grid.cell_of(grid_of(scene).cell_centre((0, 0))) == (1, 0)
    assert {cell: seen.tile for cell, seen in obs.tiles.items()} == east


def _zone_mask(polygon_px: np.ndarray, shape: tuple[int, int], scale: int) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(polygon_px / scale).astype(np.int32)], 1)
    return mask.astype(bool)


def test_a_zone_is_busy_where_pixels_moved_not_where_their_box_reaches(
    rendered: tuple[np.ndarray, dict[str, Any]],
) -> None:
    image, scene = rendered
    calibration = calibration_of(scene)
    players = [z["colour"] for z in scene["zones"]]
    reader = SceneReader(calibration, players, grid=grid_of(scene))
    h, w = image.shape[:2]
    scale = 4
    mover = calibration.zones[0]
    polygon = calibration.table_to_image_px(np.asarray(mover.polygon_mm))
    motion = MotionMask(_zone_mask(polygon, (h // scale, w // scale), scale), scale)
    whole = [(0, 0, w, h)]  # the box around that motion and an arm reaching from far away
    boxed = reader.observe(image, truth_detections(scene), 1, 0.0, moving=whole)
    assert boxed.busy == set(players)
    pixels = reader.observe(image, truth_detections(scene), 2, 0.1, moving=whole, motion=motion)
    assert pixels.busy == {mover.player}
    still = MotionMask(np.zeros_like(motion.mask), scale)
    calm = reader.observe(image, truth_detections(scene), 3, 0.2, moving=whole, motion=still)
    assert calm.busy == set()


def test_an_arm_across_a_seat_strip_is_out_and_a_fingertip_or_the_zone_is_not(
    rendered: tuple[np.ndarray, dict[str, Any]],
) -> None:
    image, scene = rendered
    calibration, grid = calibration_of(scene), grid_of(scene)
    players = [z["colour"] for z in scene["zones"]]
    reader = SceneReader(calibration, players, grid=grid)
    h, w = image.shape[:2]
    scale = 4
    for zone in calibration.zones:
        polygon_mm = np.asarray(zone.polygon_mm)
        strip_mm = seat_strip_mm(polygon_mm, grid.origin_mm)
        temple = np.asarray(grid.origin_mm)
        assert np.linalg.norm(strip_mm.mean(axis=0) - temple) > np.linalg.norm(
            polygon_mm.mean(axis=0) - temple
        )  # behind the zone, on the player's side
        seat, dice = calibration.table_to_image_px(
            np.array([strip_mm.mean(axis=0), polygon_mm.mean(axis=0)])
        )
        arm = np.zeros((h // scale, w // scale), np.uint8)
        ends = [tuple(int(v) for v in np.round(p / scale)) for p in (seat, dice)]
        cv2.line(arm, ends[0], ends[1], 1, thickness=20)  # an arm, 4-5 cm wide
        obs = reader.observe(image, truth_detections(scene), 1, 0.0, motion=MotionMask(arm > 0, 4))
        assert obs.arms_out == {zone.player}
        for k in range(11):  # a fingertip anywhere along the arm's way
            fingertip = np.zeros_like(arm)
            x, y = np.round(np.asarray(ends[0]) + (np.subtract(ends[1], ends[0]) * k / 10))
            cv2.circle(fingertip, (int(x), int(y)), 1, 1, -1)
            motion = MotionMask(fingertip > 0, 4)
            assert (
                reader.observe(image, truth_detections(scene), 2, 0.1, motion=motion).arms_out
                == set()
            )
        polygon_px = calibration.table_to_image_px(polygon_mm)
        in_zone = MotionMask(_zone_mask(polygon_px, (h // scale, w // scale), scale), scale)
        obs = reader.observe(image, truth_detections(scene), 3, 0.2, motion=in_zone)
        assert obs.arms_out == set() and zone.player in obs.busy
