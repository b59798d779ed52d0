"""Decoding the localiser's maps: an object whose centre score ties over two cells is one box."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.synth.frame import render_frames
from vision.perception.localiser import Localiser, LocaliserSettings
from vision.perception.localiser_decode import STRIDE, decode, find_peaks, first_of_ties
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


def _peaks_by_definition(heat: np.ndarray, conf: float) -> list[tuple[int, int, int]]:
    """Every cell scoring `conf` or more that no cell of its 3x3 neighbourhood outscores."""
    classes, height, width = heat.shape
    found = []
    for c in range(classes):
        for r in range(height):
            for q in range(width):
                around = heat[c, max(0, r - 1) : r + 2, max(0, q - 1) : q + 2]
                if heat[c, r, q] >= conf and heat[c, r, q] >= around.max():
                    found.append((c, r, q))
    return found


@st.composite
def stepped_maps(draw):
    """Small heat maps whose scores come in few steps, so that neighbours often tie."""
    classes, height, width = (
        draw(st.integers(1, 3)),
        draw(st.integers(1, 9)),
        draw(st.integers(1, 9)),
    )
    levels = draw(st.integers(1, 5))
    cells = draw(
        st.lists(
            st.integers(0, levels),
            min_size=classes * height * width,
            max_size=classes * height * width,
        )
    )
    heat = (np.array(cells, np.float32) / levels).reshape(classes, height, width)
    return heat, draw(st.sampled_from([0.0, 0.2, 0.5, 1.0]))


@settings(max_examples=200, deadline=None)
@given(stepped_maps())
def test_peaks_are_the_cells_no_neighbour_outscores_in_raster_order(data):
    heat, conf = data
    cls, rows, cols = find_peaks(heat, conf)
    found = list(zip(cls.tolist(), rows.tolist(), cols.tolist(), strict=True))
    assert found == _peaks_by_definition(heat, conf)


@settings(max_examples=200, deadline=None)
@given(stepped_maps(), st.randoms(use_true_random=False))
def test_a_tied_peak_is_kept_only_without_an_equal_earlier_neighbour(data, rnd):
    heat, conf = data
    cls, rows, cols = find_peaks(heat, conf)
    score = heat[cls, rows, cols]
    which = np.array(sorted(rnd.sample(range(len(cls)), rnd.randint(0, len(cls)))), np.int64)
    kept = first_of_ties(cls, rows, cols, score, which).tolist()
    among = {(cls[i], rows[i], cols[i]): score[i] for i in which}
    expected = [
        i
        for i in which.tolist()
        if not any(
            among.get((cls[i], rows[i] + dr, cols[i] + dc)) == score[i]
            for dr, dc in ((-1, -1), (-1, 0), (-1, 1), (0, -1))
        )
    ]
    assert kept == expected
