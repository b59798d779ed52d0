"""Invariants over random legal games (hypothesis): nothing is created, lost or broken."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.engine import Game
from rules.simulate import random_events, random_setup


def gem_total(game):
    return game.depot + game.gems_on_chambers + game.spare


def snapshot(game):
    return (
        game.state_json(),
        {pid: (dict(p.showing), p.rolled, p.gave_die) for pid, p in game.players.items()},
        game.turns_of_fate_used,
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 6), noise=st.floats(0, 0.5))
def test_invariants_hold_after_every_event(seed, players, noise):
    rng = random.Random(seed)
    setup = random_setup(rng, players)
    game = Game.from_setup_line(setup)
    judge = Game.from_setup_line(setup)  # replays each event to check its verdict's effect
    total = gem_total(game)
    for event in random_events(rng, game, 400, noise=noise):
        before = snapshot(judge)
        verdict = judge.apply(event)
        if not verdict.ok:
            assert verdict.reason
            assert snapshot(judge) == before, f"rejected {event} changed the state"
        assert gem_total(judge) == total, f"gems created or lost by {event}"
        for player in judge.players.values():
            assert player.dice >= 0
            assert 0 <= player.locked <= player.dice
            assert all(n > 0 for n in player.showing.values())
            assert sum(player.showing.values()) + player.locked <= player.dice
            assert (player.cell is None) == player.escaped
        assert judge.keys_to_escape == judge.depot + 1
        assert judge.depot >= 0 and judge.spare >= 0
        assert judge.outcome != "won" or all(p.escaped for p in judge.players.values())
    assert judge.state_json() == game.state_json()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_after_the_end_every_event_is_rejected(seed):
    rng = random.Random(seed)
    game = Game.from_setup_line(random_setup(rng))
    list(random_events(rng, game, 3000, noise=0.05, seconds_per_event=1.0))
    assert game.outcome in ("won", "lost")
    for event in (
        {"type": "turn_of_fate"},
        {"type": "collapse"},
        {"type": "countdown_start", "n": 1},
    ):
        verdict = game.apply(event)
        assert not verdict.ok and "game is over" in verdict.reason
