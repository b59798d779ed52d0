"""Prompted capture folders are checked, labelled by the localiser, reviewed and kept safely."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from teach.crop_sets import cut_crops
from teach.errors import TeachError
from teach.prompted import EMPTY, held_back, read_prompted
from teach.review import LABELS, REVIEW_FILE, Review, auto_label, load_review
from tests.teach.prompted_photos import copy_captures, render_captures, truth_boxes
from vision.perception.classes import FACES
from vision.perception.detections import box_iou
from vision.perception.localiser import Localiser
from vision.perception.models import default_model


@pytest.fixture(scope="module")
def captures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return render_captures(tmp_path_factory.mktemp("prompted") / "dice")


@pytest.fixture(scope="module")
def labelled(captures: Path) -> Review:
    path, _ = default_model()
    return auto_label(captures, Localiser(path))


def test_a_prompted_folder_lists_every_photo_with_its_prompt(captures: Path) -> None:
    found = read_prompted(captures)
    assert sorted({c.prompt for c in found}) == sorted([*FACES, EMPTY])
    assert len(found) == 2 * len(FACES) + 1
    assert all(c.file.startswith(f"{c.prompt}/") for c in found)
    assert {(c.width, c.height) for c in found} == {(1920, 1080)}


def test_the_last_photo_of_each_face_is_held_back(captures: Path) -> None:
    back = held_back(read_prompted(captures))
    assert back == {f"{face}/capture_0001.jpg" for face in FACES}


def test_an_unknown_face_folder_is_named_in_the_error(captures: Path, tmp_path: Path) -> None:
    folder = copy_captures(captures, tmp_path / "dice")
    (folder / "keys").mkdir()
    with pytest.raises(TeachError, match="unknown face folder keys"):
        read_prompted(folder)


def test_an_unreadable_photo_is_named_in_the_error(captures: Path, tmp_path: Path) -> None:
    folder = copy_captures(captures, tmp_path / "dice")
    (folder / "key" / "broken.jpg").write_bytes(b"not a jpeg")
    with pytest.raises(TeachError, match=r"key/broken\.jpg"):
        read_prompted(folder)


def test_a_photo_of_another_size_is_named_in_the_error(captures: Path, tmp_path: Path) -> None:
    folder = copy_captures(captures, tmp_path / "dice")
    cv2.imwrite(str(folder / "torch" / "small.png"), np.zeros((480, 640, 3), np.uint8))
    with pytest.raises(TeachError, match=r"torch/small.png .*another size.*1920x1080"):
        read_prompted(folder)


def test_a_folder_without_photos_of_dice_is_refused(tmp_path: Path) -> None:
    (tmp_path / EMPTY).mkdir()
    cv2.imwrite(str(tmp_path / EMPTY / "a.png"), np.zeros((40, 40, 3), np.uint8))
    with pytest.raises(TeachError, match="no usable photo of dice"):
        read_prompted(tmp_path)
    with pytest.raises(TeachError, match="is not a folder"):
        read_prompted(tmp_path / "missing")


def test_the_localiser_finds_the_dice_and_the_prompt_labels_them(
    captures: Path, labelled: Review
) -> None:
    truth_total = found = 0
    for capture in labelled.captures:
        if capture.prompt == EMPTY:
            continue
        truth = truth_boxes(captures, capture.file)
        mine = [d for d in labelled.dice if d.image == capture.file and d.label != "not_die"]
        assert all(d.label == capture.prompt for d in mine)
        boxes = np.array([d.box for d in mine], float).reshape(-1, 4)
        truth_total += len(truth)
        if len(truth) and len(boxes):
            found += int((box_iou(truth, boxes).max(axis=1) >= 0.5).sum())
    assert truth_total > 40
    assert found / truth_total >= 0.95


def test_what_is_found_on_the_empty_table_is_no_die(labelled: Review) -> None:
    empty = [d for d in labelled.dice if d.image.startswith(f"{EMPTY}/")]
    assert empty, "the empty table's gems and look-alikes are hard negatives"
    assert {d.label for d in empty} == {"not_die"}


def test_a_review_survives_a_restart_with_its_corrections(
    captures: Path, labelled: Review, tmp_path: Path
) -> None:
    folder = copy_captures(captures, tmp_path / "dice")
    review = Review(list(labelled.captures), [*labelled.dice])
    first = next(i for i, d in enumerate(review.dice) if d.label == "key")
    review.relabel(first, "torch")
    added = review.add("key/capture_0000.jpg", 500, 400)
    review.save(folder)
    again = load_review(folder)
    assert again is not None
    assert again.dice[first].label == "torch"
    assert again.dice[added].source == "added"
    assert again.dice[added].label == "key"
    side = again.die_side()
    x1, _, x2, _ = again.dice[added].box
    assert (x1 + x2) / 2 == pytest.approx(500) and x2 - x1 == pytest.approx(side, abs=0.5)


def test_new_photos_are_labelled_and_reviewed_ones_keep_their_labels(
    captures: Path, labelled: Review, tmp_path: Path
) -> None:
    folder = copy_captures(captures, tmp_path / "dice")
    old = Review([c for c in labelled.captures if c.prompt != "torch"], [])
    old.dice = [d for d in labelled.dice if not d.image.startswith("torch/")]
    target = next(i for i, d in enumerate(old.dice) if d.label == "adventurer")
    old.relabel(target, "not_die")
    path, _ = default_model()
    again = auto_label(folder, Localiser(path), keep=old)
    kept = [
        d for d in again.dice if d.image == old.dice[target].image and d.box == old.dice[target].box
    ]
    assert [d.label for d in kept] == ["not_die"]
    assert any(d.image.startswith("torch/") and d.label == "torch" for d in again.dice)


def test_a_wrong_label_or_crop_is_refused(labelled: Review) -> None:
    review = Review(list(labelled.captures), [*labelled.dice])
    with pytest.raises(TeachError, match="give one of"):
        review.relabel(0, "dragon")
    with pytest.raises(TeachError, match="no crop"):
        review.relabel(len(review.dice), "key")
    with pytest.raises(TeachError, match="outside"):
        review.add("key/capture_0000.jpg", 5000, 10)
    with pytest.raises(TeachError, match="no photo"):
        review.add("key/none.jpg", 5, 10)


def test_a_damaged_review_file_says_how_to_start_afresh(tmp_path: Path) -> None:
    (tmp_path / REVIEW_FILE).write_text("{broken")
    with pytest.raises(TeachError, match="delete it"):
        load_review(tmp_path)
    (tmp_path / REVIEW_FILE).write_text(json.dumps({"format": "other"}))
    with pytest.raises(TeachError, match="damaged"):
        load_review(tmp_path)


def test_training_crops_wander_around_the_box_and_held_back_ones_do_not(
    captures: Path, labelled: Review
) -> None:
    one = [next(i for i, d in enumerate(labelled.dice) if d.label == "key")]
    pick = lambda d: d is labelled.dice[one[0]]  # noqa: E731
    exact = cut_crops(captures, labelled, pick, 40, 1.3)
    again = cut_crops(captures, labelled, pick, 40, 1.3)
    jittered = cut_crops(captures, labelled, pick, 40, 1.3, copies=6, seed=1)
    assert len(exact) == 1 and np.array_equal(exact.images, again.images)
    assert len(jittered) == 6
    assert set(jittered.labels.tolist()) == {LABELS.index("key")}
    assert len({im.tobytes() for im in jittered.images}) == 6
    differences = [np.abs(im.astype(int) - exact.images[0]).mean() for im in jittered.images]
    assert 0 < np.median(differences) < 40


def test_some_training_crops_are_partly_covered_as_at_a_real_table(
    captures: Path, labelled: Review
) -> None:
    first = next(i for i, d in enumerate(labelled.dice) if d.label == "torch")
    pick = lambda d: d is labelled.dice[first]  # noqa: E731
    whole = cut_crops(captures, labelled, pick, 40, 1.3, copies=6, seed=2, occlude=0.0)
    covered = cut_crops(captures, labelled, pick, 40, 1.3, copies=6, seed=2, occlude=1.0)
    for plain, hidden in zip(whole.images, covered.images, strict=True):
        assert not np.array_equal(plain, hidden)
        halves = (np.s_[:20], np.s_[20:], np.s_[:, :20], np.s_[:, 20:])
        assert any(np.array_equal(plain[h], hidden[h]) for h in halves), "at most half covered"
    not_die = next(i for i, d in enumerate(labelled.dice) if d.label == "not_die")
    negatives = lambda d: d is labelled.dice[not_die]  # noqa: E731
    a = cut_crops(captures, labelled, negatives, 40, 1.3, copies=4, seed=2, occlude=0.0)
    b = cut_crops(captures, labelled, negatives, 40, 1.3, copies=4, seed=2, occlude=1.0)
    assert np.array_equal(a.images, b.images), "what is no die needs no cover"
