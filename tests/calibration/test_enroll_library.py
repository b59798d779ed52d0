"""The enrolled-tile library: packaged defaults, changes, files on disk and their errors."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from tile_scenes import cell_picture

from base.paths import data_dir
from calibration.enrollment import (
    BACK,
    LIBRARY_FILE,
    EnrollmentError,
    TileLibrary,
    tiles_dir,
)
from calibration.tile_features import CANONICAL_PX
from calibration.tile_match import identify
from rules.catalog import basic_catalog, parse_tile
from rules.every_tile import every_tile
from rules.game_setup import parse_setup


def _photo(seed: int) -> np.ndarray:
    """A tile-sized picture with structure (blocks of colour), as a user's photo would be."""
    rng = np.random.default_rng(seed)
    image = np.zeros((300, 300, 3), np.uint8)
    for _ in range(40):
        x, y = rng.integers(0, 280, 2)
        w, h = rng.integers(10, 90, 2)
        cv2.rectangle(
            image, (int(x), int(y)), (int(x + w), int(y + h)), rng.integers(0, 255, 3).tolist(), -1
        )
    return image


def test_the_default_library_is_every_packaged_tile_with_the_renderers_art():
    library = TileLibrary.default()
    assert library.ids() == list(every_tile())
    assert library.ids()[: len(basic_catalog())] == list(basic_catalog())
    assert all(t.definition == every_tile()[t.tile_id] for t in library)
    pictures = [t.appearance.image for t in library]
    assert all(p.shape == (CANONICAL_PX, CANONICAL_PX, 3) and p.dtype == np.uint8 for p in pictures)
    assert library.back is not None and not library.back.photo
    assert library.changed() == [] and library.catalog_overrides() == {}


def test_nothing_enrolled_yet_loads_the_default_from_the_data_folder():
    assert tiles_dir() == data_dir() / "tiles"
    assert not (tiles_dir() / LIBRARY_FILE).exists()
    assert TileLibrary.load().ids() == TileLibrary.default().ids()


def test_save_and_load_round_trip(tmp_path):
    library = TileLibrary.default()
    edited = parse_tile("gem3-key-1", {"name": "My gems", "doors": ["N"], "enter": ["key", "key"]})
    library.set_definition(edited)
    library.enroll_image("chamber-3", _photo(1))
    library.enroll_image("crypt", _photo(2), new=True)
    library.enroll_image(BACK, _photo(3))
    path = library.save(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "back.png",
        "chamber-3.png",
        "crypt.png",
        LIBRARY_FILE,
    ]
    assert path == tmp_path / LIBRARY_FILE
    assert sorted(json.loads(path.read_text())["tiles"]) == ["chamber-3", "crypt", "gem3-key-1"]

    again = TileLibrary.load(tmp_path)
    assert again.ids() == library.ids()
    for tile in library:
        twin = again.tile(tile.tile_id)
        assert twin.definition == tile.definition
        assert twin.appearance.photo == tile.appearance.photo
        assert np.array_equal(twin.appearance.image, tile.appearance.image)
    assert np.array_equal(again.back.image, library.back.image)
    assert again.tile("gem3-key-1").definition.gems is None  # removed, not the packaged gems


def test_catalog_overrides_feed_the_engine_the_users_properties():
    library = TileLibrary.default()
    library.set_definition(parse_tile("chamber-4", {"name": "Chamber 4", "doors": ["W"]}))
    overrides = library.catalog_overrides()
    assert list(overrides) == ["chamber-4"]
    line = {
        "type": "setup",
        "players": ["red"],
        "tiles": overrides,
        "temple": [
            {"tile": "start", "cell": [0, 0], "stairs": "S"},
            {"tile": "chamber-4", "cell": [0, 1], "stairs": "S"},
        ],
    }
    setup = parse_setup(line)
    assert setup.catalog["chamber-4"].doors == frozenset({"W"})
    assert len(library.catalog_overrides(everything=True)) == len(library)


def test_reset_restores_packaged_tiles_and_drops_added_ones(tmp_path):
    library = TileLibrary.default()
    library.enroll_image("chamber-1", _photo(4))
    library.enroll_image("crypt", _photo(5), new=True)
    library.save(tmp_path)
    library.reset(["chamber-1", "crypt"])
    library.save(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [LIBRARY_FILE]
    assert TileLibrary.load(tmp_path).changed() == []


def test_unknown_ids_are_named_with_the_known_ones():
    library = TileLibrary.default()
    with pytest.raises(EnrollmentError, match=r"no tile 'chamber-99'.*known tiles: start, exit"):
        library.tile("chamber-99")
    with pytest.raises(EnrollmentError, match="chamber-99"):
        library.enroll_image("chamber-99", _photo(6))
    with pytest.raises(EnrollmentError, match="letters, digits"):
        library.enroll_image("no spaces", _photo(6), new=True)


def test_an_enrolled_picture_replaces_the_art_for_recognition():
    library = TileLibrary.default()
    mine = _photo(7)
    library.enroll_image("gem1-torch-1", mine)
    cell = cell_picture(library.tile("gem1-torch-1").appearance.image, 270 + 2, seed=1)
    match = identify(library, cell, tile_px=200)
    assert match is not None and (match.tile, match.stairs) == ("gem1-torch-1", "E")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", r"not valid JSON \(line 1"),
        ('{"format": "other/1", "tiles": {}}', "not a templecam tile library"),
        ('{"format": "templecam-tiles/1", "tiles": []}', "'tiles' must be an object"),
        (
            '{"format": "templecam-tiles/1", "tiles": {"chamber-1": {"doors": ["X"]}}}',
            r"tile 'chamber-1': 'doors' must be a list of sides.*templecam enroll reset chamber-1",
        ),
        (
            '{"format": "templecam-tiles/1", "tiles": {"crypt": {"image": null}}}',
            "'crypt'.*no packaged art",
        ),
        (
            '{"format": "templecam-tiles/1", "tiles": {"chamber-1": {"image": "gone.png"}}}',
            "gone.png is missing or unreadable",
        ),
        (
            '{"format": "templecam-tiles/1", "tiles": {"chamber-1": {"image": "../x.png"}}}',
            "must be a PNG file name beside it",
        ),
    ],
)
def test_a_broken_library_file_says_what_is_wrong(tmp_path, content, message):
    (tmp_path / LIBRARY_FILE).write_text(content)
    with pytest.raises(EnrollmentError, match=message):
        TileLibrary.load(tmp_path)


def test_a_hand_edited_entry_keeps_the_packaged_values_it_leaves_out(tmp_path):
    entry = {"chamber-2": {"enter": ["torch", "torch"]}}
    (tmp_path / LIBRARY_FILE).write_text(
        json.dumps({"format": "templecam-tiles/1", "tiles": entry})
    )
    tile = TileLibrary.load(tmp_path).tile("chamber-2").definition
    assert tile.enter == ("torch", "torch")
    assert tile.doors == basic_catalog()["chamber-2"].doors
    assert tile.name == basic_catalog()["chamber-2"].name
