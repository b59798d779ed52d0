"""The words of the spoken alerts, by key, and the espeak-ng voice of each table language.

English is written here; the other languages come from the translation catalog through one
seam: a function `(language, key) -> words or None` that every alert asks first (keys and
`{name}` placeholders as below). By default it is the project's catalog (`base.words`: an
`alert.*`, `curse.*`, `time.*` or `colour.*` key translated in a language's `.po` file is spoken
in that language); `use_catalog` swaps it. A key a language lacks is spoken in English, with the
English voice, never English words in a Greek voice.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from base import words as catalog_words

LANGUAGES: Mapping[str, str] = {"en": "en", "pt": "pt", "es": "es", "el": "el"}
"""Each table language and the espeak-ng voice that speaks it."""
DEFAULT_LANGUAGE = "en"

ENGLISH: Mapping[str, str] = {
    "alert.back_to_start": "{who}, back to the start!",
    "alert.door_soon": "Door slams in ten seconds!",
    "alert.collapse_soon": "The temple collapses in ten seconds!",
    "alert.gems_left.one": "One gem left in the depot.",
    "alert.gems_left.other": "{count} gems left in the depot.",
    "alert.gems_left.zero": "No gems left in the depot: get out!",
    "alert.cursed": "{who} is cursed: {what}!",
    "alert.sand_ends": "The sand timer of the {chamber} ends.",
    "alert.sand_turns": "The sand timer of the {chamber} turns.",
    "alert.try": "Spoken alerts are on.",
    "alert.and": "{first} and {last}",
    "curse.trap": "no entering chambers",
    "curse.silence": "not a word",
    "curse.broken_die": "one die on the card",
    "curse.lost_dice": "mind your dice",
    "curse.mask": "one black mask per golden mask",
    "curse.cursed_hand": "hand on your head",
    "curse.soul_exchange": "swap adventurers",
    "curse.stand_up": "stand up",
    "curse.other": "read the card",
    "time.prohibition": "prohibition chamber",
    "time.sacrifice": "sacrifice chamber",
    "time.lava": "lava chamber",
    "time.torch": "torch chamber",
    "colour.red": "Red",
    "colour.blue": "Blue",
    "colour.green": "Green",
    "colour.yellow": "Yellow",
    "colour.purple": "Purple",
    "colour.orange": "Orange",
}
"""Every key the alerts use, in English."""

Catalog = Callable[[str, str], str | None]


@dataclass(frozen=True)
class Word:
    """A placeholder's value that is itself words to look up (`Word("curse.cursed_hand")`)."""

    key: str


@dataclass(frozen=True)
class Players:
    """A placeholder's value naming players by id, said `Red and Blue`."""

    ids: tuple[str, ...]


Value = int | Word | Players
"""What a placeholder may hold: a number, words to look up, or players."""


@dataclass(frozen=True)
class Spoken:
    """Words to speak and the language they are in (English where the catalog had none)."""

    text: str
    language: str

    @property
    def voice(self) -> str:
        """Return the espeak-ng voice for these words."""
        return LANGUAGES[self.language]


def project_catalog(language: str, key: str) -> str | None:
    """The words of `key` in a language's own `.po` file (None when it has none)."""
    if language not in catalog_words.LANGUAGES:
        return None
    return catalog_words.own_words(language).get(key) or None


_catalog: Catalog = project_catalog


def use_catalog(lookup: Catalog | None) -> None:
    """Swap the translation catalog (None: the project's own, `project_catalog`)."""
    global _catalog
    _catalog = lookup or project_catalog


def words_for(key: str, language: str) -> str | None:
    """The words of `key` in `language` (None when that language has none: English is used)."""
    if key not in ENGLISH:
        raise KeyError(f"no alert words for {key!r}")
    if language == DEFAULT_LANGUAGE:
        return ENGLISH[key]
    words = _catalog(language, key)
    return words if words and _fields(words) <= _fields(ENGLISH[key]) else None


def say(key: str, language: str, **values: Value) -> Spoken:
    """The alert `key` in `language`, its placeholders filled; in English when the language
    lacks any of the words it needs (one voice speaks one whole alert)."""
    if language not in LANGUAGES:
        raise ValueError(f"spoken alerts know {', '.join(LANGUAGES)}, not {language!r}")
    needed = [key, *(k for value in values.values() for k in _keys_of(value))]
    if any(words_for(k, language) is None for k in needed):
        language = DEFAULT_LANGUAGE
    filled = {name: _filled(value, language) for name, value in values.items()}
    return Spoken(_text(key, language).format(**filled), language)


def _keys_of(value: Value) -> list[str]:
    if isinstance(value, Word):
        return [value.key]
    if isinstance(value, Players):
        keys = [f"colour.{pid}" for pid in value.ids if f"colour.{pid}" in ENGLISH]
        return keys + (["alert.and"] if len(value.ids) > 1 else [])
    return []


def _text(key: str, language: str) -> str:
    words = words_for(key, language)
    assert words is not None  # checked by `say`
    return words


def _filled(value: Value, language: str) -> str:
    if isinstance(value, Word):
        return _text(value.key, language)
    if isinstance(value, Players):
        names = [
            _text(f"colour.{pid}", language) if f"colour.{pid}" in ENGLISH else pid.capitalize()
            for pid in value.ids
        ]
        if len(names) <= 1:
            return "".join(names)
        return _text("alert.and", language).format(first=", ".join(names[:-1]), last=names[-1])
    return str(value)


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}
