"""`templecam export`: export trained Ultralytics weights (.pt) to ONNX for the detector."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from templecam.errors import UserError

_DESCRIPTION = """\
Export Ultralytics detection weights (.pt) to ONNX, offline: a dynamic input (batch x 3 x H x W,
any multiple of 32; --imgsz is its nominal size), no NMS inside the model (output batch x
(4 + classes) x anchors), opset 17, with the class names, input size and training tile size
in its metadata. The file is written under a temporary name and
moved into place."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `export` subcommand."""
    parser = subparsers.add_parser(
        "export",
        help="export trained weights (.pt) to ONNX",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--weights", required=True, metavar="X.pt", help="Ultralytics weights")
    parser.add_argument("--out", required=True, metavar="Y.onnx", help="ONNX file to write")
    parser.add_argument(
        "--imgsz", type=int, default=640, help="input size in px (default: %(default)s)"
    )
    parser.add_argument(
        "--tile",
        type=int,
        help="tile size the model was trained on, written into the ONNX metadata "
        "(default: `tile` from metrics.json beside the weights, if there is one)",
    )
    parser.set_defaults(run=run)


def _tile(args: argparse.Namespace, weights: Path) -> int | None:
    """Return the tile size to record: --tile, or metrics.json's beside the weights, or None."""
    if args.tile is not None:
        if args.tile < 0:
            raise UserError(f"--tile {args.tile}: give 0 (whole frames) or a tile size in px")
        return int(args.tile)
    for sidecar in (weights.with_suffix(".metrics.json"), weights.parent / "metrics.json"):
        try:
            tile = json.loads(sidecar.read_text("utf-8")).get("tile")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(tile, int):
            return tile
    return None


def run(args: argparse.Namespace) -> int:
    """Check the input, export, and say what was written."""
    from models.train import TrainError, check_weights, export_onnx, onnx_shapes

    weights = Path(args.weights).expanduser()
    out = Path(args.out).expanduser()
    if args.imgsz < 32 or args.imgsz % 32:
        raise UserError(f"--imgsz {args.imgsz}: give a multiple of 32")
    if out.suffix != ".onnx":
        raise UserError(f"--out {args.out}: give a file name ending in .onnx")
    if out.is_dir():
        raise UserError(f"--out {args.out} is a folder: give a file name ending in .onnx")
    try:
        check_weights(weights)
        tile = _tile(args, weights)
        export_onnx(weights, out, args.imgsz, None if tile is None else {"tile": str(tile)})
        in_shape, out_shape = onnx_shapes(out)
    except TrainError as error:
        raise UserError(str(error)) from None
    except OSError as error:
        raise UserError(f"cannot write --out {args.out}: {error.strerror or error}") from None
    print(f"wrote {out}: input {in_shape}, output {out_shape}")
    return 0
