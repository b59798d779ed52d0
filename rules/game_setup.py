"""The game record's first line: players, difficulty, modules, tiles and the starting temple."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.catalog import TileDef, basic_catalog, parse_catalog
from rules.errors import RecordError
from rules.finite import TooDeepError, non_finite_path, without_nulls
from rules.module_characters import parse_characters
from rules.module_quests import QUEST_NAMES, quest_chambers
from rules.module_special import special_chambers
from rules.module_time import TIME_NAMES, TORCH_PENALTIES, time_chambers
from rules.module_traps import TRAP_NAMES, trap_chambers
from rules.modules import (
    BIG_BOX_IDS,
    REPLACED_BY_CURSE_TREASURE_CHAMBERS,
    curse_treasure_chambers,
    illusion_chambers,
    queenie_classes,
)
from rules.queenie import played_queenie_ids
from rules.shared_value import SharedValue
from rules.timeline import COUNTDOWN_NUMBERS, Timeline, parse_timeline
from rules.timer_options import TimerOptions, parse_timer, timer_timeline
from rules.vocabulary import PLAYER_ID_PATTERN, SIDES, Cell, neighbour, opposite, parse_cell

DIFFICULTY_EXTRA_GEMS = {"normal": 0, "expert": 3, "professional": 6}
"""Gems added to the depot at each difficulty."""

BASE_DEPOT_BY_PLAYERS = {1: 7, 2: 7, 3: 11, 4: 14, 5: 16, 6: 18}
"""Gems in the depot at the start, by number of players, before the difficulty's extra."""

KNOWN_MODULES: tuple[str, ...] = (*BIG_BOX_IDS, *played_queenie_ids())
"""Module ids this engine can play (modules 1-8, then the Queenie modules); the basic game is
`[]`."""

SPARE_GEMS = 2
MAX_PLAYERS = 6


@dataclass(frozen=True)
class Placement(SharedValue):
    """A tile of the starting temple: which tile, where, and which way its stairway faces."""

    tile_id: str
    cell: Cell
    stairs: str


@dataclass(frozen=True)
class Setup(SharedValue):
    """A validated setup line."""

    players: tuple[str, ...]
    difficulty: str = "normal"
    modules: tuple[str, ...] = ()
    catalog: Mapping[str, TileDef] = field(default_factory=basic_catalog)
    temple: tuple[Placement, ...] = (Placement("start", (0, 0), "S"),)
    track_dice: bool = True
    quests: tuple[str, ...] = ()
    """The quest chambers in play (module 5), 1 to 3 of them."""
    characters: Mapping[str, str] = field(default_factory=dict)
    """Each player's character card (module 6), by player id."""
    traps: tuple[str, ...] = ()
    """The trap chambers in play (module 7), 2 to 4 of them."""
    time_chambers: tuple[str, ...] = ()
    """The time chambers in play (module 8), 2 to 4 of them."""
    timeline: Timeline | None = None
    """The game's own timeline (the timer options chosen at set-up); None: the server's."""
    timer: TimerOptions | None = None
    """The timer options the table chose, when it chose any."""
    torch_penalty: str = "dice"
    """Which of page 25's two tables the torch chamber plays (module 8): `dice` (a failed task
    loses dice) or `gems` (a failed task adds magic gems to the depot)."""
    line: Mapping[str, Any] = field(default_factory=dict)
    """The setup line as written (nulls left out): a Queenie module reads its own fields here."""
    fields: Mapping[str, Any] = field(default_factory=dict)
    """The setup line's fields the Queenie modules read, as each module's `setup_fields` checked
    them, by name."""
    module_fields: Mapping[str, Any] = field(default_factory=dict)
    """The Queenie modules' own setup fields as each parsed them (`parse_setup_fields`), by
    module id."""

    @property
    def countdowns(self) -> tuple[int, ...]:
        """Return the countdown numbers of the game: 1 to N, the last ending with the collapse."""
        if self.timeline is None:
            return COUNTDOWN_NUMBERS
        return tuple(countdown.n for countdown in self.timeline.countdowns)

    @property
    def starting_dice(self) -> int:
        """Dice each player starts with: 5, or 7 for a player alone."""
        return 7 if len(self.players) == 1 else 5

    @property
    def starting_depot(self) -> int:
        """Gems in the depot at the start."""
        return BASE_DEPOT_BY_PLAYERS[len(self.players)] + DIFFICULTY_EXTRA_GEMS[self.difficulty]


STARTING_SIDES: tuple[str, ...] = ("W", "E", "N", "S")
"""Where page 5 lays the two drawn chambers: left and right of the starting chamber (then
above and below, for a start tile edited to have fewer doors)."""


def starting_temple(
    catalog: Mapping[str, TileDef], drawn: tuple[str, str], start_id: str = "start"
) -> list[dict[str, Any]]:
    """Return the starting temple of page 5 as a setup line's `temple`: the starting chamber at
    [0, 0] and the two `drawn` chambers beside it, each with its stairway towards it."""
    start = catalog[start_id]
    if start.kind != "start":
        raise RecordError(f"tile {start_id!r} is not a starting chamber")
    for tile_id in drawn:
        if tile_id not in catalog or catalog[tile_id].kind != "chamber":
            raise RecordError(f"{tile_id!r} is not a chamber of the draw pile")
    if drawn[0] == drawn[1]:
        raise RecordError("the two starting chambers must be two different tiles")
    sides = [side for side in STARTING_SIDES if side in start.own_open_sides]
    temple: list[dict[str, Any]] = [{"tile": start_id, "cell": [0, 0], "stairs": "S"}]
    for tile_id, side in zip(drawn, sides, strict=False):
        x, y = neighbour((0, 0), side)
        temple.append({"tile": tile_id, "cell": [x, y], "stairs": opposite(side)})
    return temple


def setup_catalog(
    modules: list[str] | tuple[str, ...] = (),
    quests: list[str] | tuple[str, ...] | None = None,
    traps: list[str] | tuple[str, ...] | None = None,
    times: list[str] | tuple[str, ...] | None = None,
) -> dict[str, TileDef]:
    """Return the packaged tiles a game with these modules plays with (before a setup line's
    own `tiles`): with curses or treasures, the 13 curse and treasure chambers replace the 13
    basic chambers (page 10); with illusions, 6 illusion chambers replace the one-gem chambers
    among them (page 12)."""
    catalog = dict(basic_catalog())
    unknown = [m for m in modules if m not in KNOWN_MODULES]
    if unknown:
        raise RecordError(
            f"unknown module {unknown[0]!r} (this version plays: {', '.join(KNOWN_MODULES)})"
        )
    if {"curses", "treasures"} & set(modules):
        extra = curse_treasure_chambers(catalog)
        for tile_id in REPLACED_BY_CURSE_TREASURE_CHAMBERS:
            del catalog[tile_id]
        catalog.update(extra)
    if "illusions" in modules:
        replaced, illusions = illusion_chambers(catalog)
        for tile_id in replaced:
            del catalog[tile_id]
        catalog.update(illusions)
    if "special" in modules:
        catalog.update(special_chambers())  # added to the pile, replacing nothing (page 14)
    if "quests" in modules:
        own = None if quests is None else [q for q in quests if q in QUEST_NAMES]
        catalog.update(quest_chambers(own))  # those drawn join the pile (page 17)
    if "traps" in modules:
        catalog.update(trap_chambers(traps))  # those drawn join the pile (page 22)
    if "time" in modules:
        catalog.update(time_chambers(times))  # those drawn join the pile (page 24)
    for module in queenie_classes(modules):
        missing = [m for m in module.requires if m not in modules]
        if missing:
            raise RecordError(
                f"the module {module.id!r} ({module.title}) is played only with "
                + " and ".join(repr(m) for m in module.requires)
                + f" ({module.rulebook}): add {' and '.join(repr(m) for m in missing)} to "
                "'modules'"
            )
        catalog.update(_chambers_of(module, quests))  # shuffled in after set-up's draw
    return catalog


def _chambers_of(module: Any, quests: list[str] | tuple[str, ...] | None) -> dict[str, TileDef]:
    """A Queenie module's chambers, less its quest chambers the setup's `quests` left out."""
    left_out = {
        t for q, t in module.quest_chambers.items() if quests is not None and q not in quests
    }
    return {tile_id: t for tile_id, t in module.chambers().items() if tile_id not in left_out}


def _queenie_quests(modules: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The quest chambers the Queenie modules in play add to module 5's choice."""
    return tuple(q for module in queenie_classes(modules) for q in module.quest_chambers)


def starting_candidates(catalog: Mapping[str, TileDef]) -> list[str]:
    """Return the tiles that may be drawn for the starting temple (every chamber of the pile;
    the exit is shuffled into the pile's lower part and never drawn at set-up; module 4's
    treasure chamber drawn at set-up goes back into the pile, page 15)."""
    return [
        tile_id
        for tile_id, tile in catalog.items()
        if tile.kind == "chamber"
        and tile.special != "chalice"
        and tile.quest is None
        and tile.trap is None
        and tile.time is None
        and tile.feature is None
    ]


def parse_setup(line: Any) -> Setup:
    """Validate the setup line of a game record and return it as a `Setup`."""
    if not isinstance(line, Mapping):
        raise RecordError("the setup line must be a JSON object")
    try:
        non_finite_path(line)
    except TooDeepError as error:
        raise RecordError(f"the setup's {error}") from None
    line = without_nulls(line)  # a null field is a field left out, as in every event
    if line.get("type") != "setup":
        raise RecordError('the first line must be the setup: {"type": "setup", ...}')
    players = _parse_players(line.get("players"))
    difficulty = line.get("difficulty", "normal")
    if difficulty not in DIFFICULTY_EXTRA_GEMS:
        raise RecordError(f"difficulty must be normal, expert or professional, not {difficulty!r}")
    modules = line.get("modules", [])
    if not isinstance(modules, list) or any(not isinstance(m, str) for m in modules):
        raise RecordError("'modules' must be a list of module ids")
    if len(set(modules)) != len(modules):
        raise RecordError("each module may be named only once in 'modules'")
    quests = (
        _parse_quests(line.get("quests"), _queenie_quests(modules)) if "quests" in modules else ()
    )
    traps = _parse_traps(line.get("traps")) if "traps" in modules else ()
    times = _parse_times(line.get("time_chambers")) if "time" in modules else ()
    catalog = setup_catalog(modules, quests, traps, times)
    fields = _module_fields(modules, line, catalog)
    catalog.update(parse_catalog(line.get("tiles", {})))
    temple = _parse_temple(line.get("temple"), catalog, modules)
    track_dice = line.get("track_dice", True)
    if not isinstance(track_dice, bool):
        raise RecordError("'track_dice' must be true or false")
    cards = (
        parse_characters(line.get("characters"), players, modules)
        if "characters" in modules
        else {}
    )
    timer = parse_timer(line["timer"], "the setup's 'timer'") if "timer" in line else None
    timeline = _parse_timeline(line.get("timeline"), timer)
    torch_penalty = line.get("torch_penalty", "dice") if "time" in modules else "dice"
    if torch_penalty not in TORCH_PENALTIES:
        raise RecordError(
            "'torch_penalty' must be 'dice' (a failed torch chamber task loses dice) or 'gems' "
            f"(it adds magic gems to the depot), not {torch_penalty!r}"
        )
    module_fields = {m.id: m.parse_setup_fields(line, players) for m in queenie_classes(modules)}
    return Setup(
        players,
        difficulty,
        tuple(modules),
        catalog,
        temple,
        track_dice,
        quests,
        cards,
        traps,
        times,
        timeline,
        timer,
        torch_penalty,
        line,
        fields,
        module_fields,
    )


def _module_fields(
    modules: list[str], line: Mapping[str, Any], catalog: dict[str, TileDef]
) -> dict[str, Any]:
    """The Queenie modules' setup fields; their chambers those fields leave in the box leave
    `catalog`."""
    fields: dict[str, Any] = {}
    for module in queenie_classes(modules):
        read = module.setup_fields(line)
        for tile_id in module.unused_chambers(read):
            catalog.pop(tile_id, None)
        fields.update(read)
    return fields


def _parse_timeline(data: Any, timer: TimerOptions | None) -> Timeline | None:
    """The game's own timeline: the setup's `timeline` as written (what the clock played),
    else the one its `timer` options make, else None (the server's timeline)."""
    if data is not None:
        return parse_timeline(data, "the setup's 'timeline'")
    if timer is not None:
        return timer_timeline(timer)
    return None


def _parse_times(chosen: Any) -> tuple[str, ...]:
    """The time chambers a game with module 8 plays: 2 to 4 of the eight (page 24)."""
    if (
        not isinstance(chosen, list)
        or not 2 <= len(chosen) <= 4
        or any(t not in TIME_NAMES for t in chosen)
    ):
        raise RecordError(
            f"with the time module, 'time_chambers' must list 2 to 4 time chambers from "
            f"{', '.join(TIME_NAMES)}"
        )
    if len(set(chosen)) != len(chosen):
        raise RecordError("each time chamber may be named only once in 'time_chambers'")
    return tuple(chosen)


def _parse_traps(traps: Any) -> tuple[str, ...]:
    """The trap chambers a game with module 7 plays: 2 to 4 of the five (page 22)."""
    if (
        not isinstance(traps, list)
        or not 2 <= len(traps) <= 4
        or any(t not in TRAP_NAMES for t in traps)
    ):
        raise RecordError(
            f"with the traps module, 'traps' must list 2 to 4 trap chambers from "
            f"{', '.join(TRAP_NAMES)}"
        )
    if len(set(traps)) != len(traps):
        raise RecordError("each trap chamber may be named only once in 'traps'")
    return tuple(traps)


def _parse_quests(quests: Any, extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The quest chambers a game with module 5 plays: 1 to 3 of the five (page 17), or of
    those a Queenie module adds (`extra`)."""
    names = (*QUEST_NAMES, *extra)
    if (
        not isinstance(quests, list)
        or not 1 <= len(quests) <= 3
        or any(q not in names for q in quests)
    ):
        raise RecordError(
            f"with the quests module, 'quests' must list 1 to 3 quest chambers from "
            f"{', '.join(names)}"
        )
    if len(set(quests)) != len(quests):
        raise RecordError("each quest chamber may be named only once in 'quests'")
    return tuple(quests)


def _parse_players(players: Any) -> tuple[str, ...]:
    if not isinstance(players, list) or not 1 <= len(players) <= MAX_PLAYERS:
        raise RecordError(f"'players' must list 1 to {MAX_PLAYERS} player ids")
    for player in players:
        if not isinstance(player, str) or not PLAYER_ID_PATTERN.match(player):
            raise RecordError(
                f"player id {player!r} is not valid: use letters, digits, '-' or '_' (e.g. 'red')"
            )
    if len(set(players)) != len(players):
        raise RecordError("each player id may appear only once in 'players'")
    return tuple(players)


def _parse_temple(
    temple: Any, catalog: Mapping[str, TileDef], modules: tuple[str, ...] | list[str] = ()
) -> tuple[Placement, ...]:
    if temple is None:
        return (Placement("start", (0, 0), "S"),)
    if not isinstance(temple, list) or not temple:
        raise RecordError("'temple' must be a non-empty list of placed tiles")
    placements: list[Placement] = []
    for index, entry in enumerate(temple, start=1):
        where = f"temple entry {index}"
        if not isinstance(entry, Mapping):
            raise RecordError(f"{where} must be a JSON object with 'tile', 'cell' and 'stairs'")
        tile_id = entry.get("tile")
        if not isinstance(tile_id, str) or tile_id not in catalog:
            raise RecordError(f"{where}: unknown tile {tile_id!r}")
        cell = parse_cell(entry.get("cell"), f"{where}: 'cell'")
        stairs = entry.get("stairs")
        if stairs not in SIDES:
            raise RecordError(f"{where}: 'stairs' must be one of N, E, S, W")
        if any(p.cell == cell for p in placements):
            raise RecordError(f"{where}: cell {list(cell)} already holds a tile")
        if any(p.tile_id == tile_id for p in placements):
            raise RecordError(f"{where}: tile {tile_id!r} is placed twice")
        placements.append(Placement(tile_id, cell, stairs))
    for placement in placements:
        if catalog[placement.tile_id].quest is not None and "quests" in modules:
            raise RecordError("a quest chamber is never laid at set-up: it is discovered")
        if catalog[placement.tile_id].trap is not None and "traps" in modules:
            raise RecordError("a trap chamber is never laid at set-up: it is discovered")
        if catalog[placement.tile_id].time is not None and "time" in modules:
            raise RecordError("a time chamber is never laid at set-up: it is discovered")
        if catalog[placement.tile_id].special == "chalice" and "special" in modules:
            raise RecordError(
                "the treasure chamber is never laid at set-up: it goes back into the draw pile "
                "and another chamber is drawn (page 15)"
            )
    starts = [p for p in placements if catalog[p.tile_id].kind == "start"]
    if len(starts) != 1:
        raise RecordError(f"'temple' must contain exactly one start tile, not {len(starts)}")
    return tuple(placements)
