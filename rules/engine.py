"""The rules engine: applies game-record events to the state, with a reason for every refusal."""

from __future__ import annotations

import copy
import logging
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar, NamedTuple

from rules.basic_events import (
    BASIC_EVENTS,
    Activate,
    Collapse,
    Correct,
    CountdownEnd,
    CountdownStart,
    Dice,
    Discover,
    Enter,
    Escape,
    GiveDie,
    TurnOfFate,
    Undo,
    Unlock,
)
from rules.catalog import TileDef
from rules.errors import Rejection
from rules.event_fields import check_fields
from rules.event_values import EventValue, ReadContext
from rules.finite import TooDeepError, non_finite_path, not_finite_message, without_nulls
from rules.game_setup import SPARE_GEMS, Setup, parse_setup
from rules.module_protocol import Plan, Spends
from rules.modules import curse_cards_in_play
from rules.modules_registry import MODULES, PAYMENT_FIELDS, ModulePlan, module_event_types, plan_for
from rules.open_action import describe_icons
from rules.temple import PlacedTile, Temple
from rules.vocabulary import (
    ADVENTURER,
    BLACK_MASK,
    GOLDEN_MASK,
    KEY,
    SIDES,
    Cell,
    opposite,
    plural,
    side_towards,
)

log = logging.getLogger(__name__)

MAX_TURNS_OF_FATE = 2
CLOCK_EVENTS = frozenset({"countdown_start", "countdown_end", "collapse"})
"""Events the soundtrack's clock emits; `undo` never takes them back, nor can they be corrected."""
RECORD_EDITS = frozenset({"undo", "correct"})
"""Events that change the record rather than the game; never kept in `Game.accepted`."""
DIE_ICONS_TO_DISCOVER = Counter({ADVENTURER: 2})


@dataclass(frozen=True)
class Verdict:
    """The engine's answer to one event: accepted, or rejected with a reason."""

    ok: bool
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the verdict as the game record's `replay --json` prints it."""
        return {"ok": True} if self.ok else {"ok": False, "reason": self.reason}


@dataclass
class PlayerState:
    """One adventurer: where they are, their dice and what those dice show."""

    player_id: str
    cell: Cell | None
    dice: int
    locked: int = 0
    showing: Counter[str] = field(default_factory=Counter)
    """Showing faces not yet used for an action; black masks are counted in `locked` instead."""
    rolled: bool = False
    escaped: bool = False
    gave_die: bool = False
    curses: list[str] = field(default_factory=list)
    """Curse cards lying in front of the player (module 1), in the order drawn."""
    curses_to_draw: int = 0
    """Curse cards the player must still draw for purple masks discovered (module 1)."""
    treasures: list[str] = field(default_factory=list)
    """Treasure tiles the player holds, unused (module 2); an extra gem stays for good."""
    rear: bool = False
    """The player stands behind the inner wall of a double chamber (module 4)."""
    ability: str | None = None
    """The character card the player keeps (module 6)."""
    charged: bool = True
    """The card is face up (an activatable card turns down when used, module 6)."""

    @property
    def inside(self) -> bool:
        """Tell whether the player is still in the temple."""
        return not self.escaped

    @property
    def free_dice(self) -> int:
        """Dice the player may roll (every die not locked by a black mask)."""
        return self.dice - self.locked

    def unshow_a_die(self) -> bool:
        """Where every free die shows a face, take one face away (the face shown most, the
        last by name among equals) and return True: that die is the one rolled or lost, and
        the record does not say which it was."""
        showing = sum(self.showing.values())
        if not showing or self.free_dice > showing:
            return False
        face = max(self.showing, key=lambda f: (self.showing[f], f))
        self.showing[face] -= 1
        self.showing = +self.showing
        return True

    def to_json(self, modules: tuple[str, ...] = ()) -> dict[str, Any]:
        """Return the player as `replay --json` shows them (with the modules' fields only
        when the game plays those modules)."""
        data: dict[str, Any] = {
            "cell": None if self.cell is None else list(self.cell),
            "escaped": self.escaped,
            "dice": self.dice,
            "locked": self.locked,
        }
        for module_id, module in MODULES.items():
            if module_id in modules:
                data.update(module.player_json(self))
        return data


class JudgedLine(NamedTuple):
    """One event line the game was given: as written, as corrected, and the verdict on it now."""

    line: int
    """Its line number in the game record (the setup is line 1)."""
    event: Any
    """The event as written on the line."""
    answer: Verdict
    """The engine's answer when the line was given."""
    verdict: Verdict
    """The verdict on the line as the record stands now (a correction re-judges later lines)."""
    corrected_by: int | None = None
    """The line of the last correction of this line; None when it was never corrected."""
    replacement: Mapping[str, Any] | None = None
    """The event as corrected; None when the line was struck out or never corrected."""
    undone_by: int | None = None
    """The line of the accepted undo that took this line back; None when no undo did."""

    @property
    def struck(self) -> bool:
        """Tell whether a correction struck the line out (as if it never happened)."""
        return self.corrected_by is not None and self.replacement is None


class Game:
    """A game of Escape in progress: the state, and the rules that change it."""

    EVENT_TYPES: ClassVar[tuple[str, ...]] = (
        "dice",
        "discover",
        "enter",
        "activate",
        "unlock",
        "escape",
        "give_die",
        "turn_of_fate",
        "countdown_start",
        "countdown_end",
        "collapse",
        "undo",
        "correct",
    )
    """The basic game's event types; each is handled by the method `_<type>`."""
    MODULE_EVENT_TYPES: ClassVar[dict[str, tuple[str, ...]]] = module_event_types()
    """Event types a module adds, known only in games that play it (from the registry)."""

    special: Any
    quests: Any
    traps: Any
    time: Any
    """The modules' states, as their `state_attr`s name them (None when not in play); declared
    here for type checkers only: `__init__` sets every registered one."""

    @property
    def event_types(self) -> tuple[str, ...]:
        """Every event type this game knows: the basic game's and those of its modules."""
        extra = [t for m in self.setup.modules for t in self.MODULE_EVENT_TYPES.get(m, ())]
        return self.EVENT_TYPES + tuple(extra)

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.catalog: Mapping[str, TileDef] = setup.catalog
        self.temple = Temple()
        for placement in setup.temple:
            self.temple.place(self.catalog[placement.tile_id], placement.cell, placement.stairs)
        self._discoverable_tiles = sum(tile.kind != "start" for tile in self.catalog.values())
        self.under_pile: list[str] = []
        """Tiles put under the draw pile (vanished illusion chambers, page 13): drawn again only
        once every tile above them is gone."""
        self.curses_drawn: Counter[str] = Counter()
        """Curse cards drawn so far, by card (module 1): none goes back into the pile."""
        self._read_context = ReadContext(tuple(setup.players), frozenset(self.catalog))
        """What an event's fields are read against (fixed at set-up, shared by copies)."""
        start = self.temple.start_cell()
        self.players: dict[str, PlayerState] = {
            pid: PlayerState(pid, start, setup.starting_dice) for pid in setup.players
        }
        self.depot = setup.starting_depot
        self.spare = SPARE_GEMS
        self.turns_of_fate_used = 0
        self.outcome = "running"
        self.accepted: list[Mapping[str, Any]] = []
        """The accepted events that make the current state, in order (undone ones removed)."""
        self.accepted_lines: list[int] = []
        """The record line of each event in `accepted` (a corrected event keeps its line)."""
        self.lines: list[JudgedLine] = []
        """Every event line given so far, accepted or rejected, in order."""
        self._fixes: dict[int, tuple[int, Mapping[str, Any] | None]] = {}
        self._undone: dict[int, int] = {}
        """Each undo line judged so far -> the line it took back, bound once for good: a
        correction or a replay re-judges the undo against that line, never a later "last"."""
        self._line_now = 2
        self.treasure_cells: list[Cell] = []
        """Chambers holding a face-down treasure tile not yet claimed (module 2)."""
        self.extra_gems = 0
        """Gems lying activated on Extra gem treasure tiles (module 2)."""
        self.secret_passages: list[tuple[Cell, Cell]] = []
        """Chambers joined by a secret passage (module 2), usable by everyone."""
        self._plan: ModulePlan = plan_for(tuple(setup.modules))
        """The modules in play and their hooks (shared by every copy of the game)."""
        for module_id, module in MODULES.items():
            if module.state_attr is not None:
                # A module's state (e.g. `special`, `quests`, `traps`, `time`), or None.
                state = module.create_state(setup) if module_id in self._plan.ids else None
                setattr(self, module.state_attr, state)
        for hook in self._plan.hooks["on_start"]:
            hook(self)

    @classmethod
    def from_setup_line(cls, line: Any) -> Game:
        """Start a game from a setup line (raises `RecordError` when it is not valid)."""
        return cls(parse_setup(line))

    # ----- queries -------------------------------------------------------------------------

    @property
    def keys_to_escape(self) -> int:
        """Keys one player must show by himself to escape: the gems in the depot plus one (and
        module 5's obelisk gem tiles still on the depot)."""
        return self.depot + 1 + sum(hook(self) for hook in self._plan.hooks["extra_keys"])

    @property
    def turns_of_fate_left(self) -> int:
        """Turns of fate that may still be provoked."""
        if self.setup.difficulty == "professional":
            return 0
        return min(MAX_TURNS_OF_FATE - self.turns_of_fate_used, self.spare)

    @property
    def gems_on_chambers(self) -> int:
        """Gems activated in the temple so far."""
        return sum(placed.gems for placed in self.temple)

    def chamber_of(self, player: PlayerState) -> PlacedTile | None:
        """Return the chamber the player stands in (None once escaped)."""
        return None if player.cell is None else self.temple.at(player.cell)

    def players_in(self, cell: Cell) -> list[PlayerState]:
        """Return the players inside the chamber at `cell`, in setup order."""
        return [p for p in self.players.values() if p.cell == cell and not p.escaped]

    def draw_pile_size(self) -> int:
        """Return how many tiles may still be discovered."""
        return self._discoverable_tiles - (len(self.temple) - 1)

    def unplaced_tiles(self) -> list[TileDef]:
        """Return the tiles that may still be discovered (the draw pile)."""
        return [
            tile
            for tile in self.catalog.values()
            if tile.kind != "start" and not self.temple.is_placed(tile.tile_id)
        ]

    def curses_left(self) -> dict[str, int]:
        """Cards of each kind still in the curse pile (module 1), by card id."""
        cards = curse_cards_in_play(self.setup.modules)
        return {k: card.copies - self.curses_drawn[k] for k, card in cards.items()}

    def drawable_tiles(self) -> list[TileDef]:
        """Return the tiles of the draw pile that may be drawn now: those put under the pile
        wait until every tile above them is gone."""
        pile = self.unplaced_tiles()
        above = [tile for tile in pile if tile.tile_id not in self.under_pile]
        return above or pile

    def state_json(self) -> dict[str, Any]:
        """Return the state exactly as `templecam replay --json` prints it."""
        return {
            "depot": self.depot,
            "spare": self.spare,
            "keys_to_escape": self.keys_to_escape,
            "turns_of_fate_left": self.turns_of_fate_left,
            "outcome": self.outcome,
            "players": {pid: p.to_json(self.setup.modules) for pid, p in self.players.items()},
            "temple": [placed.to_json() for placed in self.temple],
            **self._modules_json(),
        }

    def _modules_json(self) -> dict[str, Any]:
        """The modules' part of the state (nothing for the basic game)."""
        data: dict[str, Any] = {}
        for hook in self._plan.hooks["state_json"]:
            data.update(hook(self))
        return data

    @property
    def clock_events(self) -> frozenset[str]:
        """The events the dashboard's clock emits in this game: the soundtrack's, and those of
        its modules (module 8's `time_up` when a sand timer runs out)."""
        extra = self._plan.clock_events
        return CLOCK_EVENTS | extra if extra else CLOCK_EVENTS

    def connected(self, a: Cell, b: Cell) -> bool:
        """Tell whether one may walk from `a` to `b`: open doors, or a secret passage."""
        return (
            self.temple.connected(a, b)
            or (a, b) in self.secret_passages
            or (
                b,
                a,
            )
            in self.secret_passages
        )

    @property
    def next_line(self) -> int:
        """The record line number the next event gets unless `apply` is told another."""
        return self.lines[-1].line + 1 if self.lines else 2

    def copy(self) -> Game:
        """Return an independent copy (for what-if questions and undo)."""
        # Past lines and accepted events are never changed in place: the copy shares them.
        memo: dict[int, Any] = {
            id(self.catalog): self.catalog,  # the setup's, never changed by play
            id(self._read_context): self._read_context,
            id(self.lines): list(self.lines),
            id(self.accepted): list(self.accepted),
            id(self.accepted_lines): list(self.accepted_lines),
        }
        return copy.deepcopy(self, memo)

    def check(self, event: Any) -> Verdict:
        """Judge `event` as the next line without applying it: the verdict `apply` would give,
        the game unchanged (it is judged on a copy, which shares every immutable part)."""
        return self.copy().apply(event)

    # ----- applying events -----------------------------------------------------------------

    def apply(self, event: Any, line: int | None = None) -> Verdict:
        """Apply one event given on record `line` (default: the next line); a rejected event
        changes nothing and says why."""
        last = self.lines[-1].line if self.lines else 1
        number = last + 1 if line is None else line
        if number <= last:
            raise ValueError(f"line {number} cannot follow line {last}")
        verdict = self._judge(event, number)
        self.lines.append(JudgedLine(number, event, verdict, verdict))
        self._mark_undone(number, verdict)
        return verdict

    def undo_target(self) -> int | None:
        """Return the line an undo would take back now (the last accepted event that the clock
        did not emit), or None when there is nothing to undo."""
        if self.outcome == "lost":
            return None
        for line, event in zip(reversed(self.accepted_lines), reversed(self.accepted), strict=True):
            if event.get("type") not in self.clock_events:
                return line
        return None

    def _mark_undone(self, number: int, verdict: Verdict) -> None:
        """Mark the line that the accepted undo on line `number` took back (if it is one)."""
        target = self._undone.get(number)
        if target is None or not verdict.ok:
            return
        index = bisect_left(self.lines, target, key=lambda judged: judged.line)
        if index < len(self.lines) and self.lines[index].line == target:
            self.lines[index] = self.lines[index]._replace(undone_by=number)

    def withdraw(self, line: int) -> None:
        """Forget event line `line`, the last one applied (its record write failed): the game
        is exactly as it was before that line was given."""
        if not self.lines or self.lines[-1].line != line:
            raise ValueError(f"line {line} is not the last line applied")
        self._rebuild(self.lines[:-1])

    def _rebuild(self, lines: list[JudgedLine]) -> None:
        """Become the game that the setup and `lines`, as written, replay to (as a saved record
        is replayed: corrections and undos are judged again in order)."""
        rebuilt = Game(self.setup)
        for judged in lines:
            rebuilt.apply(judged.event, judged.line)
        self.__dict__.update(rebuilt.__dict__)

    def _judge(self, event: Any, line: int) -> Verdict:
        self._line_now = line
        judging = self._plan.judging
        saved: list[Any] = []
        try:
            handler, fields = self._handler_for(event)
            saved = [module.before_judge(self, fields) for module in judging]
            handler(fields)
        except Rejection as rejection:
            for module, before in zip(judging, saved, strict=False):
                module.on_rejected(self, before)
            return Verdict(False, rejection.reason)
        except Exception as error:  # a bug of the engine: refuse the event, never half-apply it
            log.exception("the rules engine failed on line %d: %r", line, event)
            self._rebuild(list(self.lines))
            self._line_now = line
            return Verdict(
                False,
                f"the rules engine could not judge this event ({type(error).__name__}); "
                "it changed nothing. Please report it with the saved game",
            )
        if event["type"] not in RECORD_EDITS:
            self.accepted.append(event)
            self.accepted_lines.append(line)
        return Verdict(True)

    def _handler_for(self, written: Any) -> tuple[Callable[[Any], None], EventValue]:
        """Return the handler of an event and the event parsed into its class: every `null`
        field is left out (read as absent), except a correction's `event`, where null strikes
        the line out."""
        if not isinstance(written, Mapping):
            raise Rejection("an event must be a JSON object with a 'type'")
        try:
            where = non_finite_path(written)
        except TooDeepError as error:
            raise Rejection(f"the event's {error}") from None
        if where is not None:
            raise Rejection(not_finite_message(f"'{where}'"))
        event = without_nulls(written)
        if written.get("type") == "correct" and "event" in written:
            event["event"] = written["event"]
        kind = event.get("type")
        if kind == "setup":
            raise Rejection("the setup may only be the first line of a game record")
        if not isinstance(kind, str) or kind not in self.event_types:
            known = ", ".join(self.event_types)
            raise Rejection(f"unknown event type {kind!r} (known: {known})")
        clock = event.get("t")
        if clock is not None and (
            not isinstance(clock, int | float) or isinstance(clock, bool) or clock < 0
        ):
            raise Rejection("'t' must be the game clock in seconds, a number from 0 up")
        if self.outcome != "running" and not (kind in RECORD_EDITS and self.outcome == "won"):
            raise Rejection(f"the game is over: it was {self.outcome}")
        check_fields(event)
        typed = self._event_class(kind).parse(event, self._read_context)
        for hook in self._plan.hooks["check_event"]:
            hook(self, typed)
        module = self._plan.handlers.get(kind)
        if module is not None:
            return partial(module.handle, self), typed
        return getattr(self, f"_{kind}"), typed

    def _event_class(self, kind: str) -> type[EventValue]:
        """The class an event of type `kind` is parsed into (a module's or the basic game's)."""
        return self._plan.event_classes.get(kind) or BASIC_EVENTS[kind]

    # ----- players named by an event (raise Rejection for one who may not act) ----------------

    def _lookup(self, pid: Any) -> PlayerState:
        if not isinstance(pid, str) or pid not in self.players:
            raise Rejection(f"unknown player {pid!r} (players: {', '.join(self.players)})")
        return self.players[pid]

    @staticmethod
    def _still_inside(player: PlayerState) -> PlayerState:
        if player.escaped:
            raise Rejection(f"{player.player_id} has already escaped")
        return player

    # ----- paying with dice ----------------------------------------------------------------

    def _payment(
        self, payers: list[PlayerState], need: Counter[str], purpose: str
    ) -> list[tuple[PlayerState, Counter[str]]]:
        """Work out which showing icons pay for `need`, taking from payers in the order given."""
        if not self.setup.track_dice or not +need:
            return []  # nothing to pay (an empty red frame): no roll needed
        names = " and ".join(p.player_id for p in payers)
        if not any(p.rolled for p in payers):
            verb = "has" if len(payers) == 1 else "have"
            raise Rejection(
                f"{names} {verb} no dice showing yet: roll first "
                f"({describe_icons(need)} needed {purpose})"
            )
        worth = None
        for hook in self._plan.hooks["pays_differently"]:
            if hook(self, payers):
                worth = hook.__self__
                break
        views = [worth.payment_view(self, p, need) if worth else p.showing for p in payers]
        pooled: Counter[str] = Counter()
        for view in views:
            pooled.update(view)
        if any(pooled[icon] < count for icon, count in need.items()):
            have = {icon: pooled[icon] for icon in need}
            verb = "shows" if len(payers) == 1 else "show"
            together = "" if len(payers) == 1 else " together"
            if len(need) == 1:
                ((icon, count),) = need.items()
                raise Rejection(
                    f"{names} {verb} {plural(have[icon], icon)}{together}, {count} needed {purpose}"
                )
            raise Rejection(
                f"{names} {verb} {describe_icons(have)}{together}, "
                f"{describe_icons(need)} needed {purpose}"
            )
        plan: list[tuple[PlayerState, Counter[str]]] = []
        remaining = Counter(need)
        for payer, view in zip(payers, views, strict=True):
            used = Counter({icon: min(view[icon], n) for icon, n in remaining.items()})
            used = +used
            if used:
                plan.append((payer, worth.real_dice(self, payer, used) if worth else used))
                remaining.subtract(used)
        return plan

    def _charge(
        self,
        event: Mapping[str, Any],
        payers: list[PlayerState],
        need: Counter[str],
        purpose: str,
    ) -> tuple[list[tuple[PlayerState, Counter[str]]], list[tuple[PlayerState, str]]]:
        """Work out a payment in dice and in what the modules let the payers spend besides
        (module 2: `treasures` lists double keys and double torches spent with the action,
        each serving as two icons)."""
        for name, module_id in PAYMENT_FIELDS.items():
            if event.get(name):
                self._module(module_id, event)
        spends: Spends = []
        bonus: Counter[str] = Counter()
        for hook in self._plan.hooks["spends"]:
            icons, spent = hook(self, event, payers, need)
            bonus.update(icons)
            spends.extend(spent)
        return self._payment(payers, +(need - bonus), purpose), spends

    def _settle(self, plan: Plan, spends: Spends) -> None:
        """Pay what `_charge` worked out: the dice used and what the modules' spends took."""
        self._pay(plan)
        if spends:
            for hook in self._plan.hooks["settle_spends"]:
                hook(self, spends)

    def _module(self, module: str, event: Mapping[str, Any]) -> None:
        if module not in self.setup.modules:
            raise Rejection(
                f"the {module} module is not in play: this game's setup names "
                f"{', '.join(self.setup.modules) or 'no module'}"
            )

    @property
    def modules_in_play(self) -> tuple[Any, ...]:
        """The modules this game plays (their protocol objects), in the registry's order."""
        return self._plan.modules

    def module_hooks(self, hook: str) -> tuple[Any, ...]:
        """The bound hooks of the modules in play that implement `hook`, in the order they run
        (rules/module_protocol.py's `HOOKS`)."""
        return self._plan.hooks[hook]

    # ----- the view modules see the game through (rules/module_protocol.py's GameView) -----

    def require(self, module: str, event: Mapping[str, Any]) -> None:
        """Refuse the event unless `module` is in play."""
        self._module(module, event)

    def lookup(self, pid: Any) -> PlayerState:
        """The player with this id (raises Rejection for an unknown one)."""
        return self._lookup(pid)

    def still_inside(self, player: PlayerState) -> PlayerState:
        """The player, refused once he escaped."""
        return self._still_inside(player)

    def charge(
        self, event: Mapping[str, Any], payers: list[PlayerState], need: Counter[str], purpose: str
    ) -> tuple[Plan, Spends]:
        """Work out a payment (raises Rejection when the payers cannot pay)."""
        return self._charge(event, payers, need, purpose)

    def settle(self, plan: Plan, spends: Spends) -> None:
        """Pay what `charge` worked out."""
        self._settle(plan, spends)

    def remove_die(self, player: PlayerState) -> None:
        """Take one die away from the player."""
        self._remove_die(player)

    def check_may_move(self, player: PlayerState, doing: str) -> None:
        """Every module's `check_may_move` (module 1's Trap curse)."""
        for hook in self._plan.hooks["check_may_move"]:
            hook(self, player, doing)

    def check_leave(
        self, player: PlayerState, there: Cell | None, doing: str, discovering: bool = False
    ) -> None:
        """Every module's `check_leave` (module 7's cliffs, platform and slide)."""
        for hook in self._plan.hooks["check_leave"]:
            hook(self, player, there, doing, discovering)

    def check_allowed(self, what: str) -> None:
        """Every module's `check_allowed` (module 8's prohibitions)."""
        for hook in self._plan.hooks["check_allowed"]:
            hook(self, what)

    def check_way(self, player: PlayerState, here: Cell, there: Cell, doing: str) -> None:
        """Every module's `check_way` (module 4's inner walls)."""
        for hook in self._plan.hooks["check_way"]:
            hook(self, player, here, there, doing)

    @staticmethod
    def _shared(
        plan: list[tuple[PlayerState, Counter[str]]],
        payers: list[PlayerState],
        icon: str,
        gems: int,
    ) -> list[tuple[PlayerState, Counter[str]]]:
        """Make 2 or 3 gems a cooperation: at least two listed players pay an icon each.

        A plan already paid by two players is kept as it is (as records were always judged);
        one paid by the first player alone moves one icon to the first partner who shows it.
        """
        if len(plan) >= 2:
            return plan
        ((first, used),) = plan
        others = [p for p in payers if p is not first]
        partner = next((p for p in others if p.showing[icon] > 0), None)
        if partner is None:
            names = " and ".join(p.player_id for p in others)
            raise Rejection(
                f"activating {gems} gems takes at least two players who each pay: "
                f"{names} {'shows' if len(others) == 1 else 'show'} no {icon.replace('_', ' ')}"
            )
        return [(first, +(used - Counter({icon: 1}))), (partner, Counter({icon: 1}))]

    @staticmethod
    def _pay(plan: list[tuple[PlayerState, Counter[str]]]) -> None:
        for payer, used in plan:
            payer.showing.subtract(used)
            payer.showing = +payer.showing

    # ----- event handlers: check everything first, then change the state ------------------

    def _dice(self, event: Dice) -> None:
        player = self._still_inside(self.players[event.player])
        faces = list(event.faces)
        if len(faces) != player.dice:
            raise Rejection(
                f"{player.player_id} holds {plural(player.dice, 'die')}"
                f" but {len(faces)} faces were reported"
            )
        black = faces.count(BLACK_MASK)
        if black < player.locked:
            raise Rejection(
                f"{player.player_id} has {plural(player.locked, 'locked die')} that must still "
                f"show black masks, but only {black} shown"
            )
        for hook in self._plan.hooks["check_roll"]:
            hook(self, player, faces)
        player.locked = black
        player.showing = Counter(face for face in faces if face != BLACK_MASK)
        player.rolled = True
        for hook in self._plan.hooks["after_roll"]:
            hook(self, player)

    def _discover(self, event: Discover) -> None:
        player = self._still_inside(self.players[event.player])
        self.check_may_move(player, "discover a chamber")
        cell = event.cell
        tile_id = event.tile
        tile = self.catalog[tile_id]
        if self.temple.is_placed(tile_id):
            raise Rejection(f"{tile.name} ({tile_id}) is already in the temple")
        if tile.kind == "start":
            raise Rejection("the starting chamber is never discovered: it is placed at set-up")
        if tile not in self.drawable_tiles():
            above = len(self.unplaced_tiles()) - len(self.under_pile)
            raise Rejection(
                f"the {tile.name} vanished under the draw pile (page 13): it is drawn again only "
                f"once the {plural(above, 'tile')} above it are gone"
            )
        if self.temple.at(cell) is not None:
            raise Rejection(f"cell {list(cell)} already holds a chamber")
        here = player.cell
        assert here is not None
        door = side_towards(here, cell)
        if door is None:
            raise Rejection(
                f"{player.player_id} is in {list(here)}, not next to {list(cell)}: "
                "a new chamber is placed next to the discoverer's chamber"
            )
        chamber = self.temple.at(here)
        assert chamber is not None
        if door not in chamber.open_sides:
            raise Rejection(
                f"{chamber.tile.name} has a wall on its {door} side: "
                "no chamber can be discovered there"
            )
        self.check_way(player, here, cell, "discover a chamber")
        self.check_leave(player, cell, "discover a chamber", discovering=True)
        stairs = opposite(door) if event.stairs is None else event.stairs
        if stairs not in SIDES:
            raise Rejection("'stairs' must be one of N, E, S, W")
        if stairs != opposite(door):
            raise Rejection(
                f"the stairway must face {player.player_id}'s chamber: stairs {opposite(door)}, "
                f"not {stairs}"
            )
        need = Counter(DIE_ICONS_TO_DISCOVER)
        for hook in self._plan.hooks["discover_need"]:
            need = hook(self, player, tile, need)
        purpose = (
            "to discover a chamber" if need == DIE_ICONS_TO_DISCOVER else f"to discover {tile.name}"
        )
        plan, spends = self._charge(event, [player], need, purpose)
        self.temple.place(tile, cell, stairs)
        if tile_id in self.under_pile:
            self.under_pile.remove(tile_id)
        self._settle(plan, spends)
        for hook in self._plan.hooks["on_discover"]:
            hook(self, player, tile, cell)

    def _enter(self, event: Enter) -> None:
        player = self._still_inside(self.players[event.player])
        self.check_may_move(player, "enter a chamber")
        cell = event.cell
        here = player.cell
        assert here is not None
        target = self.temple.at(cell)
        if target is None:
            raise Rejection(f"there is no chamber at {list(cell)} yet")
        if cell == here:
            raise Rejection(f"{player.player_id} is already in {target.tile.name}")
        if side_towards(here, cell) is None:
            raise Rejection(
                f"{target.tile.name} at {list(cell)} is not next to {player.player_id}'s chamber"
            )
        through = self.connected(here, cell)
        if not through and not any(
            hook(self, player, event, target) for hook in self._plan.hooks["wall_entry"]
        ):
            raise Rejection(
                f"a wall blocks the way from {list(here)} to {target.tile.name} at {list(cell)}"
            )
        self.check_way(player, here, cell, "leave")
        self.check_allowed("movement")
        if target.tile.kind == "start":
            self.check_allowed("start")
        self.check_leave(player, cell, "leave his chamber")
        for hook in self._plan.hooks["check_enter_tile"]:
            hook(self, target.tile)
        need = Counter(target.tile.enter)
        for hook in self._plan.hooks["entry_need"]:
            need = hook(self, player, event, need, through)
        plan, spends = self._charge(event, [player], need, f"to enter {target.tile.name}")
        player.cell = cell
        self._settle(plan, spends)
        for hook in self._plan.hooks["after_enter"]:
            hook(self, player, here, event, through)

    def _activate(self, event: Activate) -> None:
        cell = event.cell
        gems = event.gems
        ids = event.players
        if not isinstance(ids, list) or not ids:
            raise Rejection("'players' must list the players who activate the gems")
        payers = [self._still_inside(self._lookup(pid)) for pid in ids]
        if len({p.player_id for p in payers}) != len(payers):
            raise Rejection("each player may be listed only once in 'players'")
        chamber = self.temple.at(cell)
        if chamber is None:
            raise Rejection(f"there is no chamber at {list(cell)}")
        for payer in payers:
            if payer.cell != cell:
                raise Rejection(f"{payer.player_id} is not inside {chamber.tile.name}")
        for hook in self._plan.hooks["check_activate"]:
            hook(self, chamber, payers)
        self.check_allowed("gems")
        spec = chamber.tile.gems
        if spec is None:
            raise Rejection(f"{chamber.tile.name} has no gem icons")
        if chamber.gems:
            raise Rejection(
                f"{chamber.tile.name} already has {plural(chamber.gems, 'gem')} activated: "
                "no more gems can be activated there"
            )
        if not 1 <= gems <= spec.count:
            raise Rejection(f"{chamber.tile.name} can take 1 to {spec.count} gems, not {gems}")
        need, priest = Counter({spec.icon: spec.cost(gems)}), None
        for hook in self._plan.hooks["offering"]:
            need, token = hook(self, event, spec, need)
            priest = priest if token is None else token
        if gems >= 2 and len(payers) < 2 and priest is None:
            raise Rejection(f"activating {gems} gems at once takes at least two players")
        if self.depot < gems:
            raise Rejection(f"the depot holds only {plural(self.depot, 'gem')}")
        plan, spends = self._charge(event, payers, need, f"to activate {plural(gems, 'gem')}")
        if gems >= 2 and self.setup.track_dice and not spends and priest is None:
            plan = self._shared(plan, payers, spec.icon, gems)
        self.depot -= gems
        chamber.gems = gems
        self._settle(plan, spends)
        for hook in self._plan.hooks["after_activate"]:
            hook(priest)
        for hook in self._plan.hooks["after_gems"]:
            hook(self, chamber, payers)

    def _unlock(self, event: Unlock) -> None:
        player = self._still_inside(self.players[event.player])
        by = event.by
        helper = player if by is None else self._still_inside(self.players[by])
        count = event.count
        self.check_allowed("golden_masks")
        limit = max((hook(self, helper) for hook in self._plan.hooks["unlock_limit"]), default=2)
        if count not in (1, 2) and not 1 <= count <= limit:
            if limit == 3:
                raise Rejection("the Doc's golden mask frees 1 to 3 black masks")
            raise Rejection("a golden mask frees 1 or 2 black masks: 'count' must be 1 or 2")
        if helper is not player and helper.cell != player.cell:
            raise Rejection(
                f"{helper.player_id} is not in {player.player_id}'s chamber: "
                "a golden mask only helps a player in the same chamber"
            )
        if player.locked < count:
            raise Rejection(
                f"{player.player_id} has {plural(player.locked, 'locked die')}, "
                f"{count} cannot be freed"
            )
        for hook in self._plan.hooks["check_unlock"]:
            hook(self, helper, count)
        plan = self._payment([helper], Counter({GOLDEN_MASK: 1}), "to break a curse")
        self._pay(plan)
        player.locked -= count

    def _escape(self, event: Escape) -> None:
        player = self._still_inside(self.players[event.player])
        chamber = self.chamber_of(player)
        if chamber is None or chamber.tile.kind != "exit":
            raise Rejection(f"{player.player_id} is not in the exit chamber")
        for hook in self._plan.hooks["check_escape"]:
            hook(self)
        for hook in self._plan.hooks["check_escaper"]:
            hook(self, player)
        plan, spends = self._charge(
            event, [player], Counter({KEY: self.keys_to_escape}), "to escape"
        )
        self._settle(plan, spends)
        player.escaped = True
        player.cell = None
        # Out of the temple, the player's dice are out of play: no curse and nothing showing.
        player.locked = 0
        player.showing = Counter()
        if all(p.escaped for p in self.players.values()):
            # Module 4 (page 15): the chalice left inside the temple loses the game.
            lost = any(hook(self) for hook in self._plan.hooks["loses_at_last_escape"])
            self.outcome = "lost" if lost else "won"

    def _give_die(self, event: GiveDie) -> None:
        giver = self.players[event.giver]
        receiver = self.players[event.receiver]
        if not giver.escaped:
            raise Rejection(
                f"{giver.player_id} has not escaped: only an escaped player gives a die"
            )
        if giver.gave_die:
            raise Rejection(f"{giver.player_id} has already given a die")
        if giver.dice < 1:
            raise Rejection(f"{giver.player_id} has no die left to give")
        if receiver.escaped:
            raise Rejection(f"{receiver.player_id} has escaped: give the die to a player inside")
        giver.dice -= 1
        giver.gave_die = True
        receiver.dice += 1

    def _turn_of_fate(self, event: TurnOfFate) -> None:
        if self.setup.difficulty == "professional":
            raise Rejection("professionals play without the turn of fate")
        if self.turns_of_fate_used >= MAX_TURNS_OF_FATE:
            raise Rejection("the turn of fate has already been provoked twice")
        if self.spare < 1:
            raise Rejection("no spare gem is left beside the depot")
        self.spare -= 1
        self.depot += 1
        self.turns_of_fate_used += 1
        for player in self.players.values():
            player.locked = 0

    @staticmethod
    def _remove_die(player: PlayerState) -> None:
        """Take one die away: one not showing anything where there is one, else a showing one
        (the face the player shows most of), else a locked one."""
        if player.dice < 1:
            return
        every_free_die_shows = player.free_dice <= sum(player.showing.values())
        if every_free_die_shows and not player.unshow_a_die() and player.locked:
            player.locked -= 1
        player.dice -= 1

    # ----- the clock ----------------------------------------------------------------------

    def _countdown_number(
        self, event: CountdownStart | CountdownEnd, allowed: tuple[int, ...]
    ) -> int:
        n = event.n
        if not allowed:
            raise Rejection("this game's one countdown ends with the collapse: no door slams")
        if n not in allowed:
            raise Rejection(f"'n' must be {' or '.join(map(str, allowed))} for {event['type']}")
        return n

    def _countdown_start(self, event: CountdownStart) -> None:
        self._countdown_number(event, self.setup.countdowns)

    def _countdown_end(self, event: CountdownEnd) -> None:
        self._countdown_number(event, self.setup.countdowns[:-1])  # the last: the collapse
        start = self.temple.start_cell()
        safe = {start}
        for hook in self._plan.hooks["safe_cells"]:
            safe |= hook(self, start)
        for player in self.players.values():
            if not player.inside or player.cell in safe or player.dice == 0:
                continue
            player.dice -= 1
            if player.locked:
                player.locked -= 1
            else:
                player.showing = Counter()
                player.rolled = False
        gone: list[Cell] = []
        for hook in self._plan.hooks["on_slam"]:
            gone.extend(hook(self, start))
        for hook in self._plan.hooks["after_slam"]:
            hook(self, gone, start)

    def _collapse(self, event: Collapse) -> None:
        self.outcome = "lost"

    def _undo(self, event: Undo) -> None:
        """Take back the last accepted event that the clock did not emit.

        The line taken back is bound to the undo when it is first judged (`line`, when given,
        must name it): re-judged after a correction, the undo takes back that same line, or
        nothing when that line is no longer in effect, never another one.
        """
        target = self._undone.get(self._line_now)
        if target is None:
            target = self.undo_target()
            if target is None:
                raise Rejection("there is nothing to undo")
            named = event.line
            if named is not None and named != target:
                raise Rejection(
                    f"line {named} is not the last action (line {target} is): undo takes "
                    "back the last one; use Fix to change an earlier one"
                )
            self._undone[self._line_now] = target
        if target not in self.accepted_lines:
            return  # a correction already took that line out of the game: nothing left to undo
        kept = [
            (line, earlier)
            for line, earlier in zip(self.accepted_lines, self.accepted, strict=True)
            if line != target
        ]
        rebuilt = Game(self.setup)
        for line, earlier in kept:
            rebuilt._judge(earlier, line)
        self._take_state(rebuilt)

    def _take_state(self, other: Game) -> None:
        """Take over another game's state, keeping this game's record lines, corrections and
        undos."""
        lines, fixes, undone, line_now = self.lines, self._fixes, self._undone, self._line_now
        self.__dict__.update(other.__dict__)
        self.lines, self._fixes, self._undone, self._line_now = lines, fixes, undone, line_now

    # ----- corrections ---------------------------------------------------------------------

    def _correct(self, event: Correct) -> None:
        """Replace (or strike out) an earlier event line, then re-judge every line after it."""
        number = event.line
        index = self._correctable(number)
        if not event.has_event:
            raise Rejection(
                "the correct event needs an 'event' field: the event as it should have been, "
                "or null to strike the line out"
            )
        replacement = self._replacement(number, event.event)
        if replacement is not None:
            written = self.lines[index].event
            if "t" not in replacement and isinstance(written, Mapping) and "t" in written:
                replacement = {**replacement, "t": written["t"]}
        rebuilt = self._replayed({**self._fixes, number: (self._line_now, replacement)})
        verdict = rebuilt.lines[index].verdict
        if replacement is not None and not verdict.ok:
            raise Rejection(f"line {number} as corrected would be rejected: {verdict.reason}")
        line_now = self._line_now
        self.__dict__.update(rebuilt.__dict__)
        self._line_now = line_now

    def _correctable(self, number: int) -> int:
        """Return the index in `lines` of event line `number`, if a correction may change it."""
        here = self._line_now
        if number == 1:
            raise Rejection("line 1 is the setup: start a new game to change it")
        if number >= here:
            raise Rejection(f"line {number} is not an earlier line: this correction is line {here}")
        index = bisect_left(self.lines, number, key=lambda judged: judged.line)
        if index == len(self.lines) or self.lines[index].line != number:
            raise Rejection(
                f"there is no event on line {number} (events are on lines 2 to {here - 1})"
            )
        written = self.lines[index].event
        kind = written.get("type") if isinstance(written, Mapping) else None
        if not isinstance(kind, str):
            return index  # a malformed line: correcting it is the way to repair it
        if kind in self.clock_events:
            raise Rejection(
                f"line {number} is the clock's {kind}: the soundtrack's events cannot be corrected"
            )
        if kind == "undo":
            raise Rejection(f"line {number} is an undo, which cannot be corrected")
        if kind == "correct":
            target = written.get("line")
            raise Rejection(
                f"line {number} is itself a correction: correct line {target} again instead"
            )
        return index

    def _replacement(self, number: int, value: Any) -> dict[str, Any] | None:
        """Check the event a correction puts on line `number` (None strikes the line out)."""
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise Rejection("'event' must be an event object, or null to strike the line out")
        kind = value.get("type")
        if not isinstance(kind, str) or kind not in self.event_types:
            known = ", ".join(
                t for t in self.event_types if t not in self.clock_events | RECORD_EDITS
            )
            raise Rejection(f"unknown event type {kind!r} for line {number} (known: {known})")
        if kind in self.clock_events or kind in RECORD_EDITS:
            raise Rejection(f"a correction cannot turn line {number} into a {kind} event")
        return without_nulls(value)

    def _replayed(self, fixes: dict[int, tuple[int, Mapping[str, Any] | None]]) -> Game:
        """Return the game rebuilt from the setup by replaying the record as `fixes` correct it."""
        rebuilt = Game(self.setup)
        rebuilt._fixes = fixes
        rebuilt._undone = dict(self._undone)
        for earlier in self.lines:
            judged = earlier._replace(undone_by=None)
            written = judged.event
            if isinstance(written, Mapping) and written.get("type") == "correct":
                rebuilt.lines.append(judged)  # judged once: its effect is in `fixes`
                continue
            fix = fixes.get(judged.line)
            if fix is None:
                verdict = rebuilt._judge(written, judged.line)
                rebuilt.lines.append(judged._replace(verdict=verdict))
                rebuilt._mark_undone(judged.line, verdict)
                continue
            by, replacement = fix
            if replacement is None:
                verdict = Verdict(False, f"struck out by line {by}")
            else:
                verdict = rebuilt._judge(replacement, judged.line)
            rebuilt.lines.append(
                judged._replace(verdict=verdict, corrected_by=by, replacement=replacement)
            )
        return rebuilt
