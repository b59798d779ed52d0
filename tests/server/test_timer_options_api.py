"""Timer options through the set-up API: the game's own timeline, bad options, hidden times.

A real application in process (FastAPI's TestClient), its clock moved as the demo moves it
(`Session.move_clock`), its soundtrack rendered with numpy and measured.
"""

from __future__ import annotations

import io
import json
import time
import wave

import numpy as np
import pytest
from fastapi.testclient import TestClient

from rules.timeline import Countdown, Timeline, parse_timeline
from server.app import ServerSettings, create_app
from server.soundtrack import render_countdown_clip, render_soundtrack, write_wav
from server.timer_options import OWN_AUDIO_TIMER

BASE_URL = "http://127.0.0.1"
INTRO = 1.0
SERVER_TIMELINE = {
    "intro_seconds": INTRO,
    "game_seconds": 20.0,
    "countdowns": [
        {"n": 1, "start": 4.0, "end": 6.0},
        {"n": 2, "start": 8.0, "end": 10.0},
        {"n": 3, "start": 15.0, "end": 20.0},
    ],
}
RANDOM = {
    "minutes": 5,
    "countdowns": 3,
    "countdown_seconds": 10,
    "first_delay_seconds": 20,
    "random": True,
}


@pytest.fixture
def client(tmp_path):
    path = tmp_path / "timeline.json"
    path.write_text(json.dumps(SERVER_TIMELINE), encoding="utf-8")
    settings = ServerSettings(data_dir=tmp_path / "data", timeline_path=path, host_audio=False)
    with TestClient(create_app(settings), base_url=BASE_URL) as test_client:
        yield test_client


def new_game(client, timer, status=201):
    response = client.post("/api/games", json={"players": ["red", "blue"], "timer": timer})
    assert response.status_code == status, response.text
    return response.json()


def saved_setup(client):
    """The running game's setup line as saved on disk (what a replay reads)."""
    session = client.app.state.session
    return json.loads(session.store.read_lines(session.game_id)[0])


def wait_for(check, within=10.0):
    deadline = time.monotonic() + within
    while not (found := check()):
        assert time.monotonic() < deadline, "waited in vain"
        time.sleep(0.05)
    return found


def test_a_game_with_timer_options_plays_and_saves_its_own_timeline(client):
    timer = {"minutes": 12, "countdowns": 4, "countdown_seconds": 30, "first_delay_seconds": 120}
    state = new_game(client, timer)["state"]
    setup = saved_setup(client)
    timeline = parse_timeline(setup["timeline"])
    assert setup["timer"] == {**timer, "random": False, "seed": None, "practice": False}
    assert timeline.game_seconds == 720.0 and len(timeline.countdowns) == 4
    assert timeline.intro_seconds == INTRO  # the server's soundtrack's introduction
    shown = state["clock"]["timeline"]
    assert shown["countdowns"] == setup["timeline"]["countdowns"]  # fixed times: all shown
    assert shown["hidden"] == 0 and shown["timer"]["minutes"] == 12
    assert state["audio"]["url"].startswith("/api/soundtrack.wav?key=")
    # A game without options is the server's timeline, as ever.
    plain = client.post("/api/games", json={"players": ["red"]}).json()["state"]
    assert plain["clock"]["timeline"] == SERVER_TIMELINE
    assert plain["audio"]["url"] == "/api/soundtrack.wav"
    assert "timer" not in saved_setup(client) and "timeline" not in saved_setup(client)


def test_practice_is_a_longer_game(client):
    timer = {"minutes": 20, "countdown_seconds": 45, "first_delay_seconds": 300, "practice": True}
    state = new_game(client, timer)["state"]
    assert state["clock"]["timeline"]["game_seconds"] == 1200.0
    assert state["clock"]["timeline"]["timer"]["practice"] is True


@pytest.mark.parametrize(
    ("timer", "said"),
    [
        ({"minutes": 4}, "greater than or equal to 5"),
        ({"minutes": 50}, "less than or equal to 45"),
        ({"countdowns": 7}, "less than or equal to 6"),
        ({"countdown_seconds": 3}, "greater than or equal to 10"),
        ({"first_delay_seconds": 0}, "greater than or equal to 10"),
        ({"random": "maybe"}, "valid boolean"),
        ({"length": 10}, "Extra inputs are not permitted"),
        (
            {"minutes": 5, "countdowns": 6, "countdown_seconds": 60},
            "6 countdowns of 60 s, the first after 3:00, need a game of at least 9:50",
        ),
    ],
)
def test_bad_options_are_refused_with_the_reason_and_start_nothing(client, timer, said):
    detail = new_game(client, timer, status=422)["detail"]
    words = " ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in detail)
    assert said in words
    assert "timer" in words  # the field is named
    assert client.get("/api/games").json() == []  # no game, no file


def test_a_server_playing_its_own_audio_file_refuses_timer_options(tmp_path):
    own = tmp_path / "mine.wav"
    write_wav(np.zeros(8000 * 22, dtype=np.float32), 8000, own)
    path = tmp_path / "timeline.json"
    path.write_text(json.dumps(SERVER_TIMELINE), encoding="utf-8")
    settings = ServerSettings(
        data_dir=tmp_path / "data", timeline_path=path, audio_file=own, host_audio=False
    )
    with TestClient(create_app(settings), base_url=BASE_URL) as client:
        assert new_game(client, {"minutes": 10}, status=422)["detail"] == OWN_AUDIO_TIMER


def everything_a_page_gets(client):
    """Every answer a page may read about the running game, as one text."""
    session = client.app.state.session
    answers = [
        client.get("/api/state").json(),
        client.get("/api/games").json(),
        client.get(f"/api/games/{session.game_id}").json(),
    ]
    return json.dumps(answers)


def test_random_times_stay_hidden_until_their_gong(client):
    new_game(client, RANDOM)
    setup = saved_setup(client)
    truth = parse_timeline(setup["timeline"])
    first, second, _last = truth.countdowns
    seed = setup["timer"]["seed"]
    assert isinstance(seed, int)  # the server chose one, and the record keeps it

    state = client.get("/api/state").json()
    shown = state["clock"]["timeline"]
    assert [c["n"] for c in shown["countdowns"]] == [3]  # the last ends with the collapse
    assert shown["hidden"] == 2 and "seed" not in shown["timer"]
    text = everything_a_page_gets(client)
    assert '"seed"' not in text
    for hidden in (first, second):
        assert f'"start": {hidden.start}' not in text
        assert f'"end": {hidden.end}' not in text
    url_before = state["audio"]["url"]

    session = client.app.state.session
    assert client.post("/api/clock", json={"action": "start"}).status_code == 200
    session.move_clock(first.start - 1.0)
    state = wait_for(  # the gong has struck, and the clock has written countdown 1's line
        lambda: (
            (s := client.get("/api/state").json())["clock"]["timeline"]["hidden"] < 2
            and s["log"]
            and s
        )
    )
    assert [c["n"] for c in state["clock"]["timeline"]["countdowns"]] == [1, 3]
    assert state["clock"]["timeline"]["countdowns"][0] == first.to_json()
    # The page's track and clips stay what they were: they never said when a countdown comes.
    assert state["audio"]["url"] == url_before
    assert [clip["n"] for clip in state["audio"]["clips"]] == [1, 2]
    assert f'"start": {second.start}' not in everything_a_page_gets(client)
    texts = [entry["text"] for entry in state["log"]]
    assert any("ountdown 1" in text for text in texts), texts


def samples_of(response):
    with wave.open(io.BytesIO(response.content)) as wav:
        rate = wav.getframerate()
        data = np.frombuffer(wav.readframes(wav.getnframes()), "<i2") / 32767.0
    return data, rate


def test_the_browsers_soundtrack_holds_no_countdown_at_a_random_time(client):
    state = new_game(client, RANDOM)["state"]
    truth = parse_timeline(saved_setup(client)["timeline"])
    first = truth.countdowns[0]
    whole = render_soundtrack(truth)
    served, rate = samples_of(client.get(state["audio"]["url"]))
    assert len(served) == len(whole)

    gong = round(truth.audio_seconds(first.start) * rate)
    ring = slice(gong, gong + 2 * rate)
    before = slice(0, gong - rate)

    def rms(samples):
        return float(np.sqrt(np.mean(np.square(samples))))

    # Where countdown 1 strikes in the whole track, the browser's holds the bed alone ...
    assert rms(whole[ring]) > 2.5 * rms(served[ring])
    # ... and before it the very same sound, at the same level.
    assert float(np.max(np.abs(served[before] - whole[before]))) < 2 / 32767

    # Countdown 1's clip is what is missing, from its gong on: track and clip add up to the whole.
    clips = {clip["n"]: clip["url"] for clip in state["audio"]["clips"]}
    assert set(clips) == {1, 2}
    clip, clip_rate = samples_of(client.get(clips[1]))
    assert clip_rate == rate
    span = slice(gong, gong + len(clip))
    assert float(np.max(np.abs(served[span] + clip - whole[span]))) < 4 / 32767
    assert rms(clip[: 2 * rate]) > 2 * rms(served[ring])
    # The clip of another timeline with countdown 1 elsewhere sounds the same: it tells nothing.
    elsewhere = Timeline(
        truth.intro_seconds,
        truth.game_seconds,
        (
            Countdown(1, first.start - 7, first.end - 7),  # the delay is 20 s: still after 0
            *truth.countdowns[1:],
        ),
    )
    # Its level may differ by a few percent: the whole track is scaled to its loudest sample,
    # and where a countdown falls on the growing bed can move that (about 1 game in 25).
    other = render_countdown_clip(elsewhere, 1)
    level = float(np.dot(other, clip) / np.dot(other, other))
    assert abs(level - 1) < 0.1
    assert float(np.max(np.abs(level * other - clip))) < 2 / 32767
    assert client.get("/api/soundtrack/countdown.wav?n=3").status_code == 404  # the last: known


def test_the_door_slams_at_each_countdown_the_timer_made(client):
    timer = {"minutes": 6, "countdowns": 5, "countdown_seconds": 10, "first_delay_seconds": 30}
    body = {
        "players": ["red", "blue"],
        "timer": timer,
        "starting_chambers": ["chamber-1", "chamber-2"],
    }
    assert client.post("/api/games", json=body).status_code == 201
    truth = parse_timeline(saved_setup(client)["timeline"])
    fourth = truth.countdown(4)
    session = client.app.state.session
    assert client.post("/api/clock", json={"action": "start"}).status_code == 200
    session.move_clock(1.0)
    wait_for(lambda: client.get("/api/state").json()["clock"]["t"] >= 1.0)
    east = client.post(
        "/api/event", json={"event": {"type": "enter", "player": "red", "cell": [1, 0]}}
    )
    assert east.json()["verdict"] == {"ok": True}, east.text
    session.move_clock(fourth.start + 0.2)  # the clock writes countdowns 1 to 3 on its way

    def clock_lines(state):
        return [(e["event"]["type"], e["event"].get("n")) for e in state["log"]]

    state = wait_for(
        lambda: ("countdown_start", 4) in clock_lines(s := client.get("/api/state").json()) and s
    )
    assert state["clock"]["phase"]["countdown"] == 4
    assert state["game"]["must_run_back"] == ["red"]  # countdown 4 of 5 ends with a door slam
    session.move_clock(fourth.end + 0.2)
    state = wait_for(
        lambda: ("countdown_end", 4) in clock_lines(s := client.get("/api/state").json()) and s
    )
    # Red stood outside at the slams of countdowns 1 to 4 (the clock jumped past them all).
    assert state["game"]["players"]["red"]["dice"] == 5 - 4
    assert state["game"]["players"]["blue"]["dice"] == 5


def test_a_server_timeline_of_other_than_three_countdowns_is_written_in_the_record(tmp_path):
    four = {
        "intro_seconds": 1.0,
        "game_seconds": 30.0,
        "countdowns": [
            {"n": 1, "start": 4.0, "end": 6.0},
            {"n": 2, "start": 8.0, "end": 10.0},
            {"n": 3, "start": 12.0, "end": 14.0},
            {"n": 4, "start": 25.0, "end": 30.0},
        ],
    }
    path = tmp_path / "timeline.json"
    path.write_text(json.dumps(four), encoding="utf-8")
    settings = ServerSettings(data_dir=tmp_path / "data", timeline_path=path, host_audio=False)
    with TestClient(create_app(settings), base_url=BASE_URL) as client:
        assert client.post("/api/games", json={"players": ["red"]}).status_code == 201
        assert saved_setup(client)["timeline"] == four
        session = client.app.state.session
        assert client.post("/api/clock", json={"action": "start"}).status_code == 200
        session.move_clock(26.0)

        def fourth_begun():
            state = client.get("/api/state").json()
            kinds = [(e["event"]["type"], e["event"].get("n")) for e in state["log"]]
            return ("countdown_start", 4) in kinds and state

        state = wait_for(fourth_begun)
        assert state["clock"]["phase"]["countdown"] == 4
        assert all(entry["ok"] for entry in state["log"]), state["log"]


def test_restarting_a_game_of_random_times_draws_new_ones(client):
    new_game(client, RANDOM)
    first = saved_setup(client)
    assert client.post("/api/clock", json={"action": "start"}).status_code == 200
    assert client.post("/api/clock", json={"action": "restart"}).status_code == 200
    again = saved_setup(client)
    assert again["timer"]["seed"] != first["timer"]["seed"]  # the table heard the old times
    assert {k: v for k, v in again["timer"].items() if k != "seed"} == {
        k: v for k, v in first["timer"].items() if k != "seed"
    }
    shown = client.get("/api/state").json()["clock"]["timeline"]
    assert shown["hidden"] == 2
