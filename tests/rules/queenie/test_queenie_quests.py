"""Queenie: Quest chambers, from the Big Box rulebook's pages 28 and 29."""

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

SIX = ["red", "blue", "green", "yellow", "purple", "orange"]


def table(quests, players=("red", "blue"), modules=(), track_dice=False, **setup):
    return Table(
        players=list(players),
        modules=["quests", "queenie_quests", *modules],
        quests=quests,
        track_dice=track_dice,
        **setup,
    )


def labels(t, pid):
    return {a.action: a for a in open_actions(t.game, pid)}


# ----- set-up ------------------------------------------------------------------------------


def test_the_module_is_refused_without_the_quest_chambers():  # Big Box p. 28
    with pytest.raises(RecordError, match=r"played only with 'quests'.*add 'quests'"):
        Table(players=["red"], modules=["queenie_quests"])


def test_the_new_quest_chambers_are_drawn_with_module_5s_and_only_those_drawn_join():  # p. 28
    t = table(["chaos", "altar", "snake-pit"])
    pile = {tile.tile_id for tile in t.game.unplaced_tiles()}
    assert {"chaos", "snake-pit", "quest-altar"} <= pile
    assert "constellation" not in pile
    assert t.state["queenie_quests"] == ["chaos", "snake-pit"]
    assert t.state["quests"] == ["altar"]
    assert t.game.catalog["chaos"].feature == "chaos"
    assert "chaos" not in starting_candidates(t.game.catalog)  # never in the starting temple


def test_the_setup_still_takes_1_to_3_quest_chambers_in_all():  # p. 28: draw 1, 2 or 3
    with pytest.raises(RecordError, match=r"1 to 3 quest chambers from .*chaos"):
        table(["chaos", "constellation", "snake-pit", "altar"])
    with pytest.raises(RecordError, match="1 to 3 quest chambers"):
        Table(players=["red"], modules=["quests"], quests=["chaos"])  # module 5 alone
    with pytest.raises(RecordError, match="never laid at set-up"):
        table(["chaos"], temple=start_and(("chaos", (1, 0), "W")))


def test_the_new_curses_join_the_pile_only_with_module_1():  # p. 28
    t = table(["chaos"], modules=["curses"])
    left = t.game.curses_left()
    assert left["mind_control"] == left["pitfall"] == left["magical_bond"] == 2
    assert "unknown event type 'curse'" in table(["chaos"]).no(
        type="curse", player="red", card="pitfall"
    )


# ----- quest markers -----------------------------------------------------------------------


def test_nobody_escapes_while_a_new_quest_marker_is_on_the_depot():  # p. 28, as p. 17
    t = table(["chaos", "altar"], temple=start_and(("exit", (1, 0), "W")))
    t.ok(type="enter", player="red", cell=[1, 0])
    reason = t.no(type="escape", player="red")
    assert "2 quest markers still on the gem depot" in reason
    assert "complete the Altar chamber and the Chaos chamber first" in reason
    assert labels(t, "red")["escape"].blocked == "2 quest markers still on the gem depot"


# ----- the Chaos chamber -------------------------------------------------------------------


def test_everyone_must_stand_in_the_chaos_chamber_then_each_draws_a_curse():  # p. 28
    t = table(["chaos"], modules=["curses"], temple=start_and(("exit", (1, 0), "W")))
    t.ok(type="discover", player="red", tile="chaos", cell=[0, 1]).ok(
        type="enter", player="red", cell=[0, 1]
    )
    assert "blue not in the Chaos chamber" in t.no(type="chaos")
    assert labels(t, "red")["chaos"].blocked == "blue not in the Chaos chamber yet"
    t.ok(type="enter", player="blue", cell=[0, 1])
    assert labels(t, "red")["chaos"].blocked is None
    t.ok(type="chaos")
    assert t.state["chaos_curses_to_draw"] == ["red", "blue"]
    assert [t.state["players"][p]["curses_to_draw"] for p in ("red", "blue")] == [1, 1]
    assert "still draw a curse card" in t.no(type="chaos")
    t.ok(type="curse", player="red", card="silence")
    assert t.state["queenie_quests_done"] == []
    t.ok(type="curse", player="blue", card="mind_control")
    assert t.state["queenie_quests_done"] == ["chaos"]
    assert t.state["queenie_quest_markers_left"] == 0
    assert "already complete" in t.no(type="chaos")


def test_without_module_1_the_gathering_alone_completes_the_chaos_chamber():  # p. 28
    t = table(["chaos"], players=["red"])
    t.ok(type="discover", player="red", tile="chaos", cell=[0, 1])
    assert "red not in the Chaos chamber" in t.no(type="chaos")
    t.ok(type="enter", player="red", cell=[0, 1]).ok(type="chaos")
    assert t.state["queenie_quests_done"] == ["chaos"]
    assert t.player("red").curses_to_draw == 0


def test_the_chaos_chamber_must_be_found_and_in_play():  # p. 28
    t = table(["chaos"])
    assert "the Chaos chamber is not in the temple yet" in t.no(type="chaos")
    u = table(["altar"])
    assert "not among this game's quest chambers" in u.no(type="chaos")


# ----- the curses ----------------------------------------------------------------------------


def test_pitfall_sends_the_adventurer_back_to_the_start_and_is_discarded():  # p. 29
    t = table(["chaos"], modules=["curses"], temple=start_and(("gem3-key-1", (1, 0), "W")))
    t.ok(type="enter", player="red", cell=[1, 0])
    t.player("red").curses_to_draw = 1
    t.ok(type="curse", player="red", card="pitfall")
    assert t.state["players"]["red"]["cell"] == [0, 0]
    assert t.state["players"]["red"]["curses"] == []
    assert t.game.curses_left()["pitfall"] == 1  # discarded, not back in the pile


def test_pitfall_takes_a_player_off_a_cliff_to_the_start():  # p. 29, with module 7
    t = table(["chaos"], modules=["curses", "traps"], traps=["cliff-torch", "slide"])
    t.ok(type="discover", player="red", tile="trap-cliff-torch", cell=[0, 1])
    assert t.state["on_cliff"] == ["red"]
    t.player("red").curses_to_draw = 1
    t.ok(type="curse", player="red", card="pitfall")
    assert t.state["players"]["red"]["cell"] == [0, 0]
    assert t.state["on_cliff"] == []
    t.ok(type="enter", player="red", cell=[0, 1])  # free to move again


def test_mind_control_and_magical_bond_are_reminded_and_lifted_like_any_curse():  # p. 29
    t = table(["chaos"], modules=["curses"], track_dice=True)
    t.player("red").curses_to_draw = 2
    t.ok(type="curse", player="red", card="mind_control")
    t.ok(type="curse", player="red", card="magical_bond")
    reminders = INSTANCES["queenie_quests"].reminders(t.game)
    assert any("Mind control" in r and "moves his adventurer" in r for r in reminders)
    assert any("Magical bond" in r and "touches another player" in r for r in reminders)
    lifts = {a.event.get("card") for a in open_actions(t.game, "red") if a.action == "lift"}
    assert lifts == {"mind_control", "magical_bond"}
    assert "draws the curse Mind control" in tell_event(
        {"type": "curse", "player": "red", "card": "mind_control"}, t.game
    )
    t.roll("red", A, A, K, T, T).ok(type="lift", player="red", card="magical_bond")
    assert t.state["players"]["red"]["curses"] == ["mind_control"]


def test_pitfall_during_the_chaos_chamber_still_counts_as_the_draw():  # p. 28-29
    t = table(["chaos"], modules=["curses"], players=["red"])
    t.ok(type="discover", player="red", tile="chaos", cell=[0, 1])
    t.ok(type="enter", player="red", cell=[0, 1]).ok(type="chaos")
    t.ok(type="curse", player="red", card="pitfall")
    assert t.state["players"]["red"]["cell"] == [0, 0]
    assert t.state["queenie_quests_done"] == ["chaos"]


# ----- the Constellation chamber -----------------------------------------------------------


def test_two_players_stand_in_the_constellation_and_the_start():  # p. 28, the table
    t = table(["constellation"], temple=start_and(("gem3-key-1", (1, 0), "W")), track_dice=True)
    t.roll("red", A, A, K, K, G).ok(
        type="discover", player="red", tile="constellation", cell=[0, 1]
    )
    t.roll("red", K, K, K, K, G).ok(type="enter", player="red", cell=[0, 1])
    t.roll("blue", A, K, G, G, G).ok(type="enter", player="blue", cell=[1, 0])
    reason = t.no(type="constellation", player="red")
    assert "the constellation is not formed yet: nobody stands in the starting chamber" in reason
    assert labels(t, "red")["constellation"].blocked == "nobody stands in the starting chamber"
    assert "not inside the Constellation chamber" in t.no(type="constellation", player="blue")
    t.roll("blue", A, A, A, A, A).ok(type="enter", player="blue", cell=[0, 0])
    t.roll("red", K, T, T, T, G)
    assert "key" in t.no(type="constellation", player="red")  # 2 keys by himself
    t.roll("red", K, K, T, T, G).ok(type="constellation", player="red")
    assert t.state["queenie_quests_done"] == ["constellation"]
    assert t.state["players"]["red"]["dice"] == 5


def test_three_players_need_a_chamber_with_three_gems_too():  # p. 28, the table
    t = table(
        ["constellation"],
        players=["red", "blue", "green"],
        temple=start_and(("gem3-key-1", (1, 0), "W"), ("gem1-key-1", (-1, 0), "E")),
    )
    t.ok(type="discover", player="red", tile="constellation", cell=[0, 1])
    t.ok(type="enter", player="red", cell=[0, 1]).ok(type="enter", player="green", cell=[-1, 0])
    reason = t.no(type="constellation", player="red")
    assert "nobody stands in a chamber with 3 gems" in reason
    t.ok(type="enter", player="green", cell=[0, 0])
    assert "nobody stands in a chamber with 3 gems" in t.no(type="constellation", player="red")
    t.ok(type="enter", player="green", cell=[1, 0]).ok(type="constellation", player="red")


def test_with_six_players_one_player_stands_anywhere():  # p. 28, the note
    temple = start_and(
        ("gem3-key-1", (1, 0), "W"), ("gem1-key-1", (-1, 0), "E"), ("exit", (0, -1), "N")
    )
    t = table(["constellation"], players=SIX, temple=temple)
    t.ok(type="discover", player="red", tile="constellation", cell=[0, 1])
    t.ok(type="enter", player="red", cell=[0, 1]).ok(type="enter", player="green", cell=[1, 0])
    t.ok(type="enter", player="yellow", cell=[-1, 0])
    assert "nobody stands in the exit" in t.no(type="constellation", player="red")
    t.ok(type="enter", player="purple", cell=[0, -1])  # blue and orange both at the start
    t.ok(type="constellation", player="red")


def test_five_players_stand_one_on_each_spot():  # p. 28, the table
    temple = start_and(
        ("gem3-key-1", (1, 0), "W"), ("gem1-key-1", (-1, 0), "E"), ("exit", (0, -1), "N")
    )
    t = table(["constellation"], players=SIX[:5], temple=temple)
    t.ok(type="discover", player="red", tile="constellation", cell=[0, 1])
    t.ok(type="enter", player="red", cell=[0, 1]).ok(type="enter", player="green", cell=[1, 0])
    t.ok(type="enter", player="yellow", cell=[1, 0]).ok(type="enter", player="purple", cell=[0, -1])
    reason = t.no(type="constellation", player="red")
    assert "nobody stands in a chamber with a single gem" in reason
    t.ok(type="enter", player="yellow", cell=[0, 0]).ok(type="enter", player="yellow", cell=[-1, 0])
    t.ok(type="constellation", player="red")


# ----- the Snake pit -----------------------------------------------------------------------


def test_the_snake_pit_lays_a_snake_by_every_other_adventurer():  # p. 28
    t = table(
        ["snake-pit"],
        players=["red", "blue", "green"],
        temple=start_and(("gem3-key-1", (1, 0), "W")),
    )
    t.ok(type="enter", player="blue", cell=[1, 0])
    t.ok(type="discover", player="red", tile="snake-pit", cell=[0, 1])
    assert t.state["snake_tokens"] == [[1, 0], [0, 0]]
    marks = INSTANCES["queenie_quests"].tile_marks(t.game, t.game.temple.at((1, 0)))
    assert marks == [
        {"token": "snake", "label": "snake token: roll 2 torches here to defeat it", "count": 1}
    ]


def test_every_snake_with_2_torches_then_the_mother_snake_with_5():  # p. 28
    t = table(["snake-pit"], temple=start_and(("gem3-key-1", (1, 0), "W")), track_dice=True)
    t.roll("blue", K, A, G, G, G).ok(type="enter", player="blue", cell=[1, 0])
    t.roll("red", A, A, T, T, T).ok(type="discover", player="red", tile="snake-pit", cell=[0, 1])
    assert t.state["snake_tokens"] == [[1, 0]]
    assert "no snake token lies in red's chamber" in t.no(type="defeat_snake", players=["red"])
    assert "1 snake token still to defeat" in t.no(type="mother_snake", players=["red"])
    t.roll("blue", T, K, K, K, K)
    assert "torch" in t.no(type="defeat_snake", players=["blue"])
    t.roll("blue", T, T, K, K, K)
    assert labels(t, "blue")["defeat_snake"].possible
    t.ok(type="defeat_snake", players=["blue"])
    assert t.state["snake_tokens"] == []
    t.roll("red", T, T, A, A, A).ok(type="enter", player="red", cell=[0, 1])
    t.roll("blue", A, K, G, G, G).ok(type="enter", player="blue", cell=[0, 0])
    t.roll("blue", T, T, A, A, A).ok(type="enter", player="blue", cell=[0, 1])
    t.roll("red", T, T, T, G, G).roll("blue", T, K, K, K, K)
    assert "torch" in t.no(type="mother_snake", players=["red", "blue"])
    t.roll("blue", T, T, K, K, K)
    assert labels(t, "red")["mother_snake"].possible
    t.ok(type="mother_snake", players=["red", "blue"])
    assert t.state["queenie_quests_done"] == ["snake-pit"]


def test_players_rolling_together_must_share_the_chamber():  # p. 28
    t = table(["snake-pit"], temple=start_and(("gem3-key-1", (1, 0), "W")))
    t.ok(type="enter", player="blue", cell=[1, 0])
    t.ok(type="discover", player="red", tile="snake-pit", cell=[0, 1])
    reason = t.no(type="defeat_snake", players=["red", "blue"])
    assert "must stand in the same chamber" in reason


def test_a_player_alone_fights_the_mother_snake_at_once():  # p. 28: no other adventurer
    t = table(["snake-pit"], players=["red"])
    t.ok(type="discover", player="red", tile="snake-pit", cell=[0, 1])
    assert t.state["snake_tokens"] == []
    assert "not inside the Snake pit" in t.no(type="mother_snake", players=["red"])
    t.ok(type="enter", player="red", cell=[0, 1]).ok(type="mother_snake", players=["red"])
    assert "already complete" in t.no(type="mother_snake", players=["red"])


# ----- the log, and a record replayed ------------------------------------------------------


def test_the_log_tells_the_new_quests_by_name():  # p. 28
    t = table(["snake-pit"], temple=start_and(("gem3-key-1", (1, 0), "W")))
    t.ok(type="enter", player="blue", cell=[1, 0])
    told = tell_event({"type": "defeat_snake", "players": ["blue"]}, t.game)
    assert told == "Blue defeats a snake in the Gem chamber east of the start with 2 torches"
    told = tell_event({"type": "constellation", "player": "red"}, t.game)
    assert "Red rolls 2 keys in the Constellation chamber" in told
    t.ok(type="discover", player="red", tile="snake-pit", cell=[0, 1])
    assert "Snake pit" in tell_event(
        {"type": "discover", "player": "red", "tile": "snake-pit", "cell": [0, 1]}, t.game
    )


def test_a_record_replays_to_the_same_state():  # the game record's contract
    setup = {
        "type": "setup",
        "players": ["red", "blue"],
        "modules": ["curses", "quests", "queenie_quests"],
        "quests": ["chaos", "snake-pit"],
        "track_dice": False,
        "temple": start_and(("gem3-key-1", (1, 0), "W")),
    }
    events = [
        {"type": "enter", "player": "blue", "cell": [1, 0]},
        {"type": "discover", "player": "red", "tile": "snake-pit", "cell": [0, 1]},
        {"type": "defeat_snake", "players": ["blue"]},
        {"type": "discover", "player": "blue", "tile": "chaos", "cell": [2, 0]},
        {"type": "enter", "player": "blue", "cell": [2, 0]},
        {"type": "chaos"},
        {"type": "enter", "player": "red", "cell": [1, 0]},
        {"type": "enter", "player": "red", "cell": [2, 0]},
        {"type": "chaos"},
        {"type": "curse", "player": "red", "card": "pitfall"},
    ]
    game = Game.from_setup_line(setup)
    verdicts = [game.apply(event).ok for event in events]
    assert verdicts == [True] * 5 + [False] + [True] * 4
    replay = replay_lines([json.dumps(setup), *map(json.dumps, events)])
    assert replay.game.state_json() == game.state_json()
    assert replay.game.state_json()["chaos_curses_to_draw"] == ["blue"]
    assert replay.game.state_json()["players"]["red"]["cell"] == [0, 0]


def test_its_event_types_are_its_own():  # a record names each event once, whatever is played
    from rules.modules_registry import MODULES

    mine = set(INSTANCES["queenie_quests"].event_types)
    others = {t for m, cls in MODULES.items() if m != "queenie_quests" for t in cls.event_types}
    assert not others & mine
    assert not set(Game.EVENT_TYPES) & mine


def test_an_undo_puts_the_snake_back():  # the record's undo, with a new event
    t = table(["snake-pit"], temple=start_and(("gem3-key-1", (1, 0), "W")))
    t.ok(type="enter", player="blue", cell=[1, 0])
    t.ok(type="discover", player="red", tile="snake-pit", cell=[0, 1])
    before = t.state
    t.ok(type="defeat_snake", players=["blue"])
    assert t.state["snake_tokens"] == []
    t.ok(type="undo")
    assert t.state == before
