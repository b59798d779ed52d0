"""The class names of vision, in one place: what the detector and localiser report, what the
face reader tells apart, and how the two meet (the renderer's labels use the same names).

The die faces themselves are the game record's (`rules.vocabulary.FACES`).
"""

from __future__ import annotations

from rules.vocabulary import FACES

__all__ = [
    "DETECTION_NAMES",
    "DIE_CLASSES",
    "DIE_UNREADABLE",
    "FACES",
    "HAND",
    "NOT_DIE",
    "PIECES",
    "READER_CLASSES",
    "READER_UNREADABLE",
    "detection_class",
]

# --- Detection classes (detector, localiser, renderer labels) ----------------------------------

DIE_UNREADABLE = "die_unreadable"
"""A die whose top face cannot be read (tumbling, blurred, tilted or mostly covered): the
stability stage needs to see dice in motion without a guessed face; shown as "?"."""
PIECES: tuple[str, ...] = ("gem", "tile", "tile_back", "figure")
"""Game pieces other than dice."""
HAND = "hand"
"""An arm or hand over the table, which the stability stage waits out."""
DETECTION_NAMES: tuple[str, ...] = (*FACES, *PIECES, DIE_UNREADABLE, HAND)
"""Detection classes in index order: five die faces, pieces, an unreadable die, hands."""
DIE_CLASSES: tuple[str, ...] = (*FACES, DIE_UNREADABLE)
"""The detection classes that are a die."""

# --- Face reader classes ------------------------------------------------------------------------

READER_UNREADABLE = "unreadable"
"""The face reader's name for a die it cannot read: the detection class `DIE_UNREADABLE`."""
NOT_DIE = "not_die"
"""The face reader's name for a crop that shows no die (tile art, a gem, a hand, a gap)."""
READER_CLASSES: tuple[str, ...] = (*FACES, READER_UNREADABLE, NOT_DIE)
"""What the face reader may tell apart: the five faces, an unreadable die, and no die at all
(a reader may leave `unreadable` out)."""

_READER_TO_DETECTION: dict[str, str | None] = {
    **{face: face for face in FACES},
    READER_UNREADABLE: DIE_UNREADABLE,
    NOT_DIE: None,
}


def detection_class(reader_class: str) -> str | None:
    """Return the detection class a face reader's class names (None for `not_die`)."""
    try:
        return _READER_TO_DETECTION[reader_class]
    except KeyError:
        raise ValueError(f"{reader_class!r} is no face reader class") from None
