"""Chamber tile definitions: the packaged catalog of the basic game and the parser for tile data."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from rules.errors import RecordError
from rules.finite import without_nulls
from rules.shared_value import SharedValue
from rules.vocabulary import KEY, PAYING_FACES, SIDES, TORCH

TILE_KINDS = ("start", "exit", "chamber")
FEATURE = re.compile(r"[a-z][a-z-]{0,31}")
"""A Queenie chamber's feature word."""
SPECIAL_KINDS = ("linked", "double", "chalice")
QUEST_KINDS = ("altar", "ghost", "task", "tree", "obelisk")
TRAP_KINDS = ("cliff-torch", "cliff-key", "invocation", "slide", "platform")
"""Module 7's trap chambers."""
TIME_KINDS = (
    "prohibition-1",
    "prohibition-2",
    "prohibition-3",
    "prohibition-4",
    "sacrifice",
    "lava-1",
    "lava-2",
    "torch",
)
"""Module 8's time chambers."""
"""Module 5's quest chambers."""
"""Module 4's special chambers: linked, double (an inner wall), the treasure chamber."""


@dataclass(frozen=True)
class GemSpec(SharedValue):
    """The gem icons of a chamber: how many, which die icon activates them, and what k gems cost."""

    count: int
    icon: str
    costs: tuple[int, ...]

    def cost(self, gems: int) -> int:
        """Return how many icons it takes to activate `gems` gems at once."""
        return self.costs[gems - 1]


@dataclass(frozen=True)
class TileDef(SharedValue):
    """One chamber tile, with doors in its own frame (stairway facing S, always open)."""

    tile_id: str
    name: str
    kind: str
    doors: frozenset[str]
    enter: tuple[str, ...]
    gems: GemSpec | None = None
    curse: bool = False
    """A purple mask (module 1): discovering the chamber draws a curse card."""
    treasure: bool = False
    """A treasure icon (module 2): discovering the chamber lays a treasure tile on it."""
    illusion: bool = False
    """An illusion chamber (module 3): it vanishes at the end of countdowns 1 and 2."""
    special: str | None = None
    """A special chamber of module 4: `linked`, `double` or `chalice` (the treasure chamber)."""
    rear: frozenset[str] = frozenset()
    """A double chamber's rear half (module 4): its sides in the tile's own frame; every other
    side, the stairway included, belongs to the front half, and an inner wall parts them."""
    quest: str | None = None
    """A quest chamber of module 5: `altar`, `ghost`, `task`, `tree` or `obelisk`."""
    trap: str | None = None
    """A trap chamber of module 7: `cliff-torch`, `cliff-key`, `invocation`, `slide`,
    `platform`."""
    time: str | None = None
    """A time chamber of module 8: `prohibition-1` ... `prohibition-4`, `sacrifice`, `lava-1`,
    `lava-2` or `torch`."""
    feature: str | None = None
    """A Queenie module's chamber (`pit`, `fountain`, `mirage`, ...): the module that adds the
    tile gives the word its meaning."""

    @property
    def own_open_sides(self) -> frozenset[str]:
        """Every open side in the tile's own frame, the stairway side `S` included."""
        return self.doors | {"S"}

    def to_json(self) -> dict[str, Any]:
        """Return the tile definition in the game record's format."""
        data: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "doors": [side for side in SIDES if side in self.doors],
            "enter": list(self.enter),
        }
        if self.gems is not None:
            data["gems"] = {
                "count": self.gems.count,
                "icon": self.gems.icon,
                "costs": list(self.gems.costs),
            }
        if self.curse:
            data["curse"] = True
        if self.treasure:
            data["treasure"] = True
        if self.illusion:
            data["illusion"] = True
        if self.special is not None:
            data["special"] = self.special
        if self.rear:
            data["rear"] = [side for side in SIDES if side in self.rear]
        if self.quest is not None:
            data["quest"] = self.quest
        if self.trap is not None:
            data["trap"] = self.trap
        if self.time is not None:
            data["time"] = self.time
        if self.feature is not None:
            data["feature"] = self.feature
        return data


def parse_tile(tile_id: str, data: Any) -> TileDef:
    """Validate one tile definition from a setup line or the catalog file."""
    where = f"tile {tile_id!r}"
    if not isinstance(tile_id, str) or not tile_id:
        raise RecordError("a tile id must be a non-empty string")
    if not isinstance(data, Mapping):
        raise RecordError(f"{where}: the definition must be a JSON object")
    data = without_nulls(data)
    name = data.get("name", tile_id)
    if not isinstance(name, str):
        raise RecordError(f"{where}: 'name' must be a string")
    kind = data.get("kind", "chamber")
    if kind not in TILE_KINDS:
        raise RecordError(f"{where}: 'kind' must be one of {', '.join(TILE_KINDS)}, not {kind!r}")
    doors = data.get("doors", [])
    if not isinstance(doors, list) or any(side not in SIDES for side in doors):
        raise RecordError(f"{where}: 'doors' must be a list of sides from N, E, S, W")
    enter = data.get("enter", [])
    if not isinstance(enter, list) or any(icon not in PAYING_FACES for icon in enter):
        raise RecordError(
            f"{where}: 'enter' must be a list of icons from {', '.join(PAYING_FACES)}"
        )
    gems = _parse_gems(where, data["gems"]) if data.get("gems") is not None else None
    marks = {mark: data.get(mark, False) for mark in ("curse", "treasure", "illusion")}
    for mark, value in marks.items():
        if not isinstance(value, bool):
            raise RecordError(f"{where}: '{mark}' must be true or false")
    special = data.get("special")
    if special is not None and special not in SPECIAL_KINDS:
        raise RecordError(f"{where}: 'special' must be one of {', '.join(SPECIAL_KINDS)}")
    rear = data.get("rear", [])
    if not isinstance(rear, list) or any(side not in SIDES or side == "S" for side in rear):
        raise RecordError(f"{where}: 'rear' must be a list of sides from N, E, W")
    if rear and special != "double":
        raise RecordError(f"{where}: only a double chamber has a 'rear' half")
    quest = data.get("quest")
    if quest is not None and quest not in QUEST_KINDS:
        raise RecordError(f"{where}: 'quest' must be one of {', '.join(QUEST_KINDS)}")
    trap = data.get("trap")
    if trap is not None and trap not in TRAP_KINDS:
        raise RecordError(f"{where}: 'trap' must be one of {', '.join(TRAP_KINDS)}")
    time = data.get("time")
    if time is not None and time not in TIME_KINDS:
        raise RecordError(f"{where}: 'time' must be one of {', '.join(TIME_KINDS)}")
    feature = data.get("feature")
    if feature is not None and (not isinstance(feature, str) or not FEATURE.fullmatch(feature)):
        raise RecordError(f"{where}: 'feature' must be a word of small letters and dashes")
    return TileDef(
        tile_id,
        name,
        kind,
        frozenset(doors),
        tuple(enter),
        gems,
        marks["curse"],
        marks["treasure"],
        marks["illusion"],
        special,
        frozenset(rear),
        quest,
        trap,
        time,
        feature,
    )


def _parse_gems(where: str, data: Any) -> GemSpec:
    if not isinstance(data, Mapping):
        raise RecordError(f"{where}: 'gems' must be a JSON object")
    count, icon, costs = data.get("count"), data.get("icon"), data.get("costs")
    if count not in (1, 3) or isinstance(count, bool):
        raise RecordError(f"{where}: gems 'count' must be 1 or 3")
    if icon not in (KEY, TORCH):
        raise RecordError(f"{where}: gems 'icon' must be 'key' or 'torch'")
    if (
        not isinstance(costs, list)
        or len(costs) != count
        or any(not isinstance(c, int) or isinstance(c, bool) or c < 1 for c in costs)
    ):
        raise RecordError(f"{where}: gems 'costs' must list {count} positive whole numbers")
    return GemSpec(count, icon, tuple(costs))


def parse_catalog(tiles: Any) -> dict[str, TileDef]:
    """Validate a mapping of tile id to definition."""
    if not isinstance(tiles, Mapping):
        raise RecordError("'tiles' must be a JSON object mapping tile ids to definitions")
    return {tile_id: parse_tile(tile_id, data) for tile_id, data in tiles.items()}


def basic_catalog() -> dict[str, TileDef]:
    """Return the packaged catalog of the 19 basic-game tiles (editable defaults)."""
    text = resources.files("rules").joinpath("data/basic_tiles.json").read_text("utf-8")
    return parse_catalog(json.loads(text)["tiles"])
