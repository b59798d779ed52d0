"""Queenie 15: new quest chambers, from the Queenie box's rulebook."""

import json

import pytest
from rules_helpers import A, G, K, T, Table, start_and

from rules.actions import open_actions
from rules.engine import Game
from rules.errors import RecordError
from rules.game_setup import starting_candidates
from rules.modules_registry import INSTANCES
from rules.narrative import tell_event
from rules.record import replay_lines


def table(new_quests, players=("red", "blue"), track_dice=False, **setup):
    return Table(
        players=list(players),
        modules=["new_quests", *setup.pop("modules", [])],
        new_quests=new_quests,
        track_dice=track_dice,
        **setup,
    )


def actions(t, pid, kind):
    return [a for a in open_actions(t.game, pid) if a.action == kind]


# ----- set-up ------------------------------------------------------------------------------


def test_one_to_three_quest_chambers_are_drawn_the_others_go_back_in_the_box():  # Queenie 15
    t = table(["riddle", "guardian"])
    pile = {tile.tile_id for tile in t.game.unplaced_tiles()}
    assert {"riddle", "guardian"} <= pile and "ascension" not in pile
    assert t.state["new_quest_markers_left"] == 2
    assert "riddle" not in starting_candidates(t.game.catalog)
    with pytest.raises(RecordError, match="'new_quests' must list 1 to 3 quest chambers"):
        table([])
    assert Table(players=["red"], modules=["new_quests"]).state["new_quests"] == list(
        ("riddle", "ascension", "guardian")
    )  # left out: all three
    with pytest.raises(RecordError, match="1 to 3"):
        table(["riddle", "guardian", "ascension", "riddle"])
    with pytest.raises(RecordError, match="only once"):
        table(["riddle", "riddle"])
    with pytest.raises(RecordError, match="never laid at set-up"):
        table(["riddle"], temple=start_and(("riddle", (1, 0), "W")))


def test_the_base_game_alone_is_enough():  # Queenie 15: base game required
    assert INSTANCES["new_quests"].requires == ()
    table(["ascension"], players=["red"])


def test_nobody_escapes_while_a_quest_marker_is_on_the_depot():  # Queenie 15
    t = table(["ascension", "guardian"], temple=start_and(("exit", (1, 0), "W")))
    t.ok(type="enter", player="red", cell=[1, 0])
    reason = t.no(type="escape", player="red")
    assert "2 quest markers still on the gem depot: complete the Ascension chamber and the " in (
        reason
    )
    (escape,) = actions(t, "red", "escape")
    assert escape.blocked == "2 quest markers still on the gem depot"


# ----- the Riddle chamber ------------------------------------------------------------------


def riddle(track_dice=False):
    t = table(["riddle"], track_dice=track_dice)
    if track_dice:
        t.roll("red", A, A, K, K, G)
    t.ok(type="discover", player="red", tile="riddle", cell=[0, 1])
    if track_dice:
        t.roll("red", A, K, T, T, G)
    t.ok(type="enter", player="red", cell=[0, 1])
    return t


def test_the_rulebooks_example_blue_then_green_turns_them_back_down():  # Queenie 15, example
    t = riddle()
    t.ok(type="reveal_statue", players=["red"], space=1, colour="blue")
    assert t.state["statues_face_up"] == ["blue"]
    t.ok(type="reveal_statue", players=["red"], space=2, colour="green")  # red was needed
    assert t.state["statues_face_up"] == []
    assert t.state["new_quests_done"] == []
    assert "is the blue one" in t.no(type="reveal_statue", players=["red"], space=1, colour="red")
    assert "the green statue stands on space 2" in t.no(
        type="reveal_statue", players=["red"], space=3, colour="green"
    )


def test_the_four_statues_in_the_walls_order_complete_the_riddle():  # Queenie 15
    t = riddle()
    for space, colour in ((3, "blue"), (1, "red"), (4, "yellow")):
        t.ok(type="reveal_statue", players=["red"], space=space, colour=colour)
    assert "already face up (red)" in t.no(
        type="reveal_statue", players=["red"], space=1, colour="red"
    )
    t.ok(type="reveal_statue", players=["red"], space=2, colour="green")
    assert t.state["new_quests_done"] == ["riddle"]
    assert t.state["new_quest_markers_left"] == 0


def test_a_statue_is_revealed_with_the_icons_in_front_of_it_inside_the_chamber():  # Queenie 15
    t = riddle(track_dice=True)
    t.roll("red", A, K, K, G, G)
    assert "torch" in t.no(type="reveal_statue", players=["red"], space=1, colour="blue")
    assert "blue is not inside the Riddle chamber" in t.no(
        type="reveal_statue", players=["red", "blue"], space=2, colour="blue"
    )
    assert "'colour' must be" in t.no(type="reveal_statue", players=["red"], space=2, colour="x")
    assert "'space' must be" in t.no(type="reveal_statue", players=["red"], space=5, colour="red")
    (second,) = [a for a in actions(t, "red", "reveal_statue") if a.event["space"] == 2]
    assert second.possible and [c["name"] for c in second.choices] == list(
        ("blue", "red", "yellow", "green")
    )
    t.ok(**second.choices[0]["event"])
    assert t.state["statues_face_up"] == ["blue"]


# ----- the Ascension chamber ---------------------------------------------------------------


def ascension():
    t = table(["ascension"], track_dice=True)
    t.roll("red", A, A, K, K, G).ok(type="discover", player="red", tile="ascension", cell=[0, 1])
    t.roll("red", A, T, K, K, G).ok(type="enter", player="red", cell=[0, 1])
    t.roll("blue", A, T, K, K, G).ok(type="enter", player="blue", cell=[0, 1])
    return t


def test_the_rulebooks_example_two_players_climb_to_the_top():  # Queenie 15, example
    t = ascension()
    t.roll("blue", T, T, T, G, G).ok(type="ascend", player="blue")  # 3 torches: step 1
    assert t.state["ascension_steps"] == {"blue": 1}
    t.ok(type="join_step", player="red", step=1)  # "helped" up, no roll
    t.roll("red", A, A, A, A, K).ok(type="ascend", player="red")  # 4 adventurers: step 2
    t.ok(type="join_step", player="blue", step=2)
    t.roll("blue", K, K, K, T, T).ok(type="ascend", player="blue")  # 3 keys: step 3
    t.ok(type="join_step", player="red", step=3)
    assert t.state["new_quests_done"] == []
    t.roll("red", T, T, T, K, K).ok(type="ascend", player="red")  # 3 torches: the top
    assert t.state["new_quests_done"] == ["ascension"]


def test_one_player_rolls_each_step_and_none_is_skipped():  # Queenie 15
    t = ascension()
    t.roll("red", T, T, A, A, A).roll("blue", T, K, K, K, K)
    assert "torch" in t.no(type="ascend", player="red")  # the others' torches do not count
    assert "nobody else in the Ascension chamber stands on step 1" in t.no(
        type="join_step", player="red", step=1
    )
    t.roll("red", T, T, T, A, A).ok(type="ascend", player="red")
    t.roll("red", T, T, T, A, A)
    assert "adventurer" in t.no(type="ascend", player="red")  # step 2 needs 4 adventurers
    (join,) = actions(t, "blue", "join_step")
    assert join.event == {"type": "join_step", "player": "blue", "step": 1}
    (climb,) = actions(t, "blue", "ascend")
    assert climb.label == "climb to step 1 (3 torches by yourself)"


def test_leaving_the_chamber_leaves_the_steps():  # Queenie 15: from the bottom up
    t = ascension()
    t.roll("red", T, T, T, A, A).ok(type="ascend", player="red")
    t.roll("red", A, A, A, K, K).ok(type="enter", player="red", cell=[0, 0])
    assert t.state["ascension_steps"] == {}
    assert "not inside the Ascension chamber" in t.no(type="ascend", player="red")


# ----- the Guardian chamber ----------------------------------------------------------------


def test_guardians_carried_to_the_3_gem_chambers_complete_the_task():  # Queenie 15
    t = table(
        ["guardian"],
        track_dice=True,
        temple=start_and(("gem3-key-1", (1, 0), "W"), ("gem1-key-1", (-1, 0), "E")),
    )
    t.roll("red", A, A, K, K, G).ok(type="discover", player="red", tile="guardian", cell=[0, 1])
    assert t.state["guardians_left"] == 2  # one per player
    assert "not inside the Guardian chamber" in t.no(type="pick_guardian", player="red")
    t.roll("red", A, A, K, K, G).ok(type="enter", player="red", cell=[0, 1])
    t.roll("red", A, K, K, T, G)
    assert "adventurer" in t.no(type="pick_guardian", player="red")
    t.roll("red", A, A, K, T, G).ok(type="pick_guardian", player="red")
    assert t.state["players"]["red"]["dice"] == 4  # one lies on the token
    assert t.state["guardians_carried"] == ["red"] and t.state["guardians_left"] == 1
    assert "one each" in t.no(type="pick_guardian", player="red")
    marks = INSTANCES["new_quests"].player_marks(t.game, t.player("red"))
    assert marks[0]["token"] == "guardian"
    t.roll("red", A, K, T, T).ok(type="enter", player="red", cell=[0, 0])
    assert "not in a chamber with 3 gems" in t.no(type="drop_guardian", player="red")
    t.roll("red", A, A, K, T).ok(type="enter", player="red", cell=[-1, 0])
    assert "not in a chamber with 3 gems" in t.no(type="drop_guardian", player="red")
    t.roll("red", A, A, K, T).ok(type="enter", player="red", cell=[0, 0])
    t.roll("red", A, K, T, T).ok(type="enter", player="red", cell=[1, 0])
    t.ok(type="drop_guardian", player="red")
    assert t.state["players"]["red"]["dice"] == 5  # the die comes back
    assert t.state["new_quests_done"] == []  # blue's guardian still waits
    assert "blue carries no guardian token" in t.no(type="drop_guardian", player="blue")


def test_the_last_guardian_dropped_completes_it():  # Queenie 15
    t = table(["guardian"], players=["red"], temple=start_and(("gem3-key-1", (1, 0), "W")))
    t.ok(type="discover", player="red", tile="guardian", cell=[0, 1])
    t.ok(type="enter", player="red", cell=[0, 1]).ok(type="pick_guardian", player="red")
    assert "no guardian token is left" in t.no(type="pick_guardian", player="red")
    t.ok(type="enter", player="red", cell=[0, 0]).ok(type="enter", player="red", cell=[1, 0])
    (drop,) = actions(t, "red", "drop_guardian")
    assert drop.possible
    t.ok(type="drop_guardian", player="red")
    assert t.state["new_quests_done"] == ["guardian"]
    assert "already complete" in t.no(type="pick_guardian", player="red")


# ----- the log, reminders, and a record replayed -------------------------------------------


def test_the_log_and_reminders_say_the_new_quests():  # Queenie 15
    t = riddle()
    said = tell_event(
        {"type": "reveal_statue", "players": ["red"], "space": 2, "colour": "red"}, t.game
    )
    assert said == "Red reveals the statue on space 2: red"
    assert "climbs a step of the Ascension chamber" in tell_event(
        {"type": "ascend", "player": "blue"}, t.game
    )
    reminders = INSTANCES["new_quests"].reminders(t.game)
    assert any("blue, red, yellow, green" in r for r in reminders)


def test_a_record_replays_to_the_same_state():  # the game record's contract
    setup = {
        "type": "setup",
        "players": ["red", "blue"],
        "modules": ["new_quests"],
        "new_quests": ["riddle", "guardian"],
        "track_dice": False,
    }
    events = [
        {"type": "discover", "player": "red", "tile": "riddle", "cell": [0, 1]},
        {"type": "enter", "player": "red", "cell": [0, 1]},
        {"type": "reveal_statue", "players": ["red"], "space": 4, "colour": "blue"},
        {"type": "reveal_statue", "players": ["red"], "space": 2, "colour": "yellow"},
        {"type": "reveal_statue", "players": ["red"], "space": 2, "colour": "red"},
        {"type": "reveal_statue", "players": ["red"], "space": 4, "colour": "blue"},
    ]
    game = Game.from_setup_line(setup)
    assert [game.apply(e).ok for e in events] == [True, True, True, True, False, True]
    replay = replay_lines([json.dumps(setup), *map(json.dumps, events)])
    assert replay.game.state_json() == game.state_json()
    assert game.state_json()["statues_face_up"] == ["blue"]
    assert game.state_json()["statues_seen"] == {"2": "yellow", "4": "blue"}


def test_its_event_types_are_its_own():  # a record names each event once, whatever is played
    from rules.modules_registry import MODULES

    others = {t for m, cls in MODULES.items() if m != "new_quests" for t in cls.event_types}
    assert not others & set(INSTANCES["new_quests"].event_types)
    assert not set(Game.EVENT_TYPES) & set(INSTANCES["new_quests"].event_types)


def test_an_undo_turns_the_statue_back_as_it_was():  # the record's undo, with a new event
    t = riddle()
    t.ok(type="reveal_statue", players=["red"], space=1, colour="blue")
    before = t.state
    t.ok(type="reveal_statue", players=["red"], space=2, colour="green")
    assert t.state["statues_face_up"] == []
    t.ok(type="undo")
    assert t.state == before
