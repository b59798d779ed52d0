"""The camera's frames checked against the table's calibration: their size, a bumped camera."""

from __future__ import annotations

import time
from collections.abc import Callable

from calibration.table import TableCalibration
from vision.sources.base import Frame

DRIFT_CHECK_SECONDS = 60.0
"""How often a live camera's view is compared with its calibration (a bumped camera)."""


class ViewChecks:
    """Checks frames against the calibration, saying once what does not fit."""

    def __init__(self, problem: Callable[[str], None]) -> None:
        """Say what does not fit through `problem`."""
        self._problem = problem
        self.moved: str | None = None
        """How the view moved from the calibration's (a bumped camera); None: it did not."""
        self._last_drift_check = -DRIFT_CHECK_SECONDS

    def reset(self) -> None:
        """Start afresh for another source: nothing moved, the view is compared soon."""
        self.moved, self._last_drift_check = None, -DRIFT_CHECK_SECONDS

    def fits(self, frame: Frame, calibration: TableCalibration | None, live: bool) -> bool:
        """Check `frame` against `calibration` (a live camera's view now and then too); return
        False, with a word, when the calibration was made for another frame size."""
        if calibration is None:
            return True
        if not self._size_fits(frame, calibration):
            return False
        if live:
            self._check_drift(frame, calibration)
        return True

    def _size_fits(self, frame: Frame, calibration: TableCalibration) -> bool:
        """A calibration made for another camera (another frame size) is set aside, with a word."""
        height, width = frame.image.shape[:2]
        expected = tuple(calibration.image_size)
        if (width, height) == expected:
            return True
        self._problem(
            f"the calibration was made for {expected[0]}x{expected[1]} frames but the camera "
            f"gives {width}x{height}: run `templecam calibrate` for this camera. The video is "
            "shown; enter events by hand until then"
        )
        return False

    def _check_drift(self, frame: Frame, calibration: TableCalibration) -> None:
        """Now and then, compare the view with the calibration's; say so once if it moved."""
        now = time.monotonic()
        if now - self._last_drift_check < DRIFT_CHECK_SECONDS:
            return
        from calibration.drift import check_drift

        self._last_drift_check = now
        report = check_drift(calibration, frame.image)
        if not report.ok and report.message != self.moved:
            self._problem(report.message)
        self.moved = None if report.ok else report.message
