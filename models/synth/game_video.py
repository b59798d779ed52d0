"""A rendered video of a game in progress, with its ground-truth game record and calibration.

`render_game(plan)` writes into `plan.out`: game.mp4, record.jsonl (the setup line and every
event the table shows, each with "t" = video seconds at which it is complete and at rest),
calibration.json (a `TableCalibration` from the camera's truth), truth.json (the temple grid
and the camera model) and frames.jsonl (what is true in every frame).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from base.files import write_atomically
from calibration.table import PlayerZone, TableCalibration
from models.synth.game_render import Painter, WebcamLook
from models.synth.game_script import GameScript, frame_count, play_game
from models.synth.game_stage import Stage
from models.synth.game_table import GameTable, TableError, build_table
from models.synth.render import render_scene
from models.synth.settings import SynthSettings

FORMAT = "templecam-synth-game/1"
VIDEO = "game.mp4"
RECORD = "record.jsonl"
CALIBRATION = "calibration.json"
TRUTH = "truth.json"
FRAMES = "frames.jsonl"
OUTPUTS = (VIDEO, RECORD, CALIBRATION, TRUTH, FRAMES)
FRAMES_ABOUT = (
    "one line per video frame: frame, t (= frame / fps); dice: per player, state (rest, "
    "in_hand: picked up to be rolled or moved, tumbling) and each die on the table or in the "
    "air with face (null while tumbling), state (rest, locked, leaning, tumbling), centre_mm "
    "and tilt_deg; hands: player, action, wrist_mm, in_view; figures: each player's cell "
    "(null once escaped); carried: figures in a hand; gems: activated gems per 'x,y' cell; "
    "depot: gems in the depot; pile: tiles in the draw pile; tiles: cell, tile, stairs, gems"
)
"""What frames.jsonl says, written into truth.json."""
"""Every file a game video folder holds."""
FOURCC = "mp4v"
"""MPEG-4 part 2: the codec OpenCV's pip wheels can always write and read."""


class GameVideoError(Exception):
    """The video could not be made (no room on the table, no video encoder); says why."""


@dataclass(frozen=True)
class GamePlan:
    """What one game video is made of."""

    out: Path
    settings: SynthSettings
    players: int
    seconds: float
    fps: float
    seed: int
    noise: float = 0.008
    """Sensor noise (standard deviation, 0..1 of full scale) added to every frame."""


@dataclass
class GameVideoStats:
    """How the rendering went: frames written and how many needed drawing."""

    frames: int = 0
    backgrounds: int = 0
    """Renders of the table with its clutter, depot, pile and temple (after a discovery)."""
    painted: int = 0
    """Frames painted anew (the others show the previous picture with new sensor noise)."""
    seconds: float = 0.0
    events: int = 0

    @property
    def fps(self) -> float:
        """Return frames rendered per second of wall time."""
        return self.frames / self.seconds if self.seconds > 0 else 0.0


def make_game(plan: GamePlan) -> tuple[GameTable, GameScript]:
    """Draw the table and play the game of `plan` (deterministic for its seed)."""
    rng = np.random.default_rng([plan.seed, 0])
    try:
        table = build_table(rng, plan.settings, plan.players, int(rng.integers(0, 3)))
    except TableError as error:
        raise GameVideoError(f"{error}: try another seed") from None
    script = play_game(rng, table.setup_line(), table.fits, plan.seconds, plan.fps)
    return table, script


def calibration_of(table: GameTable) -> TableCalibration:
    """Return the table calibration the renderer's camera makes true."""
    cam = table.scene.camera
    depot = table.scene.depot
    return TableCalibration(
        image_size=(cam.width, cam.height),
        table_to_image=np.round(cam.homography(), 9).tolist(),
        camera_matrix=[[cam.focal, 0.0, cam.cx], [0.0, cam.focal, cam.cy], [0.0, 0.0, 1.0]],
        dist_coeffs=[cam.k1, cam.k2, 0.0, 0.0],
        tile_mm=table.settings.tile_mm,
        die_mm=table.settings.die_mm,
        zones=[
            PlayerZone(player=z.colour, polygon_mm=_rect_polygon(z.rect()))
            for z in table.scene.zones
        ],
        depot_mm=None if depot is None else np.round(depot.quad()[:, :2], 3).tolist(),
        source="renderer",
    )


def _rect_polygon(rect: tuple[float, float, float, float]) -> list[list[float]]:
    x0, y0, x1, y1 = (round(v, 3) for v in rect)
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


def truth_of(plan: GamePlan, table: GameTable, look: WebcamLook) -> dict[str, Any]:
    """Return truth.json: the temple grid, the camera model and how the video was made."""
    return {
        "format": FORMAT,
        "about": (
            "grid: cell [x, y] of the game record has its centre at origin_mm + "
            "tile_mm * R(angle_deg) [x, y] in table mm (x east, y north; the start tile at "
            "[0, 0]); tile_mm is the grid pitch (the tile edge plus the gap between tiles); "
            "camera: the renderer's exact camera (models.synth.camera.Camera.from_json)"
        ),
        "grid": {
            "origin_mm": [round(v, 3) for v in table.grid.origin],
            "angle_deg": 0.0,
            "tile_mm": round(table.grid.pitch, 3),
        },
        "tile_edge_mm": table.settings.tile_mm,
        "camera": table.scene.camera.to_json(),
        "settings": table.settings.to_json(),
        "look": look.info,
        "seed": plan.seed,
        "players": table.players,
        "fps": plan.fps,
        "frames": frame_count(plan.seconds, plan.fps),
        "seconds": round(frame_count(plan.seconds, plan.fps) / plan.fps, 4),
        "video": VIDEO,
        "record": RECORD,
        "frames_about": FRAMES_ABOUT,
    }


def _jsonl(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(row, separators=(",", ":")) + "\n" for row in rows).encode("utf-8")


def render_game(
    plan: GamePlan, progress: Callable[[int, int], None] | None = None
) -> GameVideoStats:
    """Render the game video of `plan` and write every output file into `plan.out`."""
    began = time.perf_counter()
    table, script = make_game(plan)
    s = plan.settings
    look = WebcamLook(s.width, s.height, plan.seed, plan.noise)
    stage = Stage(table, script, plan.seed, plan.fps)
    painter = Painter(table.scene, plan.seed)
    plan.out.mkdir(parents=True, exist_ok=True)
    partial = plan.out / f".{VIDEO}.{os.getpid()}.tmp.mp4"
    writer = cv2.VideoWriter(
        str(partial), cv2.VideoWriter_fourcc(*FOURCC), float(plan.fps), (s.width, s.height)
    )
    if not writer.isOpened():
        raise GameVideoError(f"OpenCV cannot write {FOURCC} video to {partial.parent}")
    stats = GameVideoStats(events=len(script.record()) - 1)
    total = frame_count(plan.seconds, plan.fps)
    truths = []
    drawn = (-1, -1)
    background: np.ndarray | None = None
    exposed: np.ndarray | None = None
    try:
        for frame in range(total):
            stage.advance(frame)
            moving = stage.moving(frame)
            if background is None or stage.background_version != drawn[0]:
                rng = np.random.default_rng([plan.seed, 4])
                background = render_scene(stage.background_scene(), rng).canvas.rgb
                stats.backgrounds += 1
            busy = bool(moving.hands or moving.dice or moving.tiles or moving.figures)
            if exposed is None or busy or drawn != (stage.background_version, stage.version):
                still_key = (stage.background_version, stage.version)
                clean = painter.paint(background, stage.still_scene(), moving, still_key)
                exposed = look.expose(clean)
                stats.painted += 1
            drawn = (stage.background_version, -1 if busy else stage.version)
            writer.write(look.noisy(exposed, frame))
            truths.append(stage.truth(frame, moving))
            stats.frames += 1
            if progress is not None:
                progress(frame + 1, total)
    finally:
        writer.release()
    try:
        _check_video(partial, total, s.width, s.height)
        os.replace(partial, plan.out / VIDEO)
    finally:
        partial.unlink(missing_ok=True)
    write_atomically(plan.out / RECORD, _jsonl(script.record()))
    write_atomically(plan.out / FRAMES, _jsonl(truths))
    truth = json.dumps(truth_of(plan, table, look), indent=1) + "\n"
    write_atomically(plan.out / TRUTH, truth.encode("utf-8"))
    calibration_of(table).save(plan.out / CALIBRATION)
    stats.seconds = time.perf_counter() - began
    return stats


def _check_video(path: Path, frames: int, width: int, height: int) -> None:
    """Make sure the written video reads back whole with OpenCV."""
    capture = cv2.VideoCapture(str(path))
    try:
        count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
        size = (
            int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)),
            int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT)),
        )
    finally:
        capture.release()
    if count != frames or size != (width, height):
        raise GameVideoError(
            f"the video written reads back as {count} frames of {size[0]}x{size[1]}, "
            f"not {frames} of {width}x{height}: this OpenCV cannot encode {FOURCC} properly"
        )
