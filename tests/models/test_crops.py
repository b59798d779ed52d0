"""The crop renderer: labels, looks, sizes, boxes, and the same crops from any number of workers."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from models.synth.crop_look import HELD_OUT, HELD_OUT_LOOK, TRAIN_LOOK, Look, parse_look
from models.synth.crop_set import label_index, render_set
from models.synth.crops import KINDS, LABELS, LEAN_TILT, TIPPED, UNKNOWN, render_crop
from vision.perception.face_reader import CROP_SCALE, NOT_DIE

FACES = LABELS[:5]


@pytest.fixture(scope="module")
def training_crops():
    """Two hundred crops of the training look."""
    return [render_crop(3, i, TRAIN_LOOK, 40) for i in range(200)]


def test_crops_have_the_input_size_and_every_class_is_drawn(training_crops):
    assert all(c.image.shape == (40, 40, 3) and c.image.dtype == np.uint8 for c in training_crops)
    labels = Counter(c.label for c in training_crops)
    assert set(labels) == {*LABELS, UNKNOWN}
    assert labels[NOT_DIE] > 0.2 * len(training_crops)
    small = render_crop(3, 0, TRAIN_LOOK, 24)
    assert small.image.shape == (24, 24, 3)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_gets_its_label(kind):
    crops = [render_crop(11, i, TRAIN_LOOK, 40, kind=kind) for i in range(6)]
    labels = {c.label for c in crops}
    if kind == "die":
        assert labels <= {*FACES, UNKNOWN} and labels & set(FACES)
        for crop in crops:
            if crop.label != UNKNOWN:
                assert crop.label == crop.info["face"] and crop.info["seen"] >= 0.6
    elif kind == "unknown":
        assert labels == {UNKNOWN}
    else:
        assert labels == {NOT_DIE}
    assert all(c.info["kind"] == kind for c in crops)


def test_boxes_are_imprecise_around_dice_and_clear_of_dice_elsewhere(training_crops):
    dice = [c for c in training_crops if c.label in FACES]
    others = [c for c in training_crops if c.label == NOT_DIE]
    iou = np.array([c.info["iou"] for c in dice])
    assert iou.min() >= 0.35 and np.median(iou) < 0.95  # near the die, but seldom exact
    assert max(c.info["iou"] for c in others) < 0.3


def test_the_same_seed_and_index_give_the_same_crop():
    a = render_crop(7, 5, TRAIN_LOOK, 40)
    b = render_crop(7, 5, TRAIN_LOOK, 40)
    c = render_crop(7, 6, TRAIN_LOOK, 40)
    np.testing.assert_array_equal(a.image, b.image)
    assert a.label == b.label and a.info == b.info
    assert not np.array_equal(a.image, c.image)


def test_the_held_out_look_never_appears_in_training_crops(training_crops):
    for crop in training_crops:
        assert crop.info["wood"] != HELD_OUT["wood"]
        assert crop.info["print"] != HELD_OUT["print"]
        assert crop.info["light"] != HELD_OUT["light"]
    for i in range(30):
        info = render_crop(4, i, HELD_OUT_LOOK, 40).info
        assert (info["wood"], info["print"], info["light"]) == tuple(HELD_OUT.values())
    assert set(TRAIN_LOOK.woods).isdisjoint(HELD_OUT_LOOK.woods)


def test_looks_are_parsed_and_unknown_families_refused():
    assert parse_look("train") == TRAIN_LOOK and parse_look("held_out") == HELD_OUT_LOOK
    look = parse_look("wood=cherry+pale, light=lamp")
    assert look.woods == ("cherry", "pale") and look.lights == ("lamp",)
    assert look.prints == TRAIN_LOOK.prints
    assert parse_look(look.describe()) == look
    with pytest.raises(ValueError, match="wood"):
        parse_look("wood=plastic")
    with pytest.raises(ValueError):
        parse_look("colour=red")
    with pytest.raises(ValueError):
        Look((), ("standard",), ("lamp",))


def test_swapped_key_and_torch_colours_occur():
    swapped = [render_crop(5, i, TRAIN_LOOK, 40, kind="die").info["swapped"] for i in range(60)]
    assert 0 < sum(swapped) < len(swapped)


def test_a_set_is_the_same_from_one_process_or_two():
    alone = render_set(24, 9, TRAIN_LOOK, 32, CROP_SCALE, workers=0, chunk=10)
    pooled = render_set(24, 9, TRAIN_LOOK, 32, CROP_SCALE, workers=2, chunk=10)
    np.testing.assert_array_equal(alone.images, pooled.images)
    np.testing.assert_array_equal(alone.labels, pooled.labels)
    assert alone.images.shape == (24, 32, 32, 3) and len(alone.infos) == 24
    expected = [label_index(render_crop(9, i, TRAIN_LOOK, 32).label) for i in (0, 13, 23)]
    assert alone.labels[[0, 13, 23]].tolist() == expected
    assert label_index(UNKNOWN) == -1 and label_index(NOT_DIE) == LABELS.index(NOT_DIE)


def test_leaning_dice_rest_on_a_neighbour_and_are_read_past_a_tipped_die_s_limit():
    crops = [render_crop(13, i, TRAIN_LOOK, 40, kind="die") for i in range(120)]
    leaning = [c for c in crops if c.info["leaning"]]
    assert len(leaning) >= 20
    for crop in leaning:
        assert LEAN_TILT[0] <= crop.info["tilt"] <= LEAN_TILT[1] and crop.info["neighbours"] >= 1
    read = [c for c in leaning if c.label != UNKNOWN]
    assert all(c.label == c.info["face"] for c in read)
    assert any(c.info["tilt"] > 30 for c in read)  # steeper than any readable die lying alone
    for crop in crops:
        if not crop.info["leaning"] and crop.label in FACES:
            assert crop.info["tilt"] <= 20


def test_unreadable_tipped_dice_are_tipped_beyond_any_leaning_die():
    crops = [render_crop(17, i, TRAIN_LOOK, 40, kind="unknown") for i in range(40)]
    tipped = [c for c in crops if c.info["how"] == "tilt"]  # the others are smeared or covered
    assert tipped and all(TIPPED[0] <= c.info["tilt"] <= TIPPED[1] for c in tipped)
    assert TIPPED[0] > LEAN_TILT[1]
