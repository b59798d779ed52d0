"""Modules 1 (Curses) and 2 (Treasures) as the dashboard needs them: the log's words (names,
never ids), the open actions it turns into pickers, and the rules benchmark with the modules."""

from rules_helpers import K, Table, start_and

from rules.actions import open_actions
from rules.benchmark import run_rules_benchmark
from rules.modules import MODULES
from rules.narrative import tell_event

BOTH = ["curses", "treasures"]
BOTH_MARKS = "ct-gem1-key-3"  # a purple mask and a treasure icon


def told(t: Table, **event: object) -> str:
    """Apply an accepted event and say it as the dashboard's log does."""
    t.ok(**event)
    return tell_event(event, t.game)


def test_the_log_tells_curses_and_treasures_by_their_printed_names():
    t = Table(players=["red", "blue"], modules=BOTH, track_dice=False)
    assert told(t, type="discover", player="red", tile=BOTH_MARKS, cell=[0, 1]) == (
        "Red discovers a One-gem chamber (keys) with a purple mask and a treasure icon "
        "north of the start"
    )
    assert told(t, type="curse", player="red", card="broken_die") == (
        "Red draws the curse Broken die"
    )
    assert told(t, type="lift", player="red", card="broken_die") == "Red lifts the curse Broken die"
    t.ok(type="enter", player="red", cell=[0, 1])
    assert told(t, type="claim", player="red", treasure="double_key") == (
        "Red claims a treasure: the Double key"
    )
    t.game.players["red"].treasures += ["extra_gem", "teleport"]
    assert told(t, type="use", player="red", treasure="extra_gem") == (
        "Red uses the Extra gem: a gem from the depot lies activated on it"
    )
    assert told(t, type="use", player="red", treasure="teleport", cell=[0, 0]) == (
        "Red teleports to the start chamber (Teleport)"
    )
    said = told(t, type="enter", player="red", cell=[0, 1], treasures=["double_key"])
    assert said == "Red enters the One-gem chamber north of the start with the Double key"
    for text in (said, tell_event({"type": "curse", "player": "red", "card": "x"}, t.game)):
        assert "_" not in text  # no ids: double_key, broken_die ...


def test_a_basic_game_s_words_are_unchanged():
    t = Table(players=["red"])
    event = {"type": "discover", "player": "red", "tile": "gem1-key-1", "cell": [0, 1]}
    assert tell_event(event, t.game) == "Red discovers a One-gem chamber (keys) north of the start"


def test_the_secret_passage_is_offered_where_a_wall_keeps_two_chambers_apart():
    # chamber-6 has no door but its stairway: at [1, 1] facing S it turns its back on [0, 1].
    temple = start_and(("ct-chamber-6", (1, 1), "S"), ("ct-chamber-1", (0, 1), "S"))
    t = Table(players=["red"], modules=BOTH, track_dice=False, temple=temple)
    t.game.players["red"].treasures.append("secret_passage")
    use = next(a for a in open_actions(t.game, "red") if a.action == "use")
    assert use.possible and use.label == "use the Secret passage"
    said = tell_event({**use.event, "cells": [[0, 1], [1, 1]]}, t.game)
    assert said == (
        "Red lays the Secret passage between the Chamber north of the start and the Chamber "
        "north-east of the start"
    )


def test_open_actions_say_what_they_cost_so_a_double_key_can_stand_in():
    t = Table(players=["red"], modules=BOTH, temple=start_and(("exit", (1, 0), "W")))
    t.game.players["red"].treasures.append("double_key")
    enter = next(a for a in open_actions(t.game, "red") if a.action == "enter")
    assert enter.to_json()["need"] == {"adventurer": 1, K: 1}


def test_every_module_has_a_number_name_and_description():
    assert [(m.number, m.name) for m in MODULES.values()] == [
        (1, "Curses"),
        (2, "Treasures"),
        (3, "Illusion chambers"),
        (4, "Special chambers"),
        (5, "Quest chambers"),
        (6, "Characters"),
        (7, "Trap chambers"),
        (8, "Time chambers"),
    ]
    assert all(len(m.summary) > 40 for m in MODULES.values())


def test_the_rules_benchmark_plays_the_modules():
    figures = run_rules_benchmark(events=1500, repeats=1, seed=3, modules=("curses", "treasures"))
    assert figures.modules == ("curses", "treasures") and figures.module_events > 0
    assert figures.open_actions_ms_warm < 5  # measured 0.39 ms on the development machine
    basic = run_rules_benchmark(events=300, repeats=1, seed=3)
    assert basic.module_events == 0 and basic.modules == ()
