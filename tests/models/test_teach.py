"""Teaching the reader one's own dice, end to end through the command line, on rendered photos
of a dice look the shipped reader never trained on (cherry wood, another maker's print, low sun).

Runs are tiny (2 passes, few crops) so that they fit a test; `templecam bench teach` measures
the real thing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from models.synth.crop_look import HELD_OUT_LOOK
from models.synth.crop_set import render_set
from models.synth.dataset import DatasetPlan, generate, write_data_yaml
from models.synth.settings import SynthSettings
from models.teach import TeachConfig, teach
from teach.datasets import export_review
from teach.registry import PARTIAL, active_name, taught_dir
from templecam.cli import main
from tests.teach.prompted_photos import copy_captures, render_captures
from vision.perception.face_reader import CROP_SCALE, FaceReader
from vision.perception.model_choice import load_taught

TINY = ["--epochs", "2", "--copies", "8", "--replay", "400"]


@pytest.fixture(scope="module")
def captures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return render_captures(tmp_path_factory.mktemp("teach") / "dice", per_face=2, empty=1)


@pytest.fixture(scope="module")
def taught(captures: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, Path]:
    data = tmp_path_factory.mktemp("data")
    folder = copy_captures(captures, tmp_path_factory.mktemp("work") / "dice")
    out = tmp_path_factory.mktemp("models") / "mine"
    code = main(
        ["teach", "--prompted", str(folder), "--out", str(out), "--data-dir", str(data), *TINY]
    )
    assert code == 0
    return out, json.loads((out / "card.json").read_text()), folder


def test_teaching_writes_a_whole_model_with_its_card(taught: tuple[Path, dict, Path]) -> None:
    out, card, folder = taught
    assert {p.name for p in out.iterdir()} >= {
        "faces.onnx",
        "faces-int8.onnx",
        "faces.pt",
        "card.json",
        "card.md",
        "wrong.png",
    }
    assert not out.with_name(out.name + PARTIAL).exists()
    assert (folder / "review.json").is_file(), "the labels are kept for the review"
    assert card["captures"]["photos"]["key"] == 2 and card["captures"]["photos"]["empty"] == 1
    assert card["captures"]["held_back_photos"] == sorted(
        f"{face}/capture_0001.jpg"
        for face in ("adventurer", "black_mask", "golden_mask", "key", "torch")
    )
    assert "| key |" in (out / "card.md").read_text()


def test_the_taught_reader_reads_the_held_back_photos_better(
    taught: tuple[Path, dict, Path],
) -> None:
    _, card, _ = taught
    held = card["figures"]["held_back"]
    assert held["after"] > held["before"]
    assert (
        card["figures"]["shipped_look"]["after"] >= card["figures"]["shipped_look"]["before"] - 0.03
    )
    assert card["checks"]["passed"], card["checks"]


def test_the_taught_reader_runs_in_the_pipeline(taught: tuple[Path, dict, Path]) -> None:
    out, _, _ = taught
    reader = FaceReader(out / "faces.onnx")
    assert reader.names[-1] == "not_die" and reader.imgsz == 40


def test_the_taught_reader_runs_as_its_int8_copy_which_reads_alike(
    taught: tuple[Path, dict, Path],
) -> None:
    out, _, _ = taught
    assert load_taught(out).faces_path == out / "faces-int8.onnx"
    crops = list(render_set(60, 91, HELD_OUT_LOOK, 40, CROP_SCALE, workers=0).images)
    float_read = FaceReader(out / "faces.onnx").predict(crops)
    int8_read = FaceReader(out / "faces-int8.onnx").predict(crops)
    assert (int8_read.argmax(axis=1) == float_read.argmax(axis=1)).mean() >= 0.95
    (out / "faces-int8.onnx").rename(out / "kept-aside.onnx")  # a model taught before it
    try:
        assert load_taught(out).faces_path == out / "faces.onnx"
    finally:
        (out / "kept-aside.onnx").rename(out / "faces-int8.onnx")


def test_eval_scores_the_taught_reader_like_any_model(
    taught: tuple[Path, dict, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _, _ = taught
    plan = DatasetPlan(tmp_path / "frames", SynthSettings(look="held_out"), 5, 2, 1.0)
    generate(plan)
    write_data_yaml(plan)
    capsys.readouterr()
    code = main(
        [
            "eval",
            "--data",
            str(tmp_path / "frames" / "data.yaml"),
            "--faces",
            str(out / "faces.onnx"),
            "--json",
        ]
    )
    assert code == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["images"] == 2 and figures["die_face_accuracy"] is not None


def test_a_model_kept_in_the_data_folder_is_listed_and_used(
    captures: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy_captures(captures, tmp_path / "dice")
    data = tmp_path / "data"
    assert main(["teach", "--prompted", str(folder), "--data-dir", str(data), *TINY]) == 0
    (name,) = [p.name for p in taught_dir(data).iterdir()]
    capsys.readouterr()
    assert main(["teach", "--list", "--json", "--data-dir", str(data)]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["active"] is None and [m["name"] for m in listed["models"]] == [name]
    assert main(["teach", "--use", name, "--data-dir", str(data)]) == 0
    assert active_name(data) == name
    assert main(["teach", "--use", "shipped", "--data-dir", str(data)]) == 0
    assert active_name(data) is None


def test_an_interrupted_run_leaves_no_model_behind(captures: Path, tmp_path: Path) -> None:
    folder = copy_captures(captures, tmp_path / "dice")
    out = tmp_path / "models" / "mine"

    def interrupt(stage: str, done: int, total: int) -> None:
        if stage == "fine-tune" and done == 3:
            raise KeyboardInterrupt

    config = TeachConfig(folder, out, copies=4, replay=200, epochs=1, cache=tmp_path / "cache")
    with pytest.raises(KeyboardInterrupt):
        teach(config, log=lambda m: None, progress=interrupt)
    assert not out.exists()
    assert not out.with_name(out.name + PARTIAL).exists()
    assert (folder / "review.json").is_file(), "the labels made before survive"


def test_what_was_captured_and_reviewed_teaches_again_as_a_dataset(
    taught: tuple[Path, dict, Path], tmp_path: Path
) -> None:
    _, _, folder = taught
    export_review(folder, tmp_path / "exported")
    out = tmp_path / "from-dataset"
    exported = str(tmp_path / "exported")
    args = ["--dataset", exported, "--out", str(out), "--data-dir", str(tmp_path / "data")]
    code = main(["teach", *args, *TINY])
    assert code == 0
    card = json.loads((out / "card.json").read_text())
    assert card["crops"]["train"]["key"] > 0 and card["crops"]["held_back"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: (d / "keys").mkdir(), "unknown face folder keys"),
        (lambda d: (d / "key" / "x.jpg").write_bytes(b"no"), "cannot read key/x.jpg"),
    ],
)
def test_bad_photos_stop_with_a_message_and_exit_2(
    captures: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], change, message: str
) -> None:
    folder = copy_captures(captures, tmp_path / "dice")
    change(folder)
    code = main(["teach", "--prompted", str(folder), "--out", str(tmp_path / "m"), *TINY])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "m").exists()


def test_an_output_folder_in_use_is_refused(
    captures: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "notes.txt").write_text("mine")
    folder = copy_captures(captures, tmp_path / "dice")
    code = main(["teach", "--prompted", str(folder), "--out", str(tmp_path / "m"), *TINY])
    assert code == 2
    assert "exists and is not empty" in capsys.readouterr().err
    assert (tmp_path / "m" / "notes.txt").read_text() == "mine"


def test_a_full_disk_keeps_nothing_half_written_and_says_so(
    captures: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import errno

    import models.teach

    def full(path: Path, data: bytes, **_: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    folder = copy_captures(captures, tmp_path / "dice")
    monkeypatch.setattr(models.teach, "write_atomically", full)  # the disk is what we fake
    out = tmp_path / "m"
    code = main(["teach", "--prompted", str(folder), "--out", str(out), *TINY])
    assert code == 2
    err = capsys.readouterr().err
    assert "No space left on device" in err and "nothing was kept" in err
    assert not out.exists() and not out.with_name(out.name + PARTIAL).exists()


def test_a_reader_that_cannot_be_quantised_runs_as_it_is(tmp_path: Path) -> None:
    from models.teach import _int8_copy

    junk = tmp_path / "faces.onnx"
    junk.write_bytes(b"not a network")
    said: list[str] = []
    crops = render_set(4, 92, HELD_OUT_LOOK, 40, CROP_SCALE, workers=0).images
    assert _int8_copy(junk, tmp_path / "faces-int8.onnx", crops, said.append) == junk
    assert not (tmp_path / "faces-int8.onnx").exists()
    assert said and "no int8 copy" in said[0]
