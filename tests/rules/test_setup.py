"""The setup line: players, gems in the depot, dice, modules and the starting temple."""

import pytest

from rules.engine import Game
from rules.errors import RecordError


def setup(**fields):
    return Game.from_setup_line({"type": "setup", "players": ["red"], **fields})


@pytest.mark.parametrize(("players", "depot"), [(1, 7), (2, 7), (3, 11), (4, 14), (5, 16), (6, 18)])
def test_depot_follows_the_player_count(players, depot):
    game = setup(players=[f"p{i}" for i in range(players)])
    assert game.depot == depot
    assert game.spare == 2
    assert game.keys_to_escape == depot + 1


@pytest.mark.parametrize(
    ("difficulty", "extra"), [("normal", 0), ("expert", 3), ("professional", 6)]
)
def test_difficulty_adds_gems(difficulty, extra):
    assert setup(players=["a", "b", "c"], difficulty=difficulty).depot == 11 + extra


def test_professionals_get_no_turn_of_fate():
    assert setup(difficulty="professional").turns_of_fate_left == 0
    assert setup(difficulty="expert").turns_of_fate_left == 2


def test_a_player_alone_takes_seven_dice_and_a_group_five_each():
    assert setup().players["red"].dice == 7
    game = setup(players=["red", "blue", "green"])
    assert [p.dice for p in game.players.values()] == [5, 5, 5]


def test_everyone_starts_in_the_start_chamber_which_is_alone_by_default():
    game = setup(players=["red", "blue"])
    assert {p.cell for p in game.players.values()} == {(0, 0)}
    assert game.state_json()["temple"] == [
        {"tile": "start", "cell": [0, 0], "stairs": "S", "gems": 0}
    ]


def test_players_start_wherever_the_start_tile_is_placed():
    game = setup(
        temple=[
            {"tile": "chamber-1", "cell": [0, 0], "stairs": "N"},
            {"tile": "start", "cell": [2, 3], "stairs": "E"},
        ]
    )
    assert game.players["red"].cell == (2, 3)


def test_setup_tiles_add_to_and_replace_the_catalog():
    game = setup(
        tiles={
            "exit": {"name": "My exit", "kind": "exit", "doors": ["N"], "enter": []},
            "bonus": {"name": "Bonus", "kind": "chamber", "doors": [], "enter": ["torch"]},
        }
    )
    assert game.catalog["exit"].name == "My exit"
    assert game.catalog["bonus"].enter == ("torch",)
    assert len(game.catalog) == 20


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"type": "dice"}, "first line must be the setup"),
        ({"players": []}, "1 to 6"),
        ({"players": ["a", "b", "c", "d", "e", "f", "g"]}, "1 to 6"),
        ({"players": ["red", "red"]}, "only once"),
        ({"players": ["red team"]}, "not valid"),
        ({"players": [""]}, "not valid"),
        ({"players": "red"}, "1 to 6"),
        ({"difficulty": "easy"}, "difficulty"),
        ({"modules": ["labyrinth"]}, "unknown module 'labyrinth'"),
        ({"modules": "curses"}, "list of module ids"),
        ({"track_dice": "yes"}, "track_dice"),
        ({"tiles": {"x": {"kind": "hall"}}}, "kind"),
        ({"temple": []}, "non-empty list"),
        ({"temple": [{"tile": "chamber-1", "cell": [0, 0], "stairs": "S"}]}, "exactly one start"),
        (
            {
                "temple": [
                    {"tile": "start", "cell": [0, 0], "stairs": "S"},
                    {"tile": "exit", "cell": [0, 0], "stairs": "S"},
                ]
            },
            "already holds",
        ),
        (
            {
                "temple": [
                    {"tile": "start", "cell": [0, 0], "stairs": "S"},
                    {"tile": "start", "cell": [0, 1], "stairs": "S"},
                ]
            },
            "placed twice",
        ),
        ({"temple": [{"tile": "nope", "cell": [0, 0], "stairs": "S"}]}, "unknown tile"),
        ({"temple": [{"tile": "start", "cell": [0], "stairs": "S"}]}, "cell"),
        ({"temple": [{"tile": "start", "cell": [0, True], "stairs": "S"}]}, "cell"),
        ({"temple": [{"tile": "start", "cell": [0, 0], "stairs": "up"}]}, "stairs"),
    ],
)
def test_bad_setups_say_what_is_wrong(fields, message):
    line = {"type": "setup", "players": ["red"], **fields}
    with pytest.raises(RecordError, match=message):
        Game.from_setup_line(line)


def test_a_setup_that_is_not_an_object_is_refused():
    with pytest.raises(RecordError, match="JSON object"):
        Game.from_setup_line(["setup"])
