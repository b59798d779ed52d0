"""The Queenie modules through the API, on a real server on loopback: a new game with each
module's own setup fields (defaults when only the box is ticked, the table's choices when it
makes them, a clear 422 for a bad one), and the Maze's Time out holding the game clock."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import LiveServer, ServerProcess, free_port

from rules.module_quests import QUEST_NAMES
from rules.queenie.cursed_gems import GEM_TILES
from rules.queenie.maya_calendar import DEFAULT_BARS, DEFAULT_SPACES
from rules.queenie.new_traps import DEFAULT_BEAST_PATH
from rules.queenie.queenie_quests import NAMES as QUEENIE_QUESTS

SOON = {
    "intro_seconds": 0.5,
    "game_seconds": 900.0,
    "countdowns": [
        {"n": 1, "start": 3.0, "end": 30.0},
        {"n": 2, "start": 600.0, "end": 630.0},
        {"n": 3, "start": 880.0, "end": 900.0},
    ],
}
"""Countdown 1 comes 3 s after "Escape!": a Time out started at once must hold it back."""
WAIT_SECONDS = 10.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    base = tmp_path_factory.mktemp("queenie-api")
    running = ServerProcess(base, SOON, base / "data", free_port())
    try:
        yield running.server
    finally:
        running.stop()


def saved_setup(server: LiveServer, game_id: str) -> dict[str, Any]:
    """The setup line the server wrote for the game."""
    record = server.data_dir / "games" / f"{game_id}.jsonl"
    first: dict[str, Any] = json.loads(record.read_text().splitlines()[0])
    return first


def new_game(server: LiveServer, **form: Any) -> dict[str, Any]:
    """Start a game from the form; return its saved setup line."""
    status, answer = server.send("/api/games", {"players": ["red", "blue"], **form})
    assert status == 201, answer
    return saved_setup(server, answer["game_id"])


def refused(server: LiveServer, **form: Any) -> str:
    """Start a game the server must refuse; return what its 422 says."""
    status, answer = server.send("/api/games", {"players": ["red", "blue"], **form})
    assert status == 422, answer
    detail = answer["detail"]
    return detail if isinstance(detail, str) else json.dumps(detail)


def test_the_set_up_page_is_offered_each_queenie_modules_choices(server):
    offers = {m["id"]: m for m in server.get("/api/modules")}
    assert [c["id"] for c in offers["new_characters"]["cards"]] == [
        "trickster-swap",
        "trickster-anywhere",
        "void-runner-step",
        "void-runner-group",
    ]
    assert [q["name"] for q in offers["queenie_quests"]["quests"]] == list(QUEENIE_QUESTS.values())
    assert [q["id"] for q in offers["new_quests"]["new_quests"]] == [
        "riddle",
        "ascension",
        "guardian",
    ]
    assert [s["id"] for s in offers["maya_calendar"]["maya_sides"]] == ["eternal", "doomed"]


def test_the_set_up_page_is_offered_the_printed_boards_and_the_quest_chambers_tiles(server):
    offers = {m["id"]: m for m in server.get("/api/modules?lang=pt")}  # type: ignore[union-attr]
    maya = offers["maya_calendar"]
    assert (maya["maya_spaces"], maya["maya_bars"]) == (list(DEFAULT_SPACES), list(DEFAULT_BARS))
    assert maya["maya_symbols"] == ["sun", "moon", "gear"]
    traps = offers["new_traps"]
    assert traps["beast_path"] == list(DEFAULT_BEAST_PATH)
    assert (traps["path_icons"], traps["beast_path_most"]) == (["adventurer", "key", "torch"], 8)
    assert [q["id"] for q in offers["quests"]["quest_tiles"]] == list(QUEST_NAMES)
    altar = offers["quests"]["quest_tiles"][0]["tile"]
    assert altar["name"] == "Câmara do altar"  # in the asking page's language
    assert altar["enter"] and altar["doors"]  # drawn as the pile draws it
    queenie = offers["queenie_quests"]["quest_tiles"]
    assert [q["id"] for q in queenie] == list(QUEENIE_QUESTS)
    assert "quest_tiles" not in offers["curses"]


def test_the_tables_quest_chambers_boards_and_beast_path_are_written(server):
    line = new_game(
        server,
        modules=["quests", "queenie_quests", "maya_calendar", "new_traps"],
        quests=["snake-pit", "tree"],
        maya_side="doomed",
        maya_spaces=["gear"] * 9,
        maya_bars=[1, 9],
        beast_path=["torch", "torch", "key", "adventurer", "key"],
    )
    assert line["quests"] == ["snake-pit", "tree"]
    assert (line["maya_spaces"], line["maya_bars"]) == (["gear"] * 9, [1, 9])
    assert line["beast_path"] == ["torch", "torch", "key", "adventurer", "key"]
    game = server.get("/api/state")["game"]
    assert game["state"]["maya_calendar"]["spaces"] == ["gear"] * 9
    assert game["state"]["new_traps"]["beast_path"] == line["beast_path"]


def field_refusal(server: LiveServer, **form: Any) -> tuple[str, str]:
    """Start a game the form must refuse for one field: (that field, what the 422 says)."""
    status, answer = server.send("/api/games", {"players": ["red", "blue"], **form})
    assert status == 422, answer
    (problem,) = answer["detail"]
    assert problem["loc"][0] == "body"
    return problem["loc"][1], problem["msg"]


@pytest.mark.parametrize(
    ("form", "field", "says"),
    [
        ({"modules": ["quests"], "quests": []}, "quests", "pick 1 to 3 quest chambers, not 0"),
        (
            {"modules": ["quests"], "quests": ["altar", "chaos"]},
            "quests",
            "'chaos' is not a quest chamber of the modules ticked: pick from Altar chamber,",
        ),
        (
            {"modules": ["quests", "queenie_quests"], "quests": ["chaos", "chaos"]},
            "quests",
            "Chaos chamber is picked twice",
        ),
        ({"modules": ["new_traps"], "beast_path": []}, "beast_path", "1 to 8 of adventurer"),
        (
            {"modules": ["new_traps"], "beast_path": ["key", "golden_mask"]},
            "beast_path",
            "adventurer, key and torch",
        ),
        (
            {"modules": ["maya_calendar"], "maya_spaces": ["sun"] * 9},
            "maya_spaces",
            "must hold 4 suns, 3 moons and 2 gears",
        ),
        (
            {"modules": ["maya_calendar"], "maya_side": "doomed", "maya_spaces": ["star"] * 9},
            "maya_spaces",
            "each 'sun', 'moon' or 'gear'",
        ),
        (
            {"modules": ["maya_calendar"], "maya_side": "doomed", "maya_bars": [6, 6]},
            "maya_bars",
            "two whole numbers rising from 1 to 9",
        ),
        ({"modules": ["maya_calendar"], "maya_bars": [3, 10]}, "maya_bars", "rising from 1 to 9"),
    ],
)
def test_a_bad_table_set_field_is_refused_naming_the_field(server, form, field, says):
    named, message = field_refusal(server, **form)
    assert named == field
    assert says in message


def test_the_doomed_calendar_takes_any_symbols_on_its_spaces(server):
    line = new_game(server, modules=["maya_calendar"], maya_side="doomed", maya_spaces=["sun"] * 9)
    assert line["maya_spaces"] == ["sun"] * 9


def queenie_offers() -> list[dict[str, Any]]:
    from rules.modules import offered_modules

    return [m for m in offered_modules() if m.get("queenie")]


@pytest.mark.parametrize("offer", queenie_offers(), ids=lambda offer: str(offer["id"]))
def test_each_queenie_module_starts_with_its_box_and_requirements_ticked(server, offer):
    modules = [*offer["requires"], offer["id"]]
    line = new_game(server, modules=modules)
    assert line["modules"] == modules
    assert server.get("/api/state")["game"]["setup"]["modules"] == modules  # type: ignore[index]


def test_every_module_at_once_starts_a_six_player_game(server):
    every = [m["id"] for m in server.get("/api/modules")]  # type: ignore[union-attr]
    players = ["red", "blue", "green", "yellow", "purple", "orange"]
    status, answer = server.send("/api/games", {"players": players, "modules": every})
    assert status == 201, answer
    assert answer["state"]["game"]["setup"]["modules"] == every


def test_ticking_a_queenie_module_is_enough_its_defaults_are_written(server):
    line = new_game(server, modules=["new_quests", "maya_calendar", "cursed_gems", "new_traps"])
    assert line["new_quests"] == ["riddle", "ascension", "guardian"]
    assert line["maya_side"] == "eternal"
    assert set(line["cursed_gems"]) == {"red", "blue"}
    assert set(line["cursed_gems"].values()) <= set(GEM_TILES)
    assert len(set(line["cursed_gems"].values())) == 2
    assert "beast_path" not in line  # the printed path: the engine's own default


def test_the_cursed_gem_tiles_are_dealt_at_random(server):
    deals = {
        tuple(new_game(server, modules=["cursed_gems"])["cursed_gems"].values()) for _ in range(8)
    }
    assert len(deals) > 1  # 30 deals of two players: eight the same would be 1 in 30**7


def test_the_tables_own_choices_are_written(server):
    line = new_game(
        server,
        modules=["new_quests", "maya_calendar", "cursed_gems", "new_traps"],
        new_quests=["guardian"],
        maya_side="doomed",
        maya_bars=[2, 5],
        cursed_gems={"red": "gem-4", "blue": "gem-6"},
        beast_path=["key", "torch"],
    )
    assert line["new_quests"] == ["guardian"]
    assert (line["maya_side"], line["maya_bars"]) == ("doomed", [2, 5])
    assert line["cursed_gems"] == {"red": "gem-4", "blue": "gem-6"}
    assert line["beast_path"] == ["key", "torch"]
    state = server.get("/api/state")["game"]["state"]
    assert state["maya_calendar"]["side"] == "doomed"


def test_module_5s_draw_holds_a_queenie_quest_chamber_when_they_are_played(server):
    for count in (1, 2, 3):
        line = new_game(server, modules=["curses", "quests", "queenie_quests"], quest_count=count)
        assert len(line["quests"]) == count
        assert set(line["quests"]) & set(QUEENIE_QUESTS)
        assert set(line["quests"]) <= set(QUEENIE_QUESTS) | set(QUEST_NAMES)
    chosen = new_game(
        server, modules=["curses", "quests", "queenie_quests"], quests=["chaos", "altar"]
    )
    assert chosen["quests"] == ["chaos", "altar"]


def test_the_new_characters_cards_may_be_chosen(server):
    line = new_game(
        server,
        modules=["quests", "characters", "new_characters"],
        characters={"red": "trickster-swap", "blue": "void-runner-group"},
    )
    assert line["characters"] == {"red": "trickster-swap", "blue": "void-runner-group"}
    players = server.get("/api/state")["game"]["players"]
    assert players["blue"]["character"] == "void-runner-group"


@pytest.mark.parametrize(
    ("form", "says"),
    [
        ({"modules": ["new_quests"], "new_quests": ["riddle", "maze"]}, "'new_quests' must list"),
        ({"modules": ["maya_calendar"], "maya_side": "sideways"}, "eternal"),
        ({"modules": ["maya_calendar"], "maya_bars": [5, 2]}, "'maya_bars' must give"),
        ({"modules": ["cursed_gems"], "cursed_gems": {"red": "gem-1"}}, "every player one tile"),
        (
            {"modules": ["cursed_gems"], "cursed_gems": {"red": "gem-1", "blue": "gem-1"}},
            "one player only",
        ),
        ({"modules": ["new_traps"], "beast_path": ["dragon"]}, "'beast_path' must list"),
        ({"modules": ["curses"], "maya_side": "doomed"}, "tick that module"),
        (
            {"modules": ["quests", "characters"], "characters": {"red": "trickster-swap"}},
            "every player one card",
        ),
        (
            {
                "modules": ["quests", "characters"],
                "characters": {"red": "trickster-swap", "blue": "doc-heal"},
            },
            "unknown character card 'trickster-swap'",
        ),
        (
            {"modules": ["quests"], "quests": ["chaos", "altar"]},
            "'chaos' is not a quest chamber of the modules ticked",
        ),
        ({"modules": ["new_characters"]}, "add 'quests'"),
    ],
)
def test_a_bad_choice_is_refused_saying_what_to_fix(server, form, says):
    assert says in refused(server, **form)


# ----- the Maze's Time out holds the clock (Big Box page 30) ---------------------------------


def state(server: LiveServer) -> dict[str, Any]:
    answer: dict[str, Any] = server.get("/api/state")  # type: ignore[assignment]
    return answer


def until(condition: Any, what: str) -> Any:
    """Poll `condition` until it gives a true value (failing after WAIT_SECONDS)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)


def send(server: LiveServer, event: dict[str, Any]) -> dict[str, Any]:
    status, answer = server.send("/api/event", {"event": event})
    assert status == 200 and answer["verdict"]["ok"], answer
    return answer


def lines_of(server: LiveServer, kind: str) -> list[dict[str, Any]]:
    return [e["event"] for e in state(server)["log"] if e["event"]["type"] == kind]


def time_out_table(server: LiveServer) -> str:
    """A maze game whose clock runs, red holding the Time out; return its game id."""
    status, answer = server.send(
        "/api/games", {"players": ["red", "blue"], "modules": ["treasures", "maze"]}
    )
    assert status == 201, answer
    server.post("/api/clock", {"action": "start"})
    until(lambda: state(server)["clock"]["t"] >= 0, '"Escape!"')
    send(server, {"type": "discover", "player": "red", "tile": "ct-gem1-key-2", "cell": [0, 1]})
    send(server, {"type": "enter", "player": "red", "cell": [0, 1]})
    send(server, {"type": "claim", "player": "red", "treasure": "time_out"})
    return str(answer["game_id"])


def test_a_time_out_holds_the_clock_and_its_countdown_until_play_is_pressed(server):
    game_id = time_out_table(server)
    answer = send(server, {"type": "time_out", "player": "red", "phase": "start"})
    clock = answer["state"]["clock"]
    assert (clock["status"], clock["time_out"]) == ("paused", "red")
    held_at = clock["t"]
    assert held_at < SOON["countdowns"][0]["start"]  # type: ignore[index]
    # The soundtrack would have reached countdown 1 by now, were it not held.
    wall = time.monotonic()
    until(lambda: time.monotonic() - wall > 3.5, "3.5 s of wall time")
    now = state(server)
    assert now["clock"]["status"] == "paused" and now["clock"]["t"] == pytest.approx(held_at)
    assert not lines_of(server, "countdown_start")
    # The dashboard's own Resume does not end a Time out: the engine's action does.
    status, refusal = server.send("/api/clock", {"action": "resume"})
    assert status == 409 and "Red's Time out" in refusal["detail"]
    (play,) = [a for a in now["game"]["players"]["red"]["actions"] if a["action"] == "time_out"]
    assert play["event"] == {"type": "time_out", "phase": "end"}
    ended = send(server, play["event"])
    assert ended["state"]["clock"]["status"] == "running"
    assert ended["state"]["clock"]["time_out"] is None
    until(lambda: lines_of(server, "countdown_start"), "countdown 1 after the Time out")
    # The record: the clock went on from where it stopped.
    record = [
        json.loads(text)
        for text in (server.data_dir / "games" / f"{game_id}.jsonl").read_text().splitlines()
    ]
    start, end = [e for e in record if e["type"] == "time_out"]
    assert end["t"] == pytest.approx(start["t"], abs=0.02)
    (countdown,) = [e for e in record if e["type"] == "countdown_start"]
    assert countdown["t"] == SOON["countdowns"][0]["start"]  # type: ignore[index]
    replay = server.get(f"/api/games/{game_id}")
    assert all(verdict["ok"] for verdict in replay["verdicts"])  # type: ignore[index]


def test_an_undone_time_out_lets_the_clock_go_on(server):
    time_out_table(server)
    send(server, {"type": "time_out", "player": "red", "phase": "start"})
    assert state(server)["clock"]["status"] == "paused"
    status, answer = server.send("/api/undo", {})
    assert status == 200, answer
    assert answer["state"]["clock"]["status"] == "running"
    held = answer["state"]["clock"]["t"]
    until(lambda: state(server)["clock"]["t"] > held + 0.2, "the clock moving again")


def test_the_tables_own_pause_and_resume_still_work_in_a_maze_game(server):
    time_out_table(server)
    server.post("/api/clock", {"action": "pause"})
    paused = state(server)["clock"]
    assert paused["status"] == "paused" and paused["time_out"] is None
    wall = time.monotonic()
    until(lambda: time.monotonic() - wall > 0.3, "0.3 s of wall time")
    assert state(server)["clock"]["t"] == pytest.approx(paused["t"])
    answer = server.post("/api/clock", {"action": "resume"})
    assert answer["clock"]["status"] == "running"  # type: ignore[index]


def test_a_time_out_still_holds_the_clock_after_a_restart(start_server):
    port = free_port()
    first = start_server(SOON, port)
    time_out_table(first.server)
    send(first.server, {"type": "time_out", "player": "red", "phase": "start"})
    held_at = state(first.server)["clock"]["t"]
    first.stop()
    again = start_server(SOON, port).server
    clock = state(again)["clock"]
    assert (clock["status"], clock["time_out"]) == ("paused", "red")
    assert clock["t"] == pytest.approx(held_at, abs=0.05)
    status, refusal = again.send("/api/clock", {"action": "resume"})
    assert status == 409 and "Time out" in refusal["detail"]
    ended = send(again, {"type": "time_out", "phase": "end"})
    assert ended["state"]["clock"]["status"] == "running"
    until(lambda: lines_of(again, "countdown_start"), "countdown 1 after the Time out")
