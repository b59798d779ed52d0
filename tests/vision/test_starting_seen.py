"""The starting temple read from the camera (issue 12, page 5): an observation of the table
becomes the two chambers beside the starting chamber, or a plain reason, by the tiles' names."""

from __future__ import annotations

import pytest
from starting_table import render_starting_temple

from calibration.enrollment import TileLibrary
from rules.game_setup import setup_catalog, starting_temple
from vision.perception.models import live_detector
from vision.stages.observation import Observation, SeenTile
from vision.stages.starting_seen import look_at_temple, starting_chambers_seen
from vision.stages.tile_reader import EnrolledTileReader

BASIC = setup_catalog([])


def seen(tiles: dict[tuple[int, int], tuple[str, str]]) -> Observation:
    """A hand-made observation: tile id and stairway side per cell."""
    return Observation(
        seq=1, t=0.0, tiles={cell: SeenTile(t, s, 0.95) for cell, (t, s) in tiles.items()}
    )


def test_the_chambers_left_and_right_of_the_start_are_the_two_drawn_ones():
    table = seen(
        {(0, 0): ("start", "S"), (-1, 0): ("gem3-torch-1", "E"), (1, 0): ("chamber-4", "W")}
    )
    result = starting_chambers_seen(table, BASIC)
    assert result.drawn == ("gem3-torch-1", "chamber-4")
    # laid as the set-up page's own draw lays them: the same cells and stairways
    laid = starting_temple(BASIC, result.drawn)
    assert [(p["tile"], tuple(p["cell"])) for p in laid[1:]] == [
        (side.tile, side.cell) for side in result.sides
    ]
    message = result.message(BASIC)
    assert message == (
        "The camera sees Gem chamber (torches) 1 left of the starting chamber; "
        "Chamber 4 right of the starting chamber."
    )


def test_a_start_hidden_under_figures_still_anchors_the_chambers_beside_it():
    table = seen(
        {(0, 0): ("unknown", "S"), (-1, 0): ("gem1-key-2", "E"), (1, 0): ("chamber-1", "W")}
    )
    assert starting_chambers_seen(table, BASIC).drawn == ("gem1-key-2", "chamber-1")


def test_no_starting_chamber_in_view_says_so_and_to_draw_instead():
    result = starting_chambers_seen(Observation(seq=1, t=0.0), BASIC)
    assert result.drawn is None and result.sides == ()
    assert result.message(BASIC) == (
        "The camera does not see the starting chamber: pick the tiles you drew, or draw them "
        "instead."
    )


def test_another_tile_where_the_start_should_be_is_named():
    result = starting_chambers_seen(seen({(0, 0): ("gem3-key-1", "S")}), BASIC)
    assert result.drawn is None
    assert "Gem chamber (keys) 1, not the starting chamber" in result.message(BASIC)


def test_an_empty_side_and_an_unidentified_tile_are_each_said_by_side():
    result = starting_chambers_seen(seen({(0, 0): ("start", "S"), (1, 0): ("unknown", "S")}), BASIC)
    assert result.drawn is None
    assert [(s.side, s.tile, s.problem) for s in result.sides] == [
        ("W", None, "no tile there"),
        ("E", None, "a tile the camera cannot identify"),
    ]
    assert result.message(BASIC) == (
        "Left of the starting chamber: no tile there; Right of the starting chamber: a tile the "
        "camera cannot identify. For those sides, pick the tiles you drew, or draw them instead."
    )


def test_one_side_read_is_given_even_when_the_other_is_not():
    result = starting_chambers_seen(
        seen({(0, 0): ("start", "S"), (-1, 0): ("chamber-2", "E")}), BASIC
    )
    assert [s.tile for s in result.sides] == ["chamber-2", None]
    assert result.message(BASIC).startswith("Chamber 2 left of the starting chamber; Right of")


@pytest.mark.parametrize(
    ("tile", "said"),
    [
        ("exit", "Exit, which is never drawn at set-up"),
        ("start", "a second starting chamber"),
        ("ct-chamber-1", "a tile this game does not play with (tick its module"),
    ],
)
def test_a_tile_that_is_never_a_starting_chamber_is_refused_by_name(tile: str, said: str):
    table = seen({(0, 0): ("start", "S"), (-1, 0): ("chamber-1", "E"), (1, 0): (tile, "W")})
    result = starting_chambers_seen(table, BASIC)
    assert result.drawn is None and result.sides[0].tile == "chamber-1"
    assert said in result.message(BASIC)
    assert tile not in result.message(BASIC).replace("starting chamber", "")  # names, not ids


def test_a_module_chamber_is_read_when_its_module_is_played():
    table = seen(
        {(0, 0): ("start", "S"), (-1, 0): ("ct-chamber-1", "E"), (1, 0): ("gem3-key-2", "W")}
    )
    curses = setup_catalog(["curses"])
    assert starting_chambers_seen(table, curses).drawn == ("ct-chamber-1", "gem3-key-2")


def test_a_quest_chamber_seen_beside_the_start_is_not_laid_at_set_up():
    quests = setup_catalog(["quests"])
    table = seen(
        {(0, 0): ("start", "S"), (-1, 0): ("quest-altar", "E"), (1, 0): ("gem3-key-2", "W")}
    )
    result = starting_chambers_seen(table, quests)
    assert result.drawn is None
    assert f"{quests['quest-altar'].name}, which is not laid at set-up" in result.message(quests)


def test_the_same_tile_read_on_both_sides_is_refused_on_the_second():
    table = seen({(0, 0): ("start", "S"), (-1, 0): ("chamber-3", "E"), (1, 0): ("chamber-3", "W")})
    result = starting_chambers_seen(table, BASIC)
    assert result.drawn is None
    assert result.sides[1].problem == "Chamber 3 again (one tile cannot lie on both sides)"


def test_a_chamber_lying_turned_is_taken_and_its_stairway_will_face_the_start():
    table = seen({(0, 0): ("start", "S"), (-1, 0): ("chamber-3", "N"), (1, 0): ("chamber-5", "W")})
    result = starting_chambers_seen(table, BASIC)
    assert result.drawn == ("chamber-3", "chamber-5")
    assert result.sides[0].turned == "N" and result.sides[1].turned is None
    assert "Chamber 3 left of the starting chamber (its stairway will face the start)" in (
        result.message(BASIC)
    )


@pytest.fixture(scope="module")
def eyes() -> tuple[object, EnrolledTileReader]:
    """The shipped detector and the default tile library's reader, as the dashboard uses them."""
    detector, _ = live_detector(None)
    return detector, EnrolledTileReader(TileLibrary.default())


@pytest.mark.parametrize(
    ("west", "east", "seed"),
    [("gem3-torch-1", "gem1-key-2", 0), ("chamber-6", "gem3-key-2", 5)],
)
def test_a_rendered_starting_temple_is_read_as_laid(eyes, west: str, east: str, seed: int):
    detector, reader = eyes
    table = render_starting_temple(west, east, seed)
    observation = look_at_temple(table.image, detector.detect, table.calibration, reader)
    assert starting_chambers_seen(observation, BASIC).drawn == (west, east)


def test_a_rendered_temple_with_one_chamber_says_the_other_side_is_empty(eyes):
    detector, reader = eyes
    table = render_starting_temple("gem1-torch-3", None, seed=2)
    observation = look_at_temple(table.image, detector.detect, table.calibration, reader)
    result = starting_chambers_seen(observation, BASIC)
    assert [(s.tile, s.problem) for s in result.sides] == [
        ("gem1-torch-3", None),
        (None, "no tile there"),
    ]
