"""The Queenie modules at a glance on the dashboard, on a real server in Chromium at a phone's
390 px and at 1920x1080: a live game with the Pit, the Maze, the Maya calendar (doomed side),
the new traps, the quest chambers and the new quests, and the Wishing well, its events posted
through the API as a table would; and a game on the calendar's doomed side, resumed from its
saved record. Every token is drawn as its own picture (never the fallback
disc) with its words in the tooltip; the quests' progress sits beside its token; the Maya
calendar board shows its spaces, the figure, the bars and the escape's extra keys; no internal
id is shown and nothing overflows the page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from conftest import GAME_TIMELINE, checked_page, free_port, start_the_clock
from playwright.sync_api import expect
from screenshots import screenshot, screenshot_folder

from rules.modules_registry import INSTANCES
from rules.queenie.maya_calendar import SYMBOLS
from server.store import GameStore

REPO = Path(__file__).resolve().parents[2]


def _start_and(*placed: tuple[str, tuple[int, int], str]) -> list[dict[str, Any]]:
    """A temple: the start tile at [0, 0] and the given (tile, cell, stairs) placements."""
    return [{"tile": "start", "cell": [0, 0], "stairs": "S"}] + [
        {"tile": tile, "cell": list(cell), "stairs": stairs} for tile, cell, stairs in placed
    ]


SETUP = {
    "players": ["red", "blue", "green"],
    "modules": [
        "quests",
        "queenie_quests",
        "new_quests",
        "pit",
        "maze",
        "maya_calendar",
        "new_traps",
        "wishing_well",
    ],
    "quests": ["snake-pit"],
    "track_dice": False,
    "temple": _start_and(
        ("gem3-key-1", (1, 0), "W"),
        ("pit", (-1, 0), "E"),
        ("mirage", (0, -1), "N"),
        ("gear", (1, -1), "N"),
        ("wishing-well", (-1, -1), "N"),
        ("beast", (2, 0), "W"),
    ),
}
"""Eight Queenie modules on (with module 5's quest chambers), some of their chambers laid, as
the set-up form sends them (the new quests: all three; the calendar: its eternal side)."""

EVENTS: list[dict[str, Any]] = [
    {"type": "enter", "player": "blue", "cell": [1, 0]},
    {"type": "discover", "player": "red", "tile": "snake-pit", "cell": [0, 1], "stairs": "S"},
    {"type": "enter", "player": "green", "cell": [1, 0]},
    {"type": "discover", "player": "green", "tile": "gem1-key-1", "cell": [1, 1], "stairs": "S"},
    {"type": "calendar_tile", "player": "green", "cell": [1, 1], "symbol": "sun"},
    {"type": "enter", "player": "red", "cell": [0, 1]},
    {"type": "discover", "player": "red", "tile": "riddle", "cell": [-1, 1], "stairs": "E"},
    {"type": "enter", "player": "red", "cell": [-1, 1]},
    {"type": "reveal_statue", "players": ["red"], "space": 1, "colour": "blue"},
    {"type": "enter", "player": "green", "cell": [1, 1]},
    {"type": "discover", "player": "green", "tile": "guardian", "cell": [2, 1], "stairs": "W"},
    {"type": "enter", "player": "green", "cell": [2, 1]},
    {"type": "pick_guardian", "player": "green"},
    {"type": "enter", "player": "blue", "cell": [1, -1]},
    {"type": "enter", "player": "blue", "cell": [0, -1]},
    {"type": "enter", "player": "blue", "cell": [-1, -1]},
    {"type": "discover", "player": "blue", "tile": "ascension", "cell": [-2, -1], "stairs": "E"},
    {"type": "enter", "player": "blue", "cell": [-2, -1]},
    {"type": "ascend", "player": "blue"},
]
"""The table's moves: snakes laid, a calendar tile drawn, a statue revealed, a guardian
carried, a step climbed."""

TOKENS_ON_TILES = {
    "0_0": {"snake"},
    "1_0": {"snake"},
    "-1_0": {"pit"},
    "0_-1": {"mirage"},
    "1_-1": {"gear"},
    "0_1": {"mother-snake"},
    "1_1": {"calendar-sun"},
    "-1_1": {"statue"},
    "2_1": {"guardian"},
    "-2_-1": {"step"},
}
"""What each tile of the game shows, by the picture's name."""

INTERNAL_IDS = re.compile(
    r"\b(?:calendar-(?:sun|moon|gear)|mother-snake|snake-pit|grey-slide|gem-location|"
    r"cursed-gem|really-cursed|stand-up|time_out|maya_calendar|queenie_quests|new_quests|"
    r"new_traps|wishing_well|wishing-well|gem1-key-1|gem3-key-1|token-fallback)\b"
)
"""Ids the page may hold in its attributes but never show a player."""


def _token_names() -> set[str]:
    """Every token name the Queenie modules' rules give (read from their source)."""
    names: set[str] = set()
    for path in sorted((REPO / "rules" / "queenie").glob("*.py")):
        text = path.read_text("utf-8")
        names |= set(re.findall(r'"token":\s*"([a-z_-]+)"', text))
        if 'f"calendar-{symbol}"' in text:
            names |= {f"calendar-{symbol}" for symbol in SYMBOLS}
    return names


@pytest.fixture(scope="module")
def queenie_game(game_server: Any) -> Any:
    """The game server with the Queenie game set up and its events played."""
    game_server.post("/api/games", SETUP)
    start_the_clock(game_server)
    for event in EVENTS:
        verdict = game_server.post("/api/event", {"event": event})["verdict"]
        assert verdict["ok"], (event, verdict)
    return game_server


def test_the_rules_give_the_tokens_this_test_knows():
    names = _token_names()
    assert len(names) >= 29
    assert {"snake", "statue", "calendar-sun", "calendar-gear", "time_out", "wish"} <= names


@pytest.mark.browser
def test_every_queenie_token_has_its_own_picture(chromium, queenie_game):
    names = sorted(_token_names())
    with checked_page(chromium, queenie_game.url, {"width": 390, "height": 844}) as page:
        page.goto("/game")
        expect(page.get_by_test_id("maya-calendar")).to_be_visible()
        drawn = page.evaluate(
            r"""async (names) => {
              const art = await import("/static/module-art.js");
              const box = document.createElement("div");
              box.style.fontSize = "16px";
              document.body.append(box);
              return names.map((token) => {
                const label = `the ${token.replace(/[-_]/g, " ")} token`;
                const chip = art.moduleToken({ token, label, count: 2 });
                box.append(chip);
                const svg = chip.querySelector("svg");
                const box2 = svg.getBBox();
                return {
                  token,
                  fallback: chip.classList.contains("token-fallback"),
                  title: chip.title,
                  svgTitle: svg.querySelector("title").textContent,
                  width: box2.width,
                  height: box2.height,
                  shown: svg.getBoundingClientRect().width,
                  body: svg.innerHTML.replace(/<title>.*?<\/title>/, ""),
                };
              });
            }""",
            names,
        )
    for chip in drawn:
        assert not chip["fallback"], f"{chip['token']} is drawn as the fallback disc"
        label = f"the {chip['token'].replace('-', ' ').replace('_', ' ')} token"
        assert chip["title"] == chip["svgTitle"] == label
        # The picture fills its 24-unit square (readable at 1.4em), drawn at 1.4em of 16 px.
        assert max(chip["width"], chip["height"]) >= 16, chip
        assert chip["shown"] == pytest.approx(1.4 * 16, abs=0.5), chip
    # Each token its own picture: two the same would not tell the tokens apart.
    assert len({chip["body"] for chip in drawn}) == len(names)


@pytest.mark.browser
def test_every_queenie_modules_reminders_have_its_picture(chromium, queenie_game):
    queenie = sorted(
        key for key, m in INSTANCES.items() if type(m).__module__.startswith("rules.queenie.")
    )
    assert len(queenie) == 15
    with checked_page(chromium, queenie_game.url, {"width": 390, "height": 844}) as page:
        page.goto("/game")
        expect(page.get_by_test_id("maya-calendar")).to_be_visible()
        icons = page.evaluate(
            """async (ids) => {
              const art = await import("/static/module-art.js");
              return ids.map((id) => {
                const icon = art.reminderIcon(`queenie-${id}`);
                return icon ? icon.innerHTML.length : 0;
              });
            }""",
            queenie,
        )
        assert all(length > 100 for length in icons), dict(zip(queenie, icons, strict=True))
        # On the page: each Queenie reminder line has its module's picture beside it.
        lines = page.locator("[data-testid^='reminder-queenie-']")
        expect(lines.first).to_be_visible()
        assert lines.count() >= 4
        for line in lines.all():
            expect(line.locator("svg.reminder-icon")).to_have_count(1)


def _check_the_page(page: Any) -> None:
    """The tokens, the progress beside them, the calendar board, no id, no overflow."""
    for cell, tokens in TOKENS_ON_TILES.items():
        tile = page.get_by_test_id(f"tile-{cell}")
        expect(tile.locator(".module-token").first).to_be_attached()
        chips = tile.locator(".module-token")
        shown = set(chips.evaluate_all("(n) => n.map((t) => t.dataset.token)"))
        assert shown == tokens, (cell, shown)
    assert page.locator(".module-token.token-fallback").count() == 0
    for chip in page.locator(".module-token").all():
        title = chip.get_attribute("title") or ""
        assert len(title) > 10 and title == chip.locator("svg title").text_content()

    # The quests' progress beside their tokens; the snakes counted on their tiles.
    statue = page.get_by_test_id("tile--1_1").locator(".module-token")
    expect(statue.locator(".token-words")).to_have_text("1/4")
    assert "blue" in (statue.get_attribute("title") or "")
    assert statue.locator("svg circle[fill='#3b8cff']").count() == 1  # the blue statue is up
    expect(page.get_by_test_id("tile--2_-1").locator(".token-words")).to_have_text("1/4")
    guardians = page.get_by_test_id("tile-2_1").locator(".token-count")
    expect(guardians).to_have_text("\N{MULTIPLICATION SIGN}2")  # two tokens still to carry
    carried = page.get_by_test_id("player-green").locator(".module-token[data-token='guardian']")
    expect(carried).to_have_attribute("title", re.compile("guardian token, a die on it"))
    assert page.locator("[data-testid^='tile-'] .module-token[data-token='snake']").count() == 2

    # The Maya calendar board: the start and 9 spaces, the figure at the start, no bars.
    board = page.get_by_test_id("maya-calendar")
    expect(board).to_be_visible()
    expect(board).to_contain_text("Maya calendar")
    expect(page.get_by_test_id("maya-side")).to_have_text("eternal side")
    expect(page.get_by_test_id("maya-next")).to_have_text("next: sun")
    expect(board.locator(".maya-space")).to_have_count(10)
    rows = board.locator(".maya-space").evaluate_all(
        "(n) => new Set(n.map((s) => Math.round(s.getBoundingClientRect().top))).size"
    )
    assert rows == 1  # the whole track in one row, a phone's included
    expect(page.get_by_test_id("maya-space-0").locator(".maya-figure")).to_have_count(1)
    expect(board.locator(".maya-figure")).to_have_count(1)
    expect(page.get_by_test_id("maya-space-1")).to_have_attribute("title", "space 1: sun")
    expect(board.locator(".maya-bar")).to_have_count(0)  # the eternal side has none
    expect(page.get_by_test_id("maya-extra-keys")).to_have_count(0)
    _check_the_symbols(page)
    _check_nothing_shows_an_id_or_overflows(page)


def _check_the_symbols(page: Any) -> None:
    """The board's symbols are the state's spaces, in order."""
    symbols = (
        page.get_by_test_id("maya-calendar")
        .locator(".calendar-symbol")
        .evaluate_all("(n) => n.map((s) => s.getAttribute('class').match(/symbol-(\\w+)/)[1])")
    )
    assert symbols == calendar_state(page)["spaces"]


def _check_nothing_shows_an_id_or_overflows(page: Any) -> None:
    """No internal id in the page's text; nothing wider than the window."""
    text = page.locator("body").inner_text()
    assert not INTERNAL_IDS.search(text), INTERNAL_IDS.search(text)
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]"
    )
    assert max(widths[:2]) <= widths[2], widths
    wide = page.evaluate(
        """() => [...document.querySelectorAll('.maya-calendar *, .module-token')]
             .filter((n) => n.getBoundingClientRect().right > innerWidth + 0.5)
             .map((n) => n.className.baseVal ?? n.className)"""
    )
    assert wide == []


def _clip(page: Any) -> dict[str, float]:
    """The page's region (page coordinates) from the Maya calendar's top to the temple's bottom."""
    return page.evaluate(
        """() => {
          const top = document.getElementById("maya-calendar").getBoundingClientRect().top;
          const bottom = document.querySelector(".temple-panel").getBoundingClientRect().bottom;
          return { x: 0, y: top + scrollY, width: innerWidth, height: bottom - top };
        }"""
    )


def calendar_state(page: Any) -> dict[str, Any]:
    """The calendar's part of the state the page was sent."""
    return page.evaluate(
        "async () => (await (await fetch('/api/state')).json()).game.state.maya_calendar"
    )


@pytest.mark.browser
@pytest.mark.parametrize(
    ("viewport", "picture"),
    [
        ({"width": 390, "height": 844}, "game-queenie-phone.png"),
        ({"width": 1920, "height": 1080}, "game-queenie.png"),
    ],
    ids=["phone", "desktop"],
)
def test_a_queenie_game_at_a_glance(chromium, queenie_game, viewport, picture):
    with checked_page(chromium, queenie_game.url, viewport) as page:
        page.goto("/game")
        expect(page.get_by_test_id("tile--2_-1")).to_be_visible()
        _check_the_page(page)
        if viewport["width"] > 500:
            screenshot(page, picture)
        else:  # a phone's first screen is the clock: picture the calendar and the temple
            folder = screenshot_folder()
            folder.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(folder / picture), clip=_clip(page), full_page=True)


DOOMED_SETUP = {
    "type": "setup",
    "players": ["red", "blue"],
    "difficulty": "normal",
    "modules": ["maya_calendar"],
    "track_dice": False,
    "maya_side": "doomed",
    "maya_bars": [3, 6],
    "temple": _start_and(("gem3-key-1", (1, 0), "W")),
}
"""The calendar's doomed side, its bars where the board's defaults stand."""


@pytest.mark.browser
def test_the_doomed_calendar_shows_its_bars_the_figure_and_the_extra_keys(
    chromium, start_server, tmp_path
):
    # A saved game on the doomed side (the set-up form offers no side yet): the server
    # resumes it, and the table plays on through the API.
    GameStore(tmp_path / "data" / "games").create(
        DOOMED_SETUP, {"created": 0.0, "audio_mode": "off", "clock": {"status": "ready"}}
    )
    server = start_server(GAME_TIMELINE, free_port()).server
    start_the_clock(server)
    for event in (
        {"type": "discover", "player": "red", "tile": "gem1-key-1", "cell": [0, 1], "stairs": "S"},
        {"type": "calendar_tile", "player": "red", "cell": [0, 1], "symbol": "sun"},
        {"type": "enter", "player": "red", "cell": [0, 1]},
        {"type": "activate", "cell": [0, 1], "gems": 1, "players": ["red"]},
    ):
        verdict = server.post("/api/event", {"event": event})["verdict"]
        assert verdict["ok"], (event, verdict)

    with checked_page(chromium, server.url, {"width": 390, "height": 844}) as page:
        page.goto("/game")
        board = page.get_by_test_id("maya-calendar")
        expect(page.get_by_test_id("maya-side")).to_have_text("doomed side")
        # The sun tile advanced the figure one space: the next is the board's second symbol.
        expect(page.get_by_test_id("maya-space-1").locator(".maya-figure")).to_have_count(1)
        expect(board.locator(".maya-figure")).to_have_count(1)
        expect(page.get_by_test_id("maya-next")).to_have_text("next: moon")
        expect(page.get_by_test_id("maya-space-1")).to_have_attribute(
            "title", "space 1: sun · the Maya figure is here"
        )
        expect(page.get_by_test_id("maya-space-3")).to_have_attribute(
            "title",
            "space 3: gear · bar 1: the figure must reach this space by the end of countdown 1",
        )
        bars = board.locator(".maya-space:has(.maya-bar) .maya-n").all_text_contents()
        assert bars == ["3", "6"]
        # Far from the calendar's end: 3 extra keys to escape, counted in the keys counter.
        expect(page.get_by_test_id("maya-extra-keys")).to_have_text("+3 keys to escape")
        state = server.get("/api/state")["game"]
        assert state["maya_calendar"] == {"extra_keys": 3}
        expect(page.get_by_test_id("keys-to-escape")).to_have_text(
            str(state["state"]["keys_to_escape"])
        )
        _check_the_symbols(page)
        _check_nothing_shows_an_id_or_overflows(page)
        screenshot(page, "game-maya-doomed-phone.png")


@pytest.mark.browser
def test_the_calendar_board_speaks_the_tables_language(chromium, queenie_game):
    with checked_page(chromium, queenie_game.url, {"width": 390, "height": 844}) as page:
        page.add_init_script("localStorage.setItem('templecam.lang', 'pt')")
        page.goto("/game")
        board = page.get_by_test_id("maya-calendar")
        expect(board).to_contain_text("Calendário maia")
        expect(page.get_by_test_id("maya-side")).to_have_text("lado eterno")
        expect(page.get_by_test_id("maya-next")).to_have_text("próximo: sol")
        expect(page.get_by_test_id("maya-space-2")).to_have_attribute("title", "casa 2: lua")
        _check_nothing_shows_an_id_or_overflows(page)
