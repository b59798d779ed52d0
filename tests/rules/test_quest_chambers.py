"""Big Box module 5 (Quest chambers), from the rulebook's pages 17 to 19."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_helpers import A, G, K, T, Table, start_and

from rules.actions import all_open_actions, open_actions
from rules.engine import Game
from rules.errors import RecordError
from rules.game_setup import setup_catalog, starting_candidates
from rules.module_quests import progress as quest_progress
from rules.narrative import tell_event


def table(quests, players=("red", "blue"), track_dice=False, **setup):
    return Table(
        players=list(players), modules=["quests"], quests=quests, track_dice=track_dice, **setup
    )


def test_the_quest_chambers_drawn_join_the_pile_with_a_marker_each():  # page 17
    t = table(["altar", "ghost", "tree"])
    ids = {tile.tile_id for tile in t.game.unplaced_tiles() if tile.quest}
    assert ids == {"quest-altar", "quest-ghost", "quest-tree"}
    assert t.state["quest_markers_left"] == 3
    assert not any(
        setup_catalog(["quests"])[i].quest for i in starting_candidates(setup_catalog(["quests"]))
    )
    with pytest.raises(RecordError, match="1 to 3 quest chambers"):
        Table(players=["red"], modules=["quests"])
    with pytest.raises(RecordError, match="1 to 3"):
        table(["altar", "ghost", "tree", "task"])


def test_micha_cannot_escape_while_a_quest_marker_is_on_the_depot():  # page 17
    t = table(["altar"], temple=start_and(("exit", (1, 0), "W")))
    t.ok(type="enter", player="red", cell=[1, 0])
    assert "1 quest marker still on the gem depot: complete the Altar chamber first" in t.no(
        type="escape", player="red"
    )
    (escape,) = [a for a in open_actions(t.game, "red") if a.action == "escape"]
    assert escape.blocked == "1 quest marker still on the gem depot"


def test_micha_and_ani_each_sacrifice_a_die_on_the_altar():  # example, page 17
    t = table(["altar"], temple=start_and(("exit", (-1, 0), "E")))
    t.ok(type="discover", player="red", tile="quest-altar", cell=[1, 0])
    t.ok(type="enter", player="red", cell=[1, 0]).ok(type="enter", player="blue", cell=[1, 0])
    t.ok(type="sacrifice", player="red", dice=1)
    assert "another player" in t.no(type="sacrifice", player="red", dice=1)
    assert t.state["quests_done"] == []
    t.ok(type="sacrifice", player="blue", dice=1)  # not at the same time: fine
    assert t.state["quests_done"] == ["altar"] and t.state["quest_markers_left"] == 0
    assert [t.state["players"][p]["dice"] for p in ("red", "blue")] == [4, 4]
    t.ok(type="enter", player="red", cell=[0, 0]).ok(type="enter", player="red", cell=[-1, 0])
    t.ok(type="escape", player="red")


def test_one_player_may_place_both_dice():  # page 17
    t = table(["altar"], temple=start_and())
    t.ok(type="discover", player="red", tile="quest-altar", cell=[1, 0])
    t.ok(type="enter", player="red", cell=[1, 0]).ok(type="sacrifice", player="red", dice=2)
    assert t.state["quests_done"] == ["altar"] and t.state["players"]["red"]["dice"] == 3


def test_micha_pushes_the_ghost_with_two_torches_to_the_ghost_chamber():  # example, page 18
    t = Table(players=["red", "blue"], modules=["quests"], quests=["ghost"])
    t.player("red").showing.update({A: 2})
    t.player("red").rolled = True
    t.ok(type="discover", player="red", tile="quest-ghost", cell=[0, 1])
    assert t.state["ghost"] == [0, 0]  # placed in the starting chamber
    assert "cannot enter" in t.no(type="enter", player="red", cell=[0, 1])
    assert not [a for a in open_actions(t.game, "red") if a.action == "enter"]
    t.roll("red", T, K, A, A, G)
    assert "torch" in t.no(type="push_ghost", player="red", cell=[0, 1])
    t.roll("red", T, T, A, A, G)
    labels = [a.label for a in open_actions(t.game, "red")]
    assert "push the ghost to the N" in labels
    t.ok(type="push_ghost", player="red", cell=[0, 1])
    assert t.state["ghost"] is None and t.state["quests_done"] == ["ghost"]


def test_micha_and_ani_roll_the_task_tiles_together():  # example, page 18
    t = Table(players=["red", "blue"], modules=["quests"], quests=["task"])
    t.player("red").showing.update({A: 2})
    t.player("red").rolled = True
    t.ok(type="discover", player="red", tile="quest-task", cell=[1, 0])
    t.game.players["red"].cell = t.game.players["blue"].cell = (1, 0)
    t.roll("red", K, K, T, T, A)
    t.ok(type="task", players=["red"], tile="task-1")  # Micha alone
    t.roll("red", A, A, K, K, G)
    t.roll("blue", A, G, T, T, K)
    t.ok(type="task", players=["red", "blue"], tile="task-2")  # Ani helps
    assert "already out of the game" in t.no(type="task", players=["red"], tile="task-1")
    for tile in ("task-3", "task-4"):
        t.game.players["red"].showing.update({G: 2, K: 1, T: 3})
        t.ok(type="task", players=["red"], tile=tile)
    assert t.state["quests_done"] == ["task"] and t.state["tasks_done"] == [
        "task-1",
        "task-2",
        "task-3",
        "task-4",
    ]


def test_three_adventurers_roll_eight_golden_masks_for_four_players():  # example, page 19
    t = Table(players=["red", "blue", "green", "yellow"], modules=["quests"], quests=["tree"])
    t.player("red").showing.update({A: 2})
    t.player("red").rolled = True
    t.ok(type="discover", player="red", tile="quest-tree", cell=[1, 0])
    for pid in ("red", "blue", "green"):
        t.player(pid).cell = (1, 0)
    (heal,) = [a for a in open_actions(t.game, "red") if a.action == "heal_tree"]
    assert heal.label == "heal the tree of life (8 golden masks together)"
    t.roll("red", G, G, G, A, K).roll("blue", G, G, G, T, T).roll("green", G, A, A, K, K)
    assert "golden mask" in t.no(type="heal_tree", players=["red", "blue", "green"])
    t.roll("green", G, G, A, K, K)
    t.ok(type="heal_tree", players=["red", "blue", "green"])
    assert t.state["quests_done"] == ["tree"]


def test_the_obelisk_is_done_when_found_and_its_gem_tiles_leave_as_walls_are_enclosed():
    # example, page 19: Micha lays it next to one wall already; Ani encloses another
    t = table(
        ["obelisk"], temple=start_and(("gem3-key-1", (1, 1), "S"), ("chamber-1", (1, 0), "W"))
    )
    t.player("red").cell = (1, 0)
    keys = t.state["keys_to_escape"]
    t.ok(type="discover", player="red", tile="quest-obelisk", cell=[2, 0])
    assert t.state["quests_done"] == ["obelisk"]
    # stairs W (towards red); its walls N, E and S: none has a chamber beside it yet
    assert t.state["obelisk_gem_tiles"] == 3 and t.state["keys_to_escape"] == keys + 3
    t.player("red").cell = (1, 1)
    t.ok(type="discover", player="red", tile="chamber-2", cell=[2, 1])  # encloses its N wall
    assert t.state["obelisk_gem_tiles"] == 2 and t.state["keys_to_escape"] == keys + 2
    t.player("red").cell = (1, 0)
    assert "cannot enter the Obelisk chamber" in t.no(type="enter", player="red", cell=[2, 0])


def test_a_game_without_quests_knows_none_of_their_events():
    t = Table(players=["red"], track_dice=False)
    assert "unknown event type 'sacrifice'" in t.no(type="sacrifice", player="red")
    assert "quests" not in t.state


def test_the_log_tells_the_quest_events():
    t = table(["altar", "ghost"], temple=start_and())
    t.ok(type="discover", player="red", tile="quest-altar", cell=[1, 0])
    assert tell_event({"type": "sacrifice", "player": "red", "dice": 2}, t.game) == (
        "Red sacrifices 2 dice on the altar"
    )
    assert tell_event({"type": "push_ghost", "player": "red", "cell": [1, 0]}, t.game) == (
        "Red pushes the ghost into the Altar chamber east of the start"
    )
    event = {"type": "discover", "player": "red", "tile": "quest-altar", "cell": [1, 0]}
    assert tell_event(event, t.game) == "Red discovers an Altar chamber east of the start"


EVENTS = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                ["discover", "enter", "sacrifice", "push_ghost", "task", "heal_tree", "escape"]
            ),
            "player": st.sampled_from(["red", "blue"]),
            "players": st.sampled_from([["red"], ["red", "blue"], ["blue"], "x"]),
            "tile": st.sampled_from(
                [
                    "quest-altar",
                    "quest-ghost",
                    "quest-task",
                    "quest-tree",
                    "quest-obelisk",
                    "task-1",
                    "task-5",
                    "exit",
                    "illusion-1",
                    "linked-1",
                ]
            ),
            "cell": st.sampled_from([[1, 0], [0, 1], [-1, 0], [0, 0], [1, 1], [2, 0]]),
            "dice": st.sampled_from([1, 2, 3, 0]),
        }
    ),
    st.sampled_from(
        [{"type": "countdown_end", "n": 1}, {"type": "countdown_end", "n": 2}, {"type": "undo"}]
    ),
)
COMBINATIONS = [
    ["quests"],
    ["curses", "quests"],
    ["illusions", "quests"],
    ["special", "quests"],
    ["curses", "treasures", "illusions", "special", "quests"],
]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(EVENTS, max_size=25),
    st.sampled_from(COMBINATIONS),
    st.sampled_from([["altar", "ghost", "obelisk"], ["task", "tree"], ["ghost"]]),
)
def test_no_event_sequence_crashes_the_engine_with_quests_and_any_other_module(
    events, modules, quests
):
    game = Game.from_setup_line(
        {
            "type": "setup",
            "players": ["red", "blue"],
            "modules": modules,
            "quests": quests,
            "track_dice": False,
        }
    )
    for event in events:
        game.apply(event)
        for actions in all_open_actions(game).values():
            assert all(a.label for a in actions)
        state = game.quests
        assert 0 <= state.markers_left <= len(quests) + ("special" in modules)
        assert 0 <= state.obelisk_tiles <= 3 and len(state.altar) <= 2
        cells = {placed.cell for placed in game.temple}
        assert state.ghost is None or state.ghost in cells
        assert game.outcome != "won" or state.markers_left == 0


def test_with_module_4_the_treasure_chamber_is_a_quest_chamber():  # page 17's note
    t = Table(
        players=["red", "blue"],
        modules=["special", "quests"],
        quests=["altar"],
        track_dice=False,
        temple=start_and(("exit", (-1, 0), "E")),
    )
    assert t.state["quest_markers_left"] == 2  # the altar's and the treasure chamber's
    t.ok(type="enter", player="red", cell=[-1, 0])
    refused = t.no(type="escape", player="red")
    assert "2 quest markers" in refused and "Treasure chamber" in refused
    t.ok(type="discover", player="blue", tile="treasure-chamber", cell=[1, 0])
    t.ok(type="enter", player="blue", cell=[1, 0])
    t.ok(type="enter", player="blue", cell=[0, 0], chalice=True)
    rows = {row["quest"]: row for row in quest_progress(t.game)}
    assert rows["treasure"]["status"] == "the chalice is in the temple"
    t.ok(type="enter", player="blue", cell=[-1, 0], chalice=True)  # the chalice reaches the exit
    assert t.state["quests_done"] == ["treasure"] and t.state["quest_markers_left"] == 1
    assert quest_progress(t.game)[-1]["done"]
    plain = table(["altar"], temple=start_and(("exit", (-1, 0), "E")))
    assert plain.state["quest_markers_left"] == 1  # without module 4 nothing changes
