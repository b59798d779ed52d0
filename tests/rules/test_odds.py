"""Exact odds, checked against a brute-force enumeration of every face of every die."""

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.odds import (
    as_need,
    chance_at_least,
    chance_in_one_roll,
    expected_rolls,
    expected_rolls_to_complete,
    roll_odds,
)

DIE = ["adventurer", "adventurer", "key", "torch", "golden_mask", "black_mask"]


def brute_force_chance(dice, need):
    hits = 0
    for faces in itertools.product(DIE, repeat=dice):
        shown = Counter(faces)
        hits += all(shown[icon] >= n for icon, n in need.items())
    return Fraction(hits, 6**dice)


@pytest.mark.parametrize("dice", range(0, 6))
@pytest.mark.parametrize(
    "need",
    [
        {"key": 1},
        {"adventurer": 2},
        {"key": 3},
        {"adventurer": 1, "key": 1},
        {"torch": 2, "key": 1},
    ],
)
def test_one_roll_chance_matches_brute_force(dice, need):
    assert chance_in_one_roll(dice, as_need(need)) == brute_force_chance(dice, need)


def test_known_values():
    assert chance_at_least(1, 1, "key") == Fraction(1, 6)
    assert chance_at_least(1, 1, "adventurer") == Fraction(1, 3)
    assert chance_at_least(5, 0, "key") == 1
    assert chance_at_least(2, 3, "key") == 0
    assert expected_rolls(1, 1, "key") == 6  # geometric with p = 1/6
    assert expected_rolls(3, 1, "adventurer") == 1 / (1 - Fraction(2, 3) ** 3)
    assert expected_rolls(4, 5, "key") is None  # not enough dice, ever
    assert expected_rolls(5, 0, "key") == 0


def test_expected_rolls_for_two_dice_both_keys_by_first_step_analysis():
    # From 0 kept: stay with 25/36, reach 1 kept with 10/36, done with 1/36.
    # From 1 kept: one die, 6 rolls on average.
    e1 = Fraction(6)
    e0 = (1 + Fraction(10, 36) * e1) / (1 - Fraction(25, 36))
    assert expected_rolls(2, 2, "key") == e0


def simulate_rolls(dice, need, rng, trials):
    total = 0
    for _ in range(trials):
        kept, rolls = Counter(), 0
        while any(kept[i] < n for i, n in need.items()):
            rolls += 1
            for face in rng.choices(DIE, k=dice - sum(kept.values())):
                if kept[face] < need.get(face, 0):
                    kept[face] += 1
        total += rolls
    return total / trials


def test_expected_rolls_agree_with_a_simulation_of_keeping_dice():
    import random

    rng = random.Random(5)
    need = {"adventurer": 1, "key": 2}
    exact = float(expected_rolls_to_complete(5, as_need(need)))
    assert simulate_rolls(5, need, rng, 20000) == pytest.approx(exact, rel=0.03)


@settings(max_examples=60, deadline=None)
@given(dice=st.integers(0, 7), n=st.integers(0, 7), icon=st.sampled_from(DIE[1:]))
def test_more_dice_never_lower_the_odds(dice, n, icon):
    assert chance_at_least(dice + 1, n, icon) >= chance_at_least(dice, n, icon)
    assert chance_at_least(dice, n + 1, icon) <= chance_at_least(dice, n, icon)
    more, fewer = expected_rolls(dice + 1, n, icon), expected_rolls(dice, n, icon)
    if fewer is not None:
        assert more is not None and more <= fewer


def test_roll_odds_gives_floats_for_the_dashboard():
    chance, rolls = roll_odds(5, as_need({"adventurer": 2}))
    assert chance == pytest.approx(float(brute_force_chance(5, {"adventurer": 2})))
    assert rolls == pytest.approx(float(expected_rolls(5, 2, "adventurer")))
    assert roll_odds(2, as_need({"key": 3})) == (0.0, None)
    assert roll_odds(2, ()) == (1.0, 0.0)
