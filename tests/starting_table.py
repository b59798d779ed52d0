"""A rendered table laid out as page 5 sets it up, for the "Read from the camera" tests: the
starting chamber with known chambers left and right of it, seen by a camera whose calibration
the renderer makes true (as `templecam synth --game` writes calibration.json and truth.json)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.table import TableCalibration
from models.synth.game_render import WebcamLook
from models.synth.game_table import build_table
from models.synth.game_video import calibration_of
from models.synth.render import render_scene
from models.synth.settings import SynthSettings
from rules.catalog import basic_catalog
from rules.vocabulary import neighbour, opposite


@dataclass(frozen=True)
class StartingTable:
    """One rendered frame (BGR) of a starting temple, its calibration and what lies where."""

    image: np.ndarray
    calibration: TableCalibration
    chambers: dict[str, str | None]
    """The tile id laid on each side of the starting chamber (W, E); None: nothing there."""


def render_starting_temple(west: str | None, east: str | None, seed: int = 0) -> StartingTable:
    """Render a two-player table with `west` and `east` (tile ids, or None for an empty cell)
    laid beside the starting chamber, stairways towards it."""
    settings = SynthSettings()
    catalog = basic_catalog()
    for attempt in range(40):
        rng = np.random.default_rng([seed, attempt])
        table = build_table(rng, settings, 2, 0)
        if table.fits((-1, 0)) and table.fits((1, 0)):
            break
    else:
        raise RuntimeError(f"no table with room beside the start for seed {seed}")
    chambers = {"W": west, "E": east}
    for side, tile_id in chambers.items():
        if tile_id is not None:
            cell = neighbour((0, 0), side)
            table.scene.chambers.append(table.chamber(rng, catalog[tile_id], cell, opposite(side)))
    look = WebcamLook(settings.width, settings.height, seed, 0.008)
    rgb = render_scene(table.scene, np.random.default_rng([seed, 4])).canvas.rgb
    return StartingTable(look.noisy(look.expose(rgb), 0), calibration_of(table), chambers)


def write_camera_folder(table: StartingTable, folder: Path, frames: int = 3) -> Path:
    """Write the table as an image folder a server can use as its camera, with calibration.json
    and truth.json beside it; return the image folder."""
    images = folder / "frames"
    images.mkdir(parents=True, exist_ok=True)
    for i in range(frames):
        cv2.imwrite(str(images / f"frame_{i}.png"), table.image)
    table.calibration.save(folder / "calibration.json")
    (folder / "truth.json").write_text(json.dumps({"starting_chambers": table.chambers}))
    return images
