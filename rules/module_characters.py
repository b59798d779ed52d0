"""Big Box module 6 (Characters, pages 20-21): the six characters, the card each player keeps
(a permanent or an activatable ability), and the checks of the engine each one changes (pure
Python, no I/O)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from rules import module_quests as quests
from rules import module_special as special
from rules import module_time
from rules.errors import Rejection
from rules.module_characters_events import UseAbility
from rules.module_protocol import GameView, Module
from rules.module_special import arrives_in_rear, side_in_rear
from rules.open_action import OpenAction, icons_needed, pricer
from rules.open_action import priced as _priced
from rules.vocabulary import (
    ADVENTURER,
    BLACK_MASK,
    GOLDEN_MASK,
    KEY,
    OFFSETS,
    SIDES,
    TORCH,
    Cell,
    neighbour,
    opposite,
    plural,
    side_towards,
)

if TYPE_CHECKING:
    from rules.catalog import GemSpec, TileDef
    from rules.engine import PlayerState

CHARACTERS_MODULE = "characters"


@dataclass(frozen=True)
class Ability:
    """One character card: permanent (always on) or activatable (rolled, then face down until
    the end of the next countdown)."""

    ability_id: str
    character: str
    activatable: bool
    text: str
    cost: tuple[str, ...] = ()
    """The icons that activate it (black masks for the Priest's offering)."""
    engine: bool = True
    """False for an ability the table plays alone (the Discoverer's second draw)."""

    @property
    def card(self) -> str:
        """`permanent` or `activatable`, as the card says."""
        return "activatable" if self.activatable else "permanent"


ABILITIES: Mapping[str, Ability] = {
    ability.ability_id: ability
    for ability in (
        Ability(
            "discoverer-redraw",
            "Discoverer",
            False,
            "when discovering, may put the chamber drawn under the pile and draw another",
            engine=False,
        ),
        Ability(
            "discoverer-run",
            "Discoverer",
            True,
            "3 adventurers: move your adventurer up to 3 chambers",
            (ADVENTURER, ADVENTURER, ADVENTURER),
        ),
        Ability(
            "doc-masks",
            "Doc",
            False,
            "your golden masks (yours, or one you give) free up to 3 black masks",
        ),
        Ability(
            "doc-heal",
            "Doc",
            True,
            "2 golden masks: another adventurer, wherever she is, re-rolls all her black masks",
            (GOLDEN_MASK, GOLDEN_MASK),
        ),
        Ability(
            "priest-keys",
            "Priest",
            False,
            "your golden masks serve as keys (re-roll such a die at once)",
        ),
        Ability(
            "priest-offering",
            "Priest",
            True,
            "3 black masks: give 3 keys or 3 torches to activate gems in any chamber, then "
            "re-roll those 3 dice",
            (BLACK_MASK, BLACK_MASK, BLACK_MASK),
        ),
        Ability("mechanic-torches", "Mechanic", False, "each torch you roll counts as 2 torches"),
        Ability(
            "mechanic-rotate",
            "Mechanic",
            True,
            "2 torches: turn any chamber but the starting chamber",
            (TORCH, TORCH),
        ),
        Ability(
            "mentalist-follow",
            "Mentalist",
            False,
            "all your dice black masks: move to any chamber holding another adventurer",
        ),
        Ability(
            "mentalist-teleport",
            "Mentalist",
            True,
            "2 keys: move to any chamber holding another adventurer",
            (KEY, KEY),
        ),
        Ability(
            "muscleman-door",
            "Muscleman",
            False,
            "enter any adjoining chamber with 2 adventurers",
        ),
        Ability(
            "muscleman-wall",
            "Muscleman",
            True,
            "2 adventurers: enter an adjoining chamber through a wall",
            (ADVENTURER, ADVENTURER),
        ),
    )
}
"""The 12 character cards (pages 20-21), by the id a setup line's `characters` uses. The text
extraction pairs the Discoverer's and the Doc's cards with their names; which of the other four
characters prints which pair is this engine's reading of the pictures (the names are labels:
the ability is what the engine plays)."""

CHARACTER_NAMES: tuple[str, ...] = (
    "Discoverer",
    "Doc",
    "Priest",
    "Mechanic",
    "Mentalist",
    "Muscleman",
)
PAYMENT_CARDS = frozenset({"mechanic-torches", "priest-keys"})
"""Cards that change what a player's dice are worth when he pays."""
TWO_ADVENTURERS: Counter[str] = Counter({ADVENTURER: 2})
OFFERING = 3
"""Keys or torches the Priest's offering gives (page 21)."""


def ability_of(game: GameView, player: PlayerState) -> str | None:
    """The player's ability id when module 6 is in play."""
    return player.ability if CHARACTERS_MODULE in game.setup.modules else None


def has(game: GameView, player: PlayerState, ability_id: str) -> bool:
    """Tell whether the player plays this card."""
    return ability_of(game, player) == ability_id


def _flip(player: PlayerState, ability: Ability) -> None:
    if ability.activatable:
        player.charged = False


def _charged(player: PlayerState, ability: Ability) -> None:
    if ability.activatable and not player.charged:
        raise Rejection(
            f"{player.player_id}'s {ability.character} card is face down: it turns back up at "
            "the end of the next countdown"
        )


def recharge(game: GameView) -> None:
    """After a door slam every activatable card turns face up again (page 20)."""
    for player in game.players.values():
        player.charged = True


def payment_view(game: GameView, payer: PlayerState, need: Mapping[str, int]) -> Counter[str]:
    """What the payer's showing dice are worth for `need`: the Mechanic's torches count twice,
    the Priest's golden masks serve as keys (those the need itself does not ask for)."""
    worth = Counter(payer.showing)
    if has(game, payer, "mechanic-torches"):
        worth[TORCH] *= 2
    if has(game, payer, "priest-keys") and KEY in need:
        spare = max(0, payer.showing[GOLDEN_MASK] - need.get(GOLDEN_MASK, 0))
        worth[KEY] += spare
        worth[GOLDEN_MASK] -= spare
    return +worth


def real_dice(game: GameView, payer: PlayerState, used: Counter[str]) -> Counter[str]:
    """Turn the icons a payer pays (in `payment_view`'s worth) into the dice he gives up."""
    dice = Counter(used)
    if has(game, payer, "mechanic-torches") and dice[TORCH]:
        dice[TORCH] = (dice[TORCH] + 1) // 2
    if has(game, payer, "priest-keys") and dice[KEY] > payer.showing[KEY]:
        extra = dice[KEY] - payer.showing[KEY]
        dice[KEY] -= extra
        dice[GOLDEN_MASK] += extra
    return +dice


def any_payment_ability(game: GameView, payers: list[PlayerState]) -> bool:
    """Tell whether a payer's card changes what his dice are worth."""
    for payer in payers:
        if payer.ability in PAYMENT_CARDS:
            return CHARACTERS_MODULE in game.setup.modules
    return False


def unlock_limit(game: GameView, helper: PlayerState) -> int:
    """Black masks one golden mask frees: 2, or up to 3 with the Doc's card (page 20)."""
    return 3 if has(game, helper, "doc-masks") else 2


def enter_need(
    game: GameView, player: PlayerState, event: Mapping[str, Any], need: Counter[str], through: bool
) -> Counter[str]:
    """An `enter` with `"ability": true`: the Muscleman enters with 2 adventurers, through a
    door (permanent) or through a wall (activatable); `through` says whether a door is open."""
    if not event.get("ability") or CHARACTERS_MODULE not in game.setup.modules:
        return need  # a game without module 6 ignores the field, as it always did
    if has(game, player, "muscleman-door") and through:
        return Counter(TWO_ADVENTURERS)
    if has(game, player, "muscleman-wall"):
        _charged(player, ABILITIES["muscleman-wall"])
        return Counter(TWO_ADVENTURERS)
    raise Rejection(f"{player.player_id} has no card that enters this way")


def wall_entry(game: GameView, player: PlayerState, event: Mapping[str, Any], target: Any) -> bool:
    """Tell whether an `enter` goes through a wall with the Muscleman's card (never through a
    double chamber's walls, page 21)."""
    if not (event.get("ability") and has(game, player, "muscleman-wall")):
        return False
    assert player.cell is not None
    here = game.temple.at(player.cell)
    doubles = any(p is not None and p.tile.special == "double" for p in (here, target))
    if doubles and game.special is not None:
        raise Rejection("the Muscleman cannot pass the walls of a double chamber")
    return True


def after_enter(
    game: GameView, player: PlayerState, event: Mapping[str, Any], through: bool
) -> None:
    """Turn the Muscleman's wall card face down once it was used."""
    if event.get("ability") and has(game, player, "muscleman-wall"):
        _flip(player, ABILITIES["muscleman-wall"])


def offering(
    game: GameView, event: Mapping[str, Any], spec: GemSpec, need: Counter[str]
) -> tuple[Counter[str], PlayerState | None]:
    """An `activate` with `offering`: the Priest's 3 black masks give 3 icons of the gems'
    kind, from any chamber (page 21). Return the need left and the Priest."""
    pid = event.get("offering")
    if pid is None or CHARACTERS_MODULE not in game.setup.modules:
        return need, None  # a game without module 6 ignores the field
    priest = game.still_inside(game.lookup(pid))
    if not has(game, priest, "priest-offering"):
        raise Rejection(f"{priest.player_id} does not play the Priest's offering")
    _charged(priest, ABILITIES["priest-offering"])
    _three_black_masks(priest, "for the offering")
    left = Counter(need)
    left[spec.icon] -= OFFERING
    return +left, priest


def _three_black_masks(priest: PlayerState, purpose: str) -> None:
    """Refuse the Priest's card unless he shows the 3 black masks it asks (page 21)."""
    if priest.locked < OFFERING:
        raise Rejection(
            f"{priest.player_id} shows {plural(priest.locked, 'black mask')}, 3 needed {purpose}"
        )


def after_offering(priest: PlayerState | None) -> None:
    """The offering's 3 black masks are re-rolled: free again, and the card turns face down."""
    if priest is None:
        return
    priest.locked -= OFFERING
    priest.charged = False


def use_ability(game: GameView, event: UseAbility) -> None:
    """An `ability` event: a card used on its own (the Discoverer's run, the Doc's healing, the
    Mechanic's turn, the Mentalist's moves)."""
    player = game.still_inside(game.players[event.player])
    ability_id = ability_of(game, player)
    if ability_id is None:
        raise Rejection(f"{player.player_id} plays no character card")
    ability = ABILITIES.get(ability_id)
    if ability is None:  # a Queenie module's card: that module's own events play it
        raise Rejection(f"{player.player_id}'s card is not played with an 'ability' event")
    handlers = {
        "discoverer-run": _run,
        "doc-heal": _heal,
        "mechanic-rotate": _rotate,
        "mentalist-follow": _follow,
        "mentalist-teleport": _follow,
        "priest-offering": _reroll_masks,
    }
    handler = handlers.get(ability_id)
    if handler is None:
        raise Rejection(
            f"the {ability.character}'s {ability.card} card is not used on its own: {ability.text}"
        )
    _charged(player, ability)
    if ability_id != "doc-heal" and ability_id != "mechanic-rotate":
        game.check_leave(player, None, "move")  # a trap holds him (modules 7, Queenie 16)
        module_time.check(game, "movement")  # a prohibition chamber's sand (module 8)
    if ability_id == "doc-heal":
        module_time.check(game, "golden_masks")
    apply = handler(game, player, event)
    if BLACK_MASK not in ability.cost:  # black masks are locked dice: the handler takes them
        plan, spends = game.charge(
            event, [player], Counter(ability.cost), f"for the {ability.character}'s card"
        )
        game.settle(plan, spends)
    apply()
    _flip(player, ability)


def _run(game: GameView, player: PlayerState, event: UseAbility) -> Any:
    cells = event.cells
    here = player.cell
    assert here is not None
    rear = player.rear
    for cell in cells:
        if not game.connected(here, cell) or not _same_half(game, here, cell, rear):
            raise Rejection(f"no open passage leads from {list(here)} to {list(cell)}")
        rear = arrives_in_rear(game, cell, here)
        target = game.temple.at(cell)
        assert target is not None
        if target.tile.quest in ("ghost", "obelisk") and game.quests is not None:
            raise Rejection(f"adventurers cannot enter the {target.tile.name}")
        _check_step(game, player, here, cell)
        here = cell

    def apply() -> None:
        player.cell, player.rear = cells[-1], rear

    return apply


def _check_step(game: GameView, player: PlayerState, here: Cell, there: Cell) -> None:
    """Every module's checks of one step of the Discoverer's run, as if he stood in `here`:
    one-way ways (the Dungeon's grey slide, the slide trap's stairway), gates, closed chambers."""
    standing = player.cell
    player.cell = here
    try:
        game.check_way(player, here, there, "run that way")
        game.check_leave(player, there, "run that way")
    finally:
        player.cell = standing
    target = game.temple.at(there)
    assert target is not None
    for hook in game.module_hooks("check_enter_tile"):
        hook(game, target.tile)


def _reroll_masks(game: GameView, player: PlayerState, event: UseAbility) -> Any:
    """The Priest's offering used only to re-roll 3 black masks (page 21's note)."""
    _three_black_masks(player, "to re-roll them with the Priest's card")

    def apply() -> None:
        player.locked -= OFFERING

    return apply


def _same_half(game: GameView, here: Cell, there: Cell, rear: bool) -> bool:
    """Tell whether the way from `here` to `there` leaves by the half one stands in (a double
    chamber's inner wall, module 4)."""
    placed = game.temple.at(here)
    side = side_towards(here, there)
    return placed is None or side is None or side_in_rear(game, placed, side) in (None, rear)


def _heal(game: GameView, player: PlayerState, event: UseAbility) -> Any:
    other = game.still_inside(game.players[event.target])
    if other is player:
        raise Rejection("the Doc heals another adventurer")

    def apply() -> None:
        other.locked = 0

    return apply


def _rotate(game: GameView, player: PlayerState, event: UseAbility) -> Any:
    cell = event.cell
    placed = game.temple.at(cell)
    if placed is None:
        raise Rejection(f"there is no chamber at {list(cell)}")
    if placed.tile.kind == "start":
        raise Rejection("the starting chamber cannot be turned")
    stairs = event.stairs
    if stairs not in SIDES or stairs == placed.stairs:
        raise Rejection("'stairs' must be the side the chamber's stairway faces after the turn")

    def apply() -> None:
        placed.stairs = stairs
        placed.__post_init__()

    return apply


def _follow(game: GameView, player: PlayerState, event: UseAbility) -> Any:
    cell = event.cell
    if cell == player.cell or not any(p is not player for p in game.players_in(cell)):
        raise Rejection("the Mentalist moves only to a chamber holding another adventurer")
    target = game.temple.at(cell)
    assert target is not None
    for hook in game.module_hooks("check_enter_tile"):
        hook(game, target.tile)  # the Beast's chamber takes nobody else (Queenie 16)
    if has(game, player, "mentalist-follow") and not (
        player.rolled and player.dice and player.locked == player.dice
    ):
        raise Rejection(f"{player.player_id}'s dice do not all show black masks")

    def apply() -> None:
        player.cell = cell
        player.rear = next(p.rear for p in game.players_in(cell) if p is not player)

    return apply


_STEPS = tuple((side, opposite(side), OFFSETS[side]) for side in SIDES)
"""Each side, the side facing it, and the step it makes on the grid."""


def reachable(game: GameView, player: PlayerState, steps: int = 3) -> list[tuple[Cell, list[Cell]]]:
    """Chambers the Discoverer may run to in up to `steps` moves, with the shortest path to
    each (open passages, never into the ghost or obelisk chamber)."""
    start = player.cell
    assert start is not None
    paths: dict[Cell, list[Cell]] = {start: []}
    halves: dict[Cell, bool] = {start: player.rear}
    frontier = [start]
    shut = game.quests is not None
    shut_side = game.module_hooks("shut_side")
    closed_tile = game.module_hooks("closed_tile")
    doubles = game.special is not None  # only then has a double chamber two halves (module 4)
    at = game.temple.at
    for _ in range(steps):
        nxt = []
        for cell in frontier:
            placed = at(cell)
            assert placed is not None
            halved = doubles and placed.tile.special == "double"
            x, y = cell
            for side, facing, (dx, dy) in _STEPS:  # in this order: the same path each run
                if side not in placed.open_sides:
                    continue
                other = (x + dx, y + dy)
                if other in paths or (halved and side_in_rear(game, placed, side) != halves[cell]):
                    continue
                target = at(other)
                if target is None or facing not in target.open_sides:
                    continue
                tile = target.tile
                if shut and tile.quest in ("ghost", "obelisk"):
                    continue
                # Loops rather than `any(...)`: a generator costs more than the hooks.
                for hook in shut_side:
                    if hook(game, player, placed, side, False):
                        break  # one way only, or gated: the run cannot take it
                else:
                    for hook in closed_tile:
                        if hook(game, tile):
                            break
                    else:
                        paths[other] = [*paths[cell], other]
                        two_halves = doubles and tile.special == "double"
                        halves[other] = two_halves and arrives_in_rear(game, other, cell)
                        nxt.append(other)
            for a, b in game.secret_passages:
                passage_end = b if a == cell else a if b == cell else None
                if passage_end is not None and passage_end not in paths:
                    other = passage_end
                    if not _same_half(game, cell, other, halves[cell]):
                        continue
                    paths[other] = [*paths[cell], other]
                    halves[other] = arrives_in_rear(game, other, cell)
                    nxt.append(other)
        frontier = nxt
    return [(cell, path) for cell, path in paths.items() if path]


def wall_neighbours(game: GameView, player: PlayerState) -> list[tuple[str, Cell]]:
    """Adjoining chambers behind a wall, for the Muscleman's card."""
    here = player.cell
    assert here is not None
    found = []
    for side in SIDES:
        cell = neighbour(here, side)
        target = game.temple.at(cell)
        if target is None or game.connected(here, cell) or side_towards(here, cell) is None:
            continue
        if game.quests is not None and target.tile.quest in ("ghost", "obelisk"):
            continue
        found.append((side, cell))
    return found


def default_characters(players: list[str] | tuple[str, ...]) -> dict[str, str]:
    """A card for each player when none were chosen: the characters in turn, permanent cards."""
    permanent = [a.ability_id for a in ABILITIES.values() if not a.activatable]
    return {pid: permanent[i % len(permanent)] for i, pid in enumerate(players)}


def cards_in_play(modules: tuple[str, ...] | list[str] = ()) -> dict[str, Ability]:
    """The character cards a game with these modules may choose: the 12 of module 6, and
    those a Queenie module adds (its `character_cards`)."""
    from rules.modules_registry import MODULES  # here: the registry imports this file

    cards = dict(ABILITIES)
    for module_id in modules:
        cls = MODULES.get(module_id)
        if cls is not None:
            cards.update((card.ability_id, card) for card in cls.character_cards)
    return cards


def parse_characters(
    characters: Any, players: tuple[str, ...], modules: tuple[str, ...] | list[str] = ()
) -> dict[str, str]:
    """Validate a setup line's `characters`: every player's card, one character each."""
    from rules.errors import RecordError

    known = cards_in_play(modules)
    if not isinstance(characters, Mapping):
        raise RecordError(
            "with the characters module, 'characters' must map each player to his card, "
            f'e.g. {{"red": "doc-heal"}} (cards: {", ".join(known)})'
        )
    if set(characters) != set(players):
        raise RecordError("'characters' must give every player one card, and only players")
    for pid, card in characters.items():
        if card not in known:
            raise RecordError(f"unknown character card {card!r} for {pid}")
    chosen = [known[card].character for card in characters.values()]
    if len(set(chosen)) != len(chosen):
        raise RecordError("each character may be chosen by one player only")
    return dict(characters)


class CharactersModule(Module):
    """Module 6 behind the module protocol."""

    id = CHARACTERS_MODULE
    event_types = ("ability",)
    event_classes = (UseAbility,)
    hook_order: ClassVar[Mapping[str, int]] = {"entry_need": 10, "after_enter": 60, "on_slam": 10}

    @classmethod
    def player_json(cls, player: PlayerState) -> dict[str, Any]:
        """The player's card and whether it lies face up."""
        return {"character": player.ability, "charged": player.charged}

    def on_start(self, game: GameView) -> None:
        """Every player keeps the character card the setup gave him (page 20)."""
        for pid, card in game.setup.characters.items():
            game.players[pid].ability = card

    def on_ability(self, game: GameView, event: UseAbility) -> None:
        """A character card used on its own (page 21)."""
        game.require(CHARACTERS_MODULE, event)
        use_ability(game, event)

    def wall_entry(
        self, game: GameView, player: PlayerState, event: Mapping[str, Any], target: Any
    ) -> bool:
        """The Muscleman's wall card."""
        return wall_entry(game, player, event, target)

    def entry_need(
        self,
        game: GameView,
        player: PlayerState,
        event: Mapping[str, Any],
        need: Counter[str],
        through: bool,
    ) -> Counter[str]:
        """The Muscleman enters with 2 adventurers."""
        return enter_need(game, player, event, need, through)

    def after_enter(
        self,
        game: GameView,
        player: PlayerState,
        origin: Cell,
        event: Mapping[str, Any],
        through: bool,
    ) -> None:
        """The Muscleman's wall card turns face down."""
        after_enter(game, player, event, through)

    def offering(
        self, game: GameView, event: Mapping[str, Any], spec: GemSpec, need: Counter[str]
    ) -> tuple[Counter[str], Any]:
        """The Priest's offering of 3 black masks."""
        return offering(game, event, spec, need)

    def after_activate(self, token: Any) -> None:
        """The offering's masks re-rolled, the card face down."""
        after_offering(token)

    def unlock_limit(self, game: GameView, helper: PlayerState) -> int:
        """The Doc frees up to 3 black masks."""
        return unlock_limit(game, helper)

    def pays_differently(self, game: GameView, payers: list[PlayerState]) -> bool:
        """The Mechanic's and the Priest's cards change what dice are worth."""
        return any_payment_ability(game, payers)

    def payment_view(
        self, game: GameView, payer: PlayerState, need: Mapping[str, int]
    ) -> Counter[str]:
        """What the payer's dice are worth with his card."""
        return payment_view(game, payer, need)

    def real_dice(self, game: GameView, payer: PlayerState, used: Counter[str]) -> Counter[str]:
        """The dice given up for the icons paid."""
        return real_dice(game, payer, used)

    def open_actions(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """What the player's character card lets him do here."""
        if player.ability not in ABILITIES:
            return []  # no card, or a Queenie module's card (that module lists its actions)
        return _character_actions(game, player)

    def offering_actions(
        self,
        game: GameView,
        payers: list[PlayerState],
        spec: GemSpec,
        gems: int,
        event: dict[str, Any],
        blocked: str | None,
    ) -> list[OpenAction]:
        """Gems activated with a Priest's offering."""
        return _offering_actions(game, payers, spec, gems, event, blocked)

    def on_slam(self, game: GameView, start: Cell) -> list[Cell]:
        """Every activatable card turns face up again (page 20)."""
        recharge(game)
        return []


# ----- open actions (rules/actions.py asks for them through the protocol) ---------------


@lru_cache(maxsize=16)
def _away(steps: int) -> str:
    """`2 chambers away`, written once per count."""
    return plural(steps, "chamber") + " away"


_TURNS = (("a quarter turn clockwise", 1), ("a half turn", 2), ("a quarter turn anticlockwise", 3))
_TURNED = {
    stairs: tuple((words, SIDES[(SIDES.index(stairs) + turns) % 4]) for words, turns in _TURNS)
    for stairs in SIDES
}
"""For a stairway facing each side: each turn in words, and where the stairway then faces."""


def _character_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    """What the player's character card lets him do here (module 6, pages 20-21)."""

    ability_id = player.ability
    assert ability_id is not None and player.cell is not None
    card = ABILITIES[ability_id]
    pid = player.player_id
    base = {"type": "ability", "player": pid}
    down = None if player.charged or not card.activatable else "card face down until the slam"
    found: list[OpenAction] = []

    price = pricer(game, [player])
    cost = icons_needed(card.cost)

    def priced(label: str, event: dict[str, Any], choices: Any = None) -> None:
        action = price(cost, "ability", label, event, down)
        action.choices = choices  # just built: nobody else holds it yet
        found.append(action)

    if ability_id == "discoverer-run":
        at = game.temple.at
        choices = [
            {
                "name": at(cell).tile.name,  # type: ignore[union-attr]
                "note": _away(len(path)),
                "event": {"type": "ability", "player": pid, "cells": list(map(list, path))},
            }
            for cell, path in reachable(game, player)
        ]
        if choices:
            priced("run up to 3 chambers (3 adventurers)", base, choices)
    elif ability_id == "doc-heal":
        for other in game.players.values():
            if other is not player and other.inside and other.locked:
                priced(
                    f"free all of {other.player_id.capitalize()}'s black masks (2 golden masks)",
                    {**base, "target": other.player_id},
                )
    elif ability_id == "mechanic-rotate":
        choices = []
        for placed in game.temple:
            if placed.tile.kind == "start":
                continue
            name, (x, y) = placed.tile.name, placed.cell
            for words, stairs in _TURNED[placed.stairs]:
                event = {"type": "ability", "player": pid, "cell": [x, y], "stairs": stairs}
                choices.append({"name": name, "note": words, "event": event})
        if choices:
            priced("turn a chamber (2 torches)", base, choices)
    elif ability_id in ("mentalist-follow", "mentalist-teleport"):
        others = {p.cell for p in game.players.values() if p.inside and p.cell != player.cell}
        closed_tile = game.module_hooks("closed_tile")
        for cell in sorted(c for c in others if c is not None):
            target = game.temple.at(cell)
            if target is not None and _closed(game, closed_tile, target.tile):
                continue  # the Beast's chamber takes nobody else (Queenie 16)
            names = " and ".join(
                [p.player_id.capitalize() for p in game.players_in(cell) if p is not player]
            )
            if ability_id == "mentalist-follow":
                all_black = player.rolled and player.dice and player.locked == player.dice
                found.append(
                    OpenAction(
                        "ability",
                        f"move to {names} (all dice black masks)",
                        {**base, "cell": list(cell)},
                        blocked=None if all_black else "only when all your dice show black masks",
                    )
                )
            else:
                priced(f"move to {names} (2 keys)", {**base, "cell": list(cell)})
    elif ability_id == "muscleman-door":
        for side, cell in game.temple.passages(player.cell):
            target = game.temple.at(cell)
            if target is None or not game.connected(player.cell, cell):
                continue
            if quests.quest_of(game, target.tile) in ("ghost", "obelisk"):
                continue
            if special.side_in_rear(game, game.temple.at(player.cell), side) not in (  # type: ignore[arg-type]
                None,
                player.rear,
            ):
                continue
            found.append(
                _priced(
                    game,
                    [player],
                    TWO_ADVENTURERS,
                    "enter",
                    f"enter {target.tile.name} with 2 adventurers ({side})",
                    {"type": "enter", "player": pid, "cell": list(cell), "ability": True},
                )
            )
    elif ability_id == "priest-offering" and player.locked:
        found.append(
            OpenAction(
                "ability",
                "re-roll 3 black masks (the Priest's card)",
                dict(base),
                blocked=down
                or (
                    None
                    if player.locked >= OFFERING
                    else f"shows {plural(player.locked, 'black mask')}, 3 needed"
                ),
            )
        )
    elif ability_id == "muscleman-wall":
        for side, cell in wall_neighbours(game, player):
            target = game.temple.at(cell)
            assert target is not None
            priced(
                f"break through the wall into {target.tile.name} ({side})",
                {"type": "enter", "player": pid, "cell": list(cell), "ability": True},
            )
    return found


def _closed(game: GameView, closed_tile: tuple[Any, ...], tile: TileDef) -> bool:
    """Tell whether one of the modules' `closed_tile` hooks lets nobody into `tile`."""
    for hook in closed_tile:  # noqa: SIM110 - any() over a generator costs more than the hooks
        if hook(game, tile):
            return True
    return False


def _offering_actions(
    game: GameView,
    payers: list[PlayerState],
    spec: GemSpec,
    gems: int,
    event: dict[str, Any],
    blocked: str | None,
) -> list[OpenAction]:
    """Gems activated with a Priest's offering, for each Priest who may make it."""

    found = []
    for priest in _priests(game):
        need = Counter({spec.icon: spec.cost(gems)})
        need[spec.icon] -= OFFERING
        found.append(
            _priced(
                game,
                payers,
                +need,
                "activate",
                f"activate {plural(gems, 'gem')} with {priest.player_id.capitalize()}'s "
                "offering "
                f"({plural(3, spec.icon)} from 3 black masks)",
                {**event, "offering": priest.player_id},
                None if game.depot >= gems else blocked,
            )
        )
    return found


def _priests(game: GameView) -> list[PlayerState]:
    """Players whose Priest's offering is face up with 3 black masks showing (module 6)."""
    return [
        p
        for p in game.players.values()
        if p.inside and p.ability == "priest-offering" and p.charged and p.locked >= 3
    ]
