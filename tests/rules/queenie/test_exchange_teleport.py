"""Queenie: Exchange chamber & Teleporter chamber, from the Big Box rulebook's page 34 (played
only with modules 1 and 2)."""

import json

import pytest
from rules_helpers import A, G, K, T, Table, start_and

from rules.actions import open_actions
from rules.engine import Game
from rules.errors import RecordError
from rules.game_setup import setup_catalog, starting_candidates
from rules.narrative import tell_event
from rules.record import replay_lines

ALL = ["curses", "treasures", "exchange_teleport"]
WEST = start_and(("gem3-key-1", (-1, 0), "E"))  # a chamber west of the start
SETUP = {"type": "setup", "players": ["red", "blue"], "modules": ALL, "temple": WEST}


def table(modules=ALL, temple=WEST) -> Table:
    return Table(modules=list(modules), temple=temple)


def actions(t: Table, pid: str, kind: str) -> list:
    return [a for a in open_actions(t.game, pid) if a.action == kind]


def cursed_in_the_exchange(card: str, *more: str) -> Table:
    """Red draws a curse (a purple mask north of the start; `more` are laid in front of him
    directly), then discovers the Exchange chamber east of the start and walks in."""
    t = table()
    t.roll("red", A, A, K, K, K)
    t.ok(type="discover", player="red", tile="ct-gem1-key-1", cell=[0, 1])
    t.ok(type="curse", player="red", card=card)
    t.player("red").curses.extend(more)
    t.roll("red", *[A, A, A, K, G][: t.player("red").dice])
    t.ok(type="discover", player="red", tile="exchange", cell=[1, 0])
    t.ok(type="enter", player="red", cell=[1, 0])
    return t


def test_played_only_with_modules_1_and_2():  # page 34: "works only if played with 1 and 2"
    with pytest.raises(RecordError, match=r"played only with 'curses' and 'treasures'"):
        setup_catalog(["exchange_teleport"])
    with pytest.raises(RecordError, match=r"add 'treasures' to 'modules'"):
        table(modules=["curses", "exchange_teleport"])
    catalog = setup_catalog(ALL)
    assert catalog["exchange"].feature == "exchange"
    assert catalog["teleporter"].feature == "teleporter"
    assert not {"exchange", "teleporter"} & set(starting_candidates(catalog))


def test_the_exchange_swaps_a_curse_for_a_treasure_drawn_without_dice():  # page 34
    t = cursed_in_the_exchange("silence")
    t.ok(type="exchange", player="red", card="silence", treasure="double_key")
    assert t.state["players"]["red"]["curses"] == []
    assert t.state["players"]["red"]["treasures"] == ["double_key"]
    assert t.state["exchanged"] == ["red"]


def test_to_exchange_again_the_player_leaves_and_comes_back():  # page 34
    t = cursed_in_the_exchange("silence", "mask")
    t.ok(type="exchange", player="red", card="silence", treasure="double_key")
    assert t.no(type="exchange", player="red", card="mask", treasure="teleport") == (
        "red has exchanged already: leave the Exchange chamber and come back to exchange again"
    )
    (action,) = actions(t, "red", "exchange")
    assert action.blocked.startswith("exchanged already")
    t.ok(type="enter", player="red", cell=[0, 0])
    assert t.state["exchanged"] == []
    t.roll("red", A, K, T, T, G)
    t.ok(type="enter", player="red", cell=[1, 0])
    t.ok(type="exchange", player="red", card="mask", treasure="teleport")
    assert t.state["players"]["red"]["treasures"] == ["double_key", "teleport"]


def test_only_a_curse_the_player_has_in_the_exchange_chamber():  # page 34
    t = cursed_in_the_exchange("broken_die")
    assert t.player("red").dice == 4
    assert t.no(type="exchange", player="red", card="mask", treasure="teleport") == (
        "red is not cursed with that card: he holds Broken die"
    )
    assert "needs 'treasure'" in t.no(type="exchange", player="red", card="broken_die")
    assert t.no(type="exchange", player="blue", card="mask", treasure="teleport") == (
        "blue is not in the Exchange chamber"
    )
    t.ok(type="exchange", player="red", card="broken_die", treasure="extra_gem")
    assert t.player("red").dice == 5  # the die on the card comes back


def test_the_dashboard_offers_each_curse_for_each_treasure():
    t = cursed_in_the_exchange("silence")
    (action,) = actions(t, "red", "exchange")
    assert action.possible and action.need == {}
    assert "Silence for the Double key" in [c["name"] for c in action.choices]
    assert actions(t, "blue", "exchange") == []


def teleporter_found() -> Table:
    """Red discovers the Teleporter chamber east of the start and walks in."""
    t = table()
    t.roll("red", A, A, A, T, G)
    t.ok(type="discover", player="red", tile="teleporter", cell=[1, 0])
    t.ok(type="enter", player="red", cell=[1, 0])
    return t


def test_the_token_lies_in_the_teleporter_chamber_until_someone_takes_it():  # page 34
    t = teleporter_found()
    assert t.state["teleporter_token"] == [1, 0]
    assert "still lies in the Teleporter chamber" in t.no(
        type="use_teleporter", player="blue", cell=[1, 0]
    )
    assert "is not in Teleporter chamber" in t.no(type="take_teleporter", player="blue")
    t.ok(type="take_teleporter", player="red")
    assert t.state["teleporter_token"] is None
    assert t.state["teleporter_token_holder"] == "red"
    assert "in another chamber than the Teleporter" in t.no(
        type="drop_teleporter", player="red", cell=[1, 0]
    )


def test_once_laid_anyone_teleports_free_between_the_two_chambers():  # page 34
    t = teleporter_found()
    t.ok(type="take_teleporter", player="red")
    t.ok(type="enter", player="red", cell=[0, 0])
    t.roll("red", A, K, T, T, G)
    t.ok(type="enter", player="red", cell=[-1, 0])
    assert "his own chamber" in t.no(type="drop_teleporter", player="red", cell=[0, 0])
    t.ok(type="drop_teleporter", player="red", cell=[-1, 0])
    assert t.state["teleporter_token"] == [-1, 0]
    showing = dict(t.player("red").showing)
    t.ok(type="use_teleporter", player="red", cell=[1, 0])  # no dice used
    assert t.state["players"]["red"]["cell"] == [1, 0]
    assert dict(t.player("red").showing) == showing
    assert t.no(type="use_teleporter", player="red", cell=[0, 0]) == (
        "the teleporter takes red only to Gem chamber (keys) 1"
    )
    t.ok(type="use_teleporter", player="red", cell=[-1, 0])
    assert t.no(type="use_teleporter", player="blue", cell=[1, 0]) == (
        "blue is neither in the Teleporter chamber nor where the teleporter token lies"
    )


def test_the_token_can_be_picked_up_again_and_laid_elsewhere():  # page 34
    t = teleporter_found()
    t.ok(type="take_teleporter", player="red")
    t.ok(type="enter", player="red", cell=[0, 0])
    t.ok(type="drop_teleporter", player="red", cell=[0, 0])
    t.ok(type="take_teleporter", player="blue")  # blue is at the start too
    assert "blue holds the teleporter token" in t.no(
        type="use_teleporter", player="red", cell=[1, 0]
    )
    t.roll("blue", A, K, T, T, G)
    t.ok(type="enter", player="blue", cell=[-1, 0])
    t.ok(type="drop_teleporter", player="blue", cell=[-1, 0])
    t.ok(type="use_teleporter", player="blue", cell=[1, 0])


def test_a_player_who_may_not_move_may_not_teleport():  # the Trap curse (page 10)
    t = teleporter_found()
    t.ok(type="take_teleporter", player="red")
    t.ok(type="enter", player="red", cell=[0, 0])
    t.ok(type="drop_teleporter", player="red", cell=[0, 0])
    t.player("red").curses.append("trap")
    assert "may not teleport" in t.no(type="use_teleporter", player="red", cell=[1, 0])
    (action,) = actions(t, "red", "use_teleporter")
    assert action.blocked and "Trap" in action.blocked


def test_a_token_in_a_vanished_illusion_chamber_goes_back_to_its_chamber():  # pages 12, 34
    t = table(modules=["curses", "treasures", "illusions", "exchange_teleport"], temple=None)
    t.roll("red", A, A, A, T, G)
    t.ok(type="discover", player="red", tile="teleporter", cell=[1, 0])
    t.ok(type="enter", player="red", cell=[1, 0])
    t.ok(type="take_teleporter", player="red")
    t.ok(type="enter", player="red", cell=[0, 0])
    t.roll("red", A, A, A, A, G)
    t.ok(type="discover", player="red", tile="illusion-1", cell=[-1, 0])
    t.ok(type="enter", player="red", cell=[-1, 0])
    t.ok(type="drop_teleporter", player="red", cell=[-1, 0])
    t.ok(type="countdown_start", n=1)
    t.ok(type="countdown_end", n=1)
    assert t.state["teleporter_token"] == [1, 0]


def test_the_token_is_drawn_where_it_lies_and_in_front_of_its_holder():
    t = teleporter_found()
    marks = lambda hook, what: [m for h in t.game.module_hooks(hook) for m in h(t.game, what)]  # noqa: E731
    gate = t.game.temple.at((1, 0))
    assert [m["token"] for m in marks("tile_marks", gate)] == ["teleporter"]
    reminders = [r for h in t.game.module_hooks("reminders") for r in h(t.game)]
    assert any("take its token" in r for r in reminders)
    t.ok(type="take_teleporter", player="red")
    assert marks("tile_marks", gate) == []
    assert "lay it in a chamber" in marks("player_marks", t.player("red"))[0]["label"]
    assert marks("player_marks", t.player("blue")) == []
    (drop,) = actions(t, "red", "drop_teleporter")
    assert drop.blocked == "lay it in another chamber than the Teleporter chamber"


def test_the_log_tells_the_exchange_and_the_teleporter():
    t = teleporter_found()
    say = lambda **e: tell_event({"player": "red", **e}, t.game)  # noqa: E731
    assert say(type="exchange", card="silence", treasure="double_key") == (
        "Red exchanges the curse Silence for a treasure: the Double key"
    )
    assert say(type="take_teleporter") == "Red takes the teleporter token"
    assert say(type="drop_teleporter", cell=[-1, 0]) == (
        "Red lays the teleporter token in the Gem chamber west of the start"
    )
    assert say(type="use_teleporter", cell=[1, 0]).startswith("Red teleports to the Teleporter")


def test_a_record_replays_to_the_same_state():
    events = [
        {"type": "dice", "player": "red", "faces": [A, A, A, T, G]},
        {"type": "discover", "player": "red", "tile": "teleporter", "cell": [1, 0]},
        {"type": "enter", "player": "red", "cell": [1, 0]},
        {"type": "take_teleporter", "player": "red"},
        {"type": "enter", "player": "red", "cell": [0, 0]},
        {"type": "drop_teleporter", "player": "red", "cell": [0, 0]},
        {"type": "use_teleporter", "player": "blue", "cell": [1, 0]},
    ]
    live = Game.from_setup_line(SETUP)
    assert all(live.apply(e).ok for e in events)
    text = "\n".join(json.dumps(line) for line in [SETUP, *events])
    replay = replay_lines(text.split("\n"))
    assert all(v.ok for v in replay.verdicts)
    assert replay.game.state_json() == live.state_json()
    assert replay.game.state_json()["players"]["blue"]["cell"] == [1, 0]
