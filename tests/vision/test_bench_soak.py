"""`templecam bench soak`: a tiny game video looped as a live camera, for a few seconds."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from models.synth.game_video import GamePlan, render_game
from models.synth.settings import SynthSettings
from templecam.cli import main


@pytest.fixture(scope="session")
def tiny_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-second game of two players, rendered at 640x360 and 10 fps."""
    out = tmp_path_factory.mktemp("soak-game")
    render_game(GamePlan(out, SynthSettings(width=640, height=360), 2, 2.0, 10.0, seed=5))
    return out


def test_a_short_soak_reports_every_interval_as_json(
    tiny_game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["bench", "soak", str(tiny_game), "--minutes", "0.1", "--every", "2", "--json"])
    out = capsys.readouterr().out
    assert status == 0
    report = json.loads(out)  # one JSON object and nothing else (no progress bar)
    assert report["video"] == str(tiny_game)
    assert report["source_fps"] == 10.0
    assert report["stream"] is True
    assert report["loops"] >= 1  # the 2-second video played over and over
    intervals = report["intervals"]
    assert intervals
    assert [i["end_s"] for i in intervals] == sorted(i["end_s"] for i in intervals)
    for earlier, later in itertools.pairwise(intervals):
        for count in ("grabbed", "processed", "dropped"):
            assert later[count] >= earlier[count]
    for interval in intervals:
        assert interval["rss_mb"] > 0
        assert interval["grabbed"] >= interval["processed"] + interval["dropped"] - 1
        assert interval["ms_p95"] >= interval["ms_median"] > 0
        assert interval["age_ms_p95"] >= interval["age_ms_median"] >= 0
    last = intervals[-1]
    assert last["processed"] > 0
    verdict = report["verdict"]
    assert verdict["memory_mb_first"] == intervals[0]["rss_mb"]
    assert verdict["memory_mb_last"] == last["rss_mb"]
    growth = verdict["memory_mb_last"] - verdict["memory_mb_first"]
    assert verdict["memory_growth_mb"] == pytest.approx(growth, abs=0.11)
    assert verdict["age_ms_first"] == intervals[0]["age_ms_median"]
    assert verdict["age_ms_last"] == last["age_ms_median"]
    assert verdict["processed_fps"] > 0
    assert 0 <= verdict["dropped_share"] <= 1
    assert report["errors"] == 0, report["last_error"]


def test_the_table_has_a_row_per_interval_and_a_verdict(
    tiny_game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["bench", "soak", str(tiny_game), "--minutes", "0.05", "--every", "60", "--no-stream"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "%" in out  # the progress bar
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if "RSS MB" in line)
    rows = lines[header + 1 : -1]
    assert len(rows) == 1  # a run shorter than --every is one interval
    assert lines[-1].startswith("verdict: memory ")
    assert "frame age p50" in lines[-1] and "fps of the video's 10" in lines[-1]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--minutes", "0"], "--minutes must be a positive number"),
        (["--minutes", "-1"], "--minutes must be a positive number"),
        (["--minutes", "nan"], "--minutes must be a positive number"),
        (["--every", "0"], "--every must be a positive number"),
    ],
)
def test_bad_durations_are_clear_user_errors(
    tiny_game: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    assert main(["bench", "soak", str(tiny_game), *extra]) == 2
    assert message in capsys.readouterr().err


def test_a_missing_folder_is_a_clear_user_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "soak", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert "no folder" in err and "templecam synth --game" in err


def test_a_folder_without_a_game_video_is_a_clear_user_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "soak", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "lacks game.mp4" in err and "Traceback" not in err
