"""Big Box module 5 (Quest chambers, pages 17-19): the altar, ghost, task, tree of life and
obelisk chambers, their quest markers on the gem depot, and the checks the engine calls (pure
Python, no I/O)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from rules import event_values as read
from rules.catalog import TileDef
from rules.errors import Rejection
from rules.event_values import EventValue, Field, FieldRead
from rules.module_protocol import GameView, Module
from rules.open_action import OpenAction, describe_icons, icons_needed, priced, pricer
from rules.vocabulary import ADVENTURER, GOLDEN_MASK, KEY, SIDES, TORCH, Cell, neighbour, plural

if TYPE_CHECKING:
    from rules.engine import PlayerState
    from rules.game_setup import Setup

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
TREASURE_QUEST = "treasure"
"""Module 4's treasure chamber, a quest chamber when module 5 is played too (page 17's note:
"treat it as a quest chamber from now on"): its task is recovering the chalice."""
TREASURE_QUEST_NAME = "Treasure chamber"
TREASURE_QUEST_TASK = "carry the chalice to the exit chamber"
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


def _task_tile(seen: FieldRead) -> TaskTile:
    """One of the 6 task tiles, by id."""
    if not isinstance(seen.value, str) or seen.value not in TASK_TILES:
        raise Rejection(f"'tile' must be a task tile: {', '.join(TASK_TILES)}")
    return TASK_TILES[seen.value]


_players_together = read.value_list("'players' must list the players who roll together", 1)


class Sacrifice(EventValue):
    """A player in the altar chamber places 1 or 2 of his dice on the altar."""

    type_name = "sacrifice"
    player = Field(read.player)
    dice = Field(read.whole_or(1))
    """How many of his dice he places (1 when the record does not say)."""


class PushGhost(EventValue):
    """A player with the ghost rolls 2 torches and pushes it into the next chamber."""

    type_name = "push_ghost"
    player = Field(read.player)
    cell = Field(read.cell)
    """The chamber the ghost is pushed into."""


class Task(EventValue):
    """Players in the task chamber roll the icons of a task tile together."""

    type_name = "task"
    players = Field(_players_together)
    """The ids of the players who roll (each looked up, and refused once escaped, in order)."""
    tile = Field(_task_tile)
    """The task tile whose icons are rolled (task-1 ... task-6)."""


class HealTree(EventValue):
    """Players in the Tree of Life roll the golden masks it needs together."""

    type_name = "heal_tree"
    players = Field(_players_together)
    """The ids of the players who roll (each looked up, and refused once escaped, in order)."""


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
    treasure: bool = False
    """Module 4 is played too: its treasure chamber is a quest chamber with a marker of its own
    (page 17's note), done when the chalice reaches the exit."""

    @property
    def markers(self) -> int:
        """Quest markers laid on the gem depot at set-up: one a quest chamber (page 17)."""
        return len(self.quests) + self.treasure

    @property
    def markers_left(self) -> int:
        """Quest markers still on the gem depot: while any is, nobody escapes (page 17)."""
        return self.markers - len(self.done)

    def chambers(self) -> tuple[str, ...]:
        """The game's quest chambers, the treasure chamber last when it counts as one."""
        return (*self.quests, TREASURE_QUEST) if self.treasure else self.quests

    def to_json(self) -> dict[str, Any]:
        """Return module 5's part of the state, as `replay --json` shows it."""
        return {
            "quests": list(self.quests),
            "quests_done": list(self.done),
            "quest_markers_left": self.markers_left,
            **({"treasure_chamber_is_a_quest": True} if self.treasure else {}),
            "altar_dice": len(self.altar),
            "ghost": None if self.ghost is None else list(self.ghost),
            "tasks_done": list(self.tasks_done),
            "obelisk_gem_tiles": self.obelisk_tiles,
        }


def quest_of(game: GameView, tile: TileDef) -> str | None:
    """The tile's quest when module 5 is in play (a game without it ignores the field)."""
    return tile.quest if game.quests is not None else None


def quest_cell(game: GameView, quest: str) -> Cell | None:
    """Where the chamber of `quest` lies, if discovered."""
    return next((p.cell for p in game.temple if quest_of(game, p.tile) == quest), None)


def quest_name(quest: str) -> str:
    """A quest chamber's printed name (the treasure chamber's too)."""
    return TREASURE_QUEST_NAME if quest == TREASURE_QUEST else QUEST_NAMES[quest]


def chalice_recovered(game: GameView) -> None:
    """The chalice reached the exit: the treasure chamber's quest marker leaves the depot."""
    state = game.quests
    if state is not None and state.treasure:
        _complete(state, TREASURE_QUEST)


def _complete(state: QuestState, quest: str) -> None:
    if quest not in state.done:
        state.done.append(quest)


def _in_quest_chamber(game: GameView, quest: str, payers: list[PlayerState]) -> Cell:
    cell = quest_cell(game, quest)
    name = QUEST_NAMES[quest]
    if cell is None:
        raise Rejection(f"the {name} is not in the temple yet")
    for payer in payers:
        if payer.cell != cell:
            raise Rejection(f"{payer.player_id} is not inside the {name}")
    return cell


def _state(game: GameView, quest: str) -> QuestState:
    state = game.quests
    assert state is not None
    if quest not in state.quests:
        raise Rejection(f"the {QUEST_NAMES[quest]} is not among this game's quest chambers")
    if quest in state.done:
        raise Rejection(f"the {QUEST_NAMES[quest]}'s task is already complete")
    return state


def _payers(game: GameView, ids: tuple[Any, ...]) -> list[PlayerState]:
    payers = [game.still_inside(game.lookup(pid)) for pid in ids]
    if len({p.player_id for p in payers}) != len(payers):
        raise Rejection("each player may be listed only once in 'players'")
    return payers


def check_enter(game: GameView, tile: TileDef) -> None:
    """Nobody enters the ghost or obelisk chamber (pages 18-19)."""
    if quest_of(game, tile) in ("ghost", "obelisk"):
        raise Rejection(f"adventurers cannot enter the {tile.name}")


def check_escape(game: GameView) -> None:
    """While a quest marker is on the gem depot nobody escapes (page 17)."""
    state = game.quests
    if state is None or not state.markers_left:
        return
    left = [quest_name(q) for q in state.chambers() if q not in state.done]
    raise Rejection(
        f"{plural(state.markers_left, 'quest marker')} still on the gem depot: complete the "
        f"{' and the '.join(left)} first"
    )


def on_discover(game: GameView, tile: TileDef, cell: Cell) -> None:
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


def _enclose_obelisk(game: GameView, state: QuestState) -> None:
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


def extra_keys(game: GameView) -> int:
    """Keys the obelisk's gem tiles still on the depot add to the escape (page 19)."""
    return game.quests.obelisk_tiles if game.quests is not None else 0


def sacrifice(game: GameView, event: Sacrifice) -> None:
    """A player in the altar chamber places 1 or 2 of his dice on the altar; a second die after
    one comes from another player (page 17)."""
    state = _state(game, "altar")
    player = game.still_inside(game.players[event.player])
    _in_quest_chamber(game, "altar", [player])
    count = event.dice
    if count not in (1, 2) or count > 2 - len(state.altar):
        raise Rejection(f"the altar takes {2 - len(state.altar)} more die (1 or 2 at a time)")
    if state.altar and state.altar[0] == player.player_id:
        raise Rejection(
            f"{player.player_id} placed the first die: the second must come from another player"
        )
    if player.dice < count:
        raise Rejection(f"{player.player_id} holds {plural(player.dice, 'die')}")
    for _ in range(count):
        game.remove_die(player)
        state.altar.append(player.player_id)
    if len(state.altar) >= 2:
        _complete(state, "altar")


def push_ghost(game: GameView, event: PushGhost) -> None:
    """A player with the ghost rolls 2 torches and pushes it through an open passage into the
    next chamber; in the ghost chamber, the task is complete (page 18)."""
    state = _state(game, "ghost")
    player = game.still_inside(game.players[event.player])
    cell = event.cell
    if state.ghost is None or player.cell != state.ghost:
        raise Rejection(f"the ghost is not in {player.player_id}'s chamber")
    target = game.temple.at(cell)
    if target is not None and quest_of(game, target.tile) == "obelisk":
        raise Rejection("the obelisk chamber's stairway is blocked: the ghost cannot go in")
    if not game.temple.connected(state.ghost, cell):
        raise Rejection("the ghost moves only through open entrances into the next chamber")
    plan, spends = game.charge(event, [player], Counter(PUSH_GHOST), "to push the ghost")
    game.settle(plan, spends)
    if cell == quest_cell(game, "ghost"):
        state.ghost = None
        _complete(state, "ghost")
    else:
        state.ghost = cell


def ghost_pushes(game: GameView, player: PlayerState) -> list[tuple[str, Cell]]:
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


def task(game: GameView, event: Task) -> None:
    """Players in the task chamber roll the icons of the task tile face up; after 4 tiles the
    task is complete (page 18)."""
    state = _state(game, "task")
    payers = _payers(game, event.players)
    _in_quest_chamber(game, "task", payers)
    tile = event.tile
    if tile.tile_id in state.tasks_done:
        raise Rejection(f"{tile.name} is already out of the game")
    plan, spends = game.charge(event, payers, Counter(tile.icons), f"for {tile.name}")
    game.settle(plan, spends)
    state.tasks_done.append(tile.tile_id)
    if len(state.tasks_done) >= TASKS_TO_DO:
        _complete(state, "task")


def tree_need(game: GameView) -> Counter[str]:
    """Healing the tree of life: twice as many golden masks as players (page 19)."""
    return Counter({GOLDEN_MASK: 2 * len(game.players)})


def heal_tree(game: GameView, event: HealTree) -> None:
    """Players in the Tree of Life roll the golden masks it needs together (page 19)."""
    state = _state(game, "tree")
    payers = _payers(game, event.players)
    _in_quest_chamber(game, "tree", payers)
    plan, spends = game.charge(event, payers, tree_need(game), "to heal the tree of life")
    game.settle(plan, spends)
    _complete(state, "tree")


def progress(game: GameView) -> list[dict[str, Any]]:
    """Each quest of the game, its name, task and how far the table is (for the dashboard)."""
    state = game.quests
    if state is None:
        return []
    rows = []
    for quest in state.chambers():
        found = (
            _treasure_found(game)
            if quest == TREASURE_QUEST
            else quest_cell(game, quest) is not None
        )
        if quest in state.done:
            status = "done ✓" if quest != "obelisk" else _obelisk_status(state)
        elif not found:
            status = "not found yet"
        elif quest == TREASURE_QUEST:
            status = "the chalice is in the temple"
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
                "name": quest_name(quest),
                "task": TREASURE_QUEST_TASK if quest == TREASURE_QUEST else QUEST_TASKS[quest],
                "done": quest in state.done,
                "status": status,
            }
        )
    return rows


def _treasure_found(game: GameView) -> bool:
    return any(placed.tile.special == "chalice" for placed in game.temple)


def _obelisk_status(state: QuestState) -> str:
    if not state.obelisk_tiles:
        return "done ✓, enclosed"
    return f"done ✓; {plural(state.obelisk_tiles, 'gem tile')} still on the depot"


class QuestsModule(Module):
    """Module 5 behind the module protocol."""

    id = QUESTS
    event_types = ("sacrifice", "push_ghost", "task", "heal_tree")
    event_classes = (Sacrifice, PushGhost, Task, HealTree)
    state_attr = "quests"
    hook_order: ClassVar[Mapping[str, int]] = {"on_discover": 20}

    @classmethod
    def create_state(cls, setup: Setup) -> QuestState:
        """The quest chambers chosen (module 4's treasure chamber one more, page 17)."""
        own = tuple(q for q in setup.quests if q in QUEST_NAMES)  # a Queenie module keeps its own
        return QuestState(own, treasure="special" in setup.modules)

    def state_json(self, game: GameView) -> dict[str, Any]:
        """Module 5's part of the state."""
        return game.quests.to_json()  # type: ignore[no-any-return]

    def on_sacrifice(self, game: GameView, event: Sacrifice) -> None:
        """1 or 2 dice placed on the altar (page 17)."""
        game.require(QUESTS, event)
        sacrifice(game, event)

    def on_push_ghost(self, game: GameView, event: PushGhost) -> None:
        """The ghost pushed into the next chamber with 2 torches (page 18)."""
        game.require(QUESTS, event)
        push_ghost(game, event)

    def on_task(self, game: GameView, event: Task) -> None:
        """A task tile's icons rolled in the task chamber (page 18)."""
        game.require(QUESTS, event)
        task(game, event)

    def on_heal_tree(self, game: GameView, event: HealTree) -> None:
        """The tree of life healed with golden masks (page 19)."""
        game.require(QUESTS, event)
        heal_tree(game, event)

    def extra_keys(self, game: GameView) -> int:
        """The obelisk's gem tiles still on the depot (page 19)."""
        return extra_keys(game)

    def check_enter_tile(self, game: GameView, tile: TileDef) -> None:
        """Nobody enters the ghost or obelisk chamber (pages 18-19)."""
        check_enter(game, tile)

    def closed_tile(self, game: GameView, tile: TileDef) -> bool:
        """The ghost and obelisk chambers."""
        return tile.quest in ("ghost", "obelisk") and game.quests is not None  # `quest_of`

    def check_escape(self, game: GameView) -> None:
        """Nobody escapes while a quest marker is on the depot (page 17)."""
        check_escape(game)

    def on_discover(self, game: GameView, player: PlayerState, tile: TileDef, cell: Cell) -> None:
        """The ghost, the obelisk's marker and gem tiles."""
        on_discover(game, tile, cell)

    def escape_blocked(self, game: GameView) -> str | None:
        """Quest markers still on the gem depot."""
        return _quest_markers(game)

    def open_actions(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """The quests' actions where the player stands."""
        return _quest_actions(game, player)

    def after_slam(self, game: GameView, gone: list[Cell], start: Cell) -> None:
        """The ghost on a vanished illusion chamber goes back to the start."""
        if game.quests.ghost in gone:
            game.quests.ghost = start


# ----- open actions (rules/actions.py asks for them through the protocol) ---------------


def _quest_markers(game: GameView) -> str | None:
    """Why nobody escapes yet: quest markers on the gem depot (module 5, page 17)."""
    if game.quests is None or not game.quests.markers_left:
        return None
    return f"{plural(game.quests.markers_left, 'quest marker')} still on the gem depot"


@lru_cache(maxsize=64)
def _task_label(name: str, icons: tuple[str, ...]) -> str:
    """`Task tile 1: 2 keys and 2 torches together`, written once per tile."""
    return f"{name}: {describe_icons(icons_needed(icons))} together"


def _quest_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    """The quests' actions open to a player where he stands (module 5, pages 17-19)."""

    state = game.quests
    assert state is not None and player.cell is not None
    pid = player.player_id
    here = player.cell
    found: list[OpenAction] = []
    for side, cell in ghost_pushes(game, player):
        found.append(
            priced(
                game,
                [player],
                PUSH_GHOST,
                "push_ghost",
                f"push the ghost to the {side}",
                {"type": "push_ghost", "player": pid, "cell": list(cell)},
            )
        )
    chamber = game.temple.at(here)
    assert chamber is not None
    quest = quest_of(game, chamber.tile)
    if quest is None or quest in state.done:
        return found
    together = game.players_in(here)
    ids = [p.player_id for p in together]
    if quest == "altar":
        first = state.altar[0] if state.altar else None
        for count in (1, 2) if not state.altar else (1,):
            found.append(
                OpenAction(
                    "sacrifice",
                    f"sacrifice {plural(count, 'die')} on the altar",
                    {"type": "sacrifice", "player": pid, "dice": count},
                    blocked="the second die comes from another player"
                    if first == pid
                    else ("not enough dice" if player.dice < count else None),
                )
            )
    elif quest == "task":
        price = pricer(game, together)
        for tile in TASK_TILES.values():
            if tile.tile_id in state.tasks_done:
                continue
            found.append(
                price(
                    icons_needed(tile.icons),
                    "task",
                    _task_label(tile.name, tile.icons),
                    {"type": "task", "players": ids, "tile": tile.tile_id},
                )
            )
    elif quest == "tree":
        need = tree_need(game)
        found.append(
            priced(
                game,
                together,
                need,
                "heal_tree",
                f"heal the tree of life ({describe_icons(need)} together)",
                {"type": "heal_tree", "players": ids},
            )
        )
    return found
