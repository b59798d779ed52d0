"""The live session: events saved as they happen, the clock emitting countdowns, resuming."""

import json

import pytest

from rules.record import replay_lines
from rules.timeline import Countdown, Timeline
from server.clock import GameClock, Stopwatch
from server.session import AudioPlan, Session, SessionError
from server.store import GameStore, SaveFailed, UnknownGame
from tests.server.test_hostile_input import fill, small_disk

SHORT = Timeline(
    intro_seconds=2.0,
    game_seconds=40.0,
    countdowns=(Countdown(1, 6.0, 9.0), Countdown(2, 14.0, 16.0), Countdown(3, 30.0, 40.0)),
)


class ManualTime:
    """Seconds that pass only when the test says so (the session's clock reads them)."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def time_():
    return ManualTime()


def make_session(tmp_path, time_):
    audio = AudioPlan(False, "no sound card in tests")
    return Session(GameStore(tmp_path / "games"), SHORT, audio, lambda: Stopwatch(time_))


SETUP = {"type": "setup", "players": ["red", "blue"], "track_dice": False}


def test_stopwatch_runs_pauses_and_resumes(time_):
    watch = Stopwatch(time_)
    watch.start(5.0)
    time_.now += 2
    assert watch.position_seconds() == 7.0
    watch.pause()
    time_.now += 10
    assert watch.position_seconds() == 7.0
    watch.resume()
    time_.now += 1
    assert watch.position_seconds() == 8.0


def test_game_clock_reads_negative_in_the_intro_and_stops_at_the_end(time_):
    clock = GameClock(SHORT, Stopwatch(time_))
    assert (clock.status, clock.position) == ("ready", 0.0)
    clock.start()
    time_.now += 1
    assert clock.t == -1.0
    time_.now += 100
    assert clock.position == SHORT.total_seconds


def test_every_event_is_saved_as_it_happens_with_the_game_clock(tmp_path, time_):
    session = make_session(tmp_path, time_)
    game_id = session.new_game(SETUP)
    session.clock_action("start")
    time_.now += 4.5  # 2.5 s after "Escape!"
    assert session.record({"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1]}).ok
    assert not session.record({"type": "escape", "player": "blue"}).ok
    lines = (tmp_path / "games" / f"{game_id}.jsonl").read_text().splitlines()
    assert json.loads(lines[0]) == SETUP
    assert json.loads(lines[1])["t"] == 2.5
    assert [json.loads(line)["type"] for line in lines[1:]] == ["discover", "escape"]
    replay = replay_lines(lines)
    assert [v.ok for v in replay.verdicts] == [True, False]


def test_the_clock_emits_countdowns_and_the_collapse_at_their_times(tmp_path, time_):
    session = make_session(tmp_path, time_)
    session.new_game(SETUP)
    session.clock_action("start")
    seen = []
    for _ in range(50):
        time_.now += 1.0
        session.tick()
        seen += [
            (e.event["type"], e.event.get("n"), e.event["t"]) for e in session.log[len(seen) :]
        ]
    assert seen == [
        ("countdown_start", 1, 6.0),
        ("countdown_end", 1, 9.0),
        ("countdown_start", 2, 14.0),
        ("countdown_end", 2, 16.0),
        ("countdown_start", 3, 30.0),
        ("collapse", None, 40.0),
    ]
    assert session.game.outcome == "lost"
    assert session.clock.status == "over"


def test_a_paused_clock_emits_nothing(tmp_path, time_):
    session = make_session(tmp_path, time_)
    session.new_game(SETUP)
    session.clock_action("start")
    time_.now += 5
    session.tick()
    session.clock_action("pause")
    time_.now += 100
    session.tick()
    assert session.log == []
    session.clock_action("resume")
    time_.now += 4  # t = 7: countdown 1 has started
    session.tick()
    assert [e.event["type"] for e in session.log] == ["countdown_start"]


def test_countdown_end_costs_a_die_outside_the_start_chamber(tmp_path, time_):
    session = make_session(tmp_path, time_)
    session.new_game(SETUP)
    session.clock_action("start")
    time_.now += 2  # "Escape!": the players may act
    session.record({"type": "discover", "player": "red", "tile": "chamber-1", "cell": [1, 0]})
    session.record({"type": "enter", "player": "red", "cell": [1, 0]})
    time_.now += 10
    session.tick()
    assert session.game.players["red"].dice == 4
    assert session.game.players["blue"].dice == 5


def test_clock_actions_that_make_no_sense_are_refused(tmp_path, time_):
    session = make_session(tmp_path, time_)
    with pytest.raises(SessionError, match="no game"):
        session.clock_action("start")
    with pytest.raises(SessionError, match="no game"):
        session.record({"type": "undo"})
    session.new_game(SETUP)
    with pytest.raises(SessionError, match="not running"):
        session.clock_action("pause")
    session.clock_action("start")
    with pytest.raises(SessionError, match="already started"):
        session.clock_action("start")
    with pytest.raises(SessionError, match="not paused"):
        session.clock_action("resume")


def test_restart_starts_a_fresh_game_with_the_same_setup(tmp_path, time_):
    session = make_session(tmp_path, time_)
    first = session.new_game(SETUP)
    session.clock_action("start")
    time_.now += 2
    session.record({"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1]})
    time_.now += 18
    session.clock_action("restart")
    assert session.game_id != first
    assert len(session.game.temple) == 1
    assert session.clock.status == "running" and session.clock.position == 0.0


def test_a_game_resumes_after_a_restart_clock_included(tmp_path, time_):
    session = make_session(tmp_path, time_)
    game_id = session.new_game(SETUP)
    session.clock_action("start")
    time_.now += 2
    session.record({"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1]})
    time_.now += 8  # t = 8, countdown 1 running
    session.tick()
    session.shutdown()
    revived = make_session(tmp_path, time_)
    assert revived.resume_latest() == game_id
    assert revived.game.state_json() == session.game.state_json()
    assert revived.clock.status == "running"
    assert revived.clock.t == pytest.approx(8.0, abs=1.0)  # plus the real seconds of the restart
    time_.now += 2
    revived.tick()
    assert [e.event["type"] for e in revived.log][-1] == "countdown_end"


def test_a_long_outage_resumes_paused(tmp_path, time_, monkeypatch):
    session = make_session(tmp_path, time_)
    game_id = session.new_game(SETUP)
    session.clock_action("start")
    time_.now += 5
    session.tick()
    session.shutdown()
    meta = session.store.read_meta(game_id)
    meta["clock"]["saved_at"] -= 3600  # the laptop slept for an hour
    session.store.write_meta(game_id, meta)
    revived = make_session(tmp_path, time_)
    revived.resume_latest()
    assert revived.clock.status == "paused"
    assert revived.clock.position == pytest.approx(5.0)
    assert any("paused where it was" in notice for notice in revived.notices)


def test_finished_games_are_not_resumed(tmp_path, time_):
    session = make_session(tmp_path, time_)
    session.new_game(SETUP)
    session.clock_action("start")
    time_.now += 43  # the introduction and the whole game: the temple collapses
    session.tick()
    assert session.game.outcome == "lost"
    assert make_session(tmp_path, time_).resume_latest() is None


def test_nothing_is_recorded_before_start_nor_a_clock_event_from_a_player(tmp_path, time_):
    session = make_session(tmp_path, time_)
    game_id = session.new_game(SETUP)
    with pytest.raises(SessionError, match="press Start"):
        session.record({"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1]})
    session.clock_action("start")
    time_.now += 2
    for kind in ("countdown_start", "countdown_end", "collapse"):
        with pytest.raises(SessionError, match="game clock"):
            session.record({"type": kind, "n": 1})
    assert session.store.read_lines(game_id)[1:] == []
    assert session.game.outcome == "running"


def test_a_correction_that_takes_the_escape_back_gives_the_game_its_clock_again(tmp_path, time_):
    session = make_session(tmp_path, time_)
    session.new_game({**SETUP, "players": ["red"]})
    session.clock_action("start")
    time_.now += 3
    session.record({"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1]})
    session.record({"type": "enter", "player": "red", "cell": [0, 1]})
    escape = session.record({"type": "escape", "player": "red"})
    assert escape.ok and session.game.outcome == "won" and session.clock.status == "over"
    time_.now += 5
    escape_line = session.log[-1].line
    assert session.record({"type": "correct", "line": escape_line, "event": None}).ok
    assert session.game.outcome == "running"
    assert session.clock.status == "paused"
    assert session.clock.t == pytest.approx(1.0)  # where the game ended
    assert any("game goes on" in notice for notice in session.notices)
    session.clock_action("resume")
    time_.now += 1
    assert session.clock.t == pytest.approx(2.0)


def test_a_retry_with_its_key_answers_again_and_records_once(tmp_path, time_):
    session = make_session(tmp_path, time_)
    game_id = session.new_game(SETUP)
    session.clock_action("start")
    time_.now += 2
    found = {"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1]}
    assert session.record(found, key="a").ok
    assert session.record(found, key="a").ok
    assert len(session.store.read_lines(game_id)) == 2
    with pytest.raises(SessionError, match="already used"):
        session.record({"type": "turn_of_fate"}, key="a")


def test_a_last_line_cut_short_by_a_crash_is_dropped(tmp_path, time_):
    session = make_session(tmp_path, time_)
    game_id = session.new_game(SETUP)
    session.clock_action("start")
    time_.now += 2
    session.record({"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1]})
    with (tmp_path / "games" / f"{game_id}.jsonl").open("a") as file:
        file.write('{"type": "enter", "pla')
    revived = make_session(tmp_path, time_)
    assert revived.resume_latest() == game_id
    assert len(revived.game.temple) == 2


def test_the_store_refuses_ids_it_could_not_have_made(tmp_path):
    store = GameStore(tmp_path)
    for bad in ("../../etc/passwd", "20261129-120000-zzzz", "", "x" * 300):
        with pytest.raises(UnknownGame):
            store.read_lines(bad)
    with pytest.raises(UnknownGame):
        store.read_lines("20261129-120000-abcd")


class FakeSoundCard:
    """Stands in for the sound card this machine lacks: it only pulls buffers when told to."""

    def __init__(self):
        self.callback = None
        self.started = False

    def open(self, sample_rate, device, callback):
        self.callback = callback
        return self

    def start(self):
        self.started = True

    def stop(self):
        self.started = False

    def close(self):
        pass

    def pull(self, frames):
        import numpy as np

        buffer = np.zeros((frames, 1), dtype=np.float32)
        self.callback(buffer, frames, None, None)
        return buffer


def test_with_host_audio_the_playback_position_is_the_game_clock(tmp_path, time_):
    import numpy as np

    from server.host_audio import HostPlayer

    rate = 1000
    samples = np.linspace(-0.5, 0.5, int(SHORT.total_seconds * rate) + 3 * rate, dtype=np.float32)
    card = FakeSoundCard()
    audio = AudioPlan(
        True, "fake card", lambda: HostPlayer(samples, rate, stream_factory=card.open)
    )
    session = Session(GameStore(tmp_path / "games"), SHORT, audio, lambda: Stopwatch(time_))
    session.new_game(SETUP, "auto")
    assert session.audio_mode == "host"
    session.clock_action("start")
    assert card.started
    card.pull(2500)  # the card has played 2.5 s: "Escape!" came 0.5 s ago
    assert session.clock.t == pytest.approx(0.5)
    card.pull(6000)  # 8.5 s of audio: countdown 1 is under way
    session.tick()
    assert [e.event["type"] for e in session.log] == ["countdown_start"]
    session.clock_action("pause")
    assert not card.pull(500).any()  # paused: silence, and the clock holds
    assert session.clock.t == pytest.approx(6.5)
    session.clock_action("resume")
    played = card.pull(500)
    assert played.any() and session.clock.t == pytest.approx(7.0)


MAZE = {
    "type": "setup",
    "players": ["red", "blue"],
    "modules": ["treasures", "maze"],
    "track_dice": False,
}


def _time_out_held_by_red(session, time_):
    session.new_game(MAZE)
    session.clock_action("start")
    time_.now += 3.0  # 1 s after "Escape!"
    for event in (
        {"type": "discover", "player": "red", "tile": "ct-gem1-key-2", "cell": [0, 1]},
        {"type": "enter", "player": "red", "cell": [0, 1]},
        {"type": "claim", "player": "red", "treasure": "time_out"},
    ):
        assert session.record(event).ok, event


def test_a_time_out_holds_the_clock_at_its_own_time(tmp_path, time_):
    session = make_session(tmp_path, time_)
    _time_out_held_by_red(session, time_)
    started = session.record({"type": "time_out", "player": "red", "phase": "start"})
    assert started.ok and session.clock.status == "paused"
    time_.now += 5.0
    ended = session.record({"type": "time_out", "player": "red", "phase": "end"})
    assert ended.ok and session.clock.status == "running"
    start, end = [e.event for e in session.log if e.event["type"] == "time_out"]
    assert start["t"] == end["t"] == 1.0


def test_a_time_out_the_full_disk_refuses_leaves_the_clock_running(tmp_path, time_):
    with small_disk(tmp_path / "disk", 1) as disk:
        session = make_session(disk, time_)
        _time_out_held_by_red(session, time_)
        fill(disk)
        for step in range(1000):  # the record's last page may hold a few lines more
            try:
                session.record({"type": "enter", "player": "red", "cell": [0, step % 2]})
            except SaveFailed:
                break
        with pytest.raises(SaveFailed):
            session.record({"type": "time_out", "player": "red", "phase": "start"})
        assert session.clock.status == "running" and session.time_out_by() is None
        before = session.clock.t
        time_.now += 2.0
        assert session.clock.t == pytest.approx(before + 2.0)


def test_the_cameras_correction_of_its_own_roll_is_saved_and_replays_alike(tmp_path, time_):
    """The events the camera sends when it puts its misread roll right (the event stage's own,
    from `tests/vision/test_event_stages.py`) go into a live game, are saved, and the saved
    record replays to the same game."""
    from tests.vision.test_event_stages import Table, _reroll_all_but

    table = Table()
    table.roll("red", ("adventurer", "black_mask", "black_mask", "key", "torch"))
    _reroll_all_but(table, "red", (1,), ("adventurer", "adventurer", "golden_mask", "torch"))
    assert [e["type"] for e in table.events] == ["dice", "correct", "dice"]
    session = make_session(tmp_path, time_)
    game_id = session.new_game({"type": "setup", "players": ["red", "blue"]})
    session.clock_action("start")
    time_.now += 3
    for event in table.events:
        assert session.record(event, source="vision").ok
        time_.now += 0.5
    assert session.game.players["red"].locked == 1
    faces = [e["faces"] for e in session.game.accepted]
    assert faces == [e["faces"] for e in table.game.accepted]
    lines = (tmp_path / "games" / f"{game_id}.jsonl").read_text().splitlines()
    saved = [json.loads(line) for line in lines[1:]]
    assert [(e["type"], e["source"]) for e in saved] == [
        ("dice", "vision"),
        ("correct", "vision"),
        ("dice", "vision"),
    ]
    replay = replay_lines(lines)
    assert all(v.ok for v in replay.verdicts)
    assert replay.game.players["red"].locked == 1
    assert any(entry.text.startswith("Fix of #2") for entry in session.log)
