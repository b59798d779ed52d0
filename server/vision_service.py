"""The camera and the vision pipeline, run for the session: events in, annotated video out."""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from calibration.table import FILE_NAME, CalibrationError, TableCalibration
from server.session import Session, SessionError

log = logging.getLogger(__name__)

VIEWER_SECONDS = 5.0
"""Frames are annotated and encoded only while someone watched the video this recently."""
DRIFT_CHECK_SECONDS = 60.0
"""How often a live camera's view is compared with its calibration (a bumped camera)."""
IDLE_FRAME_SECONDS = 0.2
"""Without a game (or a calibration) the raw video is still shown, at most this often."""


def demo_files() -> dict[str, Path]:
    """Return the bundled demo recording's files (video, game record, calibration)."""
    folder = Path(str(resources.files("vision") / "data"))
    return {
        "video": folder / "demo-game.mp4",
        "record": folder / "demo-game.jsonl",
        "calibration": folder / "demo-calibration.json",
    }


@dataclass(frozen=True)
class VisionSettings:
    """What `templecam serve` chose for the camera."""

    camera: str | None = None
    """A webcam index, device, URL, video file or image folder; None: the first webcam, else
    the bundled demo recording."""
    model: Path | None = None
    """The detector (.onnx); None: the shipped model."""
    calibration: Path | None = None
    """The table calibration; None: `calibration.json` in the data folder."""


class VisionService:
    """Owns the grabber and the pipeline; never stops the game when something is missing."""

    def __init__(self, session: Session, settings: VisionSettings, data_dir: Path) -> None:
        self.session = session
        self.settings = settings
        self.data_dir = data_dir
        self.mode = "off"
        self.note: str | None = None
        self.problems: list[str] = []
        self.calibration: TableCalibration | None = None
        self.demo_setup: dict[str, Any] | None = None
        self._grabber: Any = None
        self._detector: Any = None
        self._tile_reader: Any = None
        self._loop: Any = None
        self._game_id: str | None = None
        self._jpeg: bytes | None = None
        self._jpeg_version = 0
        self._jpeg_cond = threading.Condition()
        self._watched = 0.0
        self._last_idle_frame = 0.0
        self._last_source_t: float | None = None
        self._last_drift_check = -DRIFT_CHECK_SECONDS
        self.moved: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ----- starting and stopping ------------------------------------------------------------

    def start(self) -> None:
        """Open the camera (or the demo), the model and the calibration; start the thread."""
        from vision.source_base import SourceError
        from vision.source_grabber import Grabber
        from vision.sources import default_source, open_source

        demo = demo_files()
        choice = default_source(self.settings.camera, demo["video"])
        try:
            source = open_source(choice.spec, check=not choice.demo or demo["video"].is_file())
        except SourceError as error:
            self._problem(f"camera: {error}; the game carries on in manual mode")
            return
        self.mode, self.note = ("demo", choice.note) if choice.demo else ("camera", None)
        if choice.demo:
            self.session.notify(choice.note or "playing the demo recording")
            self._load_demo(demo)
        else:
            self._load_calibration()
        self._load_model()
        self._load_tiles()
        self._grabber = Grabber(source, loop=choice.demo).start()
        self._thread = threading.Thread(target=self._run, name="templecam-vision", daemon=True)
        self._thread.start()
        log.info("vision: %s (%s)", source.description, self.mode)

    def stop(self) -> None:
        """Stop the thread and release the camera."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)
        if self._grabber is not None:
            self._grabber.stop()

    def _problem(self, message: str) -> None:
        self.problems.append(message)
        log.warning("vision: %s", message)
        self.session.notify(message)

    def _load_demo(self, demo: dict[str, Path]) -> None:
        try:
            self.calibration = TableCalibration.load(demo["calibration"])
            first = demo["record"].read_text("utf-8").splitlines()[0]
            setup = json.loads(first)
            self.demo_setup = {k: v for k, v in setup.items() if k != "t"}
        except (OSError, ValueError, IndexError, CalibrationError) as error:
            self._problem(f"the demo recording's files are damaged ({error})")

    def _load_calibration(self) -> None:
        path = self.settings.calibration or self.data_dir / FILE_NAME
        try:
            self.calibration = TableCalibration.load(path)
        except CalibrationError as error:
            self._problem(f"{error}. The video is shown; events need a calibration")

    def _load_model(self) -> None:
        from vision.detector import ModelError
        from vision.models import live_detector

        try:
            self._detector, note = live_detector(self.settings.model)
            if note:
                self.problems.append(note)
        except ModelError as error:
            self._problem(f"detector: {error}. The video is shown; enter events by hand")

    def _load_tiles(self) -> None:
        from calibration.enrollment import EnrollmentError, TileLibrary, tiles_dir
        from vision.tile_reader import EnrolledTileReader

        folder = tiles_dir(self.data_dir / "tiles")
        try:
            library = TileLibrary.load(folder) if folder.is_dir() else TileLibrary.default()
        except EnrollmentError as error:
            self._problem(f"enrolled tiles: {error}; using the default tiles")
            library = TileLibrary.default()
        self._tile_reader = EnrolledTileReader(library)

    # ----- the loop -------------------------------------------------------------------------

    def _run(self) -> None:
        from vision.live_loop import LiveLoop

        loop = LiveLoop(self._grabber, self._frame, on_error=self._failed, wait_when_finished=True)
        loop.run(self._stop)

    def _failed(self, frame: Any, error: Exception) -> None:
        """A bad frame never stops the game being watched: it is counted on the dashboard."""
        if self._loop is not None:
            self._loop.stats.errors += 1
            self._loop.stats.last_error = f"{type(error).__name__}: {error}"

    def _frame(self, frame: Any) -> None:
        self._restart_demo_on_loop(frame)
        self._check_size(frame)
        self._check_drift(frame)
        loop = self._pipeline_for_game()
        if loop is None:
            now = time.monotonic()
            if self.watched and now - self._last_idle_frame >= IDLE_FRAME_SECONDS:
                self._last_idle_frame = now
                self._publish(np.ascontiguousarray(frame.image[::2, ::2]))
            return
        loop.step(frame)

    def _check_size(self, frame: Any) -> None:
        """A calibration made for another camera (another frame size) is set aside, with a word."""
        if self.calibration is None:
            return
        height, width = frame.image.shape[:2]
        expected = tuple(self.calibration.image_size)
        if (width, height) != expected:
            self.calibration = None
            self._loop = None
            self._problem(
                f"the calibration was made for {expected[0]}x{expected[1]} frames but the camera "
                f"gives {width}x{height}: run `templecam calibrate` for this camera. The video is "
                "shown; enter events by hand until then"
            )

    def _check_drift(self, frame: Any) -> None:
        """Now and then, compare the view with the calibration's; say so once if it moved."""
        now = time.monotonic()
        if self.mode != "camera" or self.calibration is None:
            return
        if now - self._last_drift_check < DRIFT_CHECK_SECONDS:
            return
        from calibration.drift import check_drift

        self._last_drift_check = now
        report = check_drift(self.calibration, frame.image)
        if not report.ok and report.message != self.moved:
            self._problem(report.message)
        self.moved = None if report.ok else report.message

    def _restart_demo_on_loop(self, frame: Any) -> None:
        """The demo video started over: its game starts over too (if that game is running)."""
        previous, self._last_source_t = self._last_source_t, frame.source_t
        if self.mode != "demo" or previous is None or frame.source_t is None:
            return
        if frame.source_t + 1.0 < previous and self.playing_demo():
            assert self.demo_setup is not None
            self.session.new_game(dict(self.demo_setup), self.session.audio_mode or "auto")

    def playing_demo(self) -> bool:
        """Tell whether the session's game is the demo recording's game."""
        return self.demo_setup is not None and self.session.setup_line == self.demo_setup

    def _pipeline_for_game(self) -> Any:
        """The pipeline for the current game (rebuilt when a new game starts), or None."""
        game_id = self.session.game_id
        if game_id is None or self.calibration is None or self._detector is None:
            return None
        if self._loop is not None and game_id == self._game_id:
            return self._loop
        from vision.pipeline import FrameRunner, build_pipeline
        from vision.scene import SceneReader

        game = self.session.game
        players = list(game.players) if game is not None else []
        scene = SceneReader(self.calibration, players, tile_reader=self._tile_reader)
        pipeline = build_pipeline(self._detector, scene, lambda: self.session.game)
        self._loop = FrameRunner(pipeline, self._record, self._show)
        self._game_id = game_id
        return self._loop

    def _record(self, event: dict[str, Any]) -> None:
        try:
            self.session.record(event, source="vision")
        except SessionError as error:
            log.info("vision event dropped: %s", error)

    def _show(self, result: Any, image: np.ndarray) -> None:
        if not self.watched or self.calibration is None:
            return
        from vision.annotate import annotate

        assert self._loop is not None
        grid = self._loop.pipeline.scene.grid
        self._publish(annotate(image, result, self.calibration, grid))

    # ----- for the calibration and enrollment pages ------------------------------------------

    def snapshot(self, timeout: float = 2.0) -> np.ndarray | None:
        """Return a copy of the camera's newest raw frame (BGR), or None when there is none."""
        if self._grabber is None:
            return None
        frame = self._grabber.latest(timeout=timeout)
        return None if frame is None else frame.image.copy()

    def use_calibration(self, calibration: TableCalibration) -> None:
        """Watch the table with a new calibration from now on (the pipeline is rebuilt)."""
        self.calibration = calibration
        self._loop = None
        self._game_id = None
        self.moved = None
        self.problems = [p for p in self.problems if "calibrat" not in p]

    def use_tiles(self) -> None:
        """Read the enrolled tiles again (after an enrollment); the pipeline is rebuilt."""
        self._load_tiles()
        self._loop = None
        self._game_id = None

    # ----- the video for the dashboard --------------------------------------------------------

    @property
    def watched(self) -> bool:
        """Tell whether a dashboard asked for the video recently."""
        return time.monotonic() - self._watched < VIEWER_SECONDS

    def _publish(self, image: np.ndarray) -> None:
        from vision.annotate import to_jpeg

        data = to_jpeg(image)
        with self._jpeg_cond:
            self._jpeg, self._jpeg_version = data, self._jpeg_version + 1
            self._jpeg_cond.notify_all()

    def latest_jpeg(self, after: int = 0, timeout: float = 0.0) -> tuple[int, bytes | None]:
        """Return (version, JPEG) of the newest annotated frame, waiting for one newer than
        `after` up to `timeout` seconds; asking counts as watching."""
        self._watched = time.monotonic()
        with self._jpeg_cond:
            if self._jpeg_version <= after and timeout > 0:
                self._jpeg_cond.wait(timeout)
            return self._jpeg_version, self._jpeg

    def state_json(self) -> dict[str, Any]:
        """Return the camera's and the pipeline's state for the dashboard."""
        loop = self._loop
        maker = loop.pipeline.maker if loop is not None else None
        return {
            "mode": self.mode,
            "note": self.note,
            "problems": self.problems[-5:],
            "calibrated": self.calibration is not None,
            "camera_moved": self.moved,
            "model": str(self._detector.model_path.name) if self._detector is not None else None,
            "camera": self._grabber.state().to_json() if self._grabber is not None else None,
            "pipeline": loop.stats.to_json() if loop is not None else None,
            "waiting": sorted(maker.waiting.values()) if maker is not None else [],
            "demo_game": self.demo_setup is not None,
            "playing_demo": self.playing_demo(),
        }
