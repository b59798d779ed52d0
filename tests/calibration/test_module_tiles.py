"""Every module's tiles in the library: listed from the modules, drawn, enrolled from a photo,
reset, compared with the right packaged tile, and old library files read as before."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, ClassVar

import cv2
import numpy as np
import pytest
from tile_scenes import photo_of_tile

from art.tiles import tile_texture
from calibration.enrollment import LIBRARY_FILE, TileLibrary, canonical
from calibration.tile_match import identify
from calibration.tile_photo import tile_picture, to_own_frame
from rules import game_setup, modules_registry
from rules.catalog import TileDef, basic_catalog
from rules.every_tile import every_tile, packaged_tiles, tile_modules
from rules.game_setup import parse_setup, setup_catalog
from rules.module_protocol import Module
from rules.modules import BIG_BOX_IDS
from rules.temple import quarter_turns_for

TURNED = [(480, 100), (760, 360), (500, 640), (220, 370)]
SLANTED = [(300, 150), (640, 180), (660, 560), (280, 520)]
MODULE_TILES = ["ct-chamber-3", "illusion-2", "double-1", "quest-tree", "trap-slide", "time-torch"]


@pytest.fixture(scope="module")
def library() -> TileLibrary:
    return TileLibrary.default()


def _print_of(tile: TileDef) -> np.ndarray:
    """The art of the same tile printed differently (another stone pattern): a user's own copy."""
    rgb = tile_texture(replace(tile, tile_id=f"{tile.tile_id}-my-print"), 256)
    return canonical(cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))


def _lying(art: np.ndarray, stairs: str) -> np.ndarray:
    return np.ascontiguousarray(np.rot90(art, k=-quarter_turns_for(stairs)))


def test_every_module_brings_its_tiles_and_each_tile_names_its_modules():
    tiles = packaged_tiles()
    assert list(tiles)[: len(basic_catalog())] == list(basic_catalog())
    assert all(tiles[i].modules == () for i in basic_catalog())
    assert tiles["ct-gem1-key-1"].modules == ("curses", "treasures")
    assert tiles["illusion-1"].modules == ("illusions",)
    assert {i for i, t in tiles.items() if t.modules == ("quests",)} == {
        f"quest-{q}" for q in ("altar", "ghost", "task", "tree", "obelisk")
    }
    assert sum(t.modules == ("traps",) for t in tiles.values()) == 5
    assert sum(t.modules == ("time",) for t in tiles.values()) == 8
    assert sum(t.modules == ("special",) for t in tiles.values()) == 6
    assert tile_modules("trap-slide") == ("traps",) and tile_modules("nothing") == ()


@pytest.mark.parametrize("modules", [[], ["curses"], ["treasures", "illusions"], list(BIG_BOX_IDS)])
def test_every_tile_a_game_plays_with_is_in_the_library_as_packaged(library, modules):
    for tile_id, tile in setup_catalog(modules).items():
        assert library.tile(tile_id).definition == tile == every_tile()[tile_id]


class _FakeQueenie(Module):
    """A Queenie module's file as the other workers write them: chambers, and a requirement."""

    id = "fake_pit"
    title = "The Fake Pit"
    requires: ClassVar[tuple[str, ...]] = ("quests",)

    @classmethod
    def chambers(cls) -> dict[str, TileDef]:
        return {"pit-1": TileDef("pit-1", "Pit", "chamber", frozenset({"N"}), (), feature="pit")}


def test_a_queenie_modules_chambers_come_in_through_setup_catalog(monkeypatch):
    monkeypatch.setattr(game_setup, "KNOWN_MODULES", (*BIG_BOX_IDS, "fake_pit"))
    monkeypatch.setitem(modules_registry.MODULES, "fake_pit", _FakeQueenie)
    tiles = packaged_tiles()
    assert tiles["pit-1"].modules == ("fake_pit",)
    assert tiles["pit-1"].definition.feature == "pit"
    assert tiles["quest-altar"].modules == ("quests",)  # its requirement's tiles stay there's
    plain = replace(tiles["pit-1"].definition, feature=None)
    drawn = tile_texture(tiles["pit-1"].definition, 128)
    assert drawn.shape == (128, 128, 3) and not np.allclose(drawn, tile_texture(plain, 128))


def test_each_modules_tiles_wear_its_badge():
    tiles = every_tile()
    for tile_id in MODULE_TILES:
        bare = replace(
            tiles[tile_id],
            curse=False,
            treasure=False,
            illusion=False,
            special=None,
            rear=frozenset(),
            quest=None,
            trap=None,
            time=None,
        )
        assert np.abs(tile_texture(tiles[tile_id], 128) - tile_texture(bare, 128)).max() > 0.3


@pytest.mark.parametrize("tile_id", MODULE_TILES)
def test_a_module_tile_is_enrolled_from_a_photo_and_recognised(library, tmp_path, tile_id):
    mine = TileLibrary(list(TileLibrary.default()), library.back)
    art = _print_of(mine.tile(tile_id).definition)
    photo = photo_of_tile(_lying(art, "E"), TURNED, seed=3)
    mine.enroll_image(tile_id, to_own_frame(tile_picture(photo), "E"))
    assert mine.changed() == [tile_id] and mine.catalog_overrides() == {}
    mine.save(tmp_path)
    again = TileLibrary.load(tmp_path)
    assert again.tile(tile_id).appearance.photo
    assert again.tile(tile_id).definition == every_tile()[tile_id]
    game = again.only(setup_catalog(list(tile_modules(tile_id))))
    square = tile_picture(photo_of_tile(_lying(art, "W"), SLANTED, seed=5))
    match = identify(game, square, tile_px=square.shape[0])
    assert match is not None and (match.tile, match.stairs) == (tile_id, "W")
    again.reset([tile_id])
    assert again.changed() == [] and not again.tile(tile_id).appearance.photo


def test_overrides_are_measured_against_the_games_own_tiles(library):
    mine = TileLibrary(list(TileLibrary.default()), library.back)
    slide = mine.tile("trap-slide").definition
    mine.set_definition(replace(slide, doors=frozenset({"N"})))
    assert mine.changed() == ["trap-slide"]
    assert mine.catalog_overrides(catalog=setup_catalog([])) == {}
    traps = setup_catalog(["traps"], traps=["slide", "platform"])
    overrides = mine.catalog_overrides(catalog=traps)
    assert overrides == {"trap-slide": {**slide.to_json(), "doors": ["N"]}}
    setup = parse_setup(
        {
            "type": "setup",
            "players": ["red"],
            "modules": ["traps"],
            "traps": ["slide", "platform"],
            "tiles": overrides,
        }
    )
    assert setup.catalog["trap-slide"].doors == frozenset({"N"})
    basic = mine.catalog_overrides(catalog=setup_catalog([]), everything=True)
    assert set(basic) == set(basic_catalog())


OLD_LIBRARY: dict[str, Any] = {
    "format": "templecam-tiles/1",
    "about": "written by an earlier templecam",
    "tiles": {
        "gem3-key-1": {
            "name": "My gems",
            "kind": "chamber",
            "doors": ["N"],
            "enter": ["key", "key"],
            "gems": None,
            "image": None,
        },
        "crypt": {
            "name": "Crypt",
            "kind": "chamber",
            "doors": ["E"],
            "enter": [],
            "gems": None,
            "image": "crypt.png",
            "enrolled": "2026-01-02T03:04:05+00:00",
        },
    },
    "back": {"image": "back.png", "enrolled": "2026-01-02T03:04:05+00:00"},
}


def test_a_library_file_of_an_earlier_version_loads_the_same(tmp_path):
    (tmp_path / LIBRARY_FILE).write_text(json.dumps(OLD_LIBRARY), "utf-8")
    for name in ("crypt.png", "back.png"):
        cv2.imwrite(str(tmp_path / name), np.full((64, 64, 3), 90, np.uint8))
    library = TileLibrary.load(tmp_path)
    assert library.changed() == ["gem3-key-1", "crypt"]
    assert library.tile("gem3-key-1").definition.to_json() == {
        "name": "My gems",
        "kind": "chamber",
        "doors": ["N"],
        "enter": ["key", "key"],
    }
    assert library.tile("crypt").appearance.photo and library.back is not None
    assert library.back.photo
    written = library.to_json()
    assert written["tiles"] == {
        tile_id: dict(entry) for tile_id, entry in OLD_LIBRARY["tiles"].items()
    }
    assert written["back"] == OLD_LIBRARY["back"]
    assert library.ids()[: len(basic_catalog())] == list(basic_catalog())
    assert "trap-slide" in library and library.ids()[-1] == "crypt"
