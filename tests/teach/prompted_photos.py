"""Rendered prompted captures of a dice look the shipped reader never trained on, for tests."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from models.synth.prompted import TRUTH, write_prompted
from models.synth.settings import SynthSettings

HELD_OUT = SynthSettings(look="held_out")
"""Cherry wood, another maker's print colours, a low sun (never in the reader's training)."""


def render_captures(out: Path, per_face: int = 2, empty: int = 1, seed: int = 3) -> Path:
    """Write prompted captures (and their hidden ground truth) into `out`; return it."""
    write_prompted(out, HELD_OUT, per_face, empty, seed)
    return out


def copy_captures(source: Path, out: Path) -> Path:
    """Copy a capture folder (photos and truth) so that a test may change it."""
    shutil.copytree(source, out)
    return out


def truth_dice(folder: Path, file: str) -> list[dict]:
    """Return the readable dice of one rendered capture, from its hidden ground truth."""
    scene = json.loads((folder / TRUTH / file).with_suffix(".json").read_text())
    return [d for d in scene["dice"] if d.get("face") and d.get("box")]


def truth_boxes(folder: Path, file: str) -> np.ndarray:
    """Return the boxes (N, 4) of the readable dice of one rendered capture."""
    return np.array([d["box"] for d in truth_dice(folder, file)], float).reshape(-1, 4)
