"""The pipeline watching the session's game: built from the table's calibration, the models and
the game, its events recorded in the session."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from calibration.table import CalibrationError, TableCalibration
from server.session import Session, SessionError
from server.store import SaveFailed
from server.vision_models import VisionModels

log = logging.getLogger(__name__)


class GamePipeline:
    """The calibration in use and the pipeline on it, built again for each new game."""

    def __init__(
        self,
        session: Session,
        models: VisionModels,
        calibration_file: Path,
        problem: Callable[[str], None],
        show: Callable[[Any, np.ndarray], None],
    ) -> None:
        """Watch `session`'s game with `models`, calibrated by `calibration_file` (else as
        told); say what is missing through `problem`, hand each annotated result to `show`."""
        self.session = session
        self.models = models
        self.calibration_file = calibration_file
        self._problem = problem
        self._show = show
        self.calibration: TableCalibration | None = None
        """The table's calibration for the camera in use (None: the video is only shown)."""
        self.runner: Any = None
        """The pipeline's frame runner for the current game (None: built at the next frame)."""
        self._game_id: str | None = None

    def forget(self) -> None:
        """Drop the pipeline: the next frame builds it again."""
        self.runner, self._game_id = None, None

    def use_calibration(self, calibration: TableCalibration | None) -> None:
        """Watch the table with `calibration` (None: none) from now on (the pipeline is rebuilt)."""
        self.calibration = calibration
        self.forget()

    def load_calibration(self, camera: str) -> None:
        """Use the saved calibration for the camera named `camera`; say so when there is none
        or it was made for another camera."""
        try:
            calibration = TableCalibration.load(self.calibration_file)
        except CalibrationError as error:
            self.use_calibration(None)
            self._problem(f"{error}. The video is shown; events need a calibration")
            return
        self.use_calibration(calibration)
        made_for = calibration.camera
        if made_for and made_for != camera:
            self._problem(
                f"the calibration was made for another camera ({made_for}), not {camera}: "
                "calibrate again for this camera (Calibrate the table on the set-up page)"
            )

    def saved_calibration(self) -> TableCalibration | None:
        """The calibration in use, else the saved one even if it does not fit this camera."""
        if self.calibration is not None:
            return self.calibration
        try:
            return TableCalibration.load(self.calibration_file)
        except CalibrationError:
            return None

    def for_game(self) -> Any:
        """The pipeline for the current game (rebuilt when a new game starts), or None."""
        game_id = self.session.game_id
        if game_id is None or self.calibration is None or self.models.detector is None:
            return None
        if self.runner is not None and game_id == self._game_id:
            return self.runner
        from vision.pipeline import FrameRunner, build_pipeline
        from vision.stages.scene import SceneReader

        game = self.session.game
        players = list(game.players) if game is not None else []
        tiles = self.models.tiles_for(game)
        scene = SceneReader(self.calibration, players, tile_reader=tiles)
        pipeline = build_pipeline(self.models.detector, scene, lambda: self.session.game)
        self.runner = FrameRunner(pipeline, self._record, self._show)
        self._game_id = game_id
        return self.runner

    def _record(self, event: dict[str, Any]) -> None:
        """Record a seen event in the session's game; one the game refuses is dropped."""
        try:
            self.session.record(event, source="vision")
        except SessionError as error:
            log.info("vision event dropped: %s", error)
        except SaveFailed as error:  # the page says so; the camera sees the change again
            log.warning("vision event not saved: %s", error)
            self.session.notify(str(error))
