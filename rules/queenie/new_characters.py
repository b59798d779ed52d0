"""Queenie: New Characters (Big Box pages 30-31): the Trickster and the Void runner (two cards
each, chosen with module 6), the Dungeon (nobody leaves by its grey slide), the Narrow gauge
(3 torches to enter) and the Portal and Clone treasures (with module 2)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from random import Random
from typing import TYPE_CHECKING, Any

from rules import event_values as read
from rules.catalog import GemSpec, TileDef
from rules.errors import Rejection
from rules.event_values import EventValue, Field, FieldRead
from rules.module_characters import Ability, default_characters
from rules.module_protocol import GameView, Module, Spends
from rules.module_treasures import Use
from rules.modules import TreasureTile
from rules.open_action import OpenAction, changed, priced
from rules.temple import PlacedTile
from rules.vocabulary import ADVENTURER, BLACK_MASK, FACES, KEY, TORCH, Cell, neighbour, plural

if TYPE_CHECKING:
    from rules.engine import PlayerState

MODULE_ID = "new_characters"
DUNGEON = "dungeon"
NARROW_GAUGE = "narrow-gauge"
PORTAL = "portal"
CLONE = "clone"
VOID_COST: Counter[str] = Counter({ADVENTURER: 2})
"""What the Void runner rolls to step outside the temple (page 31)."""
CLONED = (KEY, TORCH)
"""The icons the Clone doubles (page 31)."""

CARDS: tuple[Ability, ...] = (
    Ability(
        "trickster-swap",
        "Trickster",
        False,
        "exchange dice evenly with another adventurer in your chamber",
    ),
    Ability(
        "trickster-anywhere",
        "Trickster",
        True,
        "exchange dice evenly with one other adventurer anywhere in the temple",
    ),
    Ability(
        "void-runner-step",
        "Void runner",
        False,
        "2 adventurers: from a chamber with an open entrance, step to any other chamber with one",
        (ADVENTURER, ADVENTURER),
    ),
    Ability(
        "void-runner-group",
        "Void runner",
        True,
        "2 adventurers, once: step out as the permanent card does, taking everyone in your "
        "chamber with you",
        (ADVENTURER, ADVENTURER),
    ),
)
"""The 4 character cards (page 31), by the id a setup line's `characters` uses."""
CARD_BY_ID: Mapping[str, Ability] = {card.ability_id: card for card in CARDS}


def _exchanged_faces(seen: FieldRead) -> tuple[str, ...]:
    """The die faces one side of an exchange lists."""
    faces = seen.value
    if not isinstance(faces, list) or any(face not in FACES for face in faces):
        raise Rejection(f"'{seen.name}' must list die faces from {', '.join(FACES)}")
    return tuple(faces)


class TradeDice(EventValue):
    """The Trickster exchanges dice evenly with another adventurer."""

    type_name = "trade_dice"
    player = Field(read.player)
    """The Trickster."""
    partner = Field(read.player, key="with")
    """The adventurer he exchanges dice with."""
    give = Field(_exchanged_faces)
    """The faces of the dice the Trickster gives."""
    take = Field(_exchanged_faces)
    """The faces of the dice he takes."""


class VoidRun(EventValue):
    """The Void runner steps outside the temple into another chamber with an open entrance."""

    type_name = "void_run"
    player = Field(read.player)
    cell = Field(read.cell)


class NewCharactersModule(Module):
    """Queenie: New Characters."""

    id = MODULE_ID
    title = "New Characters"
    summary = (
        "Two new characters, the Trickster (exchange dice) and the Void runner (step outside "
        "the temple), the one-way Dungeon, the Narrow gauge (3 torches to enter) and the Portal "
        "and Clone treasures."
    )
    rulebook = "Big Box pages 30-31"
    requires = ("quests",)
    event_types = ("trade_dice", "void_run")
    event_classes = (TradeDice, VoidRun)
    payment_fields = (CLONE,)
    character_cards = CARDS
    treasure_tiles = (
        TreasureTile(
            PORTAL,
            "Portal",
            "move to any adjacent chamber, diagonals too, once",
            module=MODULE_ID,
            own_actions=True,
        ),
        TreasureTile(
            CLONE,
            "Clone",
            "doubles all your rolled keys and torches for one action",
            module=MODULE_ID,
            own_actions=True,
        ),
    )

    @classmethod
    def chambers(cls) -> dict[str, TileDef]:
        """The Dungeon and the Narrow gauge, shuffled into the pile (page 30)."""
        return {
            DUNGEON: TileDef(
                DUNGEON,
                "Dungeon",
                "chamber",
                frozenset({"N", "E", "W"}),
                (ADVENTURER, ADVENTURER),
                feature=DUNGEON,
            ),
            NARROW_GAUGE: TileDef(
                NARROW_GAUGE,
                "Narrow gauge",
                "chamber",
                frozenset({"N"}),
                (TORCH, TORCH, TORCH),
                gems=GemSpec(1, KEY, (4,)),
                treasure=True,
                feature=NARROW_GAUGE,
            ),
        }

    @classmethod
    def random_setup_fields(cls, rng: Random, players: list[str]) -> dict[str, Any]:
        """Module 6's cards with a Trickster and a Void runner among them (read only when
        module 6 is played)."""
        cards = default_characters(players)
        chosen = rng.sample(players, min(2, len(players)))
        for pid, (swap, run) in zip(chosen, (CARDS[:2], CARDS[2:]), strict=False):
            cards[pid] = rng.choice((swap, run)).ability_id
        return {"characters": cards}

    # ----- the new characters --------------------------------------------------------------

    def on_trade_dice(self, game: GameView, event: TradeDice) -> None:
        """The Trickster exchanges dice evenly with another adventurer (page 31)."""
        trickster = game.still_inside(game.players[event.player])
        card = _card(game, trickster, "trickster-swap", "trickster-anywhere")
        other = game.still_inside(game.players[event.partner])
        if other is trickster:
            raise Rejection("the Trickster exchanges dice with another adventurer")
        if card.ability_id == "trickster-swap" and other.cell != trickster.cell:
            raise Rejection(
                f"the Trickster's permanent card exchanges dice only with an adventurer in his "
                f"chamber: {other.player_id} is elsewhere"
            )
        _face_up(trickster, card)
        give, take = Counter(event.give), Counter(event.take)
        if sum(give.values()) != sum(take.values()):
            raise Rejection(
                f"the Trickster exchanges evenly: {plural(sum(give.values()), 'die')} given for "
                f"{plural(sum(take.values()), 'die')} taken"
            )
        if not give:
            raise Rejection("'give' and 'take' must list the faces of the dice exchanged")
        _shows(trickster, give)
        _shows(other, take)
        _hand_over(trickster, other, give)
        _hand_over(other, trickster, take)
        if card.activatable:
            trickster.charged = False

    def on_void_run(self, game: GameView, event: VoidRun) -> None:
        """The Void runner steps outside the temple to another chamber with an open entrance,
        alone (permanent card) or with everyone in his chamber (activatable card, page 31)."""
        runner = game.still_inside(game.players[event.player])
        card = _card(game, runner, "void-runner-step", "void-runner-group")
        _face_up(runner, card)
        cell = event.cell
        here = runner.cell
        assert here is not None
        if cell == here:
            raise Rejection(f"{runner.player_id} already stands in that chamber")
        target = game.temple.at(cell)
        if target is None:
            raise Rejection("the Void runner steps into a chamber of the temple, not an empty spot")
        if not open_entrances(game, here):
            raise Rejection(
                f"the {_name(game, here)} has no open entrance: the Void runner steps outside "
                "only through a door that leads to no chamber yet"
            )
        if not open_entrances(game, cell):
            raise Rejection(f"the {target.tile.name} has no open entrance to step in by")
        _may_go(game, runner, target)
        group = [runner]
        if card.activatable:
            group += [p for p in game.players_in(here) if p is not runner and _free(game, p)]
        plan, spends = game.charge(event, [runner], Counter(VOID_COST), "to step outside")
        game.settle(plan, spends)
        for player in group:
            player.cell, player.rear = cell, False
        if card.activatable:
            runner.charged = False

    # ----- the Dungeon ---------------------------------------------------------------------

    def check_leave(
        self, game: GameView, player: PlayerState, there: Cell | None, doing: str, discovering: bool
    ) -> None:
        """Nobody leaves the Dungeon by its grey slide, nor discovers a chamber beyond it
        (page 30)."""
        if there is None or _grey_side(game, player.cell) != there:
            return
        if discovering:
            raise Rejection("nobody discovers a chamber through the Dungeon's grey slide")
        raise Rejection(f"{player.player_id} cannot leave the Dungeon by its grey slide")

    def shut_side(
        self, game: GameView, player: PlayerState, chamber: PlacedTile, side: str, passage: bool
    ) -> bool:
        """The Dungeon's grey slide leads in, never out."""
        return not passage and chamber.tile.feature == DUNGEON and side == chamber.stairs

    # ----- the treasures -------------------------------------------------------------------

    def use_treasure(self, game: GameView, player: PlayerState, treasure: str, event: Use) -> bool:
        """The Portal moves its holder to any adjacent chamber, diagonals too (page 31)."""
        if treasure == CLONE:
            raise Rejection("the Clone is spent with an action: name its holder in its 'clone'")
        if treasure != PORTAL:
            return False
        cell = event.cell
        here = player.cell
        assert here is not None
        if cell == here or max(abs(cell[0] - here[0]), abs(cell[1] - here[1])) != 1:
            raise Rejection("the Portal moves you to a chamber next to yours, diagonals too")
        target = game.temple.at(cell)
        if target is None:
            raise Rejection("the Portal moves you into a chamber of the temple, not an empty spot")
        _may_go(game, player, target)
        player.cell, player.rear = cell, False
        return True

    def spends(
        self,
        game: GameView,
        event: Mapping[str, Any],
        payers: list[PlayerState],
        need: Counter[str],
    ) -> tuple[Counter[str], Spends]:
        """The Clone: its holder's keys and torches count twice for this action."""
        holder_id = event.get(CLONE)
        if holder_id is None:
            return Counter(), []
        holder = game.lookup(holder_id)
        if holder not in payers:
            raise Rejection(f"{holder.player_id} does not pay for this action: no Clone to spend")
        if payers[0] is not holder:  # the engine takes the first payer's dice first
            raise Rejection("list the Clone's holder first among the players who pay")
        if CLONE not in holder.treasures:
            raise Rejection(f"{holder.player_id} holds no Clone")
        bonus = Counter({i: min(holder.showing[i], need[i] // 2) for i in CLONED if need[i]})
        if not +bonus:
            raise Rejection(
                f"the Clone doubles keys and torches: {holder.player_id} shows none this "
                "action needs twice"
            )
        return +bonus, [(holder, CLONE)]  # module 2 takes the spent tile away

    # ----- the table -----------------------------------------------------------------------

    def tell(self, game: GameView, event: Mapping[str, Any]) -> str | None:
        """Say an exchange or a Void runner's step."""
        who = str(event.get("player", "?")).capitalize()
        if event.get("type") == "trade_dice":
            other = str(event.get("with", "?")).capitalize()
            return (
                f"{who} (Trickster) gives {other} {_said(event.get('give'))} for "
                f"{_said(event.get('take'))}"
            )
        if event.get("type") == "void_run":
            cell = event.get("cell")
            placed = game.temple.at(tuple(cell)) if _is_cell(cell) else None  # type: ignore[arg-type]
            where = placed.tile.name if placed is not None else "a chamber"
            return f"{who} (Void runner) steps outside the temple into the {where}"
        return None

    def reminders(self, game: GameView) -> list[str]:
        """The Dungeon's one-way slide; the Clone is named with the action it pays."""
        notes = []
        if any(p.tile.feature == DUNGEON for p in game.temple):
            notes.append(
                "The Dungeon: enter by any entrance, but nobody leaves it by its grey slide"
            )
        if any(CLONE in p.treasures for p in game.players.values()):
            notes.append(
                "The Clone doubles its holder's keys and torches for one action: say so before "
                "paying"
            )
        return notes

    def tile_marks(self, game: GameView, placed: PlacedTile) -> list[dict[str, Any]]:
        """The Dungeon's grey slide."""
        if placed.tile.feature != DUNGEON:
            return []
        return [{"token": "grey-slide", "label": "grey slide: a way in, never a way out"}]

    def open_actions(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """The Trickster's exchanges, the Void runner's steps, the Portal's moves."""
        found = _portal_actions(game, player)
        if player.ability in ("void-runner-step", "void-runner-group"):
            found += _void_actions(game, player)
        if player.ability in ("trickster-swap", "trickster-anywhere"):
            found += _exchange_actions(game, player)
        return found


# ----- the rules' pieces ------------------------------------------------------------------


def _card(game: GameView, player: PlayerState, *ids: str) -> Ability:
    """The player's card among `ids` (module 6 in play), else the refusal."""
    if "characters" not in game.setup.modules or player.ability not in ids:
        raise Rejection(f"{player.player_id} plays no {CARD_BY_ID[ids[0]].character} card")
    return CARD_BY_ID[player.ability]


def _face_up(player: PlayerState, card: Ability) -> None:
    """Refuse an activatable card lying face down."""
    if card.activatable and not player.charged:
        raise Rejection(
            f"{player.player_id}'s {card.character} card is face down: it turns back up at the "
            "end of the next countdown"
        )


def _shows(player: PlayerState, faces: Counter[str]) -> None:
    """Refuse giving dice the player does not show."""
    for face, count in faces.items():
        has = player.locked if face == BLACK_MASK else player.showing[face]
        if has < count:
            raise Rejection(
                f"{player.player_id} shows {plural(has, face.replace('_', ' '))}, "
                f"{count} to exchange"
            )


def _hand_over(giver: PlayerState, taker: PlayerState, faces: Counter[str]) -> None:
    """Move dice showing `faces` from one player to another (dice counts change by the
    other half of the exchange)."""
    for face, count in faces.items():
        if face == BLACK_MASK:
            giver.locked -= count
            taker.locked += count
        else:
            giver.showing[face] -= count
            taker.showing[face] += count
    giver.showing = +giver.showing
    taker.rolled = True


def open_entrances(game: GameView, cell: Cell) -> list[Cell]:
    """The empty spots the chamber's doors lead to (where the Void runner steps out or in);
    never the Dungeon's grey slide."""
    placed = game.temple.at(cell)
    if placed is None:
        return []
    return [
        spot
        for side, spot in game.temple.passages(cell)
        if game.temple.at(spot) is None
        and not (placed.tile.feature == DUNGEON and side == placed.stairs)
    ]


def _grey_side(game: GameView, cell: Cell | None) -> Cell | None:
    """The cell the Dungeon's grey slide faces, when `cell` is the Dungeon."""
    placed = None if cell is None else game.temple.at(cell)
    if placed is None or placed.tile.feature != DUNGEON:
        return None
    return neighbour(placed.cell, placed.stairs)


def _may_go(game: GameView, player: PlayerState, target: PlacedTile) -> None:
    """Every module's checks on a move that passes no door (a trap, a prohibition, a closed
    chamber)."""
    game.check_may_move(player, "enter a chamber")
    game.check_leave(player, None, "move")
    game.check_allowed("movement")
    if target.tile.kind == "start":
        game.check_allowed("start")
    for hook in game.module_hooks("check_enter_tile"):
        hook(game, target.tile)


def _free(game: GameView, player: PlayerState) -> bool:
    """Tell whether the player may be taken along (no trap or curse holds him)."""
    try:
        game.check_may_move(player, "move")
        game.check_leave(player, None, "move")
    except Rejection:
        return False
    return True


def _name(game: GameView, cell: Cell) -> str:
    placed = game.temple.at(cell)
    return placed.tile.name if placed is not None else "chamber"


def _is_cell(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    )


def _said(faces: Any) -> str:
    if not isinstance(faces, list):
        return "?"
    counts = Counter(str(f).replace("_", " ") for f in faces)
    return ", ".join(plural(n, face) for face, n in counts.items()) or "nothing"


# ----- open actions -------------------------------------------------------------------------


_AROUND = tuple((dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0))
"""The steps to the eight cells around one, diagonals too, west to east, south to north."""


def _portal_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    """A move with the Portal to each adjacent chamber, diagonals too."""
    if PORTAL not in player.treasures or player.cell is None:
        return []
    x, y = player.cell
    pid = player.player_id
    at = game.temple.at
    choices = [
        {
            "name": placed.tile.name,
            "event": {"type": "use", "player": pid, "treasure": PORTAL, "cell": [x + dx, y + dy]},
        }
        for dx, dy in _AROUND
        if (placed := at((x + dx, y + dy))) is not None
    ]
    if not choices:
        return []
    base = {"type": "use", "player": player.player_id, "treasure": PORTAL}
    return [OpenAction("use", "use the Portal (any adjacent chamber)", base, choices=choices)]


def _void_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    """The Void runner's step to each other chamber with an open entrance."""
    here = player.cell
    assert here is not None
    if not open_entrances(game, here):
        return []
    base = {"type": "void_run", "player": player.player_id}
    choices = [
        {"name": placed.tile.name, "event": {**base, "cell": list(placed.cell)}}
        for placed in game.temple
        if placed.cell != here and open_entrances(game, placed.cell)
    ]
    if not choices:
        return []
    down = None if player.charged or player.ability == "void-runner-step" else "card face down"
    action = priced(game, [player], VOID_COST, "void_run", "step outside (2 adventurers)", base)
    return [changed(action, choices=choices, blocked=down)]


def _exchange_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    """The Trickster's exchange of one die with each adventurer he may exchange with."""
    anywhere = player.ability == "trickster-anywhere"
    down = None if player.charged or not anywhere else "card face down"
    found = []
    for other in game.players.values():
        if other is player or not other.inside or (not anywhere and other.cell != player.cell):
            continue
        mine = [f for f in FACES if (player.locked if f == BLACK_MASK else player.showing[f])]
        theirs = [f for f in FACES if (other.locked if f == BLACK_MASK else other.showing[f])]
        choices = [
            {
                "name": f"{give.replace('_', ' ')} for {take.replace('_', ' ')}",
                "event": {
                    "type": "trade_dice",
                    "player": player.player_id,
                    "with": other.player_id,
                    "give": [give],
                    "take": [take],
                },
            }
            for give in mine
            for take in theirs
            if give != take
        ]
        base = {"type": "trade_dice", "player": player.player_id, "with": other.player_id}
        label = f"exchange dice with {other.player_id.capitalize()}"
        blocked = down or (None if choices else "no different dice showing to exchange")
        found.append(
            OpenAction("trade_dice", label, base, blocked=blocked, choices=choices or None)
        )
    return found


MODULE = NewCharactersModule
