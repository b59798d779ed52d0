"""The detector's classes, in index order (kept free of heavy imports for the command line)."""

from __future__ import annotations

FACES: tuple[str, ...] = ("adventurer", "key", "torch", "golden_mask", "black_mask")
"""The five die faces, as the game record names them."""

CLASS_NAMES: tuple[str, ...] = (
    *FACES,
    "gem",
    "tile",
    "tile_back",
    "figure",
    "die_unreadable",
    "hand",
)
"""Detector classes in index order: five die faces, game pieces, unreadable dice, hands.

`die_unreadable` is a die whose top face cannot be read (tumbling, blurred, tilted or mostly
covered): the stability stage needs to see dice in motion without a guessed face. `hand` is an
arm or hand over the table, which the stability stage waits out.
"""
