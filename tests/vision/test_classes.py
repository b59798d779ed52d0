"""The class names have one home (`vision.perception.classes`), and the face reader's meet the
detector's."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rules.vocabulary import FACES
from vision.perception import classes
from vision.perception.classes import (
    DETECTION_NAMES,
    DIE_CLASSES,
    DIE_UNREADABLE,
    NOT_DIE,
    READER_CLASSES,
    READER_UNREADABLE,
    detection_class,
)

ROOT = Path(__file__).resolve().parents[2]


def test_the_detection_classes_keep_the_index_order_the_shipped_models_were_trained_with():
    assert DETECTION_NAMES == (
        "adventurer",
        "key",
        "torch",
        "golden_mask",
        "black_mask",
        "gem",
        "tile",
        "tile_back",
        "figure",
        "die_unreadable",
        "hand",
    )
    assert DETECTION_NAMES[:5] == FACES
    assert set(DIE_CLASSES) == {*FACES, DIE_UNREADABLE} <= set(DETECTION_NAMES)


def test_every_face_reader_class_names_one_detection_class_or_no_die():
    assert {detection_class(name) for name in READER_CLASSES} == {*DIE_CLASSES, None}
    assert detection_class(READER_UNREADABLE) == DIE_UNREADABLE
    assert detection_class(NOT_DIE) is None
    for face in FACES:
        assert detection_class(face) == face
    with pytest.raises(ValueError, match="no face reader class"):
        detection_class("gem")


def test_the_modules_that_used_to_keep_copies_take_the_names_from_vision_classes():
    from models.synth import labels
    from vision.perception import face_reader
    from vision.stages import scene

    assert labels.DETECTION_NAMES is DETECTION_NAMES
    assert face_reader.DIE_CLASSES is DIE_CLASSES and face_reader.CLASSES is READER_CLASSES
    assert face_reader.UNREADABLE == READER_UNREADABLE and face_reader.NOT_DIE == NOT_DIE
    assert not hasattr(scene, "FACE_CLASSES")


def test_no_other_module_spells_the_unreadable_die_or_the_face_list_itself():
    own = Path(classes.__file__).resolve()
    spelled = []
    for room in ("rules", "vision", "calibration", "server", "templecam", "models/synth"):
        for path in sorted((ROOT / room).rglob("*.py")):
            if path.resolve() == own:
                continue
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if isinstance(node, ast.Tuple) and [
                    getattr(e, "value", None) for e in node.elts
                ] == list(FACES):
                    spelled.append(f"{path.relative_to(ROOT)}:{node.lineno} the five faces")
                if isinstance(node, ast.Assign) and getattr(node.value, "value", None) in (
                    DIE_UNREADABLE,
                    READER_UNREADABLE,
                    NOT_DIE,
                ):
                    spelled.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value.value}")
    assert not spelled, (
        "spell them in vision/perception/classes.py (faces: rules/vocabulary.py):\n"
        + "\n".join(spelled)
    )
