"""The engine never half-applies an event: a line withdrawn after a failed save leaves the game
as it was, and an unexpected failure inside a handler is a rejected verdict (issue 18)."""

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.engine import Game
from rules.event_fields import MAX_WHOLE
from rules.record import replay_lines
from rules.simulate import nonsense_event, random_events, random_setup


def played(seed: int, steps: int) -> tuple[Game, list]:
    """A random plausible game of `steps` events, and its events."""
    rng = random.Random(seed)
    setup = random_setup(rng)
    game = Game.from_setup_line(setup)
    events = list(random_events(rng, game, steps, noise=0.2))
    return game, [setup, *events]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 60), kind=st.integers(0, 3))
def test_a_withdrawn_line_leaves_the_game_exactly_as_before(seed, steps, kind):
    game, lines = played(seed, steps)
    before = json.dumps(game.state_json(), sort_keys=True)
    before_lines = [(j.line, j.verdict, j.undone_by, j.corrected_by) for j in game.lines]
    rng = random.Random(seed + 1)
    last = game.lines[-1].line if game.lines else 1
    candidates = [
        nonsense_event(rng, game),
        {"type": "undo"},
        {"type": "correct", "line": rng.randint(2, max(2, last)), "event": None},
        {"type": "turn_of_fate"},
    ]
    number = game.next_line
    game.apply(candidates[kind], number)
    game.withdraw(number)
    assert json.dumps(game.state_json(), sort_keys=True) == before
    assert [(j.line, j.verdict, j.undone_by, j.corrected_by) for j in game.lines] == before_lines
    assert game.next_line == number
    # and the game goes on as the record without that line does
    replayed = replay_lines([json.dumps(line) for line in lines]).game
    assert replayed.state_json() == game.state_json()


def test_withdraw_takes_back_only_the_last_line():
    game = Game.from_setup_line({"type": "setup", "players": ["red"], "track_dice": False})
    game.apply({"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1]})
    game.apply({"type": "enter", "player": "red", "cell": [0, 1]})
    with pytest.raises(ValueError, match="not the last line"):
        game.withdraw(2)
    game.withdraw(3)
    assert game.players["red"].cell == (0, 0)


def test_a_failure_inside_a_handler_is_a_rejection_that_changes_nothing(monkeypatch):
    game = Game.from_setup_line({"type": "setup", "players": ["red"], "track_dice": False})
    assert game.apply({"type": "discover", "player": "red", "tile": "exit", "cell": [0, 1]}).ok
    before = game.state_json()
    moved = Game._enter

    def half_then_fail(self, event):  # a bug: the state changed, then the handler failed
        moved(self, event)
        self.depot -= 3
        raise KeyError("a bug")

    monkeypatch.setattr(Game, "_enter", half_then_fail)
    verdict = game.apply({"type": "enter", "player": "red", "cell": [0, 1]})
    monkeypatch.setattr(Game, "_enter", moved)
    assert not verdict.ok and "the rules engine could not judge this event" in verdict.reason
    assert game.state_json() == before
    assert game.apply({"type": "enter", "player": "red", "cell": [0, 1]}).ok
    assert [j.line for j in game.lines] == [2, 3, 4]


@pytest.mark.parametrize(
    ("event", "words"),
    [
        ({"type": "curse", "player": "red", "card": []}, "'card' must be an id"),
        ({"type": "lift", "player": "red", "card": {}}, "'card' must be an id"),
        ({"type": "claim", "player": "red", "treasure": [1]}, "'treasure' must be an id"),
        ({"type": "use", "player": "red", "treasure": {}}, "'treasure' must be an id"),
        ({"type": "enter", "player": "red", "cell": [MAX_WHOLE + 1, 0]}, "at most 1,000,000"),
        ({"type": "unlock", "player": "red", "count": -(10**400)}, "at most 1,000,000"),
    ],
)
def test_fields_of_the_wrong_kind_are_rejected_before_any_handler(event, words):
    setup = {"type": "setup", "players": ["red"], "modules": ["curses", "treasures"]}
    game = Game.from_setup_line(setup)
    verdict = game.apply(event)
    assert not verdict.ok and words in verdict.reason
    assert len(verdict.reason) < 200
