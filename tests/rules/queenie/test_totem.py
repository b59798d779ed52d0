"""Queenie: Totem Chamber, from the Big Box rulebook's page 35."""

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_helpers import A, B, G, K, T, Table, start_and
from test_modules_properties import module_setup, snapshot

from rules.actions import open_actions
from rules.engine import Game
from rules.game_setup import setup_catalog, starting_candidates
from rules.modules_registry import INSTANCES
from rules.narrative import tell_event
from rules.queenie.totem import gems_for
from rules.record import replay_lines
from rules.simulate import random_events

SETUP = {"type": "setup", "players": ["red", "blue"], "modules": ["totem"]}


def table(**setup):
    """Red and blue, with red having discovered the totem east of the start and both inside."""
    t = Table(players=["red", "blue"], modules=["totem"], **setup)
    t.roll("red", A, A, K, T, G)
    t.ok(type="discover", player="red", tile="totem", cell=[1, 0])
    t.ok(type="enter", player="red", cell=[1, 0])
    t.roll("blue", K, T, A, A, A)
    t.ok(type="enter", player="blue", cell=[1, 0])
    return t


def test_the_totem_chamber_joins_the_pile_but_never_the_starting_temple():  # Big Box p. 35
    catalog = setup_catalog(["totem"])
    assert catalog["totem"].feature == "totem"
    assert "totem" not in starting_candidates(catalog)
    assert "totem" not in setup_catalog([])


def test_five_stacked_dice_activate_one_gem_ten_activate_two():  # Big Box p. 35
    assert [gems_for(n) for n in (0, 4, 5, 9, 10, 14)] == [0, 0, 1, 1, 2, 2]
    t = table()
    t.roll("red", G, G, G, B, B)
    t.roll("blue", G, G, G, B, B)
    depot = t.game.depot
    t.ok(type="totem", players=["red", "blue"], stacked=10)
    assert t.game.depot == depot - 2
    assert t.game.temple.at((1, 0)).gems == 2
    assert t.state["totem_stacked"] == 10
    red, blue = t.player("red"), t.player("blue")
    assert (red.locked, blue.locked) == (2, 2)  # a stacked black mask keeps its face
    assert not red.showing[G] and not blue.showing[G]  # the golden masks were used


def test_a_stack_under_five_dice_activates_nothing():  # Big Box p. 35
    t = table()
    t.roll("red", G, G, G, G, K)
    assert t.no(type="totem", players=["red"], stacked=4) == (
        "4 dice stacked: 5 activate 1 gem, 10 activate 2"
    )
    (stack,) = [a for a in open_actions(t.game, "red") if a.action == "totem"]
    assert stack.blocked == "4 dice showing masks here, 5 needed to stack"


def test_only_dice_showing_golden_or_black_masks_are_stacked():  # Big Box p. 35
    t = table()
    t.roll("red", G, G, B, K, K)
    t.roll("blue", G, T, T, K, A)
    assert t.no(type="totem", players=["red", "blue"], stacked=5) == (
        "red and blue show 4 dice with a golden or black mask, 5 stacked"
    )
    t.roll("blue", G, G, T, K, A)
    t.ok(type="totem", players=["red", "blue"], stacked=5)
    assert t.game.temple.at((1, 0)).gems == 1


def test_the_totem_s_gems_are_activated_only_once_per_game():  # Big Box p. 35
    t = table()
    t.roll("red", G, G, G, G, G)
    t.ok(type="totem", players=["red"], stacked=5)
    t.roll("red", G, G, G, G, G)
    assert "only once per game" in t.no(type="totem", players=["red"], stacked=5)
    assert not [a for a in open_actions(t.game, "red") if a.action == "totem"]
    assert INSTANCES["totem"].reminders(t.game) == []


def test_every_stacker_stands_in_the_totem_chamber():  # Big Box p. 35
    t = Table(players=["red", "blue"], modules=["totem"])
    t.roll("red", A, A, K, T, G)
    t.ok(type="discover", player="red", tile="totem", cell=[1, 0])
    t.ok(type="enter", player="red", cell=[1, 0])
    t.roll("red", G, G, G, G, G)
    t.roll("blue", G, G, G, G, G)
    assert t.no(type="totem", players=["red", "blue"], stacked=10) == (
        "blue is not inside the Totem chamber"
    )
    assert "only once" in t.no(type="totem", players=["red", "red"], stacked=10)


def test_the_open_action_stacks_everyone_s_masks_and_the_log_says_it():  # Big Box p. 35
    t = table()
    t.roll("red", G, G, G, B, K)
    t.roll("blue", G, G, B, B, A)
    (stack,) = [a for a in open_actions(t.game, "blue") if a.action == "totem"]
    assert stack.possible
    assert stack.event == {"type": "totem", "players": ["red", "blue"], "stacked": 8}
    assert tell_event(stack.event, t.game) == "Red and Blue stack 8 dice on the totem: 1 gem"
    alone = {"type": "totem", "players": ["red"], "stacked": 5}
    assert tell_event(alone, t.game) == "Red stacks 5 dice on the totem: 1 gem"
    assert INSTANCES["totem"].tile_marks(t.game, t.game.temple.at((1, 0)))[0]["count"] == 2


def test_a_record_with_the_totem_replays_to_the_same_state():  # Big Box p. 35
    events = [
        {"type": "dice", "player": "red", "faces": [A, A, K, T, G]},
        {"type": "discover", "player": "red", "tile": "totem", "cell": [1, 0]},
        {"type": "enter", "player": "red", "cell": [1, 0]},
        {"type": "dice", "player": "red", "faces": [G, G, G, B, B]},
        {"type": "totem", "players": ["red"], "stacked": 5},
    ]
    replay = replay_lines([json.dumps(SETUP)] + [json.dumps(e) for e in events])
    assert all(v.ok for v in replay.verdicts)
    assert replay.game.state_json()["totem_stacked"] == 5
    live = Game.from_setup_line(SETUP)
    for event in events:
        live.apply(event)
    assert live.state_json() == replay.game.state_json()


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 6))
def test_random_games_with_the_totem_stay_sound(seed, players):
    rng = random.Random(seed)
    setup = module_setup(rng, ["totem"], players)
    game, judge = Game.from_setup_line(setup), Game.from_setup_line(setup)
    for event in random_events(rng, game, 250, noise=0.1, seconds_per_event=2.0):
        before = snapshot(judge)
        if not judge.apply(event).ok:
            assert snapshot(judge) == before, f"rejected {event} changed the state"
        assert judge.depot >= 0
    assert judge.state_json() == game.state_json()


def test_the_players_listed_are_judged_in_order_an_escaped_one_before_an_unknown_id():
    exit_west = start_and(("exit", (-1, 0), "E"))
    t = Table(players=["red", "blue"], modules=["totem"], temple=exit_west, track_dice=False)
    t.ok(type="enter", player="blue", cell=[-1, 0]).ok(type="escape", player="blue")
    assert t.no(type="totem", players=["blue", "nobody"], stacked=5) == "blue has already escaped"
    assert t.no(type="totem", players=["red", "nobody"], stacked=5) == (
        "unknown player 'nobody' (players: red, blue)"
    )
    assert t.no(type="totem", players=[], stacked=5) == (
        "'players' must list the players who stack their dice"
    )
