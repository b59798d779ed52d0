"""Every event type of the game record: what it needs, what it changes, and its rejections."""

import pytest
from rules_helpers import A, B, G, K, T, Table, start_and

# start [0,0]; key gem chamber east of it; exit north of it; a dead end west of it.
TEMPLE = start_and(("gem3-key-1", (1, 0), "W"), ("exit", (0, 1), "S"), ("chamber-6", (-1, 0), "E"))


def table(**setup):
    return Table(**{"temple": TEMPLE, **setup})


# ----- dice -------------------------------------------------------------------------------


def test_dice_become_the_showing_dice_and_black_masks_lock():
    t = table().roll("red", A, K, B, B, T)
    red = t.player("red")
    assert red.locked == 2
    assert dict(red.showing) == {A: 1, K: 1, T: 1}
    assert t.state["players"]["red"]["locked"] == 2


def test_dice_must_report_every_die_the_player_holds():
    t = table()
    assert "holds 5 dice but 4 faces" in t.no(type="dice", player="red", faces=[A, A, A, A])
    assert "die faces" in t.no(type="dice", player="red", faces=[A, A, A, A, "skull"])
    assert "die faces" in t.no(type="dice", player="red", faces="AAAAA")


def test_locked_dice_must_still_show_their_black_masks():
    t = table().roll("red", B, B, A, A, A)
    reason = t.no(type="dice", player="red", faces=[B, A, A, A, A])
    assert "2 locked dice" in reason
    t.roll("red", B, B, B, K, K)
    assert t.player("red").locked == 3


# ----- enter ------------------------------------------------------------------------------


def test_enter_needs_the_red_frame_icons_and_uses_them():
    t = table().roll("red", A, K, K, T, G)
    t.ok(type="enter", player="red", cell=[1, 0])
    red = t.player("red")
    assert red.cell == (1, 0)
    assert dict(red.showing) == {K: 1, T: 1, G: 1}  # set aside, still usable


def test_dice_used_for_an_action_must_be_rolled_again():
    t = table().roll("red", A, K, A, K, T)
    t.ok(type="enter", player="red", cell=[1, 0])
    t.ok(type="enter", player="red", cell=[0, 0])  # free
    t.ok(type="enter", player="red", cell=[1, 0])  # the set-aside adventurer and key
    t.ok(type="enter", player="red", cell=[0, 0])
    reason = t.no(type="enter", player="red", cell=[1, 0])
    assert reason.startswith("red shows 0 adventurers and 0 keys")
    t.roll("red", A, K, T, T, T).ok(type="enter", player="red", cell=[1, 0])


def test_enter_rejects_a_roll_without_the_icons_and_says_what_is_missing():
    t = table().roll("blue", A, T, T, G, B)
    assert t.no(type="enter", player="blue", cell=[1, 0]) == (
        "blue shows 1 adventurer and 0 keys, 1 adventurer and 1 key needed to enter "
        "Gem chamber (keys) 1"
    )


def test_enter_before_any_roll_asks_to_roll_first():
    assert "no dice showing yet" in table().no(type="enter", player="red", cell=[1, 0])


def test_enter_through_a_wall_or_to_nowhere_is_refused():
    t = table().roll("red", A, A, K, K, T)
    t.ok(type="enter", player="red", cell=[-1, 0])  # dead end, open to the E only
    assert "no chamber at [-1, 1]" in t.no(type="enter", player="red", cell=[-1, 1])
    assert "not next to" in t.no(type="enter", player="red", cell=[1, 0])
    assert "already in" in t.no(type="enter", player="red", cell=[-1, 0])


def test_a_wall_on_the_far_side_blocks_the_passage():
    # The exit at [0, 1] is open only to the S; from the key chamber at [1, 0] there is no
    # path to [1, 1]; put a chamber there whose stairway faces away from the exit.
    temple = [*TEMPLE, {"tile": "chamber-2", "cell": [1, 1], "stairs": "E"}]
    t = Table(temple=temple).roll("red", A, K, A, K, K)
    t.ok(type="enter", player="red", cell=[1, 0])  # key chamber: open on every side
    # chamber-2 with stairs E is open E and W only: its S side, toward [1, 0], is a wall.
    assert "a wall blocks the way" in t.no(type="enter", player="red", cell=[1, 1])


def test_the_start_chamber_is_free_to_enter():
    t = table().roll("red", A, K, T, T, T)
    t.ok(type="enter", player="red", cell=[1, 0])
    t.ok(type="enter", player="red", cell=[0, 0])
    assert t.player("red").cell == (0, 0)


# ----- discover ---------------------------------------------------------------------------


def test_discover_places_the_tile_with_its_stairway_toward_the_discoverer():
    t = table().roll("red", A, A, K, T, G)
    t.ok(type="discover", player="red", tile="gem3-torch-1", cell=[0, -1])
    placed = t.game.temple.at((0, -1))
    assert placed.stairs == "N"  # faces the start chamber above it
    assert t.player("red").cell == (0, 0)  # the discoverer does not move
    assert dict(t.player("red").showing) == {K: 1, T: 1, G: 1}
    assert t.state["temple"][-1] == {
        "tile": "gem3-torch-1",
        "cell": [0, -1],
        "stairs": "N",
        "gems": 0,
    }


def test_discover_needs_two_adventurers():
    t = table().roll("blue", A, K, K, T, G)
    assert t.no(type="discover", player="blue", tile="chamber-1", cell=[0, -1]) == (
        "blue shows 1 adventurer, 2 needed to discover a chamber"
    )


def test_discover_rejections():
    t = table().roll("red", A, A, A, A, K)
    assert "already in the temple" in t.no(type="discover", player="red", tile="exit", cell=[0, -1])
    assert "unknown tile" in t.no(type="discover", player="red", tile="nope", cell=[0, -1])
    assert "already in the temple" in t.no(
        type="discover", player="red", tile="start", cell=[0, -1]
    )
    assert "already holds" in t.no(type="discover", player="red", tile="chamber-1", cell=[1, 0])
    assert "not next to" in t.no(type="discover", player="red", tile="chamber-1", cell=[2, 2])
    assert "must face" in t.no(
        type="discover", player="red", tile="chamber-1", cell=[0, -1], stairs="S"
    )
    t.ok(type="enter", player="red", cell=[-1, 0])  # the dead end: walls N, S, W
    assert "wall on its W side" in t.no(
        type="discover", player="red", tile="chamber-1", cell=[-2, 0]
    )


def test_a_second_start_tile_is_never_discovered():
    second = {"name": "Other start", "kind": "start", "doors": [], "enter": []}
    t = table(tiles={"start-2": second}).roll("red", A, A, A, A, K)
    assert "never discovered" in t.no(type="discover", player="red", tile="start-2", cell=[0, -1])


def test_explicit_stairs_toward_the_discoverer_is_accepted():
    t = table().roll("red", A, A, A, A, K)
    t.ok(type="discover", player="red", tile="chamber-3", cell=[0, -1], stairs="N")


# ----- activate ---------------------------------------------------------------------------


def in_key_chamber(*players):
    t = table(players=list(players))
    for pid in players:
        t.roll(pid, A, K, K, K, K)
        t.ok(type="enter", player=pid, cell=[1, 0])
    return t


def test_activating_one_gem_alone_moves_a_gem_from_the_depot():
    t = in_key_chamber("red", "blue")
    t.roll("red", K, K, K, K, A)
    t.ok(type="activate", cell=[1, 0], gems=1, players=["red"])
    assert t.state["depot"] == 6
    assert t.state["keys_to_escape"] == 7
    assert t.game.temple.at((1, 0)).gems == 1
    assert dict(t.player("red").showing) == {A: 1}


def test_no_more_gems_once_a_chamber_has_been_activated():
    t = in_key_chamber("red", "blue")
    t.roll("red", K, K, K, K, A).ok(type="activate", cell=[1, 0], gems=1, players=["red"])
    t.roll("blue", K, K, K, K, K)
    assert "no more gems" in t.no(type="activate", cell=[1, 0], gems=1, players=["blue"])


def test_two_or_three_gems_need_two_players():
    t = in_key_chamber("red", "blue")
    t.roll("red", K, K, K, K, K)
    assert "at least two players" in t.no(type="activate", cell=[1, 0], gems=2, players=["red"])


def test_activation_rejections():
    t = in_key_chamber("red", "blue")
    t.roll("red", K, K, K, K, K).roll("blue", K, K, K, K, K)
    assert "1 to 3 gems" in t.no(type="activate", cell=[1, 0], gems=4, players=["red", "blue"])
    assert "1 to 3 gems" in t.no(type="activate", cell=[1, 0], gems=0, players=["red"])
    assert "whole number" in t.no(type="activate", cell=[1, 0], gems="two", players=["red"])
    assert "no chamber at [5, 5]" in t.no(type="activate", cell=[5, 5], gems=1, players=["red"])
    assert "only once" in t.no(type="activate", cell=[1, 0], gems=2, players=["red", "red"])
    assert "must list" in t.no(type="activate", cell=[1, 0], gems=1, players=[])
    t.ok(type="enter", player="blue", cell=[0, 0])
    assert "blue is not inside" in t.no(
        type="activate", cell=[1, 0], gems=2, players=["red", "blue"]
    )
    assert "no gem icons" in t.no(type="activate", cell=[0, 0], gems=1, players=["blue"])


def test_pooled_keys_short_of_the_cost_are_refused_with_the_total():
    t = in_key_chamber("red", "blue")
    t.roll("red", K, K, K, A, A).roll("blue", K, K, A, A, T)
    assert t.no(type="activate", cell=[1, 0], gems=2, players=["red", "blue"]) == (
        "red and blue show 5 keys together, 7 needed to activate 2 gems"
    )


def test_the_depot_must_hold_the_gems():
    t = in_key_chamber("red", "blue")
    t.game.depot = 1  # as late in a game where most gems are already activated
    t.roll("red", K, K, K, K, K).roll("blue", K, K, K, K, K)
    assert "holds only 1 gem" in t.no(type="activate", cell=[1, 0], gems=2, players=["red", "blue"])


# ----- unlock -----------------------------------------------------------------------------


def test_a_golden_mask_frees_up_to_two_of_your_own_black_masks():
    t = table().roll("red", G, B, B, A, A)
    t.ok(type="unlock", player="red", count=2)
    red = t.player("red")
    assert red.locked == 0
    assert red.showing[G] == 0
    assert red.free_dice == 5


def test_unlock_rejections():
    t = table().roll("red", G, B, A, A, A).roll("blue", B, A, K, A, A)
    assert "1 locked die, 2 cannot" in t.no(type="unlock", player="red", count=2)
    assert "1 or 2" in t.no(type="unlock", player="red", count=3)
    assert "golden mask" in t.no(type="unlock", player="blue", count=1)  # blue has none
    t.ok(type="enter", player="blue", cell=[1, 0])
    assert "not in blue's chamber" in t.no(type="unlock", player="blue", by="red", count=1)


def test_a_golden_mask_helps_only_one_player():
    t = table(players=["red", "blue", "green"])
    t.roll("red", G, A, A, A, A).roll("blue", B, A, A, A, A).roll("green", B, A, A, A, A)
    t.ok(type="unlock", player="blue", by="red", count=1)
    assert "red shows 0 golden masks" in t.no(type="unlock", player="green", by="red", count=1)


# ----- escape -----------------------------------------------------------------------------


def test_escape_needs_depot_plus_one_keys_shown_by_the_player_alone():
    t = table()
    t.game.depot = 2
    t.roll("red", A, K, K, K, T).ok(type="enter", player="red", cell=[0, 1])
    assert t.no(type="escape", player="red") == "red shows 2 keys, 3 needed to escape"
    t.roll("red", K, K, K, A, A).ok(type="escape", player="red")
    assert t.state["players"]["red"] == {"cell": None, "escaped": True, "dice": 5, "locked": 0}


def test_escape_only_from_the_exit_chamber():
    t = table().roll("red", K, K, K, K, K)
    assert "not in the exit" in t.no(type="escape", player="red")


def test_an_escaped_player_takes_no_more_actions():
    t = table()
    t.game.depot = 0
    t.roll("red", A, K, K, A, A).ok(type="enter", player="red", cell=[0, 1])
    t.ok(type="escape", player="red")
    for event in (
        {"type": "dice", "player": "red", "faces": [A, A, A, A, A]},
        {"type": "enter", "player": "red", "cell": [0, 0]},
        {"type": "discover", "player": "red", "tile": "chamber-1", "cell": [0, -1]},
        {"type": "activate", "cell": [1, 0], "gems": 1, "players": ["red"]},
        {"type": "unlock", "player": "red", "count": 1},
        {"type": "escape", "player": "red"},
    ):
        assert "already escaped" in t.no(**event)


def test_the_game_is_won_when_the_last_player_escapes_and_then_nothing_more_happens():
    t = table()
    t.game.depot = 0
    for pid in ("red", "blue"):
        t.roll(pid, A, K, K, A, A).ok(type="enter", player=pid, cell=[0, 1])
        t.roll(pid, K, A, A, A, A).ok(type="escape", player=pid)
    assert t.state["outcome"] == "won"
    assert "game is over" in t.no(type="collapse")
    assert "game is over" in t.no(type="countdown_start", n=3)


# ----- give_die ---------------------------------------------------------------------------


def test_an_escaped_player_gives_one_die_to_a_player_inside():
    t = table()
    t.game.depot = 0
    t.roll("red", A, K, K, A, A).ok(type="enter", player="red", cell=[0, 1])
    t.roll("red", K, A, A, A, A).ok(type="escape", player="red")
    t.ok(**{"type": "give_die", "from": "red", "to": "blue"})
    assert t.player("red").dice == 4
    assert t.player("blue").dice == 6
    t.roll("blue", A, A, A, A, A, K)  # the new die is rolled at once
    assert "already given" in t.no(**{"type": "give_die", "from": "red", "to": "blue"})


def test_give_die_rejections():
    t = table()
    assert "has not escaped" in t.no(**{"type": "give_die", "from": "red", "to": "blue"})
    assert "'from'" in t.no(**{"type": "give_die", "to": "blue"})
    assert "unknown player 'pink'" in t.no(**{"type": "give_die", "from": "pink", "to": "red"})


# ----- turn of fate -----------------------------------------------------------------------


def test_a_turn_of_fate_moves_a_spare_gem_and_frees_every_black_mask():
    t = table().roll("red", B, B, A, A, A).roll("blue", B, K, K, K, K)
    t.ok(type="turn_of_fate")
    assert (t.state["depot"], t.state["spare"], t.state["turns_of_fate_left"]) == (8, 1, 1)
    assert t.player("red").locked == 0
    assert t.player("blue").locked == 0
    assert t.state["keys_to_escape"] == 9


def test_only_two_turns_of_fate_and_none_for_professionals():
    t = table()
    t.ok(type="turn_of_fate").ok(type="turn_of_fate")
    assert "twice" in t.no(type="turn_of_fate")
    assert t.state["turns_of_fate_left"] == 0
    assert "professionals" in table(difficulty="professional").no(type="turn_of_fate")


# ----- the clock --------------------------------------------------------------------------


def test_countdown_start_changes_nothing_but_needs_a_valid_number():
    t = table()
    before = t.state
    t.ok(type="countdown_start", n=1, t=180.0)
    assert t.state == before
    assert "'n' must be 1 or 2 or 3" in t.no(type="countdown_start", n=4)
    assert "'n' must be 1 or 2" in t.no(type="countdown_end", n=3)
    assert "needs a 'n'" in t.no(type="countdown_end")


def test_countdown_end_costs_a_die_outside_the_start_chamber_a_locked_one_first():
    t = table(players=["red", "blue", "green"])
    t.roll("red", A, K, B, T, T).ok(type="enter", player="red", cell=[1, 0])  # one locked
    t.roll("blue", A, K, T, T, T).ok(type="enter", player="blue", cell=[1, 0])
    t.ok(type="countdown_end", n=1)
    red, blue, green = t.player("red"), t.player("blue"), t.player("green")
    assert (red.dice, red.locked, dict(red.showing)) == (4, 0, {T: 2})
    assert (blue.dice, blue.locked, dict(blue.showing), blue.rolled) == (4, 0, {}, False)
    assert green.dice == 5  # safe in the start chamber
    t.roll("blue", A, A, A, A)  # four dice from now on
    assert "holds 4 dice" in t.no(type="dice", player="blue", faces=[A, A, A, A, A])


def test_collapse_with_anyone_inside_loses_the_game():
    t = table().ok(type="collapse", t=600)
    assert t.state["outcome"] == "lost"
    assert "game is over: it was lost" in t.no(type="dice", player="red", faces=[A] * 5)


# ----- malformed events -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ({"type": "fly", "player": "red"}, "unknown event type 'fly'"),
        ({"player": "red"}, "unknown event type None"),
        ({"type": "enter", "player": "pink", "cell": [0, 1]}, "unknown player 'pink'"),
        ({"type": "enter", "player": "red"}, "needs a 'cell'"),
        ({"type": "enter", "cell": [0, 1]}, "needs a 'player'"),
        ({"type": "enter", "player": "red", "cell": [0]}, "cell [x, y]"),
        ({"type": "enter", "player": "red", "cell": "N"}, "cell [x, y]"),
        ({"type": "enter", "player": "red", "cell": [0.5, 1]}, "cell [x, y]"),
        ({"type": "enter", "player": "red", "cell": [0, 1], "t": -1}, "'t' must be"),
        ({"type": "enter", "player": "red", "cell": [0, 1], "t": "soon"}, "'t' must be"),
        ({"type": "setup", "players": ["red"]}, "only be the first line"),
        ({"type": "activate", "cell": [1, 0], "gems": 1, "players": "red"}, "must list"),
        ({"type": "unlock", "player": "red"}, "needs a 'count'"),
        ({"type": "unlock", "player": "red", "count": True}, "whole number"),
    ],
)
def test_malformed_events_are_rejected_with_a_reason(event, message):
    t = table().roll("red", A, A, K, K, T)
    assert message in t.no(**event)


def test_an_event_that_is_not_an_object_is_rejected():
    t = table()
    before = t.state
    verdict = t.game.apply(["enter"])
    assert not verdict.ok and "JSON object" in verdict.reason
    assert t.state == before


# ----- undo (the dashboard's extension of the record) ---------------------------------------


def test_undo_takes_back_the_last_player_event_and_keeps_clock_events():
    t = table().roll("red", A, A, K, K, T)
    before_discover = t.state
    t.ok(type="discover", player="red", tile="chamber-1", cell=[0, -1])
    t.ok(type="countdown_start", n=1)
    t.ok(type="undo")
    assert t.state == before_discover
    assert dict(t.player("red").showing) == {A: 2, K: 2, T: 1}
    assert [e["type"] for e in t.game.accepted] == ["dice", "countdown_start"]
    t.ok(type="undo")  # the roll itself
    assert t.player("red").rolled is False
    assert "nothing to undo" in t.no(type="undo")


def test_undo_repairs_a_mistaken_winning_escape_but_not_a_collapse():
    t = table(players=["red"])
    t.game.depot = 0
    t.roll("red", A, K, K, A, A, T, T).ok(type="enter", player="red", cell=[0, 1])
    t.roll("red", K, A, A, A, A, T, T).ok(type="escape", player="red")
    assert t.state["outcome"] == "won"
    t.ok(type="undo")
    assert t.state["outcome"] == "running"
    assert t.state["players"]["red"]["escaped"] is False
    t.ok(type="collapse")
    assert "game is over: it was lost" in t.no(type="undo")
