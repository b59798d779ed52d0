"""The localiser's input: a frame resized, padded grey and laid out as the network reads it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from models.synth.frame import render_frames
from vision.perception.detections import box_iou
from vision.perception.localiser import (
    PAD_VALUE,
    Localiser,
    LocaliserSettings,
    planar_input,
    resize_for_network,
)
from vision.perception.localiser_decode import decode
from vision.perception.shipped import LOCALISER_INT8, shipped_path


@pytest.mark.parametrize("height, width", [(540, 960), (270, 481), (1, 1), (64, 96)])
def test_the_input_holds_the_numbers_opencv_makes_of_the_padded_frame(height, width):
    rng = np.random.default_rng(height + width)
    image = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
    padded_h, padded_w = -(-height // 32) * 32, -(-width // 32) * 32
    padded = cv2.copyMakeBorder(
        image,
        0,
        padded_h - height,
        0,
        padded_w - width,
        cv2.BORDER_CONSTANT,
        value=(PAD_VALUE,) * 3,
    )
    expected = cv2.dnn.blobFromImage(padded, 1.0 / 255.0, swapRB=True)
    got = planar_input(image, padded_h, padded_w)
    assert got.dtype == np.float32 and got.shape == (1, 3, padded_h, padded_w)
    assert np.array_equal(got, expected)


def test_the_input_is_rgb_in_zero_to_one_with_grey_beyond_the_frame():
    image = np.zeros((20, 30, 3), np.uint8)
    image[..., 0] = 255  # blue
    got = planar_input(image, 32, 32)
    assert got[0, 2, :20, :30].min() == 1.0 and got[0, :2, :20, :30].max() == 0.0
    assert np.allclose(got[0, :, 20:, :], PAD_VALUE / 255)
    assert np.allclose(got[0, :, :, 30:], PAD_VALUE / 255)


@pytest.fixture(scope="module")
def frame() -> np.ndarray:
    """A rendered 1080p game frame."""
    return render_frames(1, seed=44)[0]


@pytest.mark.parametrize("scale", [0.4985, 0.552, 0.8, 0.5, 0.44, 0.37, 0.3])
def test_a_frame_shrunk_to_any_scale_looks_as_the_area_resize_made_it(frame, scale):
    height, width = round(1080 * scale), round(1920 * scale)
    got = resize_for_network(frame, width, height)
    by_area = cv2.resize(frame, (width, height), interpolation=cv2.INTER_AREA)
    assert got.shape == by_area.shape and got.dtype == np.uint8
    difference = np.abs(got.astype(np.int16) - by_area)
    assert difference.mean() < 2.0 and np.percentile(difference, 99) < 24


@pytest.mark.parametrize("scale", [0.25, 0.2, 1.05])
def test_a_frame_shrunk_by_a_whole_fraction_or_enlarged_is_the_area_resize(frame, scale):
    height, width = round(1080 * scale), round(1920 * scale)
    expected = cv2.resize(frame, (width, height), interpolation=cv2.INTER_AREA)
    assert np.array_equal(resize_for_network(frame, width, height), expected)


def test_an_odd_window_shrunk_a_lot_keeps_its_size():
    window = np.ascontiguousarray(render_frames(1, seed=45)[0][101:432, 57:650])
    got = resize_for_network(window, 219, 122)  # 0.37 of 593 x 331: a column and row left out
    by_area = cv2.resize(window, (219, 122), interpolation=cv2.INTER_AREA)
    assert got.shape == by_area.shape
    assert np.abs(got.astype(np.int16) - by_area).mean() < 2.0


def test_the_localiser_finds_the_same_things_in_either_resize(frame):
    localiser = Localiser(shipped_path(LOCALISER_INT8), LocaliserSettings(faces="off"))
    localiser = localiser.at_scale(0.552)
    found = localiser.locate(frame, 0.3)
    by_area = cv2.resize(frame, (1060, 596), interpolation=cv2.INTER_AREA)
    heat, box = localiser.session.run(None, {"images": planar_input(by_area, 608, 1088)})
    xyxy, _, _ = decode(heat[0], box[0], 0.3, 0.552)
    assert abs(len(found) - len(xyxy)) <= 2
    iou = box_iou(found.xyxy, xyxy)
    matched = iou.max(axis=1) > 0.5
    assert matched.mean() >= 0.95
