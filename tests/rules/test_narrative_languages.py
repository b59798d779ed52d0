"""The log's words in the table's language (issue 22): a real game told in English, Portuguese,
Spanish and Greek, with the rulebooks' own words, and English unchanged by default."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from test_modules_properties import module_setup

from base.words import LANGUAGES, match_template, own_words, say
from rules.actions import open_actions
from rules.engine import Game
from rules.game_setup import KNOWN_MODULES
from rules.module_characters import ABILITIES
from rules.modules import BIG_BOX_IDS
from rules.modules_registry import MODULES
from rules.narrative import (
    PURPOSE_KEYS,
    REASON_KEYS,
    chamber_at,
    chamber_label,
    outcome_words,
    place_name,
    replay_words,
    tell_blocked,
    tell_event,
    tell_label,
    tell_reason,
)
from rules.record import record_lines, replay_lines
from rules.rule_words import ability_text, keys_of
from rules.simulate import random_events

REPO = Path(__file__).resolve().parents[2]
OTHERS = ["pt", "es", "el"]
BASIC = {"dice", "discover", "enter", "activate", "unlock", "escape", "give_die"}
BASIC |= {"turn_of_fate", "countdown_start", "countdown_end", "collapse", "undo", "correct"}
ENGLISH_WORDS = (" rolls ", " enters ", " discovers ", "Countdown", " of the start", " escapes")

RULEBOOK = {
    # the rulebooks' own words for a countdown, a gem, the start chamber (../shared/rules/)
    "pt": ("contagem regressiva", "gemas", "câmara inicial"),
    "es": ("cuenta atrás", "gemas", "cámara de inicio"),
    "el": ("αντίστροφη μέτρηση", "πετράδια", "αρχικό δωμάτιο"),
}


@pytest.fixture(scope="module")
def demo():
    """The bundled demo game, replayed: its final game and its lines."""
    replay = replay_lines(record_lines((REPO / "examples" / "demo-game.jsonl").read_text("utf-8")))
    lines = {line.number: line.value for line in replay.events}
    return replay.game, lines


def test_english_is_the_default_and_unchanged(demo):
    game, lines = demo
    for event in lines.values():
        assert tell_event(event, game, lines) == tell_event(event, game, lines, "en")


@pytest.mark.parametrize("lang", OTHERS)
def test_a_real_game_is_told_in_the_tables_language(demo, lang):
    game, lines = demo
    told = {n: tell_event(event, game, lines, lang) for n, event in lines.items()}
    basic = {n: text for n, text in told.items() if lines[n].get("type") in BASIC}
    assert len(basic) == len(lines)  # the demo game plays the basic game only
    leaks = [text for text in basic.values() if any(word in text for word in ENGLISH_WORDS)]
    assert leaks == []
    english = {n: tell_event(event, game, lines) for n, event in lines.items()}
    assert all(told[n] != english[n] for n in told)
    everything = "\n".join(told.values())
    for word in RULEBOOK[lang]:
        assert word in everything, word
    assert say(lang, "colour.red") in everything and "Red" not in everything


@pytest.mark.parametrize("lang", OTHERS)
def test_the_door_slam_names_who_lost_a_die(demo, lang):
    game, lines = demo
    slams = [e for e in lines.values() if e.get("type") == "countdown_end"]
    assert slams
    english = tell_event(slams[0], game, lines)
    told = tell_event(slams[0], game, lines, lang)
    assert "loses a die" in english
    assert say(lang, "colour.blue") in told
    assert told.startswith(say(lang, "narr.countdown_end", n=slams[0]["n"]))


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_places_far_from_the_start_are_counted_in_words(lang):
    start = (0, 0)
    near = place_name([1, 1], start, lang)
    far = place_name([2, -1], start, lang)
    assert near == say(lang, "place.NE")
    assert say(lang, "num.2") in far and say(lang, "dir.east") in far
    assert say(lang, "dir.south") in far
    assert place_name("nowhere", start, lang) == say(lang, "place.somewhere")


@pytest.mark.parametrize("lang", OTHERS)
def test_an_empty_spot_and_the_start_in_words(demo, lang):
    game, _ = demo
    assert chamber_at(game, list(game.temple.start_cell()), lang) == say(lang, "chamber.the_start")
    empty = chamber_at(game, [5, 5], lang)
    assert empty.startswith(say(lang, "chamber.empty_spot", where="").strip())


@pytest.mark.parametrize("lang", OTHERS)
def test_the_outcome_and_the_replay_in_words(demo, lang):
    game, _ = demo
    said = outcome_words(game, lang)
    assert said["outcome"] == outcome_words(game)["outcome"]  # the verdict never changes
    assert said["outcome_text"] != outcome_words(game)["outcome_text"]
    words = replay_words(game, lang)
    assert {tile["label"] for tile in words["temple"]} >= {say(lang, "chamber.starting")}
    assert set(words["players"]) == set(game.players)


def _rejections(game: Game) -> list[str]:
    """The engine's own reasons for a few refused events of the basic game."""
    refused = [
        {"type": "enter", "player": "red", "cell": [5, 5]},
        {"type": "enter", "player": "red", "cell": [1, 0]},
        {"type": "escape", "player": "red"},
        {"type": "give_die", "from": "red", "to": "blue"},
        {"type": "unlock", "player": "red", "by": "blue", "count": 1},
        {"type": "activate", "players": ["red"], "cell": [1, 0], "gems": 1},
    ]
    reasons = []
    for number, event in enumerate(refused, start=2):
        verdict = game.apply(event, number)
        assert not verdict.ok, event
        reasons.append(verdict.reason)
    return reasons


@pytest.fixture
def fresh_game():
    """The demo game's set-up (dice tracked), no event yet."""
    first = json.loads((REPO / "examples" / "demo-game.jsonl").read_text("utf-8").splitlines()[0])
    return Game.from_setup_line(first)


def test_every_reason_key_is_in_the_catalog():
    english = own_words("en")
    assert [key for key in (*REASON_KEYS, *PURPOSE_KEYS) if key not in english] == []


@pytest.mark.parametrize("lang", OTHERS)
def test_the_engines_reasons_are_told_in_the_tables_language(fresh_game, lang):
    reasons = _rejections(fresh_game)
    told = [tell_reason(reason, fresh_game, lang) for reason in reasons]
    english = [tell_reason(reason, fresh_game) for reason in reasons]
    assert all(a != b for a, b in zip(told, english, strict=True))
    joined = "\n".join(told)
    assert say(lang, "colour.red") in joined and "red" not in joined.lower().split()
    assert "[5, 5]" not in joined and say(lang, "num.5") in joined  # places in words
    assert say(lang, "count.adventurer.one", n=1) in joined  # the icons counted in words
    # a verdict itself keeps the engine's words (what a record replays to)
    assert reasons == _rejections(Game(fresh_game.setup))


def test_a_reason_the_catalog_does_not_know_reads_english(fresh_game):
    reason = "unknown event type 'jump' (known: dice, ...)"
    assert tell_reason(reason, fresh_game, "pt") == tell_reason(reason, fresh_game)


@pytest.mark.parametrize("lang", OTHERS)
def test_curses_and_treasures_by_the_rulebooks_names(lang):
    game = Game.from_setup_line(
        {"type": "setup", "players": ["red", "blue"], "modules": ["curses", "treasures"]}
    )
    drawn = tell_event({"type": "curse", "player": "red", "card": "trap"}, game, lang=lang)
    assert drawn == say(
        lang, "narr.curse", who=say(lang, "colour.red"), card=say(lang, "card.trap")
    )
    spent = {"type": "escape", "player": "blue", "treasures": ["double_key"]}
    told = tell_event(spent, game, lang=lang)
    assert told.startswith(say(lang, "narr.escapes", who=say(lang, "colour.blue")))
    assert say(lang, "treasure.double_key") in told
    claim = {"type": "claim", "player": "red", "treasure": "healing_mask"}
    assert say(lang, "treasure.healing_mask") in tell_event(claim, game, lang=lang)
    assert "Trap" in tell_event({"type": "curse", "player": "red", "card": "trap"}, game)


MODULE_EVENTS = [
    {"type": "time_up", "cell": [1, 0], "losers": ["red"]},
    {"type": "lava", "players": ["red", "blue"], "treasures": ["double_torch"]},
    {"type": "torch_task", "players": ["red"]},
    {"type": "climb", "player": "red"},
    {"type": "summon", "player": "blue"},
    {"type": "platform", "cell": [0, 2]},
    {"type": "sacrifice", "player": "red", "dice": 2},
    {"type": "push_ghost", "player": "red", "cell": [1, 0]},
    {"type": "task", "players": ["red", "blue"], "tile": "task-1"},
    {"type": "heal_tree", "players": ["red", "blue"]},
    {"type": "activate_linked", "players": ["red"], "cells": [[1, 0], [0, 1]]},
]


@pytest.mark.parametrize("lang", OTHERS)
def test_the_modules_rooms_are_told_in_the_tables_language(demo, lang):
    game, _ = demo
    for event in MODULE_EVENTS:
        told = tell_event(event, game, lang=lang)
        assert told != tell_event(event, game), event
        assert any(say(lang, f"colour.{c}") in told for c in ("red", "blue")) or (
            event["type"] == "platform" and say(lang, "num.2") in told
        ), told
    spent = tell_event(MODULE_EVENTS[1], game, lang=lang)
    assert say(lang, "treasure.double_torch") in spent


# ----- modules 1 to 8: the engine's reasons, the cards, the chambers (rules.po) --------------

MODULE_SETUP = {
    "type": "setup",
    "players": ["red", "blue"],
    "modules": list(KNOWN_MODULES),
    "quests": ["altar", "ghost", "tree"],
    "traps": ["cliff-torch", "invocation", "platform"],
    "time_chambers": ["lava-1", "torch", "prohibition-1"],
    "characters": {"red": "muscleman-wall", "blue": "doc-heal"},
}
MODULE_REFUSALS = [
    {"type": "climb", "player": "red"},
    {"type": "summon", "player": "red"},
    {"type": "platform", "player": "red", "cell": [0, 2]},
    {"type": "push_ghost", "player": "red", "cell": [1, 0]},
    {"type": "sacrifice", "player": "red", "dice": 1},
    {"type": "heal_tree", "players": ["red", "blue"]},
    {"type": "task", "players": ["red"], "tile": "task-1"},
    {"type": "lava", "cell": [1, 0], "players": ["red"]},
    {"type": "torch_task", "cell": [1, 0], "players": ["red"]},
    {"type": "time_up", "cell": [1, 0]},
    {"type": "activate_linked", "cells": [[1, 0], [0, 1]], "players": ["red"]},
    {"type": "lift", "player": "red", "card": "trap"},
    {"type": "lose_die", "player": "red"},
    {"type": "curse", "player": "red", "card": "trap"},
    {"type": "claim", "player": "red", "treasure": "healing_mask"},
    {"type": "use", "player": "red", "treasure": "teleport", "cell": [0, 0]},
    {"type": "ability", "player": "red"},
    {"type": "undo"},
    {"type": "dice", "player": "red", "faces": ["key"]},
]
"""Events of modules 1 to 8 a fresh game refuses, each for a reason of its own."""

ENGLISH_ONLY = {"the", "is", "not", "chamber", "chambers", "has", "there", "with", "holds"}
ENGLISH_ONLY |= {"yet", "already", "must", "ghost", "moving", "curse", "cursed", "treasure"}
ENGLISH_ONLY |= {"sand", "timer", "torch", "dice", "die", "card", "stuck", "cliff", "nothing"}
"""English words no Portuguese or Spanish sentence holds."""


def english_left(lang: str, told: str) -> list[str]:
    """The English left in a sentence told in `lang` (field names in quotes aside): any Latin
    word in Greek, the words only English has in Portuguese and Spanish."""
    plain = re.sub(r"'[^']*'", "", told)
    if lang == "el":
        return re.findall(r"[A-Za-z]+", plain)
    return [word for word in re.findall(r"\w+", plain.lower()) if word in ENGLISH_ONLY]


@pytest.mark.parametrize("lang", OTHERS)
def test_the_modules_refusals_read_in_the_tables_language(lang):
    game = Game.from_setup_line(MODULE_SETUP)
    reasons = []
    for number, event in enumerate(MODULE_REFUSALS, start=2):
        verdict = game.apply(event, number)
        assert not verdict.ok, event
        reasons.append(verdict.reason)
    assert len(set(reasons)) == len(reasons)
    for reason in reasons:
        told = tell_reason(reason, game, lang)
        assert told != tell_reason(reason, game), reason
        assert english_left(lang, told) == [], (reason, told)
    joined = "\n".join(tell_reason(reason, game, lang) for reason in reasons)
    for key in ("mchamber.altar", "mchamber.tree", "card.trap", "character.Muscleman"):
        assert say(lang, key) in joined, key
    again = Game.from_setup_line(MODULE_SETUP)  # the verdicts keep the engine's words
    assert [again.apply(e, n).reason for n, e in enumerate(MODULE_REFUSALS, start=2)] == reasons


FIELD_ERRORS = re.compile(
    r"^(unknown (event type|player|tile|curse card|treasure) |an event must be|'[a-z_]+' must "
    r"|the \w+ event needs|.* \(\w[\w-]*\) is already in the temple)"
)
"""Reasons about a malformed event (a wrong field, an unknown id): a developer's, never a
player's, so they stay in the engine's English."""


QUEENIE_CHAMBERS = {
    tile.name
    for module_id, module in MODULES.items()
    if module_id not in BIG_BOX_IDS
    for tile in module.chambers().values()
}
"""The Queenie modules' chambers by their printed names."""


def _random_module_reasons(seeds: int) -> dict[str, Game]:
    """Every distinct reason the engine gives in random plausible games of any modules, the
    Queenie ones too (some events nonsense), with the game it was given in."""
    found: dict[str, Game] = {}
    for seed in range(seeds):
        rng = random.Random(seed)
        chosen = rng.sample(list(KNOWN_MODULES), rng.randint(1, len(KNOWN_MODULES)))
        game = Game.from_setup_line(module_setup(rng, chosen, rng.randint(2, 4)))
        for _ in random_events(rng, game, 200, noise=0.3):
            pass
        for judged in game.lines:
            reason = judged.verdict.reason
            if reason and reason not in found:
                found[reason] = game
    return found


def test_random_module_games_leave_no_players_reason_in_english():
    reasons = _random_module_reasons(60)
    said = {r: g for r, g in reasons.items() if not FIELD_ERRORS.match(r)}
    assert len(said) > 100  # the games gave many different reasons
    own = keys_of("reason.q_")  # the Queenie modules' own reasons, and any naming their chambers
    queenie = [
        r
        for r in said
        if any(match_template((key,), r) for key in own) or any(n in r for n in QUEENIE_CHAMBERS)
    ]
    assert len(queenie) >= 30, sorted(queenie)  # 43 with these seeds
    for lang in OTHERS:
        left = {r: tell_reason(r, g, lang) for r, g in said.items()}
        assert [r for r, told in left.items() if told == tell_reason(r, said[r])] == [], lang
        assert {r: t for r, t in left.items() if english_left(lang, t)} == {}, lang


@pytest.mark.parametrize("lang", OTHERS)
def test_character_cards_and_special_treasures_in_the_log(lang):
    game = Game.from_setup_line(
        MODULE_SETUP | {"characters": {"red": "mechanic-rotate", "blue": "doc-heal"}}
    )
    used = [
        {"type": "ability", "player": "red", "cell": [1, 0], "stairs": "N"},
        {"type": "ability", "player": "blue", "target": "red"},
        *(
            {"type": "use", "player": "red", "treasure": treasure, "cell": [0, 0]}
            for treasure in ("teleport", "healing_mask", "extra_gem", "large_torch")
        ),
        {"type": "use", "player": "red", "treasure": "secret_passage", "cells": [[0, 0], [1, 0]]},
    ]
    for event in used:
        told = tell_event(event, game, lang=lang)
        assert told != tell_event(event, game), event
        assert english_left(lang, told) == [], told
        assert say(lang, "colour.red") in told
        if event["type"] == "use":
            assert say(lang, f"treasure.{event['treasure']}") in told
    assert say(lang, "character.Mechanic") in tell_event(used[0], game, lang=lang)
    for card in ABILITIES.values():
        text = ability_text(card.ability_id, card.text, lang)
        assert text != card.text and english_left(lang, text) == []
    modular = [t for t in game.catalog.values() if t.quest or t.trap or t.time]
    assert modular
    for tile in modular:
        assert chamber_label(tile, lang) != tile.name
        assert english_left(lang, chamber_label(tile, lang)) == []


@pytest.mark.parametrize("lang", OTHERS)
def test_why_a_module_action_waits_in_the_tables_language(lang):
    game = Game.from_setup_line(
        {"type": "setup", "players": ["red", "blue"], "modules": ["traps"], "track_dice": False}
        | {"traps": ["platform", "invocation"]}
    )
    found = {"type": "discover", "player": "red", "cell": [0, 1], "tile": "trap-platform"}
    assert game.apply(found | {"stairs": "S"}).ok  # red waits on the moving platform
    waiting = [a for a in open_actions(game, "red") if a.blocked]
    assert {a.action for a in waiting} >= {"enter", "platform"}
    for action in waiting:
        told = tell_blocked(action.blocked, game, lang)
        assert told != action.blocked and english_left(lang, told) == [], told
    platform = next(a for a in waiting if a.action == "platform")
    assert english_left(lang, tell_label(platform.label, game, lang)) == []
