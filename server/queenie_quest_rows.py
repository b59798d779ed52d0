"""The Queenie quest chambers' progress rows and quest markers for the dashboard's quest
reminders (module 5's own rows come from `rules.module_quests.progress`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.engine import Game
from rules.queenie import new_quests, queenie_quests
from rules.vocabulary import plural

NEW_QUEST_TASKS: Mapping[str, str] = {
    new_quests.RIDDLE: "reveal the 4 statues in the wall's order: blue, red, yellow, green",
    new_quests.ASCENSION: "climb the Ascension chamber's steps, each step's icons by yourself",
    new_quests.GUARDIAN: "carry each guardian token to a chamber with 3 gems",
}
"""What Queenie 15's quest chambers ask, in a line each (their doc's words)."""

QUEST_MODULES: tuple[tuple[str, Mapping[str, str], Mapping[str, str]], ...] = (
    (queenie_quests.QUEENIE_QUESTS, queenie_quests.NAMES, queenie_quests.TASKS),
    (new_quests.NEW_QUESTS, new_quests.NAMES, NEW_QUEST_TASKS),
)
"""Each Queenie module with quest chambers: its id (its state's attribute), names, tasks."""


def quest_states(game: Game) -> list[tuple[Any, Mapping[str, str], Mapping[str, str]]]:
    """The Queenie quest modules in play: their state, quest names and tasks."""
    found = []
    for module, names, tasks in QUEST_MODULES:
        state = getattr(game, module, None) if module in game.setup.modules else None
        if state is not None:
            found.append((state, names, tasks))
    return found


def markers(game: Game) -> tuple[int, int]:
    """The Queenie quests' markers on the depot: (left, laid at set-up)."""
    states = quest_states(game)
    return (
        sum(state.markers_left for state, _, _ in states),
        sum(len(state.quests) for state, _, _ in states),
    )


def progress(game: Game) -> list[dict[str, Any]]:
    """Each Queenie quest of the game: its name, task and how far the table is (module 5's
    row shape: quest, name, task, done, status)."""
    rows = []
    for state, names, tasks in quest_states(game):
        for quest in state.quests:
            rows.append(
                {
                    "quest": quest,
                    "name": names[quest],
                    "task": tasks[quest],
                    "done": quest in state.done,
                    "status": _status(game, state, quest),
                }
            )
    return rows


def _status(game: Game, state: Any, quest: str) -> str:
    """How far the table is with one Queenie quest."""
    if quest in state.done:
        return "done ✓"
    if not any(placed.tile.feature == quest for placed in game.temple):
        return "not found yet"
    if quest == new_quests.RIDDLE:
        return f"{len(state.face_up)} of 4 statues face up"
    if quest == new_quests.GUARDIAN:
        carried = len(state.carrying)
        return f"{plural(state.guardians_left, 'guardian token')} in the chamber, {carried} carried"
    if quest == queenie_quests.SNAKE_PIT:
        return f"{plural(len(state.snakes), 'snake token')} left"
    if quest == queenie_quests.CHAOS and state.chaos_to_draw is not None:
        return f"{plural(len(state.chaos_to_draw), 'curse card')} still to draw"
    return "found: its task awaits"
