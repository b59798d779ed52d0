"""Big Box module 4 (Special chambers), from the rulebook's pages 14 and 15."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_helpers import A, K, T, Table, start_and

from rules.actions import all_open_actions, open_actions
from rules.engine import Game
from rules.errors import RecordError
from rules.game_setup import setup_catalog, starting_candidates
from rules.narrative import tell_event
from rules.record import replay_lines

SPECIAL = ["special"]

# The double chamber lies east of the start, its stairway S: its front half opens S, E and W,
# its rear half N. The rear is reached through the chambers north of the start.
DOUBLE_TEMPLE = start_and(
    ("double-1", (1, 0), "S"),
    ("gem3-key-1", (0, 1), "S"),
    ("gem3-torch-1", (1, 1), "S"),
)


def table(modules=SPECIAL, **setup):
    return Table(players=["red", "blue"], modules=modules, track_dice=False, **setup)


def test_the_special_chambers_join_the_draw_pile_and_the_treasure_chamber_is_not_drawn_at_set_up():
    # page 14: "mix the remaining chamber tiles face down with the special chamber tiles"
    basic, special = setup_catalog([]), setup_catalog(SPECIAL)
    assert set(basic) < set(special)
    added = {t.tile_id: t.special for t in special.values() if t.tile_id not in basic}
    assert sorted(added.values()) == ["chalice", "double", "double", "linked", "linked", "linked"]
    # page 15: the treasure chamber drawn at set-up goes back into the pile
    assert "treasure-chamber" not in starting_candidates(special)
    with pytest.raises(RecordError, match="never laid at set-up"):
        table(temple=start_and(("treasure-chamber", (1, 0), "W")))
    combined = setup_catalog(["curses", "treasures", "illusions", "special"])
    assert sum(t.illusion for t in combined.values()) == 6 and "linked-1" in combined


def test_ani_and_frank_activate_one_gem_in_each_of_two_linked_chambers():  # ex. 1, page 14
    t = Table(
        players=["red", "blue"],
        modules=SPECIAL,
        temple=start_and(("linked-1", (-1, 0), "E"), ("linked-2", (0, 1), "S")),
    )
    t.player("red").cell, t.player("blue").cell = (-1, 0), (0, 1)
    depot = t.state["depot"]
    event = {"type": "activate_linked", "cells": [[-1, 0], [0, 1]], "players": ["red", "blue"]}
    t.roll("red", K, K, K, K, A)
    t.roll("blue", T, T, T, A, A)
    assert "torch" in t.no(**event)  # 4 keys and 4 torches together: one torch short
    t.roll("blue", T, T, T, T, A)
    t.ok(**event)
    assert [p["gems"] for p in t.state["temple"][1:]] == [1, 1]
    assert t.state["depot"] == depot - 2 and t.state["linked_used"]


def test_the_third_linked_chamber_can_no_longer_be_activated():  # example 2, page 14
    t = table(temple=start_and(("linked-1", (-1, 0), "E"), ("linked-2", (0, 1), "S")))
    t.player("red").cell, t.player("blue").cell = (-1, 0), (0, 1)
    t.ok(type="activate_linked", cells=[[-1, 0], [0, 1]], players=["red", "blue"])
    t.ok(type="discover", player="blue", tile="linked-3", cell=[0, 2])
    t.ok(type="enter", player="blue", cell=[0, 2])
    assert "only once" in t.no(
        type="activate_linked", cells=[[-1, 0], [0, 2]], players=["red", "blue"]
    )
    assert "linked chamber" in t.no(type="activate", cell=[0, 2], gems=1, players=["blue"])
    assert not [a for a in open_actions(t.game, "blue") if a.action.startswith("activate")]


def test_linked_chambers_need_an_adventurer_in_each_at_the_same_time():  # page 14
    t = table(temple=start_and(("linked-1", (-1, 0), "E"), ("linked-2", (0, 1), "S")))
    t.player("red").cell = (-1, 0)
    assert "nobody listed stands in" in t.no(
        type="activate_linked", cells=[[-1, 0], [0, 1]], players=["red"]
    )
    assert "2 or 3" in t.no(type="activate_linked", cells=[[-1, 0]], players=["red"])
    (offer,) = [a for a in open_actions(t.game, "red") if a.action == "activate_linked"]
    assert offer.blocked == "needs an adventurer in another linked chamber at the same time"
    t.player("blue").cell = (0, 1)
    (offer,) = [a for a in open_actions(t.game, "red") if a.action == "activate_linked"]
    assert offer.possible and offer.event["players"] == ["red", "blue"]
    t.ok(**offer.event)


def test_frank_in_the_front_of_a_double_chamber_cannot_activate_its_gems():  # ex. 1, p. 14
    t = table(temple=DOUBLE_TEMPLE)
    t.ok(type="enter", player="blue", cell=[1, 0])  # by its entrance (the stairway side)
    assert not t.state["players"]["blue"]["rear"]
    assert "rear entrance" in t.no(type="activate", cell=[1, 0], gems=1, players=["blue"])
    (gem,) = [a for a in open_actions(t.game, "blue") if a.event.get("gems") == 1]
    assert gem.blocked == "behind the inner wall: come in by the rear entrance"
    # the inner wall: from the front, the rear door (N) does not lead out
    assert "inner wall" in t.no(type="enter", player="blue", cell=[1, 1])


def test_frank_enters_by_the_rear_entrance_and_activates_the_gems():  # ex. 2, page 14
    t = table(temple=DOUBLE_TEMPLE)
    for cell in ([0, 1], [1, 1], [1, 0]):
        t.ok(type="enter", player="blue", cell=cell)
    assert t.state["players"]["blue"]["rear"]
    t.ok(type="activate", cell=[1, 0], gems=1, players=["blue"])
    # from the rear, the front doors are behind the wall
    assert "inner wall" in t.no(type="enter", player="blue", cell=[0, 0])


def test_entering_the_rear_of_a_double_chamber_costs_its_red_frame():  # note, page 14
    t = Table(players=["red", "blue"], modules=SPECIAL, temple=DOUBLE_TEMPLE)
    t.player("blue").cell = (1, 1)
    t.roll("blue", K, K, T, T, T)
    assert "adventurer" in t.no(type="enter", player="blue", cell=[1, 0])
    t.roll("blue", A, A, T, T, T)
    t.ok(type="enter", player="blue", cell=[1, 0])


def test_a_secret_passage_does_not_pass_the_inner_wall():  # note on module 2, page 14
    temple = [*DOUBLE_TEMPLE, {"tile": "gem3-key-2", "cell": [1, -1], "stairs": "S"}]
    t = table(modules=["treasures", "special"], temple=temple)
    t.player("red").treasures = ["secret_passage"]
    t.player("red").cell = (1, -1)
    t.ok(type="use", player="red", treasure="secret_passage", cells=[[1, -1], [1, 0]])
    t.ok(type="enter", player="red", cell=[1, 0])  # through the front half's south wall
    assert not t.state["players"]["red"]["rear"]
    assert "rear entrance" in t.no(type="activate", cell=[1, 0], gems=1, players=["red"])


CHALICE_TEMPLE = start_and(
    ("gem1-key-1", (2, 0), "W"),
    ("exit", (3, 0), "W"),
)


def test_the_chalice_lies_on_the_treasure_chamber_when_it_is_discovered():  # page 15
    t = table(temple=CHALICE_TEMPLE)
    assert t.state["chalice"] is None
    t.ok(type="discover", player="red", tile="treasure-chamber", cell=[1, 0])
    assert t.state["chalice"] == [1, 0]
    assert (
        tell_event(
            {"type": "discover", "player": "red", "tile": "treasure-chamber", "cell": [1, 0]},
            t.game,
        )
        == "Red discovers a Treasure chamber east of the start"
    )


def test_frank_carries_the_chalice_with_a_torch_more_to_the_exit():  # examples, page 15
    t = Table(players=["red", "blue"], modules=SPECIAL, temple=CHALICE_TEMPLE)
    t.game.temple.place(t.game.catalog["treasure-chamber"], (1, 0), "W")
    t.game.special.chalice = (1, 0)
    t.player("blue").cell = (1, 0)
    carry = {"type": "enter", "player": "blue", "cell": [2, 0], "chalice": True}
    t.roll("blue", A, A, K, K, K)
    assert "1 torch" in t.no(**carry)  # two adventurers are not enough with the chalice
    labels = [a.label for a in open_actions(t.game, "blue")]
    assert "carry the chalice into Chamber with one gem (keys) 1 (E)" in labels
    t.roll("blue", A, A, T, K, K)
    t.ok(**carry)  # a torch in addition to two adventurer icons
    assert t.state["chalice"] == [2, 0]
    assert "does not lie where red" in t.no(type="enter", player="red", cell=[1, 0], chalice=True)
    t.roll("blue", A, K, T, K, K)
    t.ok(type="enter", player="blue", cell=[3, 0], chalice=True)
    assert t.state["chalice"] is None and t.state["chalice_recovered"]


def test_everyone_escaped_but_the_chalice_is_inside_the_game_is_lost():  # page 15
    t = table(temple=start_and(("exit", (-1, 0), "E")))
    t.ok(type="discover", player="red", tile="treasure-chamber", cell=[1, 0])
    for pid in ("red", "blue"):
        t.ok(type="enter", player=pid, cell=[-1, 0]).ok(type="escape", player=pid)
    assert t.state["outcome"] == "lost"


def test_the_chalice_never_found_does_not_lose_the_game():  # rule left open: README
    t = table(temple=start_and(("exit", (-1, 0), "E")))
    for pid in ("red", "blue"):
        t.ok(type="enter", player=pid, cell=[-1, 0]).ok(type="escape", player=pid)
    assert t.state["outcome"] == "won"


def test_the_teleport_leaves_the_chalice_behind():  # note on module 2, page 15
    t = table(modules=["treasures", "special"], temple=start_and(("gem3-key-1", (2, 0), "W")))
    t.game.temple.place(t.game.catalog["treasure-chamber"], (1, 0), "W")
    t.game.special.chalice = (1, 0)
    t.player("red").cell, t.player("blue").cell = (1, 0), (2, 0)
    t.player("red").treasures = ["teleport"]
    t.ok(type="use", player="red", treasure="teleport", cell=[2, 0])
    assert t.state["chalice"] == [1, 0]


def test_the_large_torch_is_a_second_starting_chamber_until_the_next_slam():  # page 15
    t = table(modules=["treasures", "special"], temple=start_and(("gem3-key-1", (1, 0), "W")))
    t.player("red").treasures = ["large_torch"]
    t.ok(type="enter", player="red", cell=[1, 0]).ok(type="enter", player="blue", cell=[1, 0])
    t.ok(type="use", player="red", treasure="large_torch")
    assert t.state["large_torch"] == [1, 0]
    t.ok(type="countdown_start", n=1).ok(type="countdown_end", n=1)
    assert [t.state["players"][p]["dice"] for p in ("red", "blue")] == [5, 5]
    assert t.state["large_torch"] is None  # removed from the game after the countdown
    t.ok(type="countdown_start", n=2).ok(type="countdown_end", n=2)
    assert [t.state["players"][p]["dice"] for p in ("red", "blue")] == [4, 4]


def test_soul_exchange_and_large_torch_only_with_module_4():  # page 15
    cursed = Table(players=["red"], modules=["curses"], track_dice=False)
    cursed.player("red").curses_to_draw = 1
    reason = cursed.no(type="curse", player="red", card="soul_exchange")
    assert reason == (
        "unknown curse card 'soul_exchange' (cards: trap, silence, broken_die, lost_dice, "
        "mask, cursed_hand)"
    )
    both = Table(players=["red", "blue"], modules=["curses", "special"], track_dice=False)
    both.player("red").curses_to_draw = 1
    both.ok(type="curse", player="red", card="soul_exchange")
    assert both.state["players"]["red"]["curses"] == ["soul_exchange"]
    rich = Table(players=["red"], modules=["treasures"], track_dice=False)
    rich.game.treasure_cells = [(0, 0)]
    assert "unknown treasure 'large_torch'" in rich.no(
        type="claim", player="red", treasure="large_torch"
    )


def test_a_game_without_the_module_knows_no_linked_activation_and_ignores_special_fields():
    t = Table(players=["red"], track_dice=False)
    assert "unknown event type 'activate_linked'" in t.no(
        type="activate_linked", cells=[[0, 1], [1, 0]], players=["red"]
    )
    assert "chalice" not in t.state and "rear" not in t.state["players"]["red"]
    lines = [
        json.dumps({"type": "setup", "players": ["red"], "modules": SPECIAL, "track_dice": False}),
        json.dumps(
            {"type": "discover", "player": "red", "tile": "treasure-chamber", "cell": [1, 0]}
        ),
        json.dumps({"type": "enter", "player": "red", "cell": [1, 0]}),
        json.dumps({"type": "enter", "player": "red", "cell": [0, 0], "chalice": True}),
        json.dumps({"type": "undo"}),
    ]
    replay = replay_lines(lines)
    assert all(v.ok for v in replay.verdicts)
    assert replay.game.state_json()["chalice"] == [1, 0]


def test_the_log_tells_the_special_events():
    t = table(temple=start_and(("linked-1", (-1, 0), "E"), ("linked-2", (0, 1), "S")))
    event = {"type": "activate_linked", "cells": [[-1, 0], [0, 1]], "players": ["red", "blue"]}
    assert tell_event(event, t.game) == (
        "Red and Blue activate the linked chambers together: a gem in each of 2"
    )
    carry = {"type": "enter", "player": "red", "cell": [0, 1], "chalice": True}
    assert tell_event(carry, t.game) == (
        "Red enters the Linked chamber north of the start carrying the chalice"
    )


EVENTS = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                ["discover", "enter", "activate", "activate_linked", "use", "escape", "curse"]
            ),
            "player": st.sampled_from(["red", "blue"]),
            "tile": st.sampled_from(
                ["linked-1", "linked-2", "double-1", "treasure-chamber", "exit", "illusion-1"]
            ),
            "cell": st.sampled_from([[1, 0], [0, 1], [-1, 0], [0, 0], [1, 1]]),
            "cells": st.sampled_from([[[1, 0], [0, 1]], [[1, 0]], "x", [[0, 1], [-1, 0], [1, 0]]]),
            "gems": st.integers(1, 3),
            "players": st.sampled_from([["red"], ["red", "blue"], ["blue", "red"]]),
            "chalice": st.booleans(),
            "treasure": st.sampled_from(["large_torch", "teleport", "secret_passage"]),
            "card": st.sampled_from(["soul_exchange", "trap"]),
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
COMBINATIONS = [
    ["special"],
    ["curses", "special"],
    ["treasures", "special"],
    ["illusions", "special"],
    ["curses", "treasures", "illusions", "special"],
]


@settings(max_examples=60, deadline=None)
@given(st.lists(EVENTS, max_size=25), st.sampled_from(COMBINATIONS))
def test_no_event_sequence_crashes_the_engine_with_special_chambers_and_any_other_module(
    events, modules
):
    game = Game.from_setup_line(
        {"type": "setup", "players": ["red", "blue"], "modules": modules, "track_dice": False}
    )
    for pid in game.players:
        game.players[pid].treasures = ["large_torch", "teleport"] if "treasures" in modules else []
    for event in events:
        game.apply(event)
        for actions in all_open_actions(game).values():
            assert all(a.label for a in actions)
        cells = {placed.cell for placed in game.temple}
        assert all(p.cell in cells for p in game.players.values() if p.inside)
        chalice = game.special.chalice
        assert chalice is None or chalice in cells
        assert not (game.special.recovered and chalice is not None)
