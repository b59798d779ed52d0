"""The shipped localiser and face reader, on ONNX Runtime, find no die on a patch of a rendered
table that holds only clutter (beads, coins, tokens, other games' crystals, cards, pencils)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.synth.draw_trinkets import TRINKET_KINDS
from models.synth.frame import render_frame
from models.synth.settings import SynthSettings
from vision.perception.classes import DIE_CLASSES
from vision.perception.localiser import Localiser, LocaliserSettings
from vision.perception.shipped import LOCALISER, shipped_path

ROOT = Path(__file__).resolve().parents[2]
MODEL = shipped_path(LOCALISER)
NATIVE_DIE_PX = 15.0
"""The die edge in input px the shipped localiser expects (its `native_die_px` metadata)."""

pytestmark = pytest.mark.skipif(not MODEL.is_file(), reason="no shipped localiser")


def _pieces(scene: dict) -> np.ndarray:
    """Return the boxes of every piece of the game the frame shows (dice, gems, figures...)."""
    boxes = [d["box"] for d in scene["dice"] if d["box"]]
    boxes += [g["box"] for g in scene["gems"]["items"] if g["box"]]
    boxes += [f["box"] for f in scene["figures"] if f["box"]]
    boxes += [h["box"] for h in scene["hands"] if h["box"]]
    return np.array(boxes, np.float64).reshape(-1, 4)


def _clutter_patches(seed: int, frames: int, pad: int) -> list[tuple[np.ndarray, float, str]]:
    """Return (patch, die px, kind) windows around trinkets with no piece of the game in them."""
    out = []
    for index in range(frames):
        frame = render_frame(SynthSettings(), seed, index)
        pieces = _pieces(frame.scene)
        sizes = [d["size_px"] for d in frame.scene["dice"] if d["size_px"]]
        die_px = float(np.median(sizes)) if sizes else 30.0
        h, w = frame.image.shape[:2]
        for item in frame.scene["clutter"]:
            if item["kind"] not in TRINKET_KINDS or item["box"] is None:
                continue
            x0, y0, x1, y1 = item["box"]
            win = np.array([x0 - pad, y0 - pad, x1 + pad, y1 + pad], np.float64)
            win = np.clip(win, 0, [w, h, w, h]).astype(int)
            overlaps = (
                (pieces[:, 0] < win[2])
                & (pieces[:, 2] > win[0])
                & (pieces[:, 1] < win[3])
                & (pieces[:, 3] > win[1])
            )
            if overlaps.any() or win[2] - win[0] < 48 or win[3] - win[1] < 48:
                continue
            out.append((frame.image[win[1] : win[3], win[0] : win[2]].copy(), die_px, item["kind"]))
    return out


def test_no_die_is_found_on_clutter_alone():
    patches = _clutter_patches(seed=61, frames=3, pad=40)
    assert len(patches) >= 5, "the renderer should leave some trinkets clear of the pieces"
    localiser = Localiser(MODEL, LocaliserSettings(threads=2))
    found = []
    for patch, die_px, kind in patches:
        localiser.scale = NATIVE_DIE_PX / die_px  # the scale calibration would choose
        detections = localiser.detect(patch)
        dice = [n for n in detections.names if n in DIE_CLASSES]
        if dice:
            found.append((kind, dice))
    assert not found, f"dice found on clutter: {found} of {len(patches)} patches"
