"""The protocol a module implements: its id, set-up, state, events, hooks and state for the
dashboard; the engine calls modules only through it, never by name."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from random import Random
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from rules.catalog import GemSpec, TileDef
from rules.event_values import EventValue
from rules.modules import CurseCard, TreasureTile
from rules.temple import PlacedTile, Temple
from rules.vocabulary import Cell

if TYPE_CHECKING:
    from rules.engine import PlayerState
    from rules.game_setup import Setup
    from rules.module_treasures import Use

Plan = list[tuple["PlayerState", Counter[str]]]
"""Which showing icons each payer gives up for an action."""
Spends = list[tuple["PlayerState", str]]
"""What a module's payment spends besides dice (module 2's treasures), by owner."""


class GameView(Protocol):
    """What a module may read and change of the game: the table, the players, paying with
    dice, and the engine's hook runners (every module's checks, not just its own)."""

    setup: Setup
    catalog: Mapping[str, TileDef]
    temple: Temple
    players: dict[str, PlayerState]
    depot: int
    under_pile: list[str]
    curses_drawn: Counter[str]
    treasure_cells: list[Cell]
    extra_gems: int
    secret_passages: list[tuple[Cell, Cell]]
    outcome: str
    """The game's outcome: running, won or lost."""
    special: Any
    """Module 4's state, or None (each module's state: its `state_attr`)."""
    quests: Any
    """Module 5's state, or None."""
    traps: Any
    """Module 7's state, or None."""
    time: Any
    """Module 8's state, or None."""

    def players_in(self, cell: Cell) -> list[PlayerState]:
        """The players inside the chamber at `cell`."""
        ...

    def module_hooks(self, hook: str) -> tuple[Any, ...]:
        """The bound hooks of the modules in play that implement `hook`, in order."""
        ...

    def connected(self, a: Cell, b: Cell) -> bool:
        """Tell whether one may walk from `a` to `b`."""
        ...

    def require(self, module: str, event: Mapping[str, Any]) -> None:
        """Refuse the event unless `module` is in play."""
        ...

    def lookup(self, pid: Any) -> PlayerState:
        """The player with this id (raises Rejection for an unknown one)."""
        ...

    def still_inside(self, player: PlayerState) -> PlayerState:
        """The player, refused once he escaped."""
        ...

    def charge(
        self, event: Mapping[str, Any], payers: list[PlayerState], need: Counter[str], purpose: str
    ) -> tuple[Plan, Spends]:
        """Work out a payment (raises Rejection when the payers cannot pay)."""
        ...

    def settle(self, plan: Plan, spends: Spends) -> None:
        """Pay what `charge` worked out."""
        ...

    def remove_die(self, player: PlayerState) -> None:
        """Take one die away from the player."""
        ...

    def check_may_move(self, player: PlayerState, doing: str) -> None:
        """Every module's `check_may_move`."""
        ...

    def check_leave(
        self, player: PlayerState, there: Cell | None, doing: str, discovering: bool = False
    ) -> None:
        """Every module's `check_leave`."""
        ...

    def check_allowed(self, what: str) -> None:
        """Every module's `check_allowed`."""
        ...

    def check_way(self, player: PlayerState, here: Cell, there: Cell, doing: str) -> None:
        """Every module's `check_way`."""
        ...


class Module:
    """A module of the game: one file, one subclass. Every hook is optional: the engine calls
    only those a module overrides, each hook in `hook_order` (lower first; default: the
    registry's order). Modules are stateless: their state lives on the game (`state_attr`)."""

    id: ClassVar[str]
    """The module's id in the setup line's `modules`."""
    event_types: ClassVar[tuple[str, ...]] = ()
    """Event types the module adds, known only in games that play it."""
    event_classes: ClassVar[tuple[type[EventValue], ...]] = ()
    """The class each of `event_types` is parsed into (rules/event_values.py), one a type."""
    clock_events: ClassVar[frozenset[str]] = frozenset()
    """Event types the dashboard's clock emits for the module (never undone or corrected)."""
    payment_fields: ClassVar[tuple[str, ...]] = ()
    """Fields of a paying event that only this module reads (refused when it is not played)."""
    state_attr: ClassVar[str | None] = None
    """The game attribute holding the module's state (None in games that do not play it)."""
    hook_order: ClassVar[Mapping[str, int]] = {}
    """Where this module's hook runs among the others' (default 50, ties in registry order)."""
    filtered_actions: ClassVar[frozenset[str] | None] = None
    """The kinds of open action (`OpenAction.action`) its `filter_open_actions` and
    `filter_last_actions` may change: the open actions skip them when none of those is listed
    (None: they always run)."""

    # ----- what a Queenie module adds to the box (modules 1-8 say it elsewhere) ---------------

    title: ClassVar[str] = ""
    """The module's name as the set-up page offers it ("The Pit")."""
    summary: ClassVar[str] = ""
    """One or two sentences for the set-up page: what the module adds."""
    rulebook: ClassVar[str] = ""
    """Where its rules are printed ("Big Box page 26", "Queenie box, Queenie 12")."""
    requires: ClassVar[tuple[str, ...]] = ()
    """Modules the rulebook says this one needs (refused alone, with the reason)."""
    curse_cards: ClassVar[tuple[CurseCard, ...]] = ()
    """Curse cards it shuffles into module 1's pile (in play only with module 1)."""
    treasure_tiles: ClassVar[tuple[TreasureTile, ...]] = ()
    """Treasure tiles it shuffles into module 2's pile (in play only with module 2)."""
    quest_chambers: ClassVar[Mapping[str, str]] = {}
    """Quest chambers it adds to module 5's choice: the id a setup's `quests` names -> the
    chamber's tile id among `chambers()` (only those named join the pile)."""
    character_cards: ClassVar[tuple[Any, ...]] = ()
    """Character cards (module 6's `Ability`) it adds to the choice (in play only with module 6)."""

    def tell(self, game: GameView, event: Mapping[str, Any]) -> str | None:
        """Say one of the module's events in the table's words for the log (English; None: not
        one of its events). Names, chambers by name and place, never ids or cells."""
        return None

    def reminders(self, game: GameView) -> list[str]:
        """What the dashboard reminds the table of now: table-only rules (stand up, keep a hand
        over one eye) and what the rulebook's notes say people forget."""
        return []

    def tile_marks(self, game: GameView, placed: PlacedTile) -> list[dict[str, Any]]:
        """Tokens the dashboard draws on a placed tile, each `{"token": picture name, "label":
        words for the tooltip and the colour-blind, "count": how many (optional)}`."""
        return []

    def player_marks(self, game: GameView, player: PlayerState) -> list[dict[str, Any]]:
        """Tokens lying in front of a player (a guardian, a snake, a cursed gem tile), drawn on
        his card the same way as `tile_marks`."""
        return []

    @classmethod
    def random_setup_fields(cls, rng: Random, players: list[str]) -> dict[str, Any]:
        """The setup line's fields this module reads, drawn as a table might choose them (for
        random games: property tests and the rules benchmark)."""
        return {}

    @classmethod
    def parse_setup_fields(cls, line: Mapping[str, Any], players: tuple[str, ...]) -> Any:
        """Validate the setup line's fields it reads (raises RecordError); `Setup.module_fields`
        keeps what it returns under its id."""
        return None

    @classmethod
    def chambers(cls) -> dict[str, TileDef]:
        """The chamber tiles it shuffles into the draw pile (never drawn at set-up)."""
        return {}

    @classmethod
    def setup_fields(cls, line: Mapping[str, Any]) -> dict[str, Any]:
        """Read and check the setup line's fields this module reads (raises RecordError); the
        game keeps them in `Setup.fields`."""
        return {}

    @classmethod
    def unused_chambers(cls, fields: Mapping[str, Any]) -> set[str]:
        """Tile ids of its `chambers()` that these setup fields leave in the box."""
        return set()

    # ----- set-up and state ----------------------------------------------------------------

    @classmethod
    def create_state(cls, setup: Setup) -> Any:
        """The module's state at the start of a game that plays it."""
        return None

    def on_start(self, game: GameView) -> None:
        """At the start of a game that plays the module (its players are at the start)."""

    def state_json(self, game: GameView) -> dict[str, Any]:
        """The module's part of the state, as `replay --json` prints it."""
        return {}

    @classmethod
    def player_json(cls, player: PlayerState) -> dict[str, Any]:
        """The module's fields of a player, as `replay --json` prints them."""
        return {}

    def handle(self, game: GameView, event: Mapping[str, Any]) -> None:
        """Check and apply one of the module's events (raises Rejection with the reason)."""
        handler: Callable[[GameView, Mapping[str, Any]], None] = getattr(
            self, f"on_{event['type']}"
        )
        handler(game, event)

    # ----- hooks (the engine calls them in the order an event's rules check them) -----------

    def before_judge(self, game: GameView, event: Mapping[str, Any]) -> Any:
        """Before a well-formed event is handled; returns what `on_rejected` restores."""

    def on_rejected(self, game: GameView, saved: Any) -> None:
        """After the event was rejected: undo what `before_judge` changed."""

    def check_roll(self, game: GameView, player: PlayerState, faces: list[str]) -> None:
        """Refuse a `dice` event of the player (raises Rejection; change nothing here)."""

    def after_roll(self, game: GameView, player: PlayerState) -> None:
        """After the player's `dice` event was applied."""

    def one_die_roll(self, game: GameView, player: PlayerState) -> str | None:
        """The event type a roll of the player becomes where he rolls one die at a time (an
        event of his `player` id and the die's `face`; the camera reports it so), or None: he
        rolls all his free dice, a `dice` event."""
        return None

    def check_event(self, game: GameView, event: Mapping[str, Any]) -> None:
        """Refuse a well-formed event of any type before it is handled (a roll in a pause)."""

    def extra_keys(self, game: GameView) -> int:
        """Keys the module adds to those needed to escape."""
        return 0

    def check_may_move(self, game: GameView, player: PlayerState, doing: str) -> None:
        """Refuse a move (discover, enter, teleport) of a player who may not move at all."""

    def check_way(
        self, game: GameView, player: PlayerState, here: Cell, there: Cell, doing: str
    ) -> None:
        """Refuse a way out of `here` towards `there` (the inner wall of a double chamber)."""

    def check_allowed(self, game: GameView, what: str) -> None:
        """Refuse a kind of action the game forbids now (movement, start, gems, golden_masks)."""

    def check_leave(
        self,
        game: GameView,
        player: PlayerState,
        there: Cell | None,
        doing: str,
        discovering: bool,
    ) -> None:
        """Refuse leaving the player's chamber (or discovering from it)."""

    def check_enter_tile(self, game: GameView, tile: TileDef) -> None:
        """Refuse entering a chamber nobody enters."""

    def wall_entry(
        self, game: GameView, player: PlayerState, event: Mapping[str, Any], target: PlacedTile
    ) -> bool:
        """Tell whether an `enter` passes a wall (asked only when no door is open)."""
        return False

    def entry_need(
        self,
        game: GameView,
        player: PlayerState,
        event: Mapping[str, Any],
        need: Counter[str],
        through: bool,
    ) -> Counter[str]:
        """The icons an `enter` costs, given what the earlier modules made of it."""
        return need

    def after_enter(
        self,
        game: GameView,
        player: PlayerState,
        origin: Cell,
        event: Mapping[str, Any],
        through: bool,
    ) -> None:
        """After a player entered a chamber (he stands in it, paid)."""

    def discover_need(
        self, game: GameView, player: PlayerState, tile: TileDef, need: Counter[str]
    ) -> Counter[str]:
        """The icons discovering `tile` costs, given what the earlier modules made of it."""
        return need

    def on_discover(self, game: GameView, player: PlayerState, tile: TileDef, cell: Cell) -> None:
        """After a chamber was discovered and placed, paid."""

    def check_activate(
        self, game: GameView, chamber: PlacedTile, payers: list[PlayerState]
    ) -> None:
        """Refuse activating the chamber's gems this way."""

    def offering(
        self, game: GameView, event: Mapping[str, Any], spec: GemSpec, need: Counter[str]
    ) -> tuple[Counter[str], Any]:
        """What an `activate` still costs in dice, and a token for `after_activate` (or None;
        a token also lets one player activate 2 or 3 gems)."""
        return need, None

    def after_activate(self, token: Any) -> None:
        """After gems were activated, with `offering`'s token."""

    def after_gems(self, game: GameView, chamber: PlacedTile, payers: list[PlayerState]) -> None:
        """After gems were activated in the chamber, paid, by the players listed."""

    def unlock_limit(self, game: GameView, helper: PlayerState) -> int:
        """Black masks the helper's golden mask may free (2 in the basic game)."""
        return 2

    def check_unlock(self, game: GameView, helper: PlayerState, count: int) -> None:
        """Refuse freeing `count` black masks with the helper's golden mask."""

    def pays_differently(self, game: GameView, payers: list[PlayerState]) -> bool:
        """Tell whether a payer's dice are worth something else than they show."""
        return False

    def payment_view(
        self, game: GameView, payer: PlayerState, need: Mapping[str, int]
    ) -> Counter[str]:
        """What the payer's showing dice are worth for `need`."""
        return Counter(payer.showing)

    def real_dice(self, game: GameView, payer: PlayerState, used: Counter[str]) -> Counter[str]:
        """Turn the icons paid (in `payment_view`'s worth) into the dice given up."""
        return used

    def spends(
        self,
        game: GameView,
        event: Mapping[str, Any],
        payers: list[PlayerState],
        need: Counter[str],
    ) -> tuple[Counter[str], Spends]:
        """Icons the payers spend besides their dice (`payment_fields`), and what they spend."""
        return Counter(), []

    def settle_spends(self, game: GameView, spends: Spends) -> None:
        """Take away what `spends` said the payers spend."""

    def safe_cells(self, game: GameView, start: Cell) -> set[Cell]:
        """Chambers besides the start where the door slam takes no die."""
        return set()

    def on_slam(self, game: GameView, start: Cell) -> list[Cell]:
        """After a door slam took its dice; returns the cells of chambers that left the temple."""
        return []

    def after_slam(self, game: GameView, gone: list[Cell], start: Cell) -> None:
        """After every module's `on_slam`, with the chambers that left the temple."""

    def after_curse(self, game: GameView, player: PlayerState, card: CurseCard) -> None:
        """After the player drew a curse card (module 1's `curse` event)."""

    def check_escape(self, game: GameView) -> None:
        """Refuse an escape."""

    def check_escaper(self, game: GameView, player: PlayerState) -> None:
        """Refuse this player's escape (a curse that keeps him inside)."""

    def curse_drawn(
        self, game: GameView, player: PlayerState, card: CurseCard, event: Mapping[str, Any]
    ) -> bool:
        """Check, then apply a drawn curse card's immediate effect; True: it is discarded."""
        return False

    def use_treasure(
        self, game: GameView, player: PlayerState, treasure: str, event: Use
    ) -> bool | None:
        """Check, then apply a module's own treasure used on its own (module 2's `use`); True:
        it was this module's treasure (no other module's hook runs)."""
        return None

    def treasure_blocked(self, game: GameView, player: PlayerState, treasure: str) -> str | None:
        """For the open actions: why the player may not use his treasure on its own now."""
        return None

    def loses_at_last_escape(self, game: GameView) -> bool:
        """Tell whether the last escape loses the game all the same."""
        return False

    def open_actions_before_escape(self, game: GameView, player: PlayerState) -> list[Any]:
        """The module's actions open to the player, listed before the escape."""
        return []

    def held_back(self, game: GameView, player: PlayerState, discovering: bool) -> str | None:
        """For the open actions: why the player may not move (or discover) now, or None."""
        return None

    def shut_side(
        self, game: GameView, player: PlayerState, chamber: PlacedTile, side: str, passage: bool
    ) -> bool:
        """For the open actions: tell whether the player may not leave by `side` (through a
        door, or through a secret passage when `passage`)."""
        return False

    def closed_tile(self, game: GameView, tile: TileDef) -> bool:
        """For the open actions: tell whether nobody enters this chamber."""
        return False

    def enter_variants(
        self, game: GameView, player: PlayerState, target: PlacedTile, side: str
    ) -> list[Any]:
        """For the open actions: other ways of entering `target` through the door at `side`."""
        return []

    def activation_partners(
        self, game: GameView, player: PlayerState, chamber: PlacedTile, partners: list[PlayerState]
    ) -> tuple[list[PlayerState], str | None] | None:
        """For the open actions: who may help the player activate the chamber's gems, and why
        it is refused whoever helps (or None: its gems are not activated by `activate`)."""
        return partners, None

    def offering_actions(
        self,
        game: GameView,
        payers: list[PlayerState],
        spec: GemSpec,
        gems: int,
        event: dict[str, Any],
        blocked: str | None,
    ) -> list[Any]:
        """For the open actions: other ways the payers activate `gems` (a Priest's offering)."""
        return []

    def escape_blocked(self, game: GameView) -> str | None:
        """Why nobody may escape yet, or None."""
        return None

    def open_actions(self, game: GameView, player: PlayerState) -> list[Any]:
        """The module's actions open to the player now (for the dashboard)."""
        return []

    def filter_open_actions(self, game: GameView, found: list[Any]) -> list[Any]:
        """The open actions found so far, as this module changes them (greyed out)."""
        return found

    def open_actions_last(self, game: GameView, player: PlayerState) -> list[Any]:
        """The module's actions open to the player, listed last."""
        return []

    def filter_last_actions(self, game: GameView, found: list[Any]) -> list[Any]:
        """Every open action found, the last ones included, as this module changes them."""
        return found


HOOKS: tuple[str, ...] = (
    "on_start",
    "before_judge",
    "check_roll",
    "after_roll",
    "one_die_roll",
    "check_event",
    "extra_keys",
    "check_may_move",
    "check_way",
    "check_allowed",
    "check_leave",
    "check_enter_tile",
    "wall_entry",
    "entry_need",
    "after_enter",
    "discover_need",
    "on_discover",
    "check_activate",
    "offering",
    "after_activate",
    "after_gems",
    "unlock_limit",
    "check_unlock",
    "pays_differently",
    "spends",
    "settle_spends",
    "use_treasure",
    "safe_cells",
    "on_slam",
    "after_slam",
    "after_curse",
    "check_escape",
    "check_escaper",
    "curse_drawn",
    "treasure_blocked",
    "loses_at_last_escape",
    "state_json",
    "open_actions_before_escape",
    "held_back",
    "activation_partners",
    "offering_actions",
    "shut_side",
    "closed_tile",
    "enter_variants",
    "escape_blocked",
    "open_actions",
    "filter_open_actions",
    "open_actions_last",
    "filter_last_actions",
    "tell",
    "reminders",
    "tile_marks",
    "player_marks",
)
"""The hooks the engine runs over the modules in play (those a module overrides)."""


def overrides(module: Module, hook: str) -> bool:
    """Tell whether the module implements the hook (rather than inheriting the no-op)."""
    return getattr(type(module), hook) is not getattr(Module, hook)
