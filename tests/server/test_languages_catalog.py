"""The translation catalog (issue 22): every key in every language, the same placeholders, the
keys the pages use all present, and the catalog served to the pages and shipped with the package."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from base.words import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    catalog,
    field_names_are_plain,
    gettext,
    language,
    own_words,
    placeholders,
    po_path,
    po_paths,
    read_po_file,
    say,
)
from server.words_api import words_router

REPO = Path(__file__).resolve().parents[2]
STATIC = REPO / "server" / "static"
OTHERS = [lang for lang in LANGUAGES if lang != DEFAULT_LANGUAGE]


@pytest.mark.parametrize("lang", OTHERS)
def test_no_key_is_missing_or_empty_in_any_language(lang):
    english = own_words(DEFAULT_LANGUAGE)
    words = own_words(lang)
    assert sorted(set(english) - set(words)) == [], f"{lang} lacks these keys"
    assert sorted(set(words) - set(english)) == [], f"{lang} has keys English lacks"
    assert [key for key, text in words.items() if not text.strip()] == []


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_catalog_s_parts_are_the_same_files_and_no_key_is_in_two(lang):
    names = [path.name for path in po_paths(lang)]
    assert names == [path.name for path in po_paths(DEFAULT_LANGUAGE)]
    seen: dict[str, str] = {}
    for path in po_paths(lang):
        for key in read_po_file(path, lang):
            assert key not in seen, f"{key} is in both {seen.get(key)} and {path.name}"
            seen[key] = path.name


def test_english_has_words_for_every_key():
    assert [key for key, text in own_words(DEFAULT_LANGUAGE).items() if not text.strip()] == []


@pytest.mark.parametrize("lang", OTHERS)
def test_placeholders_match_english(lang):
    english = own_words(DEFAULT_LANGUAGE)
    differ = {
        key: (sorted(placeholders(english[key])), sorted(placeholders(text)))
        for key, text in own_words(lang).items()
        if placeholders(text) != placeholders(english[key])
    }
    assert differ == {}


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_placeholders_are_plain_names(lang):
    assert [key for key, text in own_words(lang).items() if not field_names_are_plain(text)] == []


def _keys_used_by_the_pages() -> set[str]:
    """The keys the pages name: `data-words*="key"` in the HTML, and in the scripts `t("key")`
    or any quoted string of a catalog namespace (`"game.clock.paused"` in a ternary)."""
    namespaces = {key.split(".")[0] for key in own_words(DEFAULT_LANGUAGE)}
    quoted = re.compile(r'"((?:' + "|".join(sorted(namespaces)) + r')\.[a-z0-9_.]+)"')
    used: set[str] = set()
    for path in STATIC.glob("*.html"):
        used |= set(re.findall(r'data-words(?:-[a-z-]+)?="([^"]+)"', path.read_text("utf-8")))
    for path in STATIC.glob("*.js"):
        text = path.read_text("utf-8")
        used |= set(re.findall(r'\bt\("([a-z0-9_.]+)"', text)) | set(quoted.findall(text))
    return used


def test_every_key_the_pages_use_is_in_the_catalog():
    used = _keys_used_by_the_pages()
    assert len(used) > 50  # the game and set-up pages speak through the catalog
    assert sorted(used - set(own_words(DEFAULT_LANGUAGE))) == []


def test_the_rulebooks_words_are_the_catalogs():
    # The game's own words, as each language's rulebook prints them (../shared/rules/).
    assert say("pt", "face.golden_mask") == "máscara dourada"
    assert say("es", "face.golden_mask") == "máscara dorada"
    assert say("el", "face.golden_mask") == "χρυσή μάσκα"
    assert "contagem regressiva" in say("pt", "narr.countdown_start", n=1)
    assert "cuenta atrás" in say("es", "narr.countdown_start", n=1)
    assert "αντίστροφη μέτρηση" in say("el", "narr.countdown_start", n=1)


def test_gettext_is_the_compiled_catalog_with_english_beneath():
    assert gettext("pt").gettext("game.keys_to_escape") == "chaves para escapar"
    assert gettext("xx").gettext("game.keys_to_escape") == "keys to escape"
    assert catalog("el")["game.keys_to_escape"] == own_words("el")["game.keys_to_escape"]


def test_a_browser_language_finds_its_catalog():
    assert [language(v) for v in ("pt-BR", "es_ES", "EL", "fr", None, 7)] == [
        "pt",
        "es",
        "el",
        "en",
        "en",
        "en",
    ]


def test_the_route_gives_a_page_its_words():
    app = FastAPI()
    app.include_router(words_router())
    client = TestClient(app)
    answer = client.get("/api/words", params={"lang": "pt-BR"}).json()
    assert answer["lang"] == "pt"
    assert answer["words"] == catalog("pt")
    assert {entry["code"] for entry in answer["languages"]} == set(LANGUAGES)
    assert client.get("/api/words", params={"lang": "<script>"}).json()["lang"] == "en"


def test_the_catalog_ships_with_the_package():
    config = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    patterns = config["package-data"]["base"]
    shipped = {path for pattern in patterns for path in (REPO / "base").glob(pattern)}
    assert {po_path(lang) for lang in LANGUAGES} <= shipped
    assert any(dep.lower().startswith("babel") for dep in _dependencies())


def _dependencies() -> list[str]:
    return tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["dependencies"]


def test_the_spoken_alerts_words_are_in_every_language():
    from server.alert_words import ENGLISH

    english = own_words(DEFAULT_LANGUAGE)
    assert {key: english.get(key) for key in ENGLISH} == dict(ENGLISH)  # the same English
    for lang in OTHERS:
        words = own_words(lang)
        assert [key for key in ENGLISH if not words.get(key)] == [], lang
