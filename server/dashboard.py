"""The dashboard's view of the session: one JSON document with everything the pages show."""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

from rules import module_quests as quests
from rules import module_special as special
from rules import module_time as timed
from rules import module_traps as traps
from rules.actions import open_actions, secret_passage_spots, team_actions
from rules.catalog import TileDef
from rules.engine import RECORD_EDITS, Game, PlayerState
from rules.module_characters import ABILITIES
from rules.modules import curse_cards_in_play, treasures_in_play
from rules.narrative import chamber_at, chamber_label, tell_event, tell_reason
from rules.temple import PlacedTile
from rules.vocabulary import SIDES
from server.session import LogEntry, Session

WARNINGS_SHOWN = 5
LOG_SHOWN = 60
NOTICES_SHOWN = 3


def dashboard_state(session: Session) -> dict[str, Any]:
    """Return the whole dashboard state (call with the session's lock held or accept a race)."""
    with session.lock:
        clock = session.clock
        phase = session.timeline.phase_at(clock.t)
        game = session.game
        view: dict[str, Any] = {
            "version": session.version,
            "server_time": time.time(),
            "game_id": session.game_id,
            "clock": {
                "status": clock.status,
                "position": clock.position,
                "t": clock.t,
                "phase": asdict(phase),
                "timeline": session.timeline.to_json(),
            },
            "audio": {
                "mode": session.audio_mode,
                "host_available": session.audio.host_available,
                "host_reason": session.audio.host_reason,
                "host_notice": session.audio.host_notice,
                "url": "/api/soundtrack.wav",
            },
            "notices": list(dict.fromkeys(session.notices))[-NOTICES_SHOWN:],
            "game": None,
        }
        if game is None:
            return view
        log = [_log_view(entry, game) for entry in session.log[-LOG_SHOWN:]]
        view["game"] = _game_view(game, phase.countdown, session.before_escape())
        view["log"] = log
        view["warnings"] = [
            entry
            for entry in log
            if not entry["ok"] and entry["corrected_by"] is None and entry["undone_by"] is None
        ][-WARNINGS_SHOWN:]
        return view


def _log_view(entry: LogEntry, game: Game) -> dict[str, Any]:
    """One log line for the page: `event` is the event as it stands now (what Fix edits),
    `written` the line as written once it was corrected."""
    written = entry.event if isinstance(entry.event, dict) else None
    kind = written.get("type") if written is not None else None
    kind = kind if isinstance(kind, str) else None
    corrected_text = None
    if entry.corrected_by is not None:
        corrected_text = (
            "struck out" if entry.replacement is None else tell_event(entry.replacement, game)
        )
    return {
        "line": entry.line,
        "text": entry.text,
        "ok": entry.ok,
        "reason": None if entry.reason is None else tell_reason(entry.reason, game),
        "t": written.get("t") if written is not None else None,
        "source": entry.source,
        "type": kind,
        "event": entry.replacement if entry.replacement is not None else written,
        "written": written if entry.corrected_by is not None else None,
        "correctable": kind not in game.clock_events and kind not in RECORD_EDITS,
        "corrected_by": entry.corrected_by,
        "struck": entry.struck,
        "corrected_text": corrected_text,
        "undone_by": entry.undone_by,
    }


def _game_view(game: Game, countdown: int | None, before_escape: bool = False) -> dict[str, Any]:
    """The game as the page shows it; during the introduction every action waits for "Escape!"."""
    start = game.temple.start_cell()
    safe = special.safe_cells(game, start)
    players = {}
    for pid, player in game.players.items():
        chamber = game.chamber_of(player)
        players[pid] = {
            **player.to_json(game.setup.modules),
            "showing": dict(player.showing),
            "rolled": player.rolled,
            "free_dice": player.free_dice,
            "chamber": chamber.tile.name if chamber else None,
            "where": _where(game, player) if chamber else None,
            "in_start": player.cell == start,
            "safe": player.cell in safe,
            "gave_die": player.gave_die,
            "actions": [
                _timed(action.to_json(), before_escape) for action in open_actions(game, pid)
            ],
        }
    must_run = [
        pid
        for pid, p in game.players.items()
        if countdown in (1, 2) and p.inside and p.cell not in safe
    ]
    temple = []
    for placed in game.temple:
        tile = placed.tile
        temple.append(
            {
                **placed.to_json(),
                "name": tile.name,
                "label": chamber_label(tile),
                "kind": tile.kind,
                "open_sides": [side for side in SIDES if side in placed.open_sides],
                "enter": list(tile.enter),
                "gem_icons": None
                if tile.gems is None
                else {
                    "count": tile.gems.count,
                    "icon": tile.gems.icon,
                    "costs": list(tile.gems.costs),
                },
                "players": [pid for pid, p in game.players.items() if p.cell == placed.cell],
                **_marks(tile),
                "treasure_lies": placed.cell in game.treasure_cells,
                **_special_view(game, placed),
                **_quest_view(game, placed),
            }
        )
    return {
        "setup": {
            "players": list(game.players),
            "difficulty": game.setup.difficulty,
            "modules": list(game.setup.modules),
            "track_dice": game.setup.track_dice,
        },
        "state": game.state_json(),
        "players": players,
        "team_actions": [_timed(action.to_json(), before_escape) for action in team_actions(game)],
        "before_escape": before_escape,
        "must_run_back": must_run,
        "temple": temple,
        "draw_pile": [pile_tile(tile) for tile in game.unplaced_tiles()],
        **_modules_view(game),
    }


def _where(game: Game, player: PlayerState) -> str:
    """Where a player stands, in words: behind a double chamber's inner wall says so."""
    where = chamber_at(game, player.cell)
    return f"the rear of {where}" if player.rear else where


def _marks(tile: TileDef) -> dict[str, Any]:
    """A tile's module marks (a purple mask, a treasure icon, an illusion), only where it
    shows one."""
    marks: dict[str, Any] = {}
    if tile.curse:
        marks["curse"] = True
    if tile.treasure:
        marks["treasure"] = True
    if tile.illusion:
        marks["illusion"] = True
    if tile.special is not None:
        marks["special"] = tile.special
    if tile.trap is not None:
        marks["trap"] = tile.trap
    if tile.time is not None:
        marks["time"] = tile.time
    return marks


def _time_reminders(game: Game) -> list[dict[str, str]]:
    """Module 8: chambers waiting with a time token for a sand timer in use."""
    state = game.time
    if state is None:
        return []
    return [
        {
            "kind": "time-token",
            "text": f"Time token #{index} on {chamber_at(game, cell)}: its sand timer starts "
            "as soon as the one in use runs out",
        }
        for index, cell in enumerate(state.waiting, start=1)
    ]


def _special_view(game: Game, placed: PlacedTile) -> dict[str, Any]:
    """Module 4 on a placed tile: the inner wall's rear sides, the chalice, the Large torch."""
    state = game.special
    if state is None:
        return {}
    view: dict[str, Any] = {}
    if special.special_of(game, placed.tile) == "double":
        view["rear_sides"] = [side for side in SIDES if side in special.rear_sides(placed)]
    if state.chalice == placed.cell:
        view["chalice_lies"] = "rear" if state.chalice_rear else "here"
    if state.large_torch == placed.cell:
        view["large_torch"] = True
    return view


def _quest_view(game: Game, placed: PlacedTile) -> dict[str, Any]:
    """Module 5 on a placed tile: its quest, the ghost, the altar's dice, the obelisk's tiles."""
    state = game.quests
    if state is None:
        return {}
    view: dict[str, Any] = {}
    quest = quests.quest_of(game, placed.tile)
    if quest is not None:
        view["quest"] = quest
        view["quest_done"] = quest in state.done
    if state.ghost == placed.cell:
        view["ghost"] = True
    return view


def _quest_reminders(game: Game) -> list[dict[str, str]]:
    """Module 5: the quest markers left on the depot, and each quest's progress."""
    state = game.quests
    if state is None:
        return []
    found = []
    left = state.markers_left
    found.append(
        {
            "kind": "quest-markers",
            "text": f"Quest markers on the depot: {left} of {len(state.quests)}"
            + (" — nobody escapes until they are gone" if left else " ✓ the way out is open"),
        }
    )
    for row in quests.progress(game):
        found.append(
            {
                "kind": f"quest-{row['quest']}",
                "text": f"{row['name']}: {row['status']} ({row['task']})",
            }
        )
    if state.ghost is not None:
        found.append(
            {
                "kind": "quest-ghost-where",
                "text": f"The ghost is in {chamber_at(game, state.ghost)}: 2 torches push it on",
            }
        )
    return found


_SIDE_WORDS = {"N": "north", "E": "east", "S": "south", "W": "west"}


def _reminders(game: Game) -> list[dict[str, str]]:
    """What the table tends to forget about the modules in play, in a line each (module 4: the
    chalice, the linked chambers, the double chambers' rear entrance, the Large torch)."""
    state = game.special
    found: list[dict[str, str]] = []
    if state is None:
        return found
    if state.chalice is not None:
        half = " (behind its inner wall)" if state.chalice_rear else ""
        found.append(
            {
                "kind": "chalice",
                "text": f"The chalice lies in {chamber_at(game, state.chalice)}{half}: carry it "
                "to the exit, a torch more for each chamber entered. Left inside, the game is "
                "lost.",
            }
        )
    elif state.recovered:
        found.append({"kind": "chalice", "text": "The chalice is recovered ✓"})
    linked = special.linked_cells(game)
    if linked and state.linked_used:
        found.append({"kind": "linked", "text": "Linked chambers used: no more gems there"})
    elif linked:
        found.append(
            {
                "kind": "linked",
                "text": f"Linked chambers: {len(linked)} of 3 found. Stand in two at once and "
                "activate a gem in each, together, once a game",
            }
        )
    for placed in game.temple:
        if special.special_of(game, placed.tile) == "double" and not placed.gems:
            sides = " or ".join(_SIDE_WORDS[s] for s in SIDES if s in special.rear_sides(placed))
            found.append(
                {
                    "kind": "double",
                    "text": f"{chamber_at(game, placed.cell)[0].upper()}"
                    f"{chamber_at(game, placed.cell)[1:]}: its gems only from behind the inner "
                    f"wall, entered by its {sides} side",
                }
            )
    if state.large_torch is not None:
        found.append(
            {
                "kind": "large_torch",
                "text": f"The Large torch lies in {chamber_at(game, state.large_torch)}: safe "
                "from the next door slam, like the start",
            }
        )
    return found


def _modules_view(game: Game) -> dict[str, Any]:
    """What the page needs of the modules in play: the cards' and tiles' names, effects and
    icons (the page never shows an id), and where a Secret passage may be laid."""
    view: dict[str, Any] = {}
    if "curses" in game.setup.modules:
        view["curse_cards"] = {
            card.card_id: {"name": card.name, "effect": card.effect, "lift": list(card.lift)}
            for card in curse_cards_in_play(game.setup.modules).values()
        }
    if "treasures" in game.setup.modules:
        view["treasures"] = {
            tile.treasure_id: {"name": tile.name, "effect": tile.effect, "icons": list(tile.icons)}
            for tile in treasures_in_play(game.setup.modules).values()
        }
        holders = any("secret_passage" in p.treasures for p in game.players.values())
        view["secret_passage_spots"] = (
            [
                {
                    "cells": [list(a), list(b)],
                    "text": f"{chamber_at(game, a)} and {chamber_at(game, b)}",
                }
                for a, b in secret_passage_spots(game)
            ]
            if holders
            else []
        )
        view["secret_passages"] = [{"cells": [list(a), list(b)]} for a, b in game.secret_passages]
    if "characters" in game.setup.modules:
        view["characters"] = {
            card.ability_id: {
                "character": card.character,
                "card": card.card,
                "text": card.text,
                "cost": list(card.cost),
            }
            for card in ABILITIES.values()
        }
    view["reminders"] = (
        _reminders(game) + _quest_reminders(game) + traps.progress(game) + _time_reminders(game)
    )
    if game.time is not None:
        view["timers"] = timed.timers_view(game)
    return view


WAIT_FOR_ESCAPE = 'wait for "Escape!"'


def _timed(action: dict[str, Any], before_escape: bool) -> dict[str, Any]:
    """An open action as the page offers it now: blocked while the introduction plays."""
    if before_escape:
        return {**action, "possible": False, "blocked": WAIT_FOR_ESCAPE}
    return action


def pile_tile(tile: TileDef) -> dict[str, Any]:
    """A tile of the draw pile as the discover picker draws it: its doors in its own frame
    (stairway S), entry icons and gem icons, beside its name and id."""
    return {
        "id": tile.tile_id,
        "name": tile.name,
        "label": chamber_label(tile),
        "kind": tile.kind,
        "doors": [side for side in SIDES if side in tile.doors or side == "S"],
        "enter": list(tile.enter),
        "gem_icons": None
        if tile.gems is None
        else {"count": tile.gems.count, "icon": tile.gems.icon, "costs": list(tile.gems.costs)},
        **_marks(tile),
    }
