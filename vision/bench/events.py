"""Score the whole vision pipeline on a rendered game video against its ground-truth record."""

from __future__ import annotations

import dataclasses
import json
import resource
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from calibration.enrollment import TileLibrary
from calibration.table import TableCalibration
from rules.engine import Game
from rules.game_setup import parse_setup
from vision.annotate import annotate, to_jpeg
from vision.live_loop import LiveLoop
from vision.perception.table_detector import TableDetector
from vision.pipeline import FrameRunner, build_pipeline
from vision.sources.base import Frame
from vision.sources.grabber import Grabber
from vision.sources.open import open_source
from vision.stages.events import EventMaker
from vision.stages.grid import Grid
from vision.stages.observation import Observation, SeenDie, SeenTile
from vision.stages.pairing import closest_first
from vision.stages.scene import SceneReader
from vision.stages.stability import Stabiliser
from vision.stages.tile_reader import EnrolledTileReader

TIME_WINDOW = (-1.0, 6.0)
"""A seen event matches a true one within this many seconds of its time (before, after)."""
COUNTED = ("dice", "discover", "enter", "activate", "escape", "unlock")
END_GRACE = 0.5
"""True events this close to the video's end are not counted: nothing can settle after it."""


class GameVideoError(Exception):
    """A game-video folder that lacks a file or holds a broken one."""


@dataclass(frozen=True)
class GameVideo:
    """A rendered game: the video, its game record (setup + true events) and its calibration."""

    video: Path
    setup: dict[str, Any]
    events: list[dict[str, Any]]
    calibration: TableCalibration
    grid: Grid | None = None
    """The temple grid, from the renderer's truth.json when there is one."""

    @classmethod
    def load(cls, folder: str | Path) -> GameVideo:
        """Read `game.mp4`, `record.jsonl` and `calibration.json` from a folder."""
        root = Path(folder)
        paths = {name: root / name for name in ("game.mp4", "record.jsonl", "calibration.json")}
        missing = [name for name, path in paths.items() if not path.is_file()]
        if missing:
            raise GameVideoError(
                f"{root} lacks {', '.join(missing)}: render one with "
                "`templecam synth --game --out DIR`"
            )
        try:
            lines = [
                json.loads(x)
                for x in paths["record.jsonl"].read_text("utf-8").splitlines()
                if x.strip()
            ]
        except ValueError as error:
            raise GameVideoError(f"{paths['record.jsonl']} is not JSON Lines: {error}") from None
        if not lines or lines[0].get("type") != "setup":
            raise GameVideoError(f"{paths['record.jsonl']} must start with a setup line")
        calibration = TableCalibration.load(paths["calibration.json"])
        return cls(paths["game.mp4"], lines[0], lines[1:], calibration, _truth_grid(root))

    def scene(self, players: Sequence[str]) -> SceneReader:
        """A scene stage for this video: its calibration, the packaged tiles of its game."""
        catalog = parse_setup(self.setup).catalog
        reader = EnrolledTileReader(TileLibrary.default()).for_game(catalog)
        return SceneReader(self.calibration, players, tile_reader=reader)

    def frame_rate(self) -> tuple[float, int]:
        """(frames per second, frame count) as the video file says; 0 where it does not."""
        import cv2

        capture = cv2.VideoCapture(str(self.video))
        try:
            fps = capture.get(cv2.CAP_PROP_FPS)
            frames = capture.get(cv2.CAP_PROP_FRAME_COUNT)
            return (float(fps) if 0 < fps < 1000 else 0.0), max(0, int(frames))
        finally:
            capture.release()


def _truth_grid(root: Path) -> Grid | None:
    """The temple grid that truth.json gives, if the folder has a readable one."""
    try:
        grid = json.loads((root / "truth.json").read_text("utf-8"))["grid"]
        origin = (float(grid["origin_mm"][0]), float(grid["origin_mm"][1]))
        return Grid(origin, float(grid["angle_deg"]), float(grid["tile_mm"]))
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def event_key(event: dict[str, Any]) -> tuple[Any, ...]:
    """What must agree for a seen event to count as the true one (player, cell, values)."""
    kind = event.get("type")
    if kind == "dice":
        return (kind, event.get("player"), tuple(sorted(event.get("faces", []))))
    if kind == "discover":
        return (kind, event.get("player"), tuple(event.get("cell", ())), event.get("tile"))
    if kind == "enter":
        return (kind, event.get("player"), tuple(event.get("cell", ())))
    if kind == "activate":
        return (kind, tuple(event.get("cell", ())), event.get("gems"))
    if kind == "unlock":
        return (kind, event.get("player"), event.get("count", 1))
    return (kind, event.get("player"))


@dataclass
class Score:
    """How the seen events compare with the true ones."""

    true_events: int
    recovered: int
    spurious: int
    minutes: float
    latencies: list[float] = field(default_factory=list)
    missed: list[dict[str, Any]] = field(default_factory=list)
    extra: list[dict[str, Any]] = field(default_factory=list)
    rejected: int = 0
    """Events the engine rejected (shown as warnings; they change nothing)."""
    warmup: float = 0.0
    """Video seconds until the first frame was through the pipeline: what lay on the table
    before is the game's start, not a change, and its events count for recovery only."""
    change_latencies: list[float] = field(default_factory=list)
    """Latencies of the events that happened after the warm-up (changes on the table)."""
    change_types: list[str] = field(default_factory=list)
    """The type of each event of `change_latencies`, in the same order."""
    counted: list[dict[str, Any]] = field(default_factory=list)
    """The true events that count (every type of COUNTED, before the video's last moments)."""
    misread_rolls: int = 0
    """True rolls whose player's roll was reported in time, but with a wrong face."""
    corrected: int = 0
    """Events the camera took back later (`correct` lines): each counts as spurious, whatever
    it was, and never as recovered (the table saw it, then lost it)."""

    def by_type(self) -> dict[str, dict[str, Any]]:
        """Return per event type: true events, recovered, and the share recovered."""
        total = Counter(e["type"] for e in self.counted)
        missed = Counter(e["type"] for e in self.missed)
        return {
            kind: {
                "true": total[kind],
                "recovered": total[kind] - missed[kind],
                "share": round((total[kind] - missed[kind]) / total[kind], 4),
            }
            for kind in COUNTED
            if total[kind]
        }

    def latency_by_type(self) -> dict[str, float | None]:
        """Return per event type the p95 latency of the changes recovered, in ms."""
        latencies: dict[str, list[float]] = {}
        for kind, latency in zip(self.change_types, self.change_latencies, strict=True):
            latencies.setdefault(kind, []).append(latency)
        return {kind: _percentile(latencies[kind], 95) for kind in COUNTED if kind in latencies}

    def whole_rolls(self) -> float | None:
        """Return the share of true rolls reported with every die read right (None: no rolls)."""
        rolls = self.by_type().get("dice")
        return None if rolls is None else rolls["share"]

    def to_json(self) -> dict[str, Any]:
        """Return the figures: recovered share, spurious per minute, latency p50/p95 in ms."""
        return {
            "true_events": self.true_events,
            "recovered": self.recovered,
            "recovered_share": round(self.recovered / max(1, self.true_events), 4),
            "spurious": self.spurious,
            "spurious_per_minute": round(self.spurious / max(self.minutes, 1e-9), 2),
            "rejected_by_engine": self.rejected,
            "warmup_s": round(self.warmup, 2),
            "latency_ms_p50": _percentile(self.change_latencies, 50),
            "latency_ms_p95": _percentile(self.change_latencies, 95),
            "latency_ms_p95_with_warmup": _percentile(self.latencies, 95),
            "latency_ms_p95_by_type": self.latency_by_type(),
            "recovered_by_type": self.by_type(),
            "whole_rolls": self.whole_rolls(),
            "misread_rolls": self.misread_rolls,
            "corrected_by_camera": self.corrected,
            "missed_by_type": dict(Counter(e["type"] for e in self.missed)),
            "spurious_by_type": dict(Counter(e["type"] for e in self.extra)),
        }


def _percentile(seconds: Sequence[float], q: float) -> float | None:
    """The q-th percentile of latencies in seconds, as ms (None when there are none)."""
    return round(float(np.percentile(np.asarray(seconds) * 1000, q)), 1) if seconds else None


def score(
    truth: Sequence[dict[str, Any]],
    seen: Sequence[tuple[float, dict[str, Any]]],
    minutes: float,
    end_t: float | None = None,
    warmup: float = 0.0,
    struck: Sequence[dict[str, Any]] = (),
) -> Score:
    """Match the events the engine accepted (video time, event) to true ones by key (`_pairs`).

    True events after `end_t - END_GRACE` (the video's last moments) are not counted, and
    neither is seeing them; those before `warmup` count for recovery but not in the change
    latencies. `struck`: events accepted, then taken back by a correction (spurious, all).
    """
    last = float("inf") if end_t is None else end_t - END_GRACE
    late = [e for e in truth if e.get("type") in COUNTED and float(e.get("t", 0.0)) > last]
    truth = [e for e in truth if e.get("type") in COUNTED and float(e.get("t", 0.0)) <= last]
    pairs = _pairs(truth, seen)
    late_pairs = _pairs(late, seen, set(pairs.values()))  # seeing one in time is no spurious one
    used = [False] * len(seen)
    for j in [*pairs.values(), *late_pairs.values()]:
        used[j] = True
    result = Score(len(truth), 0, 0, minutes, warmup=warmup, counted=list(truth))
    for i, event in enumerate(truth):
        if i not in pairs:
            result.missed.append(event)
            continue
        latency = max(0.0, seen[pairs[i]][0] - float(event.get("t", 0.0)))
        result.recovered += 1
        result.latencies.append(latency)
        if float(event.get("t", 0.0)) >= warmup:
            result.change_latencies.append(latency)
            result.change_types.append(str(event["type"]))
    result.extra = [e for (_, e), u in zip(seen, used, strict=True) if not u] + list(struck)
    result.spurious = len(result.extra)
    result.corrected = len(struck)
    result.misread_rolls = sum(
        any(
            e["type"] == "dice"
            and e.get("player") == roll.get("player")
            and TIME_WINDOW[0] <= seen_t - float(roll.get("t", 0.0)) <= TIME_WINDOW[1]
            for seen_t, e in seen
        )
        for roll in result.missed
        if roll["type"] == "dice"
    )
    return result


SUMMED = (
    ("recovered_share", min),
    ("spurious_per_minute", max),
    ("latency_ms_p95", max),
    ("whole_rolls", min),
)
"""The figures a set of games is summed up by, with what picks its worst game."""


def summarise(games: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Return the worst game's figure and the spread (lowest, highest) of each summed figure,
    and per event type the worst share recovered and the worst p95 latency, over the figures
    of several games."""
    out: dict[str, Any] = {"games": len(games)}
    for key, worst in SUMMED:
        values = [g[key] for g in games if g.get(key) is not None]
        if values:
            out[key] = {"worst": worst(values), "spread": [min(values), max(values)]}
    kinds: dict[str, list[float]] = {}
    late: dict[str, list[float]] = {}
    for game in games:
        for kind, figures in game.get("recovered_by_type", {}).items():
            kinds.setdefault(kind, []).append(figures["share"])
        for kind, p95 in game.get("latency_ms_p95_by_type", {}).items():
            if p95 is not None:
                late.setdefault(kind, []).append(p95)
    out["worst_by_type"] = {kind: min(shares) for kind, shares in kinds.items()}
    out["worst_latency_ms_p95_by_type"] = {kind: max(values) for kind, values in late.items()}
    return out


def _pairs(
    truth: Sequence[dict[str, Any]],
    seen: Sequence[tuple[float, dict[str, Any]]],
    taken: Iterable[int] = (),
) -> dict[int, int]:
    """Pair true events (index) with seen ones (index, none of `taken`) that are the same event
    in time, each at most once, the pairs closest in time first: a roll seen once, when a player
    rolled the same faces twice within the window, is the roll it came soonest after, not the
    older one."""
    return closest_first(
        (
            (abs(seen_t - float(event.get("t", 0.0))), i, j)
            for i, event in enumerate(truth)
            for j, (seen_t, candidate) in enumerate(seen)
            if TIME_WINDOW[0] <= seen_t - float(event.get("t", 0.0)) <= TIME_WINDOW[1]
            and event_key(candidate) == event_key(event)
        ),
        taken,
    )


def observation_from_truth(frame: dict[str, Any], grid: Grid | None = None) -> Observation:
    """Turn one line of a rendered video's frames.jsonl into what a perfect scene stage sees.

    With the temple's `grid`, a hand's wrist over a cell reaches it from that hand's player.
    """
    reach: dict[tuple[int, int], str] = {}
    for hand in frame.get("hands", []) if grid is not None else []:
        cell = grid.cell_of(hand["wrist_mm"]) if grid is not None else None
        if cell is not None:
            reach.setdefault(cell, str(hand["player"]))
    dice: dict[str, tuple[SeenDie, ...]] = {}
    busy: set[str] = set()
    for player, zone in frame["dice"].items():
        dice[player] = tuple(
            SeenDie(
                None if d["state"] == "tumbling" else d["face"],
                (float(d["centre_mm"][0]), float(d["centre_mm"][1])),
                1.0,
            )
            for d in zone["dice"]
        )
        if zone["state"] != "rest":
            busy.add(player)
    gems = frame.get("gems") or {}
    return Observation(
        seq=int(frame["frame"]),
        t=float(frame["t"]),
        dice=dice,
        tiles={tuple(t["cell"]): SeenTile(t["tile"], t["stairs"], 1.0) for t in frame["tiles"]},
        gems={tuple(int(v) for v in k.split(",")): int(n) for k, n in gems.items()},
        depot_gems=frame.get("depot"),
        figures={p: (tuple(c) if c is not None else None) for p, c in frame["figures"].items()},
        busy=frozenset(busy),
        hands=len(frame.get("hands", [])),
        reach=reach,
    )


@dataclass
class SeenEvents:
    """The events a run delivered to its game, as the record stands (corrections applied)."""

    game: Game
    seen: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    """(time, event) of each accepted event still standing."""
    lines: list[int] = field(default_factory=list)
    """The record line of each of `seen`."""
    struck: list[dict[str, Any]] = field(default_factory=list)
    """Events accepted, then taken back by a correction."""
    rejected: list[tuple[dict[str, Any], str]] = field(default_factory=list)

    def deliver(self, t: float, event: dict[str, Any]) -> bool:
        """Apply an event to the game; tell whether the engine took it."""
        verdict = self.game.apply(event)
        if not verdict.ok:
            self.rejected.append((event, verdict.reason or ""))
            return False
        if event.get("type") != "correct":
            self.seen.append((t, event))
            self.lines.append(self.game.lines[-1].line)
            return True
        if event["line"] in self.lines:
            index = self.lines.index(event["line"])
            self.struck.append(self.seen[index][1])
            del self.seen[index], self.lines[index]
        if event.get("event") is not None:  # put right: seen now, in its old line's place
            self.seen.append((t, event["event"]))
            self.lines.append(event["line"])
        return True


def run_truth_observations(game_video: GameVideo, frames_jsonl: Path) -> Score:
    """Score the stability and event stages alone, fed the renderer's true observations."""
    game = Game.from_setup_line(game_video.setup)
    stabiliser, maker = Stabiliser(), EventMaker(lambda: game)
    grid = game_video.grid
    delivered = SeenEvents(game)
    last_t = 0.0
    with frames_jsonl.open(encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            observation = observation_from_truth(json.loads(line), grid)
            last_t = observation.t
            maker.see(observation)
            for event in maker.events_for(stabiliser.update(observation)):
                delivered.deliver(observation.t, event)
    minutes = max(last_t, 1e-3) / 60.0
    result = score(
        game_video.events, delivered.seen, minutes, end_t=last_t, struck=delivered.struck
    )
    result.rejected = len(delivered.rejected)
    return result


def rss_mb() -> float:
    """Resident memory of this process now, in MB (Linux /proc; else the peak)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * resource.getpagesize() / 1e6
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1000


@dataclass
class RunResult:
    """One run of the pipeline over a game video."""

    score: Score
    frames_grabbed: int
    frames_processed: int
    frames_dropped: int
    ms_median: float
    memory_mb: list[float]
    accepted: int
    rejected: list[tuple[dict[str, Any], str]]
    scale: float | None = None
    """The localiser's input scale the pipeline chose (None: a model without one)."""

    def to_json(self) -> dict[str, Any]:
        """Return every figure as JSON."""
        memory = self.memory_mb or [0.0]
        return {
            **self.score.to_json(),
            "frames_grabbed": self.frames_grabbed,
            "frames_processed": self.frames_processed,
            "frames_dropped": self.frames_dropped,
            "pipeline_ms_median": round(self.ms_median, 1),
            "memory_mb_first": round(memory[0], 1),
            "memory_mb_last": round(memory[-1], 1),
            "memory_mb_max": round(max(memory), 1),
            "engine_accepted": self.accepted,
            "localiser_scale": None if self.scale is None else round(self.scale, 3),
        }


def run_game_video(
    game_video: GameVideo,
    detector: TableDetector,
    *,
    stream_video: bool = True,
    realtime: bool = True,
    gate: bool = True,
    progress: Callable[[float], None] | None = None,
) -> RunResult:
    """Play the video in real time through the grabber and the whole pipeline, as a camera.

    With `realtime` False every frame is processed, however long it takes (accuracy without
    the speed limit); times are then video seconds. With `gate` False every frame is detected
    whole (no motion gating), to measure what the gate saves.

    Events go to a rules engine (as they would to the dashboard's session); with `stream_video`
    every processed frame is also annotated and JPEG-encoded, as for a watching dashboard.
    """
    game = Game.from_setup_line(game_video.setup)
    players = list(game.players)
    scene = game_video.scene(players)
    pipeline = build_pipeline(detector, scene, lambda: game, gate=gate)
    delivered = SeenEvents(game)
    start: dict[str, float] = {}
    memory: list[float] = []
    timings: list[float] = []

    def deliver(event: dict[str, Any]) -> None:
        now = time.monotonic() - start["t0"] if realtime else start["video_t"]
        delivered.deliver(now, event)

    def stream(result: Any, image: np.ndarray) -> None:
        if stream_video:
            to_jpeg(annotate(image, result, game_video.calibration, scene.grid))

    source = open_source(str(game_video.video))
    duration = _duration(game_video)
    runner = FrameRunner(pipeline, deliver, stream)
    last_memory = [0.0]

    def handle(frame: Frame) -> None:
        if "t0" not in start:  # the first frame shows video time source_t
            start["t0"] = frame.t - (frame.source_t or 0.0)
        start["video_t"] = frame.source_t or 0.0
        if not realtime:  # every frame, however long: the pipeline lives in video time
            frame = dataclasses.replace(frame, t=frame.source_t or 0.0)
        timings.append(runner.step(frame).ms["total"])
        now = time.monotonic()
        if "ready" not in start:
            start["ready"] = (now - start["t0"]) if realtime else start["video_t"]
        if now - last_memory[0] >= 1.0:
            last_memory[0] = now
            memory.append(rss_mb())
            if progress is not None and duration:
                done = (now - start["t0"]) if realtime else start["video_t"]
                progress(min(1.0, done / duration))

    with Grabber(source, realtime=realtime) as grabber:
        LiveLoop(grabber, handle, wait=2.0, carry_on=False, name="bench events").run()
        state = grabber.state()
    ms = timings or [0.0]
    minutes = (duration or 60.0) / 60.0
    result = score(
        game_video.events,
        delivered.seen,
        minutes,
        end_t=duration,
        warmup=start.get("ready", 0),
        struck=delivered.struck,
    )
    result.rejected = len(delivered.rejected)
    return RunResult(
        score=result,
        frames_grabbed=state.frames,
        frames_processed=runner.stats.frames,
        frames_dropped=state.dropped,
        ms_median=float(np.median(ms)),
        memory_mb=memory,
        accepted=len(delivered.seen),
        rejected=delivered.rejected,
        scale=None if pipeline.scale is None else pipeline.scale.scale,
    )


def _duration(game_video: GameVideo) -> float | None:
    fps, frames = game_video.frame_rate()
    return frames / fps if fps > 0 and frames > 0 else None
