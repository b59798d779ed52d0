"""Which model finds things on the table: the shipped localiser, else the file given.

The default path knows one model, the localiser (`vision.perception.shipped.LOCALISER`, run as
its int8 copy `LOCALISER_INT8`) with its face reader. Any other .onnx given with `--model` opens
as what its metadata says: another localiser (a taught one), or the early YOLO baseline
(`vision.perception.detector`), kept as a named alternative.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from vision.perception.detector import Detector, DetectorSettings
from vision.perception.localiser import Localiser, LocaliserSettings
from vision.perception.model_contract import ModelError, is_localiser
from vision.perception.shipped import (
    BASELINE,
    LOCALISER,
    LOCALISER_CHOICES,
    LOCALISER_INT8,
    running_copy,
    shipped_path,
)
from vision.perception.table_detector import TableDetector

BASELINE_LIVE_CONF = 0.1
"""Lowest confidence the live pipeline takes of the YOLO baseline: the face reader re-reads
every die and the scene stage judges the rest (measured on a rendered game: dice counted right
in 79 % of zone views at 0.1, against 58 % at 0.25)."""

BASELINE_NOTE = (
    "the detector is the early YOLO baseline (below the accuracy targets): expect missed dice; "
    "leave out --model for the shipped localiser"
)


def shipped_localiser(choice: str = "auto") -> Path:
    """Return the shipped localiser a name of LOCALISER_CHOICES stands for (auto: the int8
    copy when it is there, else the float model); ModelError when that file is missing."""
    if choice not in LOCALISER_CHOICES:
        raise ValueError(f"{choice!r}: name one of {', '.join(LOCALISER_CHOICES)}")
    if choice == "auto":
        path = running_copy(shipped_path(LOCALISER), shipped_path(LOCALISER_INT8))
    else:
        path = shipped_path(LOCALISER if choice == "float" else LOCALISER_INT8)
    if not path.is_file():
        raise ModelError(
            f"no localiser at {path}: train one with `templecam train --localiser`, or pass "
            f"--model (the early YOLO baseline is {shipped_path(BASELINE)})"
        )
    return path


def default_model(explicit: str | Path | None = None) -> tuple[Path, str | None]:
    """Return (model path, note): `explicit` when given (a file, or a name of
    LOCALISER_CHOICES; with a note when it is the YOLO baseline), else the shipped localiser's
    int8 copy (the float model where the copy is missing)."""
    if explicit is None or str(explicit) in LOCALISER_CHOICES:
        return shipped_localiser(str(explicit or "auto")), None
    path = Path(explicit).expanduser()
    if not path.is_file():
        raise ModelError(
            f"no model at {path}: give the path of an .onnx model file, or one of "
            f"{', '.join(LOCALISER_CHOICES)} for the shipped localiser"
        )
    return path, (None if is_localiser(path) else BASELINE_NOTE)


def open_model(path: Path, conf: float | None = None) -> TableDetector:
    """Open a model file as what it is: a localiser (by its metadata) or the YOLO baseline."""
    if is_localiser(path):
        settings = LocaliserSettings() if conf is None else LocaliserSettings(conf=conf)
        return Localiser(path, settings)
    return Detector(path, DetectorSettings() if conf is None else DetectorSettings(conf=conf))


def live_detector(
    explicit: str | Path | None = None,
    faces: str | Path | None = None,
    settings: str | LocaliserSettings = "",
) -> tuple[TableDetector, str | None]:
    """Return the model the live pipeline runs (the shipped localiser, or `explicit`) and a
    note when it is the YOLO baseline; a localiser reads dice with `faces` (a face-reader
    .onnx; None: the shipped reader) and takes `settings` (`key=value` words such as
    "scale=0.75": a fixed scale overrides the one the calibration asks for). Raises ModelError
    for a model that does not open, ValueError for settings that do not parse."""
    path, note = default_model(explicit)
    if is_localiser(path):
        chosen = LocaliserSettings.parse(settings) if isinstance(settings, str) else settings
        if faces is not None:
            chosen = replace(chosen, faces=str(faces))
        return Localiser(path, chosen), note
    return Detector(path, DetectorSettings(conf=BASELINE_LIVE_CONF)), note
