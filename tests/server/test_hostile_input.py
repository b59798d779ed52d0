"""Hostile input against a real server on loopback: whatever a broken client or a curious guest
sends, the game on the screen stays the game on disk (issue 18).

Each case asserts its status, that `/api/state` still answers, and that the record on disk
replays to the live state. The full-disk cases run the server on a small tmpfs the test mounts
and fills (the operating system refuses the writes; nothing in the store is mocked).
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import GAME_TIMELINE, LiveServer, ServerProcess, free_port
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.record import record_lines, replay_lines

LONE_SURROGATE = '{"event": {"type": "enter", "player": "\\ud800", "cell": [0, 1]}}'
HUGE_NUMBER = '{"event": {"type": "enter", "player": "red", "cell": [' + "7" * 5000 + ", 0]}}"
DUPLICATE_KEYS = '{"event": {"type": "enter", "player": "red", "player": "blue", "cell": [0, 1]}}'


def send(server: LiveServer, path: str, body: str | bytes | None, content_type: str = "") -> tuple:
    """POST raw bytes; return (status, decoded JSON answer). The answer must always be JSON."""
    data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    headers = {"Content-Type": content_type or "application/json"}
    request = urllib.request.Request(server.url + path, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read().decode("utf-8"))


def event(server: LiveServer, body: dict) -> tuple:
    """POST one event body as JSON."""
    return send(server, "/api/event", json.dumps(body))


def new_game(server: LiveServer, players: list[str], **fields: object) -> str:
    """Start a game and its clock; wait for "Escape!"; return the game id."""
    status, answer = send(server, "/api/games", json.dumps({"players": players, **fields}))
    assert status == 201, answer
    status, answer = send(server, "/api/clock", json.dumps({"action": "start"}))
    assert status == 200, answer
    deadline = time.monotonic() + 10
    while server.get("/api/state")["clock"]["t"] < 0:  # type: ignore[index]
        assert time.monotonic() < deadline
        time.sleep(0.05)
    return answer["game_id"]


def live(server: LiveServer) -> dict:
    """The live game's state and its log's line numbers, as `/api/state` answers."""
    state = server.get("/api/state")
    assert isinstance(state, dict) and state["game"] is not None
    return {
        "game_id": state["game_id"],
        "state": state["game"]["state"],
        "lines": [entry["line"] for entry in state["log"]],
        "clock": state["clock"]["status"],
    }


def on_disk(server: LiveServer, game_id: str) -> dict:
    """The saved record of `game_id` replayed here, from its file."""
    path = server.data_dir / "games" / f"{game_id}.jsonl"
    lines = record_lines(path.read_text(encoding="utf-8"))
    replay = replay_lines(lines)
    return {"state": replay.game.state_json(), "lines": [line.number for line in replay.events]}


def assert_in_step(server: LiveServer, within_s: float = 3.0) -> dict:
    """The live game equals the record on disk, state and line numbers; return the live view.

    The clock keeps writing its own events while the test reads, so one look can catch a line
    saved between the two reads; the two must agree at a quiet moment within `within_s`.
    """
    deadline = time.monotonic() + within_s
    while True:
        now = live(server)
        saved = on_disk(server, now["game_id"])
        shown = len(now["lines"])  # the live log shows the last lines only
        agree = (
            now["state"] == saved["state"]
            and now["lines"] == saved["lines"][len(saved["lines"]) - shown :]
        )
        if agree or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert now["state"] == saved["state"]
    assert now["lines"] == saved["lines"][len(saved["lines"]) - shown :]
    return now


@pytest.fixture(scope="module")
def server(game_server: LiveServer) -> LiveServer:
    """One server with a whole game's clock (the conftest's), for the input cases."""
    return game_server


# ----- the doors: JSON that UTF-8 or Python cannot hold -------------------------------------


def post_routes(server: LiveServer) -> list[str]:
    """Every POST route the server offers (from its OpenAPI description)."""
    spec = server.get("/openapi.json")
    assert isinstance(spec, dict)
    return sorted(path for path, methods in spec["paths"].items() if "post" in methods)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (LONE_SURROGATE, "lone surrogate"),
        (HUGE_NUMBER, "digits"),
        (DUPLICATE_KEYS, "appears twice"),
        ('{"players": ["\\udc80"]}', "lone surrogate"),
        ('{"\\ud800": 1}', "lone surrogate"),
    ],
)
def test_every_post_route_refuses_what_json_in_utf8_cannot_carry(server, body, words):
    new_game(server, ["red", "blue"])
    before = assert_in_step(server)
    routes = post_routes(server)
    assert {"/api/event", "/api/games", "/api/correct", "/api/undo", "/api/clock"} <= set(routes)
    for route in routes:
        status, answer = send(server, route.replace("{", "").replace("}", ""), body)
        if route.startswith("/api/dice/upload"):
            assert status == 415, (route, answer)  # a photo route: JSON is not a photo
            continue
        assert status == 422, (route, status, answer)
        assert words in json.dumps(answer), (route, answer)
    after = assert_in_step(server)
    assert after == before


def test_a_lone_surrogate_is_not_saved_and_the_game_goes_on(server):
    game_id = new_game(server, ["red", "blue"])
    status, _ = send(server, "/api/event", LONE_SURROGATE)
    assert status == 422
    record = (server.data_dir / "games" / f"{game_id}.jsonl").read_text(encoding="utf-8")
    assert "\\ud800" not in record and len(record_lines(record.strip())) == 1
    status, answer = event(server, {"event": {"type": "enter", "player": "red", "cell": [1, 0]}})
    assert status == 200 and answer["verdict"]["ok"] is False  # no chamber there: judged
    status, answer = send(server, "/api/undo", None)
    assert status == 200
    replayed = server.get(f"/api/games/{game_id}")
    assert isinstance(replayed, dict) and len(replayed["verdicts"]) == 2
    assert_in_step(server)


def test_a_player_name_with_a_lone_surrogate_gets_a_422_that_can_be_read(server):
    status, answer = send(server, "/api/games", '{"players": ["red", "\\ud800x"]}')
    assert status == 422 and "lone surrogate" in answer["detail"]


def test_numbers_past_the_digit_limit_are_refused_on_every_field(server):
    new_game(server, ["red"])
    for field in ("cell", "line", "gems", "count"):
        body = '{"event": {"type": "unlock", "player": "red", "' + field + '": ' + "9" * 5000 + "}}"
        status, answer = send(server, "/api/event", body)
        assert status == 422 and "digits" in answer["detail"], field
    status, answer = send(server, "/api/correct", '{"line": ' + "2" * 4400 + ', "event": null}')
    assert status == 422
    big_but_readable = {"event": {"type": "unlock", "player": "red", "count": 10**200}}
    status, answer = event(server, big_but_readable)
    assert status == 200 and not answer["verdict"]["ok"]
    assert "at most 1,000,000" in answer["verdict"]["reason"]
    assert_in_step(server)


def test_a_line_of_true_is_no_line_number(server):
    new_game(server, ["red"])
    event(server, {"event": {"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1]}})
    status, answer = send(server, "/api/correct", '{"line": true, "event": null}')
    assert status == 422, answer
    assert_in_step(server)


# ----- the engine never half-applies an event ------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "curse", "player": "red", "card": []},
        {"type": "lift", "player": "red", "card": {}},
        {"type": "claim", "player": "red", "treasure": []},
        {"type": "use", "player": "red", "treasure": {}},
    ],
)
def test_a_field_of_the_wrong_kind_is_a_rejected_line_and_the_numbering_stays_true(server, bad):
    new_game(server, ["red", "blue"], modules=["curses", "treasures"])
    ok = {"type": "discover", "player": "red", "tile": "ct-chamber-1", "cell": [1, 0]}
    assert event(server, {"event": ok})[1]["verdict"]["ok"]
    status, answer = event(server, {"event": bad})
    assert status == 200
    assert answer["verdict"]["ok"] is False
    assert "must be an id" in answer["verdict"]["reason"]
    move = {"type": "enter", "player": "blue", "cell": [1, 0]}
    assert event(server, {"event": move})[1]["verdict"]["ok"]
    now = assert_in_step(server)
    # A correction names the line the live log shows; on disk it strikes out that same event.
    status, answer = send(
        server, "/api/correct", json.dumps({"line": now["lines"][-1], "event": None})
    )
    assert status == 200 and answer["verdict"]["ok"], answer
    after = assert_in_step(server)
    assert after["state"]["players"]["blue"]["cell"] == [0, 0]


# ----- the clock's events, Start, retries ----------------------------------------------------


def test_nothing_is_accepted_before_start(server):
    status, answer = send(server, "/api/games", json.dumps({"players": ["red"]}))
    assert status == 201
    game_id = answer["game_id"]
    found = {"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1]}
    status, answer = event(server, {"event": found})
    assert status == 409 and "press Start" in answer["detail"]
    assert send(server, "/api/undo", None)[0] == 409
    assert len(on_disk(server, game_id)["lines"]) == 0


@pytest.mark.parametrize("kind", ["countdown_start", "countdown_end", "collapse"])
def test_the_clock_s_events_come_from_the_clock_alone(server, kind):
    new_game(server, ["red"])
    status, answer = event(server, {"event": {"type": kind, "n": 1}})
    assert status == 409 and "game clock" in answer["detail"]
    now = assert_in_step(server)
    assert now["state"]["outcome"] == "running"


def test_a_retried_event_with_its_key_is_recorded_once(server):
    game_id = new_game(server, ["red"])
    body = {
        "event": {"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1]},
        "key": "click-" + uuid.uuid4().hex,
    }
    first = event(server, body)
    again = event(server, body)
    assert first[0] == again[0] == 200
    assert first[1]["verdict"] == again[1]["verdict"] == {"ok": True}
    assert len(on_disk(server, game_id)["lines"]) == 1
    other = {**body, "event": {"type": "enter", "player": "red", "cell": [0, 1]}}
    status, answer = event(server, other)
    assert status == 422 and "already used" in answer["detail"]
    assert send(server, "/api/undo", json.dumps({"key": "u1"}))[0] == 200
    assert send(server, "/api/undo", json.dumps({"key": "u1"}))[0] == 200
    saved = on_disk(server, game_id)
    assert len(saved["lines"]) == 2, "the retried undo took back nothing more"
    assert_in_step(server)


def test_the_test_client_s_host_name_is_nobody_s(server):
    request = urllib.request.Request(
        server.url + "/api/clock",
        data=b'{"action": "pause"}',
        headers={
            "Content-Type": "application/json",
            "Host": "testserver",
            "Origin": "http://testserver",
        },
        method="POST",
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 400


# ----- no folder of this computer in any answer ----------------------------------------------


def test_no_answer_names_a_folder_of_this_computer(server):
    new_game(server, ["red"])
    folder = str(server.data_dir.resolve())
    home = str(Path.home())
    answers = [
        server.get(path)
        for path in ("/api/state", "/api/dice/models", "/api/dice", "/api/games", "/api/vision")
    ]
    text = json.dumps(answers)
    assert folder not in text and str(server.data_dir) not in text
    assert home + "/" not in text


# ----- a full disk ---------------------------------------------------------------------------


@contextlib.contextmanager
def small_disk(where: Path, megabytes: int) -> Iterator[Path]:
    """Mount a tmpfs of `megabytes` at `where` (as root: CI runs as root); unmount after."""
    where.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.fail(
            f"the full-disk tests mount a small tmpfs and could not ({mounted.stderr.strip()}): "
            "run the tests as root, as CI does",
            pytrace=False,
        )
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(folder: Path) -> Path:
    """Write a file that takes every free byte of the file system holding `folder`."""
    filler = folder / "filler.bin"
    with filler.open("wb", buffering=0) as file:
        chunk = b"\0" * 65536
        while True:
            try:
                file.write(chunk)
            except OSError:
                break
        while True:
            try:
                file.write(b"\0")
            except OSError:
                break
    return filler


@pytest.fixture
def disk_server(tmp_path: Path) -> Iterator:
    """Start a server whose data folder lies on a 48 MB tmpfs: `disk_server(timeline)` returns
    (server, the tmpfs folder)."""
    running: list[ServerProcess] = []
    with small_disk(tmp_path / "small", 48) as disk:

        def start(timeline: dict[str, object]) -> tuple[LiveServer, Path]:
            process = ServerProcess(tmp_path, timeline, disk / "data", free_port())
            running.append(process)
            # the soundtrack is rendered into the data folder: wait for it before filling
            with urllib.request.urlopen(process.server.url + "/api/soundtrack.wav", timeout=120):
                pass
            return process.server, disk

        try:
            yield start
        finally:
            for process in running:
                process.stop()


def fill_the_record_too(server: LiveServer) -> int:
    """With the disk full, post moves until one is refused (the record's last page may hold a
    few lines more); return how many were accepted first."""
    for accepted in range(200):
        move = {"type": "enter", "player": "red", "cell": [9, 9]}  # judged: no chamber there
        status, answer = event(server, {"event": move})
        if status != 200:
            assert status == 507 and "disk is full" in answer["detail"], answer
            return accepted
    raise AssertionError("the disk never filled")


def test_a_full_disk_refuses_the_event_with_507_and_the_game_stays_as_on_disk(disk_server):
    server, disk = disk_server(GAME_TIMELINE)
    game_id = new_game(server, ["red", "blue"])
    found = {"type": "discover", "player": "red", "tile": "gem1-key-1", "cell": [1, 0]}
    assert event(server, {"event": found})[1]["verdict"]["ok"]
    before = len(on_disk(server, game_id)["lines"])
    filler = fill(disk)
    slack = fill_the_record_too(server)
    during = assert_in_step(server)
    assert during["clock"] == "running"
    move = {"type": "enter", "player": "blue", "cell": [1, 0]}
    status, answer = event(server, {"event": move})
    assert status == 507, answer
    assert live(server)["state"]["players"]["blue"]["cell"] == [0, 0], "not moved in memory"
    # pause and resume keep working: the clock's file is saved again later
    assert send(server, "/api/clock", json.dumps({"action": "pause"}))[0] == 200
    assert send(server, "/api/clock", json.dumps({"action": "resume"}))[0] == 200
    # a new game cannot be saved: the running game goes on, its clock running
    status, answer = send(server, "/api/games", json.dumps({"players": ["red"]}))
    assert status == 507 and "disk is full" in answer["detail"]
    still = live(server)
    assert still["game_id"] == game_id and still["clock"] == "running"
    assert [p.name for p in (server.data_dir / "games").glob("*.jsonl")] == [f"{game_id}.jsonl"]
    notices = server.get("/api/state")["notices"]  # type: ignore[index]
    assert any("disk is full" in notice for notice in notices)
    # space again: the event goes through, on disk and live alike, on the next line
    filler.unlink()
    status, answer = event(server, {"event": move})
    assert status == 200 and answer["verdict"]["ok"]
    after = assert_in_step(server)
    assert after["state"]["players"]["blue"]["cell"] == [1, 0]
    assert len(on_disk(server, game_id)["lines"]) == before + slack + 1
    text = (server.data_dir / "games" / f"{game_id}.jsonl").read_text(encoding="utf-8")
    assert text.endswith("\n") and all(json.loads(line) for line in text.splitlines())


def test_the_clock_s_own_events_wait_for_space_and_are_saved_when_it_comes(disk_server):
    soon = {
        "intro_seconds": 0.5,
        "game_seconds": 600.0,
        "countdowns": [
            {"n": 1, "start": 4.0, "end": 500.0},
            {"n": 2, "start": 520.0, "end": 540.0},
            {"n": 3, "start": 580.0, "end": 600.0},
        ],
    }
    server, disk = disk_server(soon)
    game_id = new_game(server, ["red"])
    filler = fill(disk)
    fill_the_record_too(server)
    deadline = time.monotonic() + 20
    while server.get("/api/state")["clock"]["t"] < 5.0:  # type: ignore[index]
        assert time.monotonic() < deadline
        time.sleep(0.1)
    kinds = [
        json.loads(line)["type"]
        for line in record_lines(
            (server.data_dir / "games" / f"{game_id}.jsonl").read_text(encoding="utf-8").strip()
        )
    ]
    assert "countdown_start" not in kinds, "nothing can be written on a full disk"
    assert_in_step(server)
    assert any("disk is full" in n for n in server.get("/api/state")["notices"])  # type: ignore[index]
    filler.unlink()
    deadline = time.monotonic() + 10
    while True:
        now = assert_in_step(server)
        saved = (server.data_dir / "games" / f"{game_id}.jsonl").read_text(encoding="utf-8")
        if '"countdown_start"' in saved:
            break
        assert time.monotonic() < deadline, "the countdown was never saved"
        time.sleep(0.1)
    assert now["clock"] == "running"


# ----- any sequence of requests keeps the live game equal to the record ----------------------

TILES = ["exit", "gem1-key-1", "gem3-torch-1", "chamber-1", "chamber-6", "no-such-tile"]
CELLS = st.lists(st.integers(-2, 2), min_size=2, max_size=2)
PLAYER = st.sampled_from(["red", "blue", "nobody"])
EVENTS = st.one_of(
    st.builds(
        lambda p, t, c: {"type": "discover", "player": p, "tile": t, "cell": c},
        PLAYER,
        st.sampled_from(TILES),
        CELLS,
    ),
    st.builds(lambda p, c: {"type": "enter", "player": p, "cell": c}, PLAYER, CELLS),
    st.builds(
        lambda c, g, p: {"type": "activate", "cell": c, "gems": g, "players": p},
        CELLS,
        st.integers(0, 3),
        st.lists(PLAYER, max_size=2),
    ),
    st.builds(lambda p: {"type": "escape", "player": p}, PLAYER),
    st.just({"type": "turn_of_fate"}),
    st.builds(lambda k: {"type": k, "n": 1}, st.sampled_from(["countdown_end", "collapse"])),
    st.builds(
        lambda v: {"type": "enter", "player": "red", "cell": v},
        st.sampled_from([[], {}, "north", [True, 0], [10**9, 0]]),
    ),
)
RAW = st.sampled_from([LONE_SURROGATE, HUGE_NUMBER, DUPLICATE_KEYS, "{not json", "[]"])
REQUESTS = st.one_of(
    st.tuples(st.just("event"), EVENTS, st.sampled_from([None, "k1", "k2"])),
    st.tuples(st.just("undo"), st.none(), st.sampled_from([None, "u1"])),
    st.tuples(
        st.just("correct"), st.tuples(st.integers(0, 12), st.one_of(st.none(), EVENTS)), st.none()
    ),
    st.tuples(st.just("raw"), RAW, st.none()),
)


def perform(server: LiveServer, request: tuple) -> int:
    """Send one generated request; return its status."""
    kind, payload, key = request
    if kind == "event":
        body = {"event": payload, **({"key": key} if key else {})}
        return event(server, body)[0]
    if kind == "undo":
        return send(server, "/api/undo", json.dumps({"key": key}) if key else None)[0]
    if kind == "correct":
        line, replacement = payload
        return send(server, "/api/correct", json.dumps({"line": line, "event": replacement}))[0]
    return send(server, "/api/event", payload)[0]


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(requests=st.lists(REQUESTS, min_size=1, max_size=14))
def test_any_sequence_of_requests_keeps_the_live_game_equal_to_its_record(server, requests):
    new_game(server, ["red", "blue"])
    for request in requests:
        status = perform(server, request)
        assert status in (200, 409, 422), (request, status)
    assert_in_step(server)


# ----- photos: an image bomb, a link out of the data folder ----------------------------------


def png_declaring(width: int, height: int) -> bytes:
    """A PNG whose header declares `width` x `height` grey pixels, with the first rows'
    data only (an image bomb: kilobytes on the wire, gigabytes once decoded)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit grey
    row = b"\0" * (width + 1)
    pixels = zlib.compressobj(9)
    data = b"".join(pixels.compress(row) for _ in range(min(height, 64))) + pixels.flush()
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
    )


def photo(width: int, height: int) -> bytes:
    """A real photo (PNG) of `width` x `height` pixels."""
    import cv2
    import numpy as np

    image = np.random.default_rng(width).integers(0, 255, (height, width, 3), dtype=np.uint8)
    return cv2.imencode(".png", image)[1].tobytes()


def upload(server: LiveServer, data: bytes, prompt: str = "key") -> tuple:
    """Upload a photo to the /dice page's capture."""
    return send(server, f"/api/dice/upload?prompt={prompt}", data, content_type="image/png")


def test_an_image_bomb_is_refused_from_its_header_and_normal_photos_still_go_in(server):
    started = time.monotonic()
    for side in (30000, 65000):
        status, answer = upload(server, png_declaring(side, side))
        assert status == 413, answer
        assert "too large" in answer["detail"] and "8192x8192" in answer["detail"]
    assert time.monotonic() - started < 10, "the photo was decoded, not just its header read"
    status, answer = upload(server, photo(640, 480))
    assert status == 200, answer
    status, answer = upload(server, photo(640, 480), prompt="torch")
    assert status == 200, answer
    status, answer = upload(server, photo(320, 240))
    assert status == 422 and "640x480" in answer["detail"]
    status, answer = upload(server, png_declaring(9000, 16))  # under Pillow's own limit
    assert status == 413 and "9000x16" in answer["detail"]


def test_a_link_out_of_the_data_folder_is_never_served(server, tmp_path):
    secret = tmp_path / "secret.png"
    secret.write_bytes(photo(640, 480))
    folder = server.data_dir / "teach" / "current" / "adventurer"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "9999.png").symlink_to(secret)
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(server.url + "/api/dice/photos/adventurer/9999.png", timeout=10)
    assert missing.value.code == 404
    steps = server.get("/api/dice")["steps"]  # type: ignore[index]
    assert {s["prompt"]: s["count"] for s in steps}["adventurer"] == 0


def test_a_chosen_video_s_problems_name_no_folder(tmp_path_factory):
    base = tmp_path_factory.mktemp("video-paths")
    data = base / "data"
    (data / "videos").mkdir(parents=True)
    video = data / "videos" / "my-game.mp4"
    video.write_bytes(
        (Path(__file__).parents[2] / "vision" / "data" / "demo-game.mp4").read_bytes()
    )
    running = ServerProcess(base, GAME_TIMELINE, data, free_port(), camera=("--camera", str(video)))
    try:
        deadline = time.monotonic() + 30
        while True:
            vision = running.server.get("/api/vision")
            text = json.dumps([vision, running.server.get("/api/state")])
            if "calibrat" in text or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert "calibrat" in text, "the missing calibration is said"
        assert str(data) not in text and str(data.resolve()) not in text
        assert str(base) not in text
    finally:
        running.stop()
