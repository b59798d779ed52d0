"""The demo recording's game, played in step with the demo video."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from calibration.table import CalibrationError, TableCalibration
from server.session import Session
from server.store import SaveFailed
from vision.sources.base import Frame

log = logging.getLogger(__name__)

DEMO_FOLDER_VARIABLE = "TEMPLECAM_DEMO"
"""A folder holding another demo recording (demo-game.mp4, .jsonl, demo-calibration.json) to
play instead of the bundled one (the tests play a short clip of it)."""
DEMO_RESTARTED = (
    "Demo restarted: the recording plays from the beginning again, in the same saved game"
)
DEMO_DRIFT_SECONDS = 1.5
"""The demo game's clock is set back in step with the video when they differ by more."""


def demo_files() -> dict[str, Path]:
    """Return the demo recording's files (video, game record, calibration): the bundled ones,
    or those in the folder `$TEMPLECAM_DEMO` names."""
    other = os.environ.get(DEMO_FOLDER_VARIABLE)
    folder = Path(other) if other else Path(str(resources.files("vision") / "data"))
    return {
        "video": folder / "demo-game.mp4",
        "record": folder / "demo-game.jsonl",
        "calibration": folder / "demo-calibration.json",
    }


class DemoPlayback:
    """The demo recording's game: its setup, its clock kept with the video, a new start a loop."""

    def __init__(self, session: Session, problem: Callable[[str], None]) -> None:
        """Play in `session`'s games; say damaged files through `problem`."""
        self.session = session
        self._problem = problem
        self.setup: dict[str, Any] | None = None
        """The recording's setup line; None unless the demo recording is the source."""
        self.video_t: float | None = None
        """Where the newest frame sits in its video file (None: not a file, or none yet)."""
        self._game_id: str | None = None
        """The saved game the demo video's clock was last started in step with."""

    def clear(self) -> None:
        """Forget the recording and the video's time: another source is being installed."""
        self.setup, self.video_t = None, None

    def load(self, files: dict[str, Path]) -> TableCalibration | None:
        """Read the recording's setup line and return its calibration (None when damaged)."""
        calibration = None
        try:
            calibration = TableCalibration.load(files["calibration"])
            first = files["record"].read_text("utf-8").splitlines()[0]
            setup = json.loads(first)
            self.setup = {k: v for k, v in setup.items() if k != "t"}
        except (OSError, ValueError, IndexError, CalibrationError) as error:
            self._problem(f"the demo recording's files are damaged ({error})")
        return calibration

    def follow(self, frame: Frame) -> bool:
        """Keep the demo game in step with the demo video; return True when it started over
        (the table starts over too: the pipeline is to be built afresh).

        The game's clock runs with the video: it starts at "Escape!" as the video starts (the
        soundtrack's introduction is skipped), and is set back in step when they drift apart.
        When the video starts over, the same saved game starts over with it (its record back to
        the setup line, "Demo restarted" said once a loop): one saved game, not one a loop.
        """
        previous, self.video_t = self.video_t, frame.source_t
        if frame.source_t is None or not self.playing():
            return False
        at = float(frame.source_t)
        looped = previous is not None and at + 1.0 < previous
        if looped or (self._game_id != self.session.game_id and at < 1.0):
            return self._replay(at, announce=looped)
        clock = self.session.clock
        in_step = self._game_id == self.session.game_id and clock.status == "running"
        if in_step and abs(clock.t - at) > DEMO_DRIFT_SECONDS:
            self.session.move_clock(at)
        return False

    def _replay(self, at: float, announce: bool) -> bool:
        """Start the demo game over in its own saved game, its clock at `at` s after "Escape!";
        return whether it did."""
        session = self.session
        with session.lock:
            game_id = session.game_id
            if game_id is None:
                return False
            try:
                session.start_over_in_place(at)
            except SaveFailed as error:
                session.notify(str(error))
                return False
            session.tick()
            self._game_id = game_id
            if announce:
                session.notify(DEMO_RESTARTED)
        log.info("demo game %s in step with the video at %.1f s", game_id, at)
        return True

    def start_game(self) -> None:
        """Start the recording's game, unless it plays already; its clock starts with the
        video's next first frame."""
        assert self.setup is not None
        if not self.playing():
            self.session.new_game(dict(self.setup), "auto")
        self._game_id = None

    def playing(self) -> bool:
        """Tell whether the session's game is the demo recording's game."""
        return self.setup is not None and self.session.setup_line == self.setup
