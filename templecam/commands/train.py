"""`templecam train`: train the detector (or, with --faces, the die-face classifier) offline."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path
from typing import TYPE_CHECKING, Any

from templecam.commands import train_localiser
from templecam.commands.dataset import add_map_argument
from templecam.errors import UserError

if TYPE_CHECKING:
    from models.train import TrainConfig

_DESCRIPTION = """\
Train the table detector with Ultralytics, fully offline (nothing is downloaded or installed),
from models/yolo-templecam.yaml or from --base weights, then export it to ONNX (dynamic
input size, no NMS inside) and write DIR/best.pt, DIR/best.onnx and DIR/metrics.json
(validation mAP, per-class AP, image and tile size, class names). With --tile N (default 640)
the frames are first cut into overlapping N px tiles at full resolution, so that small objects
such as dice keep their real size; --tile 0 trains on whole frames. The run itself is in DIR/run
(--resume continues DIR/run/weights/last.pt).

{faces}"""

_EPILOG = """\
examples:
  templecam synth --out /tmp/synth --frames 400 --seed 1
  templecam train --data /tmp/synth/data.yaml --out /tmp/model --epochs 30
  templecam train --data /tmp/synth/data.yaml --out /tmp/model --resume
  templecam train --data /tmp/synth/data.yaml --out /tmp/model --hours 1 --set lr0=0.0015
{faces}"""


def _positive(text: str) -> int:
    """Parse a whole number of 1 or more."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: give 1 or more")
    return value


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `train` subcommand."""
    from templecam.commands import train_faces

    parser = subparsers.add_parser(
        "train",
        help="train the detector (Ultralytics, offline) or the die-face reader, export to ONNX",
        description=_DESCRIPTION.format(faces=train_faces.HELP),
        epilog=_EPILOG.format(faces=train_faces.EXAMPLES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--data",
        action="append",
        metavar="DATA",
        help="Ultralytics data.yaml, or any dataset `templecam dataset import` reads (a "
        "Roboflow, CVAT or Label Studio export), imported into DIR/dataset first (needed but "
        "with --faces); with --localiser a `templecam synth` folder, repeatable",
    )
    add_map_argument(parser)
    parser.add_argument("--out", required=True, metavar="DIR", help="folder for the model files")
    parser.add_argument(
        "--base", metavar="WEIGHTS.pt", help="fine-tune these weights instead of a fresh model"
    )
    parser.add_argument(
        "--model",
        metavar="MODEL.yaml",
        help="architecture (default: models/yolo-templecam.yaml)",
    )
    parser.add_argument("--epochs", type=_positive, help="default: 50; --faces: at most 16")
    parser.add_argument(
        "--hours",
        type=float,
        help="training-time budget; the epochs are fitted to it (overrides --epochs)",
    )
    parser.add_argument(
        "--imgsz", type=_positive, help="input size (default: 640; --faces: 40, the crop size)"
    )
    parser.add_argument("--batch", type=_positive, help="default: 16; --faces: 128")
    parser.add_argument(
        "--tile",
        type=int,
        help="tile size in px at full resolution, 0 for whole frames (default: 640)",
    )
    parser.add_argument(
        "--val-frames",
        type=_positive,
        metavar="N",
        help="validate during training on N val frames only (faster on a CPU)",
    )
    parser.add_argument(
        "--fraction",
        type=float,
        default=1.0,
        help="share of the training images used, 0 to 1 (default: %(default)s)",
    )
    parser.add_argument(
        "--holdout", metavar="DATA.yaml", help="also validate the result on this dataset's val"
    )
    parser.add_argument("--workers", type=int, default=2, help="data loader workers (default: 2)")
    parser.add_argument("--seed", type=int, default=0, help="default: %(default)s")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the interrupted run in DIR/run (--faces: DIR/last.pt)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="another Ultralytics training argument, e.g. --set lr0=0.0015 (repeatable)",
    )
    train_faces.add_arguments(parser)
    train_localiser.add_arguments(parser)
    parser.set_defaults(run=run)


RESERVED = frozenset(
    {"amp", "plots", "pretrained", "data", "project", "name", "model", "resume", "exist_ok"}
)
"""Training arguments templecam sets itself (offline-ness, where the run goes)."""


def parse_settings(items: list[str]) -> dict[str, Any]:
    """Parse --set KEY=VALUE items; numbers, true/false and None become Python values."""
    settings: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise UserError(f"--set {item}: write KEY=VALUE, e.g. --set lr0=0.001")
        if key in RESERVED:
            raise UserError(f"--set {key}: templecam sets {key} itself; leave it out")
        lowered = text.strip().lower()
        if lowered in {"true", "false"}:
            settings[key] = lowered == "true"
            continue
        try:
            settings[key] = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            settings[key] = text.strip()
    return settings


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """Check the arguments; return the `models.train.TrainConfig` they ask for."""
    from models.train import MODEL_YAML, TrainConfig

    tile = 640 if args.tile is None else args.tile
    if args.data is None:
        raise UserError("--data is needed: give an Ultralytics data.yaml")
    data = Path(args.data).expanduser()
    if not data.is_file():
        raise UserError(
            f"--data {args.data} does not exist: give an Ultralytics data.yaml or a dataset folder"
        )
    out = Path(args.out).expanduser()
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {args.out} is a file: give a folder for the model")
    if tile != 0 and tile < 32:
        raise UserError(f"--tile {tile}: give 0 (whole frames) or a tile of 32 px or more")
    imgsz = 640 if args.imgsz is None else args.imgsz
    if imgsz % 32:
        raise UserError(f"--imgsz {imgsz}: give a multiple of 32")
    if not 0.0 < args.fraction <= 1.0:
        raise UserError(f"--fraction {args.fraction}: give a share above 0, up to 1")
    if args.hours is not None and args.hours <= 0:
        raise UserError(f"--hours {args.hours}: give a positive number of hours")
    if args.workers < 0:
        raise UserError(f"--workers {args.workers}: give 0 or more")
    if args.resume and args.base:
        raise UserError("--resume continues DIR/run; leave out --base")
    model = Path(args.model).expanduser() if args.model else MODEL_YAML
    if not model.is_file():
        raise UserError(f"--model {args.model} does not exist: give a model .yaml")
    holdout = Path(args.holdout).expanduser() if args.holdout else None
    if holdout is not None and not holdout.is_file():
        raise UserError(f"--holdout {args.holdout} does not exist: give an Ultralytics data.yaml")
    extra = parse_settings(args.set)
    if args.fraction != 1.0:
        extra["fraction"] = args.fraction
    return TrainConfig(
        data=data,
        out=out,
        base=Path(args.base).expanduser() if args.base else None,
        model_yaml=model,
        epochs=50 if args.epochs is None else args.epochs,
        imgsz=imgsz,
        batch=16 if args.batch is None else args.batch,
        tile=tile,
        workers=args.workers,
        resume=args.resume,
        hours=args.hours,
        seed=args.seed,
        val_frames=args.val_frames,
        holdout=holdout,
        extra=extra,
    )


IMPORTED = "dataset"
"""The folder inside --out that a --data in another format is imported into."""


def _ready(data: Path) -> bool:
    """Return whether `data` is a data.yaml whose train and val are image folders."""
    from models.tiles import TileError, read_data_yaml

    try:
        spec = read_data_yaml(data)
    except TileError:
        return False
    return spec.train.is_dir() and spec.val.is_dir()


def prepared_data(data: str | None, mapping: list[str], out: Path) -> str | None:
    """Return the data.yaml to train on: --data itself when it is one, else its import.

    An Ultralytics data.yaml with train and val folders is used as it is (unless --map asks
    for renamed classes); any other dataset `templecam dataset import` reads is imported into
    `out`/dataset with templecam's class names, replacing an earlier import.
    """
    from teach.datasets import DatasetError, load_dataset, parse_mapping, write_ultralytics

    if data is None:
        return None
    path = Path(data).expanduser()
    if not path.exists() or (not mapping and path.is_file() and _ready(path)):
        return data
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file: give a folder for the model")
    try:
        view = load_dataset(path, parse_mapping(mapping))
        data_yaml = write_ultralytics(view, out / IMPORTED, replace=True)
    except DatasetError as error:
        raise UserError(str(error)) from None
    counts = ", ".join(f"{name} {count}" for name, count in view.class_counts().items())
    print(
        f"imported {path} ({view.format}): {len(view.images)} images, boxes: {counts or 'none'}"
        f" -> {data_yaml}",
        flush=True,
    )
    return str(data_yaml)


def run(args: argparse.Namespace) -> int:
    """Train, export and record; print where the model files are."""
    from templecam.extras import require_training

    require_training(
        "training", ("torch",) if args.localiser or args.faces else ("torch", "ultralytics")
    )
    from models.train import TrainError, train

    if args.map and (args.localiser or args.faces):
        raise UserError("--map renames the classes of the detector's --data; leave it out here")
    if args.localiser:
        if not args.data:
            raise UserError("--localiser needs --data: a `templecam synth` dataset folder")
        return train_localiser.run_localiser(args, args.data)
    if args.data and len(args.data) > 1:
        raise UserError("give --data once (several datasets only with --localiser)")
    args.data = args.data[0] if args.data else None
    if args.faces:
        from templecam.commands import train_faces

        return train_faces.run(args)
    args.data = prepared_data(args.data, args.map, Path(args.out).expanduser())
    config = config_from_args(args)
    try:
        metrics = train(config)
    except TrainError as error:
        raise UserError(str(error)) from None
    except OSError as error:
        raise UserError(f"cannot read or write the model files: {error}") from None
    out = Path(args.out).expanduser()
    val = metrics["val"]
    print(
        f"wrote {out / 'best.pt'}, {out / 'best.onnx'} and {out / 'metrics.json'}: "
        f"val mAP50 {val['map50']:.3f}, mAP50-95 {val['map50_95']:.3f} "
        f"after {metrics['epochs']['completed']} epochs"
    )
    return 0
