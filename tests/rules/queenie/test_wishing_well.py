"""Queenie 14 (Wishing well), from the Queenie box rulebook: 2 keys in the well draw a treasure,
get rid of a curse or reclaim a lost die; to wish again, leave the chamber and come back."""

import json

from rules_helpers import A, G, K, T, Table

from rules.actions import open_actions
from rules.engine import Game
from rules.game_setup import setup_catalog, starting_candidates
from rules.narrative import tell_event
from rules.queenie.wishing_well import lost_dice
from rules.record import replay_lines

ALL = ["curses", "treasures", "wishing_well"]
SETUP = {"type": "setup", "players": ["red", "blue"], "modules": ALL}


def at_the_well(modules=ALL) -> Table:
    """Red discovers the Wishing well east of the start and walks in, one key left showing."""
    t = Table(modules=list(modules))
    t.roll("red", A, A, A, K, K)
    t.ok(type="discover", player="red", tile="wishing-well", cell=[1, 0])
    t.ok(type="enter", player="red", cell=[1, 0])
    return t


def wish(t: Table):
    return [a for a in open_actions(t.game, "red") if a.action == "wish"]


def test_the_well_joins_the_pile_never_the_starting_temple():  # Queenie 14, set-up
    catalog = setup_catalog(["wishing_well"])
    assert catalog["wishing-well"].feature == "wishing-well"
    assert "wishing-well" not in starting_candidates(catalog)


def test_two_keys_in_the_well_draw_a_treasure_tile():  # Queenie 14
    t = at_the_well()
    t.roll("red", K, K, T, T, G)
    t.ok(type="wish", player="red", wish="treasure", treasure="double_key")
    assert t.state["players"]["red"]["treasures"] == ["double_key"]
    assert dict(t.player("red").showing) == {T: 2, G: 1}


def test_the_wisher_rolls_the_two_keys_himself():  # Queenie 14: "a player ... can roll"
    t = at_the_well()
    t.roll("red", K, T, T, T, G)
    reason = t.no(type="wish", player="red", wish="treasure", treasure="double_key")
    assert reason == "red shows 1 key, 2 needed to make a wish at the well"


def test_to_wish_again_the_player_leaves_the_well_and_comes_back():  # Queenie 14
    t = at_the_well()
    t.roll("red", K, K, K, K, A)
    t.ok(type="wish", player="red", wish="treasure", treasure="double_key")
    reason = t.no(type="wish", player="red", wish="treasure", treasure="teleport")
    assert reason == ("red has wished already: leave the Wishing well and come back to wish again")
    (action,) = wish(t)
    assert action.blocked == "wished already: leave the well and come back to wish again"
    assert t.state["wished_at_well"] == ["red"]
    t.ok(type="enter", player="red", cell=[0, 0])
    assert t.state["wished_at_well"] == []  # he left: the well forgets him
    t.roll("red", A, K, K, K, T)
    t.ok(type="enter", player="red", cell=[1, 0])
    t.ok(type="wish", player="red", wish="treasure", treasure="teleport")
    assert t.state["players"]["red"]["treasures"] == ["double_key", "teleport"]


def test_each_player_wishes_once_a_visit():  # Queenie 14: "the player has to leave"
    t = at_the_well()
    t.roll("red", K, K, T, T, G)
    t.ok(type="wish", player="red", wish="treasure", treasure="double_key")
    t.roll("blue", A, K, K, K, T)
    t.ok(type="enter", player="blue", cell=[1, 0])
    t.ok(type="wish", player="blue", wish="treasure", treasure="extra_gem")
    assert t.state["wished_at_well"] == ["red", "blue"]


def test_a_wish_gets_rid_of_a_curse_and_the_broken_die_comes_back():  # Queenie 14, page 10
    t = Table(modules=ALL)
    t.roll("red", A, A, A, K, G)
    t.ok(type="discover", player="red", tile="ct-gem1-key-1", cell=[-1, 0])  # a purple mask
    t.ok(type="curse", player="red", card="broken_die")
    assert t.player("red").dice == 4
    t.roll("red", A, A, A, K)
    t.ok(type="discover", player="red", tile="wishing-well", cell=[1, 0])
    t.ok(type="enter", player="red", cell=[1, 0])
    t.roll("red", K, K, T, G)
    assert lost_dice(t.game, t.player("red")) == 0  # the broken die lies on its card
    assert "not cursed with that card: he holds Broken die" in t.no(
        type="wish", player="red", wish="curse", card="mask"
    )
    t.ok(type="wish", player="red", wish="curse", card="broken_die")
    assert t.state["players"]["red"]["curses"] == [] and t.player("red").dice == 5


def test_a_wish_reclaims_a_die_lost_at_a_door_slam():  # Queenie 14, page 7
    t = at_the_well()
    t.roll("red", K, K, T, T, G)
    assert t.no(type="wish", player="red", wish="die") == "red has lost no die to reclaim"
    t.ok(type="countdown_start", n=1)
    t.ok(type="countdown_end", n=1)  # red is outside the start: a die lost
    assert t.player("red").dice == 4
    t.roll("red", K, K, T, T)
    (action,) = wish(t)
    assert "reclaim a lost die" in [c["name"] for c in action.choices]
    t.ok(type="wish", player="red", wish="die")
    assert t.player("red").dice == 5 and t.player("red").showing[T] == 2


def test_without_module_2_the_well_has_no_treasure_and_a_wish_must_be_named():  # Queenie 14
    t = at_the_well(modules=["wishing_well"])
    t.roll("red", K, K, T, T, G)
    assert "Treasures module is not in play" in t.no(
        type="wish", player="red", wish="treasure", treasure="double_key"
    )
    assert t.no(type="wish", player="red", wish="gold") == (
        "'wish' must be 'treasure', 'curse' or 'die'"
    )
    assert t.no(type="wish", player="red", wish="curse", card="trap") == (
        "red has no curse in front of him to get rid of"
    )
    (action,) = wish(t)
    assert action.blocked.startswith("nothing to wish for") and action.choices == []
    assert t.no(type="wish", player="blue", wish="die") == "blue is not in the Wishing well"


def test_the_dashboard_offers_every_wish_the_well_may_grant():
    t = at_the_well()
    t.player("red").curses.append("silence")
    (action,) = wish(t)
    assert action.need == {K: 2} and action.blocked is None
    names = [c["name"] for c in action.choices]
    assert "draw a treasure: Double key" in names
    assert "get rid of the curse Silence" in names
    assert "reclaim a lost die" not in names
    assert wish(Table(modules=ALL)) == []


def test_the_log_says_what_the_well_gave():
    t = at_the_well()
    say = lambda **e: tell_event({"type": "wish", "player": "red", **e}, t.game)  # noqa: E731
    assert say(wish="treasure", treasure="double_key") == (
        "Red wishes at the well and draws a treasure: the Double key"
    )
    assert (
        say(wish="curse", card="silence")
        == "Red wishes at the well and is rid of the curse Silence"
    )
    assert say(wish="die") == "Red wishes at the well and gets a lost die back"


def test_a_record_replays_to_the_same_state():
    events = [
        {"type": "dice", "player": "red", "faces": [A, A, A, K, K]},
        {"type": "discover", "player": "red", "tile": "wishing-well", "cell": [1, 0]},
        {"type": "enter", "player": "red", "cell": [1, 0]},
        {"type": "dice", "player": "red", "faces": [K, K, T, T, G]},
        {"type": "wish", "player": "red", "wish": "treasure", "treasure": "teleport"},
    ]
    live = Game.from_setup_line(SETUP)
    assert all(live.apply(e).ok for e in events)
    text = "\n".join(json.dumps(line) for line in [SETUP, *events])
    replay = replay_lines(text.split("\n"))
    assert all(v.ok for v in replay.verdicts)
    assert replay.game.state_json() == live.state_json()
    assert replay.game.state_json()["wished_at_well"] == ["red"]


def test_an_undone_wish_may_be_made_again():
    t = at_the_well()
    t.roll("red", K, K, T, T, G)
    t.ok(type="wish", player="red", wish="treasure", treasure="double_key")
    t.ok(type="undo")
    assert t.state["wished_at_well"] == [] and t.state["players"]["red"]["treasures"] == []
    t.ok(type="wish", player="red", wish="treasure", treasure="teleport")
    assert t.state["players"]["red"]["treasures"] == ["teleport"]
