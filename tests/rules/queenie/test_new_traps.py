"""Queenie 16: New traps (Queenie box): quicksand, lava chamber and gates, beast chamber."""

import json
from collections import Counter

import pytest

from rules.actions import open_actions
from rules.engine import Game
from rules.errors import RecordError
from rules.game_setup import starting_candidates
from rules.modules_registry import INSTANCES
from rules.narrative import tell_event
from rules.record import replay_lines
from tests.rules.rules_helpers import A, B, G, K, T, Table, start_and

TEMPLE = start_and(("chamber-1", (-1, 0), "E"), ("chamber-7", (1, 0), "W"))
NORTH = [0, 1]
MODULE = INSTANCES["new_traps"]


def traps(**setup):
    return Table(modules=["new_traps"], temple=TEMPLE, **setup)


def found(tile, player="red"):
    t = traps()
    t.roll(player, A, A, K, K, K)
    t.ok(type="discover", player=player, cell=NORTH, tile=tile)
    return t


def state(t):
    return t.state["new_traps"]


# ----- set-up -------------------------------------------------------------------------------


def test_the_three_trap_chambers_join_the_pile_never_the_starting_temple():  # Queenie 16
    t = traps()
    for tile_id in ("quicksand", "lava", "beast"):
        assert t.game.catalog[tile_id].feature == tile_id
        assert tile_id not in starting_candidates(t.game.catalog)
    assert "quicksand" not in Table().game.catalog


def test_the_beast_path_is_a_setup_field_checked():
    line = {"type": "setup", "players": ["red"], "modules": ["new_traps"]}
    assert Game.from_setup_line(line).state_json()["new_traps"]["beast_path"] == [A, T, K, A]
    game = Game.from_setup_line({**line, "beast_path": [K, K]})
    assert game.state_json()["new_traps"]["beast_path"] == [K, K]
    with pytest.raises(RecordError, match="'beast_path' must list"):
        Game.from_setup_line({**line, "beast_path": [B]})
    with pytest.raises(RecordError, match="'beast_path' must list"):
        Game.from_setup_line({**line, "beast_path": []})


def test_without_the_module_its_events_are_unknown():
    reason = Table().no(type="lava_climb", player="red")
    assert "unknown event type 'lava_climb'" in reason


# ----- quicksand ------------------------------------------------------------------------------


def test_the_discoverer_lands_in_the_quicksand_and_may_not_move():  # Queenie 16
    t = found("quicksand")
    assert t.state["players"]["red"]["cell"] == NORTH
    assert state(t)["quicksand"] == {"red": 0}
    t.roll("red", A, A, A, T, T)
    reason = t.no(type="enter", player="red", cell=[0, 0])
    assert "red may not leave his chamber: caught in the quicksand" in reason
    reason = t.no(type="discover", player="red", cell=[0, 2], tile="chamber-2")
    assert "caught in the quicksand" in reason


def test_the_quicksand_frees_him_with_4_torches_in_his_4_rolls():  # Queenie 16
    t = found("quicksand")
    assert "must roll first" in t.no(type="quicksand_free", player="red")
    assert "blue is not caught in the quicksand" in t.no(type="quicksand_free", player="blue")
    for _ in range(3):
        t.roll("red", T, T, K, K, A)
        assert "torch" in t.no(type="quicksand_free", player="red")
    t.roll("red", T, T, T, T, A)  # the 4th roll
    t.ok(type="quicksand_free", player="red")
    assert state(t)["quicksand"] == {}
    t.roll("red", A, A, K, K, K)
    t.ok(type="enter", player="red", cell=[0, 0])


def test_after_4_failed_rolls_others_come_and_roll_4_torches():  # Queenie 16
    t = found("quicksand")
    t.roll("red", T, K, K, K, A)
    rescue = {"type": "quicksand_rescue", "player": "red", "players": ["blue"]}
    assert "still tries by himself (1 roll of 4 made)" in t.no(**rescue)
    for _ in range(3):
        t.roll("red", T, K, K, K, A)
    t.roll("red", T, T, T, T, A)  # a 5th roll: too late
    reason = t.no(type="quicksand_free", player="red")
    assert "rolled 4 times without 4 torches: others must come" in reason
    t.roll("blue", T, T, T, T, A)
    assert "blue is not in Quicksand chamber (north of the start)" in t.no(**rescue)
    t.roll("blue", A, T, K, K, K)
    t.ok(type="enter", player="blue", cell=NORTH)  # an adventurer and a torch
    assert "red is the one to rescue" in t.no(
        type="quicksand_rescue", player="red", players=["red", "blue"]
    )
    t.roll("blue", T, T, T, K, A)
    assert "torch" in t.no(**rescue)
    offered = [a for a in open_actions(t.game, "blue") if a.action == "quicksand_rescue"]
    assert offered and offered[0].missing == {T: 1}
    t.roll("blue", T, T, T, T, A)  # helpers roll as often as they need
    t.ok(**rescue)
    assert state(t)["quicksand"] == {}
    assert tell_event(t.game.accepted[-1], t.game) == (
        "Blue rolls 4 torches: Red is pulled out of the quicksand"
    )


def test_the_quicksand_counts_the_rolls_on_the_players_card():
    t = found("quicksand")
    t.roll("red", T, K, K, K, A)
    t.roll("red", T, K, K, K, A)
    (mark,) = MODULE.player_marks(t.game, t.player("red"))
    assert mark["count"] == 2 and "2 of 4" in mark["label"]
    assert any("roll 2 of exactly 4" in r for r in MODULE.reminders(t.game))


# ----- lava chamber and gates -----------------------------------------------------------------


def test_the_lava_holds_him_until_he_alone_rolls_4_keys():  # Queenie 16
    t = found("lava")
    assert state(t)["lava"] == ["red"]
    t.roll("red", K, K, K, A, A)
    assert "in the middle of the lava" in t.no(type="enter", player="red", cell=[0, 0])
    t.roll("blue", K, T, K, K, K)
    t.ok(type="enter", player="blue", cell=NORTH)  # a key and a torch; no gate on the north
    assert "key" in t.no(type="lava_climb", player="red")  # blue's keys do not count
    t.roll("red", K, K, K, K, A)
    t.ok(type="lava_climb", player="red")
    assert state(t)["lava"] == []
    t.roll("red", A, A, K, K, K)
    t.ok(type="enter", player="red", cell=[0, 0])


def test_others_help_in_the_lava_with_golden_masks_only():  # Queenie 16
    t = found("lava")
    t.roll("red", B, B, K, K, A)
    t.roll("blue", K, T, G, K, K)
    t.ok(type="enter", player="blue", cell=NORTH)
    t.ok(type="unlock", player="red", by="blue", count=2)
    assert t.state["players"]["red"]["locked"] == 0


def test_the_player_in_the_lava_may_still_discover():  # Queenie 16 forbids only leaving
    t = found("lava")
    t.roll("red", A, A, K, K, K)
    t.ok(type="discover", player="red", cell=[0, 2], tile="chamber-2")
    assert t.state["players"]["red"]["cell"] == NORTH


def test_the_lava_lays_gates_on_the_starts_entrances():  # Queenie 16
    t = found("lava")
    assert state(t)["gates"] == ["W", "E"]
    t.roll("blue", A, A, K, K, K)
    reason = t.no(type="enter", player="blue", cell=[-1, 0])
    assert "a gate blocks the starting chamber's west entrance" in reason
    assert "Chamber 1 (west of the start)" in reason
    kinds = {(a.action, a.label) for a in open_actions(t.game, "blue")}
    assert ("enter", "enter Chamber 1 (W)") not in kinds
    t.player("blue").cell = (1, 0)
    t.roll("blue", A, A, K, K, K)
    assert "east entrance" in t.no(type="enter", player="blue", cell=[0, 0])


def test_three_keys_from_either_side_remove_a_gate():  # Queenie 16
    t = found("lava")
    t.player("blue").cell = (-1, 0)
    remove = {"type": "gate_remove", "side": "W", "players": ["blue"]}
    t.roll("blue", K, K, A, A, A)
    assert "key" in t.no(**remove)
    t.roll("red", K, K, K, A, A)
    reason = t.no(type="gate_remove", side="W", players=["red"])
    assert "red is not in the starting chamber or Chamber 1 (west of the start)" in reason
    assert "no gate blocks the starting chamber's north entrance" in t.no(
        type="gate_remove", side="N", players=["blue"]
    )
    t.roll("blue", K, K, K, A, A)
    t.ok(**remove)
    assert state(t)["gates"] == ["E"]
    t.roll("blue", A, A, K, K, K)
    t.ok(type="enter", player="blue", cell=[0, 0])
    assert tell_event(t.game.accepted[-3], t.game) == (
        "Blue rolls 3 keys: the gate on the start's west entrance is removed"
    )


def test_the_gates_are_laid_once():  # Queenie 16: two gate tokens
    t = found("lava")
    t.player("blue").cell = (0, 0)
    t.roll("blue", K, K, K, A, A)
    t.ok(type="gate_remove", side="E", players=["blue"])
    t.roll("red", K, K, K, K, A)
    t.ok(type="lava_climb", player="red")
    assert state(t)["gates"] == ["W"]
    marks = MODULE.tile_marks(t.game, t.game.temple.at((0, 0)))
    assert [m["token"] for m in marks] == ["gate"]


# ----- beast chamber --------------------------------------------------------------------------


def test_nobody_else_enters_the_beast_chamber():  # Queenie 16
    t = found("beast")
    assert state(t)["beast"] == {"red": 0}
    t.roll("blue", A, A, K, K, K)
    assert "nobody else may enter the Beast chamber" in t.no(
        type="enter", player="blue", cell=NORTH
    )
    assert not [a for a in open_actions(t.game, "blue") if a.event.get("cell") == NORTH]


def test_in_the_beast_chamber_one_die_is_rolled_at_a_time():  # Queenie 16
    t = found("beast")
    assert t.state["players"]["red"]["dice"] == 5
    reason = t.no(type="dice", player="red", faces=[A, A, A, A, A])
    assert "rolls one die at a time, not all his dice" in reason
    assert "creeping past the sleeping beast" in t.no(type="enter", player="red", cell=[0, 0])
    t.ok(type="beast_roll", player="red", face=T)  # the first space asks for an adventurer
    assert state(t)["beast"] == {"red": 0}
    for face, step in ((A, 1), (T, 2), (K, 3)):
        t.ok(type="beast_roll", player="red", face=face)
        assert state(t)["beast"] == {"red": step}
    t.ok(type="beast_roll", player="red", face=A)  # the last space: out past the beast
    assert state(t)["beast"] == {}
    assert t.state["players"]["red"]["cell"] == [0, 0]  # the chamber at its stairway
    assert "red is not in the beast chamber" in t.no(type="beast_roll", player="red", face=A)


def test_all_black_masks_in_the_beast_chamber_lose_a_die_for_good():  # Queenie 16
    t = found("beast")
    for _ in range(4):
        t.ok(type="beast_roll", player="red", face=B)
    assert t.state["players"]["red"]["locked"] == 4
    t.ok(type="beast_roll", player="red", face=G)  # a golden mask frees 2 of his own
    assert t.state["players"]["red"]["locked"] == 2
    for _ in range(3):
        t.ok(type="beast_roll", player="red", face=B)
    red = t.state["players"]["red"]
    assert (red["dice"], red["locked"], red["cell"]) == (4, 4, [0, 0])
    assert state(t)["beast"] == {}


def test_a_die_rolled_past_the_beast_leaves_the_faces_it_showed():  # Queenie 16
    # Found by the random-games property: a player who came in with every free die showing a
    # face kept them all showing while a rolled black mask locked one of them (locked 2 and 2
    # faces showing of 3 dice).
    t = found("beast")
    red = t.game.players["red"]
    red.showing = Counter({K: 3, T: 2})  # he rolled all five just before he was caught
    for face in (B, A, B):
        t.ok(type="beast_roll", player="red", face=face)
        assert sum(red.showing.values()) + red.locked <= red.dice
    assert red.locked == 2 and sum(red.showing.values()) == 3  # the adventurer shows none


def test_the_dashboard_offers_the_beasts_die_with_each_face():
    t = found("beast")
    (action,) = [a for a in open_actions(t.game, "red") if a.action == "beast_roll"]
    assert "asks for 1 adventurer" in action.label
    assert [c["event"]["face"] for c in action.choices] == list(
        ("adventurer", "key", "torch", "golden_mask", "black_mask")
    )
    assert any("creeps past the sleeping beast" in r for r in MODULE.reminders(t.game))


# ----- the record -----------------------------------------------------------------------------


def test_a_record_replays_to_the_same_state():
    t = found("lava")
    t.roll("red", K, K, K, K, A)
    t.ok(type="lava_climb", player="red")
    t.roll("blue", K, K, K, A, A)
    t.ok(type="gate_remove", side="W", players=["blue"])
    setup = {"type": "setup", "players": ["red", "blue"], "modules": ["new_traps"]}
    setup["temple"] = TEMPLE
    lines = [json.dumps(setup)] + [json.dumps(e) for e in t.game.accepted]
    replay = replay_lines(lines)
    assert all(v.ok for v in replay.verdicts)
    assert replay.game.state_json() == t.state
    assert t.game.copy().new_traps == t.game.new_traps


def test_the_log_tells_the_prisoners_by_name():
    t = found("beast")
    t.ok(type="beast_roll", player="red", face="golden_mask")
    assert tell_event(t.game.accepted[-1], t.game) == (
        "Red rolls one die past the sleeping beast: golden mask"
    )
    t = found("lava")
    t.roll("red", K, K, K, K, A)
    t.ok(type="lava_climb", player="red")
    assert tell_event(t.game.accepted[-1], t.game) == "Red rolls 4 keys and steps out of the lava"
    t = found("quicksand")
    t.roll("red", T, T, T, T, A)
    t.ok(type="quicksand_free", player="red")
    assert tell_event(t.game.accepted[-1], t.game) == (
        "Red rolls 4 torches and gets out of the quicksand"
    )


def _mentalist():
    return Table(
        players=["red", "blue"],
        modules=["characters", "new_traps"],
        characters={"red": "mentalist-teleport", "blue": "doc-heal"},
        temple=TEMPLE,
        track_dice=False,
    )


def test_the_mentalists_teleport_does_not_pull_him_out_of_the_quicksand():  # Queenie 16, p. 21
    t = _mentalist()
    t.ok(type="discover", player="red", cell=NORTH, tile="quicksand")
    t.ok(type="enter", player="blue", cell=[1, 0])
    reason = t.no(type="ability", player="red", cell=[1, 0])
    assert reason.startswith("red may not move: caught in the quicksand")
    assert t.state["players"]["red"]["cell"] == NORTH


def test_the_mentalists_teleport_never_enters_the_beast_chamber():  # Queenie 16, p. 21
    t = _mentalist()
    t.ok(type="discover", player="blue", cell=NORTH, tile="beast")  # blue is the prisoner
    assert t.no(type="ability", player="red", cell=NORTH) == (
        "nobody else may enter the Beast chamber"
    )
    offered = [a for a in open_actions(t.game, "red") if a.action == "ability"]
    assert all(not a.possible or a.event.get("cell") != NORTH for a in offered)
