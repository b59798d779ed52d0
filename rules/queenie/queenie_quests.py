"""Queenie: Quest chambers (Big Box pages 28-29): the Chaos chamber, the Constellation chamber
and the Snake pit join module 5's quest chambers, with a quest marker each on the gem depot;
the curses Mind control, Pitfall and Magical bond join module 1's pile (pure Python, no I/O)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from random import Random
from typing import TYPE_CHECKING, Any, ClassVar

from rules import event_values as read
from rules.catalog import TileDef
from rules.errors import RecordError, Rejection
from rules.event_values import EventValue, Field
from rules.module_protocol import GameView, Module
from rules.module_quests import QUEST_NAMES, quest_name
from rules.modules import CURSES_MODULE, CurseCard
from rules.open_action import OpenAction, describe_icons, priced
from rules.vocabulary import ADVENTURER, GOLDEN_MASK, KEY, TORCH, Cell, plural

if TYPE_CHECKING:
    from rules.engine import PlayerState
    from rules.game_setup import Setup
    from rules.temple import PlacedTile

QUEENIE_QUESTS = "queenie_quests"
CHAOS = "chaos"
CONSTELLATION = "constellation"
SNAKE_PIT = "snake-pit"
NAMES: Mapping[str, str] = {
    CHAOS: "Chaos chamber",
    CONSTELLATION: "Constellation chamber",
    SNAKE_PIT: "Snake pit",
}
"""The three new quest chambers (page 28), by the id a setup's `quests` and the tile use."""
TASKS: Mapping[str, str] = {
    CHAOS: "every adventurer in the Chaos chamber at once, then each draws a curse card",
    CONSTELLATION: "the group on the constellation's chambers, then 2 keys in the Constellation "
    "chamber",
    SNAKE_PIT: "2 torches beside each snake token, then 5 torches against the mother snake",
}
"""What each new quest chamber asks (page 28), in a line."""
STAR_KEYS: Counter[str] = Counter({KEY: 2})
"""What the player in the Constellation chamber rolls once the group stands right (page 28)."""
SNAKE_TORCHES: Counter[str] = Counter({TORCH: 2})
"""What defeats a snake token, in the token's chamber (page 28)."""
MOTHER_TORCHES: Counter[str] = Counter({TORCH: 5})
"""What defeats the mother snake, in the Snake pit (page 28)."""
SPOTS: tuple[str, ...] = ("start", "gem3", "gem1", "exit")
"""The constellation's chambers besides its own, in the order page 28's table adds them."""
SPOT_NAMES: Mapping[str, str] = {
    "start": "the starting chamber",
    "gem3": "a chamber with 3 gems",
    "gem1": "a chamber with a single gem",
    "exit": "the exit",
}
"""Each spot of the constellation as a reason names it."""
MIND_CONTROL = "mind_control"
PITFALL = "pitfall"
MAGICAL_BOND = "magical_bond"
CURSES: tuple[CurseCard, ...] = (
    CurseCard(
        MIND_CONTROL,
        "Mind control",
        "may not touch your adventurer, the draw pile or the gems on the depot: another player "
        "moves them for you",
        (GOLDEN_MASK, KEY),
        QUEENIE_QUESTS,
    ),
    CurseCard(
        PITFALL,
        "Pitfall",
        "your adventurer goes back to the starting chamber at once; then the card is discarded",
        (ADVENTURER,),
        QUEENIE_QUESTS,
    ),
    CurseCard(
        MAGICAL_BOND,
        "Magical bond",
        "one hand touches another player at all times while you have this curse",
        (ADVENTURER, ADVENTURER),
        QUEENIE_QUESTS,
    ),
)
"""The six new curse cards, 2 of each (page 28); the lifting icons are defaults (the cards show
them as pictures the rulebook's text does not give)."""

_ROLLING_TOGETHER = read.player_ids("'players' must list the players who roll together")
"""The snakes' `players`: who roll the torches together."""


class Chaos(EventValue):
    """Every adventurer stands in the Chaos chamber at once: each owes a curse card."""

    type_name = "chaos"


class Constellation(EventValue):
    """The group stands on the constellation: the player in its chamber rolls 2 keys."""

    type_name = "constellation"
    player = Field(read.player)


class DefeatSnake(EventValue):
    """Players beside a snake token roll 2 torches together: the token is defeated."""

    type_name = "defeat_snake"
    players = Field(_ROLLING_TOGETHER)


class MotherSnake(EventValue):
    """Players in the Snake pit roll 5 torches together: the mother snake is defeated."""

    type_name = "mother_snake"
    players = Field(_ROLLING_TOGETHER)


def new_quest_chambers() -> dict[str, TileDef]:
    """The three new quest chambers; doors and entry icons are editable defaults."""
    doors = {
        CHAOS: frozenset({"N", "E", "W"}),
        CONSTELLATION: frozenset({"N", "E"}),
        SNAKE_PIT: frozenset({"E", "W"}),
    }
    enter = {
        CHAOS: (ADVENTURER, KEY),
        CONSTELLATION: (KEY, KEY),
        SNAKE_PIT: (TORCH, TORCH),
    }
    return {
        quest: TileDef(quest, NAMES[quest], "chamber", doors[quest], enter[quest], feature=quest)
        for quest in NAMES
    }


@dataclass
class QueenieQuestState:
    """The new quests in play, those done, and each one's progress."""

    quests: tuple[str, ...]
    done: list[str] = field(default_factory=list)
    chaos_to_draw: list[str] | None = None
    """Who still draws a curse card for the Chaos chamber (None until everyone gathered)."""
    snakes: list[Cell] = field(default_factory=list)
    """Where each snake token still undefeated lies (laid when the Snake pit is found)."""

    @property
    def markers_left(self) -> int:
        """The new quests' markers still on the gem depot (page 28: they count as quests)."""
        return len(self.quests) - len(self.done)

    def complete(self, quest: str) -> None:
        """The quest's marker leaves the gem depot."""
        if quest not in self.done:
            self.done.append(quest)

    def to_json(self) -> dict[str, Any]:
        """The new quests' part of the state, as `replay --json` shows it."""
        return {
            "queenie_quests": list(self.quests),
            "queenie_quests_done": list(self.done),
            "queenie_quest_markers_left": self.markers_left,
            "chaos_curses_to_draw": None
            if self.chaos_to_draw is None
            else list(self.chaos_to_draw),
            "snake_tokens": [list(cell) for cell in self.snakes],
        }


def _state(game: GameView) -> QueenieQuestState:
    state: QueenieQuestState = getattr(game, QueenieQuestsModule.state_attr)
    return state


def _cell_of(game: GameView, quest: str) -> Cell | None:
    """Where the new quest chamber lies, if discovered (only a quest in play counts)."""
    if quest not in _state(game).quests:
        return None
    placed = game.temple.with_feature(quest)
    return None if placed is None else placed.cell


def _open_quest(game: GameView, quest: str) -> Cell:
    """The cell of a quest chamber in play, found and not yet done (else the reason)."""
    state = _state(game)
    name = NAMES[quest]
    if quest not in state.quests:
        raise Rejection(f"the {name} is not among this game's quest chambers")
    if quest in state.done:
        raise Rejection(f"the {name}'s task is already complete")
    cell = _cell_of(game, quest)
    if cell is None:
        raise Rejection(f"the {name} is not in the temple yet")
    return cell


def _payers(game: GameView, event: DefeatSnake | MotherSnake) -> list[PlayerState]:
    payers = [game.still_inside(game.players[pid]) for pid in event.players]
    if len({p.player_id for p in payers}) != len(payers):
        raise Rejection("each player may be listed only once in 'players'")
    if len({p.cell for p in payers}) != 1:
        raise Rejection("the players who roll together must stand in the same chamber")
    return payers


def _inside(game: GameView) -> list[PlayerState]:
    return [p for p in game.players.values() if p.inside]


# ----- the Chaos chamber -------------------------------------------------------------------


def chaos_missing(game: GameView, cell: Cell) -> list[PlayerState]:
    """The adventurers not yet in the Chaos chamber (page 28: all at the same time)."""
    return [p for p in _inside(game) if p.cell != cell]


def gather_chaos(game: GameView, event: Chaos) -> None:
    """Every adventurer stands in the Chaos chamber: each owes a curse card; the task is done
    when everybody has drawn his (page 28). Without module 1 there is no curse pile: the
    gathering alone completes it."""
    cell = _open_quest(game, CHAOS)
    state = _state(game)
    if state.chaos_to_draw is not None:
        raise Rejection(
            "everyone gathered in the Chaos chamber already: "
            f"{_names(state.chaos_to_draw)} still draw a curse card"
        )
    missing = chaos_missing(game, cell)
    if missing:
        raise Rejection(
            f"{_names([p.player_id for p in missing])} not in the Chaos chamber: every "
            "adventurer must be there at the same time"
        )
    if CURSES_MODULE not in game.setup.modules:
        state.complete(CHAOS)
        return
    state.chaos_to_draw = [p.player_id for p in _inside(game)]
    for player in _inside(game):
        player.curses_to_draw += 1


def _names(pids: list[str]) -> str:
    return pids[0] if len(pids) == 1 else ", ".join(pids[:-1]) + " and " + pids[-1]


def drew_curse(game: GameView, player: PlayerState, card: CurseCard) -> None:
    """A curse card drawn: Pitfall sends the adventurer back to the start and is discarded;
    the Chaos chamber counts the draw of a player who owes one (page 28)."""
    if card.card_id == PITFALL:
        player.cell = game.temple.start_cell()
        if PITFALL in player.curses:
            player.curses.remove(PITFALL)
        if game.traps is not None and player.player_id in game.traps.on_cliff:
            game.traps.on_cliff.remove(player.player_id)  # off the cliff, onto the start
    state = _state(game)
    if state.chaos_to_draw is not None and player.player_id in state.chaos_to_draw:
        state.chaos_to_draw.remove(player.player_id)
        if not state.chaos_to_draw:
            state.complete(CHAOS)


# ----- the Constellation chamber -----------------------------------------------------------


def constellation_spots(players: int) -> tuple[str, ...]:
    """The chambers besides the Constellation chamber the group must stand in (page 28's
    table: 2 players the start; 3 and a 3-gem chamber; 4 and a single-gem chamber; 5 or 6 and
    the exit). A player alone needs only the Constellation chamber."""
    return SPOTS[: max(0, min(players, 5) - 1)]


def _spot_of(tile: TileDef) -> str | None:
    if tile.kind in ("start", "exit"):
        return tile.kind
    if tile.gems is not None and tile.gems.count in (1, 3):
        return f"gem{tile.gems.count}"
    return None


def constellation_gap(game: GameView, cell: Cell) -> str | None:
    """Why the group does not stand on the constellation yet, or None (page 28: every player
    on a spot, one spot each; with 6 players one player stands anywhere)."""
    inside = _inside(game)
    spots = constellation_spots(len(game.players))
    where: dict[str, list[str]] = {}
    for player in inside:
        placed = game.temple.at(player.cell) if player.cell is not None else None
        spot = CONSTELLATION if player.cell == cell else None
        if spot is None and placed is not None:
            spot = _spot_of(placed.tile)
        if spot is not None and (spot == CONSTELLATION or spot in spots):
            where.setdefault(spot, []).append(player.player_id)
    empty = [SPOT_NAMES[s] for s in spots if s not in where]
    if empty:
        return f"nobody stands in {' or '.join(empty)}"
    free = max(0, len(game.players) - len(spots) - 1)
    placed_players = sum(len(ids) for ids in where.values())
    if len(inside) - placed_players > free:
        off = [p.player_id for p in inside if not any(p.player_id in v for v in where.values())]
        return f"{_names(off)} must stand in one of the constellation's chambers"
    return None


def complete_constellation(game: GameView, event: Constellation) -> None:
    """The group stands on the constellation: the player in the Constellation chamber rolls 2
    keys and completes the task (page 28)."""
    cell = _open_quest(game, CONSTELLATION)
    player = game.still_inside(game.players[event.player])
    if player.cell != cell:
        raise Rejection(f"{player.player_id} is not inside the Constellation chamber")
    gap = constellation_gap(game, cell)
    if gap is not None:
        raise Rejection(f"the constellation is not formed yet: {gap}")
    plan, spends = game.charge(event, [player], Counter(STAR_KEYS), "to complete the constellation")
    game.settle(plan, spends)
    _state(game).complete(CONSTELLATION)


# ----- the Snake pit -----------------------------------------------------------------------


def lay_snakes(game: GameView, discoverer: PlayerState) -> None:
    """The Snake pit's discoverer lays a snake token in front of every other adventurer, in
    the chamber he stands in (page 28)."""
    state = _state(game)
    state.snakes = [
        p.cell for p in _inside(game) if p.player_id != discoverer.player_id and p.cell is not None
    ]


def defeat_snake(game: GameView, event: DefeatSnake) -> None:
    """Players beside a snake token roll 2 torches together: the token is defeated (page 28)."""
    _open_quest(game, SNAKE_PIT)
    state = _state(game)
    payers = _payers(game, event)
    here = payers[0].cell
    if here not in state.snakes:
        raise Rejection(f"no snake token lies in {payers[0].player_id}'s chamber")
    plan, spends = game.charge(event, payers, Counter(SNAKE_TORCHES), "to defeat the snake")
    game.settle(plan, spends)
    assert here is not None
    state.snakes.remove(here)


def defeat_mother(game: GameView, event: MotherSnake) -> None:
    """Once every snake token is defeated, players in the Snake pit roll 5 torches together
    against the mother snake and complete the task (page 28)."""
    cell = _open_quest(game, SNAKE_PIT)
    state = _state(game)
    if state.snakes:
        raise Rejection(
            f"{plural(len(state.snakes), 'snake token')} still to defeat before the mother snake"
        )
    payers = _payers(game, event)
    if payers[0].cell != cell:
        raise Rejection(f"{payers[0].player_id} is not inside the Snake pit")
    plan, spends = game.charge(event, payers, Counter(MOTHER_TORCHES), "to defeat the mother snake")
    game.settle(plan, spends)
    state.complete(SNAKE_PIT)


# ----- escape ------------------------------------------------------------------------------


def _left_names(game: GameView) -> list[str]:
    """Every quest chamber still to complete: module 5's, then the new ones."""
    left = []
    quests = game.quests
    if quests is not None:
        left = [quest_name(q) for q in quests.chambers() if q not in quests.done]
    state = _state(game)
    return left + [NAMES[q] for q in state.quests if q not in state.done]


def markers_left(game: GameView) -> int:
    """Every quest marker still on the gem depot, module 5's and the new quests'."""
    own = _state(game).markers_left
    return own + (game.quests.markers_left if game.quests is not None else 0)


class QueenieQuestsModule(Module):
    """Queenie: Quest chambers (Big Box pages 28-29)."""

    id = QUEENIE_QUESTS
    title = "Queenie: Quest chambers"
    summary = (
        "Three more quest chambers shuffled with module 5's: the Chaos chamber (everyone "
        "inside, a curse each), the Constellation chamber (the group on set chambers, then 2 "
        "keys) and the Snake pit (snakes by everyone, then the mother snake); and the curses "
        "Mind control, Pitfall and Magical bond."
    )
    rulebook = "Big Box pages 28-29"
    requires = ("quests",)
    curse_cards = CURSES
    quest_chambers: ClassVar[Mapping[str, str]] = {quest: quest for quest in NAMES}
    event_types = ("chaos", "constellation", "defeat_snake", "mother_snake")
    event_classes = (Chaos, Constellation, DefeatSnake, MotherSnake)
    state_attr = "queenie_quests"
    hook_order: ClassVar[Mapping[str, int]] = {"check_escape": 40, "escape_blocked": 40}

    @classmethod
    def chambers(cls) -> dict[str, TileDef]:
        """The Chaos chamber, the Constellation chamber and the Snake pit."""
        return new_quest_chambers()

    @classmethod
    def create_state(cls, setup: Setup) -> QueenieQuestState:
        """The new quest chambers the setup's `quests` names (none laid at set-up)."""
        for placement in setup.temple:
            if setup.catalog[placement.tile_id].feature in NAMES:
                raise RecordError("a quest chamber is never laid at set-up: it is discovered")
        return QueenieQuestState(tuple(q for q in setup.quests if q in NAMES))

    @classmethod
    def random_setup_fields(cls, rng: Random, players: list[str]) -> dict[str, Any]:
        """1 to 3 quest chambers, at least one of them new (page 28: shuffled together)."""
        own = rng.sample(list(NAMES), rng.randint(1, 3))
        others = rng.sample(list(QUEST_NAMES), rng.randint(0, 3 - len(own)))
        chosen = own + others
        rng.shuffle(chosen)
        return {"quests": chosen}

    def state_json(self, game: GameView) -> dict[str, Any]:
        """The new quests' part of the state."""
        return _state(game).to_json()

    def on_chaos(self, game: GameView, event: Chaos) -> None:
        """Everyone gathered in the Chaos chamber (page 28)."""
        game.require(QUEENIE_QUESTS, event)
        gather_chaos(game, event)

    def on_constellation(self, game: GameView, event: Constellation) -> None:
        """The constellation completed with 2 keys (page 28)."""
        game.require(QUEENIE_QUESTS, event)
        complete_constellation(game, event)

    def on_defeat_snake(self, game: GameView, event: DefeatSnake) -> None:
        """A snake token defeated with 2 torches (page 28)."""
        game.require(QUEENIE_QUESTS, event)
        defeat_snake(game, event)

    def on_mother_snake(self, game: GameView, event: MotherSnake) -> None:
        """The mother snake defeated with 5 torches (page 28)."""
        game.require(QUEENIE_QUESTS, event)
        defeat_mother(game, event)

    def on_discover(self, game: GameView, player: PlayerState, tile: TileDef, cell: Cell) -> None:
        """The Snake pit found: its snake tokens are laid."""
        if tile.feature == SNAKE_PIT and SNAKE_PIT in _state(game).quests:
            lay_snakes(game, player)

    def after_curse(self, game: GameView, player: PlayerState, card: CurseCard) -> None:
        """Pitfall, and the Chaos chamber's draws."""
        drew_curse(game, player, card)

    def after_slam(self, game: GameView, gone: list[Cell], start: Cell) -> None:
        """A snake token on a vanished illusion chamber goes to the start with the players."""
        state = _state(game)
        state.snakes = [start if cell in gone else cell for cell in state.snakes]

    def check_escape(self, game: GameView) -> None:
        """Nobody escapes while a quest marker, old or new, is on the depot (pages 17, 28)."""
        left = markers_left(game)
        if left:
            raise Rejection(
                f"{plural(left, 'quest marker')} still on the gem depot: complete the "
                f"{' and the '.join(_left_names(game))} first"
            )

    def escape_blocked(self, game: GameView) -> str | None:
        """Quest markers still on the gem depot."""
        left = markers_left(game)
        return f"{plural(left, 'quest marker')} still on the gem depot" if left else None

    def open_actions(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """The new quests' actions where the player stands."""
        return _actions(game, player)

    def tell(self, game: GameView, event: Mapping[str, Any]) -> str | None:
        """The new quests' events in words."""
        return _tell(game, event)

    def reminders(self, game: GameView) -> list[str]:
        """Mind control and Magical bond are kept at the table; what the new quests ask."""
        return _reminders(game)

    def tile_marks(self, game: GameView, placed: PlacedTile) -> list[dict[str, Any]]:
        """Snake tokens on their chambers, the mother snake in the Snake pit."""
        return _tile_marks(game, placed)

    def player_marks(self, game: GameView, player: PlayerState) -> list[dict[str, Any]]:
        """A curse card the player still draws for the Chaos chamber."""
        state = _state(game)
        if state.chaos_to_draw is None or player.player_id not in state.chaos_to_draw:
            return []
        return [{"token": "curse", "label": "draws a curse card for the Chaos chamber"}]


# ----- what the dashboard shows ------------------------------------------------------------


def _actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    """The new quests' actions open to the player where he stands (page 28)."""
    state = _state(game)
    here = player.cell
    found: list[OpenAction] = []
    if here is None:
        return found
    pid = player.player_id
    together = game.players_in(here)
    ids = [p.player_id for p in together]
    open_quests = [q for q in state.quests if q not in state.done]
    if here in state.snakes and SNAKE_PIT in open_quests:
        found.append(
            priced(
                game,
                together,
                SNAKE_TORCHES,
                "defeat_snake",
                f"defeat the snake ({describe_icons(SNAKE_TORCHES)} together)",
                {"type": "defeat_snake", "players": ids},
            )
        )
    quest = next((q for q in open_quests if _cell_of(game, q) == here), None)
    if quest == CHAOS and state.chaos_to_draw is None:
        missing = [p.player_id for p in chaos_missing(game, here)]
        found.append(
            OpenAction(
                "chaos",
                "everyone is in the Chaos chamber: each draws a curse card",
                {"type": "chaos"},
                blocked=f"{_names(missing)} not in the Chaos chamber yet" if missing else None,
            )
        )
    elif quest == CONSTELLATION:
        gap = constellation_gap(game, here)
        found.append(
            priced(
                game,
                [player],
                STAR_KEYS,
                "constellation",
                f"complete the constellation ({describe_icons(STAR_KEYS)} by yourself)",
                {"type": "constellation", "player": pid},
                blocked=gap,
            )
        )
    elif quest == SNAKE_PIT:
        found.append(
            priced(
                game,
                together,
                MOTHER_TORCHES,
                "mother_snake",
                f"defeat the mother snake ({describe_icons(MOTHER_TORCHES)} together)",
                {"type": "mother_snake", "players": ids},
                blocked=f"{plural(len(state.snakes), 'snake token')} still to defeat"
                if state.snakes
                else None,
            )
        )
    return found


def _tell(game: GameView, event: Mapping[str, Any]) -> str | None:
    """Say one of the new quests' events, or None."""
    kind = event.get("type")
    if kind == "chaos":
        return "Everyone is in the Chaos chamber: each adventurer draws a curse card"
    if kind == "constellation":
        who = str(event.get("player", "?")).capitalize()
        return f"{who} rolls 2 keys in the Constellation chamber: the constellation is complete"
    players = event.get("players")
    ids = [str(p) for p in players] if isinstance(players, list) and players else ["?"]
    who = _names([pid.capitalize() for pid in ids])
    verb = "defeats" if len(ids) == 1 else "defeat"
    if kind == "defeat_snake":
        return f"{who} {verb} a snake{_where(game, ids[0])} with 2 torches"
    if kind == "mother_snake":
        return f"{who} {verb} the mother snake in the Snake pit with 5 torches"
    return None


def _where(game: GameView, pid: str) -> str:
    """` in the Gem chamber east of the start`: where the player stands, for the log."""
    from rules.narrative import chamber_at  # here: the narrative imports the engine

    player = game.players.get(pid)
    if player is None or player.cell is None:
        return ""
    return f" in {chamber_at(game, player.cell)}"  # type: ignore[arg-type]


def _reminders(game: GameView) -> list[str]:
    """Table-only curses, and what the new quest chambers ask of the group."""
    said = []
    for player in _inside(game):
        if MIND_CONTROL in player.curses:
            said.append(
                f"{player.player_id} is cursed (Mind control): another player moves his "
                "adventurer, draws his chambers and takes gems from the depot for him"
            )
        if MAGICAL_BOND in player.curses:
            said.append(
                f"{player.player_id} is cursed (Magical bond): one hand touches another player "
                "at all times"
            )
    state = _state(game)
    if CONSTELLATION not in state.done and _cell_of(game, CONSTELLATION) is not None:
        spots = [SPOT_NAMES[s] for s in constellation_spots(len(game.players))]
        said.append(
            "Constellation: one player in the Constellation chamber"
            + (f", one each in {', '.join(spots)}" if spots else "")
            + (" (the sixth player stands anywhere)" if len(game.players) == 6 else "")
            + "; then 2 keys there"
        )
    if CHAOS not in state.done and _cell_of(game, CHAOS) is not None:
        if state.chaos_to_draw is None:
            said.append("Chaos chamber: every adventurer inside at the same time")
        else:
            said.append(f"Chaos chamber: {_names(state.chaos_to_draw)} still draw a curse card")
    return said


def _tile_marks(game: GameView, placed: PlacedTile) -> list[dict[str, Any]]:
    state = _state(game)
    marks = []
    count = state.snakes.count(placed.cell)
    if count and SNAKE_PIT not in state.done:
        marks.append(
            {
                "token": "snake",
                "label": "snake token: roll 2 torches here to defeat it",
                "count": count,
            }
        )
    if (
        placed.tile.feature == SNAKE_PIT
        and SNAKE_PIT in state.quests
        and SNAKE_PIT not in state.done
    ):
        marks.append(
            {
                "token": "mother-snake",
                "label": "the mother snake: 5 torches here once every snake token is defeated",
            }
        )
    return marks


MODULE = QueenieQuestsModule
