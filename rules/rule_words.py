"""The table's language for the rules' own phrases (modules 1 to 8): the short words that
fill the engine's reasons and the open actions' labels (what a player may not do, a
prohibition, a quest, trap or time chamber's printed name, a character), looked up in the
catalog (`base/i18n/<lang>/LC_MESSAGES/rules.po`) by their English words."""

from __future__ import annotations

from functools import cache

from base.words import DEFAULT_LANGUAGE, has_words, keys_under, language, match_template, say


@cache
def keys_of(prefix: str) -> tuple[str, ...]:
    """Every key of the catalog under `prefix`, read once (`base.words.keys_under`)."""
    return keys_under(prefix)


@cache
def _english(key: str) -> str:
    return say(DEFAULT_LANGUAGE, key)


PHRASES: dict[str, str] = {
    "doing": "doing.",
    "why": "why.",
    "half": "half.",
    "prohibition": "prohibition.",
    "kind": "kind.",
    "character": "character.",
    "card": "card.",
    "treasure": "treasure.",
    "cardside": "cardside.",
    "ability": "ability.",
}
"""A placeholder of a reason or label whose value is one of the rules' phrases, and the
catalog's prefix that words those phrases."""


def phrase_in(lang: str, prefix: str, english: str) -> str | None:
    """`english` (one of the rules' phrases, `leave his chamber`) in `lang`: the key under
    `prefix` whose English words say it (capitals aside, placeholders filled), or None."""
    lang = language(lang)
    wanted = english.strip().lower()
    keys = keys_of(prefix)
    for key in keys:
        if "{" not in _english(key) and _english(key).lower() == wanted:
            return say(lang, key)
    matched = match_template(tuple(k for k in keys if "{" in _english(k)), english)
    if matched is None:
        return None
    key, values = matched
    return say(lang, key, **values)


def module_chamber_in(lang: str, name: str) -> str | None:
    """A quest, trap or time chamber's (or a task tile's) printed name (`Lava chamber 2`) in
    `lang`, or None when the catalog has no words for it."""
    return phrase_in(lang, "mchamber.", name)


def quests_in(lang: str, joined: str) -> str | None:
    """The quest chambers still to complete (`Altar chamber and the Tree of Life`, as the
    engine joins them) in `lang`, or None."""
    names = [module_chamber_in(lang, name) for name in joined.split(" and the ")]
    if None in names:
        return None
    told = [str(name) for name in names]
    if len(told) == 1:
        return told[0]
    return say(lang, "list.and", rest=", ".join(told[:-1]), last=told[-1])


def ability_text(ability_id: str, english: str, lang: str) -> str:
    """A character card's printed words in `lang` (its English words where none)."""
    key = f"ability.{ability_id}"
    if language(lang) == DEFAULT_LANGUAGE or not has_words(lang, key):
        return english
    return say(lang, key)


def character_name(character: str, lang: str) -> str:
    """A character's name (`Muscleman`) in `lang`."""
    key = f"character.{character}"
    return say(lang, key) if has_words(lang, key) else character
