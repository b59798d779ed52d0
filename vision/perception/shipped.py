"""Where the shipped models live: run-time data of the vision room, `vision/data/models/`.

Read through `importlib.resources`, so an installed package finds them as a checkout does. The
training package (`models/`) writes new ones here only through the documented copy steps of
its cards; the run time never looks into `models/`.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

LOCALISER = "templecam-default.onnx"
"""The shipped localiser (the default model)."""
LOCALISER_INT8 = "templecam-default-int8.onnx"
"""The same localiser quantised to int8, about a quarter faster (the default: `--model auto`)."""
LOCALISER_CHOICES = ("auto", "int8", "float")
"""The shipped localisers by name: auto (its int8 copy, else the float one), int8, float."""
FACES = "templecam-faces.onnx"
"""The shipped die-face reader (faces=float; teaching fine-tunes its weights)."""
FACES_INT8 = "templecam-faces-int8.onnx"
"""The same reader with its convolutions quantised to int8, about twice as fast and reading
alike (faces=auto, the default, and faces=int8): `python -m models.faces_int8` makes it."""
BASELINE = "templecam-baseline.onnx"
"""The early YOLO baseline, a named alternative (`--model` it)."""


def running_copy(model: Path, int8: Path) -> Path:
    """Return which file of a network runs: its int8 copy when that is there, else the model
    (shipped and taught networks alike; the model may be missing too)."""
    return int8 if int8.is_file() else model


def shipped_dir() -> Path:
    """Return the folder of the shipped models."""
    return Path(str(resources.files("vision") / "data" / "models"))


def shipped_path(name: str) -> Path:
    """Return the path of one shipped model file (e.g. `shipped_path(FACES)`)."""
    return shipped_dir() / name
