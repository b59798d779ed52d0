"""Taught models are kept whole, only checked ones become active, and any can be rolled back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from teach.errors import TeachError
from teach.registry import (
    PARTIAL,
    SHIPPED,
    active_model,
    active_name,
    discard_partials,
    list_models,
    new_name,
    publish,
    taught_dir,
    use_model,
)


def _model(data: Path, name: str, passed: bool = True) -> Path:
    """Write a taught model folder as a finished run leaves it (the ONNX is a placeholder:
    the registry never opens it)."""
    folder = taught_dir(data) / name
    folder.mkdir(parents=True)
    (folder / "faces.onnx").write_bytes(b"onnx")
    problems = [] if passed else ["it forgot the shipped dice"]
    card = {"created": name, "checks": {"passed": passed, "problems": problems}}
    (folder / "card.json").write_text(json.dumps(card))
    return folder


def test_the_shipped_reader_is_in_use_until_one_is_chosen(tmp_path: Path) -> None:
    assert active_name(tmp_path) is None
    assert active_model(tmp_path) is None
    assert list_models(tmp_path) == []


def test_using_a_model_and_rolling_back_to_an_earlier_one_or_the_shipped_one(
    tmp_path: Path,
) -> None:
    _model(tmp_path, "20261201-100000")
    _model(tmp_path, "20261201-110000")
    assert [m.name for m in list_models(tmp_path)] == ["20261201-110000", "20261201-100000"]
    use_model(tmp_path, "20261201-110000")
    assert active_model(tmp_path).name == "20261201-110000"
    use_model(tmp_path, "20261201-100000")
    assert active_name(tmp_path) == "20261201-100000"
    assert use_model(tmp_path, SHIPPED) is None
    assert active_model(tmp_path) is None
    assert len(list_models(tmp_path)) == 2, "rolling back deletes nothing"


def test_a_model_that_failed_its_checks_never_becomes_active(tmp_path: Path) -> None:
    _model(tmp_path, "good")
    _model(tmp_path, "bad", passed=False)
    use_model(tmp_path, "good")
    with pytest.raises(TeachError, match=r"failed its checks.*forgot the shipped dice"):
        use_model(tmp_path, "bad")
    assert active_name(tmp_path) == "good"


def test_an_unknown_name_lists_the_models_there_are(tmp_path: Path) -> None:
    _model(tmp_path, "mine")
    with pytest.raises(
        TeachError, match=r"no taught model 'other' \(taught models: mine; or shipped"
    ):
        use_model(tmp_path, "other")


def test_an_active_model_whose_folder_is_gone_falls_back_to_the_shipped_one(
    tmp_path: Path,
) -> None:
    folder = _model(tmp_path, "mine")
    use_model(tmp_path, "mine")
    (folder / "faces.onnx").unlink()
    assert active_model(tmp_path) is None
    assert list_models(tmp_path) == []


def test_an_unfinished_run_is_discarded_and_named(tmp_path: Path) -> None:
    _model(tmp_path, "whole")
    partial = taught_dir(tmp_path) / f"20261201-120000{PARTIAL}"
    partial.mkdir()
    (partial / "last.pt").write_bytes(b"half")
    assert [m.name for m in list_models(tmp_path)] == ["whole"]
    assert discard_partials(tmp_path) == ["20261201-120000"]
    assert not partial.exists()
    assert discard_partials(tmp_path) == []


def test_a_finished_run_is_published_under_its_name_once(tmp_path: Path) -> None:
    name = new_name(tmp_path)
    staging = taught_dir(tmp_path) / f"{name}{PARTIAL}"
    staging.mkdir(parents=True)
    assert publish(staging) == taught_dir(tmp_path) / name
    assert new_name(tmp_path) != name
    again = taught_dir(tmp_path) / f"{name}{PARTIAL}"
    again.mkdir()
    with pytest.raises(TeachError, match="exists already"):
        publish(again)
