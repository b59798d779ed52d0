"""The localiser's input: a frame resized, padded grey and laid out as the network reads it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.perception.localiser import PAD_VALUE, planar_input


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
