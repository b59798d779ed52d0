"""Which models run: the shipped ones, a taught model's reader and localiser, a --model."""

from __future__ import annotations

import json
import shutil

import pytest

from teach.registry import use_model
from vision.perception.model_choice import (
    SHIPPED,
    ModelChoice,
    active_model,
    choose_models,
    open_models,
    reader_name,
    taught_dir,
)
from vision.perception.shipped import (
    BASELINE,
    FACES,
    FACES_INT8,
    LOCALISER,
    LOCALISER_INT8,
    shipped_path,
)


def teach_one(data, name, passed=True, localiser=False):
    """Lay a taught model in the data folder, its files copies of the shipped ones."""
    folder = taught_dir(data) / name
    folder.mkdir(parents=True)
    shutil.copy(shipped_path(FACES), folder / "faces.onnx")
    if localiser:
        (folder / "localiser").mkdir()
        shutil.copy(shipped_path(LOCALISER), folder / "localiser" / "localiser.onnx")
    card = {"created": "2026-12-02T01:00:00+00:00", "checks": {"passed": passed, "problems": []}}
    (folder / "card.json").write_text(json.dumps(card))
    return folder


def test_with_nothing_taught_the_shipped_models_run(tmp_path):
    choice = choose_models(tmp_path)
    assert choice == ModelChoice() and choice.name == SHIPPED
    assert choice.localiser is None and choice.faces is None
    detector, note = open_models(choice, "threads=1")
    assert note is None and detector.model_path == shipped_path(LOCALISER_INT8)
    assert detector.faces is not None and detector.faces.model_path == shipped_path(FACES_INT8)
    assert reader_name(detector.faces.model_path, tmp_path) == SHIPPED
    assert reader_name(None, tmp_path) is None


def test_the_taught_model_in_use_reads_the_dice_with_its_own_localiser(tmp_path):
    folder = teach_one(tmp_path, "20261202-010000", localiser=True)
    use_model(tmp_path, "20261202-010000")
    choice = choose_models(tmp_path)
    assert choice.name == "20261202-010000" and choice.taught == active_model(tmp_path)
    assert choice.faces == folder / "faces.onnx"
    assert choice.localiser == folder / "localiser" / "localiser.onnx"
    detector, _ = open_models(choice, "threads=1")
    assert detector.model_path == choice.localiser
    assert reader_name(detector.faces.model_path, tmp_path) == "20261202-010000"


def test_a_model_line_finds_the_dice_whatever_was_taught(tmp_path):
    teach_one(tmp_path, "mine", localiser=True)
    use_model(tmp_path, "mine")
    explicit = shipped_path(BASELINE)
    choice = choose_models(tmp_path, explicit)
    assert choice.localiser == explicit and choice.name == "mine"
    back = choice.shipped_reader()
    assert back.localiser == explicit and back.faces is None and back.name == SHIPPED


def test_a_taught_model_without_a_localiser_reads_with_the_shipped_one(tmp_path):
    teach_one(tmp_path, "faces-only")
    use_model(tmp_path, "faces-only")
    choice = choose_models(tmp_path)
    assert choice.localiser is None and choice.faces is not None


def test_a_model_that_failed_its_checks_or_is_gone_never_runs(tmp_path):
    folder = teach_one(tmp_path, "good")
    use_model(tmp_path, "good")
    card = json.loads((folder / "card.json").read_text())
    card["checks"]["passed"] = False
    (folder / "card.json").write_text(json.dumps(card))
    assert choose_models(tmp_path).name == SHIPPED
    shutil.rmtree(folder)
    assert choose_models(tmp_path) == ModelChoice()


def test_the_page_s_choice_overrides_the_data_folder(tmp_path):
    teach_one(tmp_path, "other")
    use_model(tmp_path, "other")
    assert choose_models(tmp_path, taught=None).name == SHIPPED


@pytest.mark.parametrize("broken", ["{", "[1, 2]"])
def test_an_unreadable_active_file_means_the_shipped_models(tmp_path, broken):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "active.json").write_text(broken)
    assert choose_models(tmp_path) == ModelChoice()
