"""Big Box modules 1 (Curses) and 2 (Treasures), from the rulebook's pages 10 and 11."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from rules_helpers import A, B, G, K, T, Table, start_and

from rules.actions import all_open_actions, open_actions
from rules.engine import Game
from rules.game_setup import setup_catalog
from rules.modules import CURSE_CARDS, TREASURES
from rules.record import replay_lines

BOTH = ["curses", "treasures"]
# ct-gem1-key-1 shows a purple mask, ct-gem1-key-2 a treasure icon, ct-gem1-key-3 both.
MASK, CHEST, BOTH_MARKS = "ct-gem1-key-1", "ct-gem1-key-2", "ct-gem1-key-3"


def frank(**setup):
    return Table(players=["frank", "ani"], modules=BOTH, **setup)


def test_the_13_curse_and_treasure_chambers_replace_the_13_basic_ones():
    catalog = setup_catalog(BOTH)
    assert len(catalog) == 19
    chambers = [t for t in catalog.values() if t.tile_id.startswith("ct-")]
    assert len(chambers) == 13 and all(t.curse or t.treasure for t in chambers)
    assert "chamber-1" not in catalog and "gem3-key-1" in catalog


def test_frank_discovers_a_purple_mask_and_draws_a_curse_card():  # page 10
    t = frank().roll("frank", A, A, K, K, T)
    t.ok(type="discover", player="frank", tile=MASK, cell=[1, 0])
    assert t.state["players"]["frank"]["curses_to_draw"] == 1
    t.ok(type="curse", player="frank", card="trap")
    assert t.player("frank").curses == ["trap"]
    assert "no curse card to draw" in t.no(type="curse", player="frank", card="silence")
    assert "cursed (Trap)" in t.no(type="enter", player="frank", cell=[1, 0])


def test_a_second_copy_of_a_curse_is_discarded_without_effect():  # page 10, note
    t = frank(track_dice=False)
    t.ok(type="discover", player="frank", tile=MASK, cell=[1, 0])
    t.ok(type="discover", player="frank", tile=BOTH_MARKS, cell=[-1, 0])
    t.ok(type="curse", player="frank", card="broken_die")
    t.ok(type="curse", player="frank", card="broken_die")
    assert t.player("frank").curses == ["broken_die"] and t.player("frank").dice == 4


def test_frank_rolls_the_curse_s_icons_by_himself_and_lifts_it():  # page 10
    t = frank().roll("frank", A, A, K, K, T)
    t.ok(type="discover", player="frank", tile=MASK, cell=[1, 0]).ok(
        type="curse", player="frank", card="broken_die"
    )
    assert t.player("frank").dice == 4  # one die lies on the card
    t.roll("frank", A, A, B, G)
    reason = t.no(type="lift", player="frank", card="broken_die")
    assert "to lift the curse Broken die (by himself)" in reason
    t.roll("ani", K, T, A, A, A)  # ani's icons cannot help: a curse is lifted alone
    t.no(type="lift", player="frank", card="broken_die")
    t.roll("frank", K, T, A, B)
    t.ok(type="lift", player="frank", card="broken_die")
    assert t.player("frank").curses == [] and t.player("frank").dice == 5


def test_purple_masks_laid_at_set_up_are_ignored():  # page 10, note
    t = frank(temple=start_and((MASK, (1, 0), "W")))
    assert t.state["players"]["frank"]["curses_to_draw"] == 0


def test_a_mask_curse_lets_a_golden_mask_free_only_one_black_mask():  # page 11
    t = frank(track_dice=False)
    t.ok(type="discover", player="frank", tile=MASK, cell=[1, 0])
    t.ok(type="curse", player="frank", card="mask")
    t.game.players["frank"].locked = 2
    assert "frees only 1" in t.no(type="unlock", player="frank", count=2)
    t.ok(type="unlock", player="frank", count=1)


def test_a_lost_die_needs_the_curse():  # page 11
    t = frank(track_dice=False)
    assert "not cursed with Lost dice" in t.no(type="lose_die", player="frank")
    t.ok(type="discover", player="frank", tile=MASK, cell=[1, 0])
    t.ok(type="curse", player="frank", card="lost_dice").ok(type="lose_die", player="frank")
    assert t.player("frank").dice == 4


def test_frank_discovers_a_treasure_icon_and_claims_it_with_two_keys():  # page 10
    t = frank().roll("frank", A, A, K, K, T)
    t.ok(type="discover", player="frank", tile=CHEST, cell=[1, 0])
    assert t.state["treasure_cells"] == [[1, 0]]
    t.roll("frank", A, K, A, A, A).ok(type="enter", player="frank", cell=[1, 0])
    t.roll("frank", K, A, T, T, T)
    assert "1 key, 2 needed to claim a treasure" in t.no(
        type="claim", player="frank", treasure="double_key"
    )
    t.roll("frank", K, K, T, T, T).ok(type="claim", player="frank", treasure="double_key")
    assert t.player("frank").treasures == ["double_key"] and t.state["treasure_cells"] == []


def test_a_double_key_serves_as_two_keys_once():  # page 11
    t = frank(temple=start_and(("exit", (0, 1), "S")))
    t.game.depot = 2
    t.game.players["frank"].treasures.append("double_key")
    t.roll("frank", A, K, A, A, A).ok(type="enter", player="frank", cell=[0, 1])
    t.roll("frank", K, A, A, A, A)
    t.no(type="escape", player="frank")  # 3 keys needed, 1 showing
    t.ok(type="escape", player="frank", treasures=["double_key"])
    assert t.player("frank").treasures == []


def test_healing_mask_teleport_secret_passage_and_extra_gem():  # page 11
    t = frank(track_dice=False, temple=start_and(("ct-chamber-2", (1, 0), "W")))
    for treasure in ("healing_mask", "teleport", "secret_passage", "extra_gem"):
        t.game.players["frank"].treasures.append(treasure)
    t.game.players["ani"].locked = 2
    t.ok(type="use", player="frank", treasure="healing_mask")
    assert t.player("ani").locked == 0
    t.ok(type="enter", player="ani", cell=[1, 0])
    t.ok(type="use", player="frank", treasure="teleport", cell=[1, 0])
    assert t.player("frank").cell == (1, 0)
    t.ok(type="discover", player="ani", tile="exit", cell=[2, 0])
    wall = t.no(type="enter", player="frank", cell=[0, 1])
    assert "no chamber" in wall
    depot = t.state["depot"]
    t.ok(type="use", player="frank", treasure="extra_gem")
    assert t.state["depot"] == depot - 1 and t.state["extra_gems"] == 1
    assert "holds no Teleport" in t.no(type="use", player="frank", treasure="teleport", cell=[0, 0])


def test_a_secret_passage_joins_two_chambers_a_wall_kept_apart():
    # chamber-6 has no door but its stairway: at [1, 1] facing S it turns its back on [0, 1].
    temple = start_and(
        ("ct-chamber-6", (1, 1), "S"), ("ct-chamber-1", (0, 1), "S"), ("exit", (1, 0), "W")
    )
    t = frank(track_dice=False, temple=temple)
    t.ok(type="enter", player="frank", cell=[0, 1])
    assert "wall blocks" in t.no(type="enter", player="frank", cell=[1, 1])
    t.game.players["frank"].treasures.append("secret_passage")
    t.ok(type="use", player="frank", treasure="secret_passage", cells=[[0, 1], [1, 1]])
    t.ok(type="enter", player="frank", cell=[1, 1])
    assert t.state["secret_passages"] == [[[0, 1], [1, 1]]]


def test_module_events_are_unknown_in_a_basic_game():
    reason = Table().no(type="curse", player="red", card="trap")
    assert reason.startswith("unknown event type 'curse'")


def test_the_dashboard_offers_the_modules_actions():
    t = frank(track_dice=False)
    t.ok(type="discover", player="frank", tile=BOTH_MARKS, cell=[1, 0])
    labels = [a.label for a in open_actions(t.game, "frank")]
    assert "draw a curse card" in labels
    t.ok(type="curse", player="frank", card="trap")
    actions = {a.label: a for a in open_actions(t.game, "frank")}
    assert "lift the curse Trap (by yourself)" in actions
    enter = next(a for a in actions.values() if a.action == "enter")
    assert enter.blocked == "cursed (Trap): no entering or discovering"


def test_the_basic_state_is_unchanged_and_module_games_replay():
    assert "treasure_cells" not in Table().state
    lines = [
        json.dumps({"type": "setup", "players": ["red"], "modules": BOTH, "track_dice": False}),
        json.dumps({"type": "discover", "player": "red", "tile": BOTH_MARKS, "cell": [1, 0]}),
        json.dumps({"type": "curse", "player": "red", "card": "silence"}),
        json.dumps({"type": "enter", "player": "red", "cell": [1, 0]}),
        json.dumps({"type": "claim", "player": "red", "treasure": "teleport"}),
        json.dumps({"type": "undo"}),
    ]
    replay = replay_lines(lines)
    assert all(v.ok for v in replay.verdicts)
    assert replay.game.state_json()["treasure_cells"] == [[1, 0]]


EVENTS = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            ["dice", "discover", "enter", "curse", "lift", "lose_die", "claim", "use", "unlock"]
        ),
        "player": st.sampled_from(["red", "blue", None, 3]),
        "card": st.sampled_from([*CURSE_CARDS, "x", None]),
        "treasure": st.sampled_from([*TREASURES, None]),
        "cell": st.sampled_from([[1, 0], [0, 1], [0, 0], "x"]),
        "tile": st.sampled_from([MASK, CHEST, BOTH_MARKS, "exit"]),
        "faces": st.lists(st.sampled_from([A, K, T, G, B]), min_size=5, max_size=5),
        "count": st.sampled_from([1, 2]),
        "treasures": st.sampled_from([[], ["double_key"], ["double_torch"], "x"]),
        "cells": st.sampled_from([[[0, 0], [1, 0]], None, "x"]),
    }
)


@settings(max_examples=60, deadline=None)
@given(st.lists(EVENTS, max_size=25), st.sampled_from([["curses"], ["treasures"], BOTH]))
def test_no_event_sequence_crashes_the_engine_with_any_set_of_modules(events, modules):
    game = Game.from_setup_line({"type": "setup", "players": ["red", "blue"], "modules": modules})
    for event in events:
        game.apply(event)
        for actions in all_open_actions(game).values():
            assert all(a.label for a in actions)


def test_the_curse_pile_holds_14_cards_and_never_a_fourth_copy():  # page 10
    t = frank()
    assert sum(t.game.curses_left().values()) == 14
    assert t.game.curses_left()["trap"] == 3 and t.game.curses_left()["silence"] == 2
    for _ in range(3):
        t.player("ani").curses_to_draw += 1
        t.ok(type="curse", player="ani", card="trap")  # a second copy is discarded, still drawn
    assert t.game.curses_left()["trap"] == 0
    t.player("frank").curses_to_draw = 1
    assert "Trap cards, all drawn already" in t.no(type="curse", player="frank", card="trap")
    t.ok(type="curse", player="frank", card="silence")
    assert sum(t.game.curses_left().values()) == 10
    with_soul = Table(players=["frank", "ani"], modules=["curses", "special"])
    assert sum(with_soul.game.curses_left().values()) == 15  # one Soul exchange more
