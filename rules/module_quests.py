"""Big Box module 5 (Quest chambers, pages 17-19): the altar, ghost, task, tree of life and
obelisk chambers, their quest markers on the gem depot, and the checks the engine calls (pure
Python, no I/O)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rules.catalog import TileDef
from rules.errors import Rejection
from rules.vocabulary import ADVENTURER, GOLDEN_MASK, KEY, SIDES, TORCH, Cell, neighbour, plural

if TYPE_CHECKING:
    from rules.engine import Game, PlayerState

QUESTS = "quests"
QUEST_NAMES: Mapping[str, str] = {
    "altar": "Altar chamber",
    "ghost": "Ghost chamber",
    "task": "Task chamber",
    "tree": "Tree of Life",
    "obelisk": "Obelisk chamber",
}
"""The five quest chambers (page 16), by the id a setup line's `quests` uses."""
QUEST_TASKS: Mapping[str, str] = {
    "altar": "sacrifice 2 dice on the altar (one player 1 or 2, another the second)",
    "ghost": "push the ghost from the start into the Ghost chamber (2 torches a push)",
    "task": "roll the icons of 4 task tiles in the Task chamber, one after the other",
    "tree": "roll twice as many golden masks as there are players, in the Tree of Life",
    "obelisk": "done when found; its 3 gem tiles leave the depot as chambers enclose its walls",
}
"""What each quest chamber asks (pages 17-19), in a line."""
PUSH_GHOST: Counter[str] = Counter({TORCH: 2})
"""A push of the ghost into the next chamber (page 18)."""
OBELISK_GEM_TILES = 3


@dataclass(frozen=True)
class TaskTile:
    """A task tile of the Task chamber: the icons to roll together (editable defaults)."""

    tile_id: str
    name: str
    icons: tuple[str, ...]


TASK_TILES: Mapping[str, TaskTile] = {
    tile.tile_id: tile
    for tile in (
        TaskTile("task-1", "Task tile 1", (KEY, KEY, TORCH, TORCH)),
        TaskTile("task-2", "Task tile 2", (ADVENTURER, ADVENTURER, ADVENTURER, GOLDEN_MASK)),
        TaskTile("task-3", "Task tile 3", (GOLDEN_MASK, GOLDEN_MASK, KEY)),
        TaskTile("task-4", "Task tile 4", (TORCH, TORCH, TORCH)),
        TaskTile("task-5", "Task tile 5", (KEY, KEY, KEY, ADVENTURER)),
        TaskTile("task-6", "Task tile 6", (ADVENTURER, TORCH, KEY, GOLDEN_MASK)),
    )
}
"""The 6 task tiles (page 18); the icons printed on each are editable defaults."""
TASKS_TO_DO = 4


def quest_chambers(quests: tuple[str, ...] | list[str] | None = None) -> dict[str, TileDef]:
    """Return the quest chambers in play (all five when `quests` is None). Doors and entry icons
    are editable defaults; the ghost and obelisk chambers cannot be entered, and the obelisk's
    stairway is blocked (no open side at all)."""
    chosen = list(QUEST_NAMES) if quests is None else list(quests)
    doors = {
        "altar": frozenset({"N", "E", "W"}),
        "ghost": frozenset({"N"}),
        "task": frozenset({"E", "W"}),
        "tree": frozenset({"N", "W"}),
        "obelisk": frozenset(),
    }
    enter = {
        "altar": (ADVENTURER, KEY),
        "ghost": (),
        "task": (ADVENTURER, TORCH),
        "tree": (ADVENTURER, ADVENTURER),
        "obelisk": (),
    }
    return {
        f"quest-{q}": TileDef(f"quest-{q}", QUEST_NAMES[q], "chamber", doors[q], enter[q], quest=q)
        for q in chosen
    }


@dataclass
class QuestState:
    """Module 5's part of a game: the quests in play, those done, and each one's progress."""

    quests: tuple[str, ...]
    done: list[str] = field(default_factory=list)
    altar: list[str] = field(default_factory=list)
    """Who placed each die on the altar, in order."""
    ghost: Cell | None = None
    """Where the ghost is (None until the ghost chamber is discovered, and once it is home)."""
    tasks_done: list[str] = field(default_factory=list)
    obelisk_tiles: int = 0
    """Gem tiles still on the depot (module 5's obelisk); they count as gems to escape."""

    @property
    def markers_left(self) -> int:
        """Quest markers still on the gem depot: while any is, nobody escapes (page 17)."""
        return len(self.quests) - len(self.done)

    def to_json(self) -> dict[str, Any]:
        """Return module 5's part of the state, as `replay --json` shows it."""
        return {
            "quests": list(self.quests),
            "quests_done": list(self.done),
            "quest_markers_left": self.markers_left,
            "altar_dice": len(self.altar),
            "ghost": None if self.ghost is None else list(self.ghost),
            "tasks_done": list(self.tasks_done),
            "obelisk_gem_tiles": self.obelisk_tiles,
        }


def quest_of(game: Game, tile: TileDef) -> str | None:
    """The tile's quest when module 5 is in play (a game without it ignores the field)."""
    return tile.quest if game.quests is not None else None


def quest_cell(game: Game, quest: str) -> Cell | None:
    """Where the chamber of `quest` lies, if discovered."""
    return next((p.cell for p in game.temple if quest_of(game, p.tile) == quest), None)


def _complete(state: QuestState, quest: str) -> None:
    if quest not in state.done:
        state.done.append(quest)


def _in_quest_chamber(game: Game, quest: str, payers: list[PlayerState]) -> Cell:
    cell = quest_cell(game, quest)
    name = QUEST_NAMES[quest]
    if cell is None:
        raise Rejection(f"the {name} is not in the temple yet")
    for payer in payers:
        if payer.cell != cell:
            raise Rejection(f"{payer.player_id} is not inside the {name}")
    return cell


def _state(game: Game, quest: str) -> QuestState:
    state = game.quests
    assert state is not None
    if quest not in state.quests:
        raise Rejection(f"the {QUEST_NAMES[quest]} is not among this game's quest chambers")
    if quest in state.done:
        raise Rejection(f"the {QUEST_NAMES[quest]}'s task is already complete")
    return state


def _payers(game: Game, event: Mapping[str, Any]) -> list[PlayerState]:
    ids = event.get("players")
    if not isinstance(ids, list) or not ids:
        raise Rejection("'players' must list the players who roll together")
    payers = [game._still_inside(game._lookup(pid)) for pid in ids]
    if len({p.player_id for p in payers}) != len(payers):
        raise Rejection("each player may be listed only once in 'players'")
    return payers


def check_enter(game: Game, tile: TileDef) -> None:
    """Nobody enters the ghost or obelisk chamber (pages 18-19)."""
    if quest_of(game, tile) in ("ghost", "obelisk"):
        raise Rejection(f"adventurers cannot enter the {tile.name}")


def check_escape(game: Game) -> None:
    """While a quest marker is on the gem depot nobody escapes (page 17)."""
    state = game.quests
    if state is None or not state.markers_left:
        return
    left = [QUEST_NAMES[q] for q in state.quests if q not in state.done]
    raise Rejection(
        f"{plural(state.markers_left, 'quest marker')} still on the gem depot: complete the "
        f"{' and the '.join(left)} first"
    )


def on_discover(game: Game, tile: TileDef, cell: Cell) -> None:
    """A quest chamber discovered: the ghost goes to the start, the obelisk's marker is laid
    and its gem tiles join the depot; any chamber may enclose a wall of the obelisk."""
    state = game.quests
    if state is None:
        return
    quest = quest_of(game, tile)
    if quest == "ghost":
        state.ghost = game.temple.start_cell()
    elif quest == "obelisk":
        _complete(state, "obelisk")
        state.obelisk_tiles = OBELISK_GEM_TILES
    _enclose_obelisk(game, state)


def _enclose_obelisk(game: Game, state: QuestState) -> None:
    """Each wall of the obelisk chamber (its 3 sides other than the blocked stairway) with a
    chamber beside it takes one gem tile off the depot, for good (page 19)."""
    cell = quest_cell(game, "obelisk")
    if cell is None or not state.obelisk_tiles:
        return
    placed = game.temple.at(cell)
    assert placed is not None
    walls = [side for side in SIDES if side != placed.stairs]
    enclosed = sum(game.temple.at(neighbour(cell, side)) is not None for side in walls)
    state.obelisk_tiles = min(state.obelisk_tiles, OBELISK_GEM_TILES - enclosed)


def extra_keys(game: Game) -> int:
    """Keys the obelisk's gem tiles still on the depot add to the escape (page 19)."""
    return game.quests.obelisk_tiles if game.quests is not None else 0


def sacrifice(game: Game, event: Mapping[str, Any]) -> None:
    """A player in the altar chamber places 1 or 2 of his dice on the altar; a second die after
    one comes from another player (page 17)."""
    state = _state(game, "altar")
    player = game._active_player(event)
    _in_quest_chamber(game, "altar", [player])
    count = game._whole(event, "dice", 1)
    if count not in (1, 2) or count > 2 - len(state.altar):
        raise Rejection(f"the altar takes {2 - len(state.altar)} more die (1 or 2 at a time)")
    if state.altar and state.altar[0] == player.player_id:
        raise Rejection(
            f"{player.player_id} placed the first die: the second must come from another player"
        )
    if player.dice < count:
        raise Rejection(f"{player.player_id} holds {plural(player.dice, 'die')}")
    for _ in range(count):
        game._remove_die(player)
        state.altar.append(player.player_id)
    if len(state.altar) >= 2:
        _complete(state, "altar")


def push_ghost(game: Game, event: Mapping[str, Any]) -> None:
    """A player with the ghost rolls 2 torches and pushes it through an open passage into the
    next chamber; in the ghost chamber, the task is complete (page 18)."""
    state = _state(game, "ghost")
    player = game._active_player(event)
    cell = game._cell(event)
    if state.ghost is None or player.cell != state.ghost:
        raise Rejection(f"the ghost is not in {player.player_id}'s chamber")
    target = game.temple.at(cell)
    if target is not None and quest_of(game, target.tile) == "obelisk":
        raise Rejection("the obelisk chamber's stairway is blocked: the ghost cannot go in")
    if not game.temple.connected(state.ghost, cell):
        raise Rejection("the ghost moves only through open entrances into the next chamber")
    plan, spends = game._charge(event, [player], Counter(PUSH_GHOST), "to push the ghost")
    game._settle(plan, spends)
    if cell == quest_cell(game, "ghost"):
        state.ghost = None
        _complete(state, "ghost")
    else:
        state.ghost = cell


def ghost_pushes(game: Game, player: PlayerState) -> list[tuple[str, Cell]]:
    """The sides the ghost may be pushed to from the player's chamber (with the ghost there)."""
    state = game.quests
    if state is None or state.ghost is None or player.cell != state.ghost:
        return []
    here = state.ghost
    found = []
    for side, cell in game.temple.passages(here):
        target = game.temple.at(cell)
        if target is None or quest_of(game, target.tile) == "obelisk":
            continue
        if game.temple.connected(here, cell):
            found.append((side, cell))
    return found


def task(game: Game, event: Mapping[str, Any]) -> None:
    """Players in the task chamber roll the icons of the task tile face up; after 4 tiles the
    task is complete (page 18)."""
    state = _state(game, "task")
    payers = _payers(game, event)
    _in_quest_chamber(game, "task", payers)
    tile_id = event.get("tile")
    if tile_id not in TASK_TILES:
        raise Rejection(f"'tile' must be a task tile: {', '.join(TASK_TILES)}")
    if tile_id in state.tasks_done:
        raise Rejection(f"{TASK_TILES[tile_id].name} is already out of the game")
    tile = TASK_TILES[tile_id]
    plan, spends = game._charge(event, payers, Counter(tile.icons), f"for {tile.name}")
    game._settle(plan, spends)
    state.tasks_done.append(tile_id)
    if len(state.tasks_done) >= TASKS_TO_DO:
        _complete(state, "task")


def tree_need(game: Game) -> Counter[str]:
    """Healing the tree of life: twice as many golden masks as players (page 19)."""
    return Counter({GOLDEN_MASK: 2 * len(game.players)})


def heal_tree(game: Game, event: Mapping[str, Any]) -> None:
    """Players in the Tree of Life roll the golden masks it needs together (page 19)."""
    state = _state(game, "tree")
    payers = _payers(game, event)
    _in_quest_chamber(game, "tree", payers)
    plan, spends = game._charge(event, payers, tree_need(game), "to heal the tree of life")
    game._settle(plan, spends)
    _complete(state, "tree")


def progress(game: Game) -> list[dict[str, Any]]:
    """Each quest of the game, its name, task and how far the table is (for the dashboard)."""
    state = game.quests
    if state is None:
        return []
    rows = []
    for quest in state.quests:
        found = quest_cell(game, quest) is not None
        if quest in state.done:
            status = "done ✓" if quest != "obelisk" else _obelisk_status(state)
        elif not found:
            status = "not found yet"
        elif quest == "altar":
            status = f"{len(state.altar)} of 2 dice on the altar"
        elif quest == "ghost":
            status = "the ghost is on its way"
        elif quest == "task":
            status = f"{len(state.tasks_done)} of {TASKS_TO_DO} task tiles"
        else:
            status = f"needs {plural(tree_need(game)[GOLDEN_MASK], 'golden mask')} together"
        rows.append(
            {
                "quest": quest,
                "name": QUEST_NAMES[quest],
                "task": QUEST_TASKS[quest],
                "done": quest in state.done,
                "status": status,
            }
        )
    return rows


def _obelisk_status(state: QuestState) -> str:
    if not state.obelisk_tiles:
        return "done ✓, enclosed"
    return f"done ✓; {plural(state.obelisk_tiles, 'gem tile')} still on the depot"
