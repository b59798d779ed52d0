"""The game record's vocabulary: die faces, table sides and cells."""

from __future__ import annotations

import re
from typing import Any, Final

from rules.errors import RecordError

ADVENTURER: Final = "adventurer"
KEY: Final = "key"
TORCH: Final = "torch"
GOLDEN_MASK: Final = "golden_mask"
BLACK_MASK: Final = "black_mask"

FACES: Final[tuple[str, ...]] = (ADVENTURER, KEY, TORCH, GOLDEN_MASK, BLACK_MASK)
"""The five die faces, as the game record names them."""

FACE_CHANCE_IN_SIXTHS: Final[dict[str, int]] = {
    ADVENTURER: 2,
    KEY: 1,
    TORCH: 1,
    GOLDEN_MASK: 1,
    BLACK_MASK: 1,
}
"""How many of a die's six faces show each icon (the adventurer is on two)."""

PAYING_FACES: Final[tuple[str, ...]] = (ADVENTURER, KEY, TORCH, GOLDEN_MASK)
"""Faces that can pay for something; a black mask never pays."""

SIDES: Final[tuple[str, ...]] = ("N", "E", "S", "W")
"""Table sides in clockwise order."""
_OPPOSITE: Final[dict[str, str]] = {side: SIDES[(i + 2) % 4] for i, side in enumerate(SIDES)}

OFFSETS: Final[dict[str, tuple[int, int]]] = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}
"""The step from a cell to its neighbour on each side (x grows East, y grows North)."""
STEP_SIDES: Final[dict[tuple[int, int], tuple[str, str]]] = {
    step: (side, _OPPOSITE[side]) for side, step in OFFSETS.items()
}
"""For each step to a neighbour, the side it leaves by and the side it enters by."""

PLAYER_ID_PATTERN: Final = re.compile(r"^[A-Za-z0-9_-]+$")

Cell = tuple[int, int]
"""A temple grid cell `(x, y)`."""


def opposite(side: str) -> str:
    """Return the side facing `side` (N <-> S, E <-> W)."""
    return _OPPOSITE[side]


def rotate(side: str, quarter_turns: int) -> str:
    """Turn `side` clockwise by `quarter_turns` quarter turns."""
    return SIDES[(SIDES.index(side) + quarter_turns) % 4]


def neighbour(cell: Cell, side: str) -> Cell:
    """Return the cell next to `cell` on `side`."""
    dx, dy = OFFSETS[side]
    return (cell[0] + dx, cell[1] + dy)


def side_towards(origin: Cell, target: Cell) -> str | None:
    """Return the side of `origin` that touches `target`, or None when they are not adjacent."""
    for side, (dx, dy) in OFFSETS.items():
        if (origin[0] + dx, origin[1] + dy) == target:
            return side
    return None


def plural(count: int, word: str) -> str:
    """Write `count word` with an English plural (`1 key`, `2 keys`, `2 golden masks`, `3 dice`)."""
    label = word.replace("_", " ")
    return f"{count} {label if count == 1 else plural_of(label)}"


def plural_of(word: str) -> str:
    """Write a word's English plural (`keys`, `torches`, `golden masks`, `dice`)."""
    label = word.replace("_", " ")
    if label.endswith("die"):
        return f"{label[:-3]}dice"
    suffix = "es" if label.endswith(("ch", "sh", "s", "x")) else "s"
    return f"{label}{suffix}"


def parse_cell(value: Any, what: str) -> Cell:
    """Validate a cell `[x, y]` of two whole numbers."""
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or any(not isinstance(v, int) or isinstance(v, bool) for v in value)
    ):
        raise RecordError(f"{what} must be a cell [x, y] of two whole numbers, not {value!r}")
    return (value[0], value[1])
