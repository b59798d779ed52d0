"""The die-face classifier's training side: crops from rendered frames, a tiny offline training
with ONNX export read back through `FaceReader`, ONNX Runtime agreeing with Ultralytics, CLI."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from test_train import NetworkGuard

from models.faces import (
    BASELINE,
    CropPlan,
    FacesConfig,
    build_crops,
    detector_examples,
    jitter_box,
    negative_boxes,
    read_crops,
    train_faces,
)
from templecam import cli
from vision.detections import box_iou
from vision.face_reader import CLASSES, NOT_DIE, UNREADABLE, FaceReader, crops_for

needs_training = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("ultralytics", "onnx")),
    reason="needs the train extra (ultralytics, onnx)",
)
IMGSZ = 32
SHIPPED = Path(__file__).resolve().parents[2] / "models" / "templecam-faces"


@pytest.fixture(scope="module")
def frames(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six small rendered frames (four train, two val) with their scene JSON."""
    from models.synth.dataset import DatasetPlan, generate
    from models.synth.settings import SynthSettings

    out = tmp_path_factory.mktemp("synth")
    generate(DatasetPlan(out, SynthSettings(width=640, height=360), 7, 6, 0.34))
    return out / "data.yaml"


def _scene(frames: Path, split: str = "train") -> dict:
    return json.loads(sorted((frames.parent / "scenes" / split).glob("*.json"))[0].read_text())


# --- Crops ------------------------------------------------------------------------------------


def test_negative_boxes_stay_clear_of_every_die(frames: Path) -> None:
    scene = _scene(frames)
    dice = np.array([d["box"] for d in scene["dice"] if d["box"]], float)
    boxes = negative_boxes(scene, np.random.default_rng(0), 640, 360, context=30, table=10)
    assert 30 <= len(boxes) <= 40
    boxes = np.array(boxes)
    assert (box_iou(boxes, dice) < 0.1).all()
    centres = (dice[:, :2] + dice[:, 2:]) / 2
    for box in boxes:
        assert not ((centres >= box[:2]) & (centres <= box[2:])).all(axis=1).any()
    again = negative_boxes(scene, np.random.default_rng(0), 640, 360, context=30, table=10)
    np.testing.assert_array_equal(boxes, np.array(again))


def test_jitter_moves_and_scales_a_box_a_little() -> None:
    rng = np.random.default_rng(1)
    for _ in range(50):
        x1, y1, x2, y2 = jitter_box([100, 100, 140, 120], rng, shift=0.1, zoom=0.15)
        assert abs((x1 + x2) / 2 - 120) <= 4 and abs((y1 + y2) / 2 - 110) <= 4
        assert 40 * 0.85 - 1e-9 <= x2 - x1 <= 40 * 1.15 + 1e-9


def test_detector_boxes_become_dice_or_hard_negatives() -> None:
    scene = {
        "dice": [
            {"box": [100, 100, 130, 130], "face": "key", "label": "key"},
            {"box": [200, 100, 230, 130], "face": None, "label": "die_unreadable"},
            {"box": [300, 100, 330, 130], "face": None, "label": None},  # barely seen
        ]
    }
    boxes = np.array(
        [
            [101, 101, 131, 131],  # the key
            [200, 100, 230, 130],  # the unreadable die
            [300, 100, 330, 130],  # the unlabelled die: left out
            [110, 100, 140, 130],  # IoU 0.5 with the key
            [115, 100, 145, 130],  # IoU 1/3 with the key: left out
            [500, 300, 530, 330],  # nothing there
        ],
        float,
    )
    out = detector_examples(boxes, scene)
    assert [cls for _, cls in out] == ["key", UNREADABLE, "key", NOT_DIE]
    assert out[-1][0] == [500, 300, 530, 330]


def test_build_crops_is_deterministic_and_reused(frames: Path, tmp_path: Path) -> None:
    plan = CropPlan(imgsz=IMGSZ, copies=2, context=4, table=2)
    splits = {"train": "train", "val": "val"}
    logged: list[str] = []
    first = build_crops(frames, tmp_path / "a", plan, splits, None, logged.append)
    for split in splits:
        assert sorted(p.name for p in (tmp_path / "a" / split).iterdir()) == sorted(CLASSES)
        for cls in CLASSES:
            files = list((tmp_path / "a" / split / cls).glob("*.png"))
            assert len(files) == first["counts"][split][cls]
            for f in files[:3]:
                assert cv2.imread(str(f)).shape == (IMGSZ, IMGSZ, 3)
    assert first["counts"]["train"][NOT_DIE] > 0
    faces = sum(first["counts"]["train"][c] for c in CLASSES[:5])
    assert faces > 0 and faces % 2 == 0  # two jittered crops of every readable die
    second = build_crops(frames, tmp_path / "b", plan, splits, None, logged.append)
    assert second["counts"] == first["counts"]
    for path in (tmp_path / "a").rglob("*.png"):
        twin = tmp_path / "b" / path.relative_to(tmp_path / "a")
        assert path.read_bytes() == twin.read_bytes()
    stamp = (tmp_path / "a" / "faces-crops.json").stat().st_mtime_ns
    assert build_crops(frames, tmp_path / "a", plan, splits, None, logged.append) == first
    assert (tmp_path / "a" / "faces-crops.json").stat().st_mtime_ns == stamp
    assert logged[-1].startswith("crops: reusing")


def test_val_crops_are_the_crops_the_reader_makes(frames: Path, tmp_path: Path) -> None:
    plan = CropPlan(imgsz=48, context=0, table=0)
    build_crops(frames, tmp_path / "c", plan, {"val": "val"}, None, lambda _: None)
    scene = _scene(frames, "val")
    image = cv2.imread(str(sorted((frames.parent / "images" / "val").glob("*.jpg"))[0]))
    dice = [d for d in scene["dice"] if d["box"] and d["label"] in CLASSES[:5]]
    made = crops_for(image, np.array([d["box"] for d in dice], float), 48)
    crops, classes = read_crops(tmp_path / "c" / "val")
    assert len(crops) >= len(dice) > 0
    for crop, die in zip(made, dice, strict=True):
        match = [c for c, k in zip(crops, classes, strict=True) if k == die["label"]]
        assert any(np.array_equal(crop, m) for m in match), die["label"]


# --- A tiny training run ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def trained(frames: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """One epoch at 32 px on the six frames' crops, the network refused; return DIR."""
    out = tmp_path_factory.mktemp("faces")
    guard = NetworkGuard()
    with pytest.MonkeyPatch.context() as monkeypatch:
        guard.install(monkeypatch)
        train_faces(
            FacesConfig(
                data=frames,
                out=out,
                holdout=frames,
                epochs=1,
                batch=16,
                workers=0,
                detector=BASELINE,
                plan=CropPlan(imgsz=IMGSZ, copies=1, context=4, table=2, hard_share=0.5),
            ),
            log=lambda _: None,
        )
    return out, guard.attempts


@needs_training
def test_tiny_training_exports_a_model_the_reader_loads(trained: tuple[Path, list[str]]) -> None:
    out, attempts = trained
    assert attempts == []
    reader = FaceReader(out / "best.onnx", threads=1)
    assert sorted(reader.names) == sorted(CLASSES) and reader.imgsz == IMGSZ
    assert reader.session.get_inputs()[0].shape[1:] == [3, IMGSZ, IMGSZ]
    crops, _ = read_crops(out / "crops" / "val")
    probs = reader.predict(crops[:5])
    assert probs.shape == (5, len(CLASSES))
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-4)
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["names"] == list(reader.names) and metrics["imgsz"] == IMGSZ
    assert metrics["epochs"]["completed"] == 1
    for split in ("val", "holdout"):
        assert set(metrics[split]["per_class"]) == set(CLASSES)
        assert 0.0 <= metrics[split]["top1"] <= 1.0
        assert metrics[split]["crops"] == sum(
            c["crops"] for c in metrics[split]["per_class"].values()
        )
    assert metrics["crops"]["counts"]["train"][NOT_DIE] > 0
    assert not list(out.glob("*.tmp"))


def _agree(weights: Path, onnx: Path, crops: list[np.ndarray], imgsz: int) -> None:
    """Check that ONNX Runtime through FaceReader gives Ultralytics' own .pt probabilities."""
    from models.offline import ultralytics_offline

    ultralytics_offline()
    from ultralytics import YOLO

    reader = FaceReader(onnx, threads=1)
    model = YOLO(str(weights), task="classify")
    results = model.predict(crops, imgsz=imgsz, device="cpu", verbose=False)
    torch_probs = np.stack([r.probs.data.numpy() for r in results])
    names = [model.names[i] for i in range(len(model.names))]
    assert names == list(reader.names)
    ours = reader.predict(crops)
    np.testing.assert_allclose(ours, torch_probs, atol=1e-4)
    assert (ours.argmax(axis=1) == torch_probs.argmax(axis=1)).all()


@needs_training
def test_onnx_runtime_matches_ultralytics_on_the_tiny_model(
    trained: tuple[Path, list[str]],
) -> None:
    out, _ = trained
    crops, _ = read_crops(out / "crops" / "val")
    _agree(out / "best.pt", out / "best.onnx", crops[::3][:8], IMGSZ)


@needs_training
@pytest.mark.skipif(
    not SHIPPED.with_suffix(".pt").is_file(), reason="models/templecam-faces.pt is not there"
)
def test_the_shipped_onnx_reads_what_its_weights_read() -> None:
    from models.synth.frame import render_frame
    from models.synth.settings import SynthSettings

    frame = render_frame(SynthSettings(), 3, 0)
    boxes = np.array([d["box"] for d in frame.scene["dice"] if d["box"]], float)
    reader = FaceReader(SHIPPED.with_suffix(".onnx"), threads=1)
    crops = crops_for(frame.image, boxes[:8], reader.imgsz, reader.crop_scale)
    _agree(SHIPPED.with_suffix(".pt"), SHIPPED.with_suffix(".onnx"), crops, reader.imgsz)


# --- The command line -------------------------------------------------------------------------


def test_train_faces_rejects_bad_input(
    frames: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "faces")
    cases = [
        (["--data", str(tmp_path / "none.yaml")], "does not exist"),
        (["--data", str(frames), "--tile", "640"], "--tile: the detector's options"),
        (["--data", str(frames), "--resume"], "--resume"),
        (["--data", str(frames), "--imgsz", "50"], "multiple of 32"),
        (["--data", str(frames), "--hard-negatives", str(tmp_path / "x.onnx")], "no detector"),
        (["--data", str(frames), "--holdout", str(tmp_path / "h.yaml")], "--holdout"),
    ]
    for argv, message in cases:
        code = cli.main(["train", "--faces", "--out", out, *argv])
        err = capsys.readouterr().err
        assert code == 2 and message in err and "Traceback" not in err, (argv, err)
    plain = tmp_path / "plain"
    (plain / "images" / "val").mkdir(parents=True)
    image = plain / "images" / "val" / "a.jpg"
    cv2.imwrite(str(image), np.zeros((40, 40, 3), np.uint8))
    (plain / "data.yaml").write_text("path: .\ntrain: images/val\nval: images/val\nnames: [a]\n")
    code = cli.main(["train", "--faces", "--data", str(plain / "data.yaml"), "--out", out])
    err = capsys.readouterr().err
    assert code == 2 and "no scene JSON" in err and "templecam synth" in err
