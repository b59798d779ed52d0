"""Touching and leaning dice are each read (issue 20, item 3): the shipped face reader, on ONNX
Runtime, names the top face of a die leaning on a neighbour as surely as a person would."""

from __future__ import annotations

import numpy as np
import pytest

from models.synth.crop_look import TRAIN_LOOK
from models.synth.crops import UNKNOWN, render_crop
from vision.perception.face_reader import NOT_DIE, FaceReader
from vision.perception.shipped import FACES, FACES_INT8, shipped_path

MODEL = shipped_path(FACES)
SEED = 4242
"""A crop seed no training run draws from (training uses seeds 0 to 4000 and their offsets)."""

pytestmark = pytest.mark.skipif(not MODEL.is_file(), reason="no shipped face reader")


@pytest.fixture(scope="module")
def die_crops():
    """600 die crops of the training look: about a quarter of them leaning on a neighbour."""
    return [render_crop(SEED, i, TRAIN_LOOK, 40, kind="die") for i in range(600)]


def _read(reader: FaceReader, crops) -> list[str]:
    probs = reader.predict([c.image for c in crops])
    faces = [j for j, n in enumerate(reader.names) if n != NOT_DIE]
    return [reader.names[faces[k]] for k in probs[:, faces].argmax(axis=1)]


def test_dice_leaning_on_a_neighbour_are_read_by_their_top_face(die_crops):
    reader = FaceReader(MODEL, threads=1)
    leaning = [c for c in die_crops if c.info["leaning"] and c.label != UNKNOWN]
    assert len(leaning) >= 100 and any(c.info["tilt"] > 30 for c in leaning)
    right = np.array([r == c.label for r, c in zip(_read(reader, leaning), leaning, strict=True)])
    # Measured: 0.923 (143 of 155); the reader shipped before, trained with no die leaning over
    # 20 degrees, read 0.884.
    assert right.mean() >= 0.9, f"{right.sum()} of {len(right)} leaning dice read"
    flat = [c for c in die_crops if not c.info["leaning"] and c.label != UNKNOWN]
    right_flat = np.mean([r == c.label for r, c in zip(_read(reader, flat), flat, strict=True)])
    assert right_flat >= 0.95  # measured 0.970: reading leaning dice costs the flat ones nothing


def test_the_shipped_int8_copy_names_the_float_readers_class(die_crops):
    float_reader = FaceReader(MODEL, threads=1)
    int8_reader = FaceReader(shipped_path(FACES_INT8), threads=1)
    images = [c.image for c in die_crops]
    same = float_reader.predict(images).argmax(1) == int8_reader.predict(images).argmax(1)
    # Measured on an AVX2 CPU without VNNI: 0.992 with weights on 7 bits; the copy made before
    # with full-range weights agreed on 0.950 there (its uint8 x int8 pair sums saturate).
    assert same.mean() >= 0.98, f"the int8 copy agrees on {same.sum()} of {len(same)} dice"
