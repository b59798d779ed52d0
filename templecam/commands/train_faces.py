"""`templecam train --faces`: the die-face reader's options, their checks, and the run."""

from __future__ import annotations

import argparse
import shlex
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from templecam.errors import UserError

if TYPE_CHECKING:
    from models.faces import FacesConfig

HELP = """\
With --faces it trains the die-face reader instead: a small CNN (models/faces_net.py) on crops
rendered directly at crop level (models/synth/crops.py: dice of any wood, print colours, wear,
light and camera, neighbours and fingers in view, imprecise boxes; tile art, gems, hands,
figures and the gaps between dice as not_die). No --data is needed. It stops at the validation
plateau, writes a checkpoint per epoch (--resume continues it), and writes DIR/best.pt,
DIR/best.onnx (what `templecam detect --faces DIR/best.onnx` runs), its int8 copy
DIR/best-int8.onnx (about twice as fast), DIR/curve.png and DIR/metrics.json: accuracy per
class on a new seed of the training look (the int8 copy's too), on the held-out look and on the
val crops of each --frames dataset. --base fine-tunes given reader weights; --data
adds crops cut from a labelled templecam synth-style dataset to the rendered ones."""

EXAMPLES = """\
  templecam train --faces --out /tmp/faces --frames /tmp/synth/data.yaml
  templecam train --faces --out /tmp/faces --resume
  templecam train --faces --out /tmp/ft --base models/templecam-faces.pt --crops 5000"""


def _count(text: str) -> int:
    """Parse a whole number of 0 or more."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text}: give 0 or more")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the reader's own options (the shared ones are the detector's)."""
    group = parser.add_argument_group("die-face reader (--faces)")
    group.add_argument(
        "--faces",
        action="store_true",
        help="train the die-face reader on rendered crops instead of the detector",
    )
    group.add_argument(
        "--crops", type=_count, metavar="N", help="rendered training crops (default: 60000)"
    )
    group.add_argument(
        "--val-crops",
        type=_count,
        metavar="N",
        help="crops in each validation and measurement set (default: 3000)",
    )
    group.add_argument(
        "--frames",
        action="append",
        default=[],
        metavar="DATA.yaml",
        help="also measure on the val crops of this templecam synth dataset (repeatable)",
    )
    group.add_argument(
        "--look",
        metavar="LOOK",
        help="training look: 'train' (default), 'held_out', or wood=A+B,print=C,light=D",
    )
    group.add_argument(
        "--patience", type=int, help="epochs without a validation gain that stop it (default: 3)"
    )
    group.add_argument(
        "--channels",
        type=int,
        default=24,
        help="channels of the network's first block (default: %(default)s; 16: about 73k "
        "parameters, 24: about 163k)",
    )
    group.add_argument("--threads", type=int, default=2, help="torch threads (default: 2)")
    group.add_argument(
        "--hard-negatives",
        metavar="MODEL.onnx",
        default="none",
        help="with --data: a detector whose die-like mistakes on its frames become not_die "
        "crops: a path, 'baseline' (the shipped vision/data/models/templecam-baseline.onnx) or "
        "'none' (default)",
    )


def _path(text: str | None, option: str, what: str) -> Path | None:
    """Return an existing file given to an option, None when not given."""
    if text is None:
        return None
    path = Path(text).expanduser()
    if not path.is_file():
        raise UserError(f"{option} {text} does not exist: give {what}")
    return path


def config_from_args(args: argparse.Namespace) -> FacesConfig:
    """Check the options of `train --faces`; return the `models.faces.FacesConfig` they ask for."""
    from models.faces import FacesConfig
    from models.faces_fit import FitConfig
    from models.frame_crops import BASELINE
    from models.synth.crop_look import TRAIN_LOOK, parse_look

    unused = [
        option
        for option, given in (
            ("--tile", args.tile is not None),
            ("--val-frames", args.val_frames is not None),
            ("--fraction", args.fraction != 1.0),
            ("--model", args.model is not None),
            ("--hours", args.hours is not None),
            ("--set", bool(args.set)),
        )
        if given
    ]
    if unused:
        raise UserError(f"{', '.join(unused)}: the detector's options; leave them out with --faces")
    out = Path(args.out).expanduser()
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {args.out} is a file: give a folder for the reader")
    data = _path(args.data, "--data", "a templecam synth data.yaml")
    frames = [_path(f, "--frames", "a templecam synth data.yaml") for f in args.frames]
    holdout = _path(args.holdout, "--holdout", "a templecam synth data.yaml")
    imgsz = 40 if args.imgsz is None else args.imgsz
    if not 16 <= imgsz <= 128 or imgsz % 8:
        raise UserError(f"--imgsz {imgsz}: give a multiple of 8 from 16 to 128 (40 suits dice)")
    if args.workers < 0:
        raise UserError(f"--workers {args.workers}: give 0 or more")
    if not 4 <= args.channels <= 128:
        raise UserError(f"--channels {args.channels}: give 4 to 128")
    if args.threads < 1:
        raise UserError(f"--threads {args.threads}: give 1 or more")
    if args.resume and args.base:
        raise UserError("--resume continues DIR/last.pt; leave out --base")
    if args.resume and not (out / "last.pt").is_file():
        raise UserError(f"--resume: no checkpoint {out / 'last.pt'} to continue")
    try:
        look = parse_look(args.look) if args.look else TRAIN_LOOK
    except ValueError as error:
        raise UserError(f"--look {args.look}: {error}") from None
    choice = args.hard_negatives
    detector = {"none": None, "baseline": BASELINE}.get(choice.lower(), Path(choice).expanduser())
    if detector is not None and not detector.is_file():
        raise UserError(
            f"--hard-negatives {choice}: no detector model there; give an .onnx or 'none'"
        )
    fit = FitConfig(
        epochs=16 if args.epochs is None else args.epochs,
        batch=128 if args.batch is None else args.batch,
        patience=3 if args.patience is None else args.patience,
        threads=args.threads,
        seed=args.seed,
    )
    config = FacesConfig(
        out=out,
        crops=60000 if args.crops is None else args.crops,
        width=args.channels,
        val_crops=3000 if args.val_crops is None else args.val_crops,
        look=look,
        imgsz=imgsz,
        data=data,
        frames=tuple(p for p in [*frames, holdout] if p is not None),
        base=_path(args.base, "--base", "reader weights (.pt of templecam train --faces)"),
        resume=args.resume,
        workers=args.workers,
        detector=detector,
        seed=args.seed,
        fit=fit,
    )
    return replace(config, command=command_line(config))


def command_line(config: FacesConfig) -> str:
    """Return the `templecam train --faces` command that makes a run like `config`."""
    from models.synth.crop_look import TRAIN_LOOK

    fit = config.fit
    words = ["templecam", "train", "--faces", "--out", str(config.out)]
    words += ["--crops", str(config.crops), "--val-crops", str(config.val_crops)]
    words += ["--epochs", str(fit.epochs), "--batch", str(fit.batch)]
    words += ["--patience", str(fit.patience), "--imgsz", str(config.imgsz)]
    words += ["--seed", str(config.seed), "--workers", str(config.workers)]
    words += ["--threads", str(fit.threads), "--channels", str(config.width)]
    if config.look != TRAIN_LOOK:
        words += ["--look", config.look.describe()]
    for option, path in (("--base", config.base), ("--data", config.data)):
        if path is not None:
            words += [option, str(path)]
    for path in config.frames:
        words += ["--frames", str(path)]
    if config.detector is not None:
        words += ["--hard-negatives", str(config.detector)]
    return shlex.join(words)


def run(args: argparse.Namespace) -> int:
    """Train, export and measure the reader; print where its files are."""
    from models.faces import FacesError, train_faces
    from models.faces_net import FaceWeightsError

    config = config_from_args(args)
    if config.crops == 0 and config.data is None:
        raise UserError("--crops 0 leaves nothing to train on: give --data or some crops")
    try:
        metrics = train_faces(config)
    except (FacesError, FaceWeightsError) as error:
        raise UserError(str(error)) from None
    except OSError as error:
        raise UserError(f"cannot read or write the reader's files: {error}") from None
    out = config.out
    measured = metrics["measured"]
    int8 = measured["int8"]
    print(
        f"wrote {out / 'best.pt'}, {out / 'best.onnx'}, {out / 'best-int8.onnx'}, "
        f"{out / 'curve.png'} and {out / 'metrics.json'}: top-1 "
        f"{measured['final_val']['top1']:.4f} on a new seed of the training look (int8 copy "
        f"{int8['final_val']['top1']:.4f}), {measured['final_held_out']['top1']:.4f} on the "
        f"held-out look, after {metrics['epochs']['run']} epochs "
        f"({metrics['epochs']['stopped']}), {metrics['seconds']['wall'] / 60:.1f} min"
    )
    return 0
