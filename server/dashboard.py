"""The dashboard's view of the session: one JSON document with everything the pages show."""

from __future__ import annotations

import time
from dataclasses import asdict
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
from rules import module_quests as quests
from rules import module_special as special
from rules import module_time as timed
from rules import module_traps as traps
from rules.actions import open_actions, secret_passage_spots, team_actions
from rules.catalog import TileDef
from rules.engine import RECORD_EDITS, Game, PlayerState
from rules.module_characters import ABILITIES
from rules.modules import curse_cards_in_play, treasures_in_play
from rules.narrative import (
    chamber_at,
    chamber_label,
    place_name,
    tell_blocked,
    tell_event,
    tell_label,
    tell_module_words,
    tell_reason,
    tile_name_in,
)
from rules.queenie.maya_calendar import MAYA_MODULE, escape_penalty
from rules.queenie.new_quests import STATUE_ORDER, STEPS, step_of
from rules.queenie.new_traps import QUICKSAND_ROLLS
from rules.rule_words import ability_text, module_chamber_in
from rules.temple import PlacedTile
from rules.vocabulary import SIDES
from server import queenie_quest_rows
from server.session import LogEntry, Session
from server.timer_options import countdown_clips, public_timeline, soundtrack_url
from server.words_api import TABLE_LANGUAGE

WARNINGS_SHOWN = 5
LOG_SHOWN = 60
NOTICES_SHOWN = 3


def dashboard_state(session: Session, lang: str | None = None) -> dict[str, Any]:
    """Return the whole dashboard state (call with the session's lock held or accept a race), its
    words in `lang` (default: the language of the request being answered, else English)."""
    lang = language(lang if lang is not None else TABLE_LANGUAGE.get())
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
                "timeline": public_timeline(session.timeline, session.timer, clock.t),
                "time_out": session.time_out_by(),
            },
            "audio": {
                "mode": session.audio_mode,
                "host_available": session.audio.host_available,
                "host_reason": session.audio.host_reason,
                "host_notice": told_by_template(lang, "notice.", session.audio.host_notice or "")
                or session.audio.host_notice,
                "url": soundtrack_url(session.timeline, session.timer),
                "clips": countdown_clips(session.timeline, session.timer),
            },
            "notices": [
                told_by_template(lang, "notice.", notice)
                for notice in list(dict.fromkeys(session.notices))[-NOTICES_SHOWN:]
            ],
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
        if lang != DEFAULT_LANGUAGE:
            _in_language(view, game, lang)
        return view


def _in_language(view: dict[str, Any], game: Game, lang: str) -> None:
    """Tell the log (its events and the engine's reasons), where each player stands and the
    temple's chambers in `lang` (the warnings are entries of the same log)."""
    written = {judged.line: judged.event for judged in game.lines}
    reasons = {judged.line: judged.verdict.reason for judged in game.lines}
    for entry in view["log"]:
        original = entry["written"] if entry["written"] is not None else entry["event"]
        entry["text"] = tell_event(original, game, written, lang)
        if reasons.get(entry["line"]) is not None:
            entry["reason"] = tell_reason(reasons[entry["line"]], game, lang)
        if entry["corrected_by"] is not None:
            entry["corrected_text"] = (
                say(lang, "narr.struck_out")
                if entry["struck"]
                else tell_event(entry["event"], game, lang=lang)
            )
    if "reminders" in view["game"]:
        view["game"]["reminders"] = reminders(game, lang)  # the modules' reminders, told anew
    if "piles" in view["game"]:
        view["game"]["piles"] = pile_words(game, lang)
    view["game"]["draw_pile"] = [pile_tile(tile, lang) for tile in game.drawable_tiles()]
    for pid, player in view["game"]["players"].items():
        if player["where"] is not None and not game.players[pid].rear:
            player["where"] = chamber_at(game, game.players[pid].cell, lang)
    for tile, placed in zip(view["game"]["temple"], game.temple, strict=True):
        tile["label"] = chamber_label(placed.tile, lang)
        _marks_in(tile["tokens"], game, lang)
    for player in view["game"]["players"].values():
        _marks_in(player["tokens"], game, lang)
    for kind, cards in (("card", "curse_cards"), ("treasure", "treasures")):
        for card_id, card in view["game"].get(cards, {}).items():
            if has_words(lang, f"{kind}.{card_id}"):
                card["name"] = say(lang, f"{kind}.{card_id}")  # as the rulebook prints it
            if has_words(lang, f"{kind}_effect.{card_id}"):
                card["effect"] = say(lang, f"{kind}_effect.{card_id}")
    for card_id, card in view["game"].get("characters", {}).items():
        card["text"] = ability_text(card_id, card["text"], lang)
    for spot in view["game"].get("secret_passage_spots", []):
        a, b = (chamber_at(game, cell, lang) for cell in spot["cells"])
        spot["text"] = say(lang, "list.and", rest=a, last=b)
    actions = [a for p in view["game"]["players"].values() for a in p["actions"]]
    for action in [*actions, *view["game"]["team_actions"]]:
        action_in(action, game, lang)


def _marks_in(tokens: list[dict[str, Any]], game: Game, lang: str) -> None:
    """The Queenie modules' token labels on a chamber or a player in `lang`."""
    for token in tokens:
        if isinstance(token.get("label"), str):
            token["label"] = tell_module_words(token["label"], game, lang, "qmark.")


def action_in(action: dict[str, Any], game: Game, lang: str) -> None:
    """An open action's English words (label, why it waits, its choices) in `lang`."""
    action["label"] = tell_label(action["label"], game, lang)
    if action.get("blocked"):
        action["blocked"] = tell_blocked(action["blocked"], game, lang)
    tiles = {tile.name: tile for tile in game.catalog.values()}
    for choice in action.get("choices") or []:
        name = choice.get("name")
        cell = (choice.get("event") or {}).get("cell")
        if action["action"] in ("platform", "mirage") and cell is not None:  # a place
            where = place_name(cell, game.temple.start_cell(), lang)
            choice["name"] = where[:1].upper() + where[1:]
        elif isinstance(name, str):
            tile = tiles.get(name)
            choice["name"] = chamber_label(tile, lang) if tile else _choice_in(name, game, lang)
        if isinstance(choice.get("note"), str):
            choice["note"] = _choice_in(choice["note"], game, lang)


def _choice_in(text: str, game: Game, lang: str) -> str:
    """A choice's name or note in `lang`: an action's label, or a Queenie module's choice (a
    card, a colour, a die face, chambers, a card's effect)."""
    told = tell_label(text, game, lang)
    return told if told != text else tell_module_words(text, game, lang, "qchoice.")


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
            "tokens": [
                _player_token_view(mark)
                for hook in game.module_hooks("player_marks")
                for mark in hook(game, player)
            ],
            "actions": [
                _timed(action.to_json(), before_escape) for action in open_actions(game, pid)
            ],
        }
    must_run = [
        pid
        for pid, p in game.players.items()
        if countdown in game.setup.countdowns[:-1] and p.inside and p.cell not in safe
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
                "tokens": [
                    _token_view(game, placed, mark)
                    for hook in game.module_hooks("tile_marks")
                    for mark in hook(game, placed)
                ],
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
        "draw_pile": [pile_tile(tile) for tile in game.drawable_tiles()],
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


def _time_reminders(game: Game, lang: str = DEFAULT_LANGUAGE) -> list[dict[str, str]]:
    """Module 8: chambers waiting with a time token for a sand timer in use (in `lang`)."""
    state = game.time
    if state is None:
        return []
    return [
        {
            "kind": "time-token",
            "text": say(lang, "reminder.time_token", n=index, where=chamber_at(game, cell, lang)),
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


def _quest_row(row: dict[str, Any], lang: str) -> str:
    """A quest's progress row (`Altar chamber: 1 of 2 dice on the altar (sacrifice ...)`) in
    `lang`; English whole when the catalog cannot say one of its parts."""
    english = f"{row['name']}: {row['status']} ({row['task']})"
    if language(lang) == DEFAULT_LANGUAGE:
        return english
    name = module_chamber_in(lang, row["name"])
    status = _said_by(lang, "more.qstatus.", row["status"])
    task_key = f"more.qtask.{row['quest']}"
    if name is None or status is None or not has_words(lang, task_key):
        return english
    return say(lang, "more.quest_row", name=name, status=status, task=say(lang, task_key))


def _said_by(lang: str, prefix: str, english: str) -> str | None:
    """`english` in `lang` by the catalog's template under `prefix` that words it, a player's
    name (`{who}`) told as his colour; None when no template does."""
    matched = match_template(keys_under(prefix), english)
    if matched is None:
        return None
    key, values = matched
    who = values.get("who")
    if who is not None and has_words(lang, f"colour.{who.lower()}"):
        values["who"] = say(lang, f"colour.{who.lower()}")
    return say(lang, key, **values)


def _trap_row(english: str, lang: str) -> str:
    """A trap's reminder (`Red is stuck on the cliff: ...`) in `lang` (English when none)."""
    if language(lang) == DEFAULT_LANGUAGE:
        return english
    return _said_by(lang, "more.trap.", english) or english


def _quest_reminders(game: Game, lang: str = DEFAULT_LANGUAGE) -> list[dict[str, str]]:
    """Module 5 and the Queenie quest chambers: the quest markers left on the depot (all of
    them: every marker keeps the exit shut), and each quest's progress (in `lang`; the quests'
    own rows as the quests modules word them)."""
    state = game.quests
    queenie_left, queenie_total = queenie_quest_rows.markers(game)
    if state is None and not queenie_total:
        return []
    found = []
    left = queenie_left + (state.markers_left if state is not None else 0)
    total = queenie_total + (state.markers if state is not None else 0)
    found.append(
        {
            "kind": "quest-markers",
            "text": say(
                lang,
                "reminder.markers_left" if left else "reminder.markers_done",
                left=left,
                total=total,
            ),
        }
    )
    for row in [*quests.progress(game), *queenie_quest_rows.progress(game)]:
        found.append({"kind": f"quest-{row['quest']}", "text": _quest_row(row, lang)})
    if state is not None and state.ghost is not None:
        found.append(
            {
                "kind": "quest-ghost-where",
                "text": say(lang, "reminder.ghost", where=chamber_at(game, state.ghost, lang)),
            }
        )
    return found


_SIDE_WORDS = {"N": "north", "E": "east", "S": "south", "W": "west"}


def _reminders(game: Game, lang: str = DEFAULT_LANGUAGE) -> list[dict[str, str]]:
    """What the table tends to forget about the modules in play, in a line each in `lang`
    (module 4: the chalice, the linked chambers, the double chambers' rear entrance, the Large
    torch)."""
    state = game.special
    found: list[dict[str, str]] = []
    if state is None:
        return found
    if state.chalice is not None:
        half = say(lang, "reminder.behind_wall") if state.chalice_rear else ""
        where = chamber_at(game, state.chalice, lang)
        found.append(
            {"kind": "chalice", "text": say(lang, "reminder.chalice", where=where, half=half)}
        )
    elif state.recovered:
        found.append({"kind": "chalice", "text": say(lang, "reminder.chalice_recovered")})
    linked = special.linked_cells(game)
    if linked and state.linked_used:
        found.append({"kind": "linked", "text": say(lang, "reminder.linked_used")})
    elif linked:
        found.append({"kind": "linked", "text": say(lang, "reminder.linked", n=len(linked))})
    for placed in game.temple:
        if special.special_of(game, placed.tile) == "double" and not placed.gems:
            sides = say(lang, "reminder.or").join(
                say(lang, f"dir.{_SIDE_WORDS[s]}") for s in SIDES if s in special.rear_sides(placed)
            )
            where = chamber_at(game, placed.cell, lang)
            where = where[:1].upper() + where[1:]
            found.append(
                {"kind": "double", "text": say(lang, "reminder.double", where=where, sides=sides)}
            )
    if state.large_torch is not None:
        found.append(
            {
                "kind": "large_torch",
                "text": say(
                    lang, "reminder.large_torch", where=chamber_at(game, state.large_torch, lang)
                ),
            }
        )
    return found


def pile_words(game: Game, lang: str = DEFAULT_LANGUAGE) -> str | None:
    """How big the physical piles are now, in a game with modules (their piles are the ones
    a table loses count of): the draw pile, and with module 1 the curse pile (in `lang`; the
    team's bar shows it, so that it costs the one-screen layout no row)."""
    if not game.setup.modules:
        return None

    def counted(n: int, word: str) -> str:
        return say(lang, f"reminder.{word}.{'one' if n == 1 else 'many'}", n=n)

    pile = len(game.unplaced_tiles())
    under = len(game.under_pile)
    text = say(lang, "reminder.draw_pile", tiles=counted(pile, "tiles"))
    if under:
        text += say(lang, "reminder.under", n=under)
    if "curses" in game.setup.modules:
        cards = counted(sum(game.curses_left().values()), "cards")
        text += say(lang, "reminder.curse_pile", cards=cards)
    return text


def reminders(game: Game, lang: str = DEFAULT_LANGUAGE) -> list[dict[str, str]]:
    """Every reminder of the modules in play, in a line each in `lang`."""
    return (
        _reminders(game, lang)
        + _quest_reminders(game, lang)
        + [{**row, "text": _trap_row(row["text"], lang)} for row in traps.progress(game)]
        + _time_reminders(game, lang)
        + [
            {
                "kind": f"queenie-{hook.__self__.id}",
                "text": tell_module_words(text, game, lang, "qreminder."),
            }
            for hook in game.module_hooks("reminders")
            for text in hook(game)
        ]
        + _by_click(game, lang)
    )


def _by_click(game: Game, lang: str) -> list[dict[str, str]]:
    """Which Queenie modules' tokens and choices the table enters with their buttons: the
    camera reads chambers, figures and dice, never a module's tokens (statues, calendar tiles,
    gates, snakes, ...)."""
    titles = [
        say(lang, f"module.{module.id}") if has_words(lang, f"module.{module.id}") else module.title
        for module in game.modules_in_play
        if module.event_types and module.title
    ]
    if not titles:
        return []
    return [{"kind": "by-click", "text": say(lang, "reminder.by_click", names=", ".join(titles))}]


def _modules_view(game: Game) -> dict[str, Any]:
    """What the page needs of the modules in play: the cards' and tiles' names, effects and
    icons (the page never shows an id), and where a Secret passage may be laid."""
    view: dict[str, Any] = {}
    if "curses" in game.setup.modules:
        left = game.curses_left()
        view["curse_cards"] = {
            card.card_id: {
                "name": card.name,
                "effect": card.effect,
                "lift": list(card.lift),
                "left": left[card.card_id],
            }
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
    view["reminders"] = reminders(game)
    piles = pile_words(game)
    if piles is not None:
        view["piles"] = piles
    if game.time is not None:
        view["timers"] = timed.timers_view(game)
    if MAYA_MODULE in game.setup.modules:
        view["maya_calendar"] = {"extra_keys": escape_penalty(game.maya_calendar)}  # type: ignore[attr-defined]
    return view


def _player_token_view(mark: dict[str, Any]) -> dict[str, Any]:
    """A Queenie token on a player's card: the quicksand's rolls as a short count beside it."""
    if mark.get("token") == "quicksand":
        return {**mark, "short": f"{mark.get('count', 0)}/{QUICKSAND_ROLLS}"}
    return mark


def _token_view(game: Game, placed: PlacedTile, mark: dict[str, Any]) -> dict[str, Any]:
    """A Queenie token as the tile shows it: the module's mark, and for a quest's progress a
    short count beside it (statues face up, the highest step reached, quicksand rolls) and the
    statues' colours."""
    token = mark.get("token")
    view = dict(mark)
    if token == "statue":
        view["colours"] = game.state_json().get("statues_face_up", [])
        view["short"] = f"{len(view['colours'])}/{len(STATUE_ORDER)}"
    elif token == "step":
        top = max((step_of(game, p) for p in game.players_in(placed.cell)), default=0)
        view["short"] = f"{top}/{len(STEPS)}"
    return view


WAIT_FOR_ESCAPE = 'wait for "Escape!"'


def _timed(action: dict[str, Any], before_escape: bool) -> dict[str, Any]:
    """An open action as the page offers it now: blocked while the introduction plays."""
    if before_escape:
        return {**action, "possible": False, "blocked": WAIT_FOR_ESCAPE}
    return action


def pile_tile(tile: TileDef, lang: str = DEFAULT_LANGUAGE) -> dict[str, Any]:
    """A tile of the draw pile as the discover picker draws it: its doors in its own frame
    (stairway S), entry icons and gem icons, beside its name (in `lang`) and id."""
    return {
        "id": tile.tile_id,
        "name": tile_name_in(tile, lang),
        "label": chamber_label(tile, lang),
        "kind": tile.kind,
        "doors": [side for side in SIDES if side in tile.doors or side == "S"],
        "enter": list(tile.enter),
        "gem_icons": None
        if tile.gems is None
        else {"count": tile.gems.count, "icon": tile.gems.icon, "costs": list(tile.gems.costs)},
        **_marks(tile),
    }
