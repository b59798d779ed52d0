"""The server's words in the asking page's language (issue 22), on a real server: the state's
log, reasons and notices, a refused event's reason and a 409, the past games' outcomes; and the
program's notices all worded by the catalog."""

from __future__ import annotations

import json
import os
import re
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import GAME_TIMELINE, free_port, start_the_clock

from base.words import keys_under, match_template, say, told_by_template
from server.host_audio import HOST_SOUND_FAILED, HOST_SOUND_OFF, NO_SOUND_LIBRARY, NO_SPEAKERS
from server.session import NOT_STARTED
from server.speech import ENGINE, INSTALL_COMMAND, MISSING_NOTICE
from server.vision_demo import DEMO_RESTARTED
from vision.sources.open import DEMO_NOTE

NOTICES = (
    NO_SPEAKERS,
    NO_SOUND_LIBRARY,
    HOST_SOUND_OFF,
    HOST_SOUND_FAILED,
    DEMO_NOTE,
    DEMO_RESTARTED,
    MISSING_NOTICE,
    "Resumed after a restart; 12 s passed meanwhile.",
    "The server was down 300 s: the game is paused where it was.",
    "The game goes on: the clock waits where the game ended; press Resume.",
)


def test_every_notice_of_the_program_is_worded_by_the_catalog():
    assert [n for n in NOTICES if match_template(keys_under("notice."), n) is None] == []
    for notice in NOTICES:
        assert told_by_template("en", "notice.", notice) == notice
        assert told_by_template("el", "notice.", notice) != notice


def _call(server: Any, path: str, lang: str, body: object | None = None) -> tuple[int, Any]:
    """GET or POST with the pages' language header; (status, JSON answer)."""
    request = urllib.request.Request(
        server.url + path,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "X-Templecam-Lang": lang},
        method="GET" if body is None else "POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


@pytest.fixture(scope="module")
def fresh(live_server: Any) -> Any:
    """A new game (manual mode) on a server whose introduction lasts two seconds."""
    body = {"players": ["red", "blue"], "starting_chambers": ["chamber-1", "chamber-2"]}
    live_server.post("/api/games", body)
    return live_server


@pytest.mark.parametrize("lang", ["pt", "es", "el"])
def test_the_server_answers_in_the_pages_language(fresh: Any, lang: str):
    enter = {"event": {"type": "enter", "player": "red", "cell": [1, 0]}}
    status, refused = _call(fresh, "/api/event", lang, enter)  # before Start: refused
    assert status == 409
    said = say(lang, "reason.not_started")
    assert refused["detail"] == said[0].upper() + said[1:]
    assert _call(fresh, "/api/event", "en", enter)[1]["detail"] == NOT_STARTED

    notices = fresh.get(f"/api/state?lang={lang}")["notices"]
    english = fresh.get("/api/state")["notices"]
    assert notices and notices != english  # this server has no speakers: a notice says so
    assert [told_by_template(lang, "notice.", n) for n in english] == notices


def test_a_refused_event_and_the_log_in_the_pages_language(fresh: Any):
    fresh.post("/api/clock", {"action": "start"})
    far = {"event": {"type": "enter", "player": "red", "cell": [4, 0]}}
    for _ in range(100):  # the two-second introduction
        status, answer = _call(fresh, "/api/event", "el", far)
        if status == 200:
            break
        time.sleep(0.05)
    assert status == 200 and not answer["verdict"]["ok"]
    assert answer["verdict"]["reason"].startswith("there is no chamber at [4, 0]")  # the engine's
    assert answer["reason_text"].startswith("Δεν υπάρχει ακόμα δωμάτιο")
    assert say("el", "num.4") in answer["reason_text"]
    status, answer = _call(fresh, "/api/event", "pt", {"event": far["event"] | {"cell": [1, 0]}})
    assert answer["verdict"]["ok"]
    log = fresh.get("/api/state?lang=pt")["log"]
    texts = [entry["text"] for entry in log]
    assert "Vermelho entra na Câmara a leste da câmara inicial" in texts
    rejected = [entry for entry in log if not entry["ok"]]
    assert rejected and rejected[-1]["reason"].startswith("Ainda não há câmara")


def test_past_games_say_their_outcome_in_the_pages_language(fresh: Any):
    status, games = _call(fresh, "/api/games", "es")
    assert status == 200 and games
    texts = [game.get("outcome_text", "") for game in games]
    assert any(text.startswith("En curso") for text in texts)


MODULE_GAME = {
    "players": ["red", "blue"],
    "modules": ["characters", "traps", "time", "quests"],
    "quests": ["altar", "ghost", "tree"],
    "traps": ["invocation", "cliff-torch"],
    "time_chambers": ["lava-1", "torch"],
    "characters": {"red": "mechanic-rotate", "blue": "discoverer-run"},
    "track_dice": False,
    "starting_chambers": ["chamber-1", "chamber-2"],
}
"""A game of modules 3 to 8 (dice not tracked, so their actions are open at once)."""
MODULE_MOVES = (
    {"type": "discover", "player": "red", "cell": [0, 1], "tile": "trap-invocation", "stairs": "S"},
    {"type": "discover", "player": "blue", "cell": [-1, 1], "tile": "quest-altar", "stairs": "E"},
)
"""Red finds the invocation chamber (everyone is summoned into it), blue the altar chamber."""


def play_module_game(server: Any) -> None:
    """Start `MODULE_GAME` on `server`, its clock running, and play `MODULE_MOVES`."""
    server.post("/api/games", MODULE_GAME)
    start_the_clock(server)
    for event in MODULE_MOVES:
        assert server.post("/api/event", {"event": event})["verdict"]["ok"], event


def latin_words(text: str) -> list[str]:
    """The Latin words of a Greek text (field names in quotes aside): what is still English."""
    return re.findall(r"[A-Za-z]+", re.sub(r"'[^']*'", "", text))


MODULE_KINDS = {"ability", "summon", "sacrifice", "push_ghost", "climb", "lava", "task"}


def module_actions(game: dict[str, Any]) -> list[dict[str, Any]]:
    """The open actions of modules 3 to 8 on every player's card of a state's game."""
    found = [a for p in game["players"].values() for a in p["actions"]]
    return [a for a in found if a["action"] in MODULE_KINDS]


def test_a_module_game_speaks_greek_refusals_labels_cards_and_log(game_server: Any):
    play_module_game(game_server)
    climb = {"event": {"type": "climb", "player": "red"}}
    status, answer = _call(game_server, "/api/event", "el", climb)
    assert status == 200 and not answer["verdict"]["ok"]
    assert answer["verdict"]["reason"] == "red is not stuck on a cliff"  # the engine's own
    assert answer["reason_text"] != answer["verdict"]["reason"]
    assert (
        latin_words(answer["reason_text"]) == []
        and say("el", "colour.red") in answer["reason_text"]
    )

    state = _call(game_server, "/api/state", "el")[1]["game"]
    english = _call(game_server, "/api/state", "en")[1]["game"]
    told, said = module_actions(state), module_actions(english)
    assert {a["action"] for a in told} >= {"ability", "summon"}
    assert [a["label"] for a in told] != [a["label"] for a in said]
    assert [a["label"] for a in told if latin_words(a["label"])] == []
    assert say("el", "label.summon") in [a["label"] for a in told]
    choices = [c for a in told for c in a.get("choices", [])]
    assert choices and [c for c in choices if latin_words(c["name"] + c["note"])] == []
    assert [c for c in state["characters"].values() if latin_words(c["text"])] == []

    log = _call(game_server, "/api/state", "el")[1]["log"]
    refused = [entry for entry in log if not entry["ok"]]
    assert refused and latin_words(refused[-1]["reason"]) == []
    assert any(say("el", "mchamber.invocation") in entry["text"] for entry in log)


def test_the_quests_and_traps_progress_rows_speak_greek(game_server: Any):
    play_module_game(game_server)
    rows = _call(game_server, "/api/state", "el")[1]["game"]["reminders"]
    english = _call(game_server, "/api/state", "en")[1]["game"]["reminders"]
    kinds = ("quest-altar", "quest-ghost", "quest-tree", "trap-invocation")
    told = {row["kind"]: row["text"] for row in rows if row["kind"] in kinds}
    said = {row["kind"]: row["text"] for row in english if row["kind"] in kinds}
    assert set(told) == set(kinds) == set(said)
    assert [text for text in told.values() if latin_words(text)] == []
    assert say("el", "more.qtask.altar") in told["quest-altar"]
    assert say("el", "more.qstatus.not_found") in told["quest-tree"]
    assert told["trap-invocation"] == say("el", "more.trap.invocation")
    assert "sacrifice 2 dice on the altar" in said["quest-altar"]  # English stays the engine's


def test_the_starting_temples_chambers_are_named_in_the_pages_language(game_server: Any):
    game_server.post("/api/games", {"players": ["red", "blue"]})
    status, draw = _call(game_server, "/api/starting-temple", "pt")
    assert status == 200
    names = [tile["name"] for tile in draw["candidates"]]
    assert draw["start"]["name"] == say("pt", "chamber.starting")
    assert any(name.startswith(say("pt", "chamber.gem")) for name in names)
    assert [name for name in names if "chamber" in name.lower() or "keys" in name] == []
    pile = [tile["name"] for tile in _call(game_server, "/api/state", "pt")[1]["game"]["draw_pile"]]
    assert pile and [name for name in pile if "chamber" in name.lower()] == []  # the picker's
    english = _call(game_server, "/api/starting-temple", "en")[1]
    assert "Gem chamber (keys) 1" in [tile["name"] for tile in english["candidates"]]


def test_a_missing_speech_engine_is_said_in_greek(start_server, monkeypatch, tmp_path):
    folders = os.environ["PATH"].split(os.pathsep)
    without = [f for f in folders if f and not (Path(f) / ENGINE).exists()]
    monkeypatch.setenv("PATH", os.pathsep.join(without) or str(tmp_path))
    server = start_server(GAME_TIMELINE, free_port()).server
    settings = _call(server, "/api/alerts/settings", "el")[1]
    english = _call(server, "/api/alerts/settings", "en")[1]
    assert settings["engine"]["available"] is False
    assert english["engine"]["notice"] == MISSING_NOTICE
    notice = settings["engine"]["notice"]
    assert notice == say("el", "notice.speech_missing", command=INSTALL_COMMAND)
    assert "Spoken alerts" not in notice and "restart" not in notice
    tried = _call(server, "/api/alerts/try", "el", {})[1]
    assert tried["url"] is None and tried["notice"] == notice
