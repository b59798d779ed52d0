"""The soundtrack of a timeline the timer options made: every gong and door slam where that
timeline says, heard with numpy (the onsets of the rendered audio)."""

from __future__ import annotations

import pytest
from test_soundtrack import TOLERANCE, Listener

from rules.timer_options import TimerOptions, timer_timeline
from server.soundtrack import render_soundtrack, soundtrack_markers

RATE = 22050
CHOSEN = TimerOptions(
    minutes=5, countdowns=5, countdown_seconds=12, first_delay_seconds=20, random=True, seed=5
)


@pytest.fixture(scope="module")
def timeline():
    return timer_timeline(CHOSEN, intro_seconds=2.0)


@pytest.fixture(scope="module")
def listener(timeline):
    return Listener(render_soundtrack(timeline, RATE), RATE)


def test_every_countdown_sounds_where_the_chosen_timeline_puts_it(timeline, listener):
    markers = soundtrack_markers(timeline)
    assert sum(m.kind == "door_slam" for m in markers) == CHOSEN.countdowns - 1
    assert sum(m.kind == "gong" for m in markers) == sum(range(1, CHOSEN.countdowns + 1))
    for countdown in timeline.countdowns:
        start = timeline.audio_seconds(countdown.start)
        when, strength = listener.strongest(start, within=0.3)
        assert abs(when - start) <= TOLERANCE, f"countdown {countdown.n}'s gong"
        # Nothing in the quiet second before the gong comes near it.
        _, before = listener.window(start - 1.2, start - 0.2)
        assert before.max() < 0.5 * strength
        if countdown.n < timeline.last_countdown:
            slam = timeline.audio_seconds(countdown.end)
            when, _ = listener.strongest(slam, within=0.3)
            assert abs(when - slam) <= TOLERANCE, f"countdown {countdown.n}'s door slam"


def test_the_gongs_count_the_countdowns(timeline, listener):
    for countdown in timeline.countdowns:
        start = timeline.audio_seconds(countdown.start)
        strikes = listener.onsets(start - 0.1, start + 0.8 * countdown.n - 0.3, fraction=0.5)
        assert len(strikes) == countdown.n, f"countdown {countdown.n}: {strikes}"
