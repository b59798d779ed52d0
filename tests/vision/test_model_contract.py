"""The model contract: each card writes the strings it reads; the shipped models read unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import onnxruntime as ort
import pytest

from vision.perception import shipped
from vision.perception.face_reader import FaceReader
from vision.perception.localiser import Localiser, LocaliserSettings
from vision.perception.model_contract import (
    DetectorCard,
    FaceReaderCard,
    LocaliserCard,
    ModelError,
    is_localiser,
    props_of,
    set_props,
    sidecar_metadata,
)
from vision.perception.shipped import shipped_path

LOCALISER = shipped_path(shipped.LOCALISER)
FACES = shipped_path(shipped.FACES)
BASELINE = shipped_path(shipped.BASELINE)


def shipped_props(path: Path) -> dict[str, str]:
    """Return the metadata props of a shipped model, read by ONNX Runtime."""
    return props_of(ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]))


@pytest.mark.parametrize(
    "card",
    [
        LocaliserCard(("die", "gem"), stride=4, input_multiple=32, input_scale=0.5),
        LocaliserCard(("die",), stride=8, input_multiple=64, input_scale=0.75, native_die_px=15.0),
        FaceReaderCard(("key", "torch", "not_die"), imgsz=40, crop_scale=1.3),
        FaceReaderCard(("key", "not_die"), imgsz=32, crop_scale=None, description="mine"),
        DetectorCard(tile=640),
        DetectorCard(("a", "b"), imgsz=(640, 480), stride=32, end2end=False, tile=0),
    ],
)
def test_a_card_reads_back_what_it_writes(card):
    assert type(card).from_props(card.to_props()) == card


def test_the_shipped_localiser_carries_exactly_what_its_card_writes():
    props = shipped_props(LOCALISER)
    card = LocaliserCard.from_props(props)
    assert card.to_props() == props
    assert card.names[0] == "die" and card.native_die_px is not None
    opened = Localiser(LOCALISER, LocaliserSettings(faces="off", threads=1))
    assert opened.card == card and opened.model_scale == card.input_scale


def test_the_shipped_face_reader_carries_exactly_what_its_card_writes():
    props = shipped_props(FACES)
    card = FaceReaderCard.from_props(props)
    assert card.to_props() == props
    reader = FaceReader(FACES, threads=1)
    assert reader.card == card and reader.names == card.names and reader.imgsz == card.imgsz


def test_the_baseline_detector_card_reads_its_tile():
    props = shipped_props(BASELINE)
    card = DetectorCard.from_props(props, sidecar_metadata(BASELINE))
    assert card.tile is not None and str(card.tile) == props["tile"]
    assert DetectorCard(tile=card.tile).to_props() == {"tile": props["tile"]}
    assert card.names is not None and len(card.names) == len(eval(props["names"]))


def test_only_a_localiser_is_taken_for_one():
    assert is_localiser(LOCALISER) and not is_localiser(FACES) and not is_localiser(BASELINE)
    with pytest.raises(ModelError, match="not a templecam localiser"):
        LocaliserCard.from_props(shipped_props(FACES), "faces.onnx")
    broken = {**LocaliserCard(("die",), stride=4).to_props(), "input_scale": "half"}
    with pytest.raises(ModelError, match="lacks names or scale"):
        LocaliserCard.from_props(broken)


def test_a_face_reader_without_names_in_its_metadata_reads_them_from_its_sidecar(tmp_path):
    model = tmp_path / "reader.onnx"
    (tmp_path / "reader.json").write_text(json.dumps({"names": ["key", "not_die"]}))
    props = {k: v for k, v in shipped_props(FACES).items() if k != "names"}
    assert FaceReaderCard.from_props(props, sidecar_metadata(model)).names == ("key", "not_die")
    assert FaceReaderCard.from_props(props).names == ()


def test_set_props_replaces_its_keys_and_keeps_the_others():
    onnx = pytest.importorskip("onnx")
    model = onnx.ModelProto()
    set_props(model, {"author": "Ultralytics", "tile": "0"})
    set_props(model, DetectorCard(tile=640).to_props())
    assert {p.key: p.value for p in model.metadata_props} == {
        "author": "Ultralytics",
        "tile": "640",
    }
