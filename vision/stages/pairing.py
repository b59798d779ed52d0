"""Pair two sets of things closest first, each at most once (figure boxes to tracks, seen
events to true ones)."""

from __future__ import annotations

from collections.abc import Iterable


def closest_first(
    candidates: Iterable[tuple[float, int, int]], taken: Iterable[int] = ()
) -> dict[int, int]:
    """Return left index -> right index from candidate pairs (distance, left, right), the
    closest pairs first, each left and each right used once; rights in `taken` are not used."""
    pairs: dict[int, int] = {}
    used = set(taken)
    for _, left, right in sorted(candidates):
        if left not in pairs and right not in used:
            pairs[left] = right
            used.add(right)
    return pairs
