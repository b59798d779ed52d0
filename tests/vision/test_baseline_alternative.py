"""The early YOLO baseline is a named alternative: the default path neither runs nor offers it."""

from __future__ import annotations

import argparse

import pytest

from templecam.cli import build_parser
from vision.perception.detector import Detector
from vision.perception.localiser import Localiser
from vision.perception.model_contract import is_localiser
from vision.perception.models import BASELINE_NOTE, default_model, live_detector
from vision.perception.shipped import BASELINE, LOCALISER_INT8, shipped_path

BASELINE_OPTIONS = ("--tile", "--overlap", "--whole", "--imgsz", "--iou")


def command_help(*names: str) -> str:
    """Return the --help text of a `templecam` subcommand (e.g. "bench", "robustness")."""
    parser = build_parser()
    for name in names:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = action.choices[name]
    return parser.format_help()


def test_the_default_model_is_the_shipped_localiser():
    path, note = default_model()
    assert path == shipped_path(LOCALISER_INT8) and is_localiser(path) and note is None


def test_the_baseline_runs_only_when_named_and_says_so():
    path, note = default_model(shipped_path(BASELINE))
    assert path == shipped_path(BASELINE)
    assert note == BASELINE_NOTE and "YOLO baseline" in note
    detector, note = live_detector(shipped_path(BASELINE))
    assert isinstance(detector, Detector) and note == BASELINE_NOTE
    localiser, note = live_detector(None, None, "faces=off threads=1")
    assert isinstance(localiser, Localiser) and note is None


@pytest.mark.parametrize("command", [("detect",), ("eval",), ("bench", "robustness")])
def test_the_help_describes_the_localiser_not_the_old_detector(command):
    text = command_help(*command)
    assert "localiser" in text and "face reader" in text
    assert "yolo" not in text.lower() or "baseline" in text.lower()
    for option in BASELINE_OPTIONS:
        assert option not in text, (command, option)


def test_the_baseline_s_hidden_options_still_parse():
    parser = build_parser()
    args = parser.parse_args(["detect", "x.jpg", "--tile", "640", "--whole", "off", "--iou", "0.5"])
    assert (args.tile, args.whole, args.iou) == ("640", "off", 0.5)
