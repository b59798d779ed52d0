"""The temple: placed tiles on the grid, their rotation, and which chambers connect."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from rules.catalog import TileDef
from rules.vocabulary import SIDES, STEP_SIDES, Cell, neighbour, rotate


def quarter_turns_for(stairs: str) -> int:
    """Return the clockwise quarter turns that bring a tile's own S onto table side `stairs`."""
    return (SIDES.index(stairs) - SIDES.index("S")) % 4


@dataclass
class PlacedTile:
    """A tile lying in the temple: where, which way its stairway faces, and gems activated on it."""

    tile: TileDef
    cell: Cell
    stairs: str
    gems: int = 0
    open_sides: frozenset[str] = field(init=False)
    """The table sides this chamber is open on (its doors turned, plus the stairway)."""

    def __post_init__(self) -> None:
        turns = quarter_turns_for(self.stairs)
        self.open_sides = frozenset(rotate(side, turns) for side in self.tile.own_open_sides)

    def to_json(self) -> dict[str, object]:
        """Return the placed tile as the game record's state shows it."""
        return {
            "tile": self.tile.tile_id,
            "cell": list(self.cell),
            "stairs": self.stairs,
            "gems": self.gems,
        }


class Temple:
    """The chambers placed so far, by cell, in the order they were placed."""

    def __init__(self) -> None:
        self._by_cell: dict[Cell, PlacedTile] = {}
        self._by_tile: dict[str, PlacedTile] = {}
        self._by_feature: dict[str, list[PlacedTile]] = {}
        """The chambers of each feature (a Queenie chamber's), in the order they were placed."""
        self._starts: list[PlacedTile] = []
        """The starting chamber (a list: while a game is laid out, it may not be there yet)."""
        self.at: Callable[[Cell], PlacedTile | None] = self._by_cell.get
        """Return the chamber at a cell, if any (the chambers' own lookup: the open actions ask
        it hundreds of times a listing, and a method's call cost more than the lookup)."""

    def __getstate__(self) -> dict[str, object]:
        """The temple's fields for a copy, all but the lookup (bound to these chambers)."""
        state = dict(self.__dict__)
        del state["at"]
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        """A copy's fields, its lookup bound to its own chambers."""
        self.__dict__.update(state)
        self.at = self._by_cell.get

    def __iter__(self) -> Iterator[PlacedTile]:
        return iter(self._by_cell.values())

    def __len__(self) -> int:
        return len(self._by_cell)

    def is_placed(self, tile_id: str) -> bool:
        """Tell whether the tile with this id lies in the temple."""
        return tile_id in self._by_tile

    def with_tile(self, tile_id: str) -> PlacedTile | None:
        """Return the chamber of the tile with this id, if it lies in the temple."""
        return self._by_tile.get(tile_id)

    def with_feature(self, feature: str) -> PlacedTile | None:
        """Return the first chamber placed (of those still lying) whose tile has `feature`."""
        found = self._by_feature.get(feature)
        return found[0] if found else None

    def place(self, tile: TileDef, cell: Cell, stairs: str) -> PlacedTile:
        """Lay `tile` at the empty `cell` with its stairway facing `stairs`."""
        if cell in self._by_cell:
            raise ValueError(f"cell {list(cell)} already holds a chamber")
        if tile.tile_id in self._by_tile:
            raise ValueError(f"tile {tile.tile_id!r} is already in the temple")
        placed = PlacedTile(tile, cell, stairs)
        self._by_cell[cell] = placed
        self._by_tile[tile.tile_id] = placed
        if tile.feature is not None:
            self._by_feature.setdefault(tile.feature, []).append(placed)
        if tile.kind == "start":
            self._starts.append(placed)
        return placed

    def remove(self, cell: Cell) -> PlacedTile:
        """Take the chamber at `cell` out of the temple (an illusion chamber vanishing); its
        tile may be discovered again."""
        placed = self._by_cell.pop(cell)
        del self._by_tile[placed.tile.tile_id]
        if placed.tile.feature is not None:
            same = self._by_feature[placed.tile.feature]
            same[:] = [p for p in same if p is not placed]
        if placed.tile.kind == "start":
            self._starts[:] = [p for p in self._starts if p is not placed]
        return placed

    def connected(self, a: Cell, b: Cell) -> bool:
        """Tell whether chambers at `a` and `b` are neighbours with open doors facing each other."""
        first, second = self._by_cell.get(a), self._by_cell.get(b)
        if first is None or second is None:
            return False
        # Both lie in the temple, so both are cells (tuples): the step between them is exact.
        sides = STEP_SIDES.get((b[0] - a[0], b[1] - a[1]))
        return sides is not None and sides[0] in first.open_sides and sides[1] in second.open_sides

    def passages(self, cell: Cell) -> list[tuple[str, Cell]]:
        """Return `(side, neighbour)` for every open side of the chamber at `cell`."""
        placed = self.at(cell)
        if placed is None:
            return []
        return [(side, neighbour(cell, side)) for side in SIDES if side in placed.open_sides]

    def start_cell(self) -> Cell:
        """Return the cell of the starting chamber."""
        for placed in self._starts:
            return placed.cell  # the first placed, as a walk of the temple
        raise StopIteration  # no starting chamber yet (what `next` on none raised before)
