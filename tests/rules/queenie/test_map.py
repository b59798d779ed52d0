"""Queenie 13 (Map), from the Queenie box rulebook: 2 torches in the Map chamber take a player
to any other chamber already discovered."""

import json

from rules_helpers import A, G, K, T, Table, start_and

from rules.actions import open_actions
from rules.engine import Game
from rules.game_setup import setup_catalog, starting_candidates
from rules.narrative import tell_event
from rules.record import replay_lines

TEMPLE = start_and(("gem3-torch-1", (-1, 0), "E"), ("gem3-key-1", (0, 1), "S"))
SETUP = {"type": "setup", "players": ["red", "blue"], "modules": ["map"], "temple": TEMPLE}


def in_the_map(modules=("map",)) -> Table:
    """Red discovers the Map chamber east of the start and walks in."""
    t = Table(modules=list(modules), temple=TEMPLE)
    t.roll("red", A, A, K, T, G)
    t.ok(type="discover", player="red", tile="map", cell=[1, 0])
    t.ok(type="enter", player="red", cell=[1, 0])
    return t


def travel(t: Table) -> list:
    return [a for a in open_actions(t.game, "red") if a.action == "map_travel"]


def test_the_map_chamber_joins_the_pile_never_the_starting_temple():  # Queenie 13, set-up
    catalog = setup_catalog(["map"])
    assert catalog["map"].feature == "map" and catalog["map"].name == "Map chamber"
    assert "map" not in starting_candidates(catalog) and "map" not in setup_catalog([])


def test_two_torches_take_the_player_to_any_other_discovered_chamber():  # Queenie 13
    t = in_the_map()
    t.roll("red", T, T, K, A, G)
    t.ok(type="map_travel", player="red", cell=[-1, 0])  # not next to the map: no way needed
    assert t.state["players"]["red"]["cell"] == [-1, 0]
    assert dict(t.player("red").showing) == {K: 1, A: 1, G: 1}


def test_the_traveller_rolls_the_two_torches_himself():  # Queenie 13
    t = in_the_map()
    t.roll("red", T, K, K, A, G)
    reason = t.no(type="map_travel", player="red", cell=[-1, 0])
    assert reason == "red shows 1 torch, 2 needed to travel by the map to Gem chamber (torches) 1"


def test_only_from_the_map_chamber_and_only_to_another_discovered_chamber():  # Queenie 13
    t = in_the_map()
    t.roll("blue", T, T, T, T, T)
    assert t.no(type="map_travel", player="blue", cell=[1, 0]) == "blue is not in the Map chamber"
    t.roll("red", T, T, K, A, G)
    assert "already discovered" in t.no(type="map_travel", player="red", cell=[5, 5])
    assert "another chamber" in t.no(type="map_travel", player="red", cell=[1, 0])
    basic = Table(temple=TEMPLE).no(type="map_travel", player="red", cell=[0, 0])
    assert basic.startswith("unknown event type 'map_travel'")


def test_a_player_who_may_not_move_may_not_travel_either():  # the Trap curse (page 10)
    t = in_the_map(modules=("curses", "map"))
    t.player("red").curses.append("trap")
    t.roll("red", T, T, K, A, G)
    assert "may not travel by the map" in t.no(type="map_travel", player="red", cell=[0, 0])
    (action,) = travel(t)
    assert action.blocked and "Trap" in action.blocked and not action.possible


def test_the_dashboard_offers_each_discovered_chamber():
    t = in_the_map()
    (action,) = travel(t)
    assert action.need == {T: 2} and action.missing  # nothing rolled since the discovery
    names = sorted(c["name"] for c in action.choices)
    assert names == ["Gem chamber (keys) 1", "Gem chamber (torches) 1", "Starting chamber"]
    assert all(c["event"]["type"] == "map_travel" for c in action.choices)
    assert travel(Table(modules=["map"], temple=TEMPLE)) == []  # outside the map: nothing


def test_the_log_says_where_the_map_took_the_player():
    t = in_the_map()
    text = tell_event({"type": "map_travel", "player": "red", "cell": [-1, 0]}, t.game)
    assert text == "Red travels by the map to the Gem chamber west of the start"


def test_a_record_replays_to_the_same_state():
    events = [
        {"type": "dice", "player": "red", "faces": [A, A, K, T, G]},
        {"type": "discover", "player": "red", "tile": "map", "cell": [1, 0]},
        {"type": "enter", "player": "red", "cell": [1, 0]},
        {"type": "dice", "player": "red", "faces": [T, T, K, A, G]},
        {"type": "map_travel", "player": "red", "cell": [0, 1]},
    ]
    live = Game.from_setup_line(SETUP)
    assert all(live.apply(e).ok for e in events)
    text = "\n".join(json.dumps(line) for line in [SETUP, *events])
    replay = replay_lines(text.split("\n"))
    assert all(v.ok for v in replay.verdicts)
    assert replay.game.state_json() == live.state_json()
    assert replay.game.state_json()["players"]["red"]["cell"] == [0, 1]
