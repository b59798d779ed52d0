"""The localiser's input scale follows the camera: decided here, once, for every command.

The localiser reads dice best at the size it was trained on (its native die size, in network
px). A camera that shows dice larger or smaller (a 720p webcam: 15-26 px; a low camera: 45 px)
gets its frames resized so that the dice arrive at that size:

    scale = native die px / measured die px, clamped to SCALE_LIMITS

The measured die size comes from the table calibration (`TableCalibration.die_px`: its `die_mm`
through the homography, over the players' zones) or, uncalibrated, from the dice the localiser
finds in the first frames (their box sides, probed at the model's own scale and refined once at
the scale that gives). A `scale=` setting (`--localiser scale=0.75`, `--scale 0.75`) overrides
both. `serve`, `eval`, `detect`, `bench vision` and `bench events` all call `follow_camera`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from calibration.table import TableCalibration
from vision.perception.localiser import Localiser

REFERENCE_DIE_PX = 29.5
"""A die's side (calibrated px) in the 1080p frames the shipped localiser trained on; times the
model's `input_scale` (0.5) it gives the native die size."""
BOX_PER_DIE = 1.56
"""A found die's box side (sqrt of its area) over the calibrated die side, measured on rendered
game frames at the native scale: 1.52-1.63 over ten 1080p and 720p games (the box holds the
whole die: its turn and its sides)."""
SCALE_LIMITS = (0.3, 1.2)
"""The scale never leaves this range (45 px dice: 0.33; 14 px dice: 1.05)."""
MIN_DICE = 3
"""Dice needed in the first frames to measure their size (fewer: the model's own scale)."""
FIND_CONF = 0.4
"""Lowest localiser score of a die that counts for measuring."""


@dataclass(frozen=True)
class ScaleChoice:
    """The input scale chosen for a camera, and why (shown by the commands and the dashboard)."""

    scale: float
    why: str
    die_px: float | None = None
    """The measured die side in frame px (None: not measured)."""

    def describe(self) -> str:
        """Return one line: the scale and where it comes from."""
        return f"localiser scale {self.scale:.2f} ({self.why})"


def native_die_px(localiser: Localiser) -> float:
    """Return the die side (network px) the localiser reads best: its card's `input_scale`
    times the training frames' die size (`REFERENCE_DIE_PX`)."""
    return localiser.card.input_scale * REFERENCE_DIE_PX


def scale_for(localiser: Localiser, die_px: float) -> float:
    """Return the scale that brings dice of `die_px` frame px to the native size, clamped."""
    low, high = SCALE_LIMITS
    return float(np.clip(native_die_px(localiser) / max(die_px, 1.0), low, high))


def measured_die_px(localiser: Localiser, frames: Sequence[np.ndarray]) -> float | None:
    """Return the median die side (calibrated-equivalent frame px) of the dice found in
    `frames` at the localiser's current scale; None when fewer than MIN_DICE are found."""
    sides: list[float] = []
    for frame in frames:
        found = localiser.locate(frame, FIND_CONF)
        dice = found[np.array(found.names, dtype=object) == "die_unreadable"]
        if len(dice):
            wh = np.clip(dice.xyxy[:, 2:] - dice.xyxy[:, :2], 1.0, None)
            sides += list(np.sqrt(wh[:, 0] * wh[:, 1]))
    if len(sides) < MIN_DICE:
        return None
    return float(np.median(sides)) / BOX_PER_DIE


def choose_scale(
    localiser: Localiser,
    calibration: TableCalibration | None = None,
    frames: Sequence[np.ndarray] = (),
) -> ScaleChoice:
    """Decide the localiser's input scale: its `scale=` setting, else the calibration's die
    size, else the dice found in `frames`, else the model's own scale."""
    if localiser.settings.scale is not None:
        return ScaleChoice(localiser.settings.scale, f"setting scale={localiser.settings.scale:g}")
    if calibration is not None:
        die = calibration.die_px()
        return ScaleChoice(
            scale_for(localiser, die),
            f"calibration: a {calibration.die_mm:g} mm die measures {die:.0f} px",
            die,
        )
    own = localiser.model_scale
    if frames:
        probe = localiser.at_scale(own)
        die = measured_die_px(probe, frames)
        if die is not None:
            first = scale_for(localiser, die)
            if abs(first - own) > 0.05 * own:  # measured far from native: measure again there
                again = measured_die_px(localiser.at_scale(first), frames)
                die = again if again is not None else die
            count = "frame" if len(frames) == 1 else "frames"
            return ScaleChoice(
                scale_for(localiser, die),
                f"dice found in the first {len(frames)} {count} measure {die:.0f} px",
                die,
            )
    return ScaleChoice(own, "the model's own: no calibration and no dice measured")


def follow_camera(
    detector: Any,
    calibration: TableCalibration | None = None,
    frames: Sequence[np.ndarray] = (),
) -> tuple[Any, ScaleChoice | None]:
    """Return the detector at the scale the camera asks for, and the choice (None: the model
    is not a localiser, such as the YOLO baseline, whose tiles keep dice at full size)."""
    if not isinstance(detector, Localiser):
        return detector, None
    choice = choose_scale(detector, calibration, frames)
    return detector.at_scale(choice.scale), choice
