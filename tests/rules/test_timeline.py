"""The soundtrack timeline: the packaged default, validation, events and phases."""

from __future__ import annotations

import copy
import itertools
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.errors import RecordError
from rules.timeline import Countdown, Phase, Timeline, load_timeline, parse_timeline

VALID = {
    "intro_seconds": 12.0,
    "game_seconds": 600.0,
    "countdowns": [
        {"n": 1, "start": 180.0, "end": 215.0},
        {"n": 2, "start": 360.0, "end": 395.0},
        {"n": 3, "start": 565.0, "end": 600.0},
    ],
}

SHORT = Timeline(
    intro_seconds=3.0,
    game_seconds=40.0,
    countdowns=(Countdown(1, 5.0, 10.0), Countdown(2, 15.0, 20.0), Countdown(3, 30.0, 40.0)),
)


def edited(**changes):
    """Return a copy of VALID with top-level fields replaced (None deletes a field)."""
    data = copy.deepcopy(VALID)
    for key, value in changes.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    return data


def with_countdown(index, **changes):
    """Return a copy of VALID with fields of one countdown replaced (None deletes a field)."""
    data = copy.deepcopy(VALID)
    for key, value in changes.items():
        if value is None:
            del data["countdowns"][index][key]
        else:
            data["countdowns"][index][key] = value
    return data


def test_the_packaged_timeline_is_the_design_default():
    timeline = load_timeline()
    assert timeline == Timeline()
    assert timeline.intro_seconds == 12.0
    assert timeline.game_seconds == 600.0
    assert [(c.n, c.start, c.end) for c in timeline.countdowns] == [
        (1, 180.0, 215.0),
        (2, 360.0, 395.0),
        (3, 565.0, 600.0),
    ]


def test_to_json_round_trips_through_a_file(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(SHORT.to_json()), encoding="utf-8")
    assert load_timeline(path) == SHORT
    assert load_timeline(str(path)).to_json() == SHORT.to_json()
    assert parse_timeline(Timeline().to_json()) == Timeline()


def test_whole_numbers_are_taken_as_seconds():
    data = edited(intro_seconds=0, game_seconds=600)
    data["countdowns"][2]["end"] = 600
    timeline = parse_timeline(data)
    assert timeline.intro_seconds == 0.0
    assert isinstance(timeline.game_seconds, float)
    assert timeline.to_json()["countdowns"][2] == {"n": 3, "start": 565.0, "end": 600.0}


def test_countdowns_may_be_listed_in_any_order():
    data = copy.deepcopy(VALID)
    data["countdowns"].reverse()
    assert parse_timeline(data) == Timeline()


@pytest.mark.parametrize(
    ("data", "named"),
    [
        (edited(intro_seconds=-1), "'intro_seconds'"),
        (edited(intro_seconds="12"), "'intro_seconds'"),
        (edited(intro_seconds=True), "'intro_seconds'"),
        (edited(intro_seconds=math.inf), "'intro_seconds'"),
        (edited(game_seconds=0), "'game_seconds'"),
        (edited(game_seconds=math.nan), "'game_seconds'"),
        (edited(game_seconds=None), "'game_seconds'"),
        (edited(countdowns=None), "'countdowns'"),
        (edited(intro=12.0), "'intro'"),
        (edited(countdowns="soon"), "'countdowns'"),
        (edited(countdowns=VALID["countdowns"][:2]), "countdown 2 'end'"),
        (edited(countdowns=VALID["countdowns"] * 3), "'countdowns'"),
        (edited(countdowns=[*VALID["countdowns"][:2], 3]), "'countdowns[2]'"),
        (with_countdown(2, n=1), "'countdowns'"),
        (with_countdown(0, n=7), "'n'"),
        (with_countdown(0, n=4), "'countdowns'"),
        (with_countdown(0, n="1"), "'n'"),
        (with_countdown(1, start=None), "'start'"),
        (with_countdown(1, finish=395.0), "'finish'"),
        (with_countdown(0, start=-5.0), "countdown 1 'start'"),
        (with_countdown(0, start=0.0), "countdown 1 'start'"),
        (with_countdown(0, end="215"), "countdown 1 'end'"),
        (with_countdown(1, start=395.0), "countdown 2 'start'"),
        (with_countdown(1, start=200.0), "countdown 2 'start'"),
        (with_countdown(1, end=700.0), "countdown 2 'end'"),
        (with_countdown(2, end=590.0), "countdown 3 'end'"),
        (edited(game_seconds=620.0), "countdown 3 'end'"),
        ([], "JSON object"),
    ],
)
def test_each_bad_field_is_named(data, named):
    with pytest.raises(RecordError, match=r"^timeline: ") as caught:
        parse_timeline(data)
    assert named in str(caught.value)


def test_a_bad_file_is_named_with_its_path(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"intro_seconds": 12.0,\n "game_seconds": }', encoding="utf-8")
    with pytest.raises(RecordError, match="not valid JSON \\(line 2") as caught:
        load_timeline(path)
    assert str(path) in str(caught.value)
    path.write_text(json.dumps(with_countdown(2, end=590.0)), encoding="utf-8")
    with pytest.raises(RecordError, match="countdown 3 'end'") as caught:
        load_timeline(path)
    assert str(caught.value).startswith(str(path))


def test_a_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_timeline(tmp_path / "absent.json")


def test_constructing_an_invalid_timeline_raises():
    with pytest.raises(RecordError, match=r"countdown 1 'end' .* after the end of the game"):
        Timeline(game_seconds=40.0)
    with pytest.raises(RecordError, match="countdown 2 'start'"):
        Countdown(2, 10.0, 5.0)
    with pytest.raises(RecordError, match="1 to N once each"):
        Timeline(countdowns=(Countdown(1, 5.0, 10.0), Countdown(3, 565.0, 600.0)))
    with pytest.raises(RecordError, match="must equal 'game_seconds'"):
        Timeline(countdowns=(Countdown(1, 5.0, 10.0),))


def test_events_are_the_game_records_in_time_order():
    assert Timeline().events_between(0.0, 600.0) == [
        {"type": "countdown_start", "n": 1, "t": 180.0},
        {"type": "countdown_end", "n": 1, "t": 215.0},
        {"type": "countdown_start", "n": 2, "t": 360.0},
        {"type": "countdown_end", "n": 2, "t": 395.0},
        {"type": "countdown_start", "n": 3, "t": 565.0},
        {"type": "collapse", "t": 600.0},
    ]


def test_events_between_takes_the_end_and_leaves_the_start_of_the_interval():
    timeline = Timeline()
    assert timeline.events_between(0.0, 179.9) == []
    assert timeline.events_between(179.9, 180.0) == [
        {"type": "countdown_start", "n": 1, "t": 180.0}
    ]
    assert timeline.events_between(180.0, 214.9) == []
    assert [e["type"] for e in timeline.events_between(180.0, 215.0)] == ["countdown_end"]
    assert timeline.events_between(599.0, 600.0) == [{"type": "collapse", "t": 600.0}]
    assert timeline.events_between(600.0, 10_000.0) == []
    assert timeline.events_between(300.0, 200.0) == []
    assert timeline.events_between(215.0, 215.0) == []


def test_an_end_comes_before_a_start_at_the_same_moment():
    touching = Timeline(
        game_seconds=40.0,
        countdowns=(Countdown(1, 5.0, 10.0), Countdown(2, 10.0, 20.0), Countdown(3, 20.0, 40.0)),
    )
    assert [(e["type"], e.get("n")) for e in touching.events_between(9.0, 10.0)] == [
        ("countdown_end", 1),
        ("countdown_start", 2),
    ]


@given(st.lists(st.floats(min_value=-20.0, max_value=700.0), max_size=12))
def test_consecutive_intervals_deliver_every_event_once(cuts):
    timeline = Timeline()
    points = [-30.0, *sorted(cuts), 700.0]
    delivered = [
        event for t0, t1 in itertools.pairwise(points) for event in timeline.events_between(t0, t1)
    ]
    assert delivered == timeline.events_between(-30.0, 700.0)
    assert [event["t"] for event in delivered] == sorted(event["t"] for event in delivered)


def test_phase_in_the_intro_between_and_during_countdowns():
    timeline = Timeline()
    assert timeline.phase_at(-5.0) == Phase(None, None, 600.0, over=False)
    assert timeline.phase_at(0.0) == Phase(None, None, 600.0, over=False)
    assert timeline.phase_at(100.0) == Phase(None, None, 500.0, over=False)
    assert timeline.phase_at(180.0) == Phase(1, 35.0, 420.0, over=False)
    assert timeline.phase_at(200.0) == Phase(1, 15.0, 400.0, over=False)
    assert timeline.phase_at(215.0) == Phase(None, None, 385.0, over=False)
    assert timeline.phase_at(380.0) == Phase(2, 15.0, 220.0, over=False)
    assert timeline.phase_at(590.0) == Phase(3, 10.0, 10.0, over=False)


def test_phase_at_and_after_the_collapse_is_over():
    timeline = Timeline()
    assert timeline.phase_at(600.0) == Phase(None, None, 0.0, over=True)
    assert timeline.phase_at(650.0) == Phase(None, None, 0.0, over=True)


def test_audio_and_game_clock_are_offset_by_the_intro():
    assert SHORT.audio_seconds(0.0) == 3.0
    assert SHORT.game_clock(8.0) == 5.0
    assert SHORT.total_seconds == 43.0
    assert SHORT.countdown(2) == Countdown(2, 15.0, 20.0)
