"""The event stages and the whole pipeline on rendered game videos, against their game records."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.synth.game_video import GamePlan, render_game
from models.synth.settings import SynthSettings
from vision.bench.events import GameVideo, event_key, run_game_video, run_truth_observations, score
from vision.perception.models import live_detector


@pytest.fixture(scope="module")
def game_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 12-second game of three players, rendered small at 5 fps."""
    out = tmp_path_factory.mktemp("game")
    settings = SynthSettings(width=960, height=540)
    render_game(GamePlan(out, settings, players=3, seconds=12.0, fps=5.0, seed=8))
    return out


def test_true_observations_give_back_the_game_record(game_folder: Path) -> None:
    video = GameVideo.load(game_folder)
    result = run_truth_observations(video, game_folder / "frames.jsonl")
    assert result.true_events >= 8
    assert result.recovered == result.true_events, result.missed
    assert result.spurious == 0, result.extra
    assert max(result.latencies) <= 0.5  # settled within a few frames of coming to rest


def test_the_score_matches_by_player_cell_and_values() -> None:
    truth = [
        {"type": "dice", "player": "red", "faces": ["key", "torch"], "t": 1.0},
        {"type": "enter", "player": "red", "cell": [0, 1], "t": 2.0},
    ]
    seen = [
        (1.2, {"type": "dice", "player": "red", "faces": ["torch", "key"]}),
        (2.1, {"type": "enter", "player": "red", "cell": [1, 0]}),  # the wrong cell
        (30.0, {"type": "enter", "player": "red", "cell": [0, 1]}),  # far too late
    ]
    result = score(truth, seen, minutes=0.5)
    assert (result.recovered, result.spurious) == (1, 2)
    assert result.missed == [truth[1]]
    assert result.to_json()["spurious_per_minute"] == 4.0
    assert event_key(truth[0]) == event_key(seen[0][1])


def test_an_event_in_the_last_moments_is_neither_counted_nor_spurious() -> None:
    truth = [
        {"type": "dice", "player": "red", "faces": ["key"], "t": 5.0},
        {"type": "dice", "player": "red", "faces": ["torch"], "t": 29.8},  # the video ends at 30
    ]
    seen = [
        (5.2, {"type": "dice", "player": "red", "faces": ["key"]}),
        (29.9, {"type": "dice", "player": "red", "faces": ["torch"]}),
        (29.9, {"type": "dice", "player": "blue", "faces": ["torch"]}),  # nothing like it
    ]
    result = score(truth, seen, minutes=0.5, end_t=30.0)
    assert (result.true_events, result.recovered, result.spurious) == (1, 1, 1)
    assert result.extra == [seen[2][1]]


def test_what_lay_on_the_table_at_the_start_is_no_change_for_the_latency() -> None:
    truth = [
        {"type": "dice", "player": "red", "faces": ["key"], "t": 0.0},  # before the first frame
        {"type": "dice", "player": "red", "faces": ["torch"], "t": 5.0},
    ]
    seen = [
        (1.5, {"type": "dice", "player": "red", "faces": ["key"]}),
        (5.25, {"type": "dice", "player": "red", "faces": ["torch"]}),
    ]
    result = score(truth, seen, minutes=0.1, warmup=1.2)
    assert result.recovered == 2 and result.change_latencies == [0.25]
    figures = result.to_json()
    assert figures["latency_ms_p95"] == 250.0 and figures["latency_ms_p95_with_warmup"] > 1000


def test_the_whole_pipeline_plays_a_game_video_in_real_time(game_folder: Path) -> None:
    video = GameVideo.load(game_folder)
    detector, _ = live_detector()
    result = run_game_video(video, detector)
    assert result.frames_grabbed == 60  # 12 s at 5 fps, played as a camera would
    assert 0 < result.frames_processed <= result.frames_grabbed
    assert result.frames_processed + result.frames_dropped <= result.frames_grabbed
    assert result.memory_mb and max(result.memory_mb) < 4000
    assert result.accepted == result.score.recovered + result.score.spurious
    assert result.score.rejected == len(result.rejected)


def test_a_roll_seen_once_is_the_roll_it_came_soonest_after() -> None:
    truth = [
        {"type": "dice", "player": "red", "faces": ["key", "torch"], "t": 3.0},  # never seen
        {"type": "dice", "player": "red", "faces": ["torch", "key"], "t": 7.0},
    ]
    seen = [(7.2, {"type": "dice", "player": "red", "faces": ["key", "torch"]})]
    result = score(truth, seen, minutes=0.5)
    assert (result.recovered, result.spurious) == (1, 0)
    assert result.missed == [truth[0]]
    assert result.change_latencies == [pytest.approx(0.2)]
