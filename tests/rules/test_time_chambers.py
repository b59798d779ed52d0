"""Big Box module 8 (Time chambers), from the rulebook's pages 24 and 25."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_helpers import A, G, K, T, Table, start_and

from rules.actions import all_open_actions, open_actions
from rules.engine import Game
from rules.errors import RecordError
from rules.game_setup import setup_catalog, starting_candidates
from rules.module_time import due, timers_view
from rules.narrative import tell_event

GEMS_EAST = start_and(("gem1-key-1", (1, 0), "W"))


def table(chosen, track_dice=False, players=("red", "blue"), **setup):
    return Table(
        players=list(players),
        modules=["time"],
        time_chambers=chosen,
        track_dice=track_dice,
        **setup,
    )


def test_the_time_chambers_drawn_join_the_pile_never_the_starting_temple():  # page 24
    t = table(["sacrifice", "torch"])
    assert {tile.tile_id for tile in t.game.unplaced_tiles() if tile.time} == {
        "time-sacrifice",
        "time-torch",
    }
    catalog = setup_catalog(["time"])
    assert not [i for i in starting_candidates(catalog) if catalog[i].time]
    with pytest.raises(RecordError, match="2 to 4 time chambers"):
        table(["torch"])


def test_a_prohibition_chamber_forbids_its_upper_then_its_lower_action():  # page 24
    t = table(["prohibition-1", "sacrifice"], temple=GEMS_EAST)
    t.player("red").cell = (1, 0)
    t.ok(type="discover", player="blue", tile="time-prohibition-1", cell=[0, 1], t=100.0)
    assert t.state["timers"] == [
        {"colour": "green", "cell": [0, 1], "started": 100.0, "ends": 130.0, "phase": 1}
    ]
    # upper icon: magic gems
    assert "nobody activates gems" in t.no(type="activate", cell=[1, 0], gems=1, players=["red"])
    (gem,) = [a for a in open_actions(t.game, "red") if a.action == "activate"]
    assert gem.blocked == "prohibition: nobody activates gems"
    assert "still running: 20 s left" in t.no(type="time_up", cell=[0, 1], t=110.0)
    t.ok(type="time_up", cell=[0, 1], t=130.2)  # flipped beside the lower icon: golden masks
    t.ok(type="activate", cell=[1, 0], gems=1, players=["red"], t=131.0)
    assert "golden masks" in t.no(type="unlock", player="red", count=1, t=132.0)
    t.ok(type="time_up", cell=[0, 1], t=160.5)
    assert t.state["timers"] == []


def test_a_time_token_waits_for_the_timer_in_use():  # page 24
    t = table(["prohibition-1", "prohibition-2"])
    t.ok(type="discover", player="red", tile="time-prohibition-1", cell=[0, 1], t=10.0)
    t.ok(type="discover", player="red", tile="time-prohibition-2", cell=[1, 0], t=20.0)
    assert t.state["time_tokens"] == [[1, 0]]
    assert [e["cell"] for e in due(t.game, 45.0)] == [[0, 1]]
    t.ok(type="time_up", cell=[0, 1], t=40.0).ok(type="time_up", cell=[0, 1], t=70.0)
    # the green timer is flipped at once onto the chamber with time token #1
    assert t.state["timers"][0]["cell"] == [1, 0] and t.state["timers"][0]["started"] == 70.0
    assert t.state["time_tokens"] == []
    assert "nobody enters a chamber" in t.no(type="enter", player="red", cell=[0, 1], t=71)


def test_the_sacrifice_chamber_keeps_the_dice_of_those_who_do_not_come_in_time():  # page 25
    t = table(["sacrifice", "torch"])
    t.ok(type="discover", player="red", tile="time-sacrifice", cell=[1, 0], t=5.0)
    assert [t.state["players"][p]["dice"] for p in ("red", "blue")] == [4, 4]
    assert t.state["sacrificed"] == ["red", "blue"]
    t.ok(type="enter", player="red", cell=[1, 0], t=30.0)  # retrieves his die
    assert t.state["players"]["red"]["dice"] == 5
    t.ok(type="time_up", cell=[1, 0], t=65.0)
    assert [t.state["players"][p]["dice"] for p in ("red", "blue")] == [5, 4]


def test_the_lava_chamber_mastered_in_time_or_two_players_lose_a_die():  # page 25
    t = Table(
        players=["red", "blue", "green"], modules=["time"], time_chambers=["lava-1", "lava-2"]
    )
    t.player("red").showing.update({A: 2})
    t.player("red").rolled = True
    t.ok(type="discover", player="red", tile="time-lava-1", cell=[1, 0], t=1.0)
    for pid in ("red", "blue"):
        t.player(pid).cell = (1, 0)
    t.roll("red", T, T, T, T, K).roll("blue", T, T, A, A, G)
    assert "torch" in t.no(type="lava", cell=[1, 0], players=["red", "blue"])
    t.roll("blue", T, T, T, A, G)
    labels = [a.label for a in open_actions(t.game, "blue")]
    assert "master the lava (7 torches together)" in labels
    t.ok(type="lava", cell=[1, 0], players=["red", "blue"])
    t.ok(type="time_up", cell=[1, 0], t=61.0)
    assert [t.state["players"][p]["dice"] for p in ("red", "blue", "green")] == [5, 5, 5]
    # the second lava chamber is not mastered: two players each lose a die
    t.roll("red", A, A, K, K, G)
    t.ok(type="discover", player="red", tile="time-lava-2", cell=[2, 0], t=70.0)
    event = {"type": "time_up", "cell": [2, 0], "t": 130.0, "losers": ["blue", "green"]}
    assert tell_event(event, t.game).endswith("Blue and Green lose a die each")
    assert "two different players" in t.no(**{**event, "losers": ["blue", "blue"]})
    t.ok(**event)
    assert [t.state["players"][p]["dice"] for p in ("red", "blue", "green")] == [5, 4, 4]


def test_the_torch_chamber_failed_at_its_second_task_costs_two_dice():  # page 25
    t = Table(players=["red", "blue"], modules=["time"], time_chambers=["torch", "sacrifice"])
    t.player("red").showing.update({A: 2})
    t.player("red").rolled = True
    t.ok(type="discover", player="red", tile="time-torch", cell=[1, 0], t=0.0)
    t.player("red").cell = (1, 0)
    t.roll("red", T, T, T, T, T)
    t.ok(type="torch_task", cell=[1, 0], players=["red"])  # 5 torches
    t.roll("red", K, K, K, A, A)
    assert "key" in t.no(type="torch_task", cell=[1, 0], players=["red"])  # 3 of 4 keys
    t.ok(type="time_up", cell=[1, 0], t=60.0)  # task 2 failed: 2 dice, the most dice first
    assert [t.state["players"][p]["dice"] for p in ("red", "blue")] == [4, 4]


def test_the_second_table_adds_two_magic_gems_for_the_second_task_failed():  # page 25
    t = Table(
        players=["red", "blue"],
        modules=["time"],
        time_chambers=["torch", "sacrifice"],
        torch_penalty="gems",
    )
    t.player("red").showing.update({A: 2})
    t.player("red").rolled = True
    t.ok(type="discover", player="red", tile="time-torch", cell=[1, 0], t=0.0)
    t.player("red").cell = (1, 0)
    t.roll("red", T, T, T, T, T)
    t.ok(type="torch_task", cell=[1, 0], players=["red"])  # 5 torches
    (row,) = timers_view(t.game)
    assert row["task"] == "task 2 of 3: 4 keys together, or 2 magic gems more in the depot"
    depot = t.state["depot"]
    t.ok(type="time_up", cell=[1, 0], t=60.0)  # "roll 4x key or else add 2 magic gems"
    assert t.state["depot"] == depot + 2
    assert [t.state["players"][p]["dice"] for p in ("red", "blue")] == [5, 5]  # no die lost


def test_the_torch_penalty_is_dice_or_gems_and_only_with_module_8():
    with pytest.raises(RecordError, match="'torch_penalty' must be 'dice'"):
        Table(players=["red"], modules=["time"], time_chambers=["torch", "lava-1"], torch_penalty=3)
    assert Table(players=["red"], torch_penalty="nonsense").game.setup.torch_penalty == "dice"


def test_time_up_is_the_clocks_never_undone_and_unknown_without_the_module():
    t = table(["prohibition-1", "torch"])
    t.ok(type="discover", player="red", tile="time-prohibition-1", cell=[0, 1], t=1.0)
    t.ok(type="time_up", cell=[0, 1], t=31.0)
    assert t.game.undo_target() == 2  # the discovery, not the clock's time_up
    basic = Table(players=["red"], track_dice=False)
    assert "unknown event type 'time_up'" in basic.no(type="time_up", cell=[0, 1])
    assert "time_up" not in basic.game.clock_events


EVENTS = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                ["discover", "enter", "activate", "unlock", "lava", "torch_task", "time_up"]
            ),
            "player": st.sampled_from(["red", "blue"]),
            "players": st.sampled_from([["red"], ["red", "blue"]]),
            "tile": st.sampled_from(
                ["time-prohibition-2", "time-sacrifice", "time-lava-1", "time-torch", "exit"]
            ),
            "cell": st.sampled_from([[1, 0], [0, 1], [-1, 0], [0, 0]]),
            "gems": st.just(1),
            "count": st.just(1),
            "t": st.floats(0, 600),
            "losers": st.sampled_from([None, ["red"], ["red", "blue"], "x"]),
        }
    ),
    st.sampled_from([{"type": "countdown_end", "n": 1}, {"type": "undo"}]),
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(EVENTS, max_size=25),
    st.sampled_from(
        [
            ["time"],
            ["illusions", "time"],
            [
                "curses",
                "treasures",
                "illusions",
                "special",
                "quests",
                "characters",
                "traps",
                "time",
            ],
        ]
    ),
)
def test_no_event_sequence_crashes_the_engine_with_time_and_any_other_module(events, modules):
    game = Game.from_setup_line(
        {
            "type": "setup",
            "players": ["red", "blue"],
            "modules": modules,
            "time_chambers": ["prohibition-2", "sacrifice", "lava-1", "torch"],
            "quests": ["ghost"],
            "traps": ["slide", "platform"],
            "characters": {"red": "mentalist-teleport", "blue": "doc-heal"},
            "track_dice": False,
        }
    )
    for event in events:
        game.apply(event)
        for actions in all_open_actions(game).values():
            assert all(a.label for a in actions)
        state = game.time
        cells = {placed.cell for placed in game.temple}
        assert all(timer.cell in cells for timer in state.timers)
        assert len({timer.colour for timer in state.timers}) == len(state.timers)
        for player in game.players.values():
            assert player.dice >= 0 and 0 <= player.locked <= player.dice
