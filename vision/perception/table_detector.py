"""What every stage asks of the model that finds things on the table: the localiser (the
default) and the early YOLO baseline (a named alternative) both keep this protocol."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import numpy as np

from vision.perception.detections import Detections


class InputShape(Protocol):
    """The model's input: any size in steps of `stride`, or a fixed `imgsz` (height, width)."""

    @property
    def stride(self) -> int:
        """The step an input size must be a multiple of."""
        ...

    @property
    def dynamic_size(self) -> bool:
        """Tell whether the model takes any input size (in steps of `stride`)."""
        ...

    @property
    def imgsz(self) -> tuple[int, int]:
        """The input (height, width) of a model of fixed size."""
        ...


class TableDetector(Protocol):
    """Finds dice (read by face), gems, tiles and figures in a BGR frame."""

    model_path: Path
    info: InputShape

    @property
    def names(self) -> tuple[str, ...]:
        """The class names its detections carry (die faces, gem, tile, ...)."""
        ...

    def detect(self, image_bgr: np.ndarray, conf: float | None = None) -> Detections:
        """Detect what lies on the table in one frame."""
        ...
