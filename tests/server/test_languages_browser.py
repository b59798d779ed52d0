"""The table's language in Debian's Chromium on a real server (issue 22): the game page and the
set-up page in English, Portuguese, Spanish and Greek at 390 px, nothing overflowing; the chooser
remembered over reloads; the browser's own language by default; the record free of words."""

from __future__ import annotations

import contextlib
import io
import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import (
    COUNTDOWN_SOON,
    GAME_TIMELINE,
    SHORT_TIMELINE,
    ServerProcess,
    checked_page,
    free_port,
    open_alerts,
    start_the_clock,
)
from PIL import Image, ImageStat
from playwright.sync_api import Browser, Page, expect
from test_languages_api import play_module_game
from test_story import fetch
from test_story_browser import page_fits, ten_minutes

from base.words import LANGUAGES, own_words, say, told_by_template
from server.story import game_story
from server.story_image import story_png
from vision.sources.open import DEMO_NOTE

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
GAME_KEYS = ("game.keys_to_escape", "game.gems_in_depot", "game.turns_of_fate", "game.log")
SETUP_KEYS = ("setup.who_plays", "setup.difficulty", "setup.starting_temple", "setup.start_game")

OVERFLOW = """(selector) => {
  const page = document.scrollingElement;
  const wide = [];
  if (page.scrollWidth > page.clientWidth) {
    wide.push(`page ${page.scrollWidth} > ${page.clientWidth}`);
  }
  for (const node of document.querySelectorAll(selector)) {
    if (node.offsetParent === null) continue; // not shown
    if (node.scrollWidth > node.clientWidth + 1) {
      wide.push(`${node.tagName}.${node.className} "${node.textContent.trim().slice(0, 40)}" ` +
        `${node.scrollWidth} > ${node.clientWidth}`);
    }
  }
  return wide;
}"""
"""What sticks out sideways: the page itself, or any shown element of `selector`."""

GAME_PARTS = (
    ".topbar, .counter, .counter-label, .clock-box, .controls .btn, .nav-links, .lang-chooser, "
    ".panel, .panel h2, .player, .players article, .action, .action .why, #log li, #team, "
    ".legend span"
)
SETUP_PARTS = ".page-head, .nav-links, .card, .card h2, .choice, .player-toggle, .start-row .btn"


@pytest.fixture(scope="module")
def played(game_server: Any) -> Any:
    """A game with a few events in its log (manual mode): red enters the chamber east of the
    start, blue the one west of it; the first countdown is still far away."""
    body = {"players": ["red", "blue"], "starting_chambers": ["chamber-1", "chamber-2"]}
    game_id = game_server.post("/api/games", body)["game_id"]
    start_the_clock(game_server)
    for event in (
        {"type": "enter", "player": "red", "cell": [1, 0]},
        {"type": "enter", "player": "blue", "cell": [-1, 0]},
    ):
        assert game_server.post("/api/event", {"event": event})["verdict"]["ok"], event
    return game_server, game_id


@pytest.fixture
def page_in(chromium: Browser, played: Any) -> Iterator[Any]:
    """Open a page at 390 px with the language already chosen (as if picked before)."""
    server, _ = played
    with contextlib.ExitStack() as pages:

        def open_in(lang: str) -> Page:
            page = pages.enter_context(checked_page(chromium, server.url, PHONE))
            page.add_init_script(f"localStorage.setItem('templecam.lang', {json.dumps(lang)})")
            return page

        yield open_in


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_game_page_speaks_the_chosen_language_and_fits_390_px(page_in: Any, lang: str):
    page = page_in(lang)
    page.goto("/game")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    for key in GAME_KEYS:
        expect(page.locator(f'[data-words="{key}"]').first).to_have_text(say(lang, key))
    expect(page.get_by_test_id("clock-label")).to_have_text(
        say(lang, "game.clock.game_time")
    )  # the script's words too
    log = page.get_by_test_id("log")
    expect(log).to_contain_text(say(lang, "colour.red"))  # the server's words, in the log
    expect(log).to_contain_text(say(lang, "chamber.plain"))
    expect(page.get_by_test_id("where-red")).to_contain_text(say(lang, "place.E"))
    expect(page.get_by_test_id("language-chooser")).to_have_value(lang)
    page.get_by_test_id("player-red").scroll_into_view_if_needed()
    assert page.evaluate(OVERFLOW, GAME_PARTS) == []


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_setup_page_speaks_the_chosen_language_and_fits_390_px(page_in: Any, lang: str):
    page = page_in(lang)
    page.goto("/setup")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    for key in SETUP_KEYS:
        expect(page.locator(f'[data-words="{key}"]').first).to_have_text(say(lang, key))
    expect(page.get_by_test_id("player-toggle-red")).to_contain_text(say(lang, "colour.red"))
    page.get_by_test_id("player-toggle-red").click()
    expect(page.get_by_test_id("setup-summary")).to_contain_text(say(lang, "setup.summary_manual"))
    assert page.evaluate(OVERFLOW, SETUP_PARTS) == []


def test_the_chooser_is_remembered_over_reloads_and_pages(chromium: Browser, played: Any):
    server, _ = played
    with checked_page(chromium, server.url, PHONE) as page:  # an English browser, nothing chosen
        page.goto("/setup")
        expect(page.locator("html")).to_have_attribute("lang", "en")
        with page.expect_navigation():
            page.get_by_test_id("language-chooser").select_option("el")
        expect(page.locator("html")).to_have_attribute("lang", "el")
        expect(page.locator('[data-words="setup.difficulty"]')).to_have_text("Δυσκολία")
        page.reload()
        expect(page.get_by_test_id("language-chooser")).to_have_value("el")
        page.goto("/game")
        expect(page.locator('[data-words="game.keys_to_escape"]')).to_have_text(
            say("el", "game.keys_to_escape")
        )
        with page.expect_navigation():
            page.get_by_test_id("language-chooser").select_option("en")
        expect(page.locator('[data-words="game.keys_to_escape"]')).to_have_text("keys to escape")


def test_the_browsers_own_language_is_the_default(chromium: Browser, played: Any):
    server, _ = played
    context = chromium.new_context(viewport=PHONE, base_url=server.url, locale="pt-BR")
    try:
        page = context.new_page()
        page.goto("/setup")
        expect(page.locator("html")).to_have_attribute("lang", "pt")
        expect(page.locator('[data-words="setup.start_game"]')).to_have_text("Começar o jogo")
    finally:
        context.close()


def test_the_saved_record_holds_no_words_of_any_language(page_in: Any, played: Any):
    server, game_id = played
    for lang in LANGUAGES:  # every language's page has shown the game (and sent an event)
        page = page_in(lang)
        page.goto("/game")
        expect(page.get_by_test_id("log")).to_contain_text(say(lang, "colour.blue"))
    server.post("/api/event", {"event": {"type": "enter", "player": "red", "cell": [0, 0]}})
    (record,) = list(server.data_dir.rglob(f"{game_id}.jsonl"))
    text = record.read_text("utf-8")
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert len(lines) >= 4
    assert all("lang" not in line and "text" not in line for line in lines)
    for lang in LANGUAGES:
        sentences = [w for w in own_words(lang).values() if " " in w.strip() and len(w) > 6]
        assert [w for w in sentences if w in text] == [], lang
    assert not any(say(lang, "colour.red") in text for lang in LANGUAGES)  # ids only: "red"


OTHER_PAGES = {
    "/games": "games.saved",
    "/dice": "dice.capture_title",
    "/tiles": "tiles.enroll_title",
    "/calibrate": "calibrate.seats",
}


@pytest.mark.parametrize("lang", ["el", "pt"])
@pytest.mark.parametrize("path", list(OTHER_PAGES))
def test_every_other_page_has_the_chooser_and_fits_390_px(page_in: Any, lang: str, path: str):
    page = page_in(lang)
    page.goto(path)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    key = OTHER_PAGES[path]
    expect(page.locator(f'[data-words="{key}"]').first).to_have_text(say(lang, key))
    expect(page.get_by_test_id("language-chooser")).to_have_value(lang)
    assert page.evaluate(OVERFLOW, ".page-head, .nav-links, .lang-chooser, .card h2") == []


def test_the_fix_dialog_speaks_the_chosen_language(page_in: Any, played: Any):
    server, _ = played
    log = server.get("/api/state")["log"]
    line = next(e["line"] for e in log if e["event"].get("type") == "enter" and e["ok"])
    page = page_in("pt")
    page.goto("/game")
    page.get_by_test_id(f"fix-{line}").click()
    form = page.get_by_test_id("fix-form")
    expect(form).to_contain_text(say("pt", "fix.player"))
    expect(form).to_contain_text(say("pt", "fix.into"))
    expect(page.get_by_test_id("fix-title")).to_contain_text("Corrigir a linha")
    options = page.get_by_test_id("fix-cell").locator("option").all_text_contents()
    assert say("pt", "chamber.the_start") in options
    assert any(say("pt", "place.E") in option for option in options)
    expect(page.get_by_test_id("fix-save")).to_have_text(say("pt", "fix.save"))


def test_the_countdown_banner_in_greek_fits_390_px(chromium: Browser, start_server: Any):
    server = start_server(COUNTDOWN_SOON, free_port()).server  # countdown 1 from 1 s on
    body = {"players": ["red", "blue"], "starting_chambers": ["chamber-1", "chamber-2"]}
    server.post("/api/games", body)
    start_the_clock(server)
    server.post("/api/event", {"event": {"type": "enter", "player": "red", "cell": [1, 0]}})
    with checked_page(chromium, server.url, PHONE) as page:
        page.add_init_script("localStorage.setItem('templecam.lang', 'el')")
        page.goto("/game")
        banner = page.get_by_test_id("countdown-alert")
        expect(banner).to_be_visible()
        expect(banner).to_contain_text(say("el", "game.countdown.back"))
        expect(page.get_by_test_id("must-run-back")).to_contain_text(say("el", "colour.red"))
        expect(banner).to_contain_text(say("el", "game.countdown.run_back"))
        parts = ".countdown-alert, .countdown-alert .headline, .countdown-alert .who"
        assert page.evaluate(OVERFLOW, parts) == []


COLLAPSE_SOON = {
    "intro_seconds": 0.5,
    "game_seconds": 4.0,
    "countdowns": [
        {"n": 1, "start": 0.5, "end": 1.0},
        {"n": 2, "start": 1.5, "end": 2.0},
        {"n": 3, "start": 2.5, "end": 4.0},
    ],
}
"""A four-second game: the temple collapses with everyone inside."""


def test_the_end_of_a_lost_game_in_greek_fits_390_px(chromium: Browser, start_server: Any):
    server = start_server(COLLAPSE_SOON, free_port()).server
    body = {"players": ["red", "blue"], "starting_chambers": ["chamber-1", "chamber-2"]}
    server.post("/api/games", body)
    start_the_clock(server)
    deadline = time.monotonic() + 15
    while server.get("/api/state")["game"]["state"]["outcome"] == "running":
        assert time.monotonic() < deadline, "the temple never collapsed"
        time.sleep(0.1)
    with checked_page(chromium, server.url, PHONE) as page:
        page.add_init_script("localStorage.setItem('templecam.lang', 'el')")
        page.goto("/game")
        outcome = page.get_by_test_id("outcome")
        expect(outcome).to_be_visible()
        expect(outcome).to_contain_text(say("el", "game.lost"))
        expect(outcome).to_contain_text(say("el", "colour.blue"))  # still inside
        expect(page.get_by_test_id("outcome-close")).to_have_text(say("el", "game.show_board"))
        assert page.evaluate(OVERFLOW, ".outcome, .outcome .box, .outcome .btn") == []
        page.get_by_test_id("outcome-close").click()
        expect(page.get_by_test_id("log")).to_contain_text(say("el", "narr.collapse"))


# ----- the story of a past game (/games/N) and its export, in the table's language ---------------

STORY_ID = "20260102-210000-1a7e"
STORY_HEADINGS = (
    "story.title",
    "story.h.depot",
    "story.h.dice",
    "story.h.rate",
    "story.h.countdowns",
    "story.h.where",
    "story.h.video",
    "story.h.moments",
)
ENGLISH_WORDS = re.compile(
    r"\b(the|game|story|gems?|depot|dice|each|rolls?|actions?|minute|countdowns?|who|made|back|"
    r"where|everyone|spent|camera|video|moments?|decided|download|delete|every|events?|save)\b",
    re.IGNORECASE,
)
"""English words the story page's headings and buttons say in English (none may be left)."""


@pytest.fixture(scope="module")
def saved_story(played: Any) -> tuple[Any, str, list[str]]:
    """The ten-minute game of the story tests (won, two slams, the last gem) saved in the
    server's store beside the game being played."""
    server, _ = played
    lines = ten_minutes()
    (server.data_dir / "games" / f"{STORY_ID}.jsonl").write_text(
        "\n".join(lines) + "\n", encoding="utf-8"
    )
    return server, STORY_ID, lines


@pytest.mark.parametrize("lang", ["el", "pt"])
def test_the_story_page_speaks_the_chosen_language_and_fits_390_px(
    page_in: Any, saved_story: Any, lang: str
):
    _, game_id, lines = saved_story
    page = page_in(lang)
    page.goto(f"/games/{game_id}")
    told = game_story(game_id, lines, lang)
    expect(page.get_by_test_id("story-outcome")).to_have_text(told["outcome_text"])
    assert page.title() == say(lang, "page.title.story")
    for key in STORY_HEADINGS:
        expect(page.locator(f'[data-words="{key}"]').first).to_have_text(say(lang, key))
    moments = page.get_by_test_id("moments")
    for moment in told["moments"][:3]:  # the server's moments, in the page's language
        expect(moments).to_contain_text(moment["text"])
    end = int(told["countdowns"][0]["end"])
    expect(page.get_by_test_id("countdown-1")).to_contain_text(
        say(lang, "story.cd_slam", n=1, when=f"{end // 60}:{end % 60:02d}")
    )
    shown = page.evaluate(
        """() => [...document.querySelectorAll(
              'h1, h2, summary, .btn, .legend, label, #story-facts')]
            .map((n) => n.textContent.trim())"""
    )
    assert [text for text in shown if ENGLISH_WORDS.search(text)] == []
    assert page.evaluate(OVERFLOW, STORY_PARTS) == []
    page_fits(page, PHONE["width"])
    href = page.get_by_test_id("download-png").get_attribute("href")
    assert href is not None and href.endswith(f"story.png?lang={lang}")


STORY_PARTS = (
    ".page-head, .nav-links, .lang-chooser, .card, .card h2, .story-actions .btn, .countdowns li, "
    ".moments button, .legend span, #story-facts, .ring-form"
)


def test_the_story_is_told_and_exported_in_portuguese(saved_story: Any):
    server, game_id, lines = saved_story
    english, portuguese = game_story(game_id, lines), game_story(game_id, lines, "pt")
    assert portuguese["lang"] == "pt" and english["lang"] == "en"
    assert len(portuguese["moments"]) == len(english["moments"]) >= 5
    for en, pt in zip(english["moments"], portuguese["moments"], strict=True):
        assert (pt["kind"], pt["t"]) == (en["kind"], en["t"])
        assert pt["text"] != en["text"], en["text"]  # every moment said anew in Portuguese
    kinds = {m["kind"]: m["text"] for m in portuguese["moments"]}
    assert kinds["countdown"] == say("pt", "story.m.countdown", n=1)
    assert "porta se fecha" in kinds["slam"]
    assert portuguese["outcome_text"] != english["outcome_text"]
    status, body, media = fetch(server, f"/api/games/{game_id}/story.png?lang=pt")
    assert status == 200 and media == "image/png"
    picture = Image.open(io.BytesIO(body))
    picture.verify()
    picture = Image.open(io.BytesIO(body))
    assert picture.format == "PNG" and picture.width == 1200 and picture.height > 2000
    assert body == story_png(portuguese)  # the Portuguese story, drawn by the real server
    assert body != story_png(english)
    assert ImageStat.Stat(picture.convert("L")).stddev[0] > 10  # drawn, not a blank page
    status, pdf, media = fetch(server, f"/api/games/{game_id}/story.pdf?lang=pt")
    assert status == 200 and media == "application/pdf" and pdf.startswith(b"%PDF")


# ----- the sound controls, the spoken alerts' controls and the practice hints --------------------

PRACTICE = {"minutes": 20, "countdown_seconds": 45, "first_delay_seconds": 300, "practice": True}


def test_the_sound_controls_alerts_and_hints_speak_spanish(chromium: Browser, start_server: Any):
    server = start_server(COUNTDOWN_SOON, free_port()).server
    body = {"players": ["red", "blue"], "starting_chambers": ["chamber-1", "chamber-2"]}
    server.post("/api/games", {**body, "timer": PRACTICE})
    with checked_page(chromium, server.url, PHONE) as page:
        page.add_init_script("localStorage.setItem('templecam.lang', 'es')")
        page.goto("/game")
        statuses = [say("es", f"sound.{k}") for k in ("loading", "ready", "press_enable")]
        expect(page.get_by_test_id("audio-status")).to_have_text(
            re.compile("|".join(re.escape(status) for status in statuses))
        )
        alerts = page.get_by_test_id("spoken-alerts")
        expect(alerts).to_contain_text(say("es", "alerts.label"))
        expect(alerts).to_contain_text(say("es", "alerts.voice"))
        expect(page.get_by_test_id("alerts-try")).to_have_text(say("es", "alerts.try"))
        options = page.get_by_test_id("alerts-frequency").locator("option").all_text_contents()
        assert options == [say("es", f"alerts.{k}") for k in ("all", "countdowns", "off")]
        hints = page.get_by_test_id("practice-hints")
        expect(hints).to_contain_text(say("es", "hint.title"))
        expect(hints).to_contain_text(say("es", "hint.press_start"))
        start_the_clock(server)
        red = page.get_by_test_id("hint-red")
        expect(red).to_contain_text(say("es", "colour.red"))
        expect(red).to_contain_text(say("es", "hint.now", action="").strip())
        shown = page.evaluate(
            """() => [...document.querySelectorAll(
              '.spoken-alerts, .practice-hints, #audio-status, #mute-here')]
            .map((n) => n.textContent)"""
        )
        english = re.compile(r"\b(Sound|Spoken|alerts|Voice|Try|Hints|you can|Press)\b")
        assert [text for text in shown if english.search(text)] == []
        open_alerts(page)  # the alert controls' panel
        expect(page.get_by_test_id("alerts-try")).to_be_visible()
        parts = ".spoken-alerts, .practice-hints, .practice-hints li, #audio-status"
        assert page.evaluate(OVERFLOW, parts) == []


def test_a_module_games_actions_in_greek_fit_390_px(chromium: Browser, start_server: Any):
    server = start_server(GAME_TIMELINE, free_port()).server
    play_module_game(server)
    with checked_page(chromium, server.url, PHONE) as page:
        page.add_init_script("localStorage.setItem('templecam.lang', 'el')")
        page.goto("/game")
        card = page.get_by_test_id("player-red")
        card.scroll_into_view_if_needed()
        summon = card.locator(".action.kind-summon")
        expect(summon).to_contain_text(say("el", "label.summon")[1:])  # capitalised by the page
        turn = card.locator(".action.kind-ability").first
        expect(turn).to_contain_text(say("el", "label.rotate")[1:])
        labels = page.locator(".action.kind-summon .label, .action.kind-ability .label")
        assert labels.count() >= 2
        assert [t for t in labels.all_inner_texts() if re.search(r"[A-Za-z]{2,}", t)] == []
        assert page.evaluate(OVERFLOW, GAME_PARTS + ", .action .label, .action .odds") == []


# ----- the dice and tiles pages' bodies ----------------------------------------------------------

PAGE_BODIES = {
    "/dice": (
        "page.title.dice",
        ("dice.capture_note", "dice.teach_note", "dice.undo", "dice.find", "dice.export"),
    ),
    "/tiles": ("page.title.tiles", ("tiles.note", "tiles.tile", "tiles.stairs")),
    "/calibrate": ("page.title.calibrate", ("calibrate.note", "calibrate.print_note")),
}
BODY_ENGLISH = re.compile(
    r"\b(the|your|photos?|dice|tile|table|press|button|camera|print|board|take|find|teach|"
    r"export|start|doors|entry)\b",
    re.IGNORECASE,
)
"""English words the pages' bodies say (the notes, labels and buttons)."""


@pytest.mark.parametrize("path", list(PAGE_BODIES))
def test_the_dice_tiles_and_calibrate_pages_bodies_speak_greek(page_in: Any, path: str):
    title, keys = PAGE_BODIES[path]
    page = page_in("el")
    page.goto(path)
    expect(page).to_have_title(say("el", title))
    for key in keys:
        expect(page.locator(f'[data-words="{key}"]').first).to_have_text(say("el", key))
    shown = page.evaluate(
        """() => [...document.querySelectorAll('main .note, main label, main .btn, main h2')]
            .filter((n) => n.getClientRects().length)
            .map((n) => n.textContent.replace(/templecam [a-z ]+/g, ''))"""
    )
    assert [text for text in shown if BODY_ENGLISH.search(text)] == []
    assert page.evaluate(OVERFLOW, ".page-head, .nav-links, .card, .card h2, .note, .btn") == []


def test_the_dice_page_s_steps_speak_greek(page_in: Any):
    page = page_in("el")
    page.goto("/dice")
    steps = page.get_by_test_id("steps")
    expect(steps).to_contain_text(say("el", "face.golden_mask")[1:])  # "ρυσή μάσκα", capitalised
    expect(page.get_by_test_id("upload-label")).to_contain_text(
        say("el", "dice.upload_of", what="")
    )


# ----- the modules' reminders, told in the page's language by the server -------------------------


@pytest.mark.parametrize("lang", ["pt", "el"])
def test_the_modules_reminders_speak_the_page_s_language(start_server: Any, lang: str):
    server = start_server(COUNTDOWN_SOON, free_port()).server
    body = {"players": ["red", "blue"], "modules": ["special", "curses"]}
    server.post("/api/games", body)
    english = server.get("/api/state")["game"]["reminders"]
    told = server.get(f"/api/state?lang={lang}")["game"]["reminders"]
    assert [r["kind"] for r in told] == [r["kind"] for r in english]
    piles = server.get(f"/api/state?lang={lang}")["game"]["piles"]
    assert piles.startswith(say(lang, "reminder.draw_pile", tiles=""))
    assert say(lang, "reminder.curse_pile", cards="").strip() in piles
    english_piles = server.get("/api/state")["game"]["piles"]
    assert english_piles.startswith("Draw pile: ") and "curse pile: " in english_piles


# ----- the set-up page's starting temple and characters, the game page's chips and buttons --------

ENGLISH_CARD_WORDS = re.compile(r"\b(permanent|activatable|ready|always on|used|start|chamber)\b")
"""The set-up page's and the character chip's English words (what is said in Greek now)."""


def test_the_starting_temple_and_the_characters_at_set_up_speak_greek(page_in: Any):
    page = page_in("el")
    page.goto("/setup")
    page.get_by_test_id("player-toggle-red").click()
    page.get_by_test_id("player-toggle-blue").click()
    page.get_by_test_id("module-characters").check()
    west = page.get_by_test_id("start-choice-W")
    expect(west).to_have_attribute("aria-label", say("el", "more.setup.west_of"))
    expect(page.get_by_test_id("start-layout")).to_contain_text(say("el", "more.setup.start"))
    options = west.locator("option").all_inner_texts()
    assert options and [o for o in options if re.search(r"[A-Za-z]", o)] == []
    assert any(o.startswith(say("el", "chamber.gem")) for o in options)
    expect(page.get_by_test_id("character-choices")).to_contain_text(
        say("el", "more.setup.characters_note")
    )
    red = page.get_by_test_id("character-red")
    red.select_option("mechanic-rotate")
    chosen = red.locator("option:checked").inner_text()
    assert chosen == (
        f"{say('el', 'character.Mechanic')} · {say('el', 'cardside.activatable')}: "
        f"{say('el', 'ability.mechanic-rotate')}"
    )
    texts = page.get_by_test_id("character-choices").locator("option").all_inner_texts()
    assert [text for text in texts if ENGLISH_CARD_WORDS.search(text)] == []
    assert page.evaluate(OVERFLOW, SETUP_PARTS + ", .character-choice, .start-choice") == []


def test_the_character_chips_speak_greek_and_keep_their_colours(
    chromium: Browser, start_server: Any
):
    server = start_server(GAME_TIMELINE, free_port()).server
    play_module_game(server)  # red: the Mechanic's activatable card, blue: the Discoverer's
    with checked_page(chromium, server.url, PHONE) as page:
        page.add_init_script("localStorage.setItem('templecam.lang', 'el')")
        page.goto("/game")
        red = page.get_by_test_id("character-red")
        red.scroll_into_view_if_needed()
        expect(red).to_contain_text(say("el", "character.Mechanic"))
        expect(red).to_contain_text(say("el", "cardside.activatable"))
        expect(red).to_contain_text(say("el", "more.char.ready"))
        expect(red).to_have_class(re.compile(r"\bactivatable\b"))
        chips = page.locator(".chip.character").all_inner_texts()
        assert len(chips) == 2 and [c for c in chips if ENGLISH_CARD_WORDS.search(c)] == []
        assert page.evaluate(OVERFLOW, GAME_PARTS + ", .chip") == []


def test_carrying_the_chalice_is_offered_in_portuguese(chromium: Browser, start_server: Any):
    server = start_server(GAME_TIMELINE, free_port()).server
    body = {"players": ["red", "blue"], "modules": ["special"]}
    server.post("/api/games", body | {"starting_chambers": ["chamber-1", "chamber-2"]})
    start_the_clock(server)
    for event in (
        {"type": "discover", "player": "red", "tile": "treasure-chamber", "cell": [0, 1]},
        {"type": "enter", "player": "red", "cell": [0, 1]},
    ):
        assert server.post("/api/event", {"event": event})["verdict"]["ok"], event
    with checked_page(chromium, server.url, PHONE) as page:
        page.add_init_script("localStorage.setItem('templecam.lang', 'pt')")
        page.goto("/game")
        carry = page.get_by_test_id("action-red-carry-0_0")
        carry.scroll_into_view_if_needed()
        expect(carry).to_contain_text(say("pt", "more.act.carry", name=say("pt", "chamber.start")))
        expect(carry).not_to_contain_text("Carry")
        assert page.evaluate(OVERFLOW, GAME_PARTS + ", .action .label") == []


def test_the_camera_panels_notes_speak_greek(chromium: Browser, tmp_path: Any):
    server = ServerProcess(tmp_path, SHORT_TIMELINE, tmp_path / "data", free_port(), camera=())
    try:  # no webcam here: the bundled demo recording plays, its note on the panel
        with checked_page(chromium, server.server.url, PHONE) as page:
            page.add_init_script("localStorage.setItem('templecam.lang', 'el')")
            page.goto("/game")
            notes = page.get_by_test_id("camera-notes")
            demo_note = told_by_template("el", "notice.", DEMO_NOTE)
            expect(notes).to_contain_text(demo_note, timeout=15_000)
            shown = notes.locator("li").all_inner_texts()
            english = re.compile(r"dice seen|camera sees|waiting for|refuses|demo recording")
            assert [text for text in shown if english.search(text)] == []
            assert page.evaluate(OVERFLOW, GAME_PARTS + ", #camera-notes li") == []
    finally:
        server.stop()
