"""Queenie: The Fountain (Big Box page 27): the chamber, the Poison and Strangle vines cards."""

import copy
import json

from rules_helpers import A, B, G, K, T, Table, start_and

from rules.actions import open_actions
from rules.engine import Game
from rules.game_setup import setup_catalog, starting_candidates
from rules.modules import curse_cards_in_play
from rules.modules_registry import INSTANCES
from rules.narrative import tell_event
from rules.record import replay_lines

FOUNTAIN_AT = start_and(("fountain", (1, 0), "W"))
CURSED = ["curses", "fountain"]


def at_fountain(*players: str, **setup) -> Table:
    t = Table(modules=setup.pop("modules", ["fountain"]), temple=FOUNTAIN_AT, **setup)
    for pid in players:
        t.player(pid).cell = (1, 0)
    return t


def cursed_with(t: Table, pid: str, card: str) -> Table:
    t.player(pid).curses_to_draw += 1
    return t.ok(type="curse", player=pid, card=card)


def test_the_fountain_is_shuffled_into_the_pile_never_laid_at_set_up():  # Big Box p. 27
    catalog = setup_catalog(["fountain"])
    assert catalog["fountain"].feature == "fountain"
    assert "fountain" not in starting_candidates(catalog)
    assert "fountain" not in setup_catalog(["pit"])
    game = Table(modules=["fountain"]).game
    assert "fountain" in {tile.tile_id for tile in game.unplaced_tiles()}


def test_two_golden_masks_by_himself_regain_a_lost_die():  # Big Box p. 27
    t = at_fountain("red", "blue")
    t.player("red").dice = 3
    t.roll("red", G, K, T)
    t.roll("blue", G, G, G, K, T)  # blue's golden masks cannot help: by himself
    reason = t.no(type="drink", player="red")
    assert "red shows 1 golden mask, 2 needed to regain a die at the Fountain" in reason
    t.roll("red", G, G, T)
    t.ok(type="drink", player="red")
    assert t.player("red").dice == 4
    assert dict(t.player("red").showing) == {T: 1}  # the new die is rolled next time
    assert "4 dice but 3 faces" in t.no(type="dice", player="red", faces=[T, T, T])
    t.roll("red", T, T, T, K)


def test_a_player_regains_only_one_die_a_game():  # Big Box p. 27
    t = at_fountain("red")
    t.player("red").dice = 3
    t.roll("red", G, G, T).ok(type="drink", player="red")
    t.roll("red", G, G, T, K)
    reason = t.no(type="drink", player="red")
    assert reason == "red has already regained a die at the Fountain (once a game)"
    assert not [a for a in open_actions(t.game, "red") if a.action == "drink"]
    assert t.state["fountain_regained"] == ["red"]


def test_each_player_regains_his_own_die():  # Big Box p. 27: "per game" is per player
    t = at_fountain("red", "blue")
    t.player("red").dice = t.player("blue").dice = 4
    t.roll("red", G, G, T, K).ok(type="drink", player="red")
    t.roll("blue", G, G, T, K).ok(type="drink", player="blue")
    assert t.player("blue").dice == 5


def test_only_a_lost_die_is_regained():  # Big Box p. 27
    t = at_fountain("red")
    t.roll("red", G, G, T, K, K)
    assert t.no(type="drink", player="red") == "red has lost no die to regain"
    (drink,) = [a for a in open_actions(t.game, "red") if a.action == "drink"]
    assert drink.blocked == "red has lost no die to regain"


def test_only_inside_the_fountain():  # Big Box p. 27
    t = Table(modules=["fountain"], temple=FOUNTAIN_AT)
    t.player("red").dice = 3
    t.roll("red", G, G, T)
    assert t.no(type="drink", player="red") == "red is not in the Fountain"


def test_the_open_action_regains_the_die():
    t = at_fountain("red")
    t.player("red").dice = 4
    t.roll("red", G, K, T, T)
    (drink,) = [a for a in open_actions(t.game, "red") if a.action == "drink"]
    assert drink.missing == {G: 1} and drink.blocked is None
    t.roll("red", G, G, T, T)
    (drink,) = [a for a in open_actions(t.game, "red") if a.action == "drink"]
    assert drink.possible
    t.ok(**drink.event)
    assert t.player("red").dice == 5


def test_the_log_and_the_marks():
    t = at_fountain("red")
    told = tell_event({"type": "drink", "player": "red"}, t.game)
    assert told == "Red drinks from the Fountain and regains a lost die"
    (mark,) = INSTANCES["fountain"].tile_marks(t.game, t.game.temple.at((1, 0)))
    assert "2 golden masks" in mark["label"]


# ----- Poison -------------------------------------------------------------------------------


def test_poison_takes_a_die_in_the_starting_chamber_and_two_outside():  # Big Box p. 27
    t = Table(modules=CURSED, temple=FOUNTAIN_AT, track_dice=False)
    cursed_with(t, "red", "poison")
    cursed_with(t, "blue", "poison")
    t.player("blue").cell = (1, 0)
    t.ok(type="countdown_start", n=1).ok(type="countdown_end", n=1)
    assert t.player("red").dice == 4  # inside the starting chamber: still one
    assert t.player("blue").dice == 3  # outside: two
    t.ok(type="countdown_start", n=2).ok(type="countdown_end", n=2)
    assert t.player("red").dice == 3 and t.player("blue").dice == 1


def test_without_poison_the_door_slam_is_as_usual():  # Big Box p. 9
    t = Table(modules=CURSED, temple=FOUNTAIN_AT, track_dice=False)
    t.player("blue").cell = (1, 0)
    t.ok(type="countdown_start", n=1).ok(type="countdown_end", n=1)
    assert t.player("red").dice == 5 and t.player("blue").dice == 4


def test_a_lifted_poison_takes_nothing_more():  # Big Box p. 27
    t = Table(modules=CURSED, temple=FOUNTAIN_AT, track_dice=False)
    cursed_with(t, "red", "poison").ok(type="lift", player="red", card="poison")
    t.ok(type="countdown_start", n=1).ok(type="countdown_end", n=1)
    assert t.player("red").dice == 5


def test_poison_reminds_before_the_slam():
    t = Table(modules=CURSED, temple=FOUNTAIN_AT, track_dice=False)
    cursed_with(t, "red", "poison")
    assert any("red is poisoned" in r for r in INSTANCES["fountain"].reminders(t.game))


def test_the_fountain_gives_back_a_die_lost_to_poison():  # Big Box p. 27
    t = Table(modules=CURSED, temple=FOUNTAIN_AT)
    cursed_with(t, "red", "poison")
    t.ok(type="countdown_start", n=1).ok(type="countdown_end", n=1)
    t.player("red").cell = (1, 0)
    t.roll("red", G, G, K, K)
    t.ok(type="drink", player="red")
    assert t.player("red").dice == 5


# ----- Strangle vines ------------------------------------------------------------------------


def test_strangled_adventurers_cannot_be_used():  # Big Box p. 27
    t = Table(modules=CURSED, temple=start_and(("ct-gem1-key-1", (1, 0), "W")))
    cursed_with(t, "red", "strangle_vines")
    t.roll("red", A, A, K, T, G)
    assert dict(t.player("red").showing) == {K: 1, T: 1, G: 1}
    reason = t.no(type="enter", player="red", cell=[1, 0])  # the chamber costs 2 adventurers
    assert "red shows 0 adventurers, 2 needed to enter" in reason
    assert not any(
        a.possible for a in open_actions(t.game, "red") if a.action in ("enter", "discover")
    )
    assert t.state["strangled"] == {"red": 2}
    reminders = INSTANCES["fountain"].reminders(t.game)
    assert "red's 2 adventurers cannot be used (Strangle vines): re-roll them" in reminders
    (mark,) = INSTANCES["fountain"].player_marks(t.game, t.player("red"))
    assert mark["token"] == "vines" and mark["count"] == 2


def test_the_other_dice_of_the_roll_stay_usable():  # Big Box p. 27
    t = Table(modules=CURSED)
    cursed_with(t, "red", "strangle_vines")
    t.roll("red", A, K, T, T, G)
    t.ok(type="lift", player="red", card="strangle_vines")  # a key and 2 torches
    assert dict(t.player("red").showing) == {G: 1}


def test_the_curse_is_lifted_without_adventurers_and_then_they_count_again():  # Big Box p. 27
    t = Table(modules=CURSED)
    cursed_with(t, "red", "strangle_vines")
    t.roll("red", A, K, T, T, B)
    t.ok(type="lift", player="red", card="strangle_vines")
    assert t.player("red").showing[A] == 0  # rolled while cursed: still to be re-rolled
    t.roll("red", A, A, K, T, B)
    assert t.player("red").showing[A] == 2
    assert t.state["strangled"] == {}


def test_other_players_adventurers_are_not_strangled():  # Big Box p. 27
    t = Table(modules=CURSED)
    cursed_with(t, "red", "strangle_vines")
    t.roll("blue", A, A, K, T, G)
    assert t.player("blue").showing[A] == 2


def test_the_curse_cards_join_module_1s_pile():  # Big Box p. 27
    cards = curse_cards_in_play(CURSED)
    assert cards["poison"].copies == 2 and cards["strangle_vines"].copies == 2
    assert cards["poison"].module == "fountain"
    assert "poison" not in curse_cards_in_play(["curses"])
    assert "adventurer" not in cards["strangle_vines"].lift  # else never lifted


# ----- state and record ----------------------------------------------------------------------


def test_the_state_copies_and_compares():
    t = at_fountain("red")
    t.player("red").dice = 4
    t.roll("red", G, G, T, K).ok(type="drink", player="red")
    state = t.game.fountain
    assert copy.deepcopy(state) == state and copy.deepcopy(state) is not state
    other = t.game.copy()
    other.fountain.regained.clear()
    assert t.game.fountain.regained == ["red"]


def test_a_record_replays_to_the_same_state():
    setup = {
        "type": "setup",
        "players": ["red", "blue"],
        "modules": CURSED,
        "temple": start_and(("ct-gem1-key-1", (-1, 0), "E")),
    }
    events = [
        {"type": "dice", "player": "red", "faces": [A, A, K, T, T]},
        {"type": "discover", "player": "red", "tile": "fountain", "cell": [1, 0]},
        {"type": "countdown_start", "n": 1},
        {"type": "dice", "player": "red", "faces": [K, T, K, T, T]},
        {"type": "enter", "player": "red", "cell": [1, 0]},
        {"type": "countdown_end", "n": 1},
        {"type": "dice", "player": "red", "faces": [G, G, K, T]},
        {"type": "drink", "player": "red"},
        {"type": "drink", "player": "red"},
    ]
    game = Game.from_setup_line(setup)
    verdicts = [game.apply(e).ok for e in events]
    assert verdicts == [True] * 8 + [False]
    assert game.players["red"].dice == 5
    replay = replay_lines([json.dumps(setup), *map(json.dumps, events)])
    assert [v.ok for v in replay.verdicts] == verdicts
    assert replay.game.state_json() == game.state_json()


def test_a_die_lying_in_the_sacrifice_chamber_is_not_lost_yet():  # Big Box pp. 24, 27
    t = at_fountain("red", modules=["time", "fountain"], time_chambers=["sacrifice", "lava-1"])
    t.player("red").dice = 4
    t.game.time.sacrificed.append("red")  # his die lies in the sacrifice chamber
    t.roll("red", G, G, K, T)
    assert t.no(type="drink", player="red") == "red has lost no die to regain"
    t.game.time.sacrificed.clear()  # the sand ran out: the die is lost
    t.ok(type="drink", player="red")
