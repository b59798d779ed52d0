"""`Game.check`: the verdict an event would get, the game left as it was (issue 21), over random
plausible games with any set of modules; and the copies it judges on share what cannot change."""

import copy
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_modules_properties import module_setup, snapshot

from rules.engine import Game
from rules.game_setup import KNOWN_MODULES
from rules.simulate import random_events


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    modules=st.lists(st.sampled_from(KNOWN_MODULES), unique=True, max_size=6),
    players=st.integers(1, 6),
)
def test_check_gives_the_verdict_apply_gives_and_changes_nothing(seed, modules, players):
    rng = random.Random(seed)
    setup = module_setup(rng, modules, players)
    game = Game.from_setup_line(setup)
    judge = Game.from_setup_line(setup)
    checked = 0
    for event in random_events(rng, game, 150, noise=0.25, seconds_per_event=2.0):
        before, lines = snapshot(judge), len(judge.lines)
        verdict = judge.check(event)
        assert snapshot(judge) == before and len(judge.lines) == lines
        assert judge.apply(event) == verdict, event
        checked += 1
    assert checked > 0


def test_a_copy_shares_the_tiles_and_the_setup_and_copies_what_play_changes():
    game = Game.from_setup_line(
        {"type": "setup", "players": ["red", "blue"], "modules": ["curses", "pit", "maze"]}
    )
    twin = game.copy()
    assert twin.setup is game.setup and twin.catalog is game.catalog
    assert twin.catalog["pit"] is game.catalog["pit"]
    assert twin.players["red"] is not game.players["red"]
    assert next(iter(twin.temple)) is not next(iter(game.temple))  # its gems may change
    assert copy.deepcopy(game.catalog["pit"]) is game.catalog["pit"]
