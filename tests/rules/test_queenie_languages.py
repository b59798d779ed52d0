"""The Queenie modules in the table's language (Portuguese, Spanish, Greek): their titles and
summaries on the set-up page, their chambers, curse cards and treasures, and every reason,
open action, reminder, token and log line random games of them reach; English unchanged."""

from __future__ import annotations

import copy
import random
import re
from typing import Any

import pytest
from test_modules_properties import module_setup
from test_narrative_languages import english_left

from base.words import has_words, own_words, say
from rules.actions import open_actions
from rules.engine import Game
from rules.modules import BIG_BOX_IDS, offered_modules
from rules.modules_registry import MODULES
from rules.narrative import chamber_label, tell_event, tell_module_words
from rules.simulate import random_events
from server.dashboard import action_in, reminders

OTHERS = ["pt", "es", "el"]
QUEENIE = [module_id for module_id in MODULES if module_id not in BIG_BOX_IDS]

CLIENT_WORDED = {"discover", "escape", "give_die", "turn_of_fate", "curse", "lose_die"}
CLIENT_WORDED |= {"claim", "lift", "unlock"}
"""The basic actions whose labels the page words itself from the catalog (game.js)."""


def test_the_set_up_page_offers_every_queenie_module_in_every_language():
    offered = [m for m in offered_modules() if m.get("queenie")]
    assert [m["id"] for m in offered] == QUEENIE and len(QUEENIE) == 15
    for lang in OTHERS:
        words = own_words(lang)
        for module in offered:
            title, summary = (
                words[f"module.{module['id']}"],
                words[f"module_summary.{module['id']}"],
            )
            assert title != module["name"], (lang, module["id"])
            assert summary != module["summary"], (lang, module["id"])
            assert english_left(lang, summary) == [], (lang, module["id"], summary)
            assert english_left(lang, title) == [], (lang, title)


@pytest.mark.parametrize("lang", OTHERS)
def test_every_queenie_chamber_card_and_treasure_has_the_tables_words(lang):
    for module_id in QUEENIE:
        module = MODULES[module_id]
        for tile in module.chambers().values():
            told = chamber_label(tile, lang)
            assert told != tile.name and english_left(lang, told) == [], (tile.name, told)
        for card in module.curse_cards:
            for key, english in (
                (f"card.{card.card_id}", card.name),
                (f"card_effect.{card.card_id}", card.effect),
            ):
                assert say(lang, key) != english and english_left(lang, say(lang, key)) == [], key
        for tile in module.treasure_tiles:
            for key in (f"treasure.{tile.treasure_id}", f"treasure_effect.{tile.treasure_id}"):
                assert has_words(lang, key) and english_left(lang, say(lang, key)) == [], key
    assert say("en", "card_effect.cyclops") == MODULES["slide"].curse_cards[0].effect


def _said_in_games(seeds: int) -> dict[str, list[tuple[str, Game]]]:
    """What random games of 1 to 4 Queenie modules show a player, by kind, in English, with
    the game that showed it: the Queenie reminders, token labels and open actions."""
    said: dict[str, list[tuple[str, Game]]] = {}

    def keep(kind: str, text: str, game: Game) -> None:
        said.setdefault(kind, []).append((text, game))

    def look(game: Game) -> None:
        for row in reminders(game):
            if row["kind"].startswith("queenie-"):  # modules 1 to 8 word their own
                keep("qreminder.", row["text"], game)
        for placed in game.temple:
            for hook in game.module_hooks("tile_marks"):
                for mark in hook(game, placed):
                    keep("qmark.", mark["label"], game)
        for player in game.players.values():
            for hook in game.module_hooks("player_marks"):
                for mark in hook(game, player):
                    keep("qmark.", mark["label"], game)
            for action in open_actions(game, player.player_id):
                keep("action", action, game)

    for seed in range(seeds):
        rng = random.Random(seed)
        chosen = rng.sample(QUEENIE, rng.randint(1, 4))
        game = Game.from_setup_line(module_setup(rng, chosen, rng.randint(2, 4)))
        for index, _ in enumerate(random_events(rng, game, 200, noise=0.3)):
            if index % 25 == 0:
                look(game)
        look(game)
    return said


def _client_worded(action: Any) -> bool:
    if action.action in CLIENT_WORDED:
        return True
    if action.action == "enter" and re.search(r"\([NESW]\)$", action.label):
        return True
    if action.action == "activate":
        return not action.event.get("offering")
    return action.action == "use" and not action.event.get("cell")


def _words_of(action: Any) -> dict[str, str]:
    """An open action's words a player reads, as the page gets them (`to_json`), by where."""
    shown = copy.deepcopy(action.to_json())  # the dashboard tells a copy in place
    words = {} if _client_worded(action) else {"label": shown["label"]}
    if shown.get("blocked"):
        words["blocked"] = shown["blocked"]
    for number, choice in enumerate(shown.get("choices") or []):
        for part in ("name", "note"):
            if isinstance(choice.get(part), str):
                words[f"{part} {number}"] = choice[part]
    return words


def _told_action(action: Any, game: Game, lang: str) -> dict[str, str]:
    """The same words told in `lang` by the dashboard."""
    shown = copy.deepcopy(action.to_json())  # the dashboard tells a copy in place
    action_in(shown, game, lang)
    told = {"label": shown["label"], "blocked": shown.get("blocked") or ""}
    for number, choice in enumerate(shown.get("choices") or []):
        for part in ("name", "note"):
            if isinstance(choice.get(part), str):
                told[f"{part} {number}"] = choice[part]
    return told


@pytest.fixture(scope="module")
def queenie_said() -> dict[str, list[tuple[str, Game]]]:
    return _said_in_games(40)


def _shape(text: str) -> str:
    """A text with its numbers and players' names blanked: one sentence, whatever it counts."""
    return re.sub(r"\d+", "N", re.sub(r"(?i)\b(red|blue|green|yellow|purple|white)\b", "P", text))


@pytest.mark.parametrize("lang", OTHERS)
def test_random_queenie_games_show_a_player_no_english(lang, queenie_said):
    shown: dict[str, set[str]] = {}
    left = {}
    for kind, rows in queenie_said.items():
        for thing, game in rows:
            if kind == "action":
                told = _told_action(thing, game, lang)
                pairs = [(p.split()[0], e, told[p]) for p, e in _words_of(thing).items()]
            else:
                pairs = [(kind, thing, tell_module_words(thing, game, lang, kind))]
            for where, english, said in pairs:
                shown.setdefault(where, set()).add(_shape(english))
                if english_left(lang, said) or (said == english and re.search("[a-z]{3}", said)):
                    left[_shape(english)] = said
    sizes = {where: len(texts) for where, texts in shown.items()}
    assert sizes["qreminder."] >= 25 and sizes["qmark."] >= 20, sizes  # the games reached many
    assert sizes["label"] >= 30 and sizes["blocked"] >= 15 and sizes["name"] >= 20, sizes
    assert left == {}


@pytest.mark.parametrize("lang", OTHERS)
def test_random_queenie_games_log_in_the_tables_language(lang):
    seen = set()
    for seed in range(40):
        rng = random.Random(seed)
        chosen = rng.sample(QUEENIE, rng.randint(1, 4))
        game = Game.from_setup_line(module_setup(rng, chosen, rng.randint(2, 4)))
        for _ in random_events(rng, game, 200, noise=0.3):
            pass
        for judged in game.lines:
            if not judged.verdict.ok:
                continue
            english = tell_event(judged.event, game)
            told = tell_event(judged.event, game, lang=lang)
            assert english_left(lang, told) == [], (english, told)
            if judged.event.get("type") not in MODULES_EVENTS_OF_THE_BASIC_GAME:
                seen.add(_shape(english))
    assert len(seen) >= 20, sorted(seen)  # the Queenie modules' own log lines were told


MODULES_EVENTS_OF_THE_BASIC_GAME = {"dice", "discover", "enter", "activate", "unlock", "escape"}
MODULES_EVENTS_OF_THE_BASIC_GAME |= {"give_die", "turn_of_fate", "countdown_start"}
MODULES_EVENTS_OF_THE_BASIC_GAME |= {"countdown_end", "collapse", "curse", "lift", "claim", "use"}


def test_english_keeps_the_modules_own_words():
    game = Game.from_setup_line(
        {"type": "setup", "players": ["red", "blue"], "modules": ["map"], "track_dice": False}
    )
    text = "Map: 2 torches here take you to any discovered chamber"
    assert tell_module_words(text, game, "en", "qmark.") == text
    assert tell_module_words(text, game, "pt", "qmark.") == say("pt", "qmark.map")
    unknown = "a sentence no template words"
    assert tell_module_words(unknown, game, "el", "qmark.") == unknown
