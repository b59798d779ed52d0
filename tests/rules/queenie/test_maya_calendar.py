"""Queenie: the Maya calendar (Big Box pages 32-33)."""

import json

import pytest

from rules.actions import open_actions
from rules.engine import Game
from rules.errors import RecordError
from rules.game_setup import starting_candidates
from rules.narrative import tell_event
from rules.record import replay_lines
from tests.rules.rules_helpers import A, K, T, Table

GEM = "gem1-key-1"  # one gem for 4 keys; entered with 2 adventurers
GEM2 = "gem1-key-2"  # one gem for 4 keys; entered with an adventurer and a key


def calendar(side="eternal", **setup):
    return Table(modules=["maya_calendar"], maya_side=side, **setup)


def discover_gem(t, cell=(1, 0), tile=GEM, player="red"):
    t.roll(player, A, A, K, K, K)
    t.ok(type="discover", player=player, cell=list(cell), tile=tile)


def draw(t, symbol, cell=(1, 0), player="red"):
    t.ok(type="calendar_tile", player=player, cell=list(cell), symbol=symbol)


def stand_in(t, cell, *players):
    for pid in players:
        t.player(pid).cell = cell


def cal(t):
    return t.state["maya_calendar"]


# ----- set-up ------------------------------------------------------------------------------


def test_the_calendar_chamber_is_shuffled_into_the_pile_never_the_starting_temple():  # p. 32
    t = calendar()
    tile = t.game.catalog["calendar"]
    assert tile.feature == "calendar" and tile.name == "Calendar chamber"
    assert "calendar" not in starting_candidates(t.game.catalog)
    assert "calendar" not in Table().game.catalog


def test_the_figure_starts_on_the_start_space_with_nine_tiles_face_down():  # Big Box p. 32
    state = cal(calendar())
    assert state["side"] == "eternal" and state["position"] == 0 and state["stack"] == 9
    assert state["next"] == "sun" and len(state["spaces"]) == 9


def test_the_side_is_eternal_unless_the_setup_says_doomed():
    line = {"type": "setup", "players": ["red"], "modules": ["maya_calendar"]}
    assert Game.from_setup_line(line).state_json()["maya_calendar"]["side"] == "eternal"
    with pytest.raises(RecordError, match="'maya_side' must be 'eternal' or 'doomed'"):
        Game.from_setup_line({**line, "maya_side": "cursed"})


def test_the_board_spaces_are_a_setup_field_checked_against_the_tiles():
    line = {"type": "setup", "players": ["red"], "modules": ["maya_calendar"]}
    spaces = ["gear", "gear", "sun", "sun", "sun", "sun", "moon", "moon", "moon"]
    game = Game.from_setup_line({**line, "maya_spaces": spaces})
    assert game.state_json()["maya_calendar"]["next"] == "gear"
    with pytest.raises(RecordError, match="4 suns, 3 moons and 2 gears"):
        Game.from_setup_line({**line, "maya_spaces": ["sun"] * 9})
    with pytest.raises(RecordError, match="9 spaces"):
        Game.from_setup_line({**line, "maya_spaces": ["sun", "star"]})
    # The doomed side's spaces need not use each tile once (its tiles come back).
    doomed = Game.from_setup_line({**line, "maya_side": "doomed", "maya_spaces": ["sun"] * 9})
    assert doomed.state_json()["maya_calendar"]["spaces"] == ["sun"] * 9
    with pytest.raises(RecordError, match="'maya_bars'"):
        Game.from_setup_line({**line, "maya_side": "doomed", "maya_bars": [6, 3]})


def test_without_the_module_its_events_are_unknown():
    t = Table()
    reason = t.no(type="calendar_tile", player="red", cell=[1, 0], symbol="sun")
    assert "unknown event type 'calendar_tile'" in reason
    assert "maya_calendar" not in t.state


# ----- calendar tiles on gem chambers (page 32) ----------------------------------------------


def test_a_discovered_gem_chamber_takes_the_top_calendar_tile():  # Big Box p. 32
    t = calendar()
    discover_gem(t)
    assert cal(t)["awaiting"] == [{"player": "red", "cell": [1, 0]}]
    stand_in(t, (1, 0), "red")
    assert "draw the calendar tile" in t.no(type="activate", cell=[1, 0], gems=1, players=["red"])
    assert "blue owes no calendar tile" in t.no(
        type="calendar_tile", player="blue", cell=[1, 0], symbol="sun"
    )
    assert "sun, moon or gear" in t.no(
        type="calendar_tile", player="red", cell=[1, 0], symbol="star"
    )
    draw(t, "moon")
    assert cal(t)["tiles"] == [{"cell": [1, 0], "symbol": "moon"}]
    assert cal(t)["stack"] == 8 and cal(t)["awaiting"] == []
    assert "owes no calendar tile" in t.no(
        type="calendar_tile", player="red", cell=[1, 0], symbol="sun"
    )


def test_a_chamber_without_gems_takes_no_calendar_tile():  # Big Box p. 32
    t = calendar()
    t.roll("red", A, A, K, K, K)
    t.ok(type="discover", player="red", cell=[1, 0], tile="chamber-1")
    assert cal(t)["awaiting"] == []


def test_the_stack_holds_only_two_gears():  # Big Box p. 32: 4 suns, 3 moons, 2 gears
    t = calendar()
    discover_gem(t)
    draw(t, "gear")
    discover_gem(t, (-1, 0), GEM2)
    draw(t, "gear", (-1, 0))
    discover_gem(t, (0, 1), "gem1-torch-2")
    reason = t.no(type="calendar_tile", player="red", cell=[0, 1], symbol="gear")
    assert "holds no gear any more: the tile drawn must be a sun or a moon" in reason


def test_once_the_tiles_run_out_no_tile_is_laid():  # Big Box p. 32
    t = calendar()
    t.game.maya_calendar.unknown.clear()
    discover_gem(t)
    assert cal(t)["awaiting"] == []


def test_the_log_says_the_tile_laid_by_chamber_name():
    t = calendar()
    discover_gem(t)
    draw(t, "sun")
    said = tell_event(t.game.accepted[-1], t.game)
    assert (
        said
        == "Red lays a calendar tile on Chamber with one gem (keys) 1 (east of the start): a sun"
    )


# ----- the eternal calendar (page 32) -----------------------------------------------------------


def test_eternal_gems_only_under_the_next_symbol_and_the_tile_leaves_the_game():  # p. 32
    t = calendar()
    discover_gem(t)
    draw(t, "moon")  # the next space shows a sun
    stand_in(t, (1, 0), "red")
    t.roll("red", K, K, K, K, A)
    reason = t.no(type="activate", cell=[1, 0], gems=1, players=["red"])
    assert "holds a moon, but the eternal calendar's next space shows a sun" in reason
    blocked = [a for a in open_actions(t.game, "red") if a.action == "activate"]
    assert blocked and all("holds a moon" in (a.blocked or "") for a in blocked)
    discover_gem(t, (-1, 0), GEM2, player="blue")
    draw(t, "sun", (-1, 0), player="blue")
    stand_in(t, (-1, 0), "blue")
    t.roll("blue", K, K, K, K, A)
    t.ok(type="activate", cell=[-1, 0], gems=1, players=["blue"])
    state = cal(t)
    assert state["position"] == 1 and state["next"] == "moon"
    assert state["tiles"] == [{"cell": [1, 0], "symbol": "moon"}]
    assert state["stack"] == 7  # the sun left the game: it never comes back
    t.roll("red", K, K, K, K, A)
    t.ok(type="activate", cell=[1, 0], gems=1, players=["red"])  # now the moon is next
    assert cal(t)["position"] == 2


def test_eternal_chambers_without_a_tile_wait_for_the_last_space():  # Big Box p. 32
    t = calendar(
        temple=[
            {"tile": "start", "cell": [0, 0], "stairs": "S"},
            {"tile": GEM, "cell": [1, 0], "stairs": "W"},
        ]
    )
    stand_in(t, (1, 0), "red")
    t.roll("red", K, K, K, K, A)
    reason = t.no(type="activate", cell=[1, 0], gems=1, players=["red"])
    assert "holds no calendar tile: its gems wait until the Maya figure reaches" in reason
    t.game.maya_calendar.position = 9
    t.ok(type="activate", cell=[1, 0], gems=1, players=["red"])


def test_eternal_calendar_adds_no_key_to_the_escape():  # Big Box p. 32
    t = calendar()
    assert t.game.keys_to_escape == t.game.depot + 1


# ----- the doomed calendar (page 33) ------------------------------------------------------------


def test_doomed_any_gem_is_activated_and_a_match_advances_the_figure():  # Big Box p. 33
    t = calendar("doomed")
    discover_gem(t)
    draw(t, "moon")
    stand_in(t, (1, 0), "red")
    t.roll("red", K, K, K, K, A)
    t.ok(type="activate", cell=[1, 0], gems=1, players=["red"])  # a moon, the sun is next
    state = cal(t)
    assert state["position"] == 0 and state["tiles"] == [] and state["stack"] == 9
    discover_gem(t, (-1, 0), GEM2, player="blue")
    draw(t, "sun", (-1, 0), player="blue")
    stand_in(t, (-1, 0), "blue")
    t.roll("blue", K, K, K, K, A)
    t.ok(type="activate", cell=[-1, 0], gems=1, players=["blue"])
    assert cal(t)["position"] == 1 and cal(t)["next"] == "moon"


def test_doomed_used_tiles_come_back_from_under_the_stack_in_order():  # Big Box p. 33
    t = calendar("doomed")
    t.game.maya_calendar.unknown.clear()
    t.game.maya_calendar.returned = ["gear", "sun"]
    discover_gem(t)
    reason = t.no(type="calendar_tile", player="red", cell=[1, 0], symbol="sun")
    assert "the stack's top tile is the gear put under it" in reason
    draw(t, "gear")
    assert cal(t)["stack"] == 1


def test_doomed_short_of_the_bar_everyone_places_a_die_on_the_calendar_chamber():  # p. 33
    t = calendar("doomed", players=["red", "blue", "green"])
    t.player("green").escaped, t.player("green").cell = True, None
    t.ok(type="countdown_end", n=1)  # everyone is in the start: no die to the door slam
    assert [p["dice"] for p in t.state["players"].values()] == [4, 4, 5]
    assert cal(t)["dice_aside"] == {"blue": 1, "red": 1}
    # The calendar chamber not yet found: the dice wait beside it.
    t.game.temple.place(t.game.catalog["calendar"], (1, 0), "W")
    reason = t.no(type="calendar_die", player="red")
    assert "only in the calendar chamber: enter it first" in reason
    stand_in(t, (1, 0), "red")
    t.ok(type="calendar_die", player="red")
    assert t.state["players"]["red"]["dice"] == 5 and cal(t)["dice_aside"] == {"blue": 1}
    assert "no die of red lies on the calendar chamber" in t.no(type="calendar_die", player="red")


def test_doomed_past_the_bar_nobody_places_a_die():  # Big Box p. 33
    t = calendar("doomed")
    t.game.maya_calendar.position = 3  # the first bar stands after space 3 (default)
    t.ok(type="countdown_end", n=1)
    assert cal(t)["dice_aside"] == {}
    t.ok(type="countdown_end", n=2)  # the second bar: space 6
    assert cal(t)["dice_aside"] == {"blue": 1, "red": 1}


def test_doomed_bars_are_a_setup_field():
    t = calendar("doomed", maya_bars=[1, 2])
    t.game.maya_calendar.position = 1
    t.ok(type="countdown_end", n=1)
    assert cal(t)["dice_aside"] == {}


def test_the_eternal_calendar_places_no_die_at_a_countdown():  # Big Box p. 32
    t = calendar()
    t.ok(type="countdown_end", n=1)
    assert cal(t)["dice_aside"] == {}


@pytest.mark.parametrize(("position", "extra"), [(0, 3), (5, 3), (6, 3), (7, 2), (8, 1), (9, 0)])
def test_doomed_extra_keys_at_the_exit_by_the_figures_space(position, extra):  # Big Box p. 33
    t = calendar("doomed")
    t.game.maya_calendar.position = position
    assert t.game.keys_to_escape == t.game.depot + 1 + extra
    assert t.state["keys_to_escape"] == t.game.depot + 1 + extra


def test_doomed_empty_depot_a_gems_icons_advance_the_figure_without_a_gem():  # Big Box p. 33
    t = calendar("doomed")
    discover_gem(t)
    draw(t, "sun")
    stand_in(t, (1, 0), "red", "blue")
    t.roll("red", K, K, K, A, A)
    t.roll("blue", K, A, A, A, A)
    event = {"type": "calendar_advance", "cell": [1, 0], "players": ["red", "blue"]}
    assert "the depot still holds" in t.no(**event)
    t.game.depot = 0
    t.ok(**event)
    state = cal(t)
    assert state["position"] == 1 and state["tiles"] == [] and state["stack"] == 9
    assert t.state["temple"][-1]["gems"] == 0 and t.game.depot == 0
    t.game.maya_calendar.tiles[(1, 0)] = "moon"
    t.roll("red", K, A, A, A, A)
    t.roll("blue", A, A, A, A, A)
    assert "to advance the calendar" in t.no(**event)


def test_the_eternal_calendar_never_advances_without_a_gem():
    t = calendar()
    reason = t.no(type="calendar_advance", cell=[1, 0], players=["red"])
    assert "only the doomed calendar advances without a gem" in reason


# ----- the calendar chamber (page 33) -----------------------------------------------------------


def test_three_keys_in_the_calendar_chamber_swap_two_calendar_tiles():  # Big Box p. 33
    t = calendar()
    discover_gem(t)
    draw(t, "moon")
    discover_gem(t, (-1, 0), GEM2)
    draw(t, "sun", (-1, 0))
    swap = {"type": "calendar_swap", "player": "red", "cells": [[1, 0], [-1, 0]]}
    assert "red is not in the calendar chamber" in t.no(**swap)
    t.game.temple.place(t.game.catalog["calendar"], (0, 1), "S")
    stand_in(t, (0, 1), "red")
    t.roll("red", K, K, A, A, T)
    assert "key" in t.no(**swap)
    t.roll("red", K, K, K, A, T)
    reason = t.no(type="calendar_swap", player="red", cells=[[1, 0], [0, 0]])
    assert "no calendar tile lies in Starting chamber (the start)" in reason
    assert "two different chambers" in t.no(
        type="calendar_swap", player="red", cells=[[1, 0], [1, 0]]
    )
    offered = [a for a in open_actions(t.game, "red") if a.action == "calendar_swap"]
    assert offered[0].possible and offered[0].choices[0]["event"] == {
        "type": "calendar_swap",
        "player": "red",
        "cells": [[-1, 0], [1, 0]],
    }
    t.ok(**swap)
    tiles = {tuple(x["cell"]): x["symbol"] for x in cal(t)["tiles"]}
    assert tiles == {(1, 0): "sun", (-1, 0): "moon"}
    assert dict(t.player("red").showing) == {A: 1, T: 1}


# ----- the dashboard ----------------------------------------------------------------------------


def test_the_dashboard_offers_the_tile_to_draw_with_the_symbols_left():
    t = calendar()
    discover_gem(t)
    (action,) = [a for a in open_actions(t.game, "red") if a.action == "calendar_tile"]
    assert [c["event"]["symbol"] for c in action.choices] == ["sun", "moon", "gear"]
    assert not [a for a in open_actions(t.game, "blue") if a.action == "calendar_tile"]


def test_reminders_and_marks_say_the_calendar():
    from rules.modules_registry import INSTANCES

    module = INSTANCES["maya_calendar"]
    t = calendar("doomed")
    rows = module.reminders(t.game)
    assert any("Doomed calendar (space 0 of 9)" in r for r in rows)
    assert any("Reach space 3 before countdown 1 ends" in r for r in rows)
    assert any("adds 3 keys to the escape" in r for r in rows)
    discover_gem(t)
    draw(t, "gear")
    placed = t.game.temple.at((1, 0))
    assert module.tile_marks(t.game, placed) == [
        {"token": "calendar-gear", "label": "calendar tile: gear"}
    ]
    t.ok(type="countdown_end", n=1)
    assert module.player_marks(t.game, t.player("red"))[0]["count"] == 1
    assert any("Red's 1 die on the calendar chamber" in r for r in module.reminders(t.game))


# ----- the record -------------------------------------------------------------------------------


def test_a_record_replays_to_the_same_state():
    t = calendar("doomed")
    discover_gem(t)
    draw(t, "sun")
    t.roll("red", A, A, K, K, K)
    t.ok(type="enter", player="red", cell=[1, 0])
    t.roll("red", K, K, K, K, A)
    t.ok(type="activate", cell=[1, 0], gems=1, players=["red"])
    t.ok(type="countdown_end", n=1)
    setup = {
        "type": "setup",
        "players": ["red", "blue"],
        "modules": ["maya_calendar"],
        "maya_side": "doomed",
    }
    lines = [json.dumps(setup)] + [json.dumps(e) for e in t.game.accepted]
    replay = replay_lines(lines)
    assert all(v.ok for v in replay.verdicts)
    assert replay.game.state_json() == t.state
    assert t.state["maya_calendar"]["position"] == 1
    assert t.game.copy().maya_calendar == t.game.maya_calendar


def test_a_tile_on_a_vanished_illusion_chamber_goes_under_the_stack():  # p. 13 with p. 32
    t = Table(modules=["illusions", "maya_calendar"], maya_side="eternal")
    discover_gem(t, tile="illusion-1")
    draw(t, "moon")
    discover_gem(t, (-1, 0), tile="illusion-2")
    t.ok(type="countdown_end", n=1)  # both illusion chambers vanish
    state = cal(t)
    assert state["tiles"] == [] and state["awaiting"] == [] and state["stack"] == 9
    assert t.game.maya_calendar.returned == ["moon"]


def test_a_chamber_without_gem_icons_keeps_the_engines_reason():
    t = calendar()
    t.roll("red", K, K, K, K, A)
    reason = t.no(type="activate", cell=[0, 0], gems=1, players=["red"])
    assert reason == "Starting chamber has no gem icons"


def test_the_log_tells_each_calendar_event_by_names():
    t = calendar("doomed")
    discover_gem(t)
    draw(t, "moon")
    discover_gem(t, (-1, 0), GEM2)
    draw(t, "sun", (-1, 0))
    t.game.temple.place(t.game.catalog["calendar"], (0, 1), "S")
    stand_in(t, (0, 1), "red")
    t.roll("red", K, K, K, A, T)
    t.ok(type="calendar_swap", player="red", cells=[[1, 0], [-1, 0]])
    assert tell_event(t.game.accepted[-1], t.game) == (
        "Red activates the calendar chamber and swaps the calendar tiles of Chamber with one "
        "gem (keys) 1 (east of the start) and Chamber with one gem (keys) 2 (west of the start)"
    )
    t.ok(type="countdown_end", n=1)
    t.ok(type="calendar_die", player="red")
    assert tell_event(t.game.accepted[-1], t.game) == (
        "Red takes back his die from the calendar chamber"
    )
    t.game.depot = 0
    stand_in(t, (1, 0), "blue")
    t.roll("blue", K, K, K, K)
    t.ok(type="calendar_advance", cell=[1, 0], players=["blue"])
    assert cal(t)["position"] == 1  # the swap brought the sun there
    assert tell_event(t.game.accepted[-1], t.game) == (
        "Blue advances the Maya calendar without a gem in Chamber with one gem (keys) 1 "
        "(east of the start)"
    )
