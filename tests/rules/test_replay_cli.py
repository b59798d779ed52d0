"""`templecam replay`: the contract's JSON, the readable account, and clear errors for bad files."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rules.game_setup import KNOWN_MODULES
from rules.modules_registry import MODULES
from templecam.cli import main

A, K, T, G, B = "adventurer", "key", "torch", "golden_mask", "black_mask"

SETUP = {
    "type": "setup",
    "players": ["red", "blue"],
    "difficulty": "normal",
    "modules": [],
    "tiles": {
        "vault": {
            "name": "Vault",
            "kind": "chamber",
            "doors": ["N", "E", "W"],
            "enter": ["adventurer", "key"],
            "gems": {"count": 3, "icon": "key", "costs": [4, 7, 10]},
        }
    },
    "temple": [
        {"tile": "start", "cell": [0, 0], "stairs": "S"},
        {"tile": "vault", "cell": [1, 0], "stairs": "W"},
    ],
    "track_dice": True,
}

# One game touching every event type; comments give the expected verdicts.
EVENTS = [
    {"type": "dice", "player": "red", "faces": [A, A, K, K, T], "t": 1.0},  # ok
    {"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1], "t": 2.0},  # ok
    {"type": "dice", "player": "blue", "faces": [A, T, T, G, B], "t": 2.5},  # ok
    {"type": "enter", "player": "blue", "cell": [1, 0], "t": 3.0},  # no: 0 keys
    {"type": "enter", "player": "red", "cell": [1, 0], "t": 3.5},  # no: adventurers used
    {"type": "unlock", "player": "blue", "count": 1, "t": 4.0},  # ok: own golden mask
    {"type": "dice", "player": "red", "faces": [A, K, K, K, K], "t": 5.0},  # ok
    {"type": "enter", "player": "red", "cell": [1, 0], "t": 5.5},  # ok, 3 keys left
    {"type": "dice", "player": "blue", "faces": [A, K, K, K, T], "t": 6.0},  # ok
    {"type": "enter", "player": "blue", "cell": [1, 0], "t": 6.5},  # ok, 2 keys left
    {"type": "activate", "cell": [1, 0], "gems": 1, "players": ["red", "blue"], "t": 7.0},  # ok
    {"type": "countdown_start", "n": 1, "t": 180.0},  # ok
    {"type": "countdown_end", "n": 1, "t": 215.0},  # ok: both lose a die
    {"type": "turn_of_fate", "t": 220.0},  # ok: depot 6 -> 7
    {"type": "dice", "player": "red", "faces": [A, K, A, A], "t": 221.0},  # ok
    {"type": "enter", "player": "red", "cell": [0, 0], "t": 222.0},  # ok (free)
    {"type": "enter", "player": "red", "cell": [0, 1], "t": 223.0},  # ok: exit needs A + K
    {"type": "escape", "player": "red", "t": 224.0},  # no: 8 keys needed
    {"type": "give_die", "from": "red", "to": "blue", "t": 225.0},  # no: red is inside
    {"type": "teleport", "player": "red"},  # no: unknown type
    {"type": "countdown_start", "n": 3, "t": 565.0},  # ok
    {"type": "collapse", "t": 600.0},  # ok: lost
    {"type": "dice", "player": "blue", "faces": [A, A, A, A]},  # no: game over
]
EXPECTED_OK = [
    True, True, True, False, False, True, True, True, True, True, True, True, True, True,
    True, True, True, False, False, False, True, True, False,
]  # fmt: skip


def write_record(tmp_path, lines, name="game.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n\n", encoding="utf-8")
    return path


def run_cli(*args):
    command = [sys.executable, "-m", "templecam", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_replay_json_follows_the_contract(tmp_path):
    path = write_record(tmp_path, [SETUP, *EVENTS])
    result = run_cli("replay", path, "--json")
    assert result.returncode == 0, result.stderr
    output = json.loads(result.stdout)
    assert set(output) == {"verdicts", "state"}
    assert [v["ok"] for v in output["verdicts"]] == EXPECTED_OK
    for verdict in output["verdicts"]:
        assert set(verdict) == ({"ok"} if verdict["ok"] else {"ok", "reason"})
    reasons = [v.get("reason") for v in output["verdicts"]]
    assert reasons[3] == (
        "blue shows 1 adventurer and 0 keys, 1 adventurer and 1 key needed to enter Vault"
    )
    assert reasons[17] == "red shows 0 keys, 8 needed to escape"
    assert "unknown event type 'teleport'" in reasons[19]
    assert output["state"] == {
        "depot": 7,
        "spare": 1,
        "keys_to_escape": 8,
        "turns_of_fate_left": 1,
        "outcome": "lost",
        "players": {
            "red": {"cell": [0, 1], "escaped": False, "dice": 4, "locked": 0},
            "blue": {"cell": [1, 0], "escaped": False, "dice": 4, "locked": 0},
        },
        "temple": [
            {"tile": "start", "cell": [0, 0], "stairs": "S", "gems": 0},
            {"tile": "vault", "cell": [1, 0], "stairs": "W", "gems": 1},
            {"tile": "exit", "cell": [0, 1], "stairs": "S", "gems": 0},
        ],
    }


def test_replay_without_json_tells_the_game_in_words(tmp_path, capsys):
    path = write_record(tmp_path, [SETUP, *EVENTS])
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "red discovers exit at [0, 1]  -> ok" in out
    assert "REJECTED: red shows 0 keys, 8 needed to escape" in out
    assert "23 events, 6 rejected" in out
    assert "outcome: lost" in out
    assert "keys to escape: 8" in out


def test_activations_escapes_and_a_won_game_replay_to_the_contract_state(tmp_path):
    events = [
        {"type": "dice", "player": "red", "faces": [A, A, A, K, K]},
        {"type": "discover", "player": "red", "tile": "exit", "cell": [-1, 0]},
        {"type": "enter", "player": "red", "cell": [1, 0]},
        {"type": "dice", "player": "blue", "faces": [A, K, K, K, K]},
        {"type": "enter", "player": "blue", "cell": [1, 0]},
        {"type": "dice", "player": "red", "faces": [K, K, K, K, K]},
        {"type": "dice", "player": "blue", "faces": [K, K, K, K, K]},
        {"type": "activate", "cell": [1, 0], "gems": 3, "players": ["red", "blue"]},
        {"type": "dice", "player": "red", "faces": [A, A, A, A, A]},
        {"type": "enter", "player": "red", "cell": [0, 0]},
        {"type": "dice", "player": "red", "faces": [A, K, K, A, A]},
        {"type": "enter", "player": "red", "cell": [-1, 0]},
        {"type": "escape", "player": "red"},
        {"type": "dice", "player": "red", "faces": [K, K, K, K, K]},
        {"type": "escape", "player": "red"},
        {"type": "give_die", "from": "red", "to": "blue"},
        {"type": "dice", "player": "blue", "faces": [A, A, A, A, A, T]},
        {"type": "enter", "player": "blue", "cell": [0, 0]},
        {"type": "dice", "player": "blue", "faces": [A, K, K, K, K, K]},
        {"type": "enter", "player": "blue", "cell": [-1, 0]},
        {"type": "dice", "player": "blue", "faces": [K, K, K, K, K, B]},
        {"type": "escape", "player": "blue"},
        {"type": "collapse"},
    ]
    record = write_record(tmp_path, [SETUP, *events])
    output = json.loads(run_cli("replay", record, "--json").stdout)
    oks = [v["ok"] for v in output["verdicts"]]
    # Red's first escape fails: 1 key showing, the depot holds 4 gems so 5 are needed.
    assert oks == [True] * 12 + [False] + [True] * 9 + [False]
    assert output["verdicts"][12]["reason"] == "red shows 1 key, 5 needed to escape"
    assert output["verdicts"][-1]["reason"] == "the game is over: it was won"
    assert output["state"] == {
        "depot": 4,
        "spare": 2,
        "keys_to_escape": 5,
        "turns_of_fate_left": 2,
        "outcome": "won",
        "players": {
            "red": {"cell": None, "escaped": True, "dice": 4, "locked": 0},
            "blue": {"cell": None, "escaped": True, "dice": 6, "locked": 0},
        },
        "temple": [
            {"tile": "start", "cell": [0, 0], "stairs": "S", "gems": 0},
            {"tile": "vault", "cell": [1, 0], "stairs": "W", "gems": 3},
            {"tile": "exit", "cell": [-1, 0], "stairs": "E", "gems": 0},
        ],
    }


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "empty"),
        ("\n\n", "empty"),
        ('{"type": "setup", "players": ["red"]}\n{"type": "dice",\n', "line 2 is not valid JSON"),
        ('{"type": "dice", "player": "red"}\n', "line 1 is not a valid setup"),
        ('{"type": "setup", "players": []}\n', "line 1 is not a valid setup: 'players'"),
        ("[1, 2]\n", "line 1 is not a valid setup"),
        ('\n{"type": "setup", "modules": ["x"], "players": ["a"]}', "line 2 is not a valid setup"),
    ],
)
def test_bad_records_exit_2_with_a_message_naming_the_line(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    result = run_cli("replay", path, "--json")
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_unreadable_inputs_exit_2_without_a_traceback(tmp_path):
    for path, message in [
        (tmp_path / "missing.jsonl", "no such file"),
        (tmp_path, "is a folder"),
    ]:
        result = run_cli("replay", path)
        assert result.returncode == 2 and message in result.stderr
        assert "Traceback" not in result.stderr
    binary = tmp_path / "game.bin"
    binary.write_bytes(b"\xff\xfe\x00junk")
    result = run_cli("replay", binary)
    assert result.returncode == 2 and "not a UTF-8 text file" in result.stderr


SETUP_LINE = '{"type": "setup", "players": ["red"]}\n'


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"type": "enter", "player": "\\ud800", "cell": [0, 1]}', "lone surrogate"),
        ('{"type": "enter", "player": "red", "cell": [' + "3" * 5000 + ", 0]}", "4300 digits"),
        ('{"type": "enter", "player": "red", "player": "blue", "cell": [0, 1]}', "twice"),
    ],
)
def test_what_json_in_utf8_cannot_carry_exits_2_in_both_modes(tmp_path, line, message):
    path = tmp_path / "hostile.jsonl"
    path.write_text(SETUP_LINE + line + "\n", encoding="utf-8")
    for mode in ((), ("--json",)):
        result = run_cli("replay", path, *mode)
        assert result.returncode == 2, result.stderr
        assert "line 2 is not valid JSON" in result.stderr and message in result.stderr
        assert "Traceback" not in result.stderr and result.stdout == ""


def test_only_regular_files_are_read_and_lines_have_a_cap(tmp_path):
    import os

    fifo = tmp_path / "game.fifo"
    os.mkfifo(fifo)
    for path in (Path("/dev/zero"), fifo):
        result = run_cli("replay", path)  # would grow or block forever if read
        assert result.returncode == 2 and "not a regular file" in result.stderr, path
    long = tmp_path / "long.jsonl"
    long.write_text(SETUP_LINE + '{"type": "dice", "x": "' + "a" * 1_100_000 + '"}\n')
    result = run_cli("replay", long)
    assert result.returncode == 2 and "line 2 is longer than 1024 KiB" in result.stderr


def test_bench_rules_prints_its_figures_as_json():
    result = run_cli("bench", "rules", "--events", "300", "--repeats", "1", "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["events"] == 300
    assert figures["temple_tiles"] == 25 and figures["players"] == 6
    assert figures["events_per_second"] > 0 and figures["open_actions_ms_warm"] > 0
    assert 0 < figures["rejected_share"] < 1
    bad = run_cli("bench", "rules", "--events", "0")
    assert bad.returncode == 2 and "at least 1" in bad.stderr


def test_bench_rules_plays_every_module_with_all_and_says_what_a_module_needs():
    result = run_cli(
        "bench", "rules", "--events", "200", "--repeats", "1", "--modules", "all", "--json"
    )
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert set(figures["modules"]) == set(KNOWN_MODULES)
    assert figures["module_events"] > 0
    needing = [m for m, cls in MODULES.items() if cls.requires]
    if needing:  # a Queenie module played without the modules its rulebook page requires
        bad = run_cli("bench", "rules", "--events", "10", "--modules", needing[0])
        assert bad.returncode == 2 and "add them to --modules" in bad.stderr


def test_the_console_script_is_installed():
    script = Path(sys.executable).with_name("templecam")
    result = subprocess.run([script, "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    for command in ("replay", "bench"):
        assert command in result.stdout
