"""The camera and the vision pipeline, run for the session: events in, annotated video out."""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from base.words import DEFAULT_LANGUAGE
from calibration.table import FILE_NAME, CalibrationError, TableCalibration
from server.camera_choice import ChosenSource, demo_choice
from server.camera_preview import Preview
from server.session import Session, SessionError
from server.store import SaveFailed
from server.vision_words import note_in, waiting_in

log = logging.getLogger(__name__)

VIEWER_SECONDS = 5.0
"""Frames are annotated and encoded only while someone watched the video this recently."""
DRIFT_CHECK_SECONDS = 60.0
"""How often a live camera's view is compared with its calibration (a bumped camera)."""
IDLE_FRAME_SECONDS = 0.2
"""Without a game (or a calibration) the raw video is still shown, at most this often."""
SWITCH_SECONDS = 20.0
"""A source chosen on the page must give a picture this soon (a stream's open times out in 10)."""


class SwitchError(Exception):
    """A chosen source gave no picture (or a switch is under way); nothing changed."""


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
    localiser: str = ""
    """Localiser settings as `key=value` words ("scale=0.75": a fixed input scale instead of
    the one the calibration's die size asks for)."""


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
        self._demo_game_id: str | None = None
        """The saved game the demo video's clock was last started in step with."""
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
        self._model_notes: list[str] = []
        self._switching = threading.Lock()
        self.switching_to: str | None = None
        self.last_switch: dict[str, Any] | None = None
        self.chosen: ChosenSource | None = None
        self.origin: str | None = None
        self.preview = Preview()
        self.ring: Any = None
        """The video ring (server/video_ring.py) the camera's frames of a running game go to."""

    # ----- starting and stopping ------------------------------------------------------------

    def start(self) -> None:
        """Open the camera (or the demo), the model and the calibration; start the thread.

        The camera is `--camera` when given, else the one chosen on the set-up page last time,
        else the first webcam, else the demo recording. One that does not open is a message,
        and the game carries on in manual mode (or with the next choice).
        """
        from server.camera_choice import PickError, cli_choice, remembered, resolve_pick
        from vision.sources.base import SourceError
        from vision.sources.open import DEMO_NOTE, default_source
        from vision.sources.webcams import list_webcams

        demo = demo_files()
        self._load_model()
        self._load_tiles()
        earlier: list[str] = []
        if not self.settings.camera:
            pick = remembered(self.data_dir)
            if pick is not None:
                try:
                    chosen = resolve_pick(pick, self.data_dir, list_webcams, demo["video"])
                    self._install(chosen, self._open(chosen), "remembered")
                    return
                except (PickError, SourceError) as error:
                    earlier.append(
                        f"the camera chosen last time ({pick.kind} {pick.value or ''}) did not "
                        f"open: {self._plain(str(error))}. Choose another on the set-up page"
                    )
                    self._problem(earlier[-1])
        choice = default_source(self.settings.camera, demo["video"])
        if choice.demo:
            chosen = demo_choice(demo["video"])
            origin = "default"
        else:
            chosen = cli_choice(choice.spec, self.data_dir)
            origin = "--camera" if self.settings.camera else "default"
        try:
            grabber = self._open(chosen)
        except SourceError as error:
            self._problem(f"camera: {error}; the game carries on in manual mode")
            return
        self._install(chosen, grabber, origin)
        self.problems += earlier
        if choice.demo:
            self.note = DEMO_NOTE
            self.session.notify(DEMO_NOTE)

    def _open(self, chosen: ChosenSource) -> Any:
        """Open `chosen` once to check it, then start grabbing from it."""
        from vision.sources.grabber import Grabber
        from vision.sources.open import open_source

        check = not chosen.demo or Path(chosen.spec).is_file()
        return Grabber(open_source(chosen.spec, check=check), loop=chosen.demo).start()

    def _install(self, chosen: ChosenSource, grabber: Any, origin: str) -> None:
        """Make `grabber` the camera: the loop restarts on it, with the calibration for it."""
        old_grabber = self._grabber
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10.0)
        self._stop = threading.Event()
        self.chosen, self.origin, self._grabber = chosen, origin, grabber
        self.mode = "demo" if chosen.demo else "camera"
        self.note = (
            "Playing the demo recording, as chosen on the set-up page." if chosen.demo else None
        )
        self.calibration, self.demo_setup = None, None
        self._loop, self._game_id, self.moved = None, None, None
        self._last_source_t, self._last_drift_check = None, -DRIFT_CHECK_SECONDS
        self.problems = list(self._model_notes)
        if chosen.demo:
            self._load_demo(demo_files())
        else:
            self._load_calibration()
        self._thread = threading.Thread(
            target=self._run, args=(grabber, self._stop), name="templecam-vision", daemon=True
        )
        self._thread.start()
        if old_grabber is not None and old_grabber is not grabber:
            old_grabber.stop(timeout=0.5)
        log.info("vision: %s (%s, %s)", chosen.label, self.mode, origin)

    def switch(self, chosen: ChosenSource, timeout: float = SWITCH_SECONDS) -> str:
        """Make `chosen` the camera once it gives a picture; return what the page says.

        The game and the current camera (or manual mode) carry on meanwhile; a source that
        gives no picture raises SwitchError saying why, and nothing changes.
        """
        from vision.sources.base import SourceError

        if not self._switching.acquire(blocking=False):
            raise SwitchError(f"already switching to {self.switching_to}: wait a moment")
        try:
            self.switching_to = chosen.label
            current = self._grabber.state().status if self._grabber is not None else None
            if self.chosen is not None and self.chosen.spec == chosen.spec and current == "live":
                return f"{chosen.label} is already in use"
            try:
                taken = self.preview.take(chosen)
                if taken is None and self.preview.chosen is not None:
                    self.preview.close()  # a webcam is not opened twice
                grabber = taken or self._trial(chosen, timeout)
            except SourceError as error:
                still = "manual mode" if self._grabber is None else self.chosen_label()
                message = (
                    f"{chosen.label} did not work: {self._plain(str(error))}. "
                    f"Nothing changed: {still} carries on"
                )
                self.last_switch = {"ok": False, "message": message, "at": time.time()}
                raise SwitchError(message) from None
            self._install(chosen, grabber, "set-up page")
            message = f"Camera: now using {chosen.label}"
            self.last_switch = {"ok": True, "message": message, "at": time.time()}
            self.session.notify(message)
            return message
        finally:
            self.switching_to = None
            self._switching.release()

    def _trial(self, chosen: ChosenSource, timeout: float) -> Any:
        """Start a grabber on `chosen` and wait for its first frame; raise SourceError if none."""
        from vision.sources.base import SourceError
        from vision.sources.grabber import Grabber
        from vision.sources.open import open_source

        grabber = Grabber(open_source(chosen.spec, check=False), loop=chosen.demo).start()
        deadline = time.monotonic() + timeout
        while True:
            if grabber.latest(timeout=0.2) is not None:
                return grabber
            state = grabber.state()
            if state.status in ("reconnecting", "failed", "ended") or time.monotonic() > deadline:
                grabber.stop(timeout=0.5)
                raise SourceError(state.last_error or f"no picture came in {timeout:.0f} s")

    @property
    def grabber(self) -> Any:
        """The grabber of the camera in use (None in manual mode)."""
        return self._grabber

    @property
    def detector(self) -> Any:
        """The detector the pipeline finds pieces with (None when no model opened)."""
        return self._detector

    @property
    def tile_reader(self) -> Any:
        """The enrolled-tile reader the scene stage identifies tiles with (None before start)."""
        return self._tile_reader

    def saved_calibration(self) -> TableCalibration | None:
        """The calibration in use, else the saved one even if it does not fit this camera."""
        if self.calibration is not None or self.mode == "demo":
            return self.calibration
        try:
            return TableCalibration.load(self.settings.calibration or self.data_dir / FILE_NAME)
        except CalibrationError:
            return None

    def chosen_label(self) -> str:
        """Name the camera in use for people (never a folder of this computer)."""
        return self.chosen.label if self.chosen is not None else "no camera"

    def _plain(self, message: str) -> str:
        """Say a message without the data folder's place on this computer."""
        for folder in {str(self.data_dir.resolve()), str(self.data_dir)}:
            message = message.replace(folder + "/", "").replace(folder, "the data folder")
        return message

    def stop(self) -> None:
        """Stop the thread, the preview and release the camera."""
        self._stop.set()
        self.preview.shutdown()
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
            return
        made_for, label = self.calibration.camera, self.chosen_label()
        if made_for and made_for != label:
            self._problem(
                f"the calibration was made for another camera ({made_for}), not {label}: "
                "calibrate again for this camera (Calibrate the table on the set-up page)"
            )

    def _load_model(self) -> None:
        from vision.perception.detector import ModelError
        from vision.perception.model_choice import choose_models, open_models

        choice = choose_models(self.data_dir, self.settings.model)
        try:
            self._detector, note = open_models(choice, self.settings.localiser)
            if note:
                self._model_notes = [note]
                self.problems.append(note)
        except ModelError as error:
            if choice.taught is not None:  # a taught reader that no longer opens: the shipped
                self._problem(
                    f"the taught die reader of {choice.taught.created} does not open "
                    f"({self._plain(str(error))}): the shipped reader reads the dice"
                )
                try:
                    self._detector, _ = open_models(
                        choice.shipped_reader(), self.settings.localiser
                    )
                    return
                except ModelError as again:
                    error = again
            self._problem(f"detector: {error}. The video is shown; enter events by hand")

    def use_faces(self, faces: Path | None, taught: Any = None) -> str:
        """Read dice with the taught model `taught` (None: the shipped reader; `faces` is its
        reader file, as the page names it: `vision.perception.model_choice` decides from `taught`)
        from the next frame on, without a restart; return the reader's name ("shipped" or a taught
        model's). Raises ModelError, and nothing changes, when it does not open."""
        from vision.perception.model_choice import choose_models, open_models

        choice = choose_models(self.data_dir, self.settings.model, taught)
        detector, _ = open_models(choice, self.settings.localiser)
        self._detector = detector
        self._loop = None  # the pipeline is rebuilt on the new reader
        self._game_id = None
        return self._faces_name() or "none"

    def faces_file(self) -> str | None:
        """Return the path of the face reader the pipeline reads dice with (None: no reader)."""
        reader = getattr(self._detector, "faces", None)
        return str(reader.model_path) if reader is not None else None

    def _load_tiles(self) -> None:
        from calibration.enrollment import EnrollmentError, TileLibrary, tiles_dir
        from vision.stages.tile_reader import EnrolledTileReader

        folder = tiles_dir(self.data_dir / "tiles")
        try:
            library = TileLibrary.load(folder) if folder.is_dir() else TileLibrary.default()
        except EnrollmentError as error:
            self._problem(f"enrolled tiles: {error}; using the default tiles")
            library = TileLibrary.default()
        self._tile_reader = EnrolledTileReader(library)

    # ----- the loop -------------------------------------------------------------------------

    def _run(self, grabber: Any, stop: threading.Event) -> None:
        from vision.live_loop import LiveLoop

        loop = LiveLoop(grabber, self._frame, on_error=self._failed, wait_when_finished=True)
        loop.run(stop)

    def _failed(self, frame: Any, error: Exception) -> None:
        """A bad frame never stops the game being watched: it is counted on the dashboard."""
        if self._loop is not None:
            self._loop.stats.errors += 1
            self._loop.stats.last_error = f"{type(error).__name__}: {error}"

    def _frame(self, frame: Any) -> None:
        self._restart_demo_on_loop(frame)
        self._check_size(frame)
        self._check_drift(frame)
        if self.ring is not None:
            self.ring.offer_from(self.session, frame.image)
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
        """Keep the demo game in step with the demo video.

        The game's clock runs with the video: it starts at "Escape!" as the video starts (the
        soundtrack's introduction is skipped), and is set back in step when they drift apart.
        When the video starts over, the same saved game starts over with it (its record back to
        the setup line, "Demo restarted" said once a loop): one saved game, not one a loop.
        """
        previous, self._last_source_t = self._last_source_t, frame.source_t
        if self.mode != "demo" or frame.source_t is None or not self.playing_demo():
            return
        at = float(frame.source_t)
        looped = previous is not None and at + 1.0 < previous
        if looped or (self._demo_game_id != self.session.game_id and at < 1.0):
            self._replay_demo(at, announce=looped)
            return
        clock = self.session.clock
        in_step = self._demo_game_id == self.session.game_id and clock.status == "running"
        if in_step and abs(clock.t - at) > DEMO_DRIFT_SECONDS:
            self.session.move_clock(at)

    def _replay_demo(self, at: float, announce: bool) -> None:
        """Start the demo game over in its own saved game, its clock at `at` s after "Escape!"."""
        session = self.session
        with session.lock:
            game_id = session.game_id
            if game_id is None:
                return
            try:
                session.start_over_in_place(at)
            except SaveFailed as error:
                session.notify(str(error))
                return
            session.tick()
            self._demo_game_id = game_id
            self._loop = None  # a fresh pipeline: the table starts over too
            if announce:
                session.notify(DEMO_RESTARTED)
        log.info("demo game %s in step with the video at %.1f s", game_id, at)

    def start_demo_game(self) -> str:
        """Start the demo recording's game with the video from its beginning; return its id.

        Pressed again while the demo game plays, the same saved game starts over.
        """
        if self.demo_setup is None or self.chosen is None:
            raise SwitchError("the demo recording is not playing (a camera is in use)")
        if not self.playing_demo():
            self.session.new_game(dict(self.demo_setup), "auto")
        self._demo_game_id = None  # its clock starts with the video's first frame
        note = self.note
        self._install(self.chosen, self._open(self.chosen), self.origin or "default")
        self.note = note
        assert self.session.game_id is not None
        return self.session.game_id

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
        from vision.stages.scene import SceneReader

        game = self.session.game
        players = list(game.players) if game is not None else []
        scene = SceneReader(self.calibration, players, tile_reader=self._game_tiles(game))
        pipeline = build_pipeline(self._detector, scene, lambda: self.session.game)
        self._loop = FrameRunner(pipeline, self._record, self._show)
        self._game_id = game_id
        return self._loop

    def _game_tiles(self, game: Any) -> Any:
        """The tile reader of the game's own tiles (its catalog: the modules it plays)."""
        if self._tile_reader is None or game is None:
            return self._tile_reader
        return self._tile_reader.for_game(game.catalog)

    def _record(self, event: dict[str, Any]) -> None:
        try:
            self.session.record(event, source="vision")
        except SessionError as error:
            log.info("vision event dropped: %s", error)
        except SaveFailed as error:  # the page says so; the camera sees the change again
            log.warning("vision event not saved: %s", error)
            self.session.notify(str(error))

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

    def _faces_name(self) -> str | None:
        """Name the die reader in use: a taught model's name, "shipped", or None (none)."""
        from vision.perception.model_choice import reader_name

        return reader_name(self.faces_file(), self.data_dir)

    def state_json(self, lang: str = DEFAULT_LANGUAGE) -> dict[str, Any]:
        """Return the camera's and the pipeline's state for the dashboard (its notes and waiting
        messages in `lang`)."""
        loop = self._loop
        maker = loop.pipeline.maker if loop is not None else None
        camera = self._grabber.state().to_json() if self._grabber is not None else None
        if camera is not None and self.chosen is not None:
            camera["source"] = self.chosen.label
            if camera["last_error"]:
                camera["last_error"] = self._plain(camera["last_error"])
        return {
            "mode": self.mode,
            "note": note_in(lang, self.note) if self.note else self.note,
            "source": self.chosen.to_json() if self.chosen is not None else None,
            "origin": self.origin,
            "cli_camera": bool(self.settings.camera),
            "switching_to": self.switching_to,
            "last_switch": self.last_switch,
            "problems": [note_in(lang, problem) for problem in self.problems[-5:]],
            "calibrated": self.calibration is not None,
            "camera_moved": self.moved,
            "model": str(self._detector.model_path.name) if self._detector is not None else None,
            "faces": self._faces_name(),
            "camera": camera,
            "pipeline": loop.stats.to_json() if loop is not None else None,
            "waiting": [
                waiting_in(lang, text, self.session.game, list(maker.pending.values()))
                for text in sorted(maker.waiting.values())
            ]
            if maker is not None
            else [],
            "demo_game": self.demo_setup is not None,
            "playing_demo": self.playing_demo(),
            "video_t": self._last_source_t if self.mode == "demo" else None,
        }
