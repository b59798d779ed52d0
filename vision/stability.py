"""Only what has come to rest counts: debounce each thing on the table across frames."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vision.observation import Observation

UNSET = object()


@dataclass(frozen=True)
class StabilitySettings:
    """How long a value must stay the same before it counts."""

    min_frames: int = 2
    """Frames in a row showing the same value (the first frame of the run included)."""
    min_seconds: float = 0.05
    """Time from the first to the last frame of the run. Short: the motion gate re-detects
    only what stands still, so two frames agreeing already span a still moment."""
    piece_seconds: float = 0.3
    """Tiles, gems and figures: hands pass over them, so they must stay put longer."""
    moved_mm: float = 6.0
    """Dice whose positions changed by more than this were rolled (even to the same faces)."""


@dataclass(frozen=True)
class Settled:
    """A value that came to rest: what, since when (the run's first frame), how sure."""

    key: tuple[Hashable, ...]
    value: Any
    since: float
    conf: float
    rolled: bool = False
    """Dice only: the dice lie elsewhere than when the value settled before (they were rolled,
    even if they show the same faces)."""
    moved: tuple[str, ...] = ()
    """Dice only: the faces of the dice that lie elsewhere than before."""


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
    _positions: dict[str, np.ndarray] = field(default_factory=dict)

    def update(self, obs: Observation) -> list[Settled]:
        """Take one frame's observation; return every value that settled to a new value."""
        changes: list[Settled] = []
        for player, dice in obs.dice.items():
            faces = obs.faces(player)
            if player in obs.busy or faces is None:
                self._runs.pop(("dice", player), None)
                continue
            conf = min((d.conf for d in dice), default=1.0)
            where = np.array([d.xy_mm for d in dice], dtype=np.float64).reshape(-1, 2)
            faces_here = [d.face or "" for d in dice]
            changes += self._feed(
                ("dice", player), faces, obs.t, conf, self.settings.min_seconds, where, faces_here
            )
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
        self,
        key: tuple[Hashable, ...],
        value: Any,
        t: float,
        conf: float,
        seconds: float,
        where: np.ndarray | None = None,
        faces_here: list[str] | None = None,
    ) -> list[Settled]:
        run = self._runs.get(key)
        if run is None or run.value != value:
            run = self._runs[key] = _Run(value, t, t, 1, conf)
        else:
            run.last_t, run.frames, run.conf = t, run.frames + 1, min(run.conf, conf)
        if run.frames < self.settings.min_frames or run.last_t - run.first_t < seconds:
            return []
        before = self.settled.get(key)
        moved: list[int] = []
        if where is not None:
            previous = self._positions.get(str(key[1]))
            moved = _moved(previous, where, self.settings.moved_mm)
            if before is None or before.value != value or moved:
                self._positions[str(key[1])] = where
        rolled = bool(moved)
        if before is not None and before.value == value and not rolled:
            return []
        moved_faces = tuple(sorted(faces_here[i] for i in moved)) if faces_here else ()
        settled = Settled(key, value, run.first_t, run.conf, rolled, moved_faces)
        self.settled[key] = settled
        return [settled]


def _moved(before: np.ndarray | None, now: np.ndarray, tolerance_mm: float) -> list[int]:
    """Return the indices of the dice that lie elsewhere (no die of `before` near them)."""
    if before is None or not len(now):
        return []
    if not len(before):
        return list(range(len(now)))
    distances = np.linalg.norm(now[:, None, :] - before[None, :, :], axis=2)
    return [int(i) for i in np.flatnonzero(distances.min(axis=1) > tolerance_mm)]
