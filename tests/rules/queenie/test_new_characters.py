"""Queenie: New Characters, from the Big Box rulebook's pages 30 and 31."""

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_helpers import A, B, G, K, T, Table, start_and
from test_modules_properties import module_setup, snapshot

from rules.actions import open_actions
from rules.engine import Game
from rules.errors import RecordError
from rules.game_setup import setup_catalog, starting_candidates
from rules.modules import treasures_in_play
from rules.modules_registry import INSTANCES
from rules.narrative import tell_event
from rules.record import replay_lines
from rules.simulate import random_events

MODULES = ["quests", "characters", "treasures", "new_characters"]
QUESTS = ["altar", "task", "tree"]
CARDS = {"red": "trickster-swap", "blue": "doc-masks"}


def table(characters=CARDS, track_dice=True, **setup):
    return Table(
        players=list(characters),
        modules=MODULES,
        quests=QUESTS,
        characters=characters,
        track_dice=track_dice,
        **setup,
    )


def claim(t, pid, treasure, cell=(-1, 0)):
    """`pid` discovers the Narrow gauge west of the start, goes in and claims `treasure`."""
    t.ok(type="discover", player=pid, tile="narrow-gauge", cell=list(cell))
    t.ok(type="enter", player=pid, cell=list(cell))
    t.ok(type="claim", player=pid, treasure=treasure)
    assert treasure in t.player(pid).treasures


# ----- set-up (page 30) -------------------------------------------------------------------


def test_the_module_is_refused_without_the_quest_expansion():  # Big Box p. 30
    with pytest.raises(RecordError, match=r"played only with 'quests'.*add 'quests'"):
        Game.from_setup_line({"type": "setup", "players": ["red"], "modules": ["new_characters"]})


def test_its_two_chambers_join_the_pile_but_never_the_starting_temple():  # Big Box p. 30
    catalog = setup_catalog(["quests", "new_characters"], QUESTS)
    assert catalog["dungeon"].feature == "dungeon"
    assert catalog["narrow-gauge"].feature == "narrow-gauge"
    assert not {"dungeon", "narrow-gauge"} & set(starting_candidates(catalog))
    assert "dungeon" not in setup_catalog(["quests"], QUESTS)


def test_the_new_cards_are_chosen_only_with_the_module_and_one_character_each():  # p. 30
    line = {
        "type": "setup",
        "players": ["red", "blue"],
        "modules": ["characters"],
        "characters": {"red": "trickster-swap", "blue": "doc-heal"},
    }
    with pytest.raises(RecordError, match="unknown character card 'trickster-swap'"):
        Game.from_setup_line(line)
    with pytest.raises(RecordError, match="one player only"):
        table({"red": "trickster-swap", "blue": "trickster-anywhere"})
    t = table({"red": "void-runner-step", "blue": "trickster-anywhere"})
    assert t.state["players"]["red"]["character"] == "void-runner-step"


def test_the_treasures_join_the_pile_only_with_the_treasures_module():  # Big Box p. 30
    t = table(track_dice=False)
    claim(t, "red", "portal")
    assert {"portal", "clone"} <= set(treasures_in_play(MODULES))
    assert not {"portal", "clone"} & set(treasures_in_play(["treasures"]))


# ----- the Dungeon (page 30) --------------------------------------------------------------


def test_the_dungeon_is_entered_by_any_entrance_but_never_left_by_its_grey_slide():  # p. 30
    t = table(track_dice=False)
    t.ok(type="discover", player="red", tile="dungeon", cell=[1, 0])  # grey slide to the W
    t.ok(type="enter", player="red", cell=[1, 0])
    assert t.no(type="enter", player="red", cell=[0, 0]) == (
        "red cannot leave the Dungeon by its grey slide"
    )
    moves = [a.event.get("cell") for a in open_actions(t.game, "red") if a.action == "enter"]
    assert [0, 0] not in moves
    # by another entrance: a chamber north of the dungeon, and back in through its north door
    t.ok(type="discover", player="red", tile="ct-chamber-7", cell=[1, 1])  # doors all round
    t.ok(type="enter", player="red", cell=[1, 1])
    t.ok(type="enter", player="red", cell=[1, 0])
    assert "grey slide" in t.no(type="enter", player="red", cell=[0, 0])
    t.ok(type="enter", player="red", cell=[1, 1])  # out by the north door
    assert any("grey slide" in note for note in INSTANCES["new_characters"].reminders(t.game))


def test_nobody_discovers_through_the_grey_slide_once_the_chamber_behind_it_vanished():
    t = Table(  # Big Box p. 30, with module 3's illusion chambers (p. 12)
        players=["red"],
        modules=["quests", "illusions", "new_characters"],
        quests=QUESTS,
        track_dice=False,
        temple=start_and(("illusion-5", (1, 0), "W")),
    )
    t.ok(type="enter", player="red", cell=[1, 0])
    t.ok(type="discover", player="red", tile="dungeon", cell=[2, 0])
    t.ok(type="enter", player="red", cell=[2, 0])
    t.ok(type="countdown_start", n=1).ok(type="countdown_end", n=1)
    assert t.game.temple.at((1, 0)) is None  # the illusion chamber vanished
    assert t.no(type="discover", player="red", tile="gem3-key-1", cell=[1, 0]) == (
        "nobody discovers a chamber through the Dungeon's grey slide"
    )
    found = [a.event["cell"] for a in open_actions(t.game, "red") if a.action == "discover"]
    assert [1, 0] not in found and found
    t.ok(type="discover", player="red", tile="gem3-key-1", cell=[2, 1])


# ----- the Narrow gauge (page 31) ---------------------------------------------------------


def test_the_narrow_gauge_takes_three_torches_and_holds_a_gem_and_a_treasure():  # p. 31
    t = table()
    t.roll("red", A, A, T, T, K)
    t.ok(type="discover", player="red", tile="narrow-gauge", cell=[-1, 0])
    assert [-1, 0] in t.state["treasure_cells"]
    assert t.no(type="enter", player="red", cell=[-1, 0]) == (
        "red shows 2 torches, 3 needed to enter Narrow gauge"
    )
    t.roll("red", T, T, T, K, K)
    t.ok(type="enter", player="red", cell=[-1, 0])
    t.roll("red", K, K, K, K, A)
    t.ok(type="activate", players=["red"], cell=[-1, 0], gems=1)
    assert t.game.temple.at((-1, 0)).gems == 1


# ----- the Trickster (page 31) ------------------------------------------------------------


def test_the_trickster_exchanges_dice_evenly_in_his_chamber():  # Big Box p. 31
    t = table()
    t.roll("red", K, K, T, A, B)
    t.roll("blue", T, T, G, G, A)
    t.ok(type="trade_dice", player="red", **{"with": "blue"}, give=[K, B], take=[G, T])
    red, blue = t.player("red"), t.player("blue")
    assert (red.dice, blue.dice) == (5, 5)
    assert dict(red.showing) == {K: 1, T: 2, A: 1, G: 1} and red.locked == 0
    assert dict(blue.showing) == {T: 1, G: 1, A: 1, K: 1} and blue.locked == 1
    assert "exchanges evenly: 2 dice given for 1 die taken" in t.no(
        type="trade_dice", player="red", **{"with": "blue"}, give=[K, T], take=[A]
    )
    assert "'give' must list die faces" in t.no(
        type="trade_dice", player="red", **{"with": "blue"}, give=["crown"], take=[T]
    )
    assert "blue shows 1 adventurer, 2 to exchange" in t.no(
        type="trade_dice", player="red", **{"with": "blue"}, give=[T, T], take=[A, A]
    )
    assert "another adventurer" in t.no(
        type="trade_dice", player="red", **{"with": "red"}, give=[K], take=[T]
    )


def test_the_trickster_s_permanent_card_needs_the_other_in_his_chamber():  # Big Box p. 31
    t = table(track_dice=False, temple=start_and(("ct-chamber-1", (-1, 0), "E")))
    t.ok(type="enter", player="blue", cell=[-1, 0])
    t.roll("red", K, K, T, A, A)
    t.roll("blue", T, T, G, G, A)
    assert "only with an adventurer in his chamber: blue is elsewhere" in t.no(
        type="trade_dice", player="red", **{"with": "blue"}, give=[K], take=[T]
    )
    assert "plays no Trickster card" in t.no(
        type="trade_dice", player="blue", **{"with": "red"}, give=[T], take=[K]
    )


def test_the_trickster_s_activatable_card_works_anywhere_once_per_countdown():  # p. 31
    t = table(
        {"red": "trickster-anywhere", "blue": "doc-masks"},
        temple=start_and(("ct-chamber-1", (-1, 0), "E")),
    )
    t.roll("blue", A, A, K, K, K)
    t.ok(type="enter", player="blue", cell=[-1, 0])
    t.roll("red", K, K, T, A, A)
    t.ok(type="trade_dice", player="red", **{"with": "blue"}, give=[A], take=[K])
    assert t.state["players"]["red"]["charged"] is False
    assert "face down" in t.no(
        type="trade_dice", player="red", **{"with": "blue"}, give=[A], take=[K]
    )
    t.ok(type="countdown_start", n=1).ok(type="countdown_end", n=1)  # the slam turns it up
    t.roll("red", K, K, T, A, A)
    t.roll("blue", K, K, K, K)  # the slam took a die of blue, outside the start
    t.ok(type="trade_dice", player="red", **{"with": "blue"}, give=[A], take=[K])


# ----- the Void runner (page 31) ----------------------------------------------------------


def test_the_void_runner_steps_outside_between_chambers_with_open_entrances():  # p. 31
    cards = {"red": "void-runner-step", "blue": "doc-masks"}
    temple = start_and(("ct-chamber-1", (2, 0), "W"), ("ct-chamber-6", (0, 1), "S"))
    t = table(cards, temple=temple)
    t.roll("red", A, K, K, T, T)
    assert "1 adventurer, 2 needed to step outside" in t.no(
        type="void_run", player="red", cell=[2, 0]
    )
    assert "has no open entrance to step in by" in t.no(type="void_run", player="red", cell=[0, 1])
    t.roll("red", A, A, K, K, T)
    t.ok(type="void_run", player="red", cell=[2, 0])
    assert t.state["players"]["red"]["cell"] == [2, 0]
    assert t.state["players"]["blue"]["cell"] == [0, 0]
    assert dict(t.player("red").showing) == {K: 2, T: 1}
    assert "empty spot" in t.no(type="void_run", player="red", cell=[5, 5])


def test_the_void_runner_s_activatable_card_takes_everyone_in_his_chamber_once():  # p. 31
    cards = {"red": "void-runner-group", "blue": "doc-masks", "green": "priest-keys"}
    temple = start_and(("ct-chamber-1", (2, 0), "W"), ("ct-chamber-7", (-1, 0), "E"))
    t = table(cards, temple=temple)
    t.roll("green", A, A, K, K, T)
    t.ok(type="enter", player="green", cell=[-1, 0])
    t.roll("red", A, A, K, K, T)
    t.ok(type="void_run", player="red", cell=[2, 0])
    cells = {pid: p["cell"] for pid, p in t.state["players"].items()}
    assert cells == {"red": [2, 0], "blue": [2, 0], "green": [-1, 0]}
    t.roll("red", A, A, K, K, T)
    assert "face down" in t.no(type="void_run", player="red", cell=[0, 0])


def test_the_open_actions_offer_the_new_cards():  # Big Box p. 31
    cards = {"red": "void-runner-step", "blue": "trickster-swap"}
    t = table(cards, temple=start_and(("ct-chamber-1", (2, 0), "W")))
    t.roll("red", A, A, K, K, T)
    t.roll("blue", T, G, G, A, A)
    (step,) = [a for a in open_actions(t.game, "red") if a.action == "void_run"]
    assert step.possible and [c["event"]["cell"] for c in step.choices] == [[2, 0]]
    (swap,) = [a for a in open_actions(t.game, "blue") if a.action == "trade_dice"]
    events = [c["event"] for c in swap.choices]
    assert {
        "type": "trade_dice",
        "player": "blue",
        "with": "red",
        "give": [T],
        "take": [K],
    } in events
    assert all(t.game.copy().apply(e).ok for e in events)


# ----- the treasures (page 31) ------------------------------------------------------------


def test_the_portal_moves_to_any_adjacent_chamber_even_a_diagonal_one():  # Big Box p. 31
    t = table(track_dice=False, temple=start_and(("ct-chamber-1", (0, 1), "S")))
    claim(t, "red", "portal")
    assert "next to yours, diagonals too" in t.no(
        type="use", player="red", treasure="portal", cell=[1, 1]
    )
    assert "not an empty spot" in t.no(type="use", player="red", treasure="portal", cell=[-1, 1])
    (portal,) = [a for a in open_actions(t.game, "red") if a.label.startswith("use the Portal")]
    assert sorted(c["event"]["cell"] for c in portal.choices) == [[0, 0], [0, 1]]
    t.ok(type="use", player="red", treasure="portal", cell=[0, 1])  # north-east: a diagonal
    assert t.state["players"]["red"]["cell"] == [0, 1]
    assert "portal" not in t.player("red").treasures


def test_the_clone_doubles_the_holder_s_keys_and_torches_for_one_action():  # Big Box p. 31
    t = table()
    t.roll("red", A, A, T, T, T)
    t.ok(type="discover", player="red", tile="narrow-gauge", cell=[-1, 0])
    t.roll("red", T, T, T, K, K)
    t.ok(type="enter", player="red", cell=[-1, 0])
    t.ok(type="claim", player="red", treasure="clone")
    t.roll("red", K, K, A, G, G)
    assert "red shows 2 keys, 4 needed" in t.no(
        type="activate", players=["red"], cell=[-1, 0], gems=1
    )
    assert "spent with an action" in t.no(type="use", player="red", treasure="clone")
    t.ok(type="activate", players=["red"], cell=[-1, 0], gems=1, clone="red")
    assert dict(t.player("red").showing) == {A: 1, G: 2}  # 2 key dice counted as 4 keys
    assert t.player("red").treasures == []
    assert "red holds no Clone" in t.no(
        type="discover", player="red", tile="dungeon", cell=[-2, 0], clone="red"
    )


def test_the_clone_is_refused_when_it_doubles_nothing_or_its_holder_does_not_pay():  # p. 31
    t = table(track_dice=True)
    t.roll("red", A, A, T, T, T)
    t.ok(type="discover", player="red", tile="narrow-gauge", cell=[-1, 0])
    t.roll("red", T, T, T, K, K)
    t.ok(type="enter", player="red", cell=[-1, 0])
    t.ok(type="claim", player="red", treasure="clone")
    t.roll("red", A, A, G, G, G)
    assert "shows none this action needs twice" in t.no(
        type="discover", player="red", tile="dungeon", cell=[-2, 0], clone="red"
    )
    assert "does not pay for this action" in t.no(
        type="discover", player="red", tile="dungeon", cell=[-2, 0], clone="blue"
    )


# ----- the record -------------------------------------------------------------------------


def test_a_record_with_the_new_characters_replays_to_the_same_state():  # Big Box p. 30-31
    cards = {"red": "void-runner-step", "blue": "trickster-anywhere"}
    t = table(cards, temple=start_and(("ct-chamber-1", (2, 0), "W")))
    events = [
        {"type": "dice", "player": "red", "faces": [A, A, K, K, T]},
        {"type": "void_run", "player": "red", "cell": [2, 0]},
        {"type": "dice", "player": "blue", "faces": [T, T, G, A, A]},
        {"type": "trade_dice", "player": "blue", "with": "red", "give": [T], "take": [K]},
    ]
    for event in events:
        t.ok(**event)
    setup = {
        "type": "setup",
        "players": ["red", "blue"],
        "modules": MODULES,
        "quests": QUESTS,
        "characters": cards,
        "temple": start_and(("ct-chamber-1", (2, 0), "W")),
    }
    replay = replay_lines([json.dumps(setup)] + [json.dumps(e) for e in events])
    assert all(v.ok for v in replay.verdicts)
    assert replay.game.state_json() == t.state
    assert tell_event(events[1], t.game) == (
        "Red (Void runner) steps outside the temple into the Curse chamber 1"
    )
    assert tell_event(events[3], t.game) == "Blue (Trickster) gives Red 1 torch for 1 key"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 6))
def test_random_games_with_the_new_characters_stay_sound(seed, players):
    rng = random.Random(seed)
    setup = module_setup(rng, ["new_characters", "characters", "treasures"], players)
    game, judge = Game.from_setup_line(setup), Game.from_setup_line(setup)
    for event in random_events(rng, game, 250, noise=0.1, seconds_per_event=2.0):
        before = snapshot(judge)
        if not judge.apply(event).ok:
            assert snapshot(judge) == before, f"rejected {event} changed the state"
        for player in judge.players.values():
            assert 0 <= player.locked <= player.dice
            assert sum(player.showing.values()) + player.locked <= player.dice
    assert judge.state_json() == game.state_json()


def test_the_discoverers_run_never_leaves_the_dungeon_by_its_grey_slide():  # p. 30, p. 21
    t = table({"red": "discoverer-run", "blue": "doc-masks"}, track_dice=False)
    t.ok(type="discover", player="red", tile="dungeon", cell=[1, 0])  # grey slide to the W
    t.ok(type="enter", player="red", cell=[1, 0])
    run = {"type": "ability", "player": "red", "cells": [[0, 0]]}
    assert t.no(**run) == "red cannot leave the Dungeon by its grey slide"
    runs = [a for a in open_actions(t.game, "red") if a.action == "ability"]
    assert not runs  # the grey slide is the Dungeon's one way out here: no run to offer
    t.ok(type="discover", player="red", tile="ct-chamber-7", cell=[1, 1])  # doors all round
    (offered,) = [a for a in open_actions(t.game, "red") if a.action == "ability"]
    ends = [choice["event"]["cells"][-1] for choice in offered.choices]
    assert [1, 1] in ends and [0, 0] not in ends
    assert t.no(**{**run, "cells": [[1, 1], [1, 0], [0, 0]]}) == (
        "red cannot leave the Dungeon by its grey slide"  # back in, and out by the slide
    )
    t.ok(type="ability", player="red", cells=[[1, 1]])  # out by the north door
    assert t.state["players"]["red"]["cell"] == [1, 1]
