"""Queenie 15's events as typed values: the Riddle, Ascension and Guardian chambers' actions."""

from __future__ import annotations

from rules import event_values as read
from rules.errors import Rejection
from rules.event_values import EventValue, Field, FieldRead

STATUE_ORDER: tuple[str, ...] = ("blue", "red", "yellow", "green")
"""The order the wall shows: the statues must be revealed in it (the colours a `reveal_statue`
may name)."""


def statue_space(seen: FieldRead) -> int:
    """The statue space revealed, 1 to 4."""
    space = seen.value
    if not isinstance(space, int) or isinstance(space, bool) or not 1 <= space <= 4:
        raise Rejection("'space' must be the statue space revealed, 1 to 4")
    return space


class RevealStatue(EventValue):
    """Players in the Riddle chamber roll a statue's icons together and turn it up."""

    type_name = "reveal_statue"
    space = Field(statue_space)
    colour = Field(
        read.one_of(
            STATUE_ORDER, f"'colour' must be the statue's colour: {', '.join(STATUE_ORDER)}"
        )
    )
    players = Field(read.any_value)
    """The ids of the players who roll (each looked up, and refused once escaped, in order)."""


class Ascend(EventValue):
    """A player in the Ascension chamber rolls the next step's icons and climbs to it."""

    type_name = "ascend"
    player = Field(read.player)


class JoinStep(EventValue):
    """A player in the Ascension chamber joins another on his step, without rolling."""

    type_name = "join_step"
    player = Field(read.player)
    step = Field(read.whole)


class PickGuardian(EventValue):
    """A player in the Guardian chamber rolls 2 adventurers and picks up a guardian token."""

    type_name = "pick_guardian"
    player = Field(read.player)


class DropGuardian(EventValue):
    """A player carrying a guardian token drops it in a chamber with 3 gems."""

    type_name = "drop_guardian"
    player = Field(read.player)
