"""The story of a saved game: its record replayed with the rules engine, told as curves and moments.

Pure: record lines in, a JSON-ready dict out (`game_story`). The events told are the game as it
stands (undos and corrections applied: `Game.accepted`), replayed one by one on a fresh game so
that every curve is the engine's own state after each event.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from base.words import DEFAULT_LANGUAGE, has_words, language, say
from rules.engine import CLOCK_EVENTS, Game
from rules.narrative import chamber_label, outcome_words, place_name, tell_event
from rules.record import replay_lines
from server.dashboard import pile_tile

ROLL_EVENTS = frozenset({"dice"})
"""Events that are a roll of the dice."""
NOT_ACTIONS = CLOCK_EVENTS | {"dice", "time_up"}
"""Events that are no player's action (the clock's, and rolls, counted apart)."""
MINUTE = 60.0


@dataclass
class _Walk:
    """What the replay gathers, event after event."""

    lang: str = DEFAULT_LANGUAGE
    t: float = 0.0
    depot: list[list[float]] = field(default_factory=list)
    dice: dict[str, list[list[float]]] = field(default_factory=dict)
    seconds: dict[str, dict[str, float]] = field(default_factory=dict)
    where: dict[str, str | None] = field(default_factory=dict)
    rolls: list[float] = field(default_factory=list)
    actions: list[float] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    moments: list[dict[str, Any]] = field(default_factory=list)
    countdowns: dict[int, dict[str, Any]] = field(default_factory=dict)


def _clock(event: Mapping[str, Any], before: float) -> float:
    """The event's time on the game clock; an event without one happened when the last did."""
    value = event.get("t")
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return max(before, float(value))
    return before


def _cell_key(cell: Any) -> str | None:
    return None if cell is None else f"{cell[0]},{cell[1]}"


def colour_name(lang: str, pid: str) -> str:
    """A player's colour name in `lang` (`Red`, `Vermelho`); others capitalised."""
    return say(lang, f"colour.{pid}") if has_words(lang, f"colour.{pid}") else pid.capitalize()


def names_of(lang: str, pids: list[str]) -> str:
    """Players' names joined as people say them in `lang` (`Red, Blue and Green`)."""
    names = [colour_name(lang, pid) for pid in pids]
    if len(names) <= 1:
        return "".join(names)
    return say(lang, "list.and", rest=", ".join(names[:-1]), last=names[-1])


def game_story(game_id: str, lines: Iterable[str], lang: str = DEFAULT_LANGUAGE) -> dict[str, Any]:
    """Tell the story of a saved game from its record's lines, its words in `lang` (raises
    `RecordError` for a record the engine cannot replay)."""
    final = replay_lines(lines).game
    game = Game(final.setup)
    walk = _Walk(lang=language(lang))
    for pid, player in game.players.items():
        walk.dice[pid] = [[0.0, player.dice]]
        walk.seconds[pid] = {}
        walk.where[pid] = _cell_key(player.cell)
    walk.depot.append([0.0, game.depot])
    for line, event in zip(final.accepted_lines, final.accepted, strict=True):
        _step(walk, game, line, event)
    if final.outcome == "running":  # a game not over lasts until its record's last line
        for judged in final.lines:
            if isinstance(judged.event, Mapping):
                _stay(walk, _clock(judged.event, walk.t))
    return _told(game_id, final, game, walk)


def _step(walk: _Walk, game: Game, line: int, event: Mapping[str, Any]) -> None:
    """Apply one accepted event and note what it changed."""
    t = _clock(event, walk.t)
    _stay(walk, t)
    before_dice = {pid: p.dice for pid, p in game.players.items()}
    before_depot = game.depot
    inside_before = [pid for pid, p in game.players.items() if not p.escaped]
    outside_start = [
        pid
        for pid, p in game.players.items()
        if not p.escaped and p.cell != game.temple.start_cell()
    ]
    game.apply(event, line)
    kind = str(event.get("type"))
    text = tell_event(event, game, lang=walk.lang)
    walk.events.append({"line": line, "t": t, "kind": kind, "text": text})
    if kind in ROLL_EVENTS:
        walk.rolls.append(t)
    elif kind not in NOT_ACTIONS:
        walk.actions.append(t)
    if game.depot != before_depot:
        walk.depot.append([t, game.depot])
    lost = []
    for pid, player in game.players.items():
        walk.where[pid] = None if player.escaped else _cell_key(player.cell)
        if player.dice != before_dice[pid]:
            walk.dice[pid].append([t, player.dice])
            if player.dice < before_dice[pid]:
                lost.append(pid)
    _moments(walk, game, line, t, kind, event, text, lost, before_depot, inside_before)
    _countdown(walk, game, t, kind, event, lost, outside_start)


def _stay(walk: _Walk, t: float) -> None:
    """Credit each player's chamber with the time since the last event."""
    spent = t - walk.t
    if spent > 0:
        for pid, key in walk.where.items():
            if key is not None:
                walk.seconds[pid][key] = walk.seconds[pid].get(key, 0.0) + spent
    walk.t = t


def _moments(
    walk: _Walk,
    game: Game,
    line: int,
    t: float,
    kind: str,
    event: Mapping[str, Any],
    text: str,
    lost: list[str],
    before_depot: int,
    inside_before: list[str],
) -> None:
    """Note the moments that decide a game: gems emptying the depot, dice lost at a slam, the
    exit found, each escape, the collapse."""

    lang = walk.lang

    def moment(what: str, key: str, **params: object) -> None:
        said = say(lang, f"story.m.{key}", **params)
        walk.moments.append({"line": line, "t": t, "kind": what, "text": said})

    one = "one" if len(lost) == 1 else "many"
    if kind == "countdown_end" and lost:
        moment("slam", f"slam_{one}", who=names_of(lang, lost))
    elif kind == "countdown_end":
        moment("slam", "slam_none")
    elif kind == "countdown_start":
        moment("countdown", "countdown", n=event.get("n"))
    elif kind == "collapse":
        inside = [pid for pid, p in game.players.items() if not p.escaped]
        if inside:
            moment("collapse", "collapse_inside", who=names_of(lang, inside))
        else:
            moment("collapse", "collapse")
    elif kind == "escape" and game.outcome == "won":
        moment("escape", "won", text=text)
    elif kind == "escape":
        walk.moments.append({"line": line, "t": t, "kind": "escape", "text": text})
    elif kind == "discover" and _tile_kind(game, event.get("cell")) == "exit":
        walk.moments.append({"line": line, "t": t, "kind": "exit", "text": text})
    elif kind == "turn_of_fate":
        moment("fate", "fate")
    if game.depot < before_depot and game.depot == 0:
        moment("last-gem", "last_gem", text=text)
    elif game.depot < before_depot:
        moment("gems", "gems", text=text, n=game.depot)
    if kind not in CLOCK_EVENTS | {"give_die"} and lost and inside_before:
        moment("die", f"die_{one}", text=text, who=names_of(lang, lost))


def _tile_kind(game: Game, cell: Any) -> str | None:
    try:
        placed = game.temple.at((int(cell[0]), int(cell[1])))
    except (TypeError, ValueError, IndexError, KeyError):
        return None
    return None if placed is None else placed.tile.kind


def _countdown(
    walk: _Walk,
    game: Game,
    t: float,
    kind: str,
    event: Mapping[str, Any],
    lost: list[str],
    outside_start: list[str],
) -> None:
    """Note each countdown: when it began and ended, who had to run, who made it back."""
    n = event.get("n")
    if kind == "countdown_start" and isinstance(n, int):
        walk.countdowns[n] = {"n": n, "start": t, "end": None, "ran": outside_start}
        return
    if kind not in ("countdown_end", "collapse"):
        return
    if kind == "collapse":
        n = max(walk.countdowns, default=3)
    if not isinstance(n, int):
        return
    cd = walk.countdowns.setdefault(n, {"n": n, "start": None, "end": None, "ran": []})
    cd["end"] = t
    cd["collapse"] = kind == "collapse"  # the last countdown, whatever its number (timer options)
    if kind == "collapse":
        caught = [pid for pid, p in game.players.items() if not p.escaped]
    else:
        caught = lost
    everyone = list(game.players)
    cd["caught"] = [pid for pid in everyone if pid in caught]
    cd["back"] = [pid for pid in cd["ran"] if pid not in caught]


def _last_gems(walk: _Walk, game: Game) -> None:
    """Name the game's last activation (when the depot is not empty: it was the last gems)."""
    gems = [m for m in walk.moments if m["kind"] in ("gems", "last-gem")]
    if gems and gems[-1]["kind"] == "gems":
        gems[-1]["kind"] = "last-gem"
        gems[-1]["text"] = say(
            walk.lang, "story.m.last_gems", text=gems[-1]["text"], n=game.keys_to_escape
        )


def _per_minute(times: list[float], minutes: int) -> list[int]:
    counts = [0] * minutes
    for t in times:
        counts[min(minutes - 1, int(t // MINUTE))] += 1
    return counts


def _told(game_id: str, final: Game, game: Game, walk: _Walk) -> dict[str, Any]:
    """Put what the walk gathered into the story's JSON shape."""
    end = walk.t
    for pid in game.players:
        walk.dice[pid].append([end, game.players[pid].dice])
    walk.depot.append([end, game.depot])
    minutes = max(1, math.ceil(end / MINUTE))
    _last_gems(walk, game)
    start = game.temple.start_cell()
    starting = (
        "Starting chamber" if walk.lang == DEFAULT_LANGUAGE else say(walk.lang, "chamber.starting")
    )
    temple = []
    for placed in game.temple:
        key = _cell_key(placed.cell)
        temple.append(
            {
                "cell": list(placed.cell),
                "stairs": placed.stairs,
                "where": place_name(list(placed.cell), start, walk.lang),
                "label": starting
                if placed.tile.kind == "start"
                else chamber_label(placed.tile, walk.lang),
                "tile": pile_tile(placed.tile),
                "gems": placed.gems,
                "seconds": {pid: round(walk.seconds[pid].get(key, 0.0), 2) for pid in game.players},
            }
        )
    return {
        "game_id": game_id,
        "lang": walk.lang,
        **outcome_words(final, walk.lang),
        "players": list(game.players),
        "duration": end,
        "start_depot": walk.depot[0][1],
        "depot": walk.depot,
        "dice": walk.dice,
        "temple": temple,
        "per_minute": {
            "rolls": _per_minute(walk.rolls, minutes),
            "actions": _per_minute(walk.actions, minutes),
        },
        "countdowns": [walk.countdowns[n] for n in sorted(walk.countdowns)],
        "moments": walk.moments,
        "events": walk.events,
    }
