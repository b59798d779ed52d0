"""Whose hands were at work when: a player laying a new chamber tile rolls no dice and moves no
figure meanwhile, so who was busy around a discovery tells who did not make it."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vision.stages.observation import Observation
from vision.stages.stability import StabilitySettings, dice_positions, moved_dice, remembered_dice

WORK_BEFORE_S = 1.2
"""Seconds before a new tile came to rest in which another action of a player's ended: his
hands were busy while the tile was carried from the pile, so he did not lay it."""
WORK_AFTER_S = 0.6
"""Seconds after it in which another action of a player's ended: it was under way (a roll
tumbling, a figure carried) while the tile was laid. A discovery with more than one possible
discoverer is credited this long after the tile settled."""
ARM_GAP_S = 0.25
"""An arm is drawn back once its seat strip stays still this long."""


@dataclass
class HandsAtWork:
    """When each player's own pieces were last seen moved: his dice come to rest elsewhere in
    his zone, his figure set down in another chamber (only his hands move them)."""

    moved_mm: float = StabilitySettings.moved_mm
    """A die lying this far from where it lay was picked up (as the stabiliser counts a roll)."""
    now: float = 0.0
    """The time of the latest observation."""
    _dice_at: dict[str, np.ndarray] = field(default_factory=dict)
    _worked: dict[str, deque[float]] = field(default_factory=dict)
    _arm_seen: dict[str, float] = field(default_factory=dict)
    """Players whose arm is out, with when it was last seen crossing the seat strip."""

    def see(self, observation: Observation) -> None:
        """Note the players whose dice lie still elsewhere than before (rolled or unlocked),
        and whose arms are out."""
        self.now = observation.t
        self._see_arms(observation)
        for player, dice in observation.dice.items():
            if player in observation.busy or not dice:
                continue  # a hand over the zone: where the dice lie is not known yet
            where = dice_positions(dice)
            before = self._dice_at.get(player)
            if before is not None and moved_dice(before, where, self.moved_mm):
                self.worked(player, observation.t)
                self._dice_at[player] = where
            else:
                self._dice_at[player] = remembered_dice(before, where, self.moved_mm)

    def _see_arms(self, observation: Observation) -> None:
        """An arm is out from when its seat strip moves until `ARM_GAP_S` of stillness there."""
        for player in observation.arms_out:
            self._arm_seen[player] = observation.t
        for player, seen in list(self._arm_seen.items()):
            if observation.t - seen > ARM_GAP_S:
                del self._arm_seen[player]

    def arm_out(self, player: str) -> bool:
        """Tell whether the player's arm is out now (his seat strip moved just now)."""
        return player in self._arm_seen

    def worked(self, player: str, t: float) -> None:
        """Note that an action of the player's ended at `t` (his piece came to rest)."""
        self._worked.setdefault(player, deque(maxlen=64)).append(t)

    def busy_around(self, player: str, t: float) -> bool:
        """Tell whether an action of the player's ended within the window around `t`."""
        return any(t - WORK_BEFORE_S <= w <= t + WORK_AFTER_S for w in self._worked.get(player, ()))

    def idle_around(self, candidates: Sequence[str], t: float) -> list[str]:
        """Return the candidates (in their order) whose hands were free around `t`, or all of
        them when every one was busy (the window told nothing then)."""
        idle = [c for c in candidates if not self.busy_around(c, t)]
        return idle or list(candidates)

    def window_over(self, t: float) -> bool:
        """Tell whether the window around `t` has passed (what ended in it has been seen)."""
        return self.now >= t + WORK_AFTER_S
