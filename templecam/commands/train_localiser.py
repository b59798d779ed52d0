"""`templecam train --localiser`: train the one-pass localiser on 2 CPU cores to its plateau."""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from templecam.errors import UserError

DESCRIPTION = """\
Train the localiser: a small centre-point network (CenterNet-style, about 0.35 M parameters)
that finds every die (one class: the face reader names its face), gem, chamber tile, tile back,
figure and hand in one pass over the frame at half resolution. It learns on native-scale
patches of `templecam synth` datasets (give --data once per dataset folder), validates on whole
frames every --eval-every steps, lowers the learning rate when the validation score stalls and
stops at the plateau (or at --minutes). Writes DIR/last.pt (Ctrl-C and run again to resume),
DIR/best.pt, DIR/localiser.onnx, DIR/card.json (the validation curve, figures and this
command) and DIR/curve.png."""

EPILOG = """\
examples:
  templecam synth --out ~/datasets/loc --frames 800 --seed 100 --val-fraction 0.1
  templecam synth --out ~/datasets/loc-hard --frames 200 --seed 101 --hard --val-fraction 0.1
  templecam train --localiser --data ~/datasets/loc --data ~/datasets/loc-hard --out ~/loc
  templecam train --localiser --data ~/my-frames --out ~/loc2 \\
      --base models/templecam-default.pt"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the localiser's own options to `templecam train`."""
    group = parser.add_argument_group("localiser (with --localiser)")
    group.add_argument(
        "--localiser",
        action="store_true",
        help="train the one-pass localiser (dice, gems, tiles, hands) instead of the YOLO detector",
    )
    group.add_argument(
        "--minutes", type=float, default=90.0, help="time budget (default: %(default)s)"
    )
    group.add_argument(
        "--eval-every", type=int, default=400, metavar="STEPS", help="default: %(default)s"
    )
    group.add_argument(
        "--lr-drops",
        type=int,
        default=3,
        help="stop when the learning rate has dropped this often with no gain since; it drops "
        "after --patience validations without a gain (default: 3 and 3)",
    )
    group.add_argument("--patch", type=int, default=256, help="patch side in px (default: 256)")
    group.add_argument("--width", type=int, default=16, help="network width (default: 16)")


class _Progress:
    """One status line on stderr: steps, minutes, the last validation."""

    def __init__(self) -> None:
        self.shown = 0.0
        self.last = ""

    def __call__(self, step: int, minutes: float, row: dict[str, float] | None) -> None:
        if row is not None:
            self.last = f"dice found {row['die_recall']:.3f}, false {row['false_dice']:.2f}/frame"
        now = time.monotonic()
        if now - self.shown < 1.0 and row is None:
            return
        self.shown = now
        sys.stderr.write(f"\rstep {step}  {minutes:5.1f} min  {self.last}   ")
        sys.stderr.flush()


def run_localiser(args: argparse.Namespace, data: list[str]) -> int:
    """Train the localiser as `args` say; print where the model is."""
    from models.localiser.data import LocaliserDataError
    from models.localiser.train import LocaliserConfig, train_localiser

    folders = []
    for entry in data:
        path = Path(entry).expanduser()
        if path.name == "data.yaml":
            path = path.parent
        if not path.is_dir():
            raise UserError(f"--data {entry}: no such folder; give a `templecam synth` dataset")
        folders.append(path)
    patience = 3 if args.patience is None else args.patience
    if args.minutes <= 0 or args.eval_every < 1 or patience < 1 or args.lr_drops < 0:
        raise UserError("--minutes, --eval-every and --patience must be positive")
    config = LocaliserConfig(
        data=tuple(folders),
        out=Path(args.out).expanduser(),
        base=Path(args.base).expanduser() if args.base else None,
        width=args.width,
        patch=args.patch,
        batch=args.batch or 16,
        eval_every=args.eval_every,
        patience=patience,
        lr_drops=args.lr_drops,
        max_minutes=args.minutes,
        threads=args.threads,
        seed=args.seed,
        command="templecam " + shlex.join(sys.argv[1:]),
    )
    if config.base is not None and not config.base.is_file():
        raise UserError(f"--base {args.base}: no such file; give a localiser .pt")

    def log(line: str) -> None:
        sys.stderr.write("\r" + line + "\n")

    try:
        card = train_localiser(config, log, _Progress())
    except LocaliserDataError as error:
        raise UserError(str(error)) from None
    except KeyboardInterrupt:
        print(f"\nstopped; run the same command again to resume from {config.out / 'last.pt'}")
        return 130
    best = card["history"][-1] if card["history"] else {}
    print(
        f"\n{card['stopped']}; best weights {config.out / 'best.pt'}, "
        f"model {config.out / 'localiser.onnx'}, curve {config.out / 'curve.png'}"
    )
    if best:
        print(f"last validation: dice found {best['die_recall']:.3f}, ")
    return 0
