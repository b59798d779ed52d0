"""A saved game survives a crash mid-write: a torn last line is cut off, a complete one kept."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from rules.record import replay_lines
from rules.timeline import Countdown, Timeline
from server.clock import Stopwatch
from server.session import AudioPlan, Session
from server.store import TAIL_CHUNK, GameStore

TIMELINE = Timeline(
    intro_seconds=2.0,
    game_seconds=40.0,
    countdowns=(Countdown(1, 6.0, 9.0), Countdown(2, 14.0, 16.0), Countdown(3, 30.0, 40.0)),
)
SETUP = {"type": "setup", "players": ["red", "blue"], "track_dice": False}
ENTER = {"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1]}
NEW_EVENT = {"type": "dice", "player": "blue", "faces": ["key", "torch", "torch"]}


class ManualTime:
    """Seconds that pass only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make_session(games: Path, time_: ManualTime) -> Session:
    """A session on a real store in `games`, its clock read from `time_`."""
    audio = AudioPlan(False, "no sound card in tests")
    return Session(GameStore(games), TIMELINE, audio, lambda: Stopwatch(time_))


def played_game(games: Path, time_: ManualTime) -> tuple[str, Path]:
    """Play a short game (setup, Start, two events) and return its id and record file."""
    session = make_session(games, time_)
    game_id = session.new_game(SETUP)
    session.clock_action("start")
    time_.now += 4.0
    session.record(ENTER)
    time_.now += 1.0
    session.record({"type": "dice", "player": "red", "faces": ["key", "key"]})
    session.shutdown()
    return game_id, GameStore(games).record_path(game_id)


def resume_and_record(games: Path, game_id: str, time_: ManualTime) -> Session:
    """Start a new session on the same store, resume the game and record NEW_EVENT."""
    session = make_session(games, time_)
    session.resume(game_id)
    session.record(NEW_EVENT)
    return session


def read_jsonl(path: Path) -> list[dict]:
    """Every line of a JSON Lines file, parsed; the file must end with a newline."""
    data = path.read_bytes()
    assert data.endswith(b"\n")
    return [json.loads(line) for line in data.decode("utf-8").split("\n")[:-1]]


@pytest.fixture
def time_() -> ManualTime:
    return ManualTime()


def test_a_torn_last_line_is_cut_off_before_the_next_event(
    tmp_path: Path, time_: ManualTime, caplog: pytest.LogCaptureFixture
) -> None:
    games = tmp_path / "games"
    game_id, path = played_game(games, time_)
    complete = read_jsonl(path)
    torn = json.dumps({"type": "enter", "player": "blue", "cell": [0, 1], "t": 6.0})[:23]
    with path.open("ab") as file:
        file.write(torn.encode())

    with caplog.at_level(logging.WARNING, logger="server.store"):
        session = resume_and_record(games, game_id, time_)

    lines = read_jsonl(path)
    assert lines[:-1] == complete
    assert {k: v for k, v in lines[-1].items() if k != "t"} == NEW_EVENT
    warning = " ".join(r.getMessage() for r in caplog.records if r.name == "server.store")
    assert game_id in warning and f"{len(torn)} bytes dropped" in warning
    # The session's line numbers are the file's (corrections name lines by number).
    assert session.log[-1].line == len(lines)
    assert session.log[-1].event["type"] == "dice"


def test_the_mended_game_resumes_again_and_replays(tmp_path: Path, time_: ManualTime) -> None:
    games = tmp_path / "games"
    game_id, path = played_game(games, time_)
    with path.open("ab") as file:
        file.write(b'{"type": "escape", "pla')
    resume_and_record(games, game_id, time_).shutdown()

    again = make_session(games, time_)
    again.resume(game_id)
    again.record({"type": "enter", "player": "red", "cell": [0, 1]})
    text = path.read_text(encoding="utf-8").splitlines()
    replay = replay_lines(text)
    assert len(replay.verdicts) == len(text) - 1
    assert [line["type"] for line in read_jsonl(path)[-2:]] == ["dice", "enter"]


def test_a_complete_last_line_without_its_newline_is_kept(
    tmp_path: Path, time_: ManualTime
) -> None:
    games = tmp_path / "games"
    game_id, path = played_game(games, time_)
    unfinished = {"type": "enter", "player": "red", "cell": [0, 1], "t": 7.5}
    with path.open("ab") as file:
        file.write(json.dumps(unfinished).encode())
    before = path.read_text(encoding="utf-8").split("\n")

    resume_and_record(games, game_id, time_)

    lines = read_jsonl(path)
    assert lines[:-1] == [json.loads(line) for line in before]
    assert lines[-2] == unfinished
    assert lines[-1]["type"] == "dice"


def test_a_torn_line_longer_than_a_read_chunk_is_cut_off_whole(
    tmp_path: Path, time_: ManualTime
) -> None:
    games = tmp_path / "games"
    game_id, path = played_game(games, time_)
    complete = read_jsonl(path)
    long_note = {"type": "note", "text": "x" * (3 * TAIL_CHUNK)}
    with path.open("ab") as file:
        file.write(json.dumps(long_note)[: 2 * TAIL_CHUNK + 17].encode())

    resume_and_record(games, game_id, time_)

    lines = read_jsonl(path)
    assert lines[:-1] == complete
    assert lines[-1]["type"] == "dice"


def test_an_intact_record_is_appended_to_unchanged(
    tmp_path: Path, time_: ManualTime, caplog: pytest.LogCaptureFixture
) -> None:
    games = tmp_path / "games"
    game_id, path = played_game(games, time_)
    before = path.read_bytes()
    with caplog.at_level(logging.WARNING, logger="server.store"):
        resume_and_record(games, game_id, time_)
    after = path.read_bytes()
    assert after.startswith(before)
    assert json.loads(after[len(before) :])["type"] == "dice"
    assert not [r for r in caplog.records if r.name == "server.store"]
