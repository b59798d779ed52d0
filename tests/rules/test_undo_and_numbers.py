"""An undo stays bound to the line it took back; records refuse numbers JSON does not have.

The fixture `data/records_before_undo_binding.json` holds game records judged by the engine
before undos were bound (random games with undos and corrections, and the demo games): they
must replay with the same verdicts and the same final state.
"""

import json
import math
from pathlib import Path

import pytest

from rules.engine import Game
from rules.errors import RecordError
from rules.record import parse_lines, replay_lines
from templecam.cli import main

DATA = Path(__file__).parent / "data"

SETUP = {"type": "setup", "players": ["red", "blue"], "track_dice": False}
# The scenario, as the dashboard writes it in manual mode (no dice tracked).
SCENARIO = [
    {"type": "discover", "player": "red", "tile": "gem3-key-1", "cell": [1, 0]},  # line 2
    {"type": "enter", "player": "blue", "cell": [1, 0]},  # line 3
    {"type": "enter", "player": "red", "cell": [1, 0]},  # line 4
    {"type": "activate", "cell": [1, 0], "gems": 2, "players": ["red", "blue"]},  # line 5
    {"type": "undo"},  # line 6: takes back the activation
    {"type": "correct", "line": 4, "event": None},  # line 7: red never entered
]


def judged(game: Game) -> dict[int, tuple[bool, int | None]]:
    """Each line: (accepted as the record stands now, the undo line that took it back)."""
    return {line.line: (line.verdict.ok, line.undone_by) for line in game.lines}


def check_scenario(game: Game) -> None:
    state = game.state_json()
    assert state["players"]["blue"]["cell"] == [1, 0], "the undo moved blue back to the start"
    assert state["players"]["red"]["cell"] == [0, 0]
    assert state["depot"] == 7 and state["temple"][1]["gems"] == 0
    lines = judged(game)
    assert lines[3] == (True, None)  # blue's move is untouched
    assert lines[5][1] == 6  # the activation stays the undone line ...
    assert lines[6] == (True, None)  # ... and the undo has nothing else to take back
    assert game.undo_target() == 3  # the next undo would take back blue's move


def test_an_undo_after_a_fix_stays_bound_to_the_line_it_undid():
    game = Game.from_setup_line(SETUP)
    for event in SCENARIO[:5]:
        assert game.apply(event).ok
    assert judged(game)[5] == (True, 6)
    assert game.apply(SCENARIO[5]).ok
    check_scenario(game)


@pytest.mark.parametrize("explicit", [False, True])
def test_the_binding_survives_a_replay_of_the_saved_record(explicit):
    events = [dict(event) for event in SCENARIO]
    if explicit:
        events[4]["line"] = 5  # the dashboard writes the line the undo takes back
    lines = [json.dumps(SETUP), *(json.dumps(event) for event in events)]
    replay = replay_lines(lines)
    assert all(verdict.ok for verdict in replay.verdicts)
    check_scenario(replay.game)


def test_an_undo_naming_another_line_than_the_last_action_is_rejected():
    game = Game.from_setup_line(SETUP)
    for event in SCENARIO[:3]:
        game.apply(event)
    verdict = game.apply({"type": "undo", "line": 3})
    assert not verdict.ok
    assert verdict.reason == (
        "line 3 is not the last action (line 4 is): undo takes back the last one; "
        "use Fix to change an earlier one"
    )
    assert game.apply({"type": "undo", "line": 4}).ok
    assert game.state_json()["players"]["red"]["cell"] == [0, 0]


def test_a_correction_restoring_the_undone_line_leaves_it_undone():
    game = Game.from_setup_line(SETUP)
    for event in SCENARIO:
        game.apply(event)
    assert game.apply({"type": "correct", "line": 4, "event": SCENARIO[2]}).ok
    state = game.state_json()
    assert state["players"]["red"]["cell"] == [1, 0]
    assert state["depot"] == 7, "the undo still takes back the activation"
    assert judged(game)[5] == (True, 6)


def test_records_judged_before_undos_were_bound_replay_with_the_same_verdicts():
    fixture = json.loads((DATA / "records_before_undo_binding.json").read_text())
    records = fixture["records"]
    assert len(records) >= 30
    for record in records:
        replay = replay_lines(record["lines"])
        assert [v.to_json() for v in replay.verdicts] == record["verdicts"], record["seed"]
        final = [[line.line, line.verdict.to_json()] for line in replay.game.lines]
        assert final == record["final"], record["seed"]
        assert replay.game.state_json() == record["state"], record["seed"]


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"type": "enter", "player": "red", "cell": [NaN, Infinity]}', "cell[0]"),
        ('{"type": "dice", "player": "red", "faces": [], "t": -Infinity}', "t"),
        ('{"type": "escape", "player": "red", "t": 1e999}', "t"),
    ],
)
def test_the_record_reader_refuses_numbers_json_does_not_have(text, where):
    with pytest.raises(RecordError) as error:
        parse_lines([json.dumps(SETUP), text])
    assert str(error.value) == (
        f"line 2 is not valid JSON: {where} is not a finite number: JSON has no NaN, "
        "Infinity or numbers that large"
    )


def test_replay_exits_2_on_a_record_with_nan(tmp_path, capsys):
    path = tmp_path / "nan.jsonl"
    path.write_text(json.dumps(SETUP) + '\n{"type": "turn_of_fate", "t": NaN}\n')
    assert main(["replay", str(path)]) == 2
    assert "line 2 is not valid JSON: t is not a finite number" in capsys.readouterr().err


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_the_engine_rejects_an_event_holding_a_non_finite_number(bad):
    game = Game.from_setup_line(SETUP)
    verdict = game.apply({"type": "enter", "player": "red", "cell": [0, 1], "conf": bad})
    assert not verdict.ok
    assert verdict.reason.startswith("'conf' is not a finite number")
    verdict = game.apply({"type": "turn_of_fate", "t": bad})
    assert not verdict.ok and verdict.reason.startswith("'t' is not a finite number")
    assert game.state_json()["depot"] == 7
