"""The ONNX YOLO detector: decoding, letterbox, tiling and merging, metadata, real inference, CLI.

Most tests drive the detector with `FakeYolo`, a stand-in session that finds pure-colour squares
in its input exactly, so tiling and merging can be checked box by box. The real-model tests
export an untrained YOLOv8n (built from the yaml inside Ultralytics, nothing downloaded) to
ONNX in a subprocess, so this test process never imports torch.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.synth.frame import render_frame
from models.synth.settings import SynthSettings
from templecam.commands import bench_vision, detect
from templecam.errors import UserError
from vision.bench.speed import run_vision_benchmark
from vision.perception import shipped
from vision.perception.classes import DETECTION_NAMES, FACES
from vision.perception.detections import Detections, box_iou
from vision.perception.detector import Detector, DetectorSettings
from vision.perception.letterbox import letterbox
from vision.perception.onnx_model import ModelError, read_model_info
from vision.perception.shipped import LOCALISER, shipped_path
from vision.perception.tiling import merge_tiles, tile_grid, tile_starts
from vision.perception.yolo_decode import decode_end2end, decode_raw

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("red", "green", "blue")
BGR = {"red": (0, 0, 255), "green": (0, 255, 0), "blue": (255, 0, 0)}


# --- A stand-in model -------------------------------------------------------------------------


class FakeYolo:
    """An ONNX-session look-alike that reports pure red, green and blue squares in its input."""

    def __init__(self, size=320, batch="batch", candidates=64, meta=None, output_rows=None):
        self.size, self.batch, self.candidates = size, batch, candidates
        default = {"names": str(dict(enumerate(NAMES))), "imgsz": str([size, size]), "stride": "32"}
        self.meta = default if meta is None else meta
        self.rows = output_rows or 4 + len(NAMES)
        self.calls: list[tuple[int, ...]] = []

    def get_inputs(self):
        return [SimpleNamespace(name="images", shape=[self.batch, 3, self.size, self.size])]

    def get_outputs(self):
        return [SimpleNamespace(name="output0", shape=[self.batch, self.rows, self.candidates])]

    def get_modelmeta(self):
        return SimpleNamespace(custom_metadata_map=self.meta)

    def run(self, _outputs, feed):
        x = feed["images"]
        self.calls.append(x.shape)
        out = np.zeros((x.shape[0], self.rows, self.candidates), np.float32)
        for b, image in enumerate(x):  # image: RGB (3, H, W) in 0..1
            k = 0
            for c in range(3):
                others = [o for o in range(3) if o != c]
                mask = (image[c] > 0.6) & (image[others[0]] < 0.4) & (image[others[1]] < 0.4)
                count, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8))
                for x0, y0, w, h, _area in stats[1:count]:
                    out[b, :4, k] = (x0 + w / 2, y0 + h / 2, w, h)
                    out[b, 4 + c, k] = 0.9
                    k += 1
        return [out]


def fake_detector(setting: str = "", **fake) -> tuple[Detector, FakeYolo]:
    session = FakeYolo(**fake)
    return Detector("fake.onnx", DetectorSettings.parse(setting), session=session), session


def frame_with(squares, width=1920, height=1080) -> np.ndarray:
    image = np.full((height, width, 3), 40, np.uint8)
    for name, (x0, y0, x1, y1) in squares:
        image[y0:y1, x0:x1] = BGR[name]
    return image


def assert_found_once(found: Detections, squares, tol: float = 0.0):
    assert len(found) == len(squares), found.to_json()
    truth = np.array([box for _, box in squares], float)
    iou = box_iou(found.xyxy, truth)
    for j, (name, box) in enumerate(squares):
        i = int(np.argmax(iou[:, j]))
        assert found.names[i] == name
        np.testing.assert_allclose(found.xyxy[i], box, atol=tol)


# --- Decoding and letterbox -------------------------------------------------------------------


def test_decode_raw_known_boxes_through_a_known_letterbox():
    image = np.zeros((1080, 1920, 3), np.uint8)
    resized, box = letterbox(image, (640, 640))
    assert resized.shape == (640, 640, 3)
    assert box.scale == (1 / 3, 1 / 3) and box.pad == (0, 140)
    # Candidates in input px: cx, cy, w, h, then scores for 3 classes.
    candidates = [
        ((100, 200, 20, 30), (0.90, 0.0, 0.0)),  # A, class 0
        ((101, 201, 20, 30), (0.80, 0.0, 0.0)),  # duplicate of A, class 0: suppressed
        ((100, 200, 20, 30), (0.05, 0.70, 0.0)),  # same place, class 1: survives
        ((300, 400, 10, 10), (0.0, 0.0, 0.60)),  # C, class 2
        ((500, 300, 40, 40), (0.10, 0.20, 0.05)),  # noise below conf
        ((50, 450, 8, 8), (0.24, 0.0, 0.0)),  # just below conf
    ]
    raw = np.array([[*xywh, *scores] for xywh, scores in candidates], np.float32).T
    xyxy, scores, cls = decode_raw(raw, conf=0.25, iou=0.5, max_det=300)
    assert cls.tolist() == [0, 1, 2]
    np.testing.assert_allclose(scores, [0.9, 0.7, 0.6], rtol=1e-6)
    frame = box.boxes_to_frame(xyxy)
    expected = [
        [(90 - 0) * 3, (185 - 140) * 3, (110 - 0) * 3, (215 - 140) * 3],
        [(90 - 0) * 3, (185 - 140) * 3, (110 - 0) * 3, (215 - 140) * 3],
        [(295 - 0) * 3, (395 - 140) * 3, (305 - 0) * 3, (405 - 140) * 3],
    ]
    np.testing.assert_allclose(frame, expected, atol=1e-3)
    # max_det keeps the most confident; agnostic NMS merges the two classes at A.
    assert decode_raw(raw, 0.25, 0.5, max_det=1)[2].tolist() == [0]
    assert decode_raw(raw, 0.25, 0.5, 300, agnostic=True)[2].tolist() == [0, 2]


def test_decode_end2end():
    raw = np.array([[10, 20, 30, 40, 0.8, 2], [0, 0, 5, 5, 0.1, 1], [1, 2, 3, 4, 0.9, 0]])
    xyxy, _, cls = decode_end2end(raw, conf=0.25, max_det=10)
    assert cls.tolist() == [0, 2]
    np.testing.assert_allclose(xyxy, [[1, 2, 3, 4], [10, 20, 30, 40]])


@settings(max_examples=60, deadline=None)
@given(
    st.integers(20, 1500),
    st.integers(20, 1500),
    st.sampled_from([(320, 320), (640, 640), (384, 640)]),
    st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=5),
)
def test_letterbox_round_trip(width, height, size, points):
    image = np.zeros((height, width, 3), np.uint8)
    resized, box = letterbox(image, size, offset=(7, 11))
    assert resized.shape[:2] == size
    frame_points = np.array([(7 + u * width, 11 + v * height) for u, v in points])
    inside = box.to_input(frame_points)
    assert (inside >= -1e-6).all() and (inside[:, 0] <= size[1] + 1e-6).all()
    assert (inside[:, 1] <= size[0] + 1e-6).all()
    np.testing.assert_allclose(box.to_frame(inside), frame_points, atol=1e-6)


def test_letterbox_pads_with_grey_and_keeps_aspect():
    image = np.full((100, 400, 3), 255, np.uint8)
    resized, box = letterbox(image, (320, 320))
    assert box.scale == (0.8, 0.8) and box.pad == (0, 120)
    assert (resized[:120] == 114).all() and (resized[200:] == 114).all()
    assert (resized[120:200] == 255).all()


# --- Tiling -----------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4000), st.integers(32, 1280), st.integers(0, 256))
def test_tile_starts_cover_with_overlap(length, tile, overlap):
    if overlap >= tile:
        overlap = tile // 2
    starts = tile_starts(length, tile, overlap)
    assert starts[0] == 0 and starts == sorted(starts)
    ends = [min(s + tile, length) for s in starts]
    assert ends[-1] == length
    for a, b in itertools.pairwise(starts):
        assert a + tile - b >= overlap  # neighbours overlap by at least `overlap`
        assert b - a > 0


def test_tile_grid_covers_the_frame():
    grid = tile_grid(1920, 1080, 640, 64)
    covered = np.zeros((1080, 1920), int)
    for x0, y0, x1, y1 in grid:
        assert x1 - x0 == 640 and y1 - y0 == 640
        covered[y0:y1, x0:x1] += 1
    assert covered.min() >= 1
    assert len(grid) == 8


SQUARES = [
    ("red", (300, 400, 330, 430)),  # straddles the right edge of the first tile column
    ("green", (240, 280, 266, 306)),  # whole in the overlap of four tiles
    ("blue", (1590, 1000, 1625, 1035)),  # near the frame's bottom edge, across a tile edge
    ("red", (900, 500, 934, 528)),
    ("green", (0, 0, 28, 28)),  # at the frame's corner
    ("blue", (1890, 1050, 1920, 1080)),  # at the opposite corner
    ("red", (1000, 100, 1030, 130)),
    ("blue", (1035, 100, 1065, 130)),  # beside the red one, another class
]


@pytest.mark.parametrize("setting", ["tile=320 overlap=64 whole=off", "tile=320 overlap=64"])
def test_small_objects_across_tiles_are_reported_once_and_exactly(setting):
    detector, session = fake_detector(setting)
    found = detector.detect(frame_with(SQUARES))
    assert_found_once(found, SQUARES)
    plan = detector.plan(1920, 1080)
    assert len(plan.tiles) == 8 * 4
    # A dynamic batch: all inputs of one shape in one run.
    assert [shape[0] for shape in session.calls] == [len(plan.tiles) + int(plan.whole)]


def test_a_grid_of_dice_sized_squares_is_reported_once_each():
    rng = np.random.default_rng(5)
    squares = []
    for gy in range(14):
        for gx in range(24):
            x, y = 8 + gx * 79 + int(rng.integers(0, 40)), 8 + gy * 76 + int(rng.integers(0, 36))
            size = int(rng.integers(22, 36))
            squares.append((NAMES[(gx + gy) % 3], (x, y, x + size, y + size)))
    detector, _ = fake_detector("tile=320 overlap=64 whole=off max_det=1000", candidates=256)
    assert_found_once(detector.detect(frame_with(squares)), squares)


def test_a_big_object_cut_by_every_tile_is_joined_or_seen_whole():
    big = [("red", (600, 300, 1100, 500))]
    joined, _ = fake_detector("tile=320 overlap=64 whole=off")
    assert_found_once(joined.detect(frame_with(big)), big)
    with_pass, _ = fake_detector("tile=320 overlap=64 whole=on")
    # The whole-frame pass sees the frame at 1/6 scale: its box is good to a few px.
    assert_found_once(with_pass.detect(frame_with(big)), big, tol=6.0)


def random_rectangles(seed: int, count: int, largest: int) -> list:
    rng = np.random.default_rng(seed)
    placed: list = []
    while len(placed) < count:
        w, h = (int(v) for v in rng.integers(12, largest, 2))
        x, y = int(rng.integers(0, 1920 - w)), int(rng.integers(0, 1080 - h))
        box = (x, y, x + w, y + h)
        grown = np.array([[x - 6, y - 6, x + w + 6, y + h + 6]], float)
        if all(box_iou(grown, np.array([b], float))[0, 0] == 0 for _, b in placed):
            placed.append((NAMES[len(placed) % 3], box))
    return placed


@pytest.mark.parametrize("seed", range(6))
def test_random_objects_of_any_size_are_reported_once_without_a_frame_pass(seed):
    rects = random_rectangles(seed, 12, 500)
    detector, _ = fake_detector("tile=320 overlap=64 whole=off")
    assert_found_once(detector.detect(frame_with(rects)), rects)


@pytest.mark.parametrize("seed", range(6))
def test_random_objects_of_any_size_are_reported_once_with_a_frame_pass(seed):
    rects = random_rectangles(seed, 12, 500)
    detector, _ = fake_detector("tile=320 overlap=64 whole=on")
    # Big objects come from the whole-frame pass at 1/6 scale: good to a scaled pixel.
    assert_found_once(detector.detect(frame_with(rects)), rects, tol=7.0)


def test_merge_drops_a_piece_another_tile_sees_whole():
    names = ("die",)
    piece = Detections([[300, 10, 320, 40]], [0.9], [0], names)  # cut by tile 1's right edge
    whole = Detections([[300, 10, 330, 40]], [0.8], [0], names)
    parts = [(piece, (0, 0, 320, 320)), (whole, (228, 0, 548, 320))]
    merged = merge_tiles(parts, None, 1920, 1080, (92.0, 67.0), iou=0.7)
    np.testing.assert_allclose(merged.xyxy, [[300, 10, 330, 40]])


def test_fixed_batch_one_runs_input_by_input():
    detector, session = fake_detector("tile=320 overlap=64", batch=1)
    detector.detect(frame_with(SQUARES[:2]))
    assert all(shape[0] == 1 for shape in session.calls)
    assert len(session.calls) == len(detector.plan(1920, 1080).tiles) + 1
    unbatched, session = fake_detector("tile=320 batch=off")
    unbatched.detect(frame_with(SQUARES[:2]))
    assert all(shape[0] == 1 for shape in session.calls)


def test_whole_frame_only_and_auto():
    detector, _ = fake_detector("tile=0")
    plan = detector.plan(1920, 1080)
    assert plan.tiles == () and plan.whole
    found = detector.detect(frame_with([("green", (600, 300, 900, 600))]))
    assert_found_once(found, [("green", (600, 300, 900, 600))], tol=6.0)
    auto, _ = fake_detector("tile=auto")
    assert len(auto.plan(1920, 1080).tiles) == 32 and auto.plan(1920, 1080).whole
    assert auto.plan(400, 300).tiles == ()  # small frames run whole
    small = [("red", (100, 100, 140, 140))]
    assert_found_once(auto.detect(frame_with(small, 400, 300)), small, tol=2.0)


class TransposedYolo(FakeYolo):
    """Writes (candidates, 4 + nc), as some exporters do."""

    def run(self, outputs, feed):
        return [out.transpose(0, 2, 1) for out in super().run(outputs, feed)]


def test_a_transposed_output_is_read_too():
    detector = Detector("t.onnx", DetectorSettings(tile=0), session=TransposedYolo(candidates=64))
    square = [("blue", (100, 60, 180, 140))]
    assert_found_once(detector.detect(frame_with(square, 320, 320)), square)


def test_grey_and_bgra_images_are_accepted_others_refused():
    detector, _ = fake_detector("tile=0")
    assert len(detector.detect(np.zeros((100, 100), np.uint8))) == 0
    assert len(detector.detect(np.zeros((100, 100, 4), np.uint8))) == 0
    with pytest.raises(ValueError):
        detector.detect(np.zeros((100, 100, 3), np.float32))


# --- Settings and metadata --------------------------------------------------------------------


def test_settings_parse_and_describe():
    s = DetectorSettings.parse("tile=640 overlap=96 whole=off threads=2 conf=0.4")
    assert (s.tile, s.overlap, s.whole, s.threads, s.conf) == (640, 96, False, 2, 0.4)
    assert DetectorSettings.parse(s.describe()) == s
    assert DetectorSettings.parse("").describe() == "defaults"
    for bad in ("tile=big", "colour=1", "tile=64 overlap=64", "conf=2", "threads=0"):
        with pytest.raises(ValueError):
            DetectorSettings.parse(bad)


def test_metadata_names_sidecar_and_errors(tmp_path):
    info = read_model_info(FakeYolo(size=640))
    assert info.names == NAMES and info.imgsz == (640, 640) and info.batch is None
    assert not info.end2end and not info.dynamic_size
    model = tmp_path / "m.onnx"
    (tmp_path / "metrics.json").write_text(json.dumps({"names": ["a", "b", "c"], "imgsz": 480}))
    dynamic = FakeYolo(meta={}, batch=1)
    dynamic.size = "height"
    info = read_model_info(dynamic, model)
    assert info.names == ("a", "b", "c") and info.imgsz == (480, 480) and info.dynamic_size
    assert info.batch == 1
    (tmp_path / "metrics.json").unlink()
    with pytest.raises(ModelError, match="imgsz"):
        read_model_info(dynamic, model)
    # No names anywhere: generic names from the output's rows.
    assert read_model_info(FakeYolo(meta={}), model).names == ("class0", "class1", "class2")
    # A static model refuses another input size.
    with pytest.raises(ModelError, match="320x320 inputs only"):
        Detector("x.onnx", DetectorSettings(imgsz=640), session=FakeYolo())
    wrong_rows, _ = fake_detector("tile=0", output_rows=9)
    with pytest.raises(ModelError, match="rows per candidate"):
        wrong_rows.detect(np.zeros((64, 64, 3), np.uint8))


def test_auto_follows_the_tile_size_the_model_was_trained_on(tmp_path):
    model = tmp_path / "best.onnx"
    (tmp_path / "metrics.json").write_text(json.dumps({"tile": 640, "imgsz": 320}))
    tiled = Detector(model, session=FakeYolo(size=320))
    assert tiled.info.train_tile == 640
    plan = tiled.plan(1920, 1080)
    assert len(plan.tiles) == 8 and not plan.whole  # never trained on shrunken whole frames
    assert Detector(model, DetectorSettings(whole=True), session=FakeYolo()).plan(1920, 1080).whole
    (tmp_path / "metrics.json").write_text(json.dumps({"tile": 0}))
    whole = Detector(model, session=FakeYolo(size=320)).plan(1920, 1080)
    assert whole.tiles == () and whole.whole


def test_no_model_file_is_a_clear_error(tmp_path):
    with pytest.raises(ModelError, match="no model at"):
        Detector(tmp_path / "missing.onnx")
    (tmp_path / "junk.onnx").write_bytes(b"not a model")
    with pytest.raises(ModelError, match="not a usable ONNX model"):
        Detector(tmp_path / "junk.onnx")


def test_vision_never_imports_torch():
    code = (
        "import sys, vision.perception.detector, vision.perception.detections\n"
        "import vision.evaluate, vision.bench.speed\n"
        "import templecam.commands.detect, templecam.commands.eval\n"
        "import templecam.commands.bench_vision\n"
        "bad = [m for m in ('torch', 'ultralytics') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


# --- A real ONNX model ------------------------------------------------------------------------

_EXPORT = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    out = Path(sys.argv[1])
    os.environ.update(YOLO_OFFLINE="1", YOLO_AUTOINSTALL="0", YOLO_CONFIG_DIR=str(out / "cfg"))
    import ultralytics
    from ultralytics import YOLO, settings
    settings.update({"sync": False})
    names = sys.argv[2].split(",")
    source = Path(ultralytics.__file__).parent / "cfg" / "models" / "v8" / "yolov8.yaml"
    yaml = out / "yolov8n.yaml"  # the n in the name picks the nano scale
    yaml.write_text(source.read_text().replace("nc: 80", f"nc: {len(names)}"))
    model = YOLO(str(yaml))
    model.model.names = dict(enumerate(names))
    os.chdir(out)
    print(model.export(format="onnx", imgsz=320, simplify=False, device="cpu"))
    """
)


@pytest.fixture(scope="session")
def real_model(tmp_path_factory) -> Path:
    """An untrained YOLOv8n with the 11 templecam classes, exported to ONNX at 320 px."""
    pytest.importorskip("ultralytics", reason="the train extra (ultralytics) is not installed")
    pytest.importorskip("onnx", reason="ONNX export needs the onnx package")
    out = tmp_path_factory.mktemp("yolo-export")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ULTRALYTICS_")}
    done = subprocess.run(
        [sys.executable, "-c", _EXPORT, str(out), ",".join(DETECTION_NAMES)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    model = out / "yolov8n.onnx"
    assert done.returncode == 0 and model.is_file(), done.stdout[-2000:] + done.stderr[-2000:]
    return model


@pytest.fixture(scope="module")
def rendered_frame(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("frame") / "table.jpg"
    cv2.imwrite(str(path), render_frame(SynthSettings(), 3, 0).image)
    return path


def test_real_model_runs_end_to_end(real_model, rendered_frame):
    # 640 px tiles fed at the model's 320: 8 tiles and the whole frame, in one batch run.
    detector = Detector(real_model, DetectorSettings(tile=640, threads=2))
    assert detector.names == DETECTION_NAMES and detector.info.imgsz == (320, 320)
    image = cv2.imread(str(rendered_frame))
    # Untrained, the model is unsure of everything: a threshold near 0 still yields boxes.
    found = detector.detect(image, conf=1e-6)
    assert isinstance(found, Detections) and 0 < len(found) <= 300
    assert (found.xyxy[:, [0, 2]] >= 0).all() and (found.xyxy[:, [0, 2]] <= 1920).all()
    assert (found.xyxy[:, [1, 3]] >= 0).all() and (found.xyxy[:, [1, 3]] <= 1080).all()
    assert (found.xyxy[:, 2] >= found.xyxy[:, 0]).all()
    assert len(detector.detect(image)) == 0  # nothing reaches the default 0.25


def parser() -> argparse.ArgumentParser:
    """A `templecam` parser with this room's subcommands (until cli.py lists them)."""
    top = argparse.ArgumentParser(prog="templecam")
    commands = top.add_subparsers(dest="command", required=True)
    detect.register(commands)
    bench = commands.add_parser("bench")
    bench_vision.register_vision(bench.add_subparsers(dest="target", required=True))
    return top


def test_detect_json_through_the_command(real_model, rendered_frame, tmp_path, capsys):
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a jpeg")
    argv = ["detect", str(rendered_frame), str(broken), str(rendered_frame)]
    options = ["--model", str(real_model), "--tile", "640", "--conf", "0.000001", "--json"]
    args = parser().parse_args([*argv, *options])
    assert args.run(args) == 2
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["image"] for line in lines] == [str(rendered_frame)] * 2
    assert f"cannot read {broken}" in err
    for line in lines:
        assert set(line) == {"image", "detections"} and line["detections"]
        for item in line["detections"]:
            assert set(item) == {"class", "conf", "box"} and item["class"] in DETECTION_NAMES
            assert len(item["box"]) == 4 and all(round(v, 1) == v for v in item["box"])
    args = parser().parse_args(
        ["detect", str(rendered_frame), "--model", str(real_model), "--tile", "0"]
    )
    assert args.run(args) == 0
    assert "0 detections" in capsys.readouterr().out


def test_detect_through_templecam_main(real_model, rendered_frame, monkeypatch, capsys):
    from templecam import cli

    argv = ["detect", str(rendered_frame), "--model", str(real_model), "--tile", "0", "--json"]
    assert cli.main(argv) == 0
    assert json.loads(capsys.readouterr().out)["image"] == str(rendered_frame)
    monkeypatch.setattr(shipped, "shipped_dir", lambda: Path("/nowhere"))
    assert cli.main(["detect", str(rendered_frame)]) == 2
    err = capsys.readouterr().err
    assert "no localiser at /nowhere/templecam-default.onnx: train one with" in err


def test_detect_without_a_model_says_what_to_do(monkeypatch, tmp_path):
    monkeypatch.setattr(shipped, "shipped_dir", lambda: tmp_path)
    args = parser().parse_args(["detect", "x.jpg"])
    with pytest.raises(UserError, match="train one with `templecam train --localiser`, or pass"):
        args.run(args)
    args = parser().parse_args(["detect", "x.jpg", "--model", str(tmp_path / "nope.onnx")])
    with pytest.raises(UserError, match=r"no model at .*nope\.onnx: .*or one of auto, int8, float"):
        args.run(args)


def test_bench_vision_reports_each_setting(real_model, rendered_frame, capsys):
    image = cv2.imread(str(rendered_frame))
    results = run_vision_benchmark(real_model, [image], ["tile=0", "tile=0 imgsz=640"], repeats=1)
    assert results[0].error is None and results[0].ms_median > 0 and results[0].inputs == 1
    assert results[1].error and "320x320" in results[1].error
    argv = ["bench", "vision", str(rendered_frame), "--model", str(real_model), "--repeats", "1"]
    args = parser().parse_args([*argv, "--setting", "tile=640 threads=1", "--json"])
    assert args.run(args) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["setting"] == "tile=640 threads=1" and row["inputs"] == 9 and row["ms_median"] > 0


# --- The shipped model ------------------------------------------------------------------------

SHIPPED = shipped_path(LOCALISER)
SHIPPED_SEED, SHIPPED_INDEX = 3, 0
"""The fixed rendered 1080p frame the shipped model must read the dice of (16 readable dice
showing all five faces, two of them leaning on another die, 16 and 37 degrees, and 3
unreadable ones)."""


def test_shipped_model_reads_the_die_faces_on_a_fixed_frame():
    from vision.perception.models import open_model

    frame = render_frame(SynthSettings(), SHIPPED_SEED, SHIPPED_INDEX)
    dice = [d for d in frame.scene["dice"] if d["label"] in FACES]
    assert {d["label"] for d in dice} == set(FACES), "the fixed frame shows all five faces"
    found = open_model(SHIPPED).detect(frame.image).with_classes(FACES)
    iou = box_iou(np.array([d["box"] for d in dice], float), found.xyxy)
    missed = [
        (d["label"], d["box"])
        for j, d in enumerate(dice)
        if not any(iou[j, i] >= 0.5 and found.names[i] == d["label"] for i in range(len(found)))
    ]
    # Measured: 14 of 16 (the die leaning 37 degrees is read). The two it misses are hard for a
    # person too: a torch die touching another (one wide box over both) and an adventurer
    # leaning 16 degrees on a neighbour, its torch side as large as its top.
    assert len(missed) <= 2, f"dice not read: {missed}; found {found.to_json()}"
    every_die = np.array([d["box"] for d in frame.scene["dice"] if d["box"]], float)
    false = box_iou(found.xyxy, every_die).max(axis=1) < 0.3
    # Measured: one, a die-sized yellow-green square token read as a golden mask (the reader
    # shipped before 2026-12-04 refused it, at 0.51 not_die; the one retrained on leaning dice
    # reads 0.58 golden mask). Issue 20's false dice are measured by `bench robustness`.
    assert false.sum() <= 1, f"dice where there is none: {found[false].to_json()}"
