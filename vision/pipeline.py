"""The vision pipeline: frame -> detections -> observation -> settled changes -> game events."""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from rules.engine import Game
from vision.perception.detections import Detections
from vision.perception.scale import ScaleChoice, follow_camera
from vision.perception.table_detector import TableDetector
from vision.stages.events import EventMaker
from vision.stages.motion import GateResult, MotionGate, MotionSettings
from vision.stages.observation import Observation
from vision.stages.scene import SceneReader
from vision.stages.stability import Settled, Stabiliser


class FrameLike(Protocol):
    """A grabbed frame: the picture, its sequence number and when it was grabbed."""

    image: np.ndarray
    seq: int
    t: float


@dataclass(frozen=True)
class FrameResult:
    """Everything the pipeline made of one frame."""

    seq: int
    t: float
    gate: GateResult
    observation: Observation
    changes: list[Settled]
    events: list[dict[str, Any]]
    ms: dict[str, float]
    """Milliseconds spent per stage: detect, scene, events, total."""

    @property
    def detections(self) -> Detections:
        """Return the frame's detections."""
        return self.gate.detections


@dataclass
class Pipeline:
    """One frame at a time through every stage; no threads, no I/O (the loop adds those)."""

    gate: MotionGate
    scene: SceneReader
    stabiliser: Stabiliser
    maker: EventMaker
    scale: ScaleChoice | None = None
    """The localiser's input scale and why (None: a model without one, the YOLO baseline)."""

    def process(self, image: np.ndarray, seq: int, t: float) -> FrameResult:
        """Run one frame through detection, scene, stability and events."""
        start = time.perf_counter()
        gate = self.gate.process(image, t)
        detected = time.perf_counter()
        fresh = None if gate.full else gate.windows
        game = self.maker.game()
        if game is not None:  # the rules may have moved chambers: the camera's grid follows
            placed = list(game.temple)
            start_cell = next((p.cell for p in placed if p.tile.kind == "start"), None)
            standing = {
                pid: p.cell for pid, p in game.players.items() if p.inside and p.cell is not None
            }
            layout = {p.cell: p.tile.tile_id for p in placed}
            self.scene.follow(layout, start_cell, Counter(standing.values()), standing)
        else:
            self.scene.temple_size = None
        observation = self.scene.observe(
            image,
            gate.detections,
            seq,
            t,
            gate.moving,
            fresh,
            gate.stale,
            gate.motion,
            gate.unseen,
        )
        if game is not None:
            held = {p: player.dice for p, player in game.players.items() if not player.escaped}
            observation = observation.capped(held)
        observed = time.perf_counter()
        self.maker.see(observation)
        changes = self.stabiliser.update(observation)
        events = self.maker.events_for(changes)
        done = time.perf_counter()
        ms = {
            "detect": (detected - start) * 1000,
            "scene": (observed - detected) * 1000,
            "events": (done - observed) * 1000,
            "total": (done - start) * 1000,
        }
        return FrameResult(seq, t, gate, observation, changes, events, ms)


def build_pipeline(
    detector: TableDetector,
    scene: SceneReader,
    game: Callable[[], Game | None],
    gate: bool = True,
) -> Pipeline:
    """The pipeline the dashboard and the benchmark run: motion gate focused on the zones
    (`gate` False: everything re-detected every frame, to measure what the gate saves), the
    localiser at the scale the calibration's die size asks for (`vision.perception.scale`)."""
    detector, choice = follow_camera(detector, scene.calibration)
    settings = replace(motion_settings(detector), gate=gate)
    gate_stage = MotionGate(detector.detect, settings, focus=scene.zone_polygons())
    return Pipeline(gate_stage, scene, Stabiliser(), EventMaker(game), choice)


def motion_settings(detector: TableDetector) -> MotionSettings:
    """Windows for this model: small ones for a dynamic input, its full input size otherwise."""
    if detector.info.dynamic_size:
        return MotionSettings(stride=detector.info.stride)
    side = max(detector.info.imgsz)
    return MotionSettings(window=max(side, MotionSettings.window), min_window=side)


@dataclass
class LoopStats:
    """How the vision loop is keeping up (shown on the dashboard)."""

    frames: int = 0
    events: int = 0
    errors: int = 0
    last_error: str = ""
    started: float = field(default_factory=time.monotonic)
    recent: deque[tuple[float, float]] = field(default_factory=lambda: deque(maxlen=60))
    """(when processed, total ms) of the last frames."""

    def to_json(self) -> dict[str, Any]:
        """Return the figures as JSON: processed fps and median ms over the last frames."""
        fps = 0.0
        if len(self.recent) >= 2:
            span = self.recent[-1][0] - self.recent[0][0]
            fps = (len(self.recent) - 1) / span if span > 0 else 0.0
        ms = float(np.median([m for _, m in self.recent])) if self.recent else None
        return {
            "frames": self.frames,
            "events": self.events,
            "errors": self.errors,
            "last_error": self.last_error,
            "fps": round(fps, 1),
            "ms_median": None if ms is None else round(ms, 1),
        }


class FrameRunner:
    """Runs each frame through the pipeline, hands its events on, and keeps the figures.

    The live loop (`vision.live_loop.LiveLoop`, run by the dashboard's vision service and both
    benchmarks) decides which frame comes next; its caller, what else happens between frames.
    """

    def __init__(
        self,
        pipeline: Pipeline,
        on_event: Callable[[dict[str, Any]], Any],
        on_result: Callable[[FrameResult, np.ndarray], None] | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.on_event = on_event
        self.on_result = on_result
        self.stats = LoopStats()

    def step(self, frame: FrameLike) -> FrameResult:
        """Process one frame and deliver its events."""
        result = self.pipeline.process(frame.image, frame.seq, frame.t)
        for event in result.events:
            self.on_event(event)
        self.stats.frames += 1
        self.stats.events += len(result.events)
        self.stats.recent.append((time.monotonic(), result.ms["total"]))
        if self.on_result is not None:
            self.on_result(result, frame.image)
        return result
