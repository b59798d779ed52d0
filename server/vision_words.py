"""The camera panel's waiting messages and notes in the page's language (issue 22).

The vision pipeline words them in English (`vision.stages.events`, tests read those words); the
server tells them at display time by the catalog's `more.wait.*` templates, whose English is the
pipeline's own wording: a message one part of which the catalog cannot say reads English whole.
The panel's messages never name the data folder's place on this computer (`plain`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from base.words import (
    DEFAULT_LANGUAGE,
    has_words,
    keys_under,
    language,
    match_template,
    say,
    told_by_template,
)
from rules.engine import Game
from rules.narrative import tell_event, tell_reason


def _who(lang: str, player: str) -> str | None:
    key = f"colour.{player.lower()}"
    return say(lang, key) if has_words(lang, key) else None


def _faces(lang: str, faces: str) -> str | None:
    names = faces.split(", ")
    if not all(has_words(lang, f"face.{face}") for face in names):
        return None
    return ", ".join(say(lang, f"face.{face}") for face in names)


def _reason(lang: str, reason: str, game: Game | None) -> str | None:
    told = tell_reason(reason, game, lang) if game is not None else reason
    return told if told != reason else None


def _event(
    lang: str, english: str, game: Game | None, pending: Iterable[Mapping[str, Any]]
) -> str | None:
    """The held event the English `english` tells, told in `lang` (None when none is held)."""
    if game is None:
        return None
    for event in pending:
        if tell_event(dict(event), game) == english:
            told = tell_event(dict(event), game, lang=lang)
            return told if told != english else None
    return None


def waiting_in(
    lang: str, text: str, game: Game | None, pending: Iterable[Mapping[str, Any]] = ()
) -> str:
    """One of the pipeline's waiting messages (`red: 2 of 3 dice seen`) in `lang`; the held
    piece events (`pending`) let a refused one be told anew; English when a part is not said.
    In English only the players' colours and the dice faces are put in words (`Red`,
    `golden mask`): the rest is the pipeline's English already."""
    lang = language(lang)
    matched = match_template(keys_under("more.wait."), text)
    if matched is None:
        return text
    key, values = matched
    told: dict[str, str | None] = dict(values)
    if "who" in values:
        told["who"] = _who(lang, values["who"])
    if "faces" in values:
        told["faces"] = _faces(lang, values["faces"])
    if lang == DEFAULT_LANGUAGE:
        return say(lang, key, **{k: told[k] or v for k, v in values.items()})
    if "reason" in values:
        told["reason"] = _reason(lang, values["reason"], game)
    if "event" in values:
        told["event"] = _event(lang, values["event"], game, pending)
    if None in told.values():
        return text
    return say(lang, key, **told)


def note_in(lang: str, text: str) -> str:
    """A camera note (the demo's, a model's) in `lang` where the catalog's notices word it."""
    return told_by_template(lang, "notice.", text)


def plain(message: str, data_dir: Path) -> str:
    """Say a message without the data folder's place on this computer."""
    for folder in {str(data_dir.resolve()), str(data_dir)}:
        message = message.replace(folder + "/", "").replace(folder, "the data folder")
    return message
