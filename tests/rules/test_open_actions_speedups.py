"""The open actions' fast paths give what the straightforward code gives (issue: open actions
under 1 ms with every module on): `priced` and `pricer` against the plain implementation they
replaced, `changed` against `dataclasses.replace`, the module sets' curse cards and treasure
tiles, built once, against a fresh build, and the filters the open actions skip (those whose
`filtered_actions` are not listed) against running them."""

import dataclasses
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.actions import all_open_actions
from rules.benchmark import grid_temple_game
from rules.game_setup import KNOWN_MODULES
from rules.modules import (
    CURSE_CARDS,
    TREASURES,
    curse_cards_in_play,
    queenie_classes,
    treasures_in_play,
)
from rules.odds import as_need, roll_odds
from rules.open_action import OpenAction, changed, one_listing, priced, pricer
from rules.vocabulary import FACES

CARDS = ("mechanic-torches", "priest-keys", "discoverer-run", None)
"""Two cards that change what dice are worth when paying (module 6), one that does not, none."""


def straightforward_priced(game, payers, need, action, label, event, blocked=None):
    """`priced` as it was written before it was made fast: the reference it must agree with."""
    payers = list(payers)
    cost = {icon: n for icon, n in need.items() if n > 0}
    if not game.setup.track_dice:
        return OpenAction(action, label, event, blocked=blocked, need=cost)
    worth = None
    for hook in game.module_hooks("pays_differently"):
        if hook(game, payers):
            worth = hook.__self__
            break
    if worth is not None:
        showing = Counter()
        for payer in payers:
            showing.update(worth.payment_view(game, payer, need))
    elif len(payers) == 1:
        showing = payers[0].showing
    else:
        showing = Counter()
        for payer in payers:
            showing.update(payer.showing)
    missing = {icon: n - showing[icon] for icon, n in need.items() if showing[icon] < n}
    if not missing:
        return OpenAction(
            action,
            label,
            event,
            blocked=blocked,
            chance_next_roll=1.0,
            expected_rolls=0.0,
            need=cost,
        )
    kept = sum(min(showing[icon], n) for icon, n in need.items())
    rerollable = sum(p.free_dice for p in payers) - kept
    chance, rolls = roll_odds(max(rerollable, 0), as_need(missing))
    return OpenAction(
        action,
        label,
        event,
        missing=missing,
        blocked=blocked,
        chance_next_roll=chance,
        expected_rolls=rolls,
        need=cost,
    )


GAMES = {
    modules: grid_temple_game(2, modules=modules)
    for modules in ((), ("curses", "treasures", "characters"), KNOWN_MODULES)
}

needs = st.dictionaries(st.sampled_from(FACES), st.integers(-1, 3), max_size=4)
players = st.fixed_dictionaries(
    {
        "dice": st.integers(0, 5),
        "locked": st.integers(0, 5),
        "showing": st.dictionaries(st.sampled_from(FACES), st.integers(0, 3), max_size=4),
        "card": st.sampled_from(CARDS),
    }
)


@settings(max_examples=300, deadline=None)
@given(
    modules=st.sampled_from(sorted(GAMES)),
    need=needs,
    payers=st.lists(players, min_size=1, max_size=2),
    track_dice=st.booleans(),
    blocked=st.sampled_from([None, "the depot is empty"]),
)
def test_priced_agrees_with_the_straightforward_code(modules, need, payers, track_dice, blocked):
    game = GAMES[modules]
    original = game.setup
    chosen = list(game.players.values())[: len(payers)]
    saved = [dataclasses.replace(p) for p in chosen]
    try:
        game.setup = dataclasses.replace(original, track_dice=track_dice)
        for player, drawn in zip(chosen, payers, strict=True):
            player.dice = drawn["dice"]
            player.locked = min(drawn["locked"], drawn["dice"])
            player.showing = Counter(drawn["showing"])
            player.ability = drawn["card"]
        event = {"type": "enter", "player": chosen[0].player_id}
        fast = priced(game, chosen, need, "enter", "enter", event, blocked)
        plain = straightforward_priced(game, chosen, need, "enter", "enter", event, blocked)
        assert fast == plain
        assert fast.to_json() == plain.to_json()
        assert pricer(game, chosen)(need, "enter", "enter", event, blocked) == plain
        with one_listing():  # each payer's pricer shared, as while listing
            assert priced(game, chosen, need, "enter", "enter", event, blocked) == plain
            assert pricer(game, chosen)(need, "enter", "enter", event, blocked) == plain
    finally:
        game.setup = original
        for player, before in zip(chosen, saved, strict=True):
            player.__dict__.update(before.__dict__)


def test_priced_prices_a_missing_icon_with_the_odds_of_the_dice_not_kept():
    game = GAMES[()]
    player = next(iter(game.players.values()))
    player.dice, player.locked, player.showing = 5, 1, Counter({"key": 1, "torch": 2})
    action = priced(game, [player], {"key": 2, "torch": 1}, "enter", "enter", {})
    # 4 free dice, 1 key and 1 torch kept: 2 dice rolled for the key still missing.
    assert action.missing == {"key": 1}
    assert action.chance_next_roll == pytest.approx(1 - (5 / 6) ** 2)
    assert not action.possible


def fresh_curse_cards(modules):
    cards = {k: c for k, c in CURSE_CARDS.items() if c.module is None or c.module in modules}
    for module in queenie_classes(modules):
        cards.update((card.card_id, card) for card in module.curse_cards)
    return cards


def fresh_treasures(modules):
    tiles = {k: t for k, t in TREASURES.items() if t.module is None or t.module in modules}
    for module in queenie_classes(modules):
        tiles.update((tile.treasure_id, tile) for tile in module.treasure_tiles)
    return tiles


@pytest.mark.parametrize("seed", range(30))
def test_the_cards_and_tiles_in_play_built_once_are_those_built_afresh(seed):
    rng = random.Random(seed)
    modules = rng.sample(KNOWN_MODULES, rng.randint(0, len(KNOWN_MODULES)))
    for asked in (modules, tuple(modules)):  # a list or a tuple: the same answer
        assert list(curse_cards_in_play(asked).items()) == list(fresh_curse_cards(asked).items())
        assert list(treasures_in_play(asked).items()) == list(fresh_treasures(asked).items())


def test_the_shared_cards_and_tiles_cannot_be_changed_by_a_caller():
    cards = curse_cards_in_play(("curses",))
    tiles = treasures_in_play(("treasures",))
    with pytest.raises(TypeError):
        cards["trap"] = cards["mask"]  # type: ignore[index]
    with pytest.raises(TypeError):
        del tiles["teleport"]  # type: ignore[attr-defined]
    assert "trap" in curse_cards_in_play(["curses"]) and "teleport" in treasures_in_play(
        ["treasures"]
    )


@pytest.mark.parametrize(
    "changes",
    [
        {"blocked": "prohibition: movement"},
        {"label": "discover with the Short cut", "event": {"type": "discover", "short_cut": True}},
        {"choices": [{"name": "north", "event": {"type": "gear"}}]},
        {},
    ],
)
def test_changed_gives_what_dataclasses_replace_gives(changes):
    game = GAMES[KNOWN_MODULES]
    player = next(iter(game.players.values()))
    action = priced(game, [player], {"key": 2}, "discover", "discover", {"type": "discover"})
    copy = changed(action, **changes)
    assert copy == dataclasses.replace(action, **changes) and copy is not action
    assert copy.missing is action.missing  # the unchanged fields are the same values
    assert action == priced(game, [player], {"key": 2}, "discover", "discover", action.event)


def test_changed_refuses_a_field_an_open_action_does_not_have():
    action = OpenAction("escape", "escape", {"type": "escape"})
    with pytest.raises(TypeError, match="no field 'blockd'"):
        changed(action, blockd="doomed")


def _scene(seed):
    """The benchmark's scene with every module, the exit laid under the first player (an
    escape for the filters to grey out)."""
    game = grid_temple_game(seed, modules=KNOWN_MODULES)
    first = next(iter(game.players.values()))
    exit_tile = next(tile for tile in game.catalog.values() if tile.kind == "exit")
    old = game.temple.remove(first.cell)
    game.temple.place(exit_tile, first.cell, old.stairs)
    return game


@pytest.mark.parametrize("seed", range(4))
def test_a_filter_skipped_for_want_of_its_kinds_would_change_nothing(seed):
    game = _scene(seed)
    listed = all_open_actions(game)
    filters = [
        hook
        for name in ("filter_open_actions", "filter_last_actions")
        for hook in game.module_hooks(name)
        if hook.__self__.filtered_actions is not None
    ]
    assert filters
    assert any(a.action == "escape" for actions in listed.values() for a in actions)
    for hook in filters:
        kinds = hook.__self__.filtered_actions
        for actions in listed.values():
            others = [a for a in actions if a.action not in kinds]
            assert hook(game, list(others)) == others


def test_every_activation_listed_is_of_the_kind_the_calendar_filters():
    activations = [
        a
        for seed in range(4)
        for actions in all_open_actions(_scene(seed)).values()
        for a in actions
        if a.event.get("type") == "activate"
    ]
    assert activations
    assert all(a.action == "activate" for a in activations)
