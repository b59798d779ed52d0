"""The table's language: the translation catalog (gettext `.po` files read and compiled with
Babel) and the words of one language, for the pages, the log and the engine's reasons.

The catalog lives in `base/i18n/<lang>/LC_MESSAGES/templecam.po`; each message id is a key
(`game.keys_to_escape`), each translation may hold `{name}` placeholders, filled by `say`.
English is the reference: every key exists there, and a key missing elsewhere reads English.
"""

from __future__ import annotations

import gettext as _gettext
import io
import re
import string
from functools import cache
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

CATALOG_DIR = Path(__file__).with_name("i18n")
DOMAIN = "templecam"
DEFAULT_LANGUAGE = "en"
LANGUAGES: dict[str, str] = {
    "en": "English",
    "pt": "Português",
    "es": "Español",
    "el": "Ελληνικά",
}
"""Every language of the catalog, with its name in its own words (what the chooser shows)."""

_FIELD = re.compile(r"^[a-z_][a-z0-9_]*$")


def language(value: object) -> str:
    """The catalog's language for a browser's or a user's choice (`pt-BR` -> `pt`, `EL` -> `el`);
    English for anything else."""
    if not isinstance(value, str):
        return DEFAULT_LANGUAGE
    code = value.strip().lower().replace("_", "-").split("-")[0]
    return code if code in LANGUAGES else DEFAULT_LANGUAGE


def po_path(lang: str) -> Path:
    """Where the main `.po` file of a language lies."""
    return CATALOG_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def po_paths(lang: str) -> list[Path]:
    """Every `.po` file of a language: the main one, then any other part of the catalog
    (`story.po`, ...) in name order; together they are the language's catalog."""
    parts = sorted(p for p in po_path(lang).parent.glob("*.po") if p != po_path(lang))
    return [po_path(lang), *parts]


def read_po_file(path: Path, lang: str) -> dict[str, str]:
    """The keys and words of one `.po` file."""
    with path.open("rb") as file:
        catalog = read_po(file, locale=lang if lang != "en" else None)
    return {str(m.id): str(m.string) for m in catalog if m.id and isinstance(m.id, str)}


@cache
def _read(lang: str) -> dict[str, str]:
    words: dict[str, str] = {}
    for path in po_paths(lang):
        words.update(read_po_file(path, lang))
    return words


def catalog(lang: str) -> dict[str, str]:
    """Every key of the catalog in `lang`, English where the language has no words for a key."""
    return dict(_merged(language(lang)))


@cache
def _merged(lang: str) -> dict[str, str]:
    words = dict(_read(DEFAULT_LANGUAGE))
    if lang != DEFAULT_LANGUAGE:
        words.update({key: text for key, text in _read(lang).items() if text})
    return words


def has_words(lang: str, key: str) -> bool:
    """True when the catalog has words for `key` (in `lang` or, beneath it, English)."""
    return key in _merged(language(lang))


def own_words(lang: str) -> dict[str, str]:
    """The keys a language's `.po` file itself gives (empty ones included), for the checks."""
    return dict(_read(lang))


@cache
def gettext(lang: str) -> _gettext.NullTranslations:
    """The standard `gettext` translations of a language, compiled from its `.po` by Babel
    (`gettext(lang).gettext(key)`), English beneath it as the fallback."""
    lang = language(lang)
    translations = _compiled(lang)
    if lang != DEFAULT_LANGUAGE:
        translations.add_fallback(_compiled(DEFAULT_LANGUAGE))
    return translations


def _compiled(lang: str) -> _gettext.GNUTranslations:
    catalog = Catalog(locale=lang if lang != "en" else None, domain=DOMAIN)
    for key, text in _read(lang).items():
        catalog.add(key, text)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return _gettext.GNUTranslations(buffer)


def placeholders(text: str) -> set[str]:
    """The `{name}` placeholders a text holds."""
    return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}


def say(lang: str, key: str, **params: object) -> str:
    """The words of `key` in `lang`, placeholders filled (`say("pt", "log.escapes", who="Red")`)."""
    text = gettext(lang).gettext(key)
    return text.format(**params) if params else text


@cache
def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"\{([a-z_][a-z0-9_]*)\}", template)
    pattern = "".join(
        re.escape(part) if index % 2 == 0 else f"(?P<{part}>.+?)"
        for index, part in enumerate(parts)
    )
    return re.compile(f"^{pattern}$")


def match_template(keys: tuple[str, ...], text: str) -> tuple[str, dict[str, str]] | None:
    """The first key whose English words, placeholders as wildcards, say exactly `text`, with
    what each placeholder stood for; None when none does (how an English message the program
    made is found in the catalog, to be said in another language)."""
    for key in keys:
        found = _pattern(say(DEFAULT_LANGUAGE, key)).match(text)
        if found:
            return key, found.groupdict()
    return None


def keys_under(prefix: str) -> tuple[str, ...]:
    """Every key of the catalog that starts with `prefix` (`notice.`), in the catalog's order."""
    return tuple(key for key in _read(DEFAULT_LANGUAGE) if key.startswith(prefix))


def told_by_template(lang: str, prefix: str, text: str) -> str:
    """An English message (`text`) in `lang` when a key under `prefix` words it, its
    placeholders' values kept as they are; the message itself otherwise."""
    matched = match_template(keys_under(prefix), text) if language(lang) != "en" else None
    if matched is None:
        return text
    key, values = matched
    return say(lang, key, **values)


def field_names_are_plain(text: str) -> bool:
    """True when every placeholder of a text is a plain name (`{who}`, never `{0}` or `{a.b}`)."""
    return all(_FIELD.match(field) for field in placeholders(text))
