"""Queenie: The Cursed Gems, from the Big Box rulebook's page 35 (the Queenie box's Queenie 11
prints the same rules)."""

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_helpers import A, K, T, Table
from test_modules_properties import module_setup, snapshot

from rules.actions import open_actions
from rules.engine import Game
from rules.errors import RecordError
from rules.modules_registry import INSTANCES
from rules.record import replay_lines
from rules.simulate import random_events

GEMS = {"red": "gem-1", "blue": "gem-4"}
MODULE = INSTANCES["cursed_gems"]


def table(track_dice=True, **setup):
    return Table(
        players=["red", "blue"],
        modules=["cursed_gems"],
        cursed_gems=GEMS,
        track_dice=track_dice,
        **setup,
    )


def one_gem_chamber(t, pid="red"):
    """`pid` discovers a one-gem chamber east of the start and goes in (dice not tracked)."""
    t.ok(type="discover", player=pid, tile="gem1-torch-2", cell=[1, 0])  # doors all round
    t.ok(type="enter", player=pid, cell=[1, 0])


def test_each_player_is_dealt_a_different_cursed_gem_tile():  # Big Box p. 35
    t = table()
    assert t.state["cursed_gems"] == GEMS
    (mark,) = MODULE.player_marks(t.game, t.player("red"))
    assert mark["token"] == "cursed-gem"
    assert mark["label"].startswith("cursed gem tile ") and "gem-" not in mark["label"]  # no id
    line = {"type": "setup", "players": ["red", "blue"], "modules": ["cursed_gems"]}
    dealt = Game.from_setup_line(line).state_json()["cursed_gems"]
    assert dealt == {"red": "gem-1", "blue": "gem-2"}  # none written: in the players' order
    with pytest.raises(RecordError, match="must give each player the cursed gem tile"):
        Game.from_setup_line({**line, "cursed_gems": ["gem-1", "gem-2"]})
    with pytest.raises(RecordError, match="one player only"):
        Game.from_setup_line({**line, "cursed_gems": {"red": "gem-1", "blue": "gem-1"}})
    with pytest.raises(RecordError, match="unknown cursed gem tile 'ruby' for blue"):
        Game.from_setup_line({**line, "cursed_gems": {"red": "gem-1", "blue": "ruby"}})
    with pytest.raises(RecordError, match="every player one tile"):
        Game.from_setup_line({**line, "cursed_gems": {"red": "gem-1"}})


def test_random_games_deal_one_tile_each():  # Big Box p. 35
    fields = MODULE.random_setup_fields(random.Random(3), ["red", "blue", "green"])
    tiles = fields["cursed_gems"]
    assert set(tiles) == {"red", "blue", "green"} and len(set(tiles.values())) == 3


def test_only_a_discovered_one_gem_chamber_gets_a_face_down_location_tile():  # Big Box p. 35
    t = table(track_dice=False)
    t.ok(type="discover", player="red", tile="gem3-key-1", cell=[-1, 0])  # three gems
    assert t.state["gem_locations"] == [] and t.state["gem_location_pile"] == 6
    one_gem_chamber(t)
    assert t.state["gem_locations"] == [{"cell": [1, 0], "tile": None}]
    assert t.state["gem_location_pile"] == 5
    assert MODULE.tile_marks(t.game, t.game.temple.at((1, 0)))[0]["token"] == "gem-location"


def test_the_stack_of_six_location_tiles_runs_out():  # Big Box p. 35
    gem = {"count": 1, "icon": "key", "costs": [4]}
    tiles = {
        f"one-gem-{n}": {
            "name": f"One gem {n}",
            "kind": "chamber",
            "doors": ["N", "E", "W"],
            "enter": [],
            "gems": gem,
        }
        for n in range(1, 8)
    }
    t = table(track_dice=False, tiles=tiles)
    for n in range(1, 8):  # red walks east, discovering seven one-gem chambers
        t.ok(type="discover", player="red", tile=f"one-gem-{n}", cell=[n, 0])
        t.ok(type="enter", player="red", cell=[n, 0])
    assert [spot["cell"] for spot in t.state["gem_locations"]] == [[n, 0] for n in range(1, 7)]
    assert t.state["gem_location_pile"] == 0


def test_looking_costs_two_keys_and_the_matching_tile_frees_the_player():  # Big Box p. 35
    t = table()
    t.roll("red", A, A, K, T, T)
    t.ok(type="discover", player="red", tile="gem1-key-3", cell=[1, 0])
    t.ok(type="enter", player="red", cell=[1, 0])  # key and torch
    assert "red shows 0 keys, 2 needed to look at the tile" in t.no(
        type="gem_location", player="red", location="gem-1"
    )
    t.roll("red", K, K, A, A, T)
    t.ok(type="gem_location", player="red", location="gem-1")
    assert t.state["cursed_gems"] == {"blue": "gem-4"}
    assert t.state["gem_locations"] == [] and t.state["gems_returned"] == ["gem-1"]
    assert dict(t.player("red").showing) == {A: 2, T: 1}
    assert MODULE.player_marks(t.game, t.player("red")) == []


def test_a_tile_that_does_not_match_stays_face_down_and_keeps_its_picture():  # p. 35
    t = table(track_dice=False)
    one_gem_chamber(t)
    t.ok(type="gem_location", player="red", location="gem-4")  # blue's gem: red describes it
    assert t.state["gem_locations"] == [{"cell": [1, 0], "tile": "gem-4"}]
    assert t.state["cursed_gems"] == GEMS
    assert "cannot be gem-2: an earlier look saw gem-4 there" in t.no(
        type="gem_location", player="red", location="gem-2"
    )
    assert not [a for a in open_actions(t.game, "blue") if a.action == "gem_location"]
    t.ok(type="enter", player="blue", cell=[1, 0])
    (look,) = [a for a in open_actions(t.game, "blue") if a.action == "gem_location"]
    assert [c["event"]["location"] for c in look.choices] == ["gem-4"]
    t.ok(type="gem_location", player="blue", location="gem-4")
    assert t.state["cursed_gems"] == {"red": "gem-1"}


def test_a_look_is_refused_where_no_location_tile_lies_or_for_an_impossible_tile():  # p. 35
    t = table(track_dice=False)
    assert t.no(type="gem_location", player="red", location="gem-1") == (
        "there is no gem location tile in the Starting chamber"
    )
    one_gem_chamber(t)
    assert "'location' must be the gem location tile seen" in t.no(
        type="gem_location", player="red", location="ruby"
    )
    t.ok(type="gem_location", player="red", location="gem-1")
    t.ok(type="discover", player="red", tile="gem1-key-3", cell=[2, 0])
    t.ok(type="enter", player="red", cell=[2, 0])
    assert "cannot be gem-1: gem-1 went back into the box" in t.no(
        type="gem_location", player="red", location="gem-1"
    )


def test_nobody_escapes_with_a_cursed_gem_tile_in_front_of_him():  # Big Box p. 35
    t = table(track_dice=False)
    one_gem_chamber(t)
    t.ok(type="discover", player="red", tile="exit", cell=[2, 0])
    t.ok(type="enter", player="red", cell=[2, 0])
    assert t.no(type="escape", player="red") == (
        "red still holds a cursed gem tile: nobody escapes before finding the location of his "
        "cursed gem"
    )
    (escape,) = [a for a in open_actions(t.game, "red") if a.action == "escape"]
    assert escape.blocked == "red still holds a cursed gem tile"
    t.ok(type="enter", player="red", cell=[1, 0])
    t.ok(type="gem_location", player="red", location="gem-1")
    t.ok(type="enter", player="red", cell=[2, 0])
    t.ok(type="escape", player="red")


def test_the_reminders_say_what_the_table_does_by_itself():  # Big Box p. 35
    t = table(track_dice=False)
    assert any("nobody escapes" in note for note in MODULE.reminders(t.game))
    one_gem_chamber(t)
    assert any("without showing it" in note for note in MODULE.reminders(t.game))


def test_a_record_with_cursed_gems_replays_to_the_same_state():  # Big Box p. 35
    setup = {
        "type": "setup",
        "players": ["red", "blue"],
        "modules": ["cursed_gems"],
        "cursed_gems": GEMS,
    }
    events = [
        {"type": "dice", "player": "red", "faces": [A, A, K, T, T]},
        {"type": "discover", "player": "red", "tile": "gem1-key-3", "cell": [1, 0]},
        {"type": "enter", "player": "red", "cell": [1, 0]},
        {"type": "dice", "player": "red", "faces": [K, K, A, A, T]},
        {"type": "gem_location", "player": "red", "location": "gem-4"},
    ]
    replay = replay_lines([json.dumps(setup)] + [json.dumps(e) for e in events])
    assert all(v.ok for v in replay.verdicts)
    live = Game.from_setup_line(setup)
    for event in events:
        assert live.apply(event).ok
    assert live.state_json() == replay.game.state_json()
    assert replay.game.state_json()["gem_locations"] == [{"cell": [1, 0], "tile": "gem-4"}]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 6))
def test_random_games_with_cursed_gems_stay_sound(seed, players):
    rng = random.Random(seed)
    setup = module_setup(rng, ["cursed_gems"], players)
    game, judge = Game.from_setup_line(setup), Game.from_setup_line(setup)
    for event in random_events(rng, game, 250, noise=0.1, seconds_per_event=2.0):
        before = snapshot(judge)
        if not judge.apply(event).ok:
            assert snapshot(judge) == before, f"rejected {event} changed the state"
        state = judge.cursed_gems
        assert state.pile + len(state.lying) + len(state.boxed) <= 6
        escaped = {pid for pid, p in judge.players.items() if p.escaped}
        assert not escaped & set(state.held)
    assert judge.state_json() == game.state_json()
