"""The dashboard says which modules' tokens and choices are entered by a click (issue 21: the
camera reads chambers, figures and dice, never a Queenie module's tokens)."""

from rules.engine import Game
from server.dashboard import reminders


def by_click(modules: list[str], lang: str = "en") -> list[str]:
    game = Game.from_setup_line({"type": "setup", "players": ["red", "blue"], "modules": modules})
    return [row["text"] for row in reminders(game, lang) if row["kind"] == "by-click"]


def test_queenie_modules_with_events_are_named_as_entered_by_a_click():
    (line,) = by_click(["curses", "pit", "maya_calendar", "slide"])
    assert "The Pit" in line and "The Maya Calendar" in line
    assert "Slide" not in line  # its rules need no event of its own: nothing to click
    assert "Curses" not in line  # modules 1-8 say so on their own buttons


def test_a_game_without_queenie_modules_has_no_such_line_and_it_reads_in_greek():
    assert by_click([]) == [] and by_click(["curses"]) == []
    (line,) = by_click(["pit"], "el")
    assert line.startswith("Με ένα κλικ") and "{names}" not in line
