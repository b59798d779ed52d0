"""The packaged tile catalog, tile rotation and connections between chambers."""

from collections import Counter

import pytest

from rules.catalog import basic_catalog, parse_tile
from rules.errors import RecordError
from rules.temple import PlacedTile, Temple
from rules.vocabulary import SIDES


def test_basic_catalog_has_the_nineteen_tiles_of_the_box():
    catalog = basic_catalog()
    assert len(catalog) == 19
    kinds = Counter(tile.kind for tile in catalog.values())
    assert kinds == {"start": 1, "exit": 1, "chamber": 17}
    gem_tiles = [t for t in catalog.values() if t.gems]
    three = Counter(t.gems.icon for t in gem_tiles if t.gems.count == 3)
    assert three == {"key": 2, "torch": 2}
    assert sum(1 for t in gem_tiles if t.gems.count == 1) == 6
    plain = [t for t in catalog.values() if t.kind == "chamber" and not t.gems]
    assert len(plain) == 7


def test_catalog_costs_follow_the_reported_prices():
    for tile in basic_catalog().values():
        if tile.gems and tile.gems.count == 3:
            assert tile.gems.costs == (4, 7, 10)
        elif tile.gems:
            assert tile.gems.costs == (4,)


def test_every_catalog_tile_round_trips_through_the_record_format():
    for tile_id, tile in basic_catalog().items():
        assert parse_tile(tile_id, tile.to_json()) == tile


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"kind": "tower"}, "kind"),
        ({"doors": ["X"]}, "doors"),
        ({"enter": ["black_mask"]}, "enter"),
        ({"gems": {"count": 2, "icon": "key", "costs": [4, 7]}}, "count"),
        ({"gems": {"count": 1, "icon": "adventurer", "costs": [4]}}, "icon"),
        ({"gems": {"count": 3, "icon": "key", "costs": [4, 7]}}, "costs"),
        ({"gems": {"count": 1, "icon": "key", "costs": [0]}}, "costs"),
        ("not an object", "JSON object"),
    ],
)
def test_bad_tile_definitions_name_the_wrong_field(data, field):
    with pytest.raises(RecordError, match=field):
        parse_tile("bad", data)


def _tile(doors):
    return parse_tile("t", {"kind": "chamber", "doors": doors, "enter": []})


@pytest.mark.parametrize(
    ("stairs", "expected"),
    [
        ("S", {"S", "N", "E"}),  # own frame: stairway S, doors N and E
        ("N", {"N", "S", "W"}),  # half turn: own N lands on S, own E on W
        ("W", {"W", "E", "S"}),  # quarter turn clockwise: own S -> W, N -> E, E -> S
        ("E", {"E", "W", "N"}),  # quarter turn anticlockwise: own S -> E, N -> W, E -> N
    ],
)
def test_rotation_turns_every_door_with_the_stairway(stairs, expected):
    placed = PlacedTile(_tile(["N", "E"]), (0, 0), stairs)
    assert placed.open_sides == expected
    assert stairs in placed.open_sides


def test_the_stairway_side_is_always_open_and_own_north_is_opposite_it():
    for stairs in SIDES:
        placed = PlacedTile(_tile(["N"]), (0, 0), stairs)
        opposite = SIDES[(SIDES.index(stairs) + 2) % 4]
        assert placed.open_sides == {stairs, opposite}


def test_chambers_connect_only_when_both_doors_face_each_other():
    temple = Temple()
    temple.place(_tile([]), (0, 0), "N")  # dead end open only to the N
    corridor = parse_tile("c", {"doors": ["N"]})
    temple.place(corridor, (0, 1), "S")  # open N and S
    assert temple.connected((0, 0), (0, 1))
    assert temple.connected((0, 1), (0, 0))
    walled = parse_tile("w", {"doors": []})
    temple.place(walled, (1, 0), "E")  # open only to the E, its back to (0, 0)
    assert not temple.connected((0, 0), (1, 0))
    assert not temple.connected((0, 0), (0, 2))  # nothing there
    assert not temple.connected((0, 0), (5, 5))


def test_a_cell_or_a_tile_cannot_be_placed_twice():
    temple = Temple()
    temple.place(_tile([]), (0, 0), "S")
    with pytest.raises(ValueError, match="already holds"):
        temple.place(parse_tile("u", {}), (0, 0), "S")
    with pytest.raises(ValueError, match="already in the temple"):
        temple.place(_tile([]), (3, 3), "S")


def test_a_chamber_is_found_by_its_tile_and_its_feature_while_it_lies_in_the_temple():
    temple = Temple()
    first = temple.place(parse_tile("gear-1", {"feature": "gear"}), (0, 1), "S")
    temple.place(_tile([]), (0, 0), "S")
    second = temple.place(parse_tile("gear-2", {"feature": "gear"}), (1, 0), "W")
    assert temple.with_tile("gear-2") is second and temple.with_tile("nothing") is None
    assert temple.with_feature("gear") is first  # the first placed, as a walk of the temple
    assert temple.with_feature("pit") is None
    temple.remove((0, 1))
    assert temple.with_tile("gear-1") is None and temple.with_feature("gear") is second
    again = temple.place(first.tile, (0, 1), "S")  # laid again: now the last placed
    assert temple.with_feature("gear") is second and temple.with_tile("gear-1") is again
    assert [p.tile.tile_id for p in temple if p.tile.feature == "gear"] == ["gear-2", "gear-1"]


def test_the_starting_chamber_is_found_where_it_lies_now():
    temple = Temple()
    start = parse_tile("start", {"kind": "start", "doors": ["N", "E", "W"]})
    temple.place(_tile([]), (0, 1), "S")
    temple.place(start, (0, 0), "S")
    assert temple.start_cell() == (0, 0)
    temple.remove((0, 0))  # the mirage swap (Queenie 8) lays it anew elsewhere
    temple.place(start, (1, 1), "W")
    assert temple.start_cell() == (1, 1)
