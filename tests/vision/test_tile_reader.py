"""The tile reader reads the tiles of the game in play: a module's tile in a frame is read in a
game with that module, and never in a basic game."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType, SimpleNamespace

import numpy as np
import pytest

from calibration.enrollment import TileLibrary
from rules.catalog import basic_catalog
from rules.game_setup import parse_setup
from rules.temple import quarter_turns_for
from server.vision_service import VisionService, VisionSettings
from vision.stages.scene import CELL_MARGIN
from vision.stages.tile_reader import EnrolledTileReader

TESTS = Path(__file__).resolve().parents[1]
CELL = (300.0, 180.0, 260.0)
"""The cell in the frame: its NW corner's x, y and its side, in pixels."""


def _scenes() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "tile_scenes", TESTS / "calibration" / "tile_scenes.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _frame_with(art: np.ndarray, stairs: str) -> tuple[np.ndarray, list[list[float]]]:
    """A table frame with the tile lying in the cell, its stairway towards `stairs`; the cell's
    corners (NW, NE, SE, SW)."""
    x, y, side = CELL
    inset = side * CELL_MARGIN / (1 + 2 * CELL_MARGIN)
    tile = [(x + inset, y + inset), (x + side - inset, y + inset)]
    tile += [(x + side - inset, y + side - inset), (x + inset, y + side - inset)]
    lying = np.ascontiguousarray(np.rot90(art, k=-quarter_turns_for(stairs)))
    frame = _scenes().photo_of_tile(lying, tile, seed=7)
    return frame, [[x, y], [x + side, y], [x + side, y + side], [x, y + side]]


def _game(modules: list[str], **fields: object) -> SimpleNamespace:
    setup = parse_setup({"type": "setup", "players": ["red"], "modules": modules, **fields})
    return SimpleNamespace(catalog=setup.catalog, players={"red": None})


@pytest.fixture(scope="module")
def reader() -> EnrolledTileReader:
    return EnrolledTileReader(TileLibrary.default())


@pytest.fixture(scope="module")
def slide_frame(reader: EnrolledTileReader) -> tuple[np.ndarray, list[list[float]]]:
    return _frame_with(reader.library.tile("trap-slide").appearance.image, "E")


def test_a_game_with_the_module_reads_its_tile(reader, slide_frame):
    traps = reader.for_game(_game(["traps"], traps=["slide", "cliff-key"]).catalog)
    seen = traps(*slide_frame)
    assert seen is not None and (seen.tile, seen.stairs) == ("trap-slide", "E")


def test_a_basic_game_never_reads_a_module_tile(reader, slide_frame):
    basic = reader.for_game(_game([]).catalog)
    assert set(basic.library.ids()) == set(basic_catalog())
    assert basic.library.back is reader.library.back
    seen = basic(*slide_frame)
    assert seen is None


def test_the_games_reader_shares_the_features_already_computed(reader):
    ct = reader.for_game(_game(["curses"]).catalog)
    assert "ct-chamber-1" in ct.library and "chamber-1" not in ct.library
    assert ct.library.tile("ct-chamber-1") is reader.library.tile("ct-chamber-1")


def test_the_vision_service_reads_the_tiles_of_the_session_game(tmp_path):
    service = VisionService(SimpleNamespace(), VisionSettings(), tmp_path)  # type: ignore[arg-type]
    service.models.load_tiles()
    whole = service.tile_reader
    assert "time-torch" in whole.library
    timed = service.models.tiles_for(_game(["time"], time_chambers=["torch", "lava-1"]))
    assert "time-torch" in timed.library and "time-sacrifice" not in timed.library
    assert "time-torch" not in service.models.tiles_for(_game([])).library
    assert service.models.tiles_for(None) is whole
