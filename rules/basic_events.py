"""The basic game's events as typed values (docs/game-record.md, "Events")."""

from __future__ import annotations

from rules import event_values as read
from rules.event_values import EventValue, Field


class Dice(EventValue):
    """A player's roll comes to rest: the faces of all his dice."""

    type_name = "dice"
    player = Field(read.player)
    faces = Field(read.faces)


class Discover(EventValue):
    """A player places a new chamber next to his own."""

    type_name = "discover"
    player = Field(read.player)
    cell = Field(read.cell)
    tile = Field(read.tile)
    stairs = Field(read.any_value)
    """The side the stairway faces (None: the side towards the discoverer's chamber); the
    handler judges it, as its right value depends on where the discoverer stands."""


class Enter(EventValue):
    """A player moves into a neighbouring chamber."""

    type_name = "enter"
    player = Field(read.player)
    cell = Field(read.cell)


class Activate(EventValue):
    """Players in a chamber activate gems from the depot."""

    type_name = "activate"
    cell = Field(read.cell)
    gems = Field(read.whole)
    players = Field(read.any_value)
    """The ids of the players who pay (each looked up, and refused once escaped, in order)."""


class Unlock(EventValue):
    """A golden mask frees black masks of the player (or of a player in the same chamber)."""

    type_name = "unlock"
    player = Field(read.player)
    by = Field(read.optional_player)
    count = Field(read.whole)


class Escape(EventValue):
    """A player leaves the temple through the exit."""

    type_name = "escape"
    player = Field(read.player)


class GiveDie(EventValue):
    """An escaped player gives a die to a player still inside."""

    type_name = "give_die"
    giver = Field(read.player, key="from")
    receiver = Field(read.player, key="to")


class TurnOfFate(EventValue):
    """The team provokes the turn of fate."""

    type_name = "turn_of_fate"


class CountdownStart(EventValue):
    """The soundtrack's countdown `n` begins."""

    type_name = "countdown_start"
    n = Field(read.whole)


class CountdownEnd(EventValue):
    """The soundtrack's countdown `n` ends: the door slams."""

    type_name = "countdown_end"
    n = Field(read.whole)


class Collapse(EventValue):
    """The temple collapses: the game is lost."""

    type_name = "collapse"


class Undo(EventValue):
    """Take back the last action."""

    type_name = "undo"
    line = Field(read.optional_whole)
    """The line it takes back (optional: checked to be the last action)."""


class Correct(EventValue):
    """Replace an earlier line with another event, or strike it out."""

    type_name = "correct"
    line = Field(read.whole)
    event = Field(read.any_value)
    """The event as it should have been (None with `has_event`: strike the line out)."""

    @property
    def has_event(self) -> bool:
        """Whether the record holds the `event` field (null strikes the line out)."""
        return "event" in self.raw


BASIC_EVENTS: dict[str, type[EventValue]] = {
    cls.type_name: cls
    for cls in (
        Dice,
        Discover,
        Enter,
        Activate,
        Unlock,
        Escape,
        GiveDie,
        TurnOfFate,
        CountdownStart,
        CountdownEnd,
        Collapse,
        Undo,
        Correct,
    )
}
"""The basic game's event classes, by type."""


def basic_event_class(kind: str) -> type[EventValue] | None:
    """The basic game's class for the event type `kind` (None: not a basic event)."""
    return BASIC_EVENTS.get(kind)
