"""The class names vision reports, in one place (the renderer's labels use the same names)."""

from __future__ import annotations

from rules.vocabulary import FACES

DIE_UNREADABLE = "die_unreadable"
"""A die whose top face cannot be read (tumbling, smeared, mostly hidden)."""
PIECES: tuple[str, ...] = ("gem", "tile", "tile_back", "figure")
"""Game pieces other than dice."""
HAND = "hand"
DETECTION_NAMES: tuple[str, ...] = (*FACES, *PIECES, DIE_UNREADABLE, HAND)
"""Detection classes in index order: five die faces, pieces, an unreadable die, hands."""
DIE_CLASSES: tuple[str, ...] = (*FACES, DIE_UNREADABLE)
"""The detection classes that are a die."""
