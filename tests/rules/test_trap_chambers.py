"""Big Box module 7 (Trap chambers), from the rulebook's pages 22 and 23."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_helpers import A, G, K, T, Table, start_and

from rules.actions import all_open_actions, open_actions
from rules.engine import Game
from rules.errors import RecordError
from rules.game_setup import setup_catalog, starting_candidates
from rules.narrative import tell_event

ALL = ["cliff-torch", "cliff-key", "invocation", "slide"]


def table(traps=ALL, track_dice=False, **setup):
    return Table(
        players=["red", "blue"], modules=["traps"], traps=traps, track_dice=track_dice, **setup
    )


def test_the_trap_chambers_drawn_join_the_pile_never_the_starting_temple():  # page 22
    t = table(["slide", "platform"])
    assert {tile.tile_id for tile in t.game.unplaced_tiles() if tile.trap} == {
        "trap-slide",
        "trap-platform",
    }
    catalog = setup_catalog(["traps"])
    assert not [i for i in starting_candidates(catalog) if catalog[i].trap]
    with pytest.raises(RecordError, match="2 to 4 trap chambers"):
        table(["slide"])
    with pytest.raises(RecordError, match="never laid at set-up"):
        table(temple=start_and(("trap-slide", (1, 0), "W")))


def test_the_discoverer_is_placed_inside_at_once_without_its_red_frame():  # page 22
    t = Table(players=["red", "blue"], modules=["traps"], traps=ALL)
    t.roll("red", A, A, K, K, G)
    t.ok(type="discover", player="red", tile="trap-slide", cell=[1, 0])
    assert t.state["players"]["red"]["cell"] == [1, 0]
    assert dict(t.player("red").showing) == {K: 2, G: 1}  # only the discovery's 2 adventurers


def test_the_cliff_holds_its_discoverer_until_he_rolls_three_torches_alone():  # page 23
    t = Table(players=["red", "blue"], modules=["traps"], traps=ALL)
    t.roll("red", A, A, K, K, G)
    t.ok(type="discover", player="red", tile="trap-cliff-torch", cell=[1, 0])
    assert t.state["on_cliff"] == ["red"]
    assert "stuck on the cliff" in t.no(type="enter", player="red", cell=[0, 0])
    (move,) = [a for a in open_actions(t.game, "red") if a.action == "enter"]
    assert move.blocked == "stuck on the cliff until he rolls his way down by himself"
    # Blue comes to help, but only with golden masks
    t.roll("blue", A, A, T, T, T)
    t.ok(type="enter", player="blue", cell=[1, 0])
    t.roll("red", T, T, "black_mask", "black_mask", K)
    t.roll("blue", G, G, T, T, T)
    t.ok(type="unlock", player="red", by="blue", count=2)
    assert "climb" not in [a.action for a in open_actions(t.game, "blue")]
    t.roll("red", T, T, T, A, K)
    t.ok(type="climb", player="red")
    assert t.state["on_cliff"] == []
    t.ok(type="enter", player="red", cell=[0, 0])


def test_a_player_on_a_cliff_may_still_discover():  # page 23 forbids leaving only
    t = Table(players=["red", "blue"], modules=["traps"], traps=ALL)
    t.roll("red", A, A, K, K, G)
    t.ok(type="discover", player="red", tile="trap-cliff-torch", cell=[1, 0])
    t.roll("red", A, A, K, K, G)
    found = [a for a in open_actions(t.game, "red") if a.action == "discover"]
    assert found and all(a.possible for a in found)
    t.ok(type="discover", player="red", tile="chamber-1", cell=found[0].event["cell"])
    assert t.state["players"]["red"]["cell"] == [1, 0] and t.state["on_cliff"] == ["red"]
    assert "stuck on the cliff" in t.no(type="enter", player="red", cell=found[0].event["cell"])


def test_a_trap_chamber_found_from_a_cliff_takes_the_player_off_the_cliff():
    t = Table(players=["red", "blue"], modules=["traps"], traps=ALL)  # pages 22-23
    t.roll("red", A, A, K, K, G)
    t.ok(type="discover", player="red", tile="trap-cliff-torch", cell=[1, 0])
    t.roll("red", A, A, K, K, G)
    spots = [a.event["cell"] for a in open_actions(t.game, "red") if a.action == "discover"]
    t.ok(type="discover", player="red", tile="trap-slide", cell=spots[0])
    assert t.state["players"]["red"]["cell"] == spots[0] and t.state["on_cliff"] == []
    assert t.no(type="climb", player="red") == "red is not stuck on a cliff"
    t.roll("red", A, A, K, K, G)
    spots = [a.event["cell"] for a in open_actions(t.game, "red") if a.action == "discover"]
    t.ok(type="discover", player="red", tile="trap-cliff-key", cell=spots[0])
    assert t.state["on_cliff"] == ["red"]  # the new cliff holds him, once


def test_the_invocation_chamber_summons_everyone_when_found_and_later_with_three_keys():
    t = table(temple=start_and(("chamber-1", (-1, 0), "E")))  # page 23
    t.ok(type="enter", player="blue", cell=[-1, 0])
    t.ok(type="discover", player="red", tile="trap-invocation", cell=[1, 0])
    assert [t.state["players"][p]["cell"] for p in ("red", "blue")] == [[1, 0], [1, 0]]
    t.ok(type="enter", player="blue", cell=[0, 0]).ok(type="enter", player="blue", cell=[-1, 0])
    t.ok(type="summon", player="red")
    assert t.state["players"]["blue"]["cell"] == [1, 0]
    t.ok(type="enter", player="blue", cell=[0, 0])
    assert "not in the invocation chamber" in t.no(type="summon", player="blue")


def test_nobody_leaves_the_slide_trap_by_its_tilted_stairway():  # page 23
    t = table()
    t.ok(type="discover", player="red", tile="trap-slide", cell=[1, 0])
    assert "tilted stairway" in t.no(type="enter", player="red", cell=[0, 0])
    assert not [a for a in open_actions(t.game, "red") if a.event.get("cell") == [0, 0]]
    t.ok(type="enter", player="blue", cell=[1, 0])  # others may come in by the stairway
    assert "tilted stairway" in t.no(type="enter", player="blue", cell=[0, 0])
    t.ok(type="discover", player="red", tile="chamber-1", cell=[2, 0])  # another way out


def test_the_moving_platform_waits_then_moves_to_where_its_stairway_meets_a_door():  # p. 23
    t = table(["platform", "slide"], temple=start_and(("chamber-1", (0, 1), "S")))
    t.ok(type="discover", player="red", tile="trap-platform", cell=[1, 0])
    assert t.state["platform_waits"]
    assert "moving platform" in t.no(type="enter", player="red", cell=[0, 0])
    (move,) = [a for a in open_actions(t.game, "red") if a.action == "platform"]
    spots = [choice["event"]["cell"] for choice in move.choices]
    # its stairway faces W: the spot east of chamber-1 (north of it) has chamber-1's E door
    assert [1, 1] in spots and [1, 0] not in spots
    assert "no spot" in t.no(type="platform", player="red", cell=[2, 2])
    t.ok(type="platform", player="red", cell=[1, 1])
    assert t.game.temple.at((1, 0)) is None and t.state["players"]["red"]["cell"] == [1, 1]
    t.ok(type="enter", player="red", cell=[0, 1])
    assert tell_event({"type": "platform", "cell": [1, 1]}, t.game) == (
        "The moving platform moves to the spot north-east of the start"
    )


def test_a_secret_passage_to_the_moving_platform_goes_with_it():  # pages 11 and 23
    t = Table(
        players=["red"],
        modules=["treasures", "traps"],
        traps=["platform", "slide"],
        track_dice=False,
        temple=start_and(("ct-gem1-key-1", (0, 1), "S"), ("ct-gem1-key-2", (1, -1), "N")),
    )
    t.ok(type="discover", player="red", tile="trap-platform", cell=[1, 0])
    t.game.players["red"].treasures.append("secret_passage")
    t.ok(type="use", player="red", treasure="secret_passage", cells=[[1, 0], [1, -1]])
    t.ok(type="platform", player="red", cell=[1, 1])
    assert t.state["secret_passages"] == []
    actions = all_open_actions(t.game)  # no passage left pointing at the empty spot
    assert all(a.event.get("cell") != [1, 0] for a in actions["red"])


def test_a_game_without_traps_knows_none_of_their_events():
    t = Table(players=["red"], track_dice=False)
    assert "unknown event type 'climb'" in t.no(type="climb", player="red")
    assert "on_cliff" not in t.state


EVENTS = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                ["discover", "enter", "climb", "summon", "platform", "unlock", "use", "ability"]
            ),
            "player": st.sampled_from(["red", "blue"]),
            "tile": st.sampled_from(
                ["trap-cliff-torch", "trap-invocation", "trap-slide", "trap-platform", "exit"]
            ),
            "cell": st.sampled_from([[1, 0], [0, 1], [-1, 0], [0, 0], [1, 1], [2, 0]]),
            "count": st.just(1),
            "treasure": st.just("teleport"),
        }
    ),
    st.sampled_from(
        [{"type": "countdown_end", "n": 1}, {"type": "countdown_end", "n": 2}, {"type": "undo"}]
    ),
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(EVENTS, max_size=25),
    st.sampled_from(
        [
            ["traps"],
            ["illusions", "traps"],
            ["curses", "treasures", "illusions", "special", "quests", "characters", "traps"],
        ]
    ),
    st.sampled_from([["cliff-torch", "invocation"], ["slide", "platform", "cliff-key"]]),
)
def test_no_event_sequence_crashes_the_engine_with_traps_and_any_other_module(
    events, modules, traps
):
    game = Game.from_setup_line(
        {
            "type": "setup",
            "players": ["red", "blue"],
            "modules": modules,
            "traps": traps,
            "quests": ["ghost"],
            "characters": {"red": "mentalist-teleport", "blue": "doc-heal"},
            "track_dice": False,
        }
    )
    for event in events:
        game.apply(event)
        for actions in all_open_actions(game).values():
            assert all(a.label for a in actions)
        cells = {placed.cell for placed in game.temple}
        assert all(p.cell in cells for p in game.players.values() if p.inside)
