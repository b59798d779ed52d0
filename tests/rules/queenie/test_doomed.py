"""Queenie: Doomed (Big Box pages 26-27): Counterspell, Doomed and Stand up."""

import json

from rules_helpers import A, K, T, Table, start_and

from rules.actions import open_actions
from rules.engine import Game
from rules.modules import curse_cards_in_play, treasures_in_play
from rules.modules_registry import INSTANCES
from rules.narrative import tell_event
from rules.record import replay_lines

ALL = ["curses", "treasures", "doomed"]
EXIT_AT = start_and(("exit", (1, 0), "W"))
MASK = "ct-gem1-key-1"  # a purple mask (curse and treasure chambers, page 10)


def table(**setup) -> Table:
    return Table(modules=setup.pop("modules", ALL), **setup)


def cursed_with(t: Table, pid: str, *cards: str) -> Table:
    """`pid` discovers purple masks (untracked dice) and draws `cards`."""
    t.player(pid).curses_to_draw += len(cards)
    for card in cards:
        t.ok(type="curse", player=pid, card=card)
    return t


def test_the_cards_and_the_treasure_join_modules_1_and_2():  # Big Box p. 26
    cards = curse_cards_in_play(ALL)
    assert cards["doomed"].copies == 1 and cards["stand_up"].copies == 1
    assert cards["doomed"].module == "doomed"
    assert treasures_in_play(ALL)["counterspell"].module == "doomed"
    assert "counterspell" not in treasures_in_play(["treasures"])
    assert "doomed" not in curse_cards_in_play(["curses"])
    reason = table(modules=["doomed"]).no(type="use", player="red", treasure="counterspell")
    assert reason.startswith("unknown event type 'use'")


def test_a_doomed_player_may_not_escape_until_he_lifts_the_curse():  # Big Box p. 27
    t = cursed_with(table(temple=EXIT_AT), "red", "doomed")
    t.player("red").cell = (1, 0)
    t.game.depot = 2  # 3 keys to escape
    t.roll("red", K, K, K, T, A)
    reason = t.no(type="escape", player="red")
    assert reason == "red is cursed (Doomed): he may not escape until the curse is lifted"
    (escape,) = [a for a in open_actions(t.game, "red") if a.action == "escape"]
    assert escape.blocked == "cursed (Doomed): no escape until it is lifted"
    t.ok(type="lift", player="red", card="doomed")
    t.roll("red", K, K, K, A, A)
    (escape,) = [a for a in open_actions(t.game, "red") if a.action == "escape"]
    assert escape.possible
    t.ok(type="escape", player="red")


def test_doomed_keeps_only_the_cursed_player_inside():  # Big Box p. 27
    t = cursed_with(table(temple=EXIT_AT), "red", "doomed")
    t.player("blue").cell = (1, 0)
    t.game.depot = 2
    t.roll("blue", K, K, K, A, A)
    t.ok(type="escape", player="blue")


def test_the_doomed_card_is_lifted_by_himself_with_its_icons():  # Big Box p. 27
    t = cursed_with(table(), "red", "doomed")
    t.roll("red", K, K, A, A, A)
    assert "to lift the curse Doomed (by himself)" in t.no(type="lift", player="red", card="doomed")
    t.roll("red", K, K, T, A, A)
    t.ok(type="lift", player="red", card="doomed")
    assert t.player("red").curses == []


def test_counterspell_discards_the_only_curse_once():  # Big Box p. 26
    t = cursed_with(table(track_dice=False), "red", "trap")
    t.player("red").treasures = ["counterspell"]
    (use,) = [a for a in open_actions(t.game, "red") if a.action == "use"]
    assert use.label == "use the Counterspell" and use.possible
    t.ok(**use.event)
    assert t.player("red").curses == [] and t.player("red").treasures == []
    assert "holds no Counterspell" in t.no(type="use", player="red", treasure="counterspell")


def test_counterspell_without_a_curse_is_greyed_out():  # Big Box p. 26
    t = table(track_dice=False)
    t.player("red").treasures = ["counterspell"]
    (use,) = [a for a in open_actions(t.game, "red") if a.action == "use"]
    assert use.blocked == "no curse card to discard"
    reason = t.no(**use.event)
    assert reason == "red has no curse card for the Counterspell to discard"


def test_counterspell_names_the_curse_when_there_are_several():  # Big Box p. 26
    t = cursed_with(table(track_dice=False), "red", "trap", "doomed")
    t.player("red").treasures = ["counterspell"]
    reason = t.no(type="use", player="red", treasure="counterspell")
    assert "say which of red's curses the Counterspell discards (Trap, Doomed)" in reason
    uses = {a.label: a for a in open_actions(t.game, "red") if a.action == "use"}
    assert uses["use the Counterspell"].blocked == "choose the curse it discards"
    assert uses["use the Counterspell on Trap"].possible
    assert uses["use the Counterspell on Doomed"].event["card"] == "doomed"
    reason = t.no(type="use", player="red", treasure="counterspell", card="mask")
    assert "red is not cursed with Mask" in reason
    t.ok(type="use", player="red", treasure="counterspell", card="doomed")
    assert t.player("red").curses == ["trap"] and t.player("red").treasures == []


def test_counterspell_discards_only_ones_own_curses():  # Big Box p. 26: "your curse cards"
    t = cursed_with(table(track_dice=False), "blue", "trap")
    t.player("red").treasures = ["counterspell"]
    reason = t.no(type="use", player="red", treasure="counterspell", card="trap")
    assert "red has no curse card for the Counterspell to discard" in reason


def test_counterspell_on_broken_die_gives_the_die_back():  # Big Box pp. 10, 26
    t = cursed_with(table(track_dice=False), "red", "broken_die")
    assert t.player("red").dice == 4
    t.player("red").treasures = ["counterspell"]
    t.ok(type="use", player="red", treasure="counterspell")
    assert t.player("red").dice == 5


def test_stand_up_is_a_reminder_until_lifted():  # Big Box p. 27
    t = cursed_with(table(track_dice=False), "red", "stand_up")
    module = INSTANCES["doomed"]
    assert module.reminders(t.game) == [
        "red is cursed (Stand up): stay standing until the curse is lifted"
    ]
    assert [m["token"] for m in module.player_marks(t.game, t.player("red"))] == ["stand-up"]
    t.ok(type="lift", player="red", card="stand_up")
    assert module.reminders(t.game) == []
    assert module.player_marks(t.game, t.player("red")) == []


def test_the_log_names_the_cards_and_the_treasure():
    t = table()
    told = tell_event({"type": "curse", "player": "red", "card": "doomed"}, t.game)
    assert "Doomed" in told
    told = tell_event({"type": "use", "player": "red", "treasure": "counterspell"}, t.game)
    assert "Counterspell" in told


def test_a_record_replays_to_the_same_state():
    setup = {
        "type": "setup",
        "players": ["red", "blue"],
        "modules": ALL,
        "temple": EXIT_AT,
        "track_dice": False,
    }
    events = [
        {"type": "discover", "player": "red", "tile": MASK, "cell": [-1, 0]},
        {"type": "curse", "player": "red", "card": "doomed"},
        {"type": "enter", "player": "blue", "cell": [1, 0]},
        {"type": "enter", "player": "red", "cell": [1, 0]},
        {"type": "escape", "player": "red"},
        {"type": "escape", "player": "blue"},
        {"type": "lift", "player": "red", "card": "doomed"},
        {"type": "escape", "player": "red"},
    ]
    game = Game.from_setup_line(setup)
    verdicts = [game.apply(e).ok for e in events]
    assert verdicts == [True] * 4 + [False, True, True, True]
    assert game.outcome == "won"
    replay = replay_lines([json.dumps(setup), *map(json.dumps, events)])
    assert [v.ok for v in replay.verdicts] == verdicts
    assert replay.game.state_json() == game.state_json()
