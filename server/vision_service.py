"""The camera and the vision pipeline, run for the session: events in, annotated video out."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from base.words import DEFAULT_LANGUAGE
from calibration.table import FILE_NAME, TableCalibration
from server.camera_choice import ChosenSource, demo_choice
from server.camera_preview import Preview
from server.session import Session
from server.vision_checks import ViewChecks
from server.vision_demo import DemoPlayback, demo_files
from server.vision_models import VisionModels
from server.vision_pipeline import GamePipeline
from server.vision_words import note_in, plain, waiting_in

log = logging.getLogger(__name__)

VIEWER_SECONDS = 5.0
"""Frames are annotated and encoded only while someone watched the video this recently."""
IDLE_FRAME_SECONDS = 0.2
"""Without a game (or a calibration) the raw video is still shown, at most this often."""
SWITCH_SECONDS = 20.0
"""A source chosen on the page must give a picture this soon (a stream's open times out in 10)."""


class SwitchError(Exception):
    """A chosen source gave no picture (or a switch is under way); nothing changed."""


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
    """Owns the camera source's life (open, switch, stop, the loop's thread) and publishes its
    video; never stops the game when something is missing. Holds the models (`models`), the
    game's pipeline and its calibration (`pipeline`), the demo game's playback (`demo`) and the
    frames' checks against the calibration (`checks`)."""

    def __init__(self, session: Session, settings: VisionSettings, data_dir: Path) -> None:
        self.session = session
        self.settings = settings
        self.data_dir = data_dir
        self.mode = "off"
        self.note: str | None = None
        self.problems: list[str] = []
        self.models = VisionModels(data_dir, settings.model, settings.localiser, self._problem)
        self.pipeline = GamePipeline(
            session,
            self.models,
            settings.calibration or data_dir / FILE_NAME,
            self._problem,
            self._show,
        )
        self.demo = DemoPlayback(session, self._problem)
        self.checks = ViewChecks(self._problem)
        self._grabber: Any = None
        self._jpeg: bytes | None = None
        self._jpeg_version = 0
        self._jpeg_cond = threading.Condition()
        self._watched = 0.0
        self._last_idle_frame = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
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
        self.problems += self.models.open_detector()
        self.models.load_tiles()
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
                        f"open: {plain(str(error), self.data_dir)}. Choose another on the "
                        "set-up page"
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
        self.demo.clear()
        self.checks.reset()
        self.problems = list(self.models.notes)
        if chosen.demo:
            self.pipeline.use_calibration(self.demo.load(demo_files()))
        else:
            self.pipeline.load_calibration(self.chosen_label())
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
                    f"{chosen.label} did not work: {plain(str(error), self.data_dir)}. "
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

    def start_demo_game(self) -> str:
        """Start the demo recording's game with the video from its beginning; return its id.

        Pressed again while the demo game plays, the same saved game starts over.
        """
        if self.demo.setup is None or self.chosen is None:
            raise SwitchError("the demo recording is not playing (a camera is in use)")
        self.demo.start_game()
        note = self.note
        self._install(self.chosen, self._open(self.chosen), self.origin or "default")
        self.note = note
        assert self.session.game_id is not None
        return self.session.game_id

    @property
    def grabber(self) -> Any:
        """The grabber of the camera in use (None in manual mode)."""
        return self._grabber

    @property
    def detector(self) -> Any:
        """The detector the pipeline finds pieces with (None when no model opened)."""
        return self.models.detector

    @property
    def tile_reader(self) -> Any:
        """The enrolled-tile reader the scene stage identifies tiles with (None before start)."""
        return self.models.tile_reader

    @property
    def calibration(self) -> TableCalibration | None:
        """The table's calibration for the camera in use (None: the video is only shown)."""
        return self.pipeline.calibration

    @property
    def demo_setup(self) -> dict[str, Any] | None:
        """The demo recording's setup line; None unless the demo recording is the source."""
        return self.demo.setup

    def saved_calibration(self) -> TableCalibration | None:
        """The calibration in use, else the saved one even if it does not fit this camera."""
        if self.mode == "demo":
            return self.calibration
        return self.pipeline.saved_calibration()

    def chosen_label(self) -> str:
        """Name the camera in use for people (never a folder of this computer)."""
        return self.chosen.label if self.chosen is not None else "no camera"

    def stop(self) -> None:
        """Stop the thread, the preview and release the camera."""
        self._stop.set()
        self.preview.shutdown()
        if self._thread is not None:
            self._thread.join(5.0)
        if self._grabber is not None:
            self._grabber.stop()

    def _problem(self, message: str) -> None:
        """Say what is wrong: on the panel, in the log and on the page."""
        self.problems.append(message)
        log.warning("vision: %s", message)
        self.session.notify(message)

    # ----- the loop -------------------------------------------------------------------------

    def _run(self, grabber: Any, stop: threading.Event) -> None:
        from vision.live_loop import LiveLoop

        loop = LiveLoop(grabber, self._frame, on_error=self._failed, wait_when_finished=True)
        loop.run(stop)

    def _failed(self, frame: Any, error: Exception) -> None:
        """A bad frame never stops the game being watched: it is counted on the dashboard."""
        runner = self.pipeline.runner
        if runner is not None:
            runner.stats.errors += 1
            runner.stats.last_error = f"{type(error).__name__}: {error}"

    def _frame(self, frame: Any) -> None:
        if self.demo.follow(frame):
            self.pipeline.forget()  # a fresh pipeline: the table starts over too
        if not self.checks.fits(frame, self.calibration, live=self.mode == "camera"):
            self.pipeline.use_calibration(None)
        if self.ring is not None:
            self.ring.offer_from(self.session, frame.image)
        runner = self.pipeline.for_game()
        if runner is None:
            now = time.monotonic()
            if self.watched and now - self._last_idle_frame >= IDLE_FRAME_SECONDS:
                self._last_idle_frame = now
                self._publish(np.ascontiguousarray(frame.image[::2, ::2]))
            return
        runner.step(frame)

    def _show(self, result: Any, image: np.ndarray) -> None:
        calibration = self.calibration
        if not self.watched or calibration is None:
            return
        from vision.annotate import annotate

        runner = self.pipeline.runner
        assert runner is not None
        self._publish(annotate(image, result, calibration, runner.pipeline.scene.grid))

    # ----- for the calibration, enrollment and dice pages -----------------------------------

    def snapshot(self, timeout: float = 2.0) -> np.ndarray | None:
        """Return a copy of the camera's newest raw frame (BGR), or None when there is none."""
        if self._grabber is None:
            return None
        frame = self._grabber.latest(timeout=timeout)
        return None if frame is None else frame.image.copy()

    def use_calibration(self, calibration: TableCalibration) -> None:
        """Watch the table with a new calibration from now on (the pipeline is rebuilt)."""
        self.pipeline.use_calibration(calibration)
        self.checks.moved = None
        self.problems = [p for p in self.problems if "calibrat" not in p]

    def use_tiles(self) -> None:
        """Read the enrolled tiles again (after an enrollment); the pipeline is rebuilt."""
        self.models.load_tiles()
        self.pipeline.forget()

    def use_faces(self, faces: Path | None, taught: Any = None) -> str:
        """Read dice with the taught model `taught` (None: the shipped reader; `faces` is its
        reader file, as the page names it: `vision.perception.model_choice` decides from `taught`)
        from the next frame on, without a restart; return the reader's name ("shipped" or a taught
        model's). Raises ModelError, and nothing changes, when it does not open."""
        self.models.use_faces(taught)
        self.pipeline.forget()  # the pipeline is rebuilt on the new reader
        return self.models.faces_name() or "none"

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
        if self._jpeg is None:
            self._show_last_frame()
        with self._jpeg_cond:
            if self._jpeg_version <= after and timeout > 0:
                self._jpeg_cond.wait(timeout)
            return self._jpeg_version, self._jpeg

    def _show_last_frame(self) -> None:
        """Publish the last frame of a recording that played to its end before anyone watched:
        no frame will come to publish, and the dashboard would show no picture at all."""
        grabber = self._grabber
        if grabber is None or grabber.state().status != "ended":
            return
        frame = grabber.latest(timeout=0)
        if frame is not None:
            self._publish(np.ascontiguousarray(frame.image[::2, ::2]))

    def state_json(self, lang: str = DEFAULT_LANGUAGE) -> dict[str, Any]:
        """Return the camera's and the pipeline's state for the dashboard (its notes and waiting
        messages in `lang`)."""
        runner = self.pipeline.runner
        maker = runner.pipeline.maker if runner is not None else None
        camera = self._grabber.state().to_json() if self._grabber is not None else None
        if camera is not None and self.chosen is not None:
            camera["source"] = self.chosen.label
            if camera["last_error"]:
                camera["last_error"] = plain(camera["last_error"], self.data_dir)
        detector = self.models.detector
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
            "camera_moved": self.checks.moved,
            "model": str(detector.model_path.name) if detector is not None else None,
            "faces": self.models.faces_name(),
            "camera": camera,
            "pipeline": runner.stats.to_json() if runner is not None else None,
            "waiting": [
                waiting_in(lang, text, self.session.game, list(maker.pending.values()))
                for text in sorted(maker.waiting.values())
            ]
            if maker is not None
            else [],
            "demo_game": self.demo.setup is not None,
            "playing_demo": self.demo.playing(),
            "video_t": self.demo.video_t if self.mode == "demo" else None,
        }
