"""Scoring a detector: COCO-style AP, die faces, false positives, gems in the depot, tiles, CLI."""

from __future__ import annotations

import argparse
import json

import cv2
import numpy as np
import pytest

from models.synth.dataset import DatasetPlan, generate
from models.synth.frame import render_frame
from models.synth.settings import SynthSettings
from templecam.commands import eval as eval_command
from templecam.errors import UserError
from vision.evaluate import (
    DatasetError,
    Truth,
    average_precision,
    depot_truth,
    depot_zone,
    evaluate,
    match,
    read_data_yaml,
    read_truth,
    score,
)
from vision.perception.classes import DETECTION_NAMES, FACES
from vision.perception.detections import Detections

MODEL_NAMES = DETECTION_NAMES  # the model knows all 11 classes
DICE = [
    ("adventurer", (100, 100, 130, 130)),
    ("key", (200, 100, 232, 131)),
    ("torch", (300, 100, 329, 128)),
    ("golden_mask", (400, 100, 433, 134)),
    ("black_mask", (500, 100, 530, 130)),
]


def truth(objects, scene=None) -> Truth:
    boxes = np.array([b for _, b in objects], float).reshape(-1, 4)
    return Truth(boxes, tuple(n for n, _ in objects), scene)


def dets(objects, conf=0.9, names=MODEL_NAMES) -> Detections:
    boxes = np.array([b for _, b in objects], float).reshape(-1, 4)
    cls = [names.index(n) for n, _ in objects]
    confs = conf if isinstance(conf, list) else [conf] * len(objects)
    return Detections(boxes, np.array(confs, float), np.array(cls, int), names)


# --- AP and matching --------------------------------------------------------------------------


def test_average_precision_is_cocos_101_point_interpolation():
    perfect = average_precision(np.array([[True], [True]]), np.array([0.9, 0.8]), 2)
    assert perfect.tolist() == [1.0]
    # Hit, miss, hit over two objects: precision 1 up to recall 0.5, then 2/3 up to recall 1.
    ap = average_precision(np.array([[True], [False], [True]]), np.array([0.9, 0.8, 0.7]), 2)
    assert ap[0] == pytest.approx((51 * 1.0 + 50 * 2 / 3) / 101)
    assert average_precision(np.zeros((0, 1), bool), np.zeros(0), 3).tolist() == [0.0]
    assert np.isnan(average_precision(np.zeros((0, 1), bool), np.zeros(0), 0)).all()


def test_match_takes_the_best_free_object_in_confidence_order():
    objects = np.array([[0, 0, 10, 10], [20, 0, 30, 10]], float)
    preds = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 0, 30, 10]], float)
    tp = match(preds, np.array([0.5, 0.9, 0.8]), objects, np.array([0.5, 0.95]))
    # The most confident (IoU 0.82) takes object 0 at 0.5; the exact one is then a duplicate.
    assert tp[:, 0].tolist() == [False, True, True]
    # At 0.95 only exact boxes count: the exact one takes object 0 as the other fails.
    assert tp[:, 1].tolist() == [True, False, True]


# --- Scores on hand-made predictions ----------------------------------------------------------


def test_perfect_predictions():
    truths = [truth([*DICE, ("gem", (600, 600, 620, 620))]), truth(DICE[:2])]
    preds = [dets([*DICE, ("gem", (600, 600, 620, 620))]), dets(DICE[:2])]
    result = score(preds, truths, DETECTION_NAMES)
    assert result.map50 == 1.0 and result.map50_95 == 1.0
    assert result.die_face_accuracy == 1.0 and result.die_false_positives_per_image == 0.0
    # Only classes with objects enter the mean; classes without any have no AP.
    by_name = {c.name: c for c in result.classes}
    assert by_name["hand"].ap50 is None and by_name["key"].ap50 == 1.0
    assert by_name["key"].precision == 1.0 and by_name["key"].recall == 1.0
    assert by_name["key"].instances == 2
    assert result.gems_in_depot_exact is None and result.tiles_found is None  # no scenes


def test_one_wrong_face_drops_accuracy_by_one_die():
    truths = [truth(DICE), truth(DICE)]
    wrong = [("key" if n == "torch" else n, b) for n, b in DICE]
    result = score([dets(DICE), dets(wrong)], truths, DETECTION_NAMES)
    assert result.die_face_accuracy == pytest.approx(1 - 1 / 10)
    assert result.die_false_positives_per_image == 0.0  # the wrong face still sits on a die
    # A second face box on one die also makes that die unreadable; a box on no die is an FP.
    twice = [*DICE, ("key", (101, 100, 131, 130)), ("torch", (900, 900, 930, 930))]
    result = score([dets(DICE), dets(twice)], truths, DETECTION_NAMES)
    assert result.die_face_accuracy == pytest.approx(1 - 1 / 10)
    assert result.die_false_positives_per_image == 0.5


def test_operating_confidence_and_box_quality():
    # Shifted 3 px on a 30 px die: IoU 27/33, about 0.82: found at 0.50..0.80, not above.
    shifted = [("adventurer", (103, 100, 133, 130))]
    result = score([dets(shifted)], [truth(DICE[:1])], DETECTION_NAMES)
    assert result.map50 == 1.0 and result.map50_95 == pytest.approx(0.7)
    # Below the operating confidence: in the AP curve, not in precision, recall or dice.
    low = score([dets(DICE[:1], conf=0.1)], [truth(DICE[:1])], DETECTION_NAMES, conf=0.25)
    assert low.map50 == 1.0
    adventurer = next(c for c in low.classes if c.name == "adventurer")
    assert adventurer.recall == 0.0 and adventurer.detections == 0
    assert low.die_face_accuracy == 0.0


def test_a_faces_only_dataset_is_scored_on_the_faces_alone():
    faces_only = FACES  # a dataset from elsewhere, with only the five faces, in its own order
    truths = [truth(DICE)]
    extra = [*DICE, ("gem", (600, 600, 620, 620)), ("hand", (0, 500, 400, 900))]
    result = score([dets(extra)], truths, tuple(reversed(faces_only)))
    assert [c.name for c in result.classes] == list(reversed(faces_only))
    assert result.map50 == 1.0 and result.die_face_accuracy == 1.0
    assert result.missing_from_model == ()


def test_dataset_classes_the_model_lacks_are_named_and_left_out():
    model = ("key", "torch", "gem")
    truths = [truth([*DICE[1:3], ("figure", (0, 0, 50, 80))])]
    result = score([dets(DICE[1:3], names=model)], truths, ("key", "torch", "figure"))
    assert [c.name for c in result.classes] == ["key", "torch"]
    assert result.missing_from_model == ("figure",) and result.map50 == 1.0
    assert any("figure" in note for note in result.notes)


# --- Scene figures ----------------------------------------------------------------------------


def scene(depot_gems, tiles, depot_quad=None):
    items = [{"where": "depot", "box": list(b), "label": "gem"} for b in depot_gems]
    items.append({"where": "cell", "box": [900, 900, 915, 915], "label": "gem"})
    data = {
        "gems": {"depot": len(depot_gems), "items": items},
        "tiles": [{"box": list(b), "label": "tile"} for b in tiles],
    }
    if depot_quad is not None:
        data["depot"] = {"quad_px": depot_quad}
    return data


def test_gems_in_the_depot_and_tiles_found():
    gems = [(1000, 500, 1015, 518), (1030, 505, 1044, 522), (1010, 540, 1025, 556)]
    tiles = [(100, 300, 300, 500), (300, 300, 500, 500)]
    s = scene(gems, tiles)
    zone = depot_zone(s)
    assert zone is not None and depot_truth(s) == 3
    assert zone[:, 0].min() < 1000 and zone[:, 0].max() > 1044
    cell_gem = ("gem", (900, 900, 915, 915))
    right = [("gem", g) for g in gems] + [cell_gem, ("tile", tiles[0]), ("tile", tiles[1])]
    short = [("gem", g) for g in gems[:2]] + [cell_gem, ("tile", tiles[0])]
    result = score(
        [dets(right), dets(short)],
        [truth(right, s), truth(right, s)],
        DETECTION_NAMES,
    )
    assert result.gems_in_depot_exact == 0.5 and result.depot_frames == 2
    assert result.tiles_found == pytest.approx(3 / 4)
    # A recorded depot outline is used as it is.
    quad = [[990, 490], [1100, 490], [1100, 600], [990, 600]]
    assert depot_zone(scene(gems, tiles, quad)).tolist() == quad
    assert depot_zone({"gems": {"depot": None, "items": []}}) is None


def test_depot_zone_of_a_rendered_scene_holds_its_depot_gems():
    frame = render_frame(SynthSettings(width=960, height=540), 4, 2)
    zone = depot_zone(frame.scene)
    depot_gems = [
        g for g in frame.scene["gems"]["items"] if g["where"] == "depot" and g["label"] == "gem"
    ]
    if zone is None:
        assert not depot_gems
        return
    contour = zone.astype(np.float32).reshape(-1, 1, 2)
    for g in depot_gems:
        x0, y0, x1, y1 = g["box"]
        assert cv2.pointPolygonTest(contour, ((x0 + x1) / 2, (y0 + y1) / 2), False) >= 0


# --- A dataset on disk ------------------------------------------------------------------------


class ScriptedModel:
    """A stand-in detector answering from a script, one answer per image in order."""

    def __init__(self, answers, names=MODEL_NAMES):
        self.names, self.answers, self.calls = names, list(answers), []

    def detect(self, image, conf=None):
        self.calls.append(conf)
        return self.answers[len(self.calls) - 1]


def write_dataset(root, frames, names):
    (root / "images" / "val").mkdir(parents=True)
    (root / "labels" / "val").mkdir(parents=True)
    (root / "scenes" / "val").mkdir(parents=True)
    for i, (objects, scene_data) in enumerate(frames):
        stem = f"frame_{i:06d}"
        cv2.imwrite(str(root / "images" / "val" / f"{stem}.jpg"), np.zeros((540, 960, 3), np.uint8))
        lines = []
        for name, (x0, y0, x1, y1) in objects:
            cx, cy, w, h = (
                (x0 + x1) / 2 / 960,
                (y0 + y1) / 2 / 540,
                (x1 - x0) / 960,
                (y1 - y0) / 540,
            )
            lines.append(f"{names.index(name)} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}\n")
        (root / "labels" / "val" / f"{stem}.txt").write_text("".join(lines))
        if scene_data is not None:
            (root / "scenes" / "val" / f"{stem}.json").write_text(json.dumps(scene_data))
    data = root / "data.yaml"
    data.write_text(
        "path: .\ntrain: images/val\nval: images/val\nnames:\n"
        + "".join(f"  {i}: {n}\n" for i, n in enumerate(names))
    )
    return data


def test_evaluate_a_dataset_on_disk_with_classes_matched_by_name(tmp_path):
    names = ("gem", "tile", *FACES)  # another order than the model's
    gems = [(600, 300, 615, 318), (630, 300, 645, 318)]
    tiles = [(100, 100, 300, 300)]
    objects = [*DICE, *(("gem", g) for g in gems), ("tile", tiles[0])]
    data = write_dataset(tmp_path, [(objects, scene(gems, tiles)), (DICE[:2], None)], names)
    split = read_data_yaml(data, "val")
    assert split.names == names and len(split.images) == 2
    model = ScriptedModel([dets(objects), dets(DICE[:2])])
    result = evaluate(model, split, conf=0.25)
    assert model.calls == [0.001, 0.001]  # the AP curves need the unsure detections too
    assert result.images == 2 and result.map50 == pytest.approx(1.0, abs=1e-9)
    assert result.die_face_accuracy == 1.0 and result.gems_in_depot_exact == 1.0
    assert result.tiles_found == 1.0 and result.depot_frames == 1
    assert result.ms_per_image is not None and result.ms_per_image >= 0
    assert json.loads(json.dumps(result.to_json()))["classes"][0]["name"] == "gem"
    assert evaluate(ScriptedModel([dets(DICE)]), split, limit=1).images == 1


def test_dataset_errors_are_clear(tmp_path):
    with pytest.raises(DatasetError, match="cannot read"):
        read_data_yaml(tmp_path / "missing.yaml")
    data = write_dataset(tmp_path, [(DICE, None)], FACES)
    with pytest.raises(DatasetError, match="no `test` split"):
        read_data_yaml(data, "test")
    with pytest.raises(DatasetError, match="share no name"):
        evaluate(ScriptedModel([], names=("cat", "dog")), read_data_yaml(data))
    (tmp_path / "labels" / "val" / "frame_000000.txt").write_text("7 0.5 0.5 0.1 0.1\n")
    with pytest.raises(DatasetError, match=r"not in data\.yaml's names"):
        evaluate(ScriptedModel([dets(DICE)]), read_data_yaml(data))


def test_eval_command_prints_the_figures(tmp_path, monkeypatch, capsys):
    data = write_dataset(tmp_path, [(DICE, None)], FACES)
    monkeypatch.setattr(eval_command, "open_detector", lambda args: ScriptedModel([dets(DICE)] * 2))
    top = argparse.ArgumentParser()
    eval_command.register(top.add_subparsers(dest="command"))
    args = top.parse_args(["eval", "--data", str(data), "--json"])
    assert args.run(args) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["map50"] == 1.0 and figures["die_face_accuracy"] == 1.0
    assert {c["name"] for c in figures["classes"]} == set(FACES)
    args = top.parse_args(["eval", "--data", str(data)])
    assert args.run(args) == 0
    text = capsys.readouterr().out
    assert "mAP50 1.000" in text and "die face accuracy 100.0%" in text
    args = top.parse_args(["eval", "--data", str(tmp_path / "nope.yaml")])
    with pytest.raises(UserError, match="cannot read"):
        args.run(args)


def test_rendered_labels_as_detections_score_perfectly(tmp_path):
    """The renderer's own labels, fed back as detections, get every figure right."""
    generate(DatasetPlan(tmp_path, SynthSettings(width=960, height=540), 9, 3, 1.0))
    split = read_data_yaml(tmp_path / "data.yaml", "val")
    answers = []
    for path in split.images:
        t = read_truth(path, 960, 540, split.names)
        answers.append(dets(list(zip(t.names, t.xyxy.tolist(), strict=True))))
    result = evaluate(ScriptedModel(answers), split)
    assert result.map50 == 1.0 and result.map50_95 == 1.0
    assert result.die_face_accuracy == 1.0 and result.die_false_positives_per_image == 0.0
    assert result.gems_in_depot_exact == 1.0 and result.depot_frames == 3
    assert result.tiles_found == 1.0
