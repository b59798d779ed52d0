"""Correcting any earlier event line: the record replayed as corrected, later lines re-judged."""

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_helpers import A, B, K, T, Table, start_and

from rules.engine import CLOCK_EVENTS, Game
from rules.narrative import describe_event
from rules.simulate import random_events, random_setup
from templecam.cli import main

# start [0,0]; the exit north of it (enter with 1 adventurer and 1 key), the vault east of it.
TEMPLE = start_and(("gem3-key-1", (1, 0), "W"))
SETUP = {"type": "setup", "players": ["red", "blue"], "temple": TEMPLE}


def table() -> Table:
    return Table(temple=TEMPLE)


def lines(game: Game) -> dict[int, tuple[bool, str | None]]:
    """Each line's verdict as the record stands now: {line: (ok, reason)}."""
    return {judged.line: (judged.verdict.ok, judged.verdict.reason) for judged in game.lines}


def test_a_misread_roll_corrected_makes_the_later_discover_legal():
    t = table().roll("red", A, K, K, K, T)  # line 2: vision misread two adventurers as keys
    t.no(type="discover", player="red", tile="exit", cell=[0, 1])  # line 3: 1 adventurer
    t.no(type="enter", player="red", cell=[0, 1])  # line 4: no chamber there yet
    assert t.game.next_line == 5

    t.ok(type="correct", line=2, event={"type": "dice", "player": "red", "faces": [A, A, A, K, T]})

    assert t.game.temple.at((0, 1)).tile.tile_id == "exit"
    assert t.state["players"]["red"]["cell"] == [0, 1]  # the enter of line 4 now fits too
    assert lines(t.game)[3] == (True, None) and lines(t.game)[4] == (True, None)
    assert dict(t.player("red").showing) == {T: 1}
    corrected = t.game.lines[0]
    assert corrected.corrected_by == 5 and corrected.answer.ok and not corrected.struck
    assert corrected.replacement["faces"] == [A, A, A, K, T]


def test_a_corrected_roll_can_make_later_moves_illegal():
    t = table().roll("red", A, A, K, T, T)  # line 2
    t.ok(type="discover", player="red", tile="exit", cell=[0, 1])  # line 3
    t.roll("blue", A, K, T, T, T).ok(type="enter", player="blue", cell=[1, 0])  # lines 4, 5
    t.ok(type="correct", line=2, event={"type": "dice", "player": "red", "faces": [A, K, K, T, T]})
    assert lines(t.game)[3] == (False, "red shows 1 adventurer, 2 needed to discover a chamber")
    assert lines(t.game)[5] == (True, None)  # blue's move never depended on red's roll
    assert t.game.temple.at((0, 1)) is None
    assert t.state["players"]["blue"]["cell"] == [1, 0]


def test_striking_a_discover_rejects_the_enter_that_needed_it():
    t = table().roll("red", A, A, K, T, T)  # line 2
    t.ok(type="discover", player="red", tile="exit", cell=[0, 1])  # line 3
    t.roll("red", A, K, T, T, T).ok(type="enter", player="red", cell=[0, 1])  # lines 4, 5
    t.ok(type="correct", line=3, event=None)  # line 6
    assert lines(t.game)[3] == (False, "struck out by line 6")
    assert t.game.lines[1].struck
    assert lines(t.game)[5] == (False, "there is no chamber at [0, 1] yet")
    assert t.state["players"]["red"]["cell"] == [0, 0]
    assert len(t.state["temple"]) == 2


def test_a_correction_that_would_itself_be_rejected_changes_nothing():
    t = table().roll("blue", A, K, K, T, T)  # line 2
    t.no(type="discover", player="red", tile="exit", cell=[0, 1])  # red never rolled
    reason = t.no(
        type="correct",
        line=3,
        event={"type": "discover", "player": "blue", "tile": "exit", "cell": [0, 1]},
    )
    assert reason == (
        "line 3 as corrected would be rejected: blue shows 1 adventurer, 2 needed to discover "
        "a chamber"
    )
    assert t.game.lines[1].corrected_by is None


def test_a_rejected_line_can_be_corrected_and_keeps_its_clock_time():
    t = table()
    t.game.apply({"type": "dice", "player": "red", "faces": [A, A, K], "t": 12.5})  # 3 of 5 dice
    assert not t.game.lines[0].verdict.ok
    fixed = {"type": "dice", "player": "red", "faces": [A, A, K, B, T]}
    t.ok(type="correct", line=2, event=fixed, t=20.0)
    judged = t.game.lines[0]
    assert judged.verdict.ok and not judged.answer.ok
    assert judged.replacement == {**fixed, "t": 12.5}
    assert t.player("red").locked == 1
    t.ok(type="correct", line=2, event={**fixed, "t": 13.0})  # a time of its own is kept
    assert t.game.lines[0].replacement["t"] == 13.0


def test_clock_lines_undo_lines_corrections_and_missing_lines_cannot_be_corrected():
    t = table().roll("red", A, A, K, T, T)  # line 2
    t.ok(type="countdown_start", n=1)  # line 3
    t.ok(type="undo")  # line 4
    t.ok(type="correct", line=2, event=None)  # line 5
    dice = {"type": "dice", "player": "red", "faces": [A, A, A, A, A]}
    assert "line 3 is the clock's countdown_start" in t.no(type="correct", line=3, event=dice)
    assert "line 4 is an undo" in t.no(type="correct", line=4, event=dice)
    assert "correct line 2 again instead" in t.no(type="correct", line=5, event=dice)
    assert "line 1 is the setup" in t.no(type="correct", line=1, event=dice)
    # Rejected lines count too: the one above was line 9, so this one is line 10.
    assert "line 10 is not an earlier line: this correction is line 10" in t.no(
        type="correct", line=10, event=dice
    )
    assert "line 40 is not an earlier line" in t.no(type="correct", line=40, event=dice)
    assert "there is no event on line 0" in t.no(type="correct", line=0, event=dice)
    assert "'line' must be a whole number" in t.no(type="correct", line="2", event=dice)
    assert "needs an 'event' field" in t.no(type="correct", line=2)
    assert "must be an event object" in t.no(type="correct", line=2, event=[1])
    assert "unknown event type 'warp'" in t.no(type="correct", line=2, event={"type": "warp"})
    for kind in [*CLOCK_EVENTS, "undo", "correct"]:
        reason = t.no(type="correct", line=2, event={"type": kind, "n": 1})
        assert f"cannot turn line 2 into a {kind} event" in reason


def test_corrections_of_corrections_use_the_latest_one():
    t = table().roll("red", A, K, K, T, T)  # line 2
    t.ok(type="correct", line=2, event={"type": "dice", "player": "red", "faces": [A, A, A, A, A]})
    t.ok(type="correct", line=2, event={"type": "dice", "player": "red", "faces": [K, K, K, K, T]})
    assert dict(t.player("red").showing) == {K: 4, T: 1}
    assert t.game.lines[0].corrected_by == 4
    t.ok(type="correct", line=2, event=None)  # struck out ...
    assert t.player("red").rolled is False
    t.ok(type="correct", line=2, event={"type": "dice", "player": "red", "faces": [T] * 5})
    assert dict(t.player("red").showing) == {T: 5}  # ... and put back by a later correction


def test_undo_after_a_correction_takes_back_the_last_game_event():
    t = table().roll("red", A, K, K, T, T)  # line 2
    t.no(type="discover", player="red", tile="exit", cell=[0, 1])  # line 3
    t.ok(type="correct", line=2, event={"type": "dice", "player": "red", "faces": [A, A, K, T, T]})
    assert t.game.temple.at((0, 1)) is not None
    t.ok(type="undo")  # line 5: takes back the discover of line 3, now accepted
    assert t.game.temple.at((0, 1)) is None
    assert dict(t.player("red").showing) == {A: 2, K: 1, T: 2}
    # A later correction replays the undo bound to line 3: with line 3 struck out it has
    # nothing left to take back, and the (corrected) roll stays.
    t.ok(type="correct", line=3, event=None)
    assert t.player("red").rolled is True
    assert dict(t.player("red").showing) == {A: 2, K: 1, T: 2}
    assert t.game.lines[3].verdict.ok and t.game.lines[1].undone_by == 5


def test_a_won_game_can_be_corrected_but_a_collapsed_one_cannot():
    t = Table(players=["red"], temple=start_and(("exit", (0, 1), "S")))
    t.game.depot = 0  # one key escapes
    t.roll("red", A, K, K, A, A, T, T).ok(type="enter", player="red", cell=[0, 1])  # 2, 3
    t.roll("red", K, A, A, A, A, T, T).ok(type="escape", player="red")  # 4, 5
    assert t.state["outcome"] == "won"
    # The escape was a misread: the second roll showed no key. Replaying rebuilds the setup's
    # depot (7 gems), so the game runs again and red is back in the exit chamber.
    t.ok(type="correct", line=5, event=None)
    assert t.state["outcome"] == "running"
    assert t.state["players"]["red"]["cell"] == [0, 1]
    t.ok(type="collapse")
    dice = {"type": "dice", "player": "red", "faces": [A] * 7}
    assert "the game is over: it was lost" in t.no(type="correct", line=4, event=dice)


def test_the_narrative_tells_corrections():
    fixed = {"type": "dice", "player": "red", "faces": [A, A]}
    assert describe_event({"type": "correct", "line": 7, "event": fixed}) == (
        "correction of line 7: red rolls adventurer, adventurer"
    )
    assert describe_event({"type": "correct", "line": 7, "event": None}) == "line 7 struck out"


def test_replay_judges_a_record_with_corrections(tmp_path, capsys):
    fixed = {"type": "dice", "player": "red", "faces": [A, A, K, T, T]}
    record = [
        SETUP,  # line 1
        {"type": "dice", "player": "red", "faces": [A, K, K, T, T], "t": 1.0},  # 2
        {"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1], "t": 2.0},  # 3
        None,  # line 4 is blank: line numbers are the file's
        {"type": "correct", "line": 2, "event": fixed, "t": 9.0},  # 5: the discover fits now
        {"type": "correct", "line": 5, "event": None, "t": 9.5},  # 6: no, a correction
        {"type": "countdown_start", "n": 1, "t": 180.0},  # 7
        {"type": "correct", "line": 7, "event": None, "t": 190.0},  # 8: no, the clock's
        {"type": "correct", "line": 4, "event": None, "t": 191.0},  # 9: no event there
    ]
    path = tmp_path / "corrected.jsonl"
    text = "\n".join("" if line is None else json.dumps(line) for line in record)
    path.write_text(text + "\n", encoding="utf-8")

    assert main(["replay", str(path), "--json"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert [v["ok"] for v in output["verdicts"]] == [True, False, True, False, True, False, False]
    reasons = [v.get("reason") for v in output["verdicts"]]
    assert "line 5 is itself a correction: correct line 2 again" in reasons[3]
    assert "line 7 is the clock's countdown_start" in reasons[5]
    assert "there is no event on line 4" in reasons[6]
    assert [tile["tile"] for tile in output["state"]["temple"]] == ["start", "gem3-key-1", "exit"]

    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "correction of line 2: red rolls adventurer, adventurer, key, torch, torch  -> ok" in out
    assert "line 7 struck out  -> REJECTED" in out
    assert "7 events, 4 rejected" in out


def snapshot(game: Game) -> tuple[object, ...]:
    return (
        game.state_json(),
        {pid: (dict(p.showing), p.rolled, p.gave_die) for pid, p in game.players.items()},
        game.turns_of_fate_used,
        list(game.accepted),
    )


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), pick=st.floats(0, 1, exclude_max=True))
def test_correcting_a_line_to_itself_changes_nothing(seed, pick):
    rng = random.Random(seed)
    game = Game.from_setup_line(random_setup(rng))
    list(random_events(rng, game, 120, noise=0.2))
    if game.outcome == "lost":
        return
    candidates = [
        judged
        for judged in game.lines
        if isinstance(judged.event, dict)
        and judged.event.get("type") in Game.EVENT_TYPES
        and judged.event["type"] not in CLOCK_EVENTS | {"undo", "correct"}
    ]
    if not candidates:
        return
    chosen = candidates[int(pick * len(candidates))]
    before = snapshot(game)
    verdicts = [judged.verdict for judged in game.lines]
    verdict = game.apply({"type": "correct", "line": chosen.line, "event": chosen.event})
    assert verdict.ok == chosen.verdict.ok, verdict.reason
    assert snapshot(game) == before
    assert [judged.verdict for judged in game.lines[:-1]] == verdicts


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), pick=st.floats(0, 1, exclude_max=True))
def test_striking_a_line_equals_a_record_without_it(seed, pick):
    rng = random.Random(seed)
    setup = random_setup(rng)
    game = Game.from_setup_line(setup)
    events = list(random_events(rng, game, 120, noise=0.2, countdowns=False))
    if game.outcome != "running" or not events:
        return
    index = int(pick * len(events))
    if isinstance(events[index], dict) and events[index].get("type") in CLOCK_EVENTS:
        return  # the clock's lines (here a nonsense countdown_end) cannot be struck out
    assert game.apply({"type": "correct", "line": index + 2, "event": None}).ok
    without = Game.from_setup_line(setup)
    for event in events[:index] + events[index + 1 :]:
        without.apply(event)
    assert snapshot(game) == snapshot(without)
