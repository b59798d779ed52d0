"""Modules 1-8's events as typed values (issue 21): a class for each event type, its fields
read once at the edge, and an event with several faults refused for the one the rules check
first, as every record saved before was judged."""

from rules_helpers import Table, start_and

from rules.event_values import EventValue
from rules.modules_registry import MODULES

BIG_BOX = ("curses", "treasures", "illusions", "special", "quests", "characters", "traps", "time")


def test_every_event_type_of_modules_1_to_8_has_its_class_in_the_same_order():
    for module_id in BIG_BOX:
        module = MODULES[module_id]
        assert [cls.type_name for cls in module.event_classes] == list(module.event_types)
        for cls in module.event_classes:
            assert issubclass(cls, EventValue) and cls.__doc__, cls


def test_linked_chambers_are_counted_before_a_prohibition_and_read_as_cells_after_it():
    t = Table(
        players=["red", "blue"],
        modules=["special", "time"],
        time_chambers=["prohibition-1", "sacrifice"],
        track_dice=False,
        temple=start_and(("linked-1", (-1, 0), "E"), ("linked-2", (1, 0), "W")),
    )
    t.ok(type="discover", player="red", tile="time-prohibition-1", cell=[0, 1], t=10.0)
    t.player("red").cell, t.player("blue").cell = (-1, 0), (1, 0)
    linked = {"type": "activate_linked", "players": ["red", "blue"]}
    assert t.no(**linked, cells=[[-1, 0]]) == (
        "'cells' must list the 2 or 3 linked chambers activated together"
    )
    assert t.no(**linked, cells=[[-1, 0], "x"]) == (
        "a prohibition chamber's sand is running: nobody activates gems"
    )
    t.ok(type="time_up", cell=[0, 1], t=40.5)  # beside the lower icon now: golden masks
    assert t.no(**linked, cells=[[-1, 0], "x"]) == (
        "'cells' must be a cell [x, y] of two whole numbers, not 'x'"
    )
    assert t.no(**linked, cells=[[-1, 0], [-1, 0]]) == (
        "each linked chamber may be listed only once in 'cells'"
    )
    assert t.no(type="activate_linked", cells=[[-1, 0], [1, 0]]) == (
        "'players' must list the players who activate the gems"
    )
    t.ok(**linked, cells=[[-1, 0], [1, 0]])


def test_players_rolling_together_are_judged_one_by_one_in_the_order_listed():
    t = Table(players=["red", "blue"], modules=["quests"], quests=["altar", "ghost", "tree"])
    t.player("blue").escaped, t.player("blue").cell = True, None
    assert t.no(type="heal_tree", players=["blue", "nobody"]) == "blue has already escaped"
    assert t.no(type="heal_tree", players=["nobody", "blue"]) == (
        "unknown player 'nobody' (players: red, blue)"
    )
    assert t.no(type="heal_tree", players=[]) == (
        "'players' must list the players who roll together"
    )


def test_the_discoverer_s_run_is_a_list_then_cells_then_1_to_3_of_them():
    t = Table(
        players=["red", "blue"],
        modules=["characters"],
        characters={"red": "discoverer-run", "blue": "doc-heal"},
        track_dice=False,
    )
    run = {"type": "ability", "player": "red"}
    assert t.no(**run, cells="x") == "'cells' must list chambers, e.g. [[0, 1], [1, 1]]"
    four = [[0, 1], [0, 2], [0, 3], [0, 4]]
    assert t.no(**run, cells=[*four[:3], "x"]) == (
        "'cells' must be a cell [x, y] of two whole numbers, not 'x'"
    )
    assert t.no(**run, cells=four) == (
        "'cells' must list the 1 to 3 chambers the Discoverer runs through"
    )
    assert t.no(**run) == "'cells' must list chambers, e.g. [[0, 1], [1, 1]]"


def test_the_losers_of_a_sand_timer_are_judged_only_when_dice_are_lost():
    t = Table(
        players=["red", "blue"],
        modules=["time"],
        time_chambers=["lava-1", "lava-2"],
        track_dice=False,
    )
    t.ok(type="discover", player="red", tile="time-lava-1", cell=[1, 0], t=0.0)
    t.ok(type="discover", player="red", tile="time-lava-2", cell=[-1, 0], t=1.0)
    up = {"type": "time_up", "cell": [1, 0], "t": 61.0}
    assert t.no(**up, losers="red") == "'losers' must list player ids, one for each die lost"
    assert t.no(**up, losers=["red", "nobody"]) == "unknown player 'nobody' (players: red, blue)"
    t.player("red").cell = (1, 0)
    t.ok(type="lava", cell=[1, 0], players=["red"], t=30.0)
    t.ok(**up, losers="red")  # mastered: nobody loses a die, and the field is never read
