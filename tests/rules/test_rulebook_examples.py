"""The rulebook's own examples (Big Box manual, basic game, pages 6-9), played through the rules."""

from rules_helpers import A, B, G, K, T, Table, start_and

from rules.actions import open_actions

TEMPLE = start_and(
    ("exit", (0, 1), "S"),
    ("gem3-key-1", (1, 0), "W"),
    ("gem3-torch-1", (-1, 0), "E"),
    ("gem1-torch-2", (0, -1), "N"),
)


def ani_and_frank(**setup):
    return Table(**{"players": ["ani", "frank"], "temple": TEMPLE, **setup})


def test_frank_escapes_with_three_keys_when_two_gems_are_left_in_the_depot():
    t = ani_and_frank()
    t.game.depot = 2  # late in the game: the rest of the gems have been activated
    t.roll("frank", A, K, T, T, G).ok(type="enter", player="frank", cell=[0, 1])
    assert t.state["keys_to_escape"] == 3
    t.roll("frank", K, K, K, A, B)
    t.ok(type="escape", player="frank")
    assert t.state["players"]["frank"]["escaped"] is True


def test_ani_and_frank_pool_seven_keys_to_activate_two_gems():
    t = ani_and_frank()
    for pid in ("ani", "frank"):
        t.roll(pid, A, K, T, T, T).ok(type="enter", player=pid, cell=[1, 0])
    t.roll("ani", K, K, K, K, A).roll("frank", K, K, K, T, A)
    t.ok(type="activate", cell=[1, 0], gems=2, players=["ani", "frank"])
    assert t.game.temple.at((1, 0)).gems == 2
    assert t.state["depot"] == 5
    # "Two of this chamber's gems have been activated, so players cannot activate any more."
    t.roll("ani", K, K, K, K, K)
    assert "no more gems" in t.no(type="activate", cell=[1, 0], gems=1, players=["ani"])


def test_frank_rolls_four_torches_and_activates_the_gem_of_his_chamber():
    t = ani_and_frank()
    t.roll("frank", A, T, A, A, A).ok(type="enter", player="frank", cell=[0, -1])
    t.roll("frank", T, T, T, T, K)
    t.ok(type="activate", cell=[0, -1], gems=1, players=["frank"])
    assert t.game.temple.at((0, -1)).gems == 1


def test_ani_rolls_two_black_masks_and_has_three_dice_left_to_roll():
    t = ani_and_frank().roll("ani", B, B, A, K, T)
    assert t.player("ani").free_dice == 3
    # Then she rolls a golden mask with those three and may add both cursed dice again.
    t.roll("ani", B, B, G, A, A)
    t.ok(type="unlock", player="ani", count=2)
    assert t.player("ani").free_dice == 5


def test_ani_gives_her_golden_mask_to_frank_who_is_worse_off():
    t = ani_and_frank()
    t.roll("ani", G, B, A, A, K)
    t.roll("frank", B, B, A, K, T)
    t.ok(type="unlock", player="frank", by="ani", count=2)
    # "On his next roll, Frank rolls all five of his dice, while Ani can roll only four."
    assert t.player("frank").free_dice == 5
    assert t.player("ani").free_dice == 4
    assert t.player("ani").locked == 1


def test_the_golden_mask_helps_only_a_player_in_the_same_chamber():
    t = ani_and_frank()
    t.roll("frank", A, K, B, T, T).ok(type="enter", player="frank", cell=[1, 0])
    t.roll("ani", G, A, A, A, A)
    assert "same chamber" in t.no(type="unlock", player="frank", by="ani", count=1)


def test_frank_uses_two_adventurers_to_discover_and_connect_the_stairway():
    t = Table(players=["ani", "frank"]).roll("frank", A, A, K, T, B)
    assert "not next to" in t.no(type="discover", player="frank", tile="chamber-2", cell=[1, 1])
    t.ok(type="discover", player="frank", tile="chamber-2", cell=[1, 0])
    placed = t.game.temple.at((1, 0))
    assert placed.stairs == "W"  # the stairway joins the start chamber's E entrance
    assert t.game.temple.connected((0, 0), (1, 0))
    assert t.player("frank").cell == (0, 0)


def test_frank_could_discover_two_chambers_from_a_chamber_with_two_free_entrances():
    # A corridor (doors N and S) whose far side and one flank are open and unconnected.
    t = Table(players=["frank", "ani"], temple=start_and(("gem1-key-1", (1, 0), "W")))
    t.roll("frank", A, K, A, A, A).ok(type="enter", player="frank", cell=[1, 0])
    discover = [a for a in open_actions(t.game, "frank") if a.action == "discover"]
    # gem1-key-1 has doors N, E: with stairs W they face E and S.
    assert sorted(tuple(a.event["cell"]) for a in discover) == [(1, -1), (2, 0)]


def test_frank_may_enter_only_the_chamber_beyond_an_open_passage():
    # Frank's chamber: open N (a chamber there), a wall to the W, open E with nothing yet.
    temple = start_and(("chamber-4", (0, 1), "S"), ("chamber-1", (0, 2), "S"))
    t = Table(players=["frank", "ani"], temple=temple)
    t.roll("frank", K, K, A, A, A).ok(type="enter", player="frank", cell=[0, 1])
    actions = open_actions(t.game, "frank")
    enters = sorted(tuple(a.event["cell"]) for a in actions if a.action == "enter")
    discovers = [tuple(a.event["cell"]) for a in actions if a.action == "discover"]
    assert enters == [(0, 0), (0, 2)]
    assert discovers == [(1, 1)]  # the E entrance has no chamber yet; the W is a wall


def test_frank_escapes_and_gives_a_die_to_ani_who_uses_it_at_once():
    t = ani_and_frank()
    t.game.depot = 2
    t.roll("frank", A, K, T, T, G).ok(type="enter", player="frank", cell=[0, 1])
    t.roll("frank", K, K, K, A, B).ok(type="escape", player="frank")
    t.ok(**{"type": "give_die", "from": "frank", "to": "ani"})
    assert t.player("ani").dice == 6
    t.roll("ani", A, A, K, B, T, T)
    t.ok(type="enter", player="ani", cell=[1, 0])


def test_ani_misses_the_start_chamber_twice_and_loses_two_dice():
    t = ani_and_frank()
    t.roll("ani", A, K, T, T, T).ok(type="enter", player="ani", cell=[1, 0])
    t.ok(type="countdown_start", n=1).ok(type="countdown_end", n=1)
    assert t.player("ani").dice == 4
    assert t.player("frank").dice == 5
    t.ok(type="countdown_start", n=2).ok(type="countdown_end", n=2)
    assert t.player("ani").dice == 3


def test_a_turn_of_fate_adds_a_gem_and_frees_every_black_mask():
    t = ani_and_frank().roll("ani", B, B, B, A, A).roll("frank", B, K, K, T, T)
    t.ok(type="turn_of_fate")
    assert t.state["depot"] == 8
    assert t.player("ani").locked == 0 and t.player("frank").locked == 0


def test_if_anyone_is_inside_when_the_temple_collapses_everyone_loses():
    t = ani_and_frank()
    t.game.depot = 0
    t.roll("frank", A, K, K, T, G).ok(type="enter", player="frank", cell=[0, 1])
    t.roll("frank", K, T, T, T, T).ok(type="escape", player="frank")
    t.ok(type="countdown_start", n=3).ok(type="collapse")
    assert t.state["outcome"] == "lost"
