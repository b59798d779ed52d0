"""`templecam bench robustness`: each condition changes the frame as it says; a real tiny run."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from models.synth.camera import Camera
from models.synth.robustness import render_condition
from templecam import cli
from vision.bench.robustness import (
    CONDITIONS,
    DEFAULT_SEED,
    dim_room,
    find_conditions,
    mjpeg_stream,
    motion_blur,
    small_things,
    warm_lamp,
    window_glare,
)
from vision.perception.classes import FACES

W, H = 640, 360


def frame(name: str, index: int = 0, size: tuple[int, int] = (W, H)):
    """Render one frame of a condition at a small size."""
    return render_condition(find_conditions([name])[0], DEFAULT_SEED, index, *size)


@pytest.fixture(scope="module")
def base():
    return frame("1080p")


def _tilt_deg(camera: Camera) -> float:
    """Degrees between the camera's line of sight and straight down."""
    return float(np.degrees(np.arccos(-camera.rotation[2][2])))


def _scale_top_over_bottom(camera: Camera) -> float:
    """px per mm at the table seen mid-top of the picture over that seen mid-bottom."""
    quad = camera.view_quad()  # table points at the corners NW, NE, SE, SW of the picture
    top, bottom = (quad[0] + quad[1]) / 2, (quad[2] + quad[3]) / 2
    return camera.px_per_mm(np.array([*top, 0.0])) / camera.px_per_mm(np.array([*bottom, 0.0]))


def _die_centres_inside_boxes(truth) -> float:
    """Share of readable dice whose centre, projected by the frame's camera, is in its box."""
    camera = Camera.from_json(truth.scene["camera"])
    dice = [d for d in truth.scene["dice"] if d["label"] in FACES]
    inside = 0
    for die in dice:
        (x, y), (x0, y0, x1, y1) = camera.project(np.array(die["centre_mm"]))[0], die["box"]
        inside += int(x0 <= x <= x1 and y0 <= y <= y1)
    return inside / len(dice)


def _dice_boxes(truth) -> np.ndarray:
    return truth.xyxy[[n in FACES for n in truth.names]]


def _psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    return 10 * np.log10(255.0**2 / mse)


def _sharpness(image: np.ndarray) -> float:
    return float(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())


# --- The renderer's conditions: geometry, and the truth follows ---------------------------------


def test_a_tilted_camera_changes_the_perspective_and_the_truth_boxes_follow(base):
    image, truth = frame("tilted 30 deg")
    level_camera = Camera.from_json(base[1].scene["camera"])
    tilted_camera = Camera.from_json(truth.scene["camera"])
    assert _tilt_deg(tilted_camera) > _tilt_deg(level_camera) + 20
    # Perspective: the far side of the table shows smaller than the near side.
    level, tilted = _scale_top_over_bottom(level_camera), _scale_top_over_bottom(tilted_camera)
    assert abs(np.log(tilted)) > abs(np.log(level)) + 0.2
    # The same table, seen otherwise: the boxes move, and they sit where the dice are drawn.
    assert truth.scene["dice"][0]["centre_mm"] == base[1].scene["dice"][0]["centre_mm"]
    level_boxes, tilted_boxes = _dice_boxes(base[1]), _dice_boxes(truth)
    n = min(len(level_boxes), len(tilted_boxes))
    assert not np.allclose(tilted_boxes[:n], level_boxes[:n], atol=2)
    assert _die_centres_inside_boxes(truth) >= 0.9
    assert _die_centres_inside_boxes(base[1]) >= 0.9
    assert not np.array_equal(image, base[0])


def test_a_higher_camera_shows_smaller_dice_and_more_table(base):
    _, higher = frame("camera higher")
    _, lower = frame("camera lower")

    def edge(truth) -> float:
        return float(np.median([d["size_px"] for d in truth.scene["dice"] if d["label"]]))

    assert edge(higher) == pytest.approx(edge(base[1]) / 1.5, rel=0.12)
    assert edge(lower) == pytest.approx(edge(base[1]) / 0.7, rel=0.12)

    def area(truth) -> float:
        return float(
            cv2.contourArea(Camera.from_json(truth.scene["camera"]).view_quad().astype(np.float32))
        )

    assert area(higher) > 1.8 * area(base[1])
    assert _die_centres_inside_boxes(higher) >= 0.9


def test_720p_is_two_thirds_of_the_size_with_the_same_table(base):
    image, truth = frame("720p")
    assert image.shape[:2] == (round(H * 2 / 3), round(W * 2 / 3))
    boxes = truth.xyxy
    assert (boxes[:, 2] <= image.shape[1]).all() and (boxes[:, 3] <= image.shape[0]).all()
    small = np.array([d["centre_mm"] for d in truth.scene["dice"]])
    np.testing.assert_allclose(small, [d["centre_mm"] for d in base[1].scene["dice"]], atol=2)


def test_clutter_and_hands_add_to_the_same_table(base):
    _, cluttered = frame("clutter")
    _, hands = frame("hands")
    everyday = {"cup", "phone", "rulebook", "notepad", "bowl"}

    def count(truth, kinds=None) -> int:
        items = truth.scene["clutter"]
        return sum(1 for c in items if (c["kind"] in everyday) == (kinds == "everyday"))

    assert count(cluttered, "everyday") >= count(base[1], "everyday") + 3
    assert count(cluttered) >= count(base[1]) + 20
    assert len(hands.scene["hands"]) >= max(2, len(base[1].scene["hands"]))
    same = [d["centre_mm"] for d in hands.scene["dice"]]
    assert same == [d["centre_mm"] for d in base[1].scene["dice"]]


def test_picture_changes_leave_the_truth_alone(base):
    for name in ("warm lamp", "dim room", "window glare", "motion blur", "phone MJPEG"):
        image, truth = frame(name)
        assert truth.names == base[1].names
        np.testing.assert_array_equal(truth.xyxy, base[1].xyxy)
        assert image.shape == base[0].shape and not np.array_equal(image, base[0])


# --- The picture's conditions -------------------------------------------------------------------


def test_heavy_jpeg_lowers_the_quality(base):
    image, truth = base
    rng = np.random.default_rng(0)
    _, fine = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    streamed = mjpeg_stream(image, truth, rng)
    assert _psnr(streamed, image) < _psnr(cv2.imdecode(fine, cv2.IMREAD_COLOR), image) - 3
    assert _psnr(streamed, image) < 38


def test_motion_blur_lowers_the_sharpness_measurably(base):
    image, truth = frame("1080p", size=(1920, 1080))
    blurred = motion_blur(image, truth, np.random.default_rng(0))
    assert _sharpness(blurred) < 0.5 * _sharpness(image)


def test_a_warm_lamp_turns_the_frame_orange_at_the_same_brightness(base):
    image, truth = base
    warm = warm_lamp(image, truth, np.random.default_rng(0))
    b0, g0, r0 = image.reshape(-1, 3).mean(axis=0)
    b1, g1, r1 = warm.reshape(-1, 3).mean(axis=0)
    assert r1 / b1 > 1.3 * r0 / b0
    assert g1 == pytest.approx(g0, rel=0.15)


def test_a_dim_room_is_darker_and_noisier():
    grey = np.full((120, 160, 3), 150, np.uint8)
    dimmed = dim_room(grey, None, np.random.default_rng(0))  # type: ignore[arg-type]
    assert dimmed.mean() < 0.85 * grey.mean()
    assert dimmed.astype(np.float64).std() > 3.0


def test_window_glare_washes_out_part_of_the_frame(base):
    image, truth = base
    glared = window_glare(image, truth, np.random.default_rng(0))
    gray0 = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float64)
    gray1 = cv2.cvtColor(glared, cv2.COLOR_BGR2GRAY).astype(np.float64)
    headroom = (gray1 - gray0) / (255.0 - gray0 + 1e-3)  # share of the way to white
    assert (headroom > 0.5).mean() > 0.05  # a large patch more than half way to white
    assert (gray1 >= 245).mean() > 2 * (gray0 >= 245).mean()  # some of it saturated
    assert (headroom < 0.2).mean() > 0.5  # while most of the frame is barely touched


def test_small_things_lie_beside_the_dice_never_on_an_object(base):
    image, truth = frame("1080p", size=(1920, 1080))
    changed = small_things(image, truth, np.random.default_rng(0))
    moved = np.abs(changed.astype(np.int16) - image.astype(np.int16)).max(axis=2) > 40
    assert moved.sum() > 500
    for x0, y0, x1, y1 in truth.xyxy.astype(int):
        assert not moved[y0:y1, x0:x1].any()


# --- A real run ---------------------------------------------------------------------------------


def test_a_tiny_real_run_prints_every_condition_and_the_worst(capsys):
    assert cli.main(["bench", "robustness", "--frames", "2", "--size", "320x180"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.split("  ")[0].strip()]
    for condition in CONDITIONS:
        assert any(line.startswith(condition.name) for line in rows), condition.name
    assert out.count("(worst)") == 1
    assert "seed 7331" in out and "templecam-default-int8.onnx" in out


def test_json_holds_each_chosen_condition(capsys):
    argv = ["bench", "robustness", "--frames", "2", "--size", "320x180", "--json"]
    assert cli.main([*argv, "--only", "1080p", "--only", "phone MJPEG"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in data["conditions"]] == ["1080p", "phone MJPEG"]
    assert data["worst"] in ("1080p", "phone MJPEG")
    for row in data["conditions"]:
        assert row["frames"] == 2 and row["dice"] > 0
        assert 0 <= row["dice_found"] <= 1 and row["false_dice_per_frame"] >= 0
    assert data["model"]["localiser"]["file"] == "templecam-default-int8.onnx"


def test_an_unknown_condition_is_refused_with_the_names(capsys):
    assert cli.main(["bench", "robustness", "--only", "fog"]) == 2
    assert "720p" in capsys.readouterr().err
