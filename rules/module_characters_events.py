"""Big Box module 6's event as a typed value: a character card used on its own (page 21)."""

from __future__ import annotations

from rules import event_values as read
from rules.errors import Rejection
from rules.event_values import EventValue, Field, FieldRead
from rules.vocabulary import Cell

_chambers = read.cell_list("'cells' must list chambers, e.g. [[0, 1], [1, 1]]")


def _run(seen: FieldRead) -> tuple[Cell, ...]:
    """The 1 to 3 chambers the Discoverer runs through, in order."""
    cells = _chambers(seen)
    if not 1 <= len(cells) <= 3:
        raise Rejection("'cells' must list the 1 to 3 chambers the Discoverer runs through")
    return cells


class UseAbility(EventValue):
    """A player uses his character card on its own: the Discoverer's run, the Doc's healing,
    the Mechanic's turn, the Mentalist's moves, the Priest's re-roll of 3 black masks."""

    type_name = "ability"
    player = Field(read.player)
    cells = Field(_run)
    """The chambers of the Discoverer's run."""
    target = Field(read.player)
    """The adventurer the Doc heals."""
    cell = Field(read.cell)
    """The chamber the Mechanic turns, or the one the Mentalist moves to."""
    stairs = Field(read.any_value)
    """The side the turned chamber's stairway faces after the turn (the handler judges it: it
    must differ from the side it faces now)."""
