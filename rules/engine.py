"""The rules engine: applies game-record events to the state, with a reason for every refusal."""

from __future__ import annotations

import copy
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from rules import module_characters as characters
from rules import module_quests as quests
from rules import module_special as special
from rules import module_time as timed
from rules import module_traps as traps
from rules.catalog import TileDef
from rules.errors import Rejection
from rules.finite import TooDeepError, non_finite_path, not_finite_message, without_nulls
from rules.game_setup import SPARE_GEMS, Setup, parse_cell, parse_setup
from rules.modules import CLAIM_COST, TREASURES, curse_cards_in_play, treasures_in_play
from rules.temple import PlacedTile, Temple
from rules.vocabulary import (
    ADVENTURER,
    BLACK_MASK,
    FACES,
    GOLDEN_MASK,
    KEY,
    SIDES,
    Cell,
    opposite,
    plural,
    side_towards,
)

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

    def to_json(self, modules: tuple[str, ...] = ()) -> dict[str, Any]:
        """Return the player as `replay --json` shows them (with the modules' fields only
        when the game plays those modules)."""
        data: dict[str, Any] = {
            "cell": None if self.cell is None else list(self.cell),
            "escaped": self.escaped,
            "dice": self.dice,
            "locked": self.locked,
        }
        if "curses" in modules:
            data["curses"] = list(self.curses)
            data["curses_to_draw"] = self.curses_to_draw
        if "treasures" in modules:
            data["treasures"] = list(self.treasures)
        if "special" in modules:
            data["rear"] = self.rear
        if "characters" in modules:
            data["character"] = self.ability
            data["charged"] = self.charged
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


def describe_icons(icons: Mapping[str, int]) -> str:
    """Write a multiset of icons in words: `1 adventurer and 2 keys`."""
    parts = [plural(icons.get(face, 0), face) for face in FACES if face in icons]
    return " and ".join(parts) if parts else "nothing"


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
    MODULE_EVENT_TYPES: ClassVar[dict[str, tuple[str, ...]]] = {
        "curses": ("curse", "lift", "lose_die"),
        "treasures": ("claim", "use"),
        "illusions": (),
        "special": ("activate_linked",),
        "quests": ("sacrifice", "push_ghost", "task", "heal_tree"),
        "characters": ("ability",),
        "traps": ("climb", "summon", "platform"),
        "time": ("time_up", "lava", "torch_task"),
    }
    """Event types a module adds, known only in games that play it."""

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
        start = self.temple.start_cell()
        self.players: dict[str, PlayerState] = {
            pid: PlayerState(pid, start, setup.starting_dice) for pid in setup.players
        }
        for pid, card in setup.characters.items():
            self.players[pid].ability = card
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
        self.special = special.SpecialState() if "special" in setup.modules else None
        """Module 4's state (the chalice, the linked chambers, the Large torch), or None."""
        self.quests = quests.QuestState(setup.quests) if "quests" in setup.modules else None
        """Module 5's state (quest markers, the altar, the ghost, task tiles), or None."""
        self.traps = traps.TrapState(setup.traps) if "traps" in setup.modules else None
        """Module 7's state (who is stuck on a cliff, the moving platform), or None."""
        self.time = timed.TimeState(setup.time_chambers) if "time" in setup.modules else None
        """Module 8's state (the sand timers, time tokens, sacrifice dice), or None."""

    @classmethod
    def from_setup_line(cls, line: Any) -> Game:
        """Start a game from a setup line (raises `RecordError` when it is not valid)."""
        return cls(parse_setup(line))

    # ----- queries -------------------------------------------------------------------------

    @property
    def keys_to_escape(self) -> int:
        """Keys one player must show by himself to escape: the gems in the depot plus one (and
        module 5's obelisk gem tiles still on the depot)."""
        return self.depot + 1 + quests.extra_keys(self)

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
        return [p for p in self.players.values() if p.inside and p.cell == cell]

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
        if "treasures" in self.setup.modules:
            data.update(
                treasure_cells=[list(cell) for cell in self.treasure_cells],
                secret_passages=[[list(a), list(b)] for a, b in self.secret_passages],
                extra_gems=self.extra_gems,
            )
        if self.special is not None:
            data.update(self.special.to_json())
        if self.quests is not None:
            data.update(self.quests.to_json())
        if self.traps is not None:
            data.update(self.traps.to_json())
        if self.time is not None:
            data.update(self.time.to_json())
        return data

    @property
    def clock_events(self) -> frozenset[str]:
        """The events the dashboard's clock emits in this game: the soundtrack's, and module
        8's `time_up` when a sand timer runs out."""
        return CLOCK_EVENTS | {"time_up"} if self.time is not None else CLOCK_EVENTS

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
        memo = {
            id(self.lines): list(self.lines),
            id(self.accepted): list(self.accepted),
            id(self.accepted_lines): list(self.accepted_lines),
        }
        return copy.deepcopy(self, memo)

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

    def _judge(self, event: Any, line: int) -> Verdict:
        self._line_now = line
        clock = None if self.time is None else self.time.now
        try:
            handler, fields = self._handler_for(event)
            timed.see_clock(self, fields)
            handler(fields)
        except Rejection as rejection:
            if self.time is not None and clock is not None:
                self.time.now = clock
            return Verdict(False, rejection.reason)
        if event["type"] not in RECORD_EDITS:
            self.accepted.append(event)
            self.accepted_lines.append(line)
        return Verdict(True)

    def _handler_for(
        self, written: Any
    ) -> tuple[Callable[[Mapping[str, Any]], None], Mapping[str, Any]]:
        """Return the handler of an event and the fields it reads: every `null` field is left
        out (read as absent), except a correction's `event`, where null strikes the line out."""
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
        return getattr(self, f"_{kind}"), event

    # ----- field readers (raise Rejection on malformed input) -----------------------------

    def _player(self, event: Mapping[str, Any], name: str = "player") -> PlayerState:
        if name not in event:
            raise Rejection(f"the {event['type']} event needs a '{name}' field")
        return self._lookup(event[name])

    def _lookup(self, pid: Any) -> PlayerState:
        if not isinstance(pid, str) or pid not in self.players:
            raise Rejection(f"unknown player {pid!r} (players: {', '.join(self.players)})")
        return self.players[pid]

    @staticmethod
    def _still_inside(player: PlayerState) -> PlayerState:
        if player.escaped:
            raise Rejection(f"{player.player_id} has already escaped")
        return player

    def _active_player(self, event: Mapping[str, Any], name: str = "player") -> PlayerState:
        return self._still_inside(self._player(event, name))

    @staticmethod
    def _cell(event: Mapping[str, Any], name: str = "cell") -> Cell:
        if name not in event:
            raise Rejection(f"the {event['type']} event needs a '{name}' field")
        try:
            return parse_cell(event[name], f"'{name}'")
        except ValueError as error:
            raise Rejection(str(error)) from None

    @staticmethod
    def _whole(event: Mapping[str, Any], name: str, default: int | None = None) -> int:
        value = event.get(name, default)
        if value is None:
            raise Rejection(f"the {event['type']} event needs a '{name}' field")
        if not isinstance(value, int) or isinstance(value, bool):
            raise Rejection(f"'{name}' must be a whole number, not {value!r}")
        return value

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
        worth = characters.any_payment_ability(self, payers)
        views = [characters.payment_view(self, p, need) if worth else p.showing for p in payers]
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
                plan.append((payer, characters.real_dice(self, payer, used) if worth else used))
                remaining.subtract(used)
        return plan

    def _charge(
        self,
        event: Mapping[str, Any],
        payers: list[PlayerState],
        need: Counter[str],
        purpose: str,
    ) -> tuple[list[tuple[PlayerState, Counter[str]]], list[tuple[PlayerState, str]]]:
        """Work out a payment in dice and in treasures (module 2: `treasures` lists double keys
        and double torches the payers spend with the action, each serving as two icons)."""
        spends = self._treasure_spends(event, payers, need)
        bonus: Counter[str] = Counter()
        for _, treasure_id in spends:
            bonus.update(TREASURES[treasure_id].icons)
        return self._payment(payers, +(need - bonus), purpose), spends

    def _treasure_spends(
        self, event: Mapping[str, Any], payers: list[PlayerState], need: Counter[str]
    ) -> list[tuple[PlayerState, str]]:
        listed = event.get("treasures", [])
        if not listed:
            return []
        self._module("treasures", event)
        if not isinstance(listed, list) or any(not isinstance(t, str) for t in listed):
            raise Rejection("'treasures' must list treasure ids, e.g. [\"double_key\"]")
        spends: list[tuple[PlayerState, str]] = []
        held = {p.player_id: Counter(p.treasures) for p in payers}
        for treasure_id in listed:
            tile = TREASURES.get(treasure_id)
            if tile is None or not tile.icons:
                raise Rejection(
                    f"{treasure_id!r} is not a treasure that serves as icons "
                    "(double_key, double_torch)"
                )
            owner = next((p for p in payers if held[p.player_id][treasure_id] > 0), None)
            if owner is None:
                names = " and ".join(p.player_id for p in payers)
                raise Rejection(f"{names} {'holds' if len(payers) == 1 else 'hold'} no {tile.name}")
            if not any(icon in need for icon in tile.icons):
                raise Rejection(f"the {tile.name} serves as {tile.icons[0]}s: none are needed here")
            held[owner.player_id][treasure_id] -= 1
            spends.append((owner, treasure_id))
        return spends

    def _settle(
        self,
        plan: list[tuple[PlayerState, Counter[str]]],
        spends: list[tuple[PlayerState, str]],
    ) -> None:
        """Pay what `_charge` worked out: the dice used and the treasures spent."""
        self._pay(plan)
        for owner, treasure_id in spends:
            owner.treasures.remove(treasure_id)

    def _module(self, module: str, event: Mapping[str, Any]) -> None:
        if module not in self.setup.modules:
            raise Rejection(
                f"the {module} module is not in play: this game's setup names "
                f"{', '.join(self.setup.modules) or 'no module'}"
            )

    def _not_trapped(self, player: PlayerState, doing: str) -> None:
        if "trap" in player.curses:
            raise Rejection(
                f"{player.player_id} is cursed (Trap): he may not {doing} until the curse is lifted"
            )

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

    def _dice(self, event: Mapping[str, Any]) -> None:
        player = self._active_player(event)
        faces = event.get("faces")
        if not isinstance(faces, list) or any(face not in FACES for face in faces):
            raise Rejection(f"'faces' must be a list of die faces from {', '.join(FACES)}")
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
        player.locked = black
        player.showing = Counter(face for face in faces if face != BLACK_MASK)
        player.rolled = True

    def _discover(self, event: Mapping[str, Any]) -> None:
        player = self._active_player(event)
        self._not_trapped(player, "discover a chamber")
        cell = self._cell(event)
        tile_id = event.get("tile")
        if not isinstance(tile_id, str) or tile_id not in self.catalog:
            raise Rejection(f"unknown tile {tile_id!r}: it is not in the tile catalog")
        tile = self.catalog[tile_id]
        if self.temple.is_placed(tile_id):
            raise Rejection(f"{tile.name} ({tile_id}) is already in the temple")
        if tile.kind == "start":
            raise Rejection("the starting chamber is never discovered: it is placed at set-up")
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
        special.check_leave(self, player, here, cell, "discover a chamber")
        traps.check_leave(self, player, cell, "discover a chamber")
        stairs = event.get("stairs", opposite(door))
        if stairs not in SIDES:
            raise Rejection("'stairs' must be one of N, E, S, W")
        if stairs != opposite(door):
            raise Rejection(
                f"the stairway must face {player.player_id}'s chamber: stairs {opposite(door)}, "
                f"not {stairs}"
            )
        plan, spends = self._charge(
            event, [player], Counter(DIE_ICONS_TO_DISCOVER), "to discover a chamber"
        )
        self.temple.place(tile, cell, stairs)
        self._settle(plan, spends)
        special.on_discover(self, tile, cell)
        quests.on_discover(self, tile, cell)
        timed.on_discover(self, tile, cell)
        traps.on_discover(self, player, tile, cell)
        if tile.curse and "curses" in self.setup.modules:
            player.curses_to_draw += 1
        if tile.treasure and "treasures" in self.setup.modules:
            self.treasure_cells.append(cell)

    def _enter(self, event: Mapping[str, Any]) -> None:
        player = self._active_player(event)
        self._not_trapped(player, "enter a chamber")
        cell = self._cell(event)
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
        if not through and not characters.wall_entry(self, player, event, target):
            raise Rejection(
                f"a wall blocks the way from {list(here)} to {target.tile.name} at {list(cell)}"
            )
        special.check_leave(self, player, here, cell, "leave")
        timed.check(self, "movement")
        if target.tile.kind == "start":
            timed.check(self, "start")
        traps.check_leave(self, player, cell, "leave his chamber")
        quests.check_enter(self, target.tile)
        need = characters.enter_need(self, player, event, Counter(target.tile.enter), through)
        need = special.entry_need(self, player, need, event)
        plan, spends = self._charge(event, [player], need, f"to enter {target.tile.name}")
        player.cell = cell
        self._settle(plan, spends)
        special.after_enter(self, player, here, event)
        timed.on_enter(self, player, cell)
        characters.after_enter(self, player, event, through)

    def _activate(self, event: Mapping[str, Any]) -> None:
        cell = self._cell(event)
        gems = self._whole(event, "gems")
        ids = event.get("players")
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
        special.check_activate(self, chamber, payers)
        timed.check(self, "gems")
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
        need, priest = characters.offering(self, event, spec, Counter({spec.icon: spec.cost(gems)}))
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
        characters.after_offering(priest)

    def _unlock(self, event: Mapping[str, Any]) -> None:
        player = self._active_player(event)
        helper = self._active_player(event, "by") if "by" in event else player
        count = self._whole(event, "count")
        timed.check(self, "golden_masks")
        limit = characters.unlock_limit(self, helper)
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
        if count > 1 and "mask" in helper.curses:
            raise Rejection(
                f"{helper.player_id} is cursed (Mask): his golden mask frees only 1 black mask"
            )
        plan = self._payment([helper], Counter({GOLDEN_MASK: 1}), "to break a curse")
        self._pay(plan)
        player.locked -= count

    def _escape(self, event: Mapping[str, Any]) -> None:
        player = self._active_player(event)
        chamber = self.chamber_of(player)
        if chamber is None or chamber.tile.kind != "exit":
            raise Rejection(f"{player.player_id} is not in the exit chamber")
        quests.check_escape(self)
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
            self.outcome = "lost" if special.chalice_lost(self) else "won"

    def _give_die(self, event: Mapping[str, Any]) -> None:
        giver = self._player(event, "from")
        receiver = self._player(event, "to")
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

    def _turn_of_fate(self, event: Mapping[str, Any]) -> None:
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

    # ----- module 1: curses ---------------------------------------------------------------------

    def _curse(self, event: Mapping[str, Any]) -> None:
        """A curse card drawn for a purple mask the player discovered (page 10)."""
        self._module("curses", event)
        player = self._active_player(event)
        card = self._curse_card(event)
        if player.curses_to_draw < 1:
            raise Rejection(
                f"{player.player_id} has no curse card to draw: a card is drawn by the player "
                "who discovers a chamber with a purple mask"
            )
        player.curses_to_draw -= 1
        if card.card_id in player.curses:
            return  # a second copy of a curse in front of him: discarded without effect
        player.curses.append(card.card_id)
        if card.card_id == "broken_die":
            self._remove_die(player)

    def _lift(self, event: Mapping[str, Any]) -> None:
        """The cursed player rolls the card's icons by himself and lifts the curse (page 10)."""
        self._module("curses", event)
        player = self._active_player(event)
        card = self._curse_card(event)
        if card.card_id not in player.curses:
            raise Rejection(f"{player.player_id} is not cursed with {card.name}")
        plan, spends = self._charge(
            event, [player], card.lift_need, f"to lift the curse {card.name} (by himself)"
        )
        self._settle(plan, spends)
        player.curses.remove(card.card_id)
        if card.card_id == "broken_die":
            player.dice += 1  # the die on the card comes back, to be rolled

    def _lose_die(self, event: Mapping[str, Any]) -> None:
        """A die of a player cursed with Lost dice fell off the table: it is lost for good."""
        self._module("curses", event)
        player = self._active_player(event)
        if "lost_dice" not in player.curses:
            raise Rejection(
                f"{player.player_id} is not cursed with Lost dice: a die that falls off the "
                "table is simply picked up"
            )
        if player.dice < 1:
            raise Rejection(f"{player.player_id} has no die left to lose")
        self._remove_die(player)

    def _curse_card(self, event: Mapping[str, Any]) -> Any:
        card_id = event.get("card")
        if card_id is None:
            raise Rejection(f"the {event['type']} event needs a 'card' field")
        cards = curse_cards_in_play(self.setup.modules)
        if card_id not in cards:
            raise Rejection(f"unknown curse card {card_id!r} (cards: {', '.join(cards)})")
        return cards[card_id]

    @staticmethod
    def _remove_die(player: PlayerState) -> None:
        """Take one die away: one not showing anything where there is one, else a showing one
        (the face the player shows most of), else a locked one."""
        if player.dice < 1:
            return
        showing = sum(player.showing.values())
        if player.free_dice - showing <= 0:
            if showing:
                face = max(player.showing, key=lambda f: (player.showing[f], f))
                player.showing[face] -= 1
                player.showing = +player.showing
            elif player.locked:
                player.locked -= 1
        player.dice -= 1

    # ----- module 2: treasures ------------------------------------------------------------------

    def _claim(self, event: Mapping[str, Any]) -> None:
        """An adventurer in the chamber rolls two keys and takes its treasure tile (page 10)."""
        self._module("treasures", event)
        player = self._active_player(event)
        treasure = self._treasure_id(event)
        cell = player.cell
        assert cell is not None
        if cell not in self.treasure_cells:
            chamber = self.temple.at(cell)
            name = chamber.tile.name if chamber else "his chamber"
            raise Rejection(f"there is no treasure tile in {name}, where {player.player_id} is")
        plan, spends = self._charge(event, [player], Counter(CLAIM_COST), "to claim a treasure")
        self._settle(plan, spends)
        self.treasure_cells.remove(cell)
        player.treasures.append(treasure)

    def _use(self, event: Mapping[str, Any]) -> None:
        """A treasure used on its own (healing mask, secret passage, teleport, extra gem)."""
        self._module("treasures", event)
        player = self._active_player(event)
        treasure = self._treasure_id(event)
        tile = TREASURES[treasure]
        if treasure not in player.treasures:
            raise Rejection(f"{player.player_id} holds no {tile.name}")
        if tile.icons:
            raise Rejection(
                f"the {tile.name} is spent with an action: list it in that action's 'treasures'"
            )
        if treasure == "healing_mask":
            for other in self.players.values():
                other.locked = 0
        elif treasure == "secret_passage":
            self._secret_passage(event)
        elif treasure == "teleport":
            self._teleport(player, event)
        elif treasure == "extra_gem":
            if self.depot < 1:
                raise Rejection("the depot holds no gem for the Extra gem")
            self.depot -= 1
            self.extra_gems += 1
        elif treasure == "large_torch":
            special.lay_large_torch(self, player)
        player.treasures.remove(treasure)

    def _secret_passage(self, event: Mapping[str, Any]) -> None:
        cells = event.get("cells")
        if not isinstance(cells, list) or len(cells) != 2:
            raise Rejection("the Secret passage needs 'cells': the two chambers it joins")
        try:
            a, b = (parse_cell(c, "'cells'") for c in cells)
        except ValueError as error:
            raise Rejection(str(error)) from None
        if self.temple.at(a) is None or self.temple.at(b) is None:
            raise Rejection("the Secret passage joins two chambers of the temple")
        if side_towards(a, b) is None:
            raise Rejection("the Secret passage joins two adjacent chambers")
        if self.connected(a, b):
            raise Rejection("those chambers already have an open passage between them")
        self.secret_passages.append((a, b))

    def _teleport(self, player: PlayerState, event: Mapping[str, Any]) -> None:
        cell = self._cell(event)
        if cell == player.cell:
            raise Rejection(f"{player.player_id} is already there")
        if not any(p is not player for p in self.players_in(cell)):
            raise Rejection("the Teleport moves you only to a chamber holding another adventurer")
        self._not_trapped(player, "enter a chamber")
        traps.check_leave(self, player, None, "teleport")
        timed.check(self, "movement")
        player.cell = cell
        # In a double chamber he lands in the half of the first adventurer there (module 4).
        player.rear = next(p.rear for p in self.players_in(cell) if p is not player)

    def _treasure_id(self, event: Mapping[str, Any]) -> str:
        treasure = event.get("treasure")
        if treasure is None:
            raise Rejection(f"the {event['type']} event needs a 'treasure' field")
        tiles = treasures_in_play(self.setup.modules)
        if treasure not in tiles:
            raise Rejection(f"unknown treasure {treasure!r} (treasures: {', '.join(tiles)})")
        return str(treasure)

    # ----- module 4: special chambers (the logic is in rules/module_special.py) ----------------

    def _activate_linked(self, event: Mapping[str, Any]) -> None:
        """One gem in each of 2 or 3 linked chambers, activated together, once (page 14)."""
        self._module("special", event)
        special.activate_linked(self, event)

    # ----- module 5: quest chambers (the logic is in rules/module_quests.py) -------------------

    def _sacrifice(self, event: Mapping[str, Any]) -> None:
        """1 or 2 dice placed on the altar (page 17)."""
        self._module("quests", event)
        quests.sacrifice(self, event)

    def _push_ghost(self, event: Mapping[str, Any]) -> None:
        """The ghost pushed into the next chamber with 2 torches (page 18)."""
        self._module("quests", event)
        quests.push_ghost(self, event)

    def _task(self, event: Mapping[str, Any]) -> None:
        """A task tile's icons rolled in the task chamber (page 18)."""
        self._module("quests", event)
        quests.task(self, event)

    def _heal_tree(self, event: Mapping[str, Any]) -> None:
        """The tree of life healed with golden masks (page 19)."""
        self._module("quests", event)
        quests.heal_tree(self, event)

    # ----- module 6: characters (the logic is in rules/module_characters.py) -------------------

    def _ability(self, event: Mapping[str, Any]) -> None:
        """A character card used on its own (page 21)."""
        self._module("characters", event)
        characters.use_ability(self, event)

    # ----- module 7: trap chambers (the logic is in rules/module_traps.py) ---------------------

    def _climb(self, event: Mapping[str, Any]) -> None:
        """Off the cliff with its 3 icons, rolled alone (page 23)."""
        self._module("traps", event)
        traps.climb(self, event)

    def _summon(self, event: Mapping[str, Any]) -> None:
        """3 keys in the invocation chamber summon every adventurer (page 23)."""
        self._module("traps", event)
        traps.summon(self, event)

    def _platform(self, event: Mapping[str, Any]) -> None:
        """The moving platform moved round the temple to where its stairway meets a door."""
        self._module("traps", event)
        traps.move_platform(self, event)

    # ----- module 8: time chambers (the logic is in rules/module_time.py) ----------------------

    def _time_up(self, event: Mapping[str, Any]) -> None:
        """A sand timer ran out (page 24); the dashboard's clock emits it."""
        self._module("time", event)
        timed.time_up(self, event)

    def _lava(self, event: Mapping[str, Any]) -> None:
        """7 torches rolled together in a lava chamber in time (page 25)."""
        self._module("time", event)
        timed.cool_lava(self, event)

    def _torch_task(self, event: Mapping[str, Any]) -> None:
        """The torch chamber's next task mastered in time (page 25)."""
        self._module("time", event)
        timed.torch_task(self, event)

    def _countdown_number(self, event: Mapping[str, Any], allowed: tuple[int, ...]) -> int:
        n = self._whole(event, "n")
        if n not in allowed:
            raise Rejection(f"'n' must be {' or '.join(map(str, allowed))} for {event['type']}")
        return n

    def _countdown_start(self, event: Mapping[str, Any]) -> None:
        self._countdown_number(event, (1, 2, 3))

    def _countdown_end(self, event: Mapping[str, Any]) -> None:
        self._countdown_number(event, (1, 2))
        start = self.temple.start_cell()
        safe = special.safe_cells(self, start)
        for player in self.players.values():
            if not player.inside or player.cell in safe or player.dice == 0:
                continue
            player.dice -= 1
            if player.locked:
                player.locked -= 1
            else:
                player.showing = Counter()
                player.rolled = False
        characters.recharge(self)
        gone = self._illusions_vanish(start) if "illusions" in self.setup.modules else []
        special.after_slam(self, gone, start)
        if self.quests is not None and self.quests.ghost in gone:
            self.quests.ghost = start  # the ghost on a vanished illusion chamber: back to start

    def _illusions_vanish(self, start: Cell) -> list[Cell]:
        """Module 3 (page 13): after the door slams, every illusion chamber leaves the temple
        for the bottom of the pile, its activated gems to the box (they still count: the depot
        keeps its count), anyone on it back to the starting chamber. The die such a player
        loses is the one the door slam took: he did not make it to safety in time."""
        gone = [placed.cell for placed in self.temple if placed.tile.illusion]
        for cell in gone:
            self.temple.remove(cell)
            for player in self.players.values():
                if player.inside and player.cell == cell:
                    player.cell, player.rear = start, False
        self.secret_passages = [
            (a, b) for a, b in self.secret_passages if a not in gone and b not in gone
        ]
        self.treasure_cells = [cell for cell in self.treasure_cells if cell not in gone]
        return gone

    def _collapse(self, event: Mapping[str, Any]) -> None:
        self.outcome = "lost"

    def _undo(self, event: Mapping[str, Any]) -> None:
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
            if "line" in event:
                named = self._whole(event, "line")
                if named != target:
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

    def _correct(self, event: Mapping[str, Any]) -> None:
        """Replace (or strike out) an earlier event line, then re-judge every line after it."""
        number = self._whole(event, "line")
        index = self._correctable(number)
        if "event" not in event:
            raise Rejection(
                "the correct event needs an 'event' field: the event as it should have been, "
                "or null to strike the line out"
            )
        replacement = self._replacement(number, event["event"])
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
