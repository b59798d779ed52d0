"""Which shipped localiser runs: its int8 copy by default, the float model by name or in its
stead, and a clear word when neither is there."""

from __future__ import annotations

import json
import re
import shutil

import cv2
import pytest

from models.synth.frame import render_frames
from templecam import cli
from vision.perception import shipped
from vision.perception.localiser import Localiser, LocaliserSettings
from vision.perception.model_contract import ModelError
from vision.perception.models import default_model, live_detector, shipped_localiser
from vision.perception.shipped import LOCALISER, LOCALISER_INT8, shipped_path


def test_auto_runs_the_int8_copy_and_float_and_int8_name_the_files():
    assert default_model()[0] == default_model("auto")[0] == shipped_path(LOCALISER_INT8)
    assert default_model("int8")[0] == shipped_path(LOCALISER_INT8)
    assert default_model("float")[0] == shipped_path(LOCALISER)
    detector, note = live_detector("float", None, "faces=off threads=1")
    assert isinstance(detector, Localiser) and note is None
    assert detector.model_path == shipped_path(LOCALISER)


def test_the_int8_copy_names_the_same_classes_at_the_same_scale_as_the_float_model():
    int8 = Localiser(shipped_path(LOCALISER_INT8), LocaliserSettings(faces="off", threads=1))
    float_ = Localiser(shipped_path(LOCALISER), LocaliserSettings(faces="off", threads=1))
    assert int8.names == float_.names and int8.scale == float_.scale
    assert int8.info.stride == float_.info.stride


def test_without_the_int8_copy_auto_runs_the_float_model(monkeypatch, tmp_path):
    shutil.copy(shipped_path(LOCALISER), tmp_path / LOCALISER)
    monkeypatch.setattr(shipped, "shipped_dir", lambda: tmp_path)
    assert shipped_localiser() == tmp_path / LOCALISER
    with pytest.raises(ModelError, match=re.escape(f"no localiser at {tmp_path / LOCALISER_INT8}")):
        shipped_localiser("int8")
    (tmp_path / LOCALISER).unlink()
    with pytest.raises(ModelError, match="train one with `templecam train --localiser`"):
        default_model()
    with pytest.raises(ValueError, match="name one of auto, int8, float"):
        shipped_localiser("fast")


def test_detect_takes_a_named_localiser(tmp_path, capsys):
    image = tmp_path / "table.jpg"
    cv2.imwrite(str(image), render_frames(1, seed=31)[0])
    found = {}
    for name in ("float", "int8"):
        argv = ["detect", str(image), "--model", name, "--faces", "off", "--scale", "0.5"]
        assert cli.main([*argv, "--json"]) == 0
        found[name] = json.loads(capsys.readouterr().out)["detections"]
    assert len(found["float"]) > 10
    assert abs(len(found["int8"]) - len(found["float"])) <= len(found["float"]) // 10
    assert cli.main(["detect", str(image), "--model", "fast"]) == 2
    assert "no model at fast: give the path of an .onnx model file, or one of auto" in (
        capsys.readouterr().err
    )
