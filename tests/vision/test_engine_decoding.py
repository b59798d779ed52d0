"""The engine helps to decode (issue 20): a reading the engine would refuse is never reported;
it is looked at again (the dice's votes, more frames, the game moving on) and the legal reading
is reported. Observations through the real stability and event stages and the real engine."""

from __future__ import annotations

from typing import Any

from rules.engine import Game
from vision.stages.events import EventMaker
from vision.stages.observation import Observation, SeenDie, SeenTile
from vision.stages.stability import Stabiliser

START = ("black_mask", "adventurer", "key", "torch", "torch")
"""Red's first roll: one die locked on a black mask, no golden mask to free it."""


class Table:
    """Frames of a two-player table through stability and events; the engine applies them."""

    def __init__(self) -> None:
        self.game = Game.from_setup_line({"type": "setup", "players": ["red", "blue"]})
        self.stabiliser = Stabiliser()
        self.maker = EventMaker(lambda: self.game)
        self.t, self.seq = 0.0, 0
        self.tiles = {(0, 0): SeenTile("start", "S", 0.9)}
        self.figures: dict[str, tuple[int, int] | None] = {"red": (0, 0), "blue": (0, 0)}
        self.sent: list[dict[str, Any]] = []
        self.refused: list[str] = []

    def frame(self, dice: tuple[SeenDie, ...], busy: bool = False) -> None:
        """One frame showing red's dice (blue's zone empty)."""
        self.seq += 1
        self.t += 0.1
        obs = Observation(
            self.seq,
            self.t,
            dice={"red": dice, "blue": ()},
            tiles=dict(self.tiles),
            figures=dict(self.figures),
            busy=frozenset({"red"} if busy else ()),
        )
        self.maker.see(obs)
        for event in self.maker.events_for(self.stabiliser.update(obs)):
            self.sent.append(event)
            verdict = self.game.apply(event)
            if not verdict.ok:
                self.refused.append(verdict.reason or "")


def lying(faces: tuple[str | None, ...], x0: float, conf: float = 0.9) -> tuple[SeenDie, ...]:
    """Dice in a row from x0 (mm), read as `faces`."""
    return tuple(SeenDie(f, (x0 + 25.0 * i, 0.0), conf) for i, f in enumerate(faces))


def roll(table: Table, frames: list[tuple[SeenDie, ...]]) -> None:
    """A hand over red's zone, then the dice at rest as `frames` show them."""
    table.frame((), busy=True)
    for dice in frames:
        table.frame(dice)


def test_a_locked_die_misread_is_reported_as_the_legal_reading_of_its_votes() -> None:
    table = Table()
    roll(table, [lying(START, 0.0)] * 3)
    assert table.game.players["red"].locked == 1
    # The re-roll: the locked die (first) is read twice as a torch, once as its black mask.
    misread = ("torch", "golden_mask", "adventurer", "adventurer", "key")
    right = ("black_mask", *misread[1:])
    frames = [lying(misread, 200.0, 0.6), lying(right, 200.0, 0.55), lying(misread, 200.0, 0.6)]
    roll(table, frames + [lying(misread, 200.0, 0.6)] * 2)
    rolls = [e for e in table.sent if e["type"] == "dice"]
    assert table.refused == []
    assert [sorted(e["faces"]) for e in rolls] == [sorted(START), sorted(right)]


def test_a_reading_the_engine_refuses_waits_and_the_legal_one_is_reported_later() -> None:
    table = Table()
    roll(table, [lying(START, 0.0)] * 3)
    misread = ("torch", "golden_mask", "adventurer", "adventurer", "key")
    right = ("black_mask", *misread[1:])
    roll(table, [lying(misread, 200.0, 0.6)] * 4)  # never read as its black mask: no guess
    assert [e["type"] for e in table.sent] == ["dice"] and table.refused == []
    assert "refuses" in table.maker.waiting["red"] and "looking again" in table.maker.waiting["red"]
    for _ in range(4):  # a clearer view: the die now reads as the black mask it is
        table.frame(lying(right, 200.0, 0.95))
    rolls = [sorted(e["faces"]) for e in table.sent if e["type"] == "dice"]
    assert rolls == [sorted(START), sorted(right)] and table.refused == []
    assert "red" not in table.maker.waiting


def test_a_move_the_engine_refuses_is_held_and_reported_once_the_roll_pays_for_it() -> None:
    table = Table()
    roll(table, [lying(("adventurer",) * 4 + ("key",), 0.0)] * 3)
    table.tiles[(0, 1)] = SeenTile("chamber-4", "S", 0.8)  # entering it takes two keys
    for _ in range(6):
        table.frame(lying(("adventurer",) * 4 + ("key",), 0.0))
    table.figures["red"] = (0, 1)
    for _ in range(6):
        table.frame(lying(("adventurer",) * 4 + ("key",), 0.0))
    assert [e["type"] for e in table.sent] == ["dice", "discover"] and table.refused == []
    assert "refuses" in table.maker.waiting["held enter red"]
    roll(table, [lying(("key", "key", "adventurer", "torch", "torch"), 300.0)] * 4)
    assert [e["type"] for e in table.sent] == ["dice", "discover", "dice", "enter"]
    assert table.refused == [] and table.game.players["red"].cell == (0, 1)
    assert "held enter red" not in table.maker.waiting
