"""The die-face second stage: crop geometry, the shipped classifier on a rendered frame, and the
detector's re-reading of its dice (merge, rename, drop), all on real ONNX Runtime."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.synth.frame import render_frame
from models.synth.settings import SynthSettings
from vision.perception.detections import Detections, box_iou
from vision.perception.detector import Detector, DetectorSettings, ModelError
from vision.perception.face_reader import (
    CLASSES,
    DIE_CLASSES,
    NOT_DIE,
    PAD_VALUE,
    UNREADABLE,
    FaceModelError,
    FaceReader,
    crop_square,
    crop_window,
    default_faces_path,
    open_face_reader,
    reread_dice,
)
from vision.perception.shipped import FACES_INT8

NAMES = ("adventurer", "key", "torch", "golden_mask", "black_mask", "gem", "die_unreadable")
"""A detector's classes for hand-made detections (a subset of the real model's)."""
FACES = NAMES[:5]
SHIPPED = default_faces_path()
BASELINE = SHIPPED.parent / "templecam-baseline.onnx"
needs_shipped = pytest.mark.skipif(
    not SHIPPED.is_file(),
    reason="vision/data/models/templecam-faces.onnx is not there (templecam train --faces)",
)


# --- Crop geometry ----------------------------------------------------------------------------


def test_crop_window_is_a_square_centred_on_the_box():
    x0, y0, x1, y1 = crop_window([100, 200, 140, 220], scale=1.5)
    assert x1 - x0 == y1 - y0 == 60  # 1.5 x the longer side (40)
    assert (x0 + x1) / 2 == 120 and (y0 + y1) / 2 == 210
    tiny = crop_window([10, 10, 11, 11])
    assert tiny[2] - tiny[0] == tiny[3] - tiny[1] >= 8


@pytest.mark.parametrize(
    "window",
    [(-10, -20, 30, 20), (80, 40, 120, 80), (-5, 50, 35, 90), (-50, -50, -10, -10)],
)
def test_crops_at_image_borders_are_padded_grey_and_keep_the_pixels_inside(window):
    height, width = 64, 100
    yy, xx = np.mgrid[0:height, 0:width]
    image = np.dstack([xx, yy, (xx + yy) % 256]).astype(np.uint8)
    x0, y0, x1, y1 = window
    crop = crop_square(image, window, x1 - x0)  # no resize: pixel for pixel
    assert crop.shape == (y1 - y0, x1 - x0, 3)
    for row in range(crop.shape[0]):
        for col in range(crop.shape[1]):
            y, x = y0 + row, x0 + col
            inside = 0 <= y < height and 0 <= x < width
            expected = image[y, x] if inside else (PAD_VALUE,) * 3
            assert tuple(crop[row, col]) == tuple(expected)


def test_crops_are_resized_to_the_input_size():
    image = np.zeros((50, 50, 3), np.uint8)
    image[20:30, 20:30] = 255
    small = crop_square(image, (15, 15, 35, 35), 64)
    assert small.shape == (64, 64, 3)
    assert small[32, 32].tolist() == [255, 255, 255] and small[2, 2].tolist() == [0, 0, 0]
    big = crop_square(image, (-25, -25, 75, 75), 40)
    assert big.shape == (40, 40, 3) and big[0, 0].tolist() == [PAD_VALUE] * 3


def test_the_reader_never_imports_torch():
    code = (
        "import sys, vision.perception.face_reader, vision.perception.detector\n"
        "bad = [m for m in ('torch', 'ultralytics') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[2])


def test_a_file_that_is_no_classifier_is_refused(tmp_path):
    with pytest.raises(FaceModelError, match="no face classifier"):
        FaceReader(tmp_path / "none.onnx")
    (tmp_path / "junk.onnx").write_bytes(b"junk")
    with pytest.raises(FaceModelError, match="not a usable ONNX model"):
        FaceReader(tmp_path / "junk.onnx")


def test_faces_setting_parses_and_a_missing_classifier_is_a_model_error(tmp_path):
    settings = DetectorSettings.parse(f"tile=0 faces={tmp_path / 'x.onnx'}")
    assert settings.faces == str(tmp_path / "x.onnx")
    assert DetectorSettings.parse("faces=OFF").faces == "off"
    assert DetectorSettings.parse("faces=off").describe() == "faces=off"
    with pytest.raises(ValueError, match="faces"):
        DetectorSettings(faces="")
    with pytest.raises(ModelError, match="no face classifier"):
        Detector(BASELINE, DetectorSettings(faces=str(tmp_path / "missing.onnx")))
    with pytest.raises(ModelError, match="not a die-face classifier"):  # a detector is none
        Detector(BASELINE, DetectorSettings(faces=str(BASELINE)))


@needs_shipped
def test_the_localiser_and_the_detector_open_the_reader_one_way(tmp_path):
    from vision.perception.localiser import Localiser, LocaliserSettings
    from vision.perception.models import default_model

    assert open_face_reader("off") is None
    assert open_face_reader("float", threads=1).model_path == SHIPPED
    assert open_face_reader("auto", threads=1).model_path == SHIPPED.with_name(FACES_INT8)
    missing = str(tmp_path / "missing.onnx")
    for opening in (
        lambda: Detector(BASELINE, DetectorSettings(faces=missing)),
        lambda: Localiser(default_model()[0], LocaliserSettings(faces=missing)),
        lambda: open_face_reader(missing),
    ):
        with pytest.raises(ModelError, match=f"faces={missing}: no face classifier"):
            opening()


@needs_shipped
def test_the_turns_setting_reaches_the_reader_and_a_bad_one_is_refused():
    from vision.perception.localiser import Localiser, LocaliserSettings
    from vision.perception.models import default_model

    assert LocaliserSettings().turns == 4
    once = LocaliserSettings.parse("turns=1 threads=1")
    assert once.turns == 1 and "turns=1" in once.describe()
    reader = Localiser(default_model()[0], once).faces
    assert reader is not None and reader.turns == 1
    for bad in ("turns=0", "turns=5"):
        with pytest.raises(ValueError, match=f"{bad}: give 1 to 4"):
            LocaliserSettings.parse(bad)
    with pytest.raises(ValueError, match="turns takes a number"):
        LocaliserSettings.parse("turns=many")


# --- The shipped classifier on a rendered frame -------------------------------------------------


@pytest.fixture(scope="module")
def frame():
    """The fixed 1080p frame of the detector's shipped-model test (15 readable dice)."""
    return render_frame(SynthSettings(), 3, 0)


@pytest.fixture(scope="module")
def reader():
    if not SHIPPED.is_file():
        pytest.skip(
            "vision/data/models/templecam-faces.onnx is not there (templecam train --faces)"
        )
    return FaceReader(SHIPPED, threads=2)


def _dice(scene, readable=True, at_rest=False):
    """The scene's labelled dice: readable ones (label a face) or unreadable ones."""
    return [
        d
        for d in scene["dice"]
        if d["box"] is not None
        and (d["label"] in FACES if readable else d["label"] == NAMES[6])
        and (d["state"] == "rest" or not at_rest)
    ]


def _others(scene):
    """Boxes of gems and figures in the scene, away from every die."""
    dice = np.array([d["box"] for d in scene["dice"] if d["box"]], float)
    items = [*scene["gems"]["items"], *scene["figures"]]
    boxes = np.array([it["box"] for it in items if it["box"]], float)
    near = box_iou(boxes, dice).max(axis=1) > 0
    return boxes[~near]


@needs_shipped
def test_the_shipped_reader_reads_the_faces_of_a_rendered_frame(frame, reader):
    assert {*FACES, NOT_DIE} <= set(reader.names) <= set(CLASSES) and reader.imgsz > 0
    dice = _dice(frame.scene)
    assert {d["label"] for d in dice} == set(FACES)
    labels, conf = reader.read(frame.image, np.array([d["box"] for d in dice], float))
    assert conf.shape == (len(dice),) and ((conf > 0) & (conf <= 1)).all()
    # Every die at rest is read right; a tilted one is read right or with less than even odds.
    wrong = [
        (d["label"], d["state"], said, round(float(c), 2))
        for d, said, c in zip(dice, labels, conf, strict=True)
        if said != d["label"] and (d["state"] == "rest" or c >= 0.5)
    ]
    assert not wrong, f"misread dice (truth, state, read, share): {wrong}"
    assert sum(d["state"] == "rest" for d in dice) >= 12
    # Gems and figures are no dice.
    others = _others(frame.scene)
    labels, _ = reader.read(frame.image, others)
    assert len(others) >= 5 and labels.count(NOT_DIE) >= 0.9 * len(others)


@needs_shipped
def test_reading_is_batched_and_the_same_box_by_box(frame, reader):
    boxes = np.array([d["box"] for d in frame.scene["dice"] if d["box"]], float)
    together = reader.probabilities(frame.image, boxes)
    alone = np.concatenate([reader.probabilities(frame.image, b[None]) for b in boxes])
    assert together.shape == (len(boxes), len(reader.names))
    np.testing.assert_allclose(together, alone, atol=1e-5)
    np.testing.assert_allclose(together.sum(axis=1), 1.0, atol=1e-4)
    assert reader.read(frame.image, np.zeros((0, 4)))[0] == []


def _patches_around_dice(frame, reader):
    """Square patches of the frame centred on its dice at rest, sized so that the crop window
    of the box [0, 0, S, S] lies whole pixels around the patch (no rounding on any turn)."""
    patches = []
    for die in _dice(frame.scene, at_rest=True)[:6]:
        x1, y1, x2, y2 = die["box"]
        side = 2 * round(max(x2 - x1, y2 - y1))
        while round(side * reader.crop_scale) % 2:
            side += 2
        cx, cy = round((x1 + x2) / 2), round((y1 + y2) / 2)
        half = side // 2
        patches.append(
            np.ascontiguousarray(frame.image[cy - half : cy + half, cx - half : cx + half])
        )
    return patches


@needs_shipped
def test_a_die_read_unsurely_reads_the_same_however_the_camera_turns_it(frame):
    # A crop read unsurely is read at every quarter turn and the readings averaged: the same
    # crop turned by a quarter turn then gives the same probabilities. Read once, it does not.
    every = FaceReader(SHIPPED, threads=2)
    every.turn_below = 1.01  # every crop counts as unsure here
    once = FaceReader(SHIPPED, threads=2, turns=1)
    patches = _patches_around_dice(frame, every)
    assert len(patches) >= 5
    moved = 0.0
    for patch in patches:
        box = np.array([[0, 0, patch.shape[1], patch.shape[0]]], float)
        for turn in (1, 2, 3):
            turned = np.ascontiguousarray(np.rot90(patch, turn))
            np.testing.assert_allclose(
                every.probabilities(turned, box), every.probabilities(patch, box), atol=2e-3
            )
            change = once.probabilities(turned, box) - once.probabilities(patch, box)
            moved = max(moved, float(np.abs(change).max()))
    assert moved > 0.01


@needs_shipped
def test_only_crops_read_unsurely_are_read_turned(frame, reader):
    assert reader.turns == 4 and 0.5 < reader.turn_below < 1
    once = FaceReader(SHIPPED, threads=2, turns=1)
    boxes = np.array([d["box"] for d in frame.scene["dice"] if d["box"]], float)
    boxes = np.concatenate([boxes, _others(frame.scene)])
    first = once.probabilities(frame.image, boxes)
    read = reader.probabilities(frame.image, boxes)
    sure = first.max(axis=1) >= reader.turn_below
    assert sure.any() and (~sure).any()
    np.testing.assert_allclose(read[sure], first[sure], atol=1e-6)
    assert np.abs(read[~sure] - first[~sure]).max() > 1e-3
    np.testing.assert_allclose(read.sum(axis=1), 1.0, atol=1e-4)


@needs_shipped
def test_a_die_at_the_frame_edge_is_read(frame, reader):
    # Shift the frame so that a die lies half a crop margin past the left edge.
    die = _dice(frame.scene, at_rest=True)[0]
    x1, y1, x2, y2 = die["box"]
    shift = int(x1) - 2
    image = np.ascontiguousarray(frame.image[:, shift:])
    labels, _ = reader.read(image, np.array([[x1 - shift, y1, x2 - shift, y2]], float))
    assert labels == [die["label"]]


# --- The detector's second stage --------------------------------------------------------------


@needs_shipped
def test_dice_are_merged_renamed_and_false_ones_dropped(frame, reader):
    dice = _dice(frame.scene, at_rest=True)
    truth = [NAMES.index(d["label"]) for d in dice]
    wrong = [(t + 1) % 5 for t in truth]  # every die named with another face
    boxes = np.array([d["box"] for d in dice], float)
    shifted = boxes + 2.0  # a second box of each die, of the right face, less confident
    others = _others(frame.scene)[:4]
    gem_id = NAMES.index("gem")
    dets = Detections(
        np.concatenate([boxes, shifted, others, others]),
        np.concatenate([np.full(len(dice), 0.9), np.full(len(dice), 0.5), [0.8] * 8]),
        np.concatenate([wrong, truth, [1] * len(others), [gem_id] * len(others)]),
        NAMES,
    )
    out = reread_dice(dets, frame.image, reader, conf=0.25)
    found_dice = out.with_classes(DIE_CLASSES)
    assert len(found_dice) == len(dice), "one detection per die, none on gems"
    iou = box_iou(boxes, found_dice.xyxy)
    _, share = reader.read(frame.image, boxes)
    for j, d in enumerate(dice):
        hit = int(iou[j].argmax())
        assert iou[j, hit] > 0.99, "the most confident box of the die stays"
        assert found_dice.names[hit] == d["label"]
        # The score: sqrt(detector confidence x the reader's share of the face).
        assert found_dice.confidence[hit] == pytest.approx(np.sqrt(0.9 * share[j]), rel=1e-5)
    kept_gems = out.with_classes(["gem"])
    np.testing.assert_array_equal(kept_gems.xyxy, others.astype(np.float32))
    assert list(out.confidence) == sorted(out.confidence, reverse=True)


@needs_shipped
def test_dice_the_detector_is_unsure_of_are_kept_when_the_reader_is_sure(frame, reader):
    dice = _dice(frame.scene, at_rest=True)
    boxes = np.array([d["box"] for d in dice], float)
    wrong = [(NAMES.index(d["label"]) + 1) % 5 for d in dice]

    def kept(det_conf: float) -> Detections:
        dets = Detections(boxes, np.full(len(dice), det_conf), wrong, NAMES)
        return reread_dice(dets, frame.image, reader, conf=0.25)

    # 0.16 is under the detector's 0.25, but sqrt(0.16 x a sure read) is over it.
    rescued = kept(0.16)
    assert len(rescued) >= 0.8 * len(dice)
    assert all(n in FACES for n in rescued.names) and (rescued.confidence >= 0.25).all()
    assert len(kept(0.01)) == 0  # sqrt(0.01 x 1) = 0.1: too unsure whatever the reader says


@needs_shipped
def test_a_die_left_unsure_keeps_the_face_it_looks_likeliest_to_show(frame, reader, monkeypatch):
    dice = _dice(frame.scene, at_rest=True)
    boxes = np.array([d["box"] for d in dice], float)
    dets = Detections(boxes, np.full(len(dice), 0.9), np.zeros(len(dice), int), NAMES)
    sure = reread_dice(dets, frame.image, reader, conf=0.25)
    assert (sure.guesses == -1).all() and (sure.shares == 0).all()  # read: nothing to guess
    # Every die counted as unsure: each is "?", its guess the face it was read as.
    monkeypatch.setattr("vision.perception.face_reader.UNSURE_FACE", 1.01)
    unsure = reread_dice(dets, frame.image, reader, conf=0.25, second_looks=())
    assert len(unsure) == len(sure) >= 12 and set(unsure.names) == {NAMES[6]}
    iou = box_iou(sure.xyxy, unsure.xyxy)
    for row in range(len(sure)):
        hit = int(iou[row].argmax())
        guess, share = unsure.guessed_name(hit)
        assert guess == sure.names[row] and 0.5 < share <= 1.0
    # A guess travels with its box through selection and joining.
    again = Detections.concatenate([unsure[[1]], unsure[[0]]])
    assert again.guessed_name(0) == unsure.guessed_name(1)
    assert again.guessed_name(1) == unsure.guessed_name(0)


@needs_shipped
def test_unreadable_dice_stay_dice(frame, reader):
    dice = _dice(frame.scene, readable=False)
    boxes = np.array([d["box"] for d in dice], float)
    dets = Detections(boxes, np.full(len(dice), 0.7), np.zeros(len(dice), int), NAMES)
    out = reread_dice(dets, frame.image, reader)
    # None of them is taken for a missing die.
    assert len(out) >= len(dice) - 1
    if UNREADABLE in reader.names:  # a reader with a class of its own for them names most so
        assert out.names.count("die_unreadable") >= 0.7 * len(dice)
    else:  # else it names some face, less surely than it names the faces of dice at rest
        _, unsure = reader.read(frame.image, boxes)
        rest = np.array([d["box"] for d in _dice(frame.scene, at_rest=True)], float)
        _, sure = reader.read(frame.image, rest)
        assert unsure.mean() < sure.mean()


@needs_shipped
def test_the_detector_runs_the_stage_on_a_real_frame(frame):
    plain = Detector(BASELINE, DetectorSettings(faces="off", threads=2))
    staged = Detector(BASELINE, DetectorSettings(threads=2))
    assert plain.faces is None and staged.faces is not None
    assert staged.faces.model_path == SHIPPED.with_name(FACES_INT8)
    before = plain.detect(frame.image)
    after = staged.detect(frame.image)
    b_dice, a_dice = before.with_classes(DIE_CLASSES), after.with_classes(DIE_CLASSES)
    # Non-dice are untouched; dice never overlap each other and all reach the threshold.
    np.testing.assert_array_equal(
        before[~np.isin(before.names, DIE_CLASSES)].xyxy,
        after[~np.isin(after.names, DIE_CLASSES)].xyxy,
    )
    iou = box_iou(a_dice.xyxy, a_dice.xyxy)
    np.fill_diagonal(iou, 0)
    assert (iou <= 0.3).all() and (a_dice.confidence >= 0.25).all()
    truth = _dice(frame.scene)
    t_boxes = np.array([d["box"] for d in truth], float)

    def right(found: Detections) -> int:
        iou = box_iou(t_boxes, found.xyxy)
        return sum(
            int(any(iou[j, i] >= 0.5 and found.names[i] == d["label"] for i in range(len(found))))
            for j, d in enumerate(truth)
        )

    assert right(a_dice) >= right(b_dice)


@needs_shipped
def test_the_shipped_int8_reader_reads_a_frame_as_the_shipped_reader_does():
    from vision.perception.localiser import Localiser, LocaliserSettings
    from vision.perception.models import default_model
    from vision.perception.shipped import shipped_path

    assert DetectorSettings.parse("faces=INT8").faces == "int8"
    assert DetectorSettings.parse("faces=Float").faces == "float"
    assert LocaliserSettings.parse("faces=int8").faces == "int8"
    int8 = open_face_reader("int8", threads=1)
    assert int8 is not None and int8.model_path == shipped_path(FACES_INT8)
    assert int8.names == FaceReader(SHIPPED).names
    image = render_frame(SynthSettings(), 5, 1).image
    read = {}
    for faces in ("float", "auto"):
        localiser = Localiser(default_model()[0], LocaliserSettings(faces=faces, threads=1))
        found = localiser.detect(image)
        names = [found.class_names[c] for c in found.class_id]
        read[faces] = list(zip(map(tuple, found.xyxy.round()), names, strict=True))
    dice = [r for r in read["float"] if r[1] in DIE_CLASSES]
    assert len(dice) >= 10  # the frame shows dice, read by both
    same = [r for r in dice if r in read["auto"]]
    assert len(same) >= 0.9 * len(dice)


@needs_shipped
def test_auto_falls_back_to_the_float_reader_and_then_to_none(tmp_path, monkeypatch):
    import shutil

    from vision.perception import face_reader

    monkeypatch.setattr(face_reader, "shipped_path", lambda name: tmp_path / name)
    assert open_face_reader("auto") is None  # neither reader installed: dice stay unread
    shutil.copy(SHIPPED, tmp_path / SHIPPED.name)
    assert open_face_reader("auto").model_path == tmp_path / SHIPPED.name
    with pytest.raises(ModelError, match="faces=int8: no face classifier"):
        open_face_reader("int8")


def test_a_crop_wholly_inside_the_frame_is_its_pixels_and_a_copy_of_them():
    yy, xx = np.mgrid[0:64, 0:100]
    image = np.dstack([xx, yy, (xx + yy) % 256]).astype(np.uint8)
    crop = crop_square(image, (30, 10, 70, 50), 40)
    assert np.array_equal(crop, image[10:50, 30:70])
    crop[:] = 0  # what the reader does to a crop never reaches the frame
    assert image[10:50, 30:70].any()
    resized = crop_square(image, (30, 10, 70, 50), 20)
    assert np.array_equal(
        resized, cv2.resize(image[10:50, 30:70].copy(), (20, 20), interpolation=cv2.INTER_AREA)
    )
