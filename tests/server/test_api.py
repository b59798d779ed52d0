"""Every API route through FastAPI's TestClient, including bad input and the safety checks."""

import json
import time
import wave

import pytest
from fastapi.testclient import TestClient

from server.app import ServerSettings, create_app


@pytest.fixture
def short_timeline(tmp_path):
    path = tmp_path / "timeline.json"
    path.write_text(
        json.dumps(
            {
                "intro_seconds": 1.0,
                "game_seconds": 20.0,
                "countdowns": [
                    {"n": 1, "start": 4.0, "end": 6.0},
                    {"n": 2, "start": 8.0, "end": 10.0},
                    {"n": 3, "start": 15.0, "end": 20.0},
                ],
            }
        )
    )
    return path


@pytest.fixture
def client(tmp_path, short_timeline):
    settings = ServerSettings(
        data_dir=tmp_path / "data", timeline_path=short_timeline, host_audio=False
    )
    with TestClient(create_app(settings), base_url=BASE_URL) as test_client:
        yield test_client


BASE_URL = "http://127.0.0.1"
"""Where the test client's requests go: a host the server answers to (no test-only names)."""


def start_game(client, play=True, **fields):
    """Start a game; with `play`, press Start and wait for "Escape!" (events are refused before)."""
    body = {"players": ["red", "blue"], **fields}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    if play:
        assert client.post("/api/clock", json={"action": "start"}).status_code == 200
        deadline = time.monotonic() + 10
        while client.get("/api/state").json()["clock"]["t"] < 0:
            assert time.monotonic() < deadline, "the introduction never ended"
            time.sleep(0.05)
    return response.json()


def post_event(client, **event):
    response = client.post("/api/event", json={"event": event})
    assert response.status_code == 200, response.text
    return response.json()


def test_home_sends_to_setup_then_to_the_game(client):
    assert client.get("/", follow_redirects=False).headers["location"] == "/setup"
    start_game(client, play=False)
    assert client.get("/", follow_redirects=False).headers["location"] == "/game"


def test_state_before_any_game_says_so_and_names_the_audio_fallback(client):
    state = client.get("/api/state").json()
    assert state["game"] is None
    assert state["clock"]["status"] == "ready"
    assert state["audio"]["host_available"] is False
    assert state["notices"] == [
        "Sound on this computer is turned off: this page plays the soundtrack."
    ]


def test_new_game_in_manual_mode(client):
    body = start_game(client, play=False, difficulty="expert", audio="browser")
    state = body["state"]
    assert state["game_id"] == body["game_id"]
    assert state["audio"]["mode"] == "browser"
    game = state["game"]
    assert game["setup"]["track_dice"] is False
    assert game["state"]["depot"] == 10 and game["state"]["keys_to_escape"] == 11
    assert [a["action"] for a in game["players"]["red"]["actions"]].count("discover") == 4
    assert game["team_actions"][0]["action"] == "turn_of_fate"
    assert {t["id"] for t in game["draw_pile"]} >= {"exit", "gem3-key-1"}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"players": []}, "at least 1"),
        ({"players": ["red", "red"]}, "only once"),
        ({"players": ["red"], "difficulty": "easy"}, "normal"),
        ({"players": ["red"], "audio": "loud"}, "auto"),
        ({"players": ["red"], "colour": "red"}, "Extra inputs"),
        ({"players": ["../etc"]}, "not valid"),
    ],
)
def test_new_game_rejects_bad_forms_with_422(client, body, message):
    response = client.post("/api/games", json=body)
    assert response.status_code == 422
    assert message in json.dumps(response.json())


def test_new_game_rejects_rules_the_engine_refuses(client):
    response = client.post("/api/games", json={"players": ["red"], "modules": ["labyrinth"]})
    assert response.status_code == 422
    assert "unknown module 'labyrinth'" in response.json()["detail"]


def test_events_are_judged_recorded_and_undone(client):
    start_game(client)
    ok = post_event(client, type="discover", player="red", tile="gem1-key-1", cell=[1, 0])
    assert ok["verdict"] == {"ok": True}
    post_event(client, type="enter", player="red", cell=[1, 0])
    done = post_event(client, type="activate", cell=[1, 0], gems=1, players=["red"])
    assert done["state"]["game"]["state"]["depot"] == 6
    assert done["state"]["game"]["state"]["keys_to_escape"] == 7
    refused = post_event(client, type="escape", player="blue")
    assert refused["verdict"] == {"ok": False, "reason": "blue is not in the exit chamber"}
    assert refused["state"]["warnings"][-1]["reason"] == "Blue is not in the exit chamber"
    undone = client.post("/api/undo").json()
    assert undone["verdict"]["ok"] is True
    assert undone["state"]["game"]["state"]["depot"] == 7
    texts = [entry["text"] for entry in undone["state"]["log"]]
    assert texts[-1] == (
        "Undo: takes back #4 (Red activates 1 gem in the One-gem chamber east of the start)"
    )


def test_event_bodies_are_validated(client):
    start_game(client)
    for body, status in [
        ({"event": {"player": "red"}}, 422),
        ({"event": {"type": "setup", "players": ["x"]}}, 422),
        ({"event": "enter"}, 422),
        ({"type": "enter"}, 422),
    ]:
        assert client.post("/api/event", json=body).status_code == status
    odd = post_event(client, type="enter", player="pink", cell=[0, 1])
    assert odd["verdict"]["reason"].startswith("unknown player 'pink'")


def test_events_without_a_game_get_409(client):
    response = client.post("/api/event", json={"event": {"type": "turn_of_fate"}})
    assert response.status_code == 409
    assert "no game is running" in response.json()["detail"]
    assert client.post("/api/undo").status_code == 409
    assert client.post("/api/clock", json={"action": "start"}).status_code == 409


def test_clock_buttons(client):
    start_game(client, play=False)
    assert client.post("/api/clock", json={"action": "pause"}).status_code == 409
    state = client.post("/api/clock", json={"action": "start"}).json()
    assert state["clock"]["status"] == "running"
    assert client.post("/api/clock", json={"action": "pause"}).json()["clock"]["status"] == "paused"
    assert (
        client.post("/api/clock", json={"action": "resume"}).json()["clock"]["status"] == "running"
    )
    assert client.post("/api/clock", json={"action": "rewind"}).status_code == 422
    restarted = client.post("/api/clock", json={"action": "restart"}).json()
    assert restarted["clock"]["status"] == "running"
    timing = client.get("/api/time").json()
    assert set(timing) == {"server_time", "position", "status"}


def test_saved_games_are_listed_and_replayed(client):
    game_id = start_game(client)["game_id"]
    post_event(client, type="discover", player="red", tile="exit", cell=[0, 1])
    post_event(client, type="escape", player="red")
    games = client.get("/api/games").json()
    assert games[0]["game_id"] == game_id and games[0]["players"] == ["red", "blue"]
    replay = client.get(f"/api/games/{game_id}").json()
    assert [v["ok"] for v in replay["verdicts"]] == [True, False]
    assert replay["events"][0]["text"] == "Red discovers the Exit north of the start"
    assert replay["state"]["temple"][1]["tile"] == "exit"


@pytest.mark.parametrize("game_id", ["nope", "..%2F..%2Fsecrets", "20261129-000000-abcd"])
def test_unknown_or_malicious_game_ids_get_404(client, game_id):
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 404


def test_the_soundtrack_is_served_as_a_wav_for_the_browser(client, tmp_path):
    response = client.get("/api/soundtrack.wav")
    assert response.status_code == 200
    assert response.headers["content-type"] == "audio/wav"
    path = tmp_path / "track.wav"
    path.write_bytes(response.content)
    with wave.open(str(path)) as wav:
        seconds = wav.getnframes() / wav.getframerate()
    assert seconds == pytest.approx(1.0 + 20.0 + 3.0, abs=0.1)


def test_live_stream_sends_the_state(client):
    start_game(client)
    with client.stream("GET", "/api/stream") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        for line in stream.iter_lines():
            if line.startswith("data: "):
                state = json.loads(line[len("data: ") :])
                break
    assert state["game"]["setup"]["players"] == ["red", "blue"]


def test_writes_from_other_origins_and_hosts_are_refused(client):
    start_game(client)
    event = {"event": {"type": "turn_of_fate"}}
    evil = client.post("/api/event", json=event, headers={"Origin": "http://evil.example"})
    assert evil.status_code == 403
    cross = client.post("/api/event", json=event, headers={"Sec-Fetch-Site": "cross-site"})
    assert cross.status_code == 403
    same = client.post("/api/event", json=event, headers={"Origin": BASE_URL})
    assert same.status_code == 200
    # The client's page is http://127.0.0.1: any other host, port or scheme is another origin.
    for other in ("http://127.0.0.1:8000", "http://localhost", "https://127.0.0.1"):
        response = client.post("/api/event", json=event, headers={"Origin": other})
        assert response.status_code == 403, other
    assert client.get("/api/state", headers={"Host": "attacker.example"}).status_code == 400
    # No name is allowed only because a test uses it: "testserver" is nobody's host.
    testserver = {"Host": "testserver", "Origin": "http://testserver"}
    assert client.post("/api/event", json=event, headers=testserver).status_code == 400


def test_bodies_must_be_small_json(client):
    start_game(client)
    form = client.post("/api/event", content="event=x", headers={"Content-Type": "text/plain"})
    assert form.status_code == 415
    huge = {"event": {"type": "dice", "player": "red", "faces": ["key"] * 20000}}
    assert client.post("/api/event", json=huge).status_code == 413
    broken = client.post(
        "/api/event", content="{not json", headers={"Content-Type": "application/json"}
    )
    assert broken.status_code == 422


def test_pages_are_served(client):
    for page in ("/setup", "/game", "/games"):
        response = client.get(page)
        assert response.status_code == 200 and "<html" in response.text.lower()


def test_a_users_own_audio_file_is_served_with_its_timeline(tmp_path, short_timeline):
    import numpy as np

    from server.soundtrack import write_wav

    own = tmp_path / "my-track.wav"
    write_wav(np.zeros(8000 * 25, dtype=np.float32), 8000, own)
    settings = ServerSettings(
        data_dir=tmp_path / "data",
        timeline_path=short_timeline,
        audio_file=own,
        host_audio=False,
    )
    with TestClient(create_app(settings), base_url=BASE_URL) as client:
        response = client.get("/api/soundtrack.wav")
        assert response.status_code == 200
        assert response.content == own.read_bytes()
        assert client.get("/api/state").json()["clock"]["timeline"]["game_seconds"] == 20.0


def test_an_unplayable_audio_file_is_reported_not_crashed(tmp_path, short_timeline):
    bad = tmp_path / "track.wav"
    bad.write_text("not audio")
    settings = ServerSettings(
        data_dir=tmp_path / "data", timeline_path=short_timeline, audio_file=bad, host_audio=False
    )
    with TestClient(create_app(settings), base_url=BASE_URL) as client:
        response = client.get("/api/soundtrack.wav")
        assert response.status_code == 503
        assert "cannot be played" in response.json()["detail"]
        notices = client.get("/api/state").json()["notices"]
        assert any("soundtrack cannot be played" in notice for notice in notices)


def test_the_set_up_page_and_the_game_s_camera_panel_lead_to_the_dice_page(client):
    for page, link in (
        ("/setup", 'data-testid="dice-link"'),
        ("/setup", 'data-testid="camera-dice-link"'),
        ("/game", 'data-testid="game-dice-link"'),
    ):
        html = client.get(page).text
        anchor = html[: html.index(link)].rsplit("<a ", 1)[1]
        assert 'href="/dice"' in anchor, (page, link)
    assert client.get("/dice").status_code == 200


def test_a_new_game_with_a_module_that_needs_others_says_what_to_add(client):
    response = client.post("/api/games", json={"players": ["red"], "modules": ["new_characters"]})
    assert response.status_code == 422
    assert "add 'quests' to 'modules'" in response.json()["detail"]
