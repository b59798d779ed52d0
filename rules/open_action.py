"""An action open to a player, priced in dice with the odds of rolling what is missing; the
engine, the open actions and the modules' open-action hooks share it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, fields
from functools import lru_cache, partial
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

from rules.module_protocol import GameView
from rules.odds import roll_odds
from rules.vocabulary import FACES, Cell, plural

if TYPE_CHECKING:
    from rules.engine import PlayerState


def describe_icons(icons: Mapping[str, int]) -> str:
    """Write a multiset of icons in words: `1 adventurer and 2 keys`."""
    parts = [plural(icons.get(face, 0), face) for face in FACES if face in icons]
    return " and ".join(parts) if parts else "nothing"


@lru_cache(maxsize=256)
def icons_needed(icons: tuple[str, ...]) -> Mapping[str, int]:
    """A cost printed as icons (`("torch", "torch")`) as a read-only multiset, built once."""
    return MappingProxyType(Counter(icons))


# Not frozen: a frozen dataclass's __init__ costs twice as much, and a listing builds hundreds
# (rules/benchmark.py); nothing changes an open action once it is built. Its __init__ is written
# out: the generated one calls `dict` for each empty dict, a sixth of an action's cost.
@dataclass(init=False, slots=True)
class OpenAction:
    """One action a player could take: the event that would do it, and what is still missing."""

    action: str
    label: str
    event: dict[str, Any]
    missing: dict[str, int] = field(default_factory=dict)
    blocked: str | None = None
    """A reason the dice cannot fix (an empty depot, no tiles left, a partner needed)."""
    chance_next_roll: float | None = None
    """Chance that the next roll of the dice not kept completes what is missing."""
    expected_rolls: float | None = None
    """Expected rolls to complete it, keeping matching dice (None: more dice than they have)."""
    need: dict[str, int] = field(default_factory=dict)
    """The icons it costs (what a double key or torch can stand in for)."""
    choices: list[dict[str, Any]] | None = None
    """Where an action needs a choice (a character's run, turn or move): each a `name` and
    the `event` that does it."""

    def __init__(
        self,
        action: str,
        label: str,
        event: dict[str, Any],
        missing: dict[str, int] | None = None,
        blocked: str | None = None,
        chance_next_roll: float | None = None,
        expected_rolls: float | None = None,
        need: dict[str, int] | None = None,
        choices: list[dict[str, Any]] | None = None,
    ) -> None:
        """An open action; `missing` and `need` are empty when not given."""
        self.action = action
        self.label = label
        self.event = event
        self.missing = {} if missing is None else missing
        self.blocked = blocked
        self.chance_next_roll = chance_next_roll
        self.expected_rolls = expected_rolls
        self.need = {} if need is None else need
        self.choices = choices

    @property
    def possible(self) -> bool:
        """Tell whether the action can be taken right now."""
        return self.blocked is None and not self.missing

    def to_json(self) -> dict[str, Any]:
        """Return the open action as the dashboard reads it."""
        return {
            "action": self.action,
            "label": self.label,
            "event": self.event,
            "possible": self.possible,
            "missing": self.missing,
            "missing_text": describe_icons(self.missing) if self.missing else None,
            "blocked": self.blocked,
            "chance_next_roll": self.chance_next_roll,
            "expected_rolls": self.expected_rolls,
            "need": self.need,
            **({"choices": self.choices} if self.choices is not None else {}),
        }


_NAMES = tuple(f.name for f in fields(OpenAction))
_FIELDS = frozenset(_NAMES)


def changed(action: OpenAction, **changes: Any) -> OpenAction:
    """`dataclasses.replace` for an open action, without its walk of the fields (a listing
    copies many): a new action with the same values, but `changes`."""
    if not _FIELDS.issuperset(changes):
        raise TypeError(f"an open action has no field {sorted(set(changes) - _FIELDS)[0]!r}")
    copy = object.__new__(OpenAction)
    for name in _NAMES:
        setattr(copy, name, changes[name] if name in changes else getattr(action, name))
    return copy


def priced(
    game: GameView,
    payers: Iterable[PlayerState],
    need: Mapping[str, int],
    action: str,
    label: str,
    event: dict[str, Any],
    blocked: str | None = None,
) -> OpenAction:
    """Build an open action whose cost is `need`, paid by `payers` together."""
    if type(payers) is not list:
        payers = list(payers)
    if len(payers) == 1:
        listing = _LISTING.get()
        if listing is not None:
            return _payer_pricer(listing, game, payers[0])(need, action, label, event, blocked)
    return _priced(game, payers, need, action, label, event, blocked)


def _priced(
    game: GameView,
    payers: list[PlayerState],
    need: Mapping[str, int],
    action: str,
    label: str,
    event: dict[str, Any],
    blocked: str | None = None,
) -> OpenAction:
    """`priced`, the payers' dice read for this need alone."""
    if not game.setup.track_dice:
        return _unpriced(need, action, label, event, blocked)
    showing = _showing(game, payers, need)
    free = payers[0].free_dice if len(payers) == 1 else sum([p.free_dice for p in payers])
    return _priced_with(_quotes(showing, free), showing, free, need, action, label, event, blocked)


Price = Callable[..., OpenAction]
"""`priced` for given payers: called with the need, action, label, event (and blocked)."""


def pricer(game: GameView, payers: Iterable[PlayerState]) -> Price:
    """`priced` for many actions paid by the same payers: what their dice show is read once
    (each need apart only where a module changes what their dice are worth)."""
    payers = list(payers)
    if len(payers) == 1:
        listing = _LISTING.get()
        if listing is not None:
            return _payer_pricer(listing, game, payers[0])
    return _new_pricer(game, payers)


def _new_pricer(game: GameView, payers: list[PlayerState]) -> Price:
    if not game.setup.track_dice:
        return _unpriced
    for hook in game.module_hooks("pays_differently"):
        if hook(game, payers):
            return partial(_priced, game, payers)
    showing: Mapping[str, int]
    if len(payers) == 1:
        showing = payers[0].showing
        free = payers[0].free_dice
    else:
        showing = _together(payers)
        free = sum([p.free_dice for p in payers])
    return partial(_priced_with, _quotes(showing, free), showing, free)


_LISTING: ContextVar[dict[Any, Any] | None] = ContextVar("open_actions_listing", default=None)
"""What the open actions listed together share (`one_listing`), None outside a listing."""


@contextmanager
def one_listing() -> Iterator[None]:
    """List open actions together: until the block ends, each player's pricer (`priced`,
    `pricer` for one payer) and what `once_a_listing` keeps are worked out once, for the game
    does not change while its actions are listed (a listing inside one is part of it)."""
    if _LISTING.get() is not None:
        yield
        return
    token = _LISTING.set({})
    try:
        yield
    finally:
        _LISTING.reset(token)


def _payer_pricer(listing: dict[Any, Any], game: GameView, payer: PlayerState) -> Price:
    """The pricer of one payer, built once a listing."""
    key = (id(game), id(payer))  # both live as long as the listing: their ids are theirs
    price = listing.get(key)
    if price is None:
        price = listing[key] = _new_pricer(game, [payer])
    return price


T = TypeVar("T")


def once_a_listing(key: tuple[Any, ...], work: Callable[[], T]) -> T:
    """`work()`, done once a listing for this `key` (which names the game by its id); done
    each time outside a listing."""
    listing = _LISTING.get()
    if listing is None:
        return work()
    if key in listing:
        return listing[key]  # type: ignore[no-any-return]
    done = listing[key] = work()
    return done


def _unpriced(
    need: Mapping[str, int],
    action: str,
    label: str,
    event: dict[str, Any],
    blocked: str | None = None,
) -> OpenAction:
    """The open action costing `need` where the dice are not followed (no odds)."""
    return OpenAction(
        action, label, event, blocked=blocked, need={i: n for i, n in need.items() if n > 0}
    )


Quote = tuple[dict[str, int], float, float | None, dict[str, int], object]
"""A need priced for some dice: what is missing, the odds (chance next roll, expected rolls),
the cost, and the need itself where the quote is filed under its identity."""

_QUOTES: dict[tuple[Any, ...], dict[object, Quote]] = {}
"""Needs already priced, by the dice (the free dice and what they show), then by the need: a
pure function of those, so an entry never goes stale; a table is emptied whole when full."""
_DICE_MOST = 512
_NEEDS_MOST = 256


def forget_prices() -> None:
    """Forget every need already priced (the benchmark's figure with cold caches)."""
    _QUOTES.clear()


def _quotes(showing: Mapping[str, int], free: int) -> dict[object, Quote]:
    """The needs already priced for dice showing `showing` with `free` dice not locked."""
    dice = (free, *showing.items())
    quotes = _QUOTES.get(dice)
    if quotes is None:
        if len(_QUOTES) >= _DICE_MOST:
            _QUOTES.clear()
        quotes = _QUOTES[dice] = {}
    return quotes


def _priced_with(
    quotes: dict[object, Quote],
    showing: Mapping[str, int],
    free: int,
    need: Mapping[str, int],
    action: str,
    label: str,
    event: dict[str, Any],
    blocked: str | None = None,
) -> OpenAction:
    """The open action costing `need`, for payers whose dice show `showing` (in what they are
    worth towards it) with `free` dice not locked; `quotes` holds the needs priced for them."""
    # A read-only need (`icons_needed`, a curse's lift, built once) is filed under its identity,
    # which its entry keeps alive, hence unique; any other under its icons.
    key = id(need) if type(need) is MappingProxyType else tuple(need.items())
    quote = quotes.get(key)
    if quote is None:
        if len(quotes) >= _NEEDS_MOST:
            quotes.clear()
        quote = quotes[key] = _quote(showing, free, need)
    # Copies: every action owns its dicts, as when each was built afresh.
    return OpenAction(
        action, label, event, quote[0].copy(), blocked, quote[1], quote[2], quote[3].copy()
    )


def _quote(showing: Mapping[str, int], free: int, need: Mapping[str, int]) -> Quote:
    """Price `need` for dice showing `showing` with `free` dice not locked."""
    cost: dict[str, int] = {}
    missing: dict[str, int] = {}
    kept = 0  # the dice showing what is needed, kept for the next roll
    for icon, n in need.items():
        if n > 0:
            cost[icon] = n
        have = showing.get(icon, 0)
        if have < n:
            missing[icon] = n - have
            kept += have
        else:
            kept += n
    pin = need if type(need) is MappingProxyType else None
    if not missing:
        return missing, 1.0, 0.0, cost, pin
    # `missing` counts are all positive: sorted, it is already `as_need(missing)`.
    need_key = tuple(missing.items()) if len(missing) == 1 else tuple(sorted(missing.items()))
    chance, rolls = roll_odds(free - kept if free > kept else 0, need_key)
    return missing, chance, rolls, cost, pin


def _showing(
    game: GameView, payers: list[PlayerState], need: Mapping[str, int]
) -> Mapping[str, int]:
    """What the payers' dice show together, in what they are worth towards `need`."""
    for hook in game.module_hooks("pays_differently"):
        if hook(game, payers):
            worth = hook.__self__
            showing: Counter[str] = Counter()
            for payer in payers:
                showing.update(worth.payment_view(game, payer, need))
            return showing
    return _together(payers)


def _together(payers: list[PlayerState]) -> Mapping[str, int]:
    if len(payers) == 1:
        return payers[0].showing
    showing: Counter[str] = Counter()
    for payer in payers:
        showing.update(payer.showing)
    return showing


def unjoined_neighbours(game: GameView) -> Iterator[tuple[Cell, Cell]]:
    """Every pair of adjacent chambers with no open passage between them, each pair once, in
    temple order (where module 2's Secret passage may be laid)."""
    at = game.temple.at
    for placed in game.temple:
        a = x, y = placed.cell
        for b in ((x, y + 1), (x + 1, y)):  # north, then east
            if at(b) is not None and not game.connected(a, b):
                yield a, b
