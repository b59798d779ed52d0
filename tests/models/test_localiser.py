"""The localiser: its targets decode back to the truth, a tiny run learns, resumes, exports to an
ONNX model the run time opens, and fine-tuning from shipped weights starts where they are."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from models.localiser.data import (
    LOCALISER_CLASSES,
    Objects,
    PatchSampler,
    gaussian_targets,
    load_frames,
    scene_objects,
    synth_frames,
)
from templecam import cli
from vision.perception.classes import DETECTION_NAMES
from vision.perception.detections import box_iou
from vision.perception.detector import ModelError
from vision.perception.localiser import Localiser, LocaliserSettings
from vision.perception.localiser_decode import decode
from vision.perception.model_contract import is_localiser
from vision.perception.shipped import BASELINE as SHIPPED_BASELINE
from vision.perception.shipped import shipped_path

pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("torch", "onnx")),
    reason="needs the train extra (torch, onnx)",
)
ROOT = Path(__file__).resolve().parents[2]
SHIPPED_PT = ROOT / "models" / "templecam-default.pt"
BASELINE = shipped_path(SHIPPED_BASELINE)


@pytest.fixture(scope="module")
def synth_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six rendered 1080p frames: four to train on, two to validate on."""
    out = tmp_path_factory.mktemp("loc-data")
    argv = ["synth", "--out", str(out), "--frames", "6", "--seed", "5", "--val-fraction", "0.34"]
    assert cli.main(argv) == 0
    return out


def test_scene_objects_take_every_die_as_one_class_and_ignore_the_unlabelled(synth_data):
    pairs = synth_frames(synth_data, "train")
    scene = json.loads(pairs[0][1].read_text())
    objects = scene_objects(scene)
    labelled_dice = [d for d in scene["dice"] if d["label"] is not None]
    assert (objects.cls == 0).sum() >= len(labelled_dice) > 0
    assert ((objects.cls == 0) & ~objects.ignore).sum() == len(labelled_dice)
    tiles = [t for t in scene["tiles"] if t["label"] == "tile"]
    assert ((objects.cls == LOCALISER_CLASSES.index("tile")) & ~objects.ignore).sum() == len(tiles)


def test_targets_decode_back_to_the_true_boxes():
    boxes = np.array([[100, 100, 130, 128], [300, 40, 500, 240], [60, 300, 80, 322]], np.float32)
    objects = Objects(boxes, np.array([0, 2, 1]), np.zeros(3, bool))
    scale = 0.5
    heat, box, mask, weight = gaussian_targets(objects, scale, (0.0, 0.0), 256, 6)
    assert mask.sum() == 3 and weight.min() == 1.0
    xyxy, score, cls = decode(heat, box, 0.99, scale)
    assert sorted(cls.tolist()) == [0, 1, 2] and np.all(score == 1.0)
    iou = box_iou(boxes, xyxy)
    assert iou.max(axis=1).min() > 0.97


def test_hidden_objects_are_neither_positive_nor_negative():
    objects = Objects(np.array([[40, 40, 70, 70]], np.float32), np.array([0]), np.array([True]))
    heat, _, mask, weight = gaussian_targets(objects, 1.0, (0.0, 0.0), 128, 6)
    assert heat.max() == 0 and mask.sum() == 0
    assert weight[0, 10:17, 10:17].max() == 0 and weight[1].min() == 1


def test_patches_flip_with_their_targets(synth_data):
    frames = load_frames(synth_frames(synth_data, "train"))
    sampler = PatchSampler(frames, size=192, seed=3)
    for _ in range(20):
        image, heat, box, mask, _ = sampler.sample()
        assert image.shape == (3, 192, 192) and heat.shape == (6, 48, 48)
        assert image.min() >= 0.0 and image.max() <= 1.0
        rows, cols = np.nonzero(mask)
        # Every box target sits on a peak of one heatmap, and its offset stays within the cell.
        assert np.all(heat.max(axis=0)[rows, cols] == 1.0)
        assert np.all(np.abs(box[2:, rows, cols]) <= 0.5 + 1e-6)


@pytest.fixture(scope="module")
def tiny_run(synth_data, tmp_path_factory):
    """A few dozen steps of training on small patches, exported."""
    from models.localiser.train import LocaliserConfig, train_localiser

    out = tmp_path_factory.mktemp("loc-run")
    config = LocaliserConfig(
        data=(synth_data,),
        out=out,
        width=8,
        patch=128,
        batch=4,
        eval_every=15,
        patience=1,
        lr_drops=1,
        max_minutes=1e-4,  # the budget ends the run at its first validation
        val_frames=2,
    )
    lines: list[str] = []
    card = train_localiser(config, lines.append)
    return config, card, lines


def test_a_tiny_run_validates_saves_and_exports_with_its_card(tiny_run):
    config, card, lines = tiny_run
    assert card["stopped"].startswith("time budget")
    assert card["history"][0]["step"] == 0 and card["history"][-1]["step"] == 15
    assert card["history"][0]["loss"] is None and np.isfinite(card["history"][-1]["loss"])
    for name in ("last.pt", "best.pt", "localiser.onnx", "localiser-int8.onnx", "card.json"):
        assert (config.out / name).is_file(), name
    assert json.loads((config.out / "card.json").read_text())["classes"] == list(LOCALISER_CLASSES)
    assert any("dice found" in line for line in lines)


def test_the_exported_model_computes_what_torch_computes(tiny_run, synth_data):
    import torch

    from models.localiser.net import LocaliserNet
    from models.localiser.train import load_weights

    config, _, _ = tiny_run
    onnx_path = config.out / "localiser.onnx"
    assert is_localiser(onnx_path) and not is_localiser(BASELINE)
    localiser = Localiser(onnx_path, LocaliserSettings(faces="off", threads=1))
    image = np.full((200, 330, 3), 90, np.uint8)
    image[50:80, 60:90] = 220
    tensor = localiser.input_for(image)
    assert tensor.shape == (1, 3, 128, 192)  # 100 x 165 padded to multiples of 32
    state = load_weights(config.out / "best.pt")
    net = LocaliserNet(len(LOCALISER_CLASSES), state["width"])
    net.load_state_dict(state["model"])
    net.eval()
    with torch.no_grad():
        logits, box = net(torch.from_numpy(tensor))
    heat, box_onnx = localiser.session.run(None, {"images": tensor})
    np.testing.assert_allclose(heat, torch.sigmoid(logits).numpy(), atol=1e-4)
    np.testing.assert_allclose(box_onnx, box.numpy(), atol=1e-3)
    found = localiser.detect(image, conf=0.0)
    assert found.class_names == DETECTION_NAMES
    int8 = Localiser(config.out / "localiser-int8.onnx", LocaliserSettings(faces="off"))
    heat_int8 = int8.session.run(None, {"images": tensor})[0]
    assert np.abs(heat_int8 - heat).max() < 0.15


def test_an_interrupted_run_resumes_where_it_stopped(tiny_run):
    from models.localiser.train import train_localiser

    config, card, _ = tiny_run
    lines: list[str] = []
    again = train_localiser(replace(config, max_minutes=1e-4), lines.append)
    assert any(line.startswith("resuming") and "step 15" in line for line in lines)
    assert again["history"][: len(card["history"])] == card["history"]
    assert again["history"][-1]["step"] == 30


def test_a_yolo_model_is_not_taken_for_a_localiser():
    with pytest.raises(ModelError, match="not a templecam localiser"):
        Localiser(BASELINE, LocaliserSettings(faces="off"))


def test_train_localiser_says_what_is_wrong_with_its_data(tmp_path, capsys):
    code = cli.main(["train", "--localiser", "--data", str(tmp_path / "none"), "--out", "x"])
    assert code == 2
    assert "no such folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    code = cli.main(["train", "--localiser", "--data", str(tmp_path / "empty"), "--out", "x"])
    assert code == 2
    assert "templecam synth" in capsys.readouterr().err


@pytest.mark.skipif(not SHIPPED_PT.is_file(), reason="no shipped localiser weights yet")
def test_fine_tuning_starts_at_the_shipped_accuracy(synth_data, tmp_path):
    from models.localiser.train import LocaliserConfig, train_localiser

    config = LocaliserConfig(
        data=(synth_data,),
        out=tmp_path / "tuned",
        base=SHIPPED_PT,
        batch=4,
        eval_every=10,
        max_minutes=0.01,
        val_frames=2,
    )
    card = train_localiser(config, lambda line: None)
    base, first = card["history"][0], card["history"][1]
    assert base["die_recall"] >= 0.8, "the shipped weights find the dice before any step"
    assert first["die_recall"] >= base["die_recall"] - 0.05
    assert first["false_dice"] <= base["false_dice"] + 1.0
