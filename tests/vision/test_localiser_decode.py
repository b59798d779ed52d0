"""Decoding the localiser's maps: an object whose centre score ties over two cells is one box."""

from __future__ import annotations

import numpy as np
import pytest

from models.synth.frame import render_frames
from vision.perception.localiser import Localiser, LocaliserSettings
from vision.perception.localiser_decode import STRIDE, decode
from vision.perception.shipped import LOCALISER, LOCALISER_INT8, shipped_path

GEM = 5


def _maps(peaks: list[tuple[int, int, int, float]], size_px: float = 12.0):
    """Heat (11 classes) and box maps of 32 x 32 cells with the given (class, row, col, score)."""
    heat = np.zeros((11, 32, 32), np.float32)
    box = np.zeros((4, 32, 32), np.float32)
    box[0] = box[1] = np.log(size_px)
    for c, r, q, s in peaks:
        heat[c, r, q] = s
    return heat, box


@pytest.mark.parametrize("dr, dc", [(0, 1), (1, 0), (1, 1), (1, -1)])
def test_a_small_object_peaking_on_two_cells_of_equal_score_is_one_box(dr, dc):
    heat, box = _maps([(GEM, 10, 10, 0.6), (GEM, 10 + dr, 10 + dc, 0.6)])
    xyxy, score, cls = decode(heat, box, 0.3)
    assert cls.tolist() == [GEM] and score.tolist() == pytest.approx([0.6])
    centre = (xyxy[0, :2] + xyxy[0, 2:]) / 2  # at the first cell in raster order, (10, 10)
    assert centre.tolist() == pytest.approx([10.5 * STRIDE, 10.5 * STRIDE])


def test_a_run_of_three_equal_cells_is_one_box_and_objects_apart_stay_two():
    heat, box = _maps([(GEM, 5, 5, 0.5), (GEM, 5, 6, 0.5), (GEM, 5, 7, 0.5), (GEM, 5, 9, 0.5)])
    _, _, cls = decode(heat, box, 0.3)
    assert cls.tolist() == [GEM, GEM]


def test_equal_neighbours_of_two_classes_are_two_objects():
    heat, box = _maps([(GEM, 5, 5, 0.5), (0, 5, 6, 0.5)])
    _, _, cls = decode(heat, box, 0.3)
    assert sorted(cls.tolist()) == [0, GEM]


def test_the_int8_localiser_boxes_each_gem_once_as_the_float_one_does():
    frames = render_frames(3, seed=32)
    counts = {}
    for name in (LOCALISER, LOCALISER_INT8):
        localiser = Localiser(shipped_path(name), LocaliserSettings(faces="off")).at_scale(0.5)
        found = [localiser.detect(frame, conf=0.3) for frame in frames]
        counts[name] = [int((d.class_id == GEM).sum()) for d in found]
        for d in found:
            gems = d.xyxy[d.class_id == GEM]
            centres = (gems[:, :2] + gems[:, 2:]) / 2
            apart = np.linalg.norm(centres[:, None] - centres[None], axis=2)
            np.fill_diagonal(apart, np.inf)
            # Two boxes of one gem lie a cell (STRIDE input px, 8 frame px) apart.
            assert apart.min(initial=np.inf) > 1.5 * STRIDE / 0.5
    assert counts[LOCALISER_INT8] == counts[LOCALISER]
    assert sum(counts[LOCALISER]) > 0
