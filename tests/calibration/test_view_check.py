"""'Is the view good enough?' on a rendered table frame, and on that frame spoiled on purpose."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from scene_truth import calibration_of

from calibration.table import TableCalibration
from calibration.view_check import check_view
from models.synth.frame import render_frame
from models.synth.settings import SynthSettings


@pytest.fixture(scope="module")
def table() -> tuple[np.ndarray, TableCalibration]:
    """A sharp rendered 1920x1080 table with five players, and its true calibration."""
    frame = render_frame(SynthSettings(), seed=3, index=1)
    return frame.image, calibration_of(frame.scene).model_copy(update={"camera": "webcam C920"})


def test_a_good_view_passes_every_check_that_matters(table):
    image, calibration = table
    report = check_view(image, calibration, fps=10.0, camera="webcam C920")
    assert report.check("calibration").level == "good"
    assert report.check("play area").level == "good"
    zones = report.check("zones")
    assert zones.level == "good" and "red" in zones.message
    die = report.check("die size")
    assert die.level == "good" and 24 <= (die.value or 0) <= 40
    assert report.check("focus").level in ("good", "warn")
    assert report.check("glare").level == "good"
    assert report.check("frame rate").level == "good"
    assert report.to_json()["checks"][0]["name"] == "calibration"


def test_a_blurred_view_is_out_of_focus_and_a_smeared_one_has_motion_blur(table):
    image, calibration = table
    soft = check_view(cv2.GaussianBlur(image, (0, 0), 2.5), calibration, 10.0)
    assert soft.check("focus").level == "bad"
    assert "out of focus" in soft.check("focus").message
    smeared = cv2.filter2D(image, -1, np.ones((1, 11), np.float32) / 11)
    motion = check_view(smeared, calibration, 10.0).check("focus")
    assert motion.level == "bad" and "smeared sideways" in motion.message
    assert soft.verdict == "bad" and "focus" in soft.summary


def test_glare_darkness_and_a_slow_camera_are_named_with_what_to_do(table):
    image, calibration = table
    glared = image.copy()
    cv2.circle(glared, (900, 540), 60, (255, 255, 255), -1)
    glare = check_view(glared, calibration, 10.0).check("glare")
    assert glare.level == "bad" and "Move the lamp" in glare.message
    assert "middle" in glare.message
    # a fifth of the light: well under the "too dark" line (the rendered table now holds
    # bright trinkets, and a quarter of its light lies right at it)
    dark = check_view((image * 0.2).astype(np.uint8), calibration, 10.0).check("light")
    assert dark.level == "bad" and "too dark" in dark.message.lower()
    slow = check_view(image, calibration, 2.5).check("frame rate")
    assert slow.level == "bad" and "2.5" in slow.message


def test_a_die_under_about_20_px_is_too_small(table):
    image, calibration = table
    small = calibration.model_copy(update={"die_mm": 10.0})
    die = check_view(image, small, 10.0).check("die size")
    assert die.level == "bad" and (die.value or 99) < 20
    assert "too small to read" in die.message


def test_a_zone_outside_the_picture_is_named_by_player(table):
    image, calibration = table
    zones = list(calibration.zones)
    red = next(i for i, z in enumerate(zones) if z.player == "red")
    moved = [[x + 3000.0, y] for x, y in zones[red].polygon_mm]
    zones[red] = zones[red].model_copy(update={"polygon_mm": moved})
    report = check_view(image, calibration.model_copy(update={"zones": zones}), 10.0)
    assert report.check("zones").level == "bad"
    assert "red (0% in view" in report.check("zones").message
    assert report.check("play area").level == "bad"


def test_a_calibration_for_another_camera_or_resolution_says_so_and_how_to_redo_it(table):
    image, calibration = table
    other = check_view(image, calibration, 10.0, camera="stream http://phone:8080/video")
    message = other.check("calibration").message
    assert other.check("calibration").level == "bad"
    assert "another camera (webcam C920)" in message and "Calibrate the table" in message
    smaller = check_view(cv2.resize(image, (1280, 720)), calibration, 10.0, camera="webcam C920")
    message = smaller.check("calibration").message
    assert "made for 1920x1080 frames" in message and "gives 1280x720" in message
    with pytest.raises(KeyError):
        smaller.check("die size")  # no zone or die size from a calibration that does not fit
    none = check_view(image, None, 10.0)
    assert "not calibrated" in none.check("calibration").message
    assert none.check("light").level in ("good", "warn")
