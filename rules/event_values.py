"""Events as typed values: one frozen class per event type, its fields read once at the edge.

An event arrives as JSON (a record line, a click on the dashboard, the camera). Where it enters
the engine, `EventValue.parse` runs every field's reader once: the JSON value becomes the
Python value the rules use (a cell as a tuple, a whole number, a player id of this game), or
the reason it is malformed. A handler then reads attributes (`event.cell`), never the JSON.

The reasons for malformed fields are written where the parsing is, in the readers below, but
a field's reason is raised only when a handler first reads that field. An event with several
faults is therefore refused for the one the rules check first, as every record saved before
was judged: the same verdicts, word for word.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar, overload

from rules.errors import Rejection
from rules.vocabulary import FACES, Cell, parse_cell

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ReadContext:
    """What a reader may know besides the field: the game's fixed facts, set at set-up."""

    players: tuple[str, ...]
    """The game's player ids, in seat order."""
    tiles: frozenset[str] = frozenset()
    """Every tile id of the game's catalog."""


@dataclass(frozen=True, slots=True)
class FieldRead:
    """One field as a reader sees it: the event type, the field's name and value."""

    kind: str
    """The event's type (for reasons: "the enter event needs a 'cell' field")."""
    name: str
    """The field's name in the record."""
    present: bool
    """Whether the record holds the field (a null field is a field left out)."""
    value: Any
    """The JSON value (None when absent)."""
    context: ReadContext

    def missing(self) -> Rejection:
        """The rejection for a required field that is absent."""
        return Rejection(f"the {self.kind} event needs a '{self.name}' field")


@dataclass(frozen=True, slots=True)
class _Fault:
    """A field's value that could not be read: raised when a handler reads the field."""

    reason: str


Reader = Callable[[FieldRead], T]


class Field(Generic[T]):
    """A field of an event class: its reader, and the record's name for it (default: the
    attribute's name; `from` is a Python keyword, so `give_die` names it with `key`)."""

    def __init__(self, read: Reader[T], key: str | None = None) -> None:
        self.read = read
        self.key = key or ""
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.key = self.key or name

    @overload
    def __get__(self, event: None, owner: type) -> Field[T]: ...

    @overload
    def __get__(self, event: EventValue, owner: type) -> T: ...

    def __get__(self, event: EventValue | None, owner: type) -> Field[T] | T:
        if event is None:
            return self
        value = event._values[self.name]
        if isinstance(value, _Fault):
            raise Rejection(value.reason)
        return value  # type: ignore[no-any-return]


class EventValue(Mapping[str, Any]):
    """A parsed event: a frozen value with one attribute per field of its type.

    It is also a read-only mapping of the record's fields as written (nulls left out), for the
    code that reads any event alike: the record, the log's words, hooks that look at a field
    every paying event may carry.
    """

    type_name: ClassVar[str] = ""
    """The event's `type` in the record."""
    fields: ClassVar[tuple[Field[Any], ...]] = ()
    """The class's fields, base classes' first (filled in by `__init_subclass__`)."""

    __slots__ = ("_raw", "_values")
    _raw: Mapping[str, Any]
    _values: Mapping[str, Any]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        found: dict[str, Field[Any]] = {}
        for klass in reversed(cls.__mro__):
            for name, value in vars(klass).items():
                if isinstance(value, Field):
                    found[name] = value
        cls.fields = tuple(found.values())

    def __init__(self, raw: Mapping[str, Any], values: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_raw", raw)
        object.__setattr__(self, "_values", values)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: events are values")

    @classmethod
    def parse(cls, raw: Mapping[str, Any], context: ReadContext) -> EventValue:
        """Read every field of `raw` (the record's fields, nulls left out) once."""
        kind = str(raw.get("type", cls.type_name))
        values: dict[str, Any] = {}
        for spec in cls.fields:
            seen = FieldRead(kind, spec.key, spec.key in raw, raw.get(spec.key), context)
            try:
                values[spec.name] = spec.read(seen)
            except Rejection as rejection:
                values[spec.name] = _Fault(rejection.reason)
        return cls(raw, values)

    @property
    def type(self) -> str:
        """The event's type."""
        return str(self._raw["type"])

    @property
    def raw(self) -> Mapping[str, Any]:
        """The record's fields as written (nulls left out)."""
        return self._raw

    def __getitem__(self, key: str) -> Any:
        return self._raw[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict(self._raw)!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventValue):
            return type(self) is type(other) and self._raw == other._raw
        return NotImplemented

    def __hash__(self) -> int:
        return hash((type(self), tuple(sorted(map(str, self._raw)))))


# ----- readers: each returns the value or raises Rejection with the reason -------------------


def any_value(seen: FieldRead) -> Any:
    """The value as written (None when absent): for fields the handler judges itself."""
    return seen.value


def player(seen: FieldRead) -> str:
    """A required player id of this game."""
    if not seen.present:
        raise seen.missing()
    return _known_player(seen.value, seen.context)


def optional_player(seen: FieldRead) -> str | None:
    """A player id of this game, or None when the field is absent."""
    return _known_player(seen.value, seen.context) if seen.present else None


def _known_player(value: Any, context: ReadContext) -> str:
    if not isinstance(value, str) or value not in context.players:
        raise Rejection(f"unknown player {value!r} (players: {', '.join(context.players)})")
    return value


def cell(seen: FieldRead) -> Cell:
    """A required cell `[x, y]` of two whole numbers."""
    if not seen.present:
        raise seen.missing()
    return _cell(seen)


def optional_cell(seen: FieldRead) -> Cell | None:
    """A cell, or None when the field is absent."""
    return _cell(seen) if seen.present else None


def _cell(seen: FieldRead) -> Cell:
    try:
        return parse_cell(seen.value, f"'{seen.name}'")
    except ValueError as error:
        raise Rejection(str(error)) from None


def whole(seen: FieldRead) -> int:
    """A required whole number."""
    if not seen.present:
        raise seen.missing()
    return _whole(seen)


def optional_whole(seen: FieldRead) -> int | None:
    """A whole number, or None when the field is absent."""
    return _whole(seen) if seen.present else None


def whole_or(default: int) -> Reader[int]:
    """A whole number, `default` when the field is absent."""

    def read(seen: FieldRead) -> int:
        return _whole(seen) if seen.present else default

    return read


def _whole(seen: FieldRead) -> int:
    value = seen.value
    if not isinstance(value, int) or isinstance(value, bool):
        raise Rejection(f"'{seen.name}' must be a whole number, not {value!r}")
    return value


def faces(seen: FieldRead) -> tuple[str, ...]:
    """A list of die faces."""
    value = seen.value
    if not isinstance(value, list) or any(face not in FACES for face in value):
        raise Rejection(f"'{seen.name}' must be a list of die faces from {', '.join(FACES)}")
    return tuple(value)


def tile(seen: FieldRead) -> str:
    """The id of a tile of the game's catalog."""
    value = seen.value
    if not isinstance(value, str) or value not in seen.context.tiles:
        raise Rejection(f"unknown tile {value!r}: it is not in the tile catalog")
    return value


@dataclass(frozen=True, slots=True)
class PlayerIds:
    """The player ids an event lists, in the order written. Iterating checks each id as it is
    reached: a handler that refuses an escaped player as it goes still refuses an escaped
    player listed before an unknown id for his escape, as the rules always judged it."""

    written: tuple[Any, ...]
    """The ids as the record lists them."""
    context: ReadContext

    def __iter__(self) -> Iterator[str]:
        for value in self.written:
            yield _known_player(value, self.context)

    def __len__(self) -> int:
        return len(self.written)


def player_ids(reason: str) -> Reader[PlayerIds]:
    """A non-empty list of player ids of this game (`reason` when it is not a list, or empty);
    each id is checked when a handler reaches it (`PlayerIds`)."""

    def read(seen: FieldRead) -> PlayerIds:
        if not isinstance(seen.value, list) or not seen.value:
            raise Rejection(reason)
        return PlayerIds(tuple(seen.value), seen.context)

    return read


# ----- readers the modules share (lists, and ids the handler looks up) -----------------------


def required_value(seen: FieldRead) -> Any:
    """A required field's value as written, for an id the handler judges against the game (a
    card of this game's curse pile, a treasure of the modules it plays)."""
    if not seen.present:
        raise seen.missing()
    return seen.value


def value_list(reason: str, least: int = 0, most: int | None = None) -> Reader[tuple[Any, ...]]:
    """A list of `least` to `most` values (refused with `reason` otherwise, absent too), each
    judged by the handler: player ids it looks up in order, refusing an escaped one where he
    comes in the list."""

    def read(seen: FieldRead) -> tuple[Any, ...]:
        return _listed(seen, reason, least, most)

    return read


def one_of(choices: tuple[str, ...], reason: str) -> Reader[str]:
    """One of a fixed set of words (a wish, a colour, a side, a die's face); else `reason`,
    the module's own words for the field (also when the field is absent)."""

    def read(seen: FieldRead) -> str:
        if not isinstance(seen.value, str) or seen.value not in choices:
            raise Rejection(reason)
        return seen.value

    return read


def cell_list(reason: str, least: int = 0, most: int | None = None) -> Reader[tuple[Cell, ...]]:
    """A list of `least` to `most` cells (refused with `reason` otherwise, absent too); the
    first value that is no cell `[x, y]` is refused as a cell field is."""

    def read(seen: FieldRead) -> tuple[Cell, ...]:
        listed = _listed(seen, reason, least, most)
        try:
            return tuple(parse_cell(value, f"'{seen.name}'") for value in listed)
        except ValueError as error:
            raise Rejection(str(error)) from None

    return read


def _listed(seen: FieldRead, reason: str, least: int, most: int | None) -> tuple[Any, ...]:
    value = seen.value
    if not isinstance(value, list):
        raise Rejection(reason)
    if len(value) < least or (most is not None and len(value) > most):
        raise Rejection(reason)
    return tuple(value)
