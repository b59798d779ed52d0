"""Which detector model the live pipeline runs: the user's choice, else the best one shipped."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from vision.detector import Detector, DetectorSettings, ModelError
from vision.localiser import Localiser, LocaliserSettings, is_localiser

SHIPPED = ("templecam-default.onnx", "templecam-baseline.onnx")
"""Shipped models, best first: the default model (the localiser), then the early YOLO baseline."""

LIVE_CONF = 0.1
"""Lowest detector confidence the live pipeline takes: the face reader re-reads every die and
the scene stage judges the rest (measured on a rendered game: dice counted right in 79 % of
zone views at 0.1, against 58 % at 0.25)."""

BASELINE_NOTE = (
    "the detector is the early baseline model (below the accuracy targets): expect missed dice; "
    "retrain with `templecam train` for better results"
)


def default_model(explicit: str | Path | None = None) -> tuple[Path, str | None]:
    """Return (model path, note): `explicit` when given, else the best shipped model."""
    if explicit is not None:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise ModelError(f"no model at {path}: give the path of an .onnx model file")
        return path, None
    folder = Path(str(resources.files("models")))
    for name in SHIPPED:
        if (folder / name).is_file():
            return folder / name, (BASELINE_NOTE if name != SHIPPED[0] else None)
    raise ModelError(f"no model in {folder}: train one with `templecam train`, or pass --model")


def open_model(path: Path, conf: float | None = None) -> Detector | Localiser:
    """Open a model file as what it is: a localiser (by its metadata) or a YOLO detector."""
    if is_localiser(path):
        settings = LocaliserSettings() if conf is None else LocaliserSettings(conf=conf)
        return Localiser(path, settings)
    return Detector(path, DetectorSettings() if conf is None else DetectorSettings(conf=conf))


def live_detector(
    explicit: str | Path | None = None, faces: str | Path | None = None
) -> tuple[Detector | Localiser, str | None]:
    """Return the model the live pipeline runs (the best shipped model, or `explicit`); a
    localiser reads dice with `faces` (a face-reader .onnx; None: the shipped reader)."""
    path, note = default_model(explicit)
    if is_localiser(path):
        settings = LocaliserSettings() if faces is None else LocaliserSettings(faces=str(faces))
        return Localiser(path, settings), note
    return Detector(path, DetectorSettings(conf=LIVE_CONF)), note
