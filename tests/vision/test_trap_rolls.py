"""The camera under Queenie 16's traps (issue 21): in the beast chamber each die rolled is a
`beast_roll` of its face; in the quicksand only real rolls count, never dice read again.
Observations through the real stability and event stages and the real engine."""

from __future__ import annotations

from collections.abc import Sequence

from rules.engine import Game
from tests.vision.test_event_stages import Table
from vision.stages.events import REREAD_MARK
from vision.stages.observation import SeenDie, SeenTile

A, K, T = "adventurer", "key", "torch"
G, B = "golden_mask", "black_mask"
OPENING = (A, A, K, K, K)
"""Red's roll before he discovers the trap north of the start: two adventurers pay for it."""


def trapped(feature: str) -> Table:
    """Red, having rolled and laid the trap chamber north of the start, stands inside it."""
    table = Table()
    setup = {"type": "setup", "players": ["red", "blue"], "modules": ["new_traps"]}
    table.game = Game.from_setup_line(setup)
    table.roll("red", OPENING)
    table.reach = {(0, 1): "red"}
    table.show(3)  # red's arm lays the tile
    table.reach = {}
    table.tiles[(0, 1)] = SeenTile(feature, "S", 0.9)
    table.show(6)
    table.figures["red"] = (0, 1)  # he puts his figure into it
    table.show(6)
    assert [e["type"] for e in table.events] == ["dice", "discover"]
    assert all(table.verdicts) and table.game.players["red"].cell == (0, 1)
    return table


def roll_one(table: Table, index: int, face: str) -> None:
    """Red takes one die, rolls it, and it comes to rest elsewhere showing `face`."""
    dice = list(table.dice["red"])
    table.busy.add("red")
    table.show(3)
    table.busy.discard("red")
    x = dice[index].xy_mm[0]
    table.rolls += 1
    dice[index] = SeenDie(face, (x, 60.0 + 10.0 * table.rolls), 0.9)
    table.dice["red"] = tuple(dice)
    table.show()


def hand_over(table: Table, dice: Sequence[SeenDie] | None = None) -> None:
    """A hand passes over red's dice; they lie as `dice` afterwards (unchanged by default)."""
    table.busy.add("red")
    table.show(3)
    table.busy.discard("red")
    if dice is not None:
        table.dice["red"] = tuple(dice)
    table.show(6)


def beast_rolls(table: Table) -> list[str]:
    """The faces of the beast rolls the camera reported."""
    return [e["face"] for e in table.events if e["type"] == "beast_roll"]


def quicksand_rolls(table: Table) -> int:
    """Red's rolls in the quicksand as the engine counts them."""
    return int(table.game.state_json()["new_traps"]["quicksand"]["red"])


def test_each_die_rolled_past_the_beast_is_a_beast_roll_the_engine_takes() -> None:
    table = trapped("beast")
    hand_over(table)  # the dice he showed when he found it are no roll
    assert beast_rolls(table) == []
    # The path asks adventurer, torch, key, adventurer; a key rolled again shows a key.
    for index, face in ((2, T), (2, A), (3, T), (4, K), (0, A)):
        roll_one(table, index, face)
    assert beast_rolls(table) == [T, A, T, K, A] and all(table.verdicts)
    assert all(e["player"] == "red" and 0 < e["conf"] <= 1 for e in table.events[2:])
    red = table.game.players["red"]
    assert red.cell == (0, 0) and table.game.state_json()["new_traps"]["beast"] == {}
    table.figures["red"] = (0, 0)  # out past the beast, in the chamber at its stairway
    table.roll("red", (A, K, K, T, T))  # from now on he rolls all his dice again
    assert table.events[-1]["type"] == "dice" and all(table.verdicts)


def test_a_black_mask_rolled_past_the_beast_is_a_roll_not_an_unlock() -> None:
    table = trapped("beast")
    roll_one(table, 0, B)
    roll_one(table, 1, B)  # only a black mask moved while one is locked: still a roll
    assert table.game.players["red"].locked == 2
    roll_one(table, 2, G)  # the golden mask frees both
    assert beast_rolls(table) == [B, B, G] and all(table.verdicts)
    assert [e["type"] for e in table.events].count("unlock") == 0
    assert table.game.players["red"].locked == 0


def test_dice_pushed_aside_past_the_beast_are_no_roll_and_the_camera_says_so() -> None:
    table = trapped("beast")
    roll_one(table, 2, T)
    dice = list(table.dice["red"])
    for i in (0, 1):  # two dice pushed aside, their faces unchanged
        dice[i] = SeenDie(dice[i].face, (dice[i].xy_mm[0], -40.0), 0.9)
    hand_over(table, dice)
    assert beast_rolls(table) == [T]
    assert table.maker.waiting["red"] == (
        "red: 2 dice moved where one die is rolled at a time: looking again, or enter the roll"
    )
    roll_one(table, 3, A)  # the next die rolled is read as ever
    assert beast_rolls(table) == [T, A] and all(table.verdicts)


def test_dice_read_again_in_the_quicksand_use_up_none_of_its_4_rolls() -> None:
    table = trapped("quicksand")
    hand_over(table)  # a hand passes over the dice lying still
    lying = table.dice["red"]
    table.dice["red"] = lying[:4]  # one die hidden long enough to settle without it
    table.show(6)
    assert table.maker.waiting["red"] == "red: 4 of 5 dice seen"
    table.dice["red"] = lying
    table.show(6)  # back where it lay
    reread = [*lying[:2], SeenDie(T, lying[2].xy_mm, 0.9), *lying[3:]]
    hand_over(table, reread)  # after a hand, a die that did not move reads otherwise
    assert [e["type"] for e in table.events] == ["dice", "discover"]
    assert quicksand_rolls(table) == 0
    assert REREAD_MARK in table.maker.waiting["red"]


def test_a_real_roll_in_the_quicksand_counts_even_with_the_same_faces() -> None:
    table = trapped("quicksand")
    table.roll("red", OPENING)  # picked up and put down elsewhere: the same faces
    assert quicksand_rolls(table) == 1
    table.roll("red", (T, T, T, K, A))
    hand_over(table)
    table.roll("red", (T, T, T, T, A))
    assert quicksand_rolls(table) == 3 and all(table.verdicts)
    assert table.game.apply({"type": "quicksand_free", "player": "red"}).ok


def test_a_roll_entered_by_hand_while_the_camera_looks_again_is_not_counted_twice() -> None:
    table = trapped("quicksand")
    table.roll("red", (B, T, K, K, A))  # a black mask locks a die
    assert quicksand_rolls(table) == 1
    table.roll("red", (T, T, T, K, A))  # the locked die misread: the engine refuses it
    assert "looking again" in table.maker.waiting["red"] and quicksand_rolls(table) == 1
    entered = {"type": "dice", "player": "red", "faces": [B, T, T, K, A]}
    assert table.game.apply(entered).ok  # the table enters the roll
    table.dice["red"] = (SeenDie(B, table.dice["red"][0].xy_mm, 0.95), *table.dice["red"][1:])
    table.show(8)  # a clearer view: the dice now read as entered
    assert quicksand_rolls(table) == 2
    assert [e["type"] for e in table.events] == ["dice", "discover", "dice"]
