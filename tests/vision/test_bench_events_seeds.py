"""`templecam bench events --seeds N` renders N fresh games and scores each, then the worst
(issue 20): two tiny games, rendered with synth --game's renderer and played through the real
pipeline (OpenCV video, ONNX Runtime)."""

from __future__ import annotations

import json

from rules.engine import Game
from templecam.cli import main
from vision.bench.events import COUNTED, Score, SeenEvents, score, summarise


def test_two_fresh_tiny_games_give_each_games_figures_by_type_and_the_worst(
    tmp_path, capsys
) -> None:
    games = tmp_path / "games"
    argv = ["bench", "events", "--seeds", "2", "--first-seed", "31", "--players", "2"]
    argv += ["--seconds", "3", "--fps", "5", "--size", "480x270", "--games-dir", str(games)]
    assert main([*argv, "--every-frame", "--no-stream", "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.strip()]
    *each, last = lines
    assert len(each) == 2 and sorted(p.name for p in games.iterdir()) == [
        "seed31-480x270-2p-3s-5fps",
        "seed32-480x270-2p-3s-5fps",
    ]
    for figures in each:
        kinds = figures["recovered_by_type"]
        assert kinds and set(kinds) <= set(COUNTED) and "dice" in kinds
        assert sum(k["true"] for k in kinds.values()) == figures["true_events"]
        assert sum(k["recovered"] for k in kinds.values()) == figures["recovered"]
        assert figures["whole_rolls"] == kinds["dice"]["share"]
        assert figures["localiser_scale"] > 0.5  # 480x270: small dice, a larger scale
    summary = last["summary"]
    assert summary["games"] == 2
    shares = [g["recovered_share"] for g in each]
    spread = [min(shares), max(shares)]
    assert summary["recovered_share"] == {"worst": min(shares), "spread": spread}
    assert set(summary["worst_by_type"]) >= {"dice"}
    late = [g["latency_ms_p95_by_type"] for g in each]
    assert all(set(x) <= set(COUNTED) for x in late)
    assert summary["worst_latency_ms_p95_by_type"] == {
        kind: max(x[kind] for x in late if x.get(kind) is not None)
        for kind in {k for x in late for k, v in x.items() if v is not None}
    }
    # Run again: the games are found, not rendered anew; --from-truth scores the stages alone.
    assert main([*argv, "--from-truth"]) == 0
    out = capsys.readouterr()
    assert "rendering" not in out.err and "the worst game" in out.out and "whole rolls" in out.out
    assert "latency p95 by type: dice " in out.out and "worst latency p95 by type: dice " in out.out


def test_a_roll_read_with_one_die_wrong_is_a_misread_roll_not_a_whole_one() -> None:
    truth = [
        {"type": "dice", "player": "red", "faces": ["key", "torch"], "t": 1.0},
        {"type": "dice", "player": "blue", "faces": ["key", "key"], "t": 1.0},
        {"type": "enter", "player": "red", "cell": [0, 1], "t": 2.0},
    ]
    seen = [
        (1.2, {"type": "dice", "player": "red", "faces": ["torch", "key"]}),
        (1.3, {"type": "dice", "player": "blue", "faces": ["key", "torch"]}),
    ]
    result: Score = score(truth, seen, 1.0)
    figures = result.to_json()
    assert figures["recovered_by_type"] == {
        "dice": {"true": 2, "recovered": 1, "share": 0.5},
        "enter": {"true": 1, "recovered": 0, "share": 0.0},
    }
    assert figures["whole_rolls"] == 0.5 and figures["misread_rolls"] == 1
    assert summarise([figures])["worst_by_type"] == {"dice": 0.5, "enter": 0.0}


def test_latency_is_told_by_event_type_and_the_worst_game_of_each_type_is_summed_up() -> None:
    truth = [
        {"type": "dice", "player": "red", "faces": ["key"], "t": 1.0},
        {"type": "dice", "player": "red", "faces": ["torch"], "t": 3.0},
        {"type": "discover", "player": "red", "cell": [0, 1], "tile": "a", "t": 5.0},
        {"type": "enter", "player": "red", "cell": [0, 1], "t": 8.0},  # never seen
    ]
    seen = [
        (1.2, {"type": "dice", "player": "red", "faces": ["key"]}),
        (3.4, {"type": "dice", "player": "red", "faces": ["torch"]}),
        (6.5, {"type": "discover", "player": "red", "cell": [0, 1], "tile": "a"}),
    ]
    figures = score(truth, seen, 0.2).to_json()
    late = figures["latency_ms_p95_by_type"]
    assert set(late) == {"dice", "discover"}  # a type never recovered has no latency
    assert 380 <= late["dice"] <= 400 and late["discover"] == 1500
    other = {**figures, "latency_ms_p95_by_type": {"dice": 900.0, "discover": None}}
    worst = summarise([figures, other])["worst_latency_ms_p95_by_type"]
    assert worst == {"dice": 900.0, "discover": 1500.0}


def test_a_roll_the_camera_corrects_later_counts_as_spurious_and_its_correction_as_seen() -> None:
    """The record as it stands scores: the struck roll was on the dashboard for seconds, so it
    counts as spurious, never as recovered; the corrected roll counts from when it came."""
    game = Game.from_setup_line({"type": "setup", "players": ["red", "blue"]})
    delivered = SeenEvents(game)
    faces = ["black_mask", "key", "key", "torch", "torch"]
    misread = {"type": "dice", "player": "red", "faces": faces, "conf": 0.8}
    assert delivered.deliver(1.2, misread)
    line = delivered.lines[0]
    right = {**misread, "faces": ["adventurer", *faces[1:]]}
    assert delivered.deliver(4.0, {"type": "correct", "line": line, "event": right})
    assert delivered.seen == [(4.0, right)] and delivered.struck == [misread]
    assert not delivered.deliver(4.5, {"type": "correct", "line": 99, "event": None})
    assert len(delivered.rejected) == 1
    truth = [{"type": "dice", "player": "red", "faces": right["faces"], "t": 1.0}]
    figures = score(truth, delivered.seen, 1.0, struck=delivered.struck).to_json()
    assert figures["recovered"] == 1 and figures["spurious"] == 1
    assert figures["corrected_by_camera"] == 1
    assert figures["latency_ms_p95_with_warmup"] == 3000
