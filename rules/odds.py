"""Exact dice odds: one roll's chance of showing what is needed, and the expected rolls to get it.

Each die shows an adventurer on two faces and every other icon on one. The model rerolls every
die that does not match a still-missing icon and keeps the ones that do; it leaves curses out
(a black mask is just a miss), so the figures are the odds of the dice alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from functools import lru_cache

from rules.vocabulary import FACE_CHANCE_IN_SIXTHS

Need = tuple[tuple[str, int], ...]
"""A sorted, hashable multiset of icons: `(("adventurer", 1), ("key", 2))`."""


def as_need(icons: Mapping[str, int]) -> Need:
    """Turn a mapping of icon counts into the hashable `Need` form, dropping zero counts."""
    return tuple(sorted((icon, n) for icon, n in icons.items() if n > 0))


def face_chance(icon: str) -> Fraction:
    """Return the chance that one die shows `icon`."""
    return Fraction(FACE_CHANCE_IN_SIXTHS[icon], 6)


def chance_at_least(dice: int, n: int, icon: str) -> Fraction:
    """Return the exact chance that one roll of `dice` dice shows at least `n` of `icon`."""
    return chance_in_one_roll(dice, ((icon, n),)) if n > 0 else Fraction(1)


def expected_rolls(dice: int, n: int, icon: str) -> Fraction | None:
    """Return the expected rolls to show `n` of `icon` when matching dice are kept (None: never)."""
    return expected_rolls_to_complete(dice, ((icon, n),)) if n > 0 else Fraction(0)


@lru_cache(maxsize=4096)
def roll_outcomes(dice: int, need: Need) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """Distribution of one roll of `dice` dice, counted per needed icon and capped at the need."""
    icons = [icon for icon, _ in need]
    caps = [n for _, n in need]
    miss = Fraction(1) - sum((face_chance(icon) for icon in icons), Fraction(0))
    chances = [face_chance(icon) for icon in icons]
    distribution: dict[tuple[int, ...], Fraction] = {tuple(0 for _ in icons): Fraction(1)}
    for _ in range(dice):
        after: dict[tuple[int, ...], Fraction] = {}
        for counts, p in distribution.items():
            after[counts] = after.get(counts, Fraction(0)) + p * miss
            for index, chance in enumerate(chances):
                bumped = list(counts)
                bumped[index] = min(caps[index], bumped[index] + 1)
                key = tuple(bumped)
                after[key] = after.get(key, Fraction(0)) + p * chance
        distribution = after
    return tuple(distribution.items())


@lru_cache(maxsize=4096)
def chance_in_one_roll(dice: int, need: Need) -> Fraction:
    """Return the exact chance that one roll of `dice` dice shows every icon in `need`."""
    full = tuple(n for _, n in need)
    return sum((p for counts, p in roll_outcomes(dice, need) if counts == full), Fraction(0))


def _states_below(caps: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Every kept-count state from the full need down to nothing, the fuller ones first."""
    if not caps:
        yield ()
        return
    for first in range(caps[0], -1, -1):
        for rest in _states_below(caps[1:]):
            yield (first, *rest)


@lru_cache(maxsize=4096)
def expected_rolls_to_complete(dice: int, need: Need) -> Fraction | None:
    """Return the expected rolls to show all of `need`, keeping matches (None: not enough dice)."""
    caps = tuple(n for _, n in need)
    if sum(caps) > dice:
        return None
    expected: dict[tuple[int, ...], Fraction] = {}
    for kept in _states_below(caps):
        if kept == caps:
            expected[kept] = Fraction(0)
            continue
        missing = tuple((icon, cap - k) for (icon, cap), k in zip(need, kept, strict=True))
        stay = Fraction(0)
        onward = Fraction(1)
        for gained, p in roll_outcomes(dice - sum(kept), missing):
            after = tuple(k + g for k, g in zip(kept, gained, strict=True))
            if after == kept:
                stay += p
            else:
                onward += p * expected[after]
        expected[kept] = onward / (1 - stay)
    return expected[tuple(0 for _ in caps)]


def chance_to_complete(free_dice: int, missing: Mapping[str, int]) -> Fraction:
    """Return the chance that rolling `free_dice` dice once shows every still-`missing` icon."""
    need = as_need(missing)
    return chance_in_one_roll(free_dice, need) if need else Fraction(1)


def rolls_to_complete(free_dice: int, missing: Mapping[str, int]) -> Fraction | None:
    """Return the expected rolls of `free_dice` dice, keeping matches, to show all `missing`."""
    need = as_need(missing)
    return expected_rolls_to_complete(free_dice, need) if need else Fraction(0)


@lru_cache(maxsize=4096)
def roll_odds(free_dice: int, missing: Need) -> tuple[float, float | None]:
    """Return (chance the next roll completes `missing`, expected rolls keeping matches)."""
    if not missing:
        return 1.0, 0.0
    rolls = expected_rolls_to_complete(free_dice, missing)
    return float(chance_in_one_roll(free_dice, missing)), None if rolls is None else float(rolls)
