"""The early YOLO baseline's options: a named alternative, never the default path's help.

`--model vision/data/models/templecam-baseline.onnx` (or any YOLO .onnx, a model without
localiser metadata) opens the old detector, which still takes its tile options: `--tile`,
`--overlap`, `--whole`, `--imgsz` and `--iou`. They are hidden from `detect`, `eval` and
`bench robustness`, whose help describes the localiser and the face reader.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from templecam.errors import UserError

if TYPE_CHECKING:
    from vision.perception.detector import DetectorSettings


def add_baseline_arguments(group: argparse._ArgumentGroup) -> None:
    """Add the YOLO baseline's tile options to `group`, hidden from the help."""
    hidden = argparse.SUPPRESS
    group.add_argument("--iou", type=float, default=0.7, help=hidden)
    group.add_argument("--tile", default="auto", help=hidden)
    group.add_argument("--overlap", type=int, default=64, help=hidden)
    group.add_argument("--whole", choices=("auto", "on", "off"), default="auto", help=hidden)
    group.add_argument("--imgsz", type=int, help=hidden)


def baseline_settings(args: argparse.Namespace, conf: float, faces: str) -> DetectorSettings:
    """Build the YOLO baseline's settings from its options, `conf` and the `faces` reader."""
    from vision.perception.detector import DetectorSettings

    tile: int | str = args.tile
    if str(tile).lower() == "auto":
        tile = "auto"
    else:
        try:
            tile = int(tile)
        except ValueError:
            raise UserError(f"--tile {args.tile}: give auto, 0 or a tile edge in px") from None
    whole = {"auto": None, "on": True, "off": False}[args.whole]
    try:
        return DetectorSettings(
            conf=conf,
            iou=args.iou,
            tile=tile,
            overlap=args.overlap,
            whole=whole,
            imgsz=args.imgsz,
            threads=args.threads,
            faces=faces,
        )
    except ValueError as error:
        raise UserError(str(error)) from None
