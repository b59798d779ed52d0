"""The localiser's scale follows the camera: from the calibration, from the first frames' dice,
or from a setting (issue 20). Real rendered videos read through OpenCV, real ONNX Runtime."""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.table import TableCalibration
from models.synth.game_video import GamePlan, render_game
from models.synth.settings import SynthSettings
from rules.engine import Game
from templecam.commands import detect
from templecam.errors import UserError
from vision.perception.localiser import Localiser, LocaliserSettings
from vision.perception.models import default_model, live_detector
from vision.perception.scale import SCALE_LIMITS, choose_scale, follow_camera, native_die_px
from vision.pipeline import build_pipeline
from vision.stages.scene import SceneReader

SIZES = {"small": (960, 540), "large": (1600, 900)}


@pytest.fixture(scope="module")
def games(tmp_path_factory) -> dict[str, Path]:
    """The same two-player table rendered at two camera resolutions, 2 s at 5 fps."""
    root = tmp_path_factory.mktemp("scale")
    out = {}
    for name, (width, height) in SIZES.items():
        folder = root / name
        plan = GamePlan(folder, SynthSettings(width=width, height=height), 2, 2.0, 5.0, seed=12)
        render_game(plan)
        out[name] = folder
    return out


@pytest.fixture(scope="module")
def localiser() -> Localiser:
    return Localiser(default_model()[0], LocaliserSettings(faces="off", threads=2))


def first_frames(folder: Path, count: int = 2) -> list[np.ndarray]:
    capture = cv2.VideoCapture(str(folder / "game.mp4"))
    frames = []
    while len(frames) < count:
        ok, image = capture.read()
        assert ok, "the rendered video reads through OpenCV"
        frames.append(image)
    capture.release()
    return frames


def test_the_calibration_sets_the_scale_from_its_die_size(games, localiser) -> None:
    small = TableCalibration.load(games["small"] / "calibration.json")
    large = TableCalibration.load(games["large"] / "calibration.json")
    ratio = large.die_px() / small.die_px()
    assert ratio == pytest.approx(1600 / 960, rel=0.03)  # the same table, a finer camera
    a, b = choose_scale(localiser, small), choose_scale(localiser, large)
    assert a.scale == pytest.approx(native_die_px(localiser) / small.die_px(), rel=1e-6)
    assert a.scale / b.scale == pytest.approx(ratio, rel=1e-6)
    assert "calibration" in a.why and a.die_px == pytest.approx(small.die_px())
    low, high = SCALE_LIMITS
    assert low <= b.scale < a.scale <= high


def test_uncalibrated_the_first_frames_dice_set_about_the_same_scale(games, localiser) -> None:
    for name in SIZES:
        calibration = TableCalibration.load(games[name] / "calibration.json")
        from_frames = choose_scale(localiser, None, first_frames(games[name]))
        assert "dice found" in from_frames.why
        assert from_frames.die_px == pytest.approx(calibration.die_px(), rel=0.15)
        assert from_frames.scale == pytest.approx(
            choose_scale(localiser, calibration).scale, rel=0.15
        )


def test_a_scale_setting_overrides_calibration_and_frames(games) -> None:
    calibration = TableCalibration.load(games["small"] / "calibration.json")
    fixed, _ = live_detector(None, None, "scale=0.6 faces=off")
    fitted, choice = follow_camera(fixed, calibration, first_frames(games["small"]))
    assert choice is not None and choice.scale == 0.6 and "setting" in choice.why
    assert fitted.scale == 0.6 and fitted.input_for(np.zeros((540, 960, 3), np.uint8)).shape[
        2:
    ] == (352, 576)  # 324 x 576 padded to the model's multiple of 32


def test_the_pipeline_and_the_commands_use_the_same_choice(games) -> None:
    calibration = TableCalibration.load(games["small"] / "calibration.json")
    game = Game.from_setup_line({"type": "setup", "players": ["red", "blue"]})
    scene = SceneReader(calibration, list(game.players))
    auto, _ = live_detector(None, None, "faces=off")
    pipeline = build_pipeline(auto, scene, lambda: game)
    assert pipeline.scale == choose_scale(auto, calibration)
    fixed, _ = live_detector(None, None, "scale=0.75 faces=off")
    assert build_pipeline(fixed, scene, lambda: game).scale.scale == 0.75

    parser = argparse.ArgumentParser()
    detect.add_detector_arguments(parser)
    for argv, expected in (
        (["--scale", "0.7"], 0.7),
        (["--localiser", "scale=0.8 iou=0.4"], 0.8),
        (["--localiser", "scale=0.8", "--scale", "0.65"], 0.65),
        ([], None),
    ):
        settings = detect.localiser_settings_from_args(parser.parse_args([*argv, "--faces", "off"]))
        assert settings.scale == expected, argv
    assert (
        detect.localiser_settings_from_args(parser.parse_args(["--localiser", "iou=0.4"])).iou
        == 0.4
    )
    int8 = detect.localiser_settings_from_args(parser.parse_args(["--faces", "INT8"]))
    assert int8.faces == "int8"
    with pytest.raises(UserError, match="give auto, int8, float, off or an"):
        detect.localiser_settings_from_args(parser.parse_args(["--faces", "nowhere.onnx"]))


def test_detect_says_the_scale_it_chose(games, capsys) -> None:
    from templecam.cli import main

    image = games["small"] / "first.png"
    cv2.imwrite(str(image), first_frames(games["small"], 1)[0])
    assert main(["detect", str(image), "--json", "--faces", "off"]) == 0
    assert "localiser scale" in capsys.readouterr().err
    help_text = detect_help()
    assert "--scale" in help_text and "face reader" in help_text and "--tile" not in help_text


def detect_help() -> str:
    from templecam.cli import build_parser

    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices["detect"].format_help()
