"""Timer options: the timeline each makes, its properties, seeds, records that carry it."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.engine import Game
from rules.errors import RecordError
from rules.timeline import MAX_COUNTDOWNS, Timeline, parse_timeline
from rules.timer_options import (
    MAX_COUNTDOWN_SECONDS,
    MAX_MINUTES,
    MIN_COUNTDOWN_SECONDS,
    MIN_FIRST_DELAY_SECONDS,
    MIN_GAP_SECONDS,
    MIN_MINUTES,
    PRACTICE,
    TimerOptions,
    needed_seconds,
    parse_timer,
    timer_problem,
    timer_timeline,
)

options = st.builds(
    TimerOptions,
    minutes=st.integers(MIN_MINUTES, MAX_MINUTES),
    countdowns=st.integers(1, MAX_COUNTDOWNS),
    countdown_seconds=st.integers(MIN_COUNTDOWN_SECONDS, MAX_COUNTDOWN_SECONDS),
    first_delay_seconds=st.integers(MIN_FIRST_DELAY_SECONDS, 40 * 60),
    random=st.booleans(),
    seed=st.integers(0, 2**31 - 1),
)
fitting = options.filter(lambda o: timer_problem(o) is None)


@settings(max_examples=300, deadline=None)
@given(fitting)
def test_every_fitting_choice_makes_the_timeline_it_describes(chosen):
    timeline = timer_timeline(chosen, intro_seconds=12.0)
    game = chosen.minutes * 60
    assert timeline.game_seconds == game
    assert [c.n for c in timeline.countdowns] == list(range(1, chosen.countdowns + 1))
    assert all(c.end - c.start == chosen.countdown_seconds for c in timeline.countdowns)
    assert timeline.countdowns[-1].end == game  # the last ends with the collapse
    for before, after in itertools.pairwise(timeline.countdowns):
        assert after.start - before.end >= MIN_GAP_SECONDS
    if chosen.countdowns > 1:
        assert timeline.countdowns[0].start >= chosen.first_delay_seconds
    assert all(c.start == int(c.start) for c in timeline.countdowns)  # whole seconds
    # What the file format writes, it reads back as the same timeline.
    assert parse_timeline(timeline.to_json()) == timeline
    assert timeline.events()[-1] == {"type": "collapse", "t": float(game)}
    ends = [e["n"] for e in timeline.events() if e["type"] == "countdown_end"]
    assert ends == list(range(1, chosen.countdowns))


@settings(max_examples=200, deadline=None)
@given(options.filter(lambda o: timer_problem(o) is not None))
def test_a_choice_that_does_not_fit_is_refused_with_its_reason(chosen):
    problem = timer_problem(chosen)
    assert needed_seconds(chosen) > chosen.minutes * 60
    assert "need a game of at least" in problem
    with pytest.raises(RecordError, match="need a game of at least"):
        timer_timeline(chosen)


@settings(max_examples=100, deadline=None)
@given(fitting.filter(lambda o: o.random))
def test_random_times_come_again_from_the_same_seed(chosen):
    assert timer_timeline(chosen) == timer_timeline(TimerOptions(**chosen.to_json()))


def test_random_times_differ_from_seed_to_seed():
    roomy = TimerOptions(minutes=30, countdowns=4, countdown_seconds=30, random=True)
    made = {
        timer_timeline(TimerOptions(**{**roomy.to_json(), "seed": seed})).countdowns
        for seed in range(20)
    }
    assert len(made) >= 15
    for countdowns in made:  # the last one is never random: it ends with the collapse
        assert (countdowns[-1].start, countdowns[-1].end) == (1770.0, 1800.0)


def test_fixed_times_are_spread_evenly_from_the_delay():
    timeline = timer_timeline(TimerOptions(minutes=12, countdowns=4, first_delay_seconds=120))
    starts = [c.start for c in timeline.countdowns]
    steps = {b - a for a, b in itertools.pairwise(starts)}
    assert starts[0] == 120
    assert max(steps) - min(steps) <= 3  # whole seconds: the last step takes the remainder


def test_random_needs_a_seed_and_practice_is_a_longer_game():
    with pytest.raises(RecordError, match="'seed'"):
        timer_timeline(TimerOptions(random=True))
    practice = timer_timeline(PRACTICE)
    assert practice.game_seconds > Timeline().game_seconds
    assert PRACTICE.practice and not PRACTICE.random


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("minutes", 4),
        ("minutes", 46),
        ("minutes", 10.5),
        ("countdowns", 0),
        ("countdowns", MAX_COUNTDOWNS + 1),
        ("countdown_seconds", 5),
        ("first_delay_seconds", 0),
        ("random", "yes"),
        ("seed", -1),
    ],
)
def test_each_bad_option_is_named(field, value):
    with pytest.raises(RecordError, match=f"'{field}'"):
        parse_timer({field: value})


def test_an_unknown_option_is_named():
    with pytest.raises(RecordError, match="unknown 'length'"):
        parse_timer({"length": 12})


def setup_with(**fields):
    return {"type": "setup", "players": ["red", "blue"], "track_dice": False, **fields}


def test_the_engine_follows_the_games_own_countdowns():
    chosen = TimerOptions(minutes=8, countdowns=5, countdown_seconds=20, random=True, seed=11)
    timeline = timer_timeline(chosen)
    game = Game.from_setup_line(setup_with(timer=chosen.to_json(), timeline=timeline.to_json()))
    assert game.setup.timeline == timeline
    assert game.apply({"type": "countdown_start", "n": 5}).ok
    assert game.apply({"type": "countdown_end", "n": 4}).ok
    refused = game.apply({"type": "countdown_end", "n": 5})
    assert not refused.ok and "1 or 2 or 3 or 4" in refused.reason
    one = Game.from_setup_line(setup_with(timer={"countdowns": 1, "minutes": 5}))
    assert "no door slams" in one.apply({"type": "countdown_end", "n": 1}).reason
    official = Game.from_setup_line(setup_with())  # no timer: the official countdowns, as ever
    assert official.setup.timeline is None
    assert official.apply({"type": "countdown_start", "n": 4}).reason == (
        "'n' must be 1 or 2 or 3 for countdown_start"
    )


def test_a_bad_timeline_in_a_setup_is_a_setup_error():
    bad = Timeline().to_json()
    bad["countdowns"][2]["end"] = 590.0
    with pytest.raises(RecordError, match="the setup's 'timeline': countdown 3 'end'"):
        Game.from_setup_line(setup_with(timeline=bad))
    with pytest.raises(RecordError, match="the setup's 'timer'"):
        Game.from_setup_line(setup_with(timer={"minutes": 50}))


def replay(path):
    """Run `templecam replay FILE --json` as a table would."""
    done = subprocess.run(
        [sys.executable, "-m", "templecam", "replay", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_record_with_random_times_replays_with_its_own_timeline(tmp_path):
    chosen = TimerOptions(minutes=7, countdowns=4, countdown_seconds=25, random=True, seed=2024)
    timeline = timer_timeline(chosen)
    setup = setup_with(timer=chosen.to_json(), timeline=timeline.to_json())
    clock = timeline.events()  # what the dashboard's clock wrote as the soundtrack got there
    moves = [{"type": "enter", "player": "red", "cell": [1, 0], "t": 1.0}]
    setup["temple"] = [
        {"tile": "start", "cell": [0, 0], "stairs": "S"},
        {"tile": "chamber-3", "cell": [1, 0], "stairs": "W"},
    ]
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in [setup, *moves, *clock]) + "\n")
    result = replay(path)
    assert all(verdict["ok"] for verdict in result["verdicts"]), result["verdicts"]
    assert result["state"]["outcome"] == "lost"
    # Red stood outside the start at each of the 3 door slams: 3 dice lost.
    assert result["state"]["players"]["red"]["dice"] == 5 - 3
    assert result["state"]["players"]["blue"]["dice"] == 5
    # The same events under the official timeline: countdown 4 does not exist there.
    official = tmp_path / "official.jsonl"
    official.write_text(
        "\n".join(json.dumps(line) for line in [setup_with(), *clock]) + "\n", encoding="utf-8"
    )
    refused = [v for v in replay(official)["verdicts"] if not v["ok"]]
    assert refused and "'n' must be 1 or 2" in refused[0]["reason"]


def test_a_record_with_only_its_timer_options_replays_their_timeline(tmp_path):
    chosen = TimerOptions(minutes=6, countdowns=2, countdown_seconds=30, first_delay_seconds=60)
    timeline = timer_timeline(chosen)
    path = tmp_path / "game.jsonl"
    lines = [setup_with(timer=chosen.to_json()), *timeline.events()]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    result = replay(path)
    assert [v["ok"] for v in result["verdicts"]] == [True] * len(timeline.events())
    assert result["state"]["outcome"] == "lost"
