"""Training support: tiling, a tiny offline end-to-end training with ONNX export, CLI errors."""

from __future__ import annotations

import importlib.util
import itertools
import json
import shutil
import socket
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from models.tiles import (
    MIN_INSIDE,
    clip_boxes,
    read_data_yaml,
    starts,
    tile_dataset,
    tile_grid,
)
from templecam import cli

needs_training = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("ultralytics", "onnx")),
    reason="needs the train extra (ultralytics, onnx)",
)
IMGSZ = 160
TILE = 320
NC = 11
ANCHORS = sum((IMGSZ // s) ** 2 for s in (8, 16, 32))


class NetworkGuard:
    """Refuse and record every attempt to resolve a name or open a connection."""

    def __init__(self) -> None:
        self.attempts: list[str] = []

    def refuse(self, what: str) -> OSError:
        self.attempts.append(what)
        return OSError(f"network disabled in this test: {what}")

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def connect(sock: socket.socket, address: object) -> None:
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                raise self.refuse(f"connect {address!r}")
            return original_connect(sock, address)

        def connect_ex(sock: socket.socket, address: object) -> int:
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                raise self.refuse(f"connect_ex {address!r}")
            return original_connect_ex(sock, address)

        def getaddrinfo(host: object, *args: object, **kwargs: object) -> list:
            raise self.refuse(f"getaddrinfo {host!r}")

        original_connect = socket.socket.connect
        original_connect_ex = socket.socket.connect_ex
        monkeypatch.setattr(socket.socket, "connect", connect)
        monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.fixture(scope="module")
def frames(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six small rendered frames (four train, two val) as an Ultralytics dataset."""
    from models.synth.dataset import DatasetPlan, generate
    from models.synth.settings import SynthSettings

    out = tmp_path_factory.mktemp("synth")
    generate(DatasetPlan(out, SynthSettings(width=640, height=360), 7, 6, 0.34))
    return out / "data.yaml"


@pytest.fixture(scope="module")
def trained(frames: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """Train one epoch on 320 px tiles at imgsz 160 with the network refused; return DIR."""
    from models.train import TrainConfig, train

    out = tmp_path_factory.mktemp("model")
    guard = NetworkGuard()
    with pytest.MonkeyPatch.context() as monkeypatch:
        guard.install(monkeypatch)
        train(
            TrainConfig(
                data=frames,
                out=out,
                epochs=1,
                imgsz=IMGSZ,
                batch=8,
                tile=TILE,
                workers=0,
                extra={"mosaic": 0.0},
            ),
            log=lambda _: None,
        )
    return out, guard.attempts


def test_tile_starts_cover_the_axis_with_overlap() -> None:
    for length in (320, 640, 1080, 1920, 2000):
        xs = starts(length, 640)
        assert xs[0] == 0
        assert min(xs[-1] + 640, length) == length
        for a, b in itertools.pairwise(xs):
            assert 0 < b - a <= 640 * 0.8 + 1
    assert tile_grid(1920, 1080, 640)[0] == (0, 0, 640, 640)
    assert len(tile_grid(1920, 1080, 640)) == 8
    assert tile_grid(300, 200, 640) == [(0, 0, 300, 200)]


def test_clip_boxes_keeps_mostly_inside_boxes_shifted_and_clipped() -> None:
    boxes = np.array(
        [
            [5, 100, 100, 130, 130],  # inside
            [1, 630, 10, 650, 30],  # half inside (x 630-640 of 630-650)
            [2, 635, 10, 655, 30],  # a quarter inside: dropped
            [3, 700, 10, 720, 30],  # outside
        ],
        dtype=float,
    )
    kept = clip_boxes(boxes, (0, 0, 640, 640))
    assert kept[:, 0].tolist() == [5, 1]
    assert kept[1].tolist() == [1, 630, 10, 640, 30]
    shifted = clip_boxes(boxes, (600, 0, 1240, 640), MIN_INSIDE)
    assert shifted[:, 0].tolist() == [1, 2, 3]
    assert shifted[0].tolist() == [1, 30, 10, 50, 30]


def test_tile_dataset_relabels_every_tile(frames: Path, tmp_path: Path) -> None:
    data = tile_dataset(frames, tmp_path / "tiles", TILE)
    spec = read_data_yaml(data)
    assert spec.names == read_data_yaml(frames).names
    tiles = sorted(spec.train.iterdir())
    assert len(tiles) == 4 * len(tile_grid(640, 360, TILE))
    dice_like = 0
    for label in (tmp_path / "tiles" / "labels" / "train").glob("*.txt"):
        for line in label.read_text().splitlines():
            cls, *box = line.split()
            assert 0 <= int(cls) < NC
            cx, cy, w, h = map(float, box)
            assert -1e-6 <= cx - w / 2 <= cx + w / 2 <= 1 + 1e-6
            assert -1e-6 <= cy - h / 2 <= cy + h / 2 <= 1 + 1e-6
            dice_like += 1
    assert dice_like > 0
    # A second call with the same source and size reuses the tiles.
    before = (tmp_path / "tiles" / "data.yaml").stat().st_mtime_ns
    assert tile_dataset(frames, tmp_path / "tiles", TILE) == data
    assert (tmp_path / "tiles" / "data.yaml").stat().st_mtime_ns == before


@needs_training
def test_training_is_offline_and_exports_onnx(trained: tuple[Path, list[str]]) -> None:
    import onnxruntime as ort

    out, attempts = trained
    assert attempts == []
    assert (out / "best.pt").is_file()
    session = ort.InferenceSession(str(out / "best.onnx"), providers=["CPUExecutionProvider"])
    [inp] = session.get_inputs()
    batch, channels, height, width = inp.shape
    assert channels == 3 and all(isinstance(d, str) for d in (batch, height, width))  # dynamic
    assert session.get_outputs()[0].shape[1] == 4 + NC
    meta = session.get_modelmeta().custom_metadata_map
    assert meta["tile"] == str(TILE)
    assert "die_unreadable" in meta["names"]
    result = session.run(None, {inp.name: np.zeros((1, 3, IMGSZ, IMGSZ), np.float32)})
    assert result[0].shape == (1, 4 + NC, ANCHORS)
    small = session.run(None, {inp.name: np.zeros((1, 3, 64, 96), np.float32)})  # any 32-multiple
    assert small[0].shape == (1, 4 + NC, sum((64 // s) * (96 // s) for s in (8, 16, 32)))
    assert not list(out.glob("**/*.tmp"))


@needs_training
def test_metrics_json_says_what_the_detector_needs(
    trained: tuple[Path, list[str]], frames: Path
) -> None:
    out, _ = trained
    metrics = json.loads((out / "metrics.json").read_text())
    for key in (
        "names",
        "imgsz",
        "tile",
        "input_shape",
        "output_shape",
        "epochs",
        "training_seconds",
        "dataset",
        "val",
        "model_yaml",
    ):
        assert key in metrics, key
    assert metrics["names"] == list(read_data_yaml(frames).names)
    assert metrics["imgsz"] == IMGSZ
    assert metrics["tile"] == TILE
    assert metrics["output_shape"][1] == 4 + NC and metrics["input_shape"][1] == 3
    assert metrics["epochs"]["completed"] == 1
    assert metrics["dataset"]["frames"] == {"train": 4, "val": 2}
    assert metrics["dataset"]["tiles"] == {"train": 24, "val": 12}
    assert metrics["dataset"]["renderer"]["seed"] == 7
    for key in ("map50", "map50_95", "precision", "recall", "per_class"):
        assert key in metrics["val"]
    assert set(metrics["val"]["per_class"]) | set(metrics["val"]["absent_classes"]) == set(
        metrics["names"]
    )


@needs_training
def test_export_command_writes_onnx_offline(
    trained: tuple[Path, list[str]], tmp_path: Path, monkeypatch
) -> None:
    out, _ = trained
    guard = NetworkGuard()
    guard.install(monkeypatch)
    target = tmp_path / "exported.onnx"
    assert cli.main(["export", "--weights", str(out / "best.pt"), "--out", str(target)]) == 0
    assert guard.attempts == []
    import onnxruntime as ort

    session = ort.InferenceSession(str(target), providers=["CPUExecutionProvider"])
    batch, channels, height, width = session.get_inputs()[0].shape
    assert channels == 3 and all(isinstance(d, str) for d in (batch, height, width))  # dynamic
    assert session.get_outputs()[0].shape[1] == 4 + NC
    assert session.get_modelmeta().custom_metadata_map["tile"] == str(TILE)  # from metrics.json


@needs_training
@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare")
def test_export_runs_in_a_process_without_network(
    trained: tuple[Path, list[str]], tmp_path: Path
) -> None:
    if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode != 0:
        pytest.skip("unshare -n is not permitted here")
    out, _ = trained
    script = "import sys; from templecam import cli; sys.exit(cli.main(sys.argv[1:]))"
    target = tmp_path / "no-net.onnx"
    args = ["--weights", str(out / "best.pt"), "--out", str(target), "--imgsz", "320"]
    done = subprocess.run(
        ["unshare", "-n", sys.executable, "-c", script, "export", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert target.is_file()


def _exit_and_message(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(argv)
    return code, capsys.readouterr().err


def test_train_rejects_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "model")
    code, err = _exit_and_message(
        ["train", "--data", str(tmp_path / "none.yaml"), "--out", out], capsys
    )
    assert code == 2 and "does not exist" in err and "Traceback" not in err

    empty = tmp_path / "empty"
    (empty / "images" / "train").mkdir(parents=True)
    (empty / "data.yaml").write_text(
        "path: .\ntrain: images/train\nval: images/train\nnames: [a]\n"
    )
    code, err = _exit_and_message(
        ["train", "--data", str(empty / "data.yaml"), "--out", out], capsys
    )
    assert code == 2 and "no images" in err

    (tmp_path / "bad.yaml").write_text("just: [a, list\n")
    code, err = _exit_and_message(
        ["train", "--data", str(tmp_path / "bad.yaml"), "--out", out], capsys
    )
    assert code == 2 and "error" in err

    code, err = _exit_and_message(
        ["train", "--data", str(empty / "data.yaml"), "--out", out, "--tile", "8"], capsys
    )
    assert code == 2 and "--tile" in err

    for bad in ("amp=True", "lr0"):
        code, err = _exit_and_message(
            ["train", "--data", str(empty / "data.yaml"), "--out", out, "--set", bad], capsys
        )
        assert code == 2 and "--set" in err


def test_set_parses_ultralytics_arguments() -> None:
    from templecam.commands.train import parse_settings

    assert parse_settings(["lr0=0.0015", "close_mosaic=1", "cos_lr=true", "optimizer=AdamW"]) == {
        "lr0": 0.0015,
        "close_mosaic": 1,
        "cos_lr": True,
        "optimizer": "AdamW",
    }


@needs_training
def test_train_rejects_unreadable_base_and_missing_resume(
    frames: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    out = str(tmp_path / "model")
    code, err = _exit_and_message(
        ["train", "--data", str(frames), "--out", out, "--base", str(junk)], capsys
    )
    assert code == 2 and "not readable" in err and "Traceback" not in err
    code, err = _exit_and_message(
        ["train", "--data", str(frames), "--out", out, "--resume", "--tile", "0"], capsys
    )
    assert code == 2 and "--resume" in err


@needs_training
def test_export_rejects_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = str(tmp_path / "x.onnx")
    code, err = _exit_and_message(
        ["export", "--weights", str(tmp_path / "none.pt"), "--out", target], capsys
    )
    assert code == 2 and "does not exist" in err
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"\x80\x02garbage")
    code, err = _exit_and_message(["export", "--weights", str(junk), "--out", target], capsys)
    assert code == 2 and "not readable" in err and "Traceback" not in err
    code, err = _exit_and_message(
        ["export", "--weights", str(junk), "--out", str(tmp_path / "x.txt")], capsys
    )
    assert code == 2 and ".onnx" in err
    assert not Path(target).exists()


@needs_training
def test_interrupted_training_resumes(frames: Path, tmp_path: Path) -> None:
    from ultralytics.utils.callbacks import base

    from models.train import TrainConfig, train

    def stop_after_first_epoch(trainer) -> None:
        if trainer.epoch == 0:
            raise KeyboardInterrupt

    config = TrainConfig(data=frames, out=tmp_path, epochs=2, imgsz=128, batch=4, tile=0, workers=0)
    with pytest.MonkeyPatch.context() as monkeypatch:
        hooks = [*base.default_callbacks["on_model_save"], stop_after_first_epoch]
        monkeypatch.setitem(base.default_callbacks, "on_model_save", hooks)
        with pytest.raises(KeyboardInterrupt):
            train(config, log=lambda _: None)
    assert (tmp_path / "run" / "weights" / "last.pt").is_file()
    assert not (tmp_path / "best.onnx").exists()
    metrics = train(replace(config, resume=True), log=lambda _: None)
    assert metrics["epochs"]["completed"] == 2
    assert metrics["tile"] == 0
    assert (tmp_path / "best.onnx").is_file()
    # Resuming a finished run only validates and exports again.
    assert train(replace(config, resume=True), log=lambda _: None)["epochs"]["completed"] == 2


@needs_training
def test_fine_tunes_from_base_weights(
    frames: Path, trained: tuple[Path, list[str]], tmp_path: Path
) -> None:
    from models.train import TrainConfig, train

    base = trained[0] / "best.pt"
    config = TrainConfig(
        data=frames,
        out=tmp_path,
        base=base,
        epochs=1,
        imgsz=128,
        batch=4,
        tile=0,
        workers=0,
        seed=1,  # a model rebuilt from its yaml would start from other random weights
        extra={"optimizer": "AdamW", "lr0": 1e-5},
    )
    guard = NetworkGuard()
    with pytest.MonkeyPatch.context() as monkeypatch:
        guard.install(monkeypatch)
        metrics = train(config, log=lambda _: None)
    assert guard.attempts == []
    assert metrics["base_weights"] == str(base)
    assert metrics["model_yaml"] is None
    assert metrics["output_shape"][1] == 4 + NC
    # A fine-tune starts from the base's weights: one epoch at a tiny learning rate leaves them
    # nearly as they were (a model rebuilt from its yaml, as --base once did, shares nothing).
    before, after = _weights(base), _weights(tmp_path / "best.pt")
    change = np.linalg.norm(after - before) / np.linalg.norm(before)
    assert change < 0.05, f"the fine-tuned weights moved {change:.0%} away from the base"


def _weights(path: Path) -> np.ndarray:
    """Return every convolution weight of an Ultralytics checkpoint as one flat vector."""
    from ultralytics.utils.patches import torch_load

    model = torch_load(path, map_location="cpu", weights_only=False)["model"].float()
    return np.concatenate(
        [
            v.detach().numpy().ravel()
            for k, v in model.state_dict().items()
            if k.endswith("conv.weight")
        ]
    )
