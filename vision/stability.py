"""Only what has come to rest counts: debounce each thing on the table across frames."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from vision.observation import Observation

UNSET = object()


@dataclass(frozen=True)
class StabilitySettings:
    """How long a value must stay the same before it counts."""

    min_frames: int = 2
    """Frames in a row showing the same value (the first frame of the run included)."""
    min_seconds: float = 0.15
    """Time from the first to the last frame of the run."""
    piece_seconds: float = 0.4
    """Tiles, gems and figures: hands pass over them, so they must stay put longer."""


@dataclass(frozen=True)
class Settled:
    """A value that came to rest: what, since when (the run's first frame), how sure."""

    key: tuple[Hashable, ...]
    value: Any
    since: float
    conf: float
    rolled: bool = False
    """Dice only: a die was seen tumbling since the value settled before (a roll happened,
    even if it gave the same faces)."""


@dataclass
class _Run:
    value: Any
    first_t: float
    last_t: float
    frames: int
    conf: float


@dataclass
class Stabiliser:
    """Feeds on observations, returns the values that have just settled to something new."""

    settings: StabilitySettings = field(default_factory=StabilitySettings)
    settled: dict[tuple[Hashable, ...], Settled] = field(default_factory=dict)
    _runs: dict[tuple[Hashable, ...], _Run] = field(default_factory=dict)
    _disturbed: set[str] = field(default_factory=set)

    def update(self, obs: Observation) -> list[Settled]:
        """Take one frame's observation; return every value that settled to a new value."""
        changes: list[Settled] = []
        for player, dice in obs.dice.items():
            faces = obs.faces(player)
            if faces is None:  # a die too blurred or tilted to read: it is tumbling
                self._disturbed.add(player)
            if player in obs.busy or faces is None:
                self._runs.pop(("dice", player), None)
                continue
            conf = min((d.conf for d in dice), default=1.0)
            changes += self._feed(("dice", player), faces, obs.t, conf, self.settings.min_seconds)
        slow = self.settings.piece_seconds
        for cell, tile in obs.tiles.items():
            changes += self._feed(("tile", cell), (tile.tile, tile.stairs), obs.t, tile.conf, slow)
        cells = set(obs.gems) | {k[1] for k in self.settled if k[0] == "gems"}
        for cell in cells:
            if cell in obs.tiles or obs.gems.get(cell):
                changes += self._feed(("gems", cell), obs.gems.get(cell, 0), obs.t, 1.0, slow)
        if obs.depot_gems is not None:
            changes += self._feed(("depot",), obs.depot_gems, obs.t, 1.0, slow)
        for colour, cell in obs.figures.items():
            changes += self._feed(("figure", colour), cell, obs.t, 1.0, slow)
        return changes

    def _feed(
        self, key: tuple[Hashable, ...], value: Any, t: float, conf: float, seconds: float
    ) -> list[Settled]:
        run = self._runs.get(key)
        if run is None or run.value != value:
            run = self._runs[key] = _Run(value, t, t, 1, conf)
        else:
            run.last_t, run.frames, run.conf = t, run.frames + 1, min(run.conf, conf)
        if run.frames < self.settings.min_frames or run.last_t - run.first_t < seconds:
            return []
        before = self.settled.get(key)
        rolled = key[0] == "dice" and key[1] in self._disturbed
        if before is not None and before.value == value and not rolled:
            return []
        if key[0] == "dice":
            self._disturbed.discard(str(key[1]))
        settled = Settled(key, value, run.first_t, run.conf, rolled)
        self.settled[key] = settled
        return [settled]
