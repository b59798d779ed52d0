"""Big Box module 3 (Illusion chambers), from the rulebook's pages 12 and 13."""

from hypothesis import given, settings
from hypothesis import strategies as st
from rules_helpers import Table, start_and

from rules.actions import all_open_actions
from rules.engine import Game
from rules.game_setup import setup_catalog
from rules.narrative import tell_event

ILLUSION = "illusion-1"  # replaces the first one-gem chamber (keys)


def ani(**setup):
    return Table(players=["red", "blue"], modules=["illusions"], track_dice=False, **setup)


def test_six_illusion_chambers_replace_the_one_gem_chambers():  # page 12
    for modules in (["illusions"], ["curses", "illusions"], ["treasures", "illusions"]):
        catalog = setup_catalog(modules)
        illusions = [t for t in catalog.values() if t.illusion]
        assert len(illusions) == 6, modules
        assert not any(t.gems and t.gems.count == 1 and not t.illusion for t in catalog.values())
        assert not any(t.curse or t.treasure for t in illusions)  # purple masks are ignored
        assert len(catalog) == 19  # start, exit, 4 three-gem chambers, 7 chambers, 6 illusions
    assert {t.tile_id for t in setup_catalog(["curses"]).values() if t.illusion} == set()


def test_a_purple_mask_on_an_illusion_chamber_owes_no_curse():  # page 12's note
    marked = {"name": "Marked illusion", "kind": "chamber", "doors": ["S"], "enter": ["key"]}
    marked |= {"gems": {"count": 1, "icon": "key", "costs": [4]}, "illusion": True, "curse": True}
    purple = {**marked, "name": "Marked chamber", "illusion": False}
    t = Table(
        players=["red", "blue"],
        modules=["curses", "illusions"],
        track_dice=False,
        tiles={"marked-illusion": marked, "marked-chamber": purple},
    )
    t.ok(type="discover", player="red", tile="marked-illusion", cell=[0, 1])
    assert t.state["players"]["red"].get("curses_to_draw", 0) == 0
    assert "no curse card to draw" in t.no(type="curse", player="red", card="silence")
    t.ok(type="discover", player="red", tile="marked-chamber", cell=[1, 0])
    assert t.state["players"]["red"]["curses_to_draw"] == 1  # the same mark elsewhere counts


def test_illusion_chambers_vanish_after_countdown_1_to_the_bottom_of_the_pile():  # ex. 1, p. 13
    t = ani()
    t.ok(type="discover", player="red", tile=ILLUSION, cell=[0, 1])
    t.ok(type="discover", player="red", tile="chamber-1", cell=[1, 0])
    t.ok(type="countdown_start", n=1).ok(type="countdown_end", n=1)
    assert [p["tile"] for p in t.state["temple"]] == ["start", "chamber-1"]
    assert ILLUSION in [tile.tile_id for tile in t.game.unplaced_tiles()]  # in the pile again,
    assert ILLUSION not in [tile.tile_id for tile in t.game.drawable_tiles()]  # at its bottom
    refused = t.no(type="discover", player="red", tile=ILLUSION, cell=[0, 1])
    assert "vanished under the draw pile" in refused


def test_a_vanished_illusion_chamber_is_drawn_once_the_tiles_above_it_are_gone():  # page 13
    t = ani()
    t.ok(type="discover", player="red", tile=ILLUSION, cell=[0, 1])
    t.ok(type="countdown_start", n=1).ok(type="countdown_end", n=1)
    above = [tile.tile_id for tile in t.game.drawable_tiles()]
    assert ILLUSION not in above and above
    cells = iter([(x, y) for x in range(-6, 7) for y in range(-6, 7) if (x, y) != (0, 0)])
    for tile_id in above:  # lay every tile above it anywhere next to the start, as placed
        t.game.temple.place(t.game.catalog[tile_id], next(cells), "S")
    assert [tile.tile_id for tile in t.game.drawable_tiles()] == [ILLUSION]
    t.ok(type="discover", player="red", tile=ILLUSION, cell=[0, 1])
    assert t.game.under_pile == []


def test_their_gems_go_to_the_box_and_still_help_to_escape():  # example 3, page 13
    t = ani()
    t.ok(type="discover", player="red", tile=ILLUSION, cell=[0, 1])
    t.ok(type="enter", player="red", cell=[0, 1])
    t.ok(type="activate", cell=[0, 1], gems=1, players=["red"])
    depot = t.state["depot"]
    t.ok(type="enter", player="red", cell=[0, 0])
    t.ok(type="countdown_start", n=1).ok(type="countdown_end", n=1)
    assert t.state["depot"] == depot and t.state["keys_to_escape"] == depot + 1


def test_ani_still_inside_returns_to_the_start_and_loses_one_die():  # example 4, page 13
    t = ani()
    t.ok(type="discover", player="red", tile=ILLUSION, cell=[0, 1])
    t.ok(type="enter", player="red", cell=[0, 1])
    t.ok(type="countdown_start", n=2).ok(type="countdown_end", n=2)
    red = t.state["players"]["red"]
    assert red["cell"] == [0, 0] and red["dice"] == 4  # one die, the door slam's
    assert t.state["players"]["blue"]["dice"] == 5


def test_a_gap_is_filled_by_discovering_a_new_chamber():  # example 2, page 13
    t = ani(temple=start_and((ILLUSION, (1, 0), "W"), ("chamber-1", (2, 0), "W")))
    t.ok(type="countdown_start", n=1).ok(type="countdown_end", n=1)
    assert t.game.temple.at((1, 0)) is None
    t.ok(type="discover", player="red", tile="chamber-2", cell=[1, 0])
    assert "under the draw pile" in t.no(
        type="discover", player="blue", tile=ILLUSION, cell=[-1, 0]
    )
    t.ok(type="discover", player="blue", tile="illusion-2", cell=[-1, 0])  # one still above


def test_countdown_3_removes_nothing_and_basic_games_keep_their_one_gem_chambers():
    t = ani(temple=start_and((ILLUSION, (1, 0), "W")))
    t.ok(type="countdown_start", n=3)
    assert t.game.temple.at((1, 0)) is not None
    basic = Table(players=["red"], track_dice=False, temple=start_and(("gem1-key-1", (1, 0), "W")))
    basic.ok(type="countdown_start", n=1).ok(type="countdown_end", n=1)
    assert basic.game.temple.at((1, 0)) is not None


def test_a_secret_passage_to_a_vanished_chamber_goes_with_it():
    t = Table(
        players=["red"],
        modules=["treasures", "illusions"],
        track_dice=False,
        temple=start_and((ILLUSION, (1, 0), "W"), ("ct-chamber-6", (1, 1), "S")),
    )
    t.game.players["red"].treasures.append("secret_passage")
    t.ok(type="use", player="red", treasure="secret_passage", cells=[[1, 0], [1, 1]])
    t.ok(type="countdown_start", n=1).ok(type="countdown_end", n=1)
    assert t.state["secret_passages"] == []


def test_the_log_names_illusion_chambers_and_says_they_vanish():
    t = ani()
    event = {"type": "discover", "player": "red", "tile": ILLUSION, "cell": [0, 1]}
    t.ok(**event)
    assert (
        tell_event(event, t.game) == "Red discovers an Illusion chamber (keys) north of the start"
    )
    assert tell_event({"type": "countdown_end", "n": 1}, t.game) == (
        "Countdown 1 ends: the door slams and the illusion chambers vanish"
    )


EVENTS = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(["discover", "enter", "activate", "claim", "curse", "use"]),
            "player": st.sampled_from(["red", "blue"]),
            "tile": st.sampled_from([ILLUSION, "illusion-4", "ct-chamber-1", "chamber-1"]),
            "cell": st.sampled_from([[1, 0], [0, 1], [-1, 0], [0, 0], [1, 1]]),
            "gems": st.just(1),
            "players": st.just(["red"]),
            "card": st.just("trap"),
            "treasure": st.sampled_from(["teleport", "secret_passage", "extra_gem"]),
            "cells": st.just([[0, 1], [1, 1]]),
        }
    ),
    st.sampled_from(
        [
            {"type": "countdown_start", "n": 1},
            {"type": "countdown_end", "n": 1},
            {"type": "countdown_end", "n": 2},
            {"type": "undo"},
        ]
    ),
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(EVENTS, max_size=25),
    st.sampled_from(
        [
            ["illusions"],
            ["curses", "illusions"],
            ["treasures", "illusions"],
            ["curses", "treasures", "illusions"],
        ]
    ),
)
def test_no_event_sequence_crashes_the_engine_with_illusions_and_any_other_module(events, modules):
    setup = {"type": "setup", "players": ["red", "blue"], "modules": modules, "track_dice": False}
    game = Game.from_setup_line(setup)
    for event in events:
        game.apply(event)
        for actions in all_open_actions(game).values():
            assert all(a.label for a in actions)
        cells = {placed.cell for placed in game.temple}
        assert all(p.cell in cells for p in game.players.values() if p.inside)
