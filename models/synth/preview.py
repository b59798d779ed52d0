"""Drawing labels back onto a frame, to look at what the detector will be taught.

The example in the docs (`docs/synth_example.jpg`) is frame 17 of seed 7, made with
`write_example("docs/synth_example.jpg")`.
"""

from __future__ import annotations

import cv2
import numpy as np

from models.synth.frame import render_frame
from models.synth.labels import DETECTION_NAMES
from models.synth.settings import SynthSettings

CLASS_COLOURS: dict[str, tuple[int, int, int]] = {
    "adventurer": (60, 200, 60),
    "key": (255, 140, 40),
    "torch": (40, 40, 255),
    "golden_mask": (0, 215, 255),
    "black_mask": (255, 255, 255),
    "gem": (160, 255, 160),
    "tile": (255, 200, 120),
    "tile_back": (80, 160, 220),
    "figure": (255, 80, 255),
    "die_unreadable": (140, 140, 140),
    "hand": (120, 120, 255),
}
"""BGR box colour of each class."""


def draw_labels(image: np.ndarray, labels: str, names: bool = True) -> np.ndarray:
    """Return a copy of a BGR frame with the YOLO label lines drawn as named boxes."""
    out = image.copy()
    h, w = out.shape[:2]
    for line in labels.splitlines():
        cls, cx, cy, bw, bh = line.split()
        name = DETECTION_NAMES[int(cls)]
        x0 = round((float(cx) - float(bw) / 2) * w)
        y0 = round((float(cy) - float(bh) / 2) * h)
        x1 = round((float(cx) + float(bw) / 2) * w) - 1
        y1 = round((float(cy) + float(bh) / 2) * h) - 1
        colour = CLASS_COLOURS.get(name, (0, 255, 255))
        cv2.rectangle(out, (x0, y0), (x1, y1), colour, 1)
        if names and name not in ("gem", "tile"):
            text = name.replace("_", " ")
            cv2.putText(out, text, (x0, max(8, y0 - 3)), cv2.FONT_HERSHEY_PLAIN, 0.8, colour, 1)
    return out


def write_example(path: str, seed: int = 7, index: int = 17, quality: int = 80) -> int:
    """Render one 1920x1080 frame, draw its labels and save it as a JPEG; return its size."""
    frame = render_frame(SynthSettings(), seed, index)
    ok, data = cv2.imencode(
        ".jpg", draw_labels(frame.image, frame.labels), [cv2.IMWRITE_JPEG_QUALITY, quality]
    )
    if not ok:
        raise RuntimeError("OpenCV could not encode the example as JPEG")
    with open(path, "wb") as file:
        file.write(data.tobytes())
    return len(data)
