"""Big Box module 6 (Characters), from the rulebook's pages 20 and 21."""

import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_helpers import A, B, G, K, T, Table, start_and

from rules.actions import all_open_actions, open_actions
from rules.engine import Game
from rules.errors import RecordError
from rules.module_characters import ABILITIES
from rules.narrative import tell_event

GEM_EAST = start_and(("gem1-key-1", (1, 0), "W"))  # a one-gem chamber (4 keys) east of the start
THREE_GEMS_EAST = start_and(("gem3-key-1", (1, 0), "W"))  # 3 gems for 4, 7, 10 keys


def table(micha, ani, **setup):
    return Table(
        players=["micha", "ani"],
        modules=["characters"],
        characters={"micha": micha, "ani": ani},
        **setup,
    )


def test_every_player_keeps_one_card_of_a_character_nobody_else_plays():  # page 20
    assert len(ABILITIES) == 12
    assert {a.character for a in ABILITIES.values()} == {
        "Discoverer",
        "Doc",
        "Priest",
        "Mechanic",
        "Mentalist",
        "Muscleman",
    }
    with pytest.raises(RecordError, match="one player only"):
        table("doc-heal", "doc-masks")
    with pytest.raises(RecordError, match="every player"):
        Table(players=["micha", "ani"], modules=["characters"], characters={"micha": "doc-heal"})
    t = table("doc-heal", "priest-keys")
    assert t.state["players"]["micha"]["character"] == "doc-heal"
    assert t.state["players"]["micha"]["charged"] is True


def test_micha_lets_ani_reroll_her_black_masks_then_waits_for_the_slam():  # page 20
    t = table("doc-heal", "priest-keys", temple=GEM_EAST)
    t.player("ani").cell = (1, 0)  # "no matter where she's located"
    t.roll("ani", B, B, B, K, A)
    t.roll("micha", G, G, A, K, T)
    t.ok(type="ability", player="micha", target="ani")
    assert t.state["players"]["ani"]["locked"] == 0
    assert t.state["players"]["micha"]["charged"] is False  # he flips the card
    t.roll("ani", B, B, K, K, A).roll("micha", G, G, A, K, T)
    assert "face down" in t.no(type="ability", player="micha", target="ani")
    t.ok(type="countdown_start", n=1).ok(type="countdown_end", n=1)
    assert t.state["players"]["micha"]["charged"] is True  # face up after the door slam


def test_ani_uses_a_golden_mask_as_a_key_to_activate_the_gem():  # page 21
    t = table("doc-heal", "priest-keys", temple=GEM_EAST)
    t.player("ani").cell = (1, 0)
    t.roll("ani", K, K, K, G, A)
    t.ok(type="activate", cell=[1, 0], gems=1, players=["ani"])
    assert dict(t.player("ani").showing) == {A: 1}  # the golden mask was spent as a key
    plain = Table(players=["ani", "micha"], temple=GEM_EAST)
    plain.player("ani").cell = (1, 0)
    plain.roll("ani", K, K, K, G, A)
    assert "3 keys" in plain.no(type="activate", cell=[1, 0], gems=1, players=["ani"])


def test_micha_enters_with_his_two_rolled_adventurers():  # Muscleman, page 21
    t = table("muscleman-door", "doc-heal", temple=start_and(("chamber-4", (1, 0), "W")))
    t.roll("micha", A, A, T, T, G)  # chamber-4 asks 2 keys
    assert "key" in t.no(type="enter", player="micha", cell=[1, 0])
    assert "enter Chamber 4 with 2 adventurers (E)" in [
        a.label for a in open_actions(t.game, "micha")
    ]
    t.ok(type="enter", player="micha", cell=[1, 0], ability=True)
    assert t.state["players"]["micha"]["charged"]  # a permanent card never turns down


def test_micha_with_black_masks_only_moves_to_anis_chamber():  # Mentalist, page 21
    t = table("mentalist-follow", "doc-heal", temple=GEM_EAST)
    t.player("ani").cell = (1, 0)
    t.roll("micha", B, B, K, A, A)
    assert "black masks" in t.no(type="ability", player="micha", cell=[1, 0])
    t.roll("micha", B, B, B, B, B)
    t.ok(type="ability", player="micha", cell=[1, 0])
    assert t.state["players"]["micha"]["cell"] == [1, 0]


def test_micha_gives_three_keys_from_afar_and_they_activate_two_gems():  # Priest, page 21
    t = table("priest-offering", "doc-heal", temple=THREE_GEMS_EAST)
    t.player("ani").cell = (1, 0)
    t.roll("ani", K, K, K, K, A)  # Ani has rolled 4 keys
    t.roll("micha", B, B, B, A, T)  # Micha's 3 black masks, in the starting chamber
    assert "two players" in t.no(type="activate", cell=[1, 0], gems=2, players=["ani"])
    offered = [a for a in open_actions(t.game, "ani") if a.event.get("offering") == "micha"]
    assert any(a.possible and a.event["gems"] == 2 for a in offered)
    t.ok(type="activate", cell=[1, 0], gems=2, players=["ani"], offering="micha")
    assert t.state["temple"][1]["gems"] == 2
    micha = t.state["players"]["micha"]
    assert micha["locked"] == 0 and micha["charged"] is False  # re-rolled, card down


def test_the_priest_may_simply_reroll_three_black_masks():  # page 21's note
    t = table("priest-offering", "doc-heal")
    t.roll("micha", B, B, K, A, T)
    assert "2 black masks, 3 needed" in t.no(type="ability", player="micha")
    t.roll("micha", B, B, B, A, T)
    (reroll,) = [a for a in open_actions(t.game, "micha") if a.action == "ability"]
    assert reroll.possible and reroll.event == {"type": "ability", "player": "micha"}
    t.ok(type="ability", player="micha")
    micha = t.state["players"]["micha"]
    assert micha["locked"] == 0 and micha["charged"] is False  # the 3 re-rolled, card down
    said = tell_event({"type": "ability", "player": "micha"}, t.game)
    assert said == "Micha re-rolls 3 black masks (Priest)"
    t.roll("micha", B, B, B, A, T)
    assert "face down" in t.no(type="ability", player="micha")


def test_micha_enters_the_starting_chamber_through_the_wall():  # Muscleman, page 21
    # chamber-2 north of the start, its stairway E: its south side is a wall
    t = table("muscleman-wall", "doc-heal", temple=start_and(("chamber-2", (0, 1), "E")))
    t.player("micha").cell = (0, 1)
    assert "wall" in t.no(type="enter", player="micha", cell=[0, 0])
    t.roll("micha", A, A, K, K, T)
    t.ok(type="enter", player="micha", cell=[0, 0], ability=True)
    assert t.state["players"]["micha"]["charged"] is False


def test_ani_activates_one_gem_with_two_torches():  # Mechanic, page 21
    t = table("doc-heal", "mechanic-torches", temple=start_and(("gem1-torch-2", (1, 0), "W")))
    t.player("ani").cell = (1, 0)
    t.roll("ani", T, T, K, A, A)
    t.ok(type="activate", cell=[1, 0], gems=1, players=["ani"])
    assert dict(t.player("ani").showing) == {K: 1, A: 2}


def test_the_mechanic_turns_any_chamber_but_the_start():  # page 21
    t = table("mechanic-rotate", "doc-heal", temple=GEM_EAST)
    t.roll("micha", T, T, A, A, K)
    assert "starting chamber" in t.no(type="ability", player="micha", cell=[0, 0], stairs="N")
    (turn,) = [a for a in open_actions(t.game, "micha") if a.action == "ability"]
    assert len(turn.choices) == 3 and turn.possible
    t.ok(type="ability", player="micha", cell=[1, 0], stairs="S")
    assert t.state["temple"][1]["stairs"] == "S"
    assert not t.game.connected((0, 0), (1, 0))  # gem1-key-1 (doors N, E) now turns W to a wall


def test_the_discoverer_runs_up_to_three_chambers():  # page 20
    t = table(
        "discoverer-run",
        "doc-heal",
        temple=start_and(("chamber-1", (1, 0), "W"), ("chamber-3", (2, 0), "W")),
    )
    t.roll("micha", A, A, A, K, T)
    t.ok(type="ability", player="micha", cells=[[1, 0], [2, 0]])
    assert t.state["players"]["micha"]["cell"] == [2, 0]
    assert t.state["players"]["micha"]["dice"] == 5 and dict(t.player("micha").showing) == {
        K: 1,
        T: 1,
    }


def test_the_docs_golden_mask_frees_three_black_masks():  # page 20
    t = table("doc-masks", "priest-keys")
    t.roll("ani", B, B, B, K, A).roll("micha", G, A, A, K, T)
    t.ok(type="unlock", player="ani", by="micha", count=3)
    assert t.state["players"]["ani"]["locked"] == 0
    plain = Table(players=["ani", "micha"])
    plain.roll("ani", B, B, B, K, A).roll("micha", G, A, A, K, T)
    reason = plain.no(type="unlock", player="ani", by="micha", count=3)
    assert reason == "a golden mask frees 1 or 2 black masks: 'count' must be 1 or 2"


def test_a_game_without_characters_knows_no_ability():
    t = Table(players=["red"], track_dice=False)
    assert "unknown event type 'ability'" in t.no(type="ability", player="red")
    assert "character" not in t.state["players"]["red"]


EVENTS = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(["ability", "enter", "activate", "unlock", "dice"]),
            "player": st.sampled_from(["micha", "ani"]),
            "target": st.sampled_from(["micha", "ani"]),
            "cell": st.sampled_from([[1, 0], [0, 1], [0, 0], [-1, 0]]),
            "cells": st.sampled_from([[[1, 0]], [[1, 0], [0, 0]], [], "x"]),
            "stairs": st.sampled_from(["N", "E", "S", "W", "X"]),
            "ability": st.booleans(),
            "gems": st.integers(1, 3),
            "players": st.sampled_from([["micha"], ["ani"], ["micha", "ani"]]),
            "offering": st.sampled_from(["micha", "ani", None]),
            "count": st.integers(1, 3),
            "faces": st.lists(st.sampled_from([A, K, T, G, B]), min_size=5, max_size=5),
        }
    ),
    st.sampled_from([{"type": "countdown_end", "n": 1}, {"type": "undo"}]),
)
CARDS = sorted(ABILITIES)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(EVENTS, max_size=25),
    st.sampled_from(
        [
            ["characters"],
            ["special", "characters"],
            ["curses", "treasures", "illusions", "special", "quests", "characters"],
        ]
    ),
    st.sampled_from(CARDS),
    st.sampled_from(CARDS),
)
def test_no_event_sequence_crashes_the_engine_with_characters_and_any_other_module(
    events, modules, micha, ani
):
    if ABILITIES[micha].character == ABILITIES[ani].character:
        return
    setup = {
        "type": "setup",
        "players": ["micha", "ani"],
        "modules": modules,
        "characters": {"micha": micha, "ani": ani},
        "quests": ["ghost"],
        "temple": start_and(("gem3-key-1", (1, 0), "W")),
    }
    game = Game.from_setup_line(setup)
    for event in events:
        game.apply(event)
        for actions in all_open_actions(game).values():
            assert all(a.label for a in actions)
        for player in game.players.values():
            assert 0 <= player.locked <= player.dice
            assert sum(player.showing.values()) + player.locked <= player.dice
            assert all(n > 0 for n in player.showing.values())


def test_games_without_the_modules_ignore_their_fields_as_they_always_did():
    # a basic record with stray "ability", "chalice" or "offering" fields judges as before
    t = Table(players=["red", "blue"], track_dice=False, temple=GEM_EAST)
    t.ok(type="enter", player="red", cell=[1, 0], ability=True, chalice=True)
    t.ok(type="activate", cell=[1, 0], gems=1, players=["red"], offering="blue")
    assert t.state["players"]["red"] == {"cell": [1, 0], "escaped": False, "dice": 5, "locked": 0}


def test_the_discoverers_run_lists_the_same_ways_whatever_the_hash_seed():
    """The run's choices (and so random games) are the same in every process: the sides are
    walked in order, never in a set's order."""
    script = (
        "import json\n"
        "from rules.actions import all_open_actions\n"
        "from rules.benchmark import grid_temple_game\n"
        "game = grid_temple_game(3, modules=('characters',))\n"
        "runs = [a.to_json() for found in all_open_actions(game).values() for a in found\n"
        "        if a.event.get('type') == 'ability' and a.choices]\n"
        "print(json.dumps(runs))\n"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
        ).stdout
        for seed in (1, 2, 3, 4)
    }
    (only,) = outputs
    assert "run" in only.lower()  # the Discoverer's run is among them
