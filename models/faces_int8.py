"""The int8 copy of a die-face reader: `python -m models.faces_int8 READER.onnx OUT.onnx`.

Its convolutions run in int8 (about twice as fast on 2 cores), calibrated on rendered crops of
the training look; the last layer and the softmax stay in float: a softmax left to int8 sums to
1 only roughly, and its steps blur how sure the reader is, which decides which crops are read
again (`vision.perception.face_reader.TURN_BELOW`). Quantising the convolutions alone (the
pooling and ReLUs between them in float) was slower and agreed less with the float reader.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from models.quantize import quantize_int8
from models.synth.crop_look import TRAIN_LOOK
from models.synth.crop_set import render_set
from vision.perception.face_reader import FaceModelError, FaceReader, crops_to_tensor

CALIBRATION_CROPS = 512
"""Crops the activation ranges are measured on."""
KEEP_FLOAT = ("Gemm", "Softmax")
"""Op types left in float: the last layer and the softmax."""
CALIBRATION_SEED = 777
"""Seed of the rendered calibration crops (none of a training run's sets)."""


def quantize_reader(reader: Path, out: Path, crops: Sequence[np.ndarray] | np.ndarray) -> Path:
    """Write the int8 copy of an exported reader, calibrated on `crops` (BGR, its input size)."""
    images = list(crops[:CALIBRATION_CROPS])
    if not images:
        raise ValueError("no crops to calibrate the int8 reader on")
    batches = [crops_to_tensor(images[i : i + 64]) for i in range(0, len(images), 64)]
    return quantize_int8(reader, out, batches, keep_float=KEEP_FLOAT)


def main(argv: Sequence[str] | None = None) -> int:
    """Write the int8 copy of a reader .onnx, calibrated on freshly rendered crops."""
    parser = argparse.ArgumentParser(
        prog="python -m models.faces_int8",
        description="Write the int8 copy of a die-face reader (.onnx), calibrated on "
        f"{CALIBRATION_CROPS} rendered crops.",
    )
    parser.add_argument("reader", type=Path, help="the reader .onnx")
    parser.add_argument("out", type=Path, help="the int8 copy to write")
    args = parser.parse_args(argv)
    try:
        reader = FaceReader(args.reader)
    except FaceModelError as error:
        print(f"faces_int8: {error}", file=sys.stderr)
        return 2
    if not args.out.parent.is_dir():
        print(f"faces_int8: no such folder {args.out.parent}: make it first", file=sys.stderr)
        return 2
    crops = render_set(
        CALIBRATION_CROPS,
        CALIBRATION_SEED,
        TRAIN_LOOK,
        reader.imgsz,
        reader.crop_scale,
        workers=0,
    )
    quantize_reader(args.reader, args.out, crops.images)
    print(f"faces_int8: wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
