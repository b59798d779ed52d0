"""Queenie: The Pit (Big Box page 26): the chamber, the Lost treasure and Really cursed cards."""

import json

from rules_helpers import A, B, G, K, T, Table, start_and

from rules.actions import open_actions
from rules.engine import Game
from rules.game_setup import setup_catalog, starting_candidates
from rules.modules import curse_cards_in_play
from rules.modules_registry import INSTANCES
from rules.narrative import tell_event
from rules.record import replay_lines

PIT_AT = start_and(("pit", (1, 0), "W"))
BOTH = ["curses", "treasures", "pit"]
MASK = "ct-gem1-key-1"  # a purple mask (curse and treasure chambers, page 10)


def in_pit(*players: str, **setup) -> Table:
    t = Table(modules=setup.pop("modules", ["pit"]), temple=PIT_AT, **setup)
    for pid in players:
        t.player(pid).cell = (1, 0)
    return t


def test_the_pit_is_shuffled_into_the_pile_never_laid_at_set_up():  # Big Box p. 26
    catalog = setup_catalog(["pit"])
    assert catalog["pit"].feature == "pit" and catalog["pit"].gems is None
    assert "pit" not in starting_candidates(catalog)
    assert "pit" not in setup_catalog([])
    game = Table(modules=["pit"]).game
    assert "pit" in {tile.tile_id for tile in game.unplaced_tiles()}


def test_the_pit_is_discovered_and_entered_like_any_chamber():  # Big Box p. 26
    t = Table(modules=["pit"])
    t.roll("red", A, A, K, K, T)
    t.ok(type="discover", player="red", tile="pit", cell=[1, 0])
    t.roll("red", A, T, K, K, T)
    t.ok(type="enter", player="red", cell=[1, 0])
    assert t.state["players"]["red"]["cell"] == [1, 0]


def test_five_black_masks_by_himself_activate_two_gems():  # Big Box p. 26
    t = in_pit("red", "blue")
    depot = t.state["depot"]
    t.roll("red", B, B, B, B, B)
    t.ok(type="pit", player="red")
    assert t.state["depot"] == depot - 2
    assert t.game.temple.at((1, 0)).gems == 2
    assert t.player("red").locked == 5  # the masks stay: he needs the golden masks now
    assert "already has 2 gems activated" in t.no(type="pit", player="red")


def test_black_masks_kept_from_earlier_rolls_count():  # Big Box p. 26: "collect"
    t = in_pit("red")
    t.roll("red", B, B, K, K, T)
    t.roll("red", B, B, B, A, G)
    assert "shows 3 black masks" in t.no(type="pit", player="red")
    t.roll("red", B, B, B, B, B)
    t.ok(type="pit", player="red")


def test_the_black_masks_must_be_his_own():  # Big Box p. 26: "by himself"
    t = in_pit("red", "blue")
    t.roll("red", B, B, B, K, K)
    t.roll("blue", B, B, K, K, K)
    reason = t.no(type="pit", player="red")
    assert "red shows 3 black masks" in reason and "5 black masks of his own dice" in reason


def test_only_inside_the_pit():  # Big Box p. 26
    t = Table(modules=["pit"], temple=PIT_AT)
    t.roll("red", B, B, B, B, B)
    assert "red is not in the Pit" in t.no(type="pit", player="red")


def test_the_depot_must_hold_two_gems():
    t = in_pit("red")
    t.game.depot = 1
    t.roll("red", B, B, B, B, B)
    assert "the depot holds only 1 gem" in t.no(type="pit", player="red")


def test_the_pit_has_no_gem_icons_for_the_usual_activation():  # Big Box p. 26
    t = in_pit("red", "blue")
    t.roll("red", K, K, K, K, K)
    reason = t.no(type="activate", cell=[1, 0], gems=1, players=["red"])
    assert "Pit has no gem icons" in reason


def test_a_partner_frees_the_black_masks_with_golden_masks():  # Big Box p. 26, note
    t = in_pit("red", "blue")
    t.roll("red", B, B, B, B, B).ok(type="pit", player="red")
    t.roll("blue", G, G, K, K, K)
    t.ok(type="unlock", player="red", by="blue", count=2)
    assert t.player("red").locked == 3


def test_the_open_action_says_what_is_missing():
    t = in_pit("red")
    t.roll("red", B, B, K, K, T)
    (pit,) = [a for a in open_actions(t.game, "red") if a.action == "pit"]
    assert pit.missing == {"black_mask": 3} and not pit.possible
    assert 0 < pit.chance_next_roll < 1
    t.roll("red", B, B, B, B, B)
    (pit,) = [a for a in open_actions(t.game, "red") if a.action == "pit"]
    assert pit.possible and pit.event == {"type": "pit", "player": "red"}
    t.ok(**pit.event)
    assert not [a for a in open_actions(t.game, "red") if a.action == "pit"]
    assert not [a for a in open_actions(t.game, "blue") if a.action == "pit"]


def test_the_log_says_it():
    t = in_pit("red")
    told = tell_event({"type": "pit", "player": "red"}, t.game)
    assert "Red" in told and "Pit" in told and "2 gems" in told


def test_the_marks_and_the_reminder_of_the_note():  # Big Box p. 26, note
    t = in_pit("red")
    module = INSTANCES["pit"]
    placed = t.game.temple.at((1, 0))
    (mark,) = module.tile_marks(t.game, placed)
    assert mark["count"] == 2 and "5 black masks" in mark["label"]
    assert any("enter it together" in r for r in module.reminders(t.game))
    t.roll("red", B, B, B, B, B).ok(type="pit", player="red")
    assert module.tile_marks(t.game, placed) == []
    assert not any("enter it together" in r for r in module.reminders(t.game))


def test_without_tracked_dice_the_table_is_trusted():
    t = in_pit("red", track_dice=False)
    t.ok(type="pit", player="red")
    assert t.game.temple.at((1, 0)).gems == 2


# ----- the curse cards -------------------------------------------------------------------


def cursed(**setup) -> Table:
    t = Table(players=["frank", "ani"], modules=BOTH, track_dice=False, **setup)
    t.ok(type="discover", player="frank", tile=MASK, cell=[1, 0])
    return t


def test_the_curse_cards_join_module_1s_pile():  # Big Box p. 26
    cards = curse_cards_in_play(BOTH)
    assert cards["lost_treasure"].copies == 2 and cards["really_cursed"].copies == 2
    assert cards["lost_treasure"].module == "pit"
    assert "lost_treasure" not in curse_cards_in_play(["curses"])
    reason = Table(modules=["pit"]).no(type="curse", player="red", card="lost_treasure")
    assert reason.startswith("unknown event type 'curse'")


def test_lost_treasure_discards_the_named_treasure_and_the_curse():  # Big Box p. 26
    t = cursed()
    t.player("frank").treasures = ["double_key", "teleport"]
    reason = t.no(type="curse", player="frank", card="lost_treasure")
    assert "say which treasure tile he discards (Double key, Teleport)" in reason
    assert "holds no Extra gem" in t.no(
        type="curse", player="frank", card="lost_treasure", treasure="extra_gem"
    )
    t.ok(type="curse", player="frank", card="lost_treasure", treasure="teleport")
    assert t.player("frank").treasures == ["double_key"]
    assert t.player("frank").curses == []  # the curse is discarded too
    assert t.game.curses_left()["lost_treasure"] == 1


def test_lost_treasure_of_a_single_kind_needs_no_name():  # Big Box p. 26
    t = cursed()
    t.player("frank").treasures = ["double_key", "double_key"]
    t.ok(type="curse", player="frank", card="lost_treasure")
    assert t.player("frank").treasures == ["double_key"]


def test_lost_treasure_without_treasures_is_just_discarded():  # Big Box p. 26
    t = cursed()
    t.ok(type="curse", player="frank", card="lost_treasure")
    assert t.player("frank").curses == [] and t.player("frank").curses_to_draw == 0


def test_really_cursed_draws_two_cards_for_each_purple_mask():  # Big Box p. 26
    t = cursed()
    t.ok(type="curse", player="frank", card="really_cursed")
    assert t.player("frank").curses == ["really_cursed"]
    t.ok(type="discover", player="frank", tile="ct-gem1-torch-1", cell=[-1, 0])
    assert t.player("frank").curses_to_draw == 2
    t.ok(type="curse", player="frank", card="trap").ok(type="curse", player="frank", card="mask")
    assert t.player("frank").curses == ["really_cursed", "trap", "mask"]
    # ani is not Really cursed: one card for his purple mask
    t.ok(type="discover", player="ani", tile="ct-chamber-1", cell=[0, 1])
    assert t.player("ani").curses_to_draw == 1
    reminders = INSTANCES["pit"].reminders(t.game)
    assert "frank is Really cursed: draw two curse cards for each one" in reminders


def test_a_lifted_really_cursed_draws_one_again():  # Big Box p. 26
    t = cursed()
    t.ok(type="curse", player="frank", card="really_cursed")
    t.ok(type="lift", player="frank", card="really_cursed")
    t.ok(type="discover", player="frank", tile="ct-gem1-torch-1", cell=[-1, 0])
    assert t.player("frank").curses_to_draw == 1


# ----- the record ---------------------------------------------------------------------------


def test_a_record_replays_to_the_same_state():
    setup = {"type": "setup", "players": ["red", "blue"], "modules": ["pit"], "temple": PIT_AT}
    events = [
        {"type": "dice", "player": "red", "faces": [A, T, K, K, T]},
        {"type": "enter", "player": "red", "cell": [1, 0]},
        {"type": "dice", "player": "red", "faces": [B, B, B, K, K]},
        {"type": "pit", "player": "red"},
        {"type": "dice", "player": "red", "faces": [B, B, B, B, B]},
        {"type": "pit", "player": "red"},
    ]
    game = Game.from_setup_line(setup)
    verdicts = [game.apply(e).ok for e in events]
    assert verdicts == [True, True, True, False, True, True]
    replay = replay_lines([json.dumps(setup), *map(json.dumps, events)])
    assert [v.ok for v in replay.verdicts] == verdicts
    assert replay.game.state_json() == game.state_json()
    assert replay.game.state_json()["depot"] == game.setup.starting_depot - 2


def test_the_log_names_the_new_curse_cards():
    t = cursed()
    told = tell_event({"type": "curse", "player": "frank", "card": "lost_treasure"}, t.game)
    assert "Lost treasure" in told and "unknown" not in told


def test_the_log_names_the_pit_by_its_name():
    t = in_pit()
    told = tell_event({"type": "enter", "player": "red", "cell": [1, 0]}, t.game)
    assert told == "Red enters the Pit east of the start"


def test_a_prohibition_of_gems_holds_for_the_pit_too():  # Big Box pp. 24, 26
    t = in_pit("red", modules=["time", "pit"], time_chambers=["prohibition-1", "sacrifice"])
    t.roll("blue", A, A, K, K, T)
    t.ok(type="discover", player="blue", tile="time-prohibition-1", cell=[0, 1], t=100.0)
    t.roll("red", B, B, B, B, B)
    assert "nobody activates gems" in t.no(type="pit", player="red")
    (pit,) = [a for a in open_actions(t.game, "red") if a.action == "pit"]
    assert pit.blocked and "nobody activates gems" in pit.blocked
