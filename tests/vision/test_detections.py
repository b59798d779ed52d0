"""The Detections value type and the box geometry: IoU, class-wise NMS (with properties)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.perception import detections
from vision.perception.detections import Detections, box_iou, nms

NAMES = ("adventurer", "key", "torch")


def make(boxes, conf, cls, names=NAMES) -> Detections:
    return Detections(np.array(boxes, float), np.array(conf, float), np.array(cls), names)


def test_values_are_coerced_and_checked():
    d = make([[0, 0, 10, 10], [5, 5, 20, 20]], [0.9, 0.4], [0, 2])
    assert d.xyxy.dtype == np.float32 and d.xyxy.shape == (2, 4)
    assert d.confidence.dtype == np.float32 and d.class_id.dtype == np.int64
    assert len(d) == 2 and d.names == ["adventurer", "torch"]
    with pytest.raises(ValueError, match="as many"):
        make([[0, 0, 1, 1]], [0.5, 0.6], [0])
    with pytest.raises(ValueError, match="class ids"):
        make([[0, 0, 1, 1]], [0.5], [3])
    assert len(Detections.empty(NAMES)) == 0


def test_selection_filters_and_concatenation():
    d = make([[0, 0, 10, 10], [5, 5, 20, 20], [1, 1, 2, 2]], [0.9, 0.4, 0.2], [0, 2, 1])
    assert d[1].names == ["torch"]
    assert len(d[1:]) == 2
    assert d[np.array([True, False, True])].names == ["adventurer", "key"]
    assert d.above(0.4).names == ["adventurer", "torch"]
    assert d.with_classes(["key", "torch", "not_a_class"]).names == ["torch", "key"]
    both = Detections.concatenate([d, d[:1]])
    assert len(both) == 4 and both.class_names == NAMES
    assert list(both.sorted().confidence) == sorted(both.confidence, reverse=True)
    with pytest.raises(ValueError, match="different class lists"):
        Detections.concatenate([d, make([], [], [], names=("gem",))])


def test_a_guessed_face_stays_with_its_box():
    boxes = [[0, 0, 10, 10], [5, 5, 20, 20], [1, 1, 2, 2]]
    d = Detections(
        np.array(boxes, float), [0.9, 0.4, 0.2], [0, 2, 1], NAMES, [-1, 1, -1], [0, 0.4, 0]
    )
    assert d.guessed_name(1) == ("key", pytest.approx(0.4)) and d.guessed_name(0) == (None, 0.0)
    assert d.sorted().guessed_name(1) == ("key", pytest.approx(0.4))  # 0.4: second surest
    assert d.clip(8, 8).guessed_name(1)[0] == "key" and d.above(0.3).guessed_name(1)[0] == "key"
    assert (make(boxes, [0.9, 0.4, 0.2], [0, 2, 1]).guesses == -1).all()  # none given: none
    with pytest.raises(ValueError, match="one guess"):
        Detections(np.array(boxes, float), [0.9, 0.4, 0.2], [0, 2, 1], NAMES, [-1, 1], [0, 0])
    with pytest.raises(ValueError, match="guessed class ids"):
        Detections(np.array(boxes, float), [0.9, 0.4, 0.2], [0, 2, 1], NAMES, [-1, 3, -1])


def test_clip_and_json():
    d = make([[-5.04, 3.06, 25.56, 30.0]], [0.93456], [1])
    assert d.clip(20, 20).xyxy.tolist() == [pytest.approx([0.0, 3.06, 20.0, 20.0])]
    assert d.to_json() == [{"class": "key", "conf": 0.935, "box": [-5.0, 3.1, 25.6, 30.0]}]
    assert Detections.empty(NAMES).to_json() == []


def test_box_iou_known_values():
    a = np.array([[0, 0, 10, 10], [0, 0, 0, 0]], float)
    b = np.array([[0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30]], float)
    iou = box_iou(a, b)
    assert iou.shape == (2, 3)
    np.testing.assert_allclose(iou[0], [1.0, 50 / 150, 0.0])
    np.testing.assert_allclose(iou[1], [0.0, 0.0, 0.0])  # an empty box overlaps nothing
    assert box_iou(np.zeros((0, 4)), b).shape == (0, 3)


def test_nms_is_class_wise_unless_agnostic():
    boxes = [[0, 0, 10, 10], [1, 0, 11, 10], [0, 0, 10, 10], [50, 50, 60, 60]]
    d = make(boxes, [0.9, 0.8, 0.7, 0.6], [0, 0, 1, 0])
    kept = d.nms(0.5)
    assert kept.names == ["adventurer", "key", "adventurer"]
    np.testing.assert_allclose(kept.confidence, [0.9, 0.7, 0.6], rtol=1e-6)
    assert d.nms(0.5, agnostic=True).confidence.tolist() == pytest.approx([0.9, 0.6])
    assert nms(np.zeros((0, 4)), np.zeros(0), 0.5).tolist() == []


@st.composite
def box_sets(draw):
    n = draw(st.integers(0, 30))
    coords = st.floats(0, 200, allow_nan=False, width=32)
    sizes = st.floats(0.5, 80, allow_nan=False, width=32)
    boxes = []
    for _ in range(n):
        x, y, w, h = draw(coords), draw(coords), draw(sizes), draw(sizes)
        boxes.append([x, y, x + w, y + h])
    scores = draw(st.lists(st.floats(0, 1, allow_nan=False), min_size=n, max_size=n))
    classes = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    threshold = draw(st.sampled_from([0.3, 0.5, 0.7]))
    return np.array(boxes, float).reshape(-1, 4), np.array(scores), np.array(classes), threshold


@settings(max_examples=150, deadline=None)
@given(box_sets())
def test_nms_properties(data):
    boxes, scores, classes, threshold = data
    keep = nms(boxes, scores, threshold, classes)
    kept = set(keep.tolist())
    assert len(kept) == len(keep)
    iou = box_iou(boxes, boxes)
    same = classes[:, None] == classes[None, :]
    # No two kept boxes of one class overlap above the threshold.
    for i in keep:
        for j in keep:
            if i != j and same[i, j]:
                assert iou[i, j] <= threshold + 1e-9
    # Every dropped box overlaps a kept box of its class, scored at least as high, above it.
    for d in set(range(len(boxes))) - kept:
        assert any(same[d, k] and iou[d, k] > threshold and scores[k] >= scores[d] for k in keep)
    # Kept boxes come best first.
    assert list(scores[keep]) == sorted(scores[keep], reverse=True)


@settings(max_examples=150, deadline=None)
@given(box_sets(), st.booleans())
def test_nms_keeps_the_same_boxes_whether_it_measures_all_pairs_at_once_or_not(data, by_class):
    boxes, scores, classes, threshold = data
    classes = classes if by_class else None
    at_once = nms(boxes, scores, threshold, classes)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(detections, "NMS_MATRIX_MAX", 0)  # as for an evaluation's thousands
        one_by_one = nms(boxes, scores, threshold, classes)
    assert at_once.tolist() == one_by_one.tolist()


def test_nms_of_more_boxes_than_measured_at_once_still_suppresses_overlaps():
    rng = np.random.default_rng(3)
    corners = rng.uniform(0, 2000, (detections.NMS_MATRIX_MAX + 100, 2))
    boxes = np.concatenate([corners, corners + 30], axis=1)
    boxes = np.concatenate([boxes, boxes + 2])  # each box and a near twin
    scores = rng.uniform(0, 1, len(boxes))
    keep = nms(boxes, scores, 0.5)
    iou = box_iou(boxes[keep], boxes[keep])
    np.fill_diagonal(iou, 0)
    assert iou.max() <= 0.5 and len(keep) <= len(boxes) // 2  # never both twins
