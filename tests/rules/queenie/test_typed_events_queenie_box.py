"""The Queenie modules' events as typed values (issue 21): each event type has its class, and an
event with several faults is refused for the one the rules check first, as before."""

import pytest
from rules_helpers import A, K, Table, start_and

from rules.errors import Rejection
from rules.event_values import EventValue, ReadContext
from rules.modules_registry import INSTANCES
from rules.queenie.new_traps_events import BeastRoll
from rules.queenie.wishing_well import Wish

TYPED = ["exchange_teleport", "cursed_gems", "map", "wishing_well", "new_quests", "new_traps"]


@pytest.mark.parametrize("module_id", TYPED)
def test_each_event_type_of_the_module_has_its_class_in_the_same_order(module_id):
    module = INSTANCES[module_id]
    classes = module.event_classes
    assert tuple(c.type_name for c in classes) == module.event_types
    assert all(issubclass(c, EventValue) and c.__doc__ for c in classes)


def test_a_parsed_event_holds_its_fields_as_values():
    context = ReadContext(("red", "blue"))
    wish = Wish.parse({"type": "wish", "player": "blue", "wish": "die"}, context)
    assert (wish.player, wish.wish, wish.card) == ("blue", "die", None)
    roll = BeastRoll.parse({"type": "beast_roll", "player": "red", "face": "kick"}, context)
    with pytest.raises(Rejection, match="'face' must be the die's face, one of adventurer"):
        _ = roll.face


def test_the_well_refuses_a_wisher_outside_it_before_reading_his_wish():
    t = Table(modules=["curses", "treasures", "wishing_well"])
    assert t.no(type="wish", player="red", wish="gold") == "red is not in the Wishing well"
    assert t.no(type="wish", player="nobody", wish="gold").startswith("unknown player 'nobody'")
    t.roll("red", A, A, A, K, K)
    t.ok(type="discover", player="red", tile="wishing-well", cell=[1, 0])
    t.ok(type="enter", player="red", cell=[1, 0])
    assert t.no(type="wish", player="red", wish="gold") == (
        "'wish' must be 'treasure', 'curse' or 'die'"
    )
    assert t.no(type="wish", player="red") == "'wish' must be 'treasure', 'curse' or 'die'"


def test_the_beast_chamber_is_checked_before_the_dies_face():
    t = Table(modules=["new_traps"], temple=start_and(("chamber-1", (-1, 0), "E")))
    assert t.no(type="beast_roll", player="red", face="kick") == "red is not in the beast chamber"
    assert t.no(type="beast_roll", face="kick") == "the beast_roll event needs a 'player' field"


def test_a_gates_side_is_read_before_the_players_who_remove_it():
    t = Table(modules=["new_traps"])
    side = "'side' must be the start's entrance the gate blocks: N, E, S or W"
    assert t.no(type="gate_remove", side="up", players="red") == side
    assert t.no(type="gate_remove", players=["red"]) == side
    reason = t.no(type="gate_remove", side="E", players="red")
    assert reason == "no gate blocks the starting chamber's east entrance"


def test_a_statues_space_is_read_before_its_colour_and_the_players():
    t = Table(modules=["new_quests"], new_quests=["riddle"], track_dice=False)
    assert t.no(type="reveal_statue", space=9, colour="pink") == (
        "the Riddle chamber is not in the temple yet"
    )
    t.ok(type="discover", player="red", tile="riddle", cell=[0, 1])
    t.ok(type="enter", player="red", cell=[0, 1])
    space = "'space' must be the statue space revealed, 1 to 4"
    assert t.no(type="reveal_statue", space=9, colour="pink", players=7) == space
    colour = "'colour' must be the statue's colour: blue, red, yellow, green"
    assert t.no(type="reveal_statue", space=2, colour="pink", players=7) == colour
    players = "'players' must list the players who roll together"
    assert t.no(type="reveal_statue", space=2, colour="red", players=7) == players


def test_a_join_steps_step_must_be_a_whole_number():
    t = Table(modules=["new_quests"], new_quests=["ascension"], track_dice=False)
    t.ok(type="discover", player="red", tile="ascension", cell=[0, 1])
    t.ok(type="enter", player="red", cell=[0, 1])
    assert t.no(type="join_step", player="red") == "the join_step event needs a 'step' field"
    assert t.no(type="join_step", player="red", step="1") == (
        "'step' must be a whole number, not '1'"
    )
    assert t.no(type="join_step", player="blue", step="1") == (
        "blue is not inside the Ascension chamber"
    )
