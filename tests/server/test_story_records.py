"""The story told from saved records (server/story.py): countdowns and who made it back, dice
lost at the slam, corrections, and random games replayed by the real engine."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from rules.engine import Game
from rules.errors import RecordError
from rules.narrative import slam_losers
from rules.record import replay_lines
from rules.simulate import random_events, random_setup
from server.story import game_story
from server.story_image import story_picture

SETUP = {
    "type": "setup",
    "players": ["red", "blue", "green"],
    "track_dice": False,
    "temple": [
        {"tile": "start", "cell": [0, 0], "stairs": "S"},
        {"tile": "gem3-key-1", "cell": [1, 0], "stairs": "W"},
    ],
}
SLAM_GAME = [
    {"type": "enter", "player": "blue", "cell": [1, 0], "t": 5.0},
    {"type": "enter", "player": "green", "cell": [1, 0], "t": 6.0},
    {"type": "activate", "cell": [1, 0], "gems": 2, "players": ["blue", "green"], "t": 20.0},
    {"type": "countdown_start", "n": 1, "t": 180.0},
    {"type": "enter", "player": "blue", "cell": [0, 0], "t": 190.0},
    {"type": "countdown_end", "n": 1, "t": 215.0},
    {"type": "countdown_start", "n": 3, "t": 565.0},
    {"type": "collapse", "t": 600.0},
]


def lines(*events: Any, setup: dict[str, Any] = SETUP) -> list[str]:
    return [json.dumps(setup), *(json.dumps(event) for event in events)]


def test_a_countdown_says_who_ran_who_made_it_back_and_who_lost_a_die() -> None:
    story = game_story("20260101-000000-aaaa", lines(*SLAM_GAME))
    first, last = story["countdowns"]
    assert first == {
        "n": 1,
        "start": 180.0,
        "end": 215.0,
        "ran": ["blue", "green"],
        "back": ["blue"],
        "caught": ["green"],
        "collapse": False,
    }
    assert last["n"] == 3 and last["end"] == 600.0 and last["collapse"]
    assert last["caught"] == ["red", "blue", "green"] and last["back"] == []
    assert story["dice"]["green"] == [[0.0, 5], [215.0, 4], [600.0, 4]]
    assert story["dice"]["blue"] == [[0.0, 5], [600.0, 5]]
    slam = next(m for m in story["moments"] if m["kind"] == "slam")
    assert slam == {
        "line": 7,
        "t": 215.0,
        "kind": "slam",
        "text": "The door slams: Green loses a die",
    }
    assert story["moments"][-1]["kind"] == "collapse"
    assert story["moments"][-1]["text"] == "The temple collapses with Red, Blue and Green inside"
    seconds = {tuple(tile["cell"]): tile["seconds"] for tile in story["temple"]}
    assert seconds[(1, 0)] == {"red": 0.0, "blue": 185.0, "green": 594.0}
    assert seconds[(0, 0)] == {"red": 600.0, "blue": 415.0, "green": 6.0}
    assert story["depot"] == [[0.0, 11], [20.0, 9], [600.0, 9]]


def test_the_story_follows_corrections_and_undos_as_the_record_stands() -> None:
    corrected = [
        *SLAM_GAME[:3],
        {"type": "correct", "line": 4, "event": {**SLAM_GAME[2], "gems": 3}, "t": 30.0},
        {"type": "enter", "player": "red", "cell": [1, 0], "t": 40.0},
        {"type": "undo", "t": 41.0},
    ]
    story = game_story("20260101-000000-aaaa", lines(*corrected))
    assert story["depot"] == [[0.0, 11], [20.0, 8], [41.0, 8]]
    assert [event["line"] for event in story["events"]] == [2, 3, 4]
    assert story["events"][-1]["text"].startswith("Blue and Green activate 3 gems")


def test_a_record_that_cannot_be_replayed_is_a_record_error() -> None:
    with pytest.raises(RecordError, match="line 2 is not valid JSON"):
        game_story("20260101-000000-aaaa", [json.dumps(SETUP), "{not json"])
    with pytest.raises(RecordError, match="empty"):
        game_story("20260101-000000-aaaa", [])


@pytest.mark.parametrize("seed", range(6))
def test_random_games_end_their_curves_where_the_engine_ends_them(seed: int) -> None:
    rng = random.Random(seed)
    setup = random_setup(rng)
    game = Game.from_setup_line(setup)
    events = list(random_events(rng, game, 900, seconds_per_event=0.8))
    record = lines(*events, setup=setup)
    story = game_story("20260101-000000-aaaa", record)
    final = replay_lines(record).game
    state = final.state_json()
    assert story["depot"][-1][1] == state["depot"]
    assert all(b[0] >= a[0] for a, b in zip(story["depot"], story["depot"][1:], strict=False))
    for pid, player in state["players"].items():
        assert story["dice"][pid][-1][1] == player["dice"]
    losers = slam_losers(final)
    slams = [m for m in story["moments"] if m["kind"] == "slam"]
    assert len(slams) == len(losers)
    for (n, pids), cd in zip(sorted(losers.items()), story["countdowns"], strict=False):
        assert cd["n"] == n and cd["caught"] == pids
    escaped_at = {
        e["text"].split()[0].lower(): e["t"] for e in story["events"] if e["kind"] == "escape"
    }
    for pid in state["players"]:
        spent = sum(tile["seconds"][pid] for tile in story["temple"])
        assert spent == pytest.approx(escaped_at.get(pid, story["duration"]), abs=0.05)
    assert sum(story["per_minute"]["rolls"]) == sum(e["kind"] == "dice" for e in story["events"])


def test_the_last_of_five_countdowns_is_the_collapse_in_the_story() -> None:
    five = [
        {"type": "countdown_start", "n": 4, "t": 300.0},
        {"type": "countdown_end", "n": 4, "t": 330.0},
        {"type": "countdown_start", "n": 5, "t": 570.0},
        {"type": "collapse", "t": 600.0},
    ]
    timeline = {
        "intro_seconds": 0.0,
        "game_seconds": 600.0,
        "countdowns": [
            {"n": n, "start": start, "end": start + 30.0}
            for n, start in enumerate((60.0, 150.0, 240.0, 300.0, 570.0), start=1)
        ],
    }
    story = game_story("20260101-000000-aaab", lines(*five, setup={**SETUP, "timeline": timeline}))
    assert [(cd["n"], cd["collapse"]) for cd in story["countdowns"]] == [(4, False), (5, True)]
    assert story["moments"][-1]["kind"] == "collapse"
    assert story_picture(story).height > 1000  # drawn with countdown 5 as the collapse
