"""Queenie 12 (Slide), from the Queenie box rulebook: the Slide, the Debris chamber and the
Cyclops curse."""

import json

from rules_helpers import A, G, K, T, Table

from rules.actions import open_actions
from rules.engine import Game
from rules.game_setup import setup_catalog, starting_candidates
from rules.modules import curse_cards_in_play, offered_modules
from rules.narrative import tell_event
from rules.record import replay_lines

SETUP = {"type": "setup", "players": ["red", "blue"], "modules": ["slide"]}


def table(**setup):
    return Table(**{"modules": ["slide"], **setup})


def slide_with_side_room(t: Table) -> None:
    """Red discovers the Slide east of the start (stairway towards it), then a chamber behind
    the Slide's other entrance, and walks into that chamber."""
    t.roll("red", A, A, K, K, G)
    t.ok(type="discover", player="red", tile="slide", cell=[1, 0])
    t.roll("red", A, A, A, A, G)
    t.ok(type="discover", player="red", tile="chamber-1", cell=[2, 0])
    t.ok(type="enter", player="red", cell=[2, 0])


def test_the_two_chambers_join_the_pile_never_the_starting_temple():  # Queenie 12, set-up
    catalog = setup_catalog(["slide"])
    assert catalog["slide"].feature == "slide" and catalog["debris"].feature == "debris"
    assert not {"slide", "debris"} & set(starting_candidates(catalog))
    assert "slide" not in setup_catalog([])
    offered = {m["id"]: m for m in offered_modules()}
    assert offered["slide"]["name"] == "Slide" and offered["slide"]["requires"] == []


def test_the_discoverer_is_placed_in_the_slide_at_once():  # Queenie 12: "immediately"
    t = table()
    t.roll("red", A, A, K, K, G)
    t.ok(type="discover", player="red", tile="slide", cell=[1, 0])
    assert t.state["players"]["red"]["cell"] == [1, 0]
    assert dict(t.player("red").showing) == {K: 2, G: 1}  # only the discovery's adventurers


def test_anyone_enters_the_slide_through_its_stairway_without_rolling():  # Queenie 12
    t = table()
    t.roll("red", A, A, K, K, G)
    t.ok(type="discover", player="red", tile="slide", cell=[1, 0])
    (move,) = [a for a in open_actions(t.game, "blue") if a.event.get("cell") == [1, 0]]
    assert move.possible and move.need == {}
    t.ok(type="enter", player="blue", cell=[1, 0])  # blue has not even rolled
    assert t.state["players"]["blue"]["cell"] == [1, 0]


def test_the_other_entrance_takes_three_torches():  # Queenie 12
    t = table()
    slide_with_side_room(t)
    (move,) = [a for a in open_actions(t.game, "red") if a.event.get("cell") == [1, 0]]
    assert move.need == {T: 3} and not move.possible
    t.roll("red", T, T, K, K, A)
    assert "2 torches, 3 needed to enter Slide" in t.no(type="enter", player="red", cell=[1, 0])
    t.roll("red", T, T, T, K, A)
    (move,) = [a for a in open_actions(t.game, "red") if a.event.get("cell") == [1, 0]]
    assert move.possible
    t.ok(type="enter", player="red", cell=[1, 0])
    assert dict(t.player("red").showing) == {K: 1, A: 1}


def test_leaving_the_slide_costs_what_the_other_chamber_asks():  # the slide has no rule out
    t = table()
    t.roll("red", A, A, K, K, G)
    t.ok(type="discover", player="red", tile="slide", cell=[1, 0])
    t.ok(type="enter", player="red", cell=[0, 0])  # the start's red frame is empty


def test_discovering_the_debris_chamber_takes_two_adventurers_a_key_and_a_torch():  # Q. 12
    t = table()
    t.roll("red", A, A, K, K, G)
    reason = t.no(type="discover", player="red", tile="debris", cell=[1, 0])
    assert "needed to discover Debris chamber" in reason and "1 torch" in reason
    t.ok(type="discover", player="red", tile="chamber-1", cell=[-1, 0])  # any other: 2 adv.
    t.roll("red", A, A, K, T, G)
    t.ok(type="discover", player="red", tile="debris", cell=[1, 0])
    assert dict(t.player("red").showing) == {G: 1}
    assert t.state["players"]["red"]["cell"] == [0, 0]  # the Debris does not take him in


def test_the_cyclops_curse_joins_module_1s_pile_and_reminds_the_table():  # Queenie 12
    assert "cyclops" not in curse_cards_in_play(["curses"])
    assert curse_cards_in_play(["curses", "slide"])["cyclops"].copies == 1
    t = table(modules=["curses", "slide"])
    t.roll("red", A, A, K, K, G)
    t.ok(type="discover", player="red", tile="ct-gem1-key-1", cell=[1, 0])  # a purple mask
    t.ok(type="curse", player="red", card="cyclops")
    module = t.game.module_hooks("reminders")[0].__self__
    assert module.reminders(t.game) == [
        "Red is cursed (Cyclops): keep one hand before one of your eyes until the curse is lifted"
    ]
    assert "Cyclops" in tell_event({"type": "curse", "player": "red", "card": "cyclops"}, t.game)
    (lift,) = [a for a in open_actions(t.game, "red") if a.action == "lift"]
    assert lift.label == "lift the curse Cyclops (by yourself)" and lift.need == {A: 1, K: 1}
    t.roll("red", A, K, T, T, G)
    t.ok(type="lift", player="red", card="cyclops")
    assert module.reminders(t.game) == []


def test_the_slide_is_marked_on_its_tile():
    t = table()
    t.roll("red", A, A, K, K, G)
    t.ok(type="discover", player="red", tile="slide", cell=[1, 0])
    marks = [
        m
        for hook in t.game.module_hooks("tile_marks")
        for m in hook(t.game, t.game.temple.at((1, 0)))
    ]
    assert marks and "3 torches" in marks[0]["label"]
    assert [
        m
        for hook in t.game.module_hooks("tile_marks")
        for m in hook(t.game, t.game.temple.at((0, 0)))
    ] == []


def test_a_record_replays_to_the_same_state():
    events = [
        {"type": "dice", "player": "red", "faces": [A, A, K, T, G]},
        {"type": "discover", "player": "red", "tile": "debris", "cell": [-1, 0]},
        {"type": "dice", "player": "red", "faces": [A, A, K, K, G]},
        {"type": "discover", "player": "red", "tile": "slide", "cell": [1, 0]},
        {"type": "enter", "player": "blue", "cell": [1, 0]},
    ]
    live = Game.from_setup_line(SETUP)
    assert all(live.apply(e).ok for e in events)
    text = "\n".join(json.dumps(line) for line in [SETUP, *events])
    replay = replay_lines(text.split("\n"))
    assert all(v.ok for v in replay.verdicts)
    assert replay.game.state_json() == live.state_json()
    assert replay.game.state_json()["players"]["blue"]["cell"] == [1, 0]


def test_a_discoverer_held_on_a_cliff_stays_there():  # Queenie 12 with module 7 (page 23)
    t = table(modules=["traps", "slide"], traps=["cliff-torch", "cliff-key"])
    t.roll("red", A, A, K, K, G)
    t.ok(type="discover", player="red", tile="trap-cliff-torch", cell=[1, 0])
    t.roll("red", A, A, K, K, G)
    (spot,) = [a.event["cell"] for a in open_actions(t.game, "red") if a.action == "discover"][:1]
    t.ok(type="discover", player="red", tile="slide", cell=spot)
    assert t.state["players"]["red"]["cell"] == [1, 0] and t.state["on_cliff"] == ["red"]


def test_the_log_names_the_slide():
    t = table()
    event = {"type": "discover", "player": "red", "tile": "slide", "cell": [1, 0]}
    assert tell_event(event, t.game) == "Red discovers a Slide east of the start"
