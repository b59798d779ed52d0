"""Queenie 16's events as typed values: out of the quicksand and the lava, the gates, the beast."""

from __future__ import annotations

from rules import event_values as read
from rules.event_values import EventValue, Field
from rules.vocabulary import FACES, SIDES


class QuicksandFree(EventValue):
    """The quicksand's prisoner shows 4 torches of his own 4 rolls and gets free."""

    type_name = "quicksand_free"
    player = Field(read.player)


class QuicksandRescue(EventValue):
    """Players who came into the quicksand chamber roll 4 torches and free its prisoner."""

    type_name = "quicksand_rescue"
    player = Field(read.player)
    """The prisoner."""
    players = Field(read.any_value)
    """The ids of the rescuers (each looked up, and refused once escaped, in order)."""


class LavaClimb(EventValue):
    """The player in the lava rolls 4 keys by himself and steps out of it."""

    type_name = "lava_climb"
    player = Field(read.player)


class GateRemove(EventValue):
    """Players beside a gate on the start's entrances roll 3 keys and discard it."""

    type_name = "gate_remove"
    side = Field(
        read.one_of(SIDES, "'side' must be the start's entrance the gate blocks: N, E, S or W")
    )
    players = Field(read.any_value)
    """The ids of the players who roll (each looked up, and refused once escaped, in order)."""


class BeastRoll(EventValue):
    """The player creeping past the beast rolls one die."""

    type_name = "beast_roll"
    player = Field(read.player)
    face = Field(read.one_of(FACES, f"'face' must be the die's face, one of {', '.join(FACES)}"))
