"""Open actions: what each player can do now, what is missing for the rest, and the odds."""

import pytest
from rules_helpers import A, B, G, K, T, Table, start_and

from rules.actions import all_open_actions, open_actions, team_actions
from rules.odds import as_need, roll_odds

TEMPLE = start_and(("gem3-key-1", (1, 0), "W"), ("exit", (0, 1), "S"), ("chamber-6", (-1, 0), "E"))


def by_label(actions):
    return {a.label: a for a in actions}


def test_every_listed_possible_action_is_accepted_by_the_engine():
    t = Table(temple=TEMPLE).roll("red", A, A, K, K, G).roll("blue", B, K, T, A, A)
    for pid, actions in all_open_actions(t.game).items():
        for action in actions:
            game = t.game.copy()
            event = dict(action.event)
            if event["type"] == "discover":
                event["tile"] = "chamber-1"
            verdict = game.apply(event)
            assert verdict.ok == action.possible, (pid, action.label, verdict.reason)


def test_missing_icons_and_odds_for_an_entry():
    t = Table(temple=TEMPLE).roll("blue", A, T, T, G, B)
    enter = by_label(open_actions(t.game, "blue"))["enter Gem chamber (keys) 1 (E)"]
    assert not enter.possible
    assert enter.missing == {K: 1}
    # Blue keeps the adventurer and rerolls the 3 other free dice (one is locked).
    assert enter.chance_next_roll == pytest.approx(1 - (5 / 6) ** 3)
    assert enter.expected_rolls == pytest.approx(1 / (1 - (5 / 6) ** 3))


def test_a_player_who_has_not_rolled_sees_the_odds_of_a_fresh_roll():
    t = Table(temple=TEMPLE)
    discover = [a for a in open_actions(t.game, "red") if a.action == "discover"]
    assert [a.event["cell"] for a in discover] == [[0, -1]]  # the only free side of start
    assert discover[0].missing == {A: 2}
    assert discover[0].chance_next_roll == roll_odds(5, as_need({A: 2}))[0]


def test_escape_shows_the_keys_still_missing_and_when_it_is_out_of_reach():
    t = Table(temple=TEMPLE).roll("red", A, K, K, T, T).ok(type="enter", player="red", cell=[0, 1])
    escape = by_label(open_actions(t.game, "red"))["escape (8 keys by yourself)"]
    assert escape.missing == {K: 7}
    assert escape.expected_rolls is None  # 8 keys with 5 dice: impossible
    assert escape.chance_next_roll == 0.0


def test_activation_options_show_partners_and_blocks():
    t = Table(temple=TEMPLE, players=["red", "blue", "green"])
    for pid in ("red", "blue"):
        t.roll(pid, A, K, K, K, K).ok(type="enter", player=pid, cell=[1, 0])
    options = [a for a in open_actions(t.game, "red") if a.action == "activate"]
    assert [a.event["gems"] for a in options] == [1, 1, 2, 3]
    assert options[0].event["players"] == ["red"]
    assert options[1].event["players"] == ["red", "blue"]  # 1 gem together (page 8)
    assert options[2].event["players"] == ["red", "blue"]
    assert options[2].missing == {K: 1}  # 3 + 3 keys showing, 7 needed
    assert options[0].possible is False and options[0].missing == {K: 1}
    assert options[1].possible is True  # red's 3 keys and blue's 3 pay the 4 together
    alone = Table(temple=TEMPLE).roll("red", A, K, K, K, K)
    alone.ok(type="enter", player="red", cell=[1, 0])
    two = [a for a in open_actions(alone.game, "red") if a.action == "activate"][1]
    assert two.event["gems"] == 2
    assert two.blocked == "needs a second player in this chamber"


def test_unlock_offers_your_own_mask_and_a_partner_s():
    t = Table(temple=TEMPLE).roll("red", B, B, A, A, A).roll("blue", G, A, A, A, A)
    unlocks = [a for a in open_actions(t.game, "red") if a.action == "unlock"]
    assert [a.event["by"] for a in unlocks] == ["red", "blue"]
    assert not unlocks[0].possible and unlocks[1].possible
    assert unlocks[1].event["count"] == 2


def test_escaped_players_can_give_a_die_once():
    t = Table(temple=TEMPLE)
    t.game.depot = 0
    t.roll("red", A, K, K, A, A).ok(type="enter", player="red", cell=[0, 1])
    t.roll("red", K, A, A, A, A).ok(type="escape", player="red")
    gifts = open_actions(t.game, "red")
    assert [a.event for a in gifts] == [{"type": "give_die", "from": "red", "to": "blue"}]
    t.ok(**gifts[0].event)
    assert open_actions(t.game, "red") == []


def test_without_dice_tracking_every_reachable_action_is_possible():
    t = Table(temple=TEMPLE, track_dice=False)
    actions = open_actions(t.game, "red")
    assert actions and all(a.possible or a.blocked for a in actions)
    t.ok(type="enter", player="red", cell=[1, 0])
    t.ok(type="discover", player="red", tile="chamber-1", cell=[2, 0])


def test_team_actions_offer_the_turn_of_fate_while_it_lasts():
    t = Table()
    assert [a.possible for a in team_actions(t.game)] == [True]
    t.ok(type="turn_of_fate").ok(type="turn_of_fate")
    assert team_actions(t.game)[0].blocked == "no turn of fate left"
    assert team_actions(Table(difficulty="professional").game) == []


def test_no_actions_once_the_game_is_over():
    t = Table().ok(type="collapse")
    assert all_open_actions(t.game) == {"red": [], "blue": []}
    assert team_actions(t.game) == []


def test_open_actions_serialise_for_the_dashboard():
    t = Table(temple=TEMPLE).roll("red", A, K, T, T, G)
    data = [a.to_json() for a in open_actions(t.game, "red")]
    enter = next(d for d in data if d["action"] == "enter" and d["event"]["cell"] == [1, 0])
    assert enter["possible"] is True and enter["missing_text"] is None
    discover = next(d for d in data if d["action"] == "discover")
    assert discover["missing_text"] == "1 adventurer"
