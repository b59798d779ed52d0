"""The basic game made exact (issue 12): free entries, cooperation, the starting temple, and the
record's edge cases (deep brackets, U+2028, null fields, an escaped player's locked dice)."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rules_helpers import A, B, G, K, T, Table, start_and

from rules.actions import open_actions
from rules.catalog import basic_catalog
from rules.engine import Game
from rules.errors import RecordError
from rules.finite import MAX_NESTING
from rules.game_setup import starting_candidates, starting_temple
from rules.record import parse_lines, record_lines, replay_lines
from templecam.cli import main

FREE = {"free": {"name": "Free chamber", "kind": "chamber", "doors": ["N"], "enter": []}}
GEMS = start_and(("gem3-key-1", (1, 0), "W"))


# ----- page 7: the icons in the red frame, and none when the frame is empty -----------------


def test_a_chamber_with_an_empty_red_frame_is_entered_without_a_roll():
    t = Table(tiles=FREE, temple=start_and(("free", (1, 0), "W")))
    t.ok(type="enter", player="red", cell=[1, 0])  # red never rolled: nothing to pay
    assert t.player("red").cell == (1, 0)
    enter = next(a for a in open_actions(t.game, "blue") if a.action == "enter")
    assert enter.possible and enter.chance_next_roll == 1.0


def test_back_to_the_starting_chamber_after_a_countdown_without_a_roll():
    t = Table(temple=GEMS).roll("red", A, K, K, T, T).ok(type="enter", player="red", cell=[1, 0])
    t.ok(type="countdown_end", n=1)  # red lost a die and forgot his showing dice
    assert not t.player("red").rolled
    t.ok(type="enter", player="red", cell=[0, 0])  # the start's frame is empty


def test_a_chamber_with_icons_still_needs_a_roll():
    reason = Table(temple=GEMS).no(type="enter", player="red", cell=[1, 0])
    assert "roll first" in reason


# ----- page 8: you may cooperate for 1 gem, you must for 2 or 3 -----------------------------


def in_gem_chamber(red, blue):
    t = Table(temple=GEMS)
    for pid, faces in (("red", red), ("blue", blue)):
        t.roll(pid, A, K, T, T, T).ok(type="enter", player=pid, cell=[1, 0]).roll(pid, *faces)
    return t


def test_one_gem_may_be_activated_together_and_the_dashboard_offers_it():
    t = in_gem_chamber((K, K, T, T, T), (K, K, A, A, A))
    together = [
        a
        for a in open_actions(t.game, "red")
        if a.event["type"] == "activate" and a.event["gems"] == 1 and len(a.event["players"]) == 2
    ]
    assert len(together) == 1 and together[0].possible  # 2 + 2 keys: the 4 needed
    assert together[0].label == "activate 1 gem together (4 keys)"
    alone = next(a for a in open_actions(t.game, "red") if a.event.get("players") == ["red"])
    assert alone.missing == {K: 2}
    t.ok(**together[0].event)
    assert t.state["depot"] == 6


def test_the_odds_of_one_gem_together_count_the_partners_dice():
    t = in_gem_chamber((K, T, T, T, T), (A, A, A, A, A))
    actions = [a for a in open_actions(t.game, "red") if a.event.get("gems") == 1]
    alone, together = actions
    assert alone.missing == together.missing == {K: 3}
    assert together.chance_next_roll > alone.chance_next_roll  # 9 dice to roll, not 4


def test_two_gems_are_refused_when_the_listed_partner_pays_nothing():
    t = in_gem_chamber((K, K, K, K, K), (A, A, A, A, A))
    t.game.players["red"].showing[K] += 2  # seven keys in red's hands alone
    reason = t.no(type="activate", cell=[1, 0], gems=2, players=["red", "blue"])
    assert reason == "activating 2 gems takes at least two players who each pay: blue shows no key"


def test_two_gems_paid_by_both_take_one_key_from_the_partner_when_one_could_pay_alone():
    t = in_gem_chamber((K, K, K, K, K), (K, K, A, A, A))
    t.game.players["red"].showing[K] += 2  # red shows 7 keys, blue 2
    t.ok(type="activate", cell=[1, 0], gems=2, players=["red", "blue"])
    assert t.player("blue").showing[K] == 1 and t.player("red").showing[K] == 1


def test_the_rulebook_s_seven_keys_together_still_activate_two_gems():
    t = in_gem_chamber((K, K, K, K, T), (K, K, K, A, A))
    t.ok(type="activate", cell=[1, 0], gems=2, players=["red", "blue"])
    assert t.player("red").showing[K] == 0 and t.player("blue").showing[K] == 0


# ----- page 5: the starting temple ------------------------------------------------------------


@given(st.randoms(use_true_random=False))
def test_the_starting_temple_is_the_start_and_two_drawn_chambers_stairs_towards_it(rng):
    catalog = basic_catalog()
    drawn = tuple(rng.sample(starting_candidates(catalog), 2))
    temple = starting_temple(catalog, drawn)
    game = Game.from_setup_line({"type": "setup", "players": ["red"], "temple": temple})
    assert [p.tile.tile_id for p in game.temple] == ["start", *drawn]
    for placed in list(game.temple)[1:]:
        assert game.temple.connected((0, 0), placed.cell)  # its stairway touches the start
    assert "exit" not in drawn


def test_the_two_starting_chambers_lie_left_and_right_of_the_start():
    temple = starting_temple(basic_catalog(), ("chamber-1", "gem1-key-1"))
    assert temple[1:] == [
        {"tile": "chamber-1", "cell": [-1, 0], "stairs": "E"},
        {"tile": "gem1-key-1", "cell": [1, 0], "stairs": "W"},
    ]
    with pytest.raises(RecordError):
        starting_temple(basic_catalog(), ("exit", "chamber-1"))


# ----- the record ---------------------------------------------------------------------------

SETUP = json.dumps({"type": "setup", "players": ["red", "blue"], "track_dice": False})


def test_100000_nested_brackets_are_a_clear_error_with_exit_2(tmp_path, capsys):
    path = tmp_path / "deep.jsonl"
    path.write_text(SETUP + "\n" + "[" * 100_000 + "]" * 100_000 + "\n")
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"line 2 is not valid JSON: brackets nest deeper than {MAX_NESTING} levels" in err
    assert "Traceback" not in err


def test_the_engine_rejects_an_event_nested_too_deeply_given_from_code():
    deep: object = 1
    for _ in range(5000):
        deep = [deep]
    verdict = Game.from_setup_line(json.loads(SETUP)).apply({"type": "undo", "x": deep})
    assert not verdict.ok and "brackets nest deeper than" in verdict.reason


def test_a_u2028_inside_a_string_does_not_split_a_line(tmp_path, capsys):
    event = '{"type": "discover", "player": "red", "tile": "chamber-1", "cell": [1, 0], '
    event += '"note": "a\u2028b\u0085c\u2029d"}'
    text = SETUP + "\n" + event + "\n"
    assert len(record_lines(text)) == 3
    path = tmp_path / "u2028.jsonl"
    path.write_text(text, encoding="utf-8")
    assert main(["replay", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdicts"] == [{"ok": True}]


@pytest.mark.parametrize(
    "event",
    [
        {"type": "undo", "line": None},
        {"type": "discover", "player": "red", "tile": "chamber-1", "cell": [1, 0], "stairs": None},
        {"type": "unlock", "player": "red", "by": None, "count": 1},
        {"type": "turn_of_fate", "t": None},
    ],
)
def test_a_null_field_is_read_as_the_field_left_out(event):
    absent = {k: v for k, v in event.items() if v is not None}
    verdicts = []
    for given_event in (event, absent):
        t = Table(track_dice=False)
        t.ok(type="discover", player="blue", tile="chamber-2", cell=[0, 1])
        t.game.players["red"].locked = 1
        verdicts.append(t.game.apply(given_event))
    assert verdicts[0] == verdicts[1]


def test_a_null_required_field_is_a_missing_field():
    t = Table()
    assert t.no(type="enter", player=None, cell=[1, 0]) == "the enter event needs a 'player' field"
    assert t.no(type="activate", cell=[1, 0], gems=None, players=["red"]) == (
        "the activate event needs a 'gems' field"
    )


def test_a_null_setup_field_is_its_default():
    game = Game.from_setup_line(
        {"type": "setup", "players": ["red"], "difficulty": None, "modules": None, "tiles": None}
    )
    assert game.setup.difficulty == "normal" and game.setup.modules == ()


def test_a_correction_s_null_event_still_strikes_the_line_out():
    lines = [
        SETUP,
        json.dumps({"type": "discover", "player": "red", "tile": "chamber-1", "cell": [1, 0]}),
        json.dumps({"type": "correct", "line": 2, "event": None}),
    ]
    replay = replay_lines(lines)
    assert [v.ok for v in replay.verdicts] == [True, True]
    assert len(replay.game.temple) == 1


def test_an_escaped_player_s_locked_dice_come_back_to_him_and_one_may_be_given():
    t = Table(temple=start_and(("exit", (0, 1), "S")))
    t.game.depot = 0
    t.roll("red", A, K, K, B, B).ok(type="enter", player="red", cell=[0, 1])
    t.roll("red", K, A, A, B, B).ok(type="escape", player="red")
    assert t.state["players"]["red"] == {"cell": None, "escaped": True, "dice": 5, "locked": 0}
    t.ok(type="give_die", **{"from": "red", "to": "blue"})
    assert t.player("blue").dice == 6 and t.player("red").dice == 4


def test_records_keep_their_lines_when_read_back():
    assert [line.number for line in parse_lines([SETUP, "", SETUP.replace("red", "x")])] == [1, 3]


def test_golden_masks_and_torches_are_untouched_by_the_exactness_changes():
    t = Table(temple=GEMS).roll("red", G, B, T, T, A)
    t.ok(type="unlock", player="red", count=1)
    assert t.player("red").locked == 0
