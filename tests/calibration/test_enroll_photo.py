"""Enrolling a tile from a photo: finding it, cutting it out, turning it, then recognising it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from tile_scenes import cell_picture, photo_of_tile, table_patch

from art.tiles import tile_texture
from calibration.enrollment import TileLibrary, canonical
from calibration.table import TableCalibration
from calibration.tile_match import identify, stairs_for
from calibration.tile_photo import (
    TilePhotoError,
    find_tile,
    order_corners,
    tile_picture,
    to_own_frame,
)
from rules.catalog import parse_tile
from rules.temple import quarter_turns_for

SLANTED = [(300, 150), (640, 180), (660, 560), (280, 520)]
TURNED = [(480, 100), (760, 360), (500, 640), (220, 370)]
SMALL = [(350, 200), (560, 210), (600, 430), (330, 420)]


@pytest.fixture(scope="module")
def library() -> TileLibrary:
    return TileLibrary.default()


def _stranger() -> np.ndarray:
    """Art of a tile that is not in the packaged catalog (a module tile, say)."""
    tile = parse_tile("crypt", {"doors": ["E"], "enter": ["torch", "torch"]})
    return canonical(cv2.cvtColor(tile_texture(tile, 256), cv2.COLOR_RGB2BGR))


def _lying(art: np.ndarray, stairs: str) -> np.ndarray:
    """Turn own-frame art clockwise so that its stairway faces `stairs`."""
    return np.ascontiguousarray(np.rot90(art, k=-quarter_turns_for(stairs)))


def test_corners_are_ordered_clockwise_from_the_top_left():
    shuffled = np.array([SLANTED[2], SLANTED[0], SLANTED[3], SLANTED[1]], np.float32)
    assert np.array_equal(order_corners(shuffled), np.array(SLANTED, np.float32))


@pytest.mark.parametrize("corners", [SLANTED, TURNED, SMALL], ids=["slanted", "turned", "small"])
@pytest.mark.parametrize("seed", range(5))
def test_the_tile_is_found_on_many_tables(library, corners, seed):
    photo = photo_of_tile(library.tile("gem1-key-2").appearance.image, corners, seed=seed)
    found = find_tile(photo)
    assert found is not None
    assert np.abs(found - np.array(corners, np.float32)).max() < 5


@pytest.mark.parametrize("seed", range(4))
def test_no_tile_on_an_empty_table(seed):
    empty = table_patch(seed, 600)
    assert find_tile(empty) is None
    with pytest.raises(TilePhotoError, match=r"no tile found.*--whole"):
        tile_picture(empty)


@pytest.mark.parametrize("stairs", ["N", "E", "S", "W"])
def test_a_photographed_tile_is_turned_into_its_own_frame(library, stairs):
    art = library.tile("chamber-5").appearance.image
    photo = photo_of_tile(_lying(art, stairs), SLANTED, seed=2)
    own = to_own_frame(tile_picture(photo), stairs)
    match = identify(library, own, tile_px=own.shape[0])
    assert match is not None and (match.tile, match.stairs) == ("chamber-5", "S")


def test_enrolling_a_new_tile_from_a_photo_makes_it_recognised(library):
    art = _stranger()
    photo = photo_of_tile(_lying(art, "E"), TURNED, seed=4)
    mine = TileLibrary(list(library), library.back)
    mine.enroll_image("crypt", to_own_frame(tile_picture(photo), "E"), new=True)
    for turns in range(4):
        cell = cell_picture(art, 90 * turns - 2, seed=turns, tile_px=200)
        match = identify(mine, cell, tile_px=200)
        assert match is not None and (match.tile, match.stairs) == ("crypt", stairs_for(turns))


def test_a_scan_is_taken_whole(library):
    art = library.tile("exit").appearance.image
    scan = cv2.resize(_lying(art, "N"), (700, 700), interpolation=cv2.INTER_CUBIC)
    own = to_own_frame(tile_picture(scan, whole=True), "N")
    match = identify(library, own, tile_px=own.shape[0])
    assert match is not None and (match.tile, match.stairs) == ("exit", "S")


def _camera() -> TableCalibration:
    """A camera looking at the table at a slant: table mm (x east, y north) -> image px."""
    table = np.array([[-300, 200], [300, 200], [300, -200], [-300, -200]], np.float32)
    image = np.array([[190, 90], [770, 90], [900, 650], [60, 650]], np.float32)
    matrix = cv2.getPerspectiveTransform(table, image)
    return TableCalibration(image_size=(960, 720), table_to_image=matrix.tolist())


def test_a_frame_from_the_calibrated_camera_gives_table_north_up(library):
    calibration = _camera()
    centre = np.array([40.0, -30.0])
    square = np.array([[-50, 50], [50, 50], [50, -50], [-50, -50]]) + centre  # NW NE SE SW
    corners = calibration.table_to_image_px(square)
    art = library.tile("gem3-torch-2").appearance.image
    frame = photo_of_tile(_lying(art, "W"), [tuple(p) for p in corners], seed=1)
    north_up = tile_picture(frame, calibration=calibration)
    match = identify(library, north_up, tile_px=north_up.shape[0])
    assert match is not None and (match.tile, match.stairs) == ("gem3-torch-2", "W")
