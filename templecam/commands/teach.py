"""`templecam teach`: teach the die-face reader your own dice, list taught models, switch them."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from templecam.commands.dataset import add_map_argument
from templecam.errors import UserError

DESCRIPTION = """\
Teach templecam your own dice. --prompted DIR holds one folder per face, named as the classes
are (adventurer/, key/, torch/, golden_mask/, black_mask/), with photos in which every die in
view shows that face, and empty/ with photos of the table without dice: the folder is the
label. Every die the localiser finds is labelled (review.json, which the /dice page lets you
correct); the face reader in use is fine-tuned from its weights on your dice mixed with
rendered ones (so it forgets nothing), on the CPU at low priority; the old and new reader are
compared on the last photo of each face, held back from training; and the model folder is
written with its card (card.json, card.md, wrong.png: the crops each reader got wrong).

Without --out the model is kept in the data folder with every earlier one, where the /dice page
lists it; --use NAME (or --use shipped) switches the camera's reader, --list shows them all."""

EXAMPLES = """\
examples:
  templecam capture --out ~/dice/key --frames 3 --every 2      (every die showing the key)
  templecam teach --prompted ~/dice
  templecam teach --prompted ~/dice --out ~/models/my-dice --json
  templecam teach --dataset ~/exports/roboflow --map Key=key --map Torch=torch
  templecam eval --data ~/datasets/mine/data.yaml --faces ~/models/my-dice/faces.onnx
  templecam teach --list
  templecam teach --use 20261201-193000
  templecam teach --use shipped"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `teach` subcommand."""
    parser = subparsers.add_parser(
        "teach",
        help="teach the die-face reader your own dice (prompted photos or a dataset)",
        description=DESCRIPTION,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--prompted", type=Path, metavar="DIR", help="prompted capture folder")
    what.add_argument(
        "--dataset",
        type=Path,
        metavar="SRC",
        help="a labelled dataset instead (Ultralytics, Roboflow, CVAT YOLO 1.1, Label Studio)",
    )
    what.add_argument("--list", action="store_true", help="list the taught models")
    what.add_argument(
        "--use", metavar="NAME", help="make a taught model (or `shipped`) the camera's reader"
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="MODEL_DIR",
        help="model folder to write (default: a new one in the data folder)",
    )
    add_map_argument(parser)
    parser.add_argument(
        "--base", type=Path, metavar="PT", help="reader weights to start from (default: shipped)"
    )
    parser.add_argument(
        "--epochs", type=int, default=6, help="passes over your dice (default: %(default)s)"
    )
    parser.add_argument(
        "--copies",
        type=int,
        default=16,
        help="jittered crops of each of your dice per pass (default: %(default)s)",
    )
    parser.add_argument(
        "--replay",
        type=int,
        default=3000,
        help="rendered crops of the shipped look mixed in (default: %(default)s)",
    )
    parser.add_argument(
        "--threads", type=int, default=2, help="CPU threads for torch (default: %(default)s)"
    )
    parser.add_argument(
        "--localiser",
        choices=("auto", "on", "off"),
        default="auto",
        help="fine-tune the localiser too: auto when a fifth of the dice were added by hand "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--localiser-minutes",
        type=float,
        default=2.0,
        help="time for the localiser's fine-tune (default: %(default)s)",
    )
    parser.add_argument("--data-dir", type=Path, help="data folder (default: $TEMPLECAM_DATA)")
    parser.add_argument("--json", action="store_true", help="print the card as JSON")
    parser.add_argument(
        "--progress",
        choices=("bar", "json"),
        default="bar",
        help="json: one JSON line per step on stdout, for the dashboard (default: bar)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run `templecam teach`."""
    from base.paths import data_dir
    from teach.errors import TeachError

    data = data_dir(args.data_dir)
    try:
        if args.list:
            return _list(data, args.json)
        if args.use:
            return _use(data, args.use)
        return _teach(args, data)
    except TeachError as error:
        raise UserError(str(error)) from None
    except OSError as error:  # a full disk, a folder without write permission
        where = f" {error.filename}" if error.filename else ""
        raise UserError(
            f"cannot write{where}: {error.strerror or error}; nothing was kept (free some disk "
            "space or choose another --out / --data-dir and run it again)"
        ) from None


def _list(data: Path, as_json: bool) -> int:
    """Print the taught models, the one in use marked."""
    from teach.registry import active_name, list_models

    models, active = list_models(data), active_name(data)
    if as_json:
        out = {"active": active, "models": [m.summary() for m in models]}
        print(json.dumps(out, indent=1))
        return 0
    print(f"{'*' if active is None else ' '} shipped")
    for model in models:
        held = model.card.get("figures", {}).get("held_back", {})
        state = "" if model.passed else "  (failed its checks: cannot be used)"
        print(
            f"{'*' if model.name == active else ' '} {model.name}  held-back photos "
            f"{_f(held.get('before'))} -> {_f(held.get('after'))}{state}"
        )
    return 0


def _f(value: Any) -> str:
    """Return an accuracy for a line of text."""
    return "-" if value is None else f"{value:.3f}"


def _use(data: Path, name: str) -> int:
    """Switch the camera's reader."""
    from teach.registry import use_model

    model = use_model(data, name)
    print(
        f"the camera now reads dice with {'the shipped reader' if model is None else model.name}"
        " (a running dashboard switches within seconds)"
    )
    return 0


def _teach(args: argparse.Namespace, data: Path) -> int:
    """Teach a new model."""
    import os

    from teach.datasets import parse_mapping
    from teach.registry import active_model, discard_partials, new_name, taught_dir
    from templecam.extras import require_training

    require_training("teaching")
    from models.teach import TeachConfig, teach

    if args.localiser_minutes <= 0:
        raise UserError("--localiser-minutes takes a time above 0")
    if min(args.epochs, args.threads, args.copies) < 1 or args.replay < 0:
        raise UserError("--epochs, --threads and --copies take 1 or more, --replay 0 or more")
    for name in discard_partials(data):
        print(f"teach: discarded the unfinished model {name} (interrupted)", file=sys.stderr)
    mapping = tuple(parse_mapping(args.map).items())
    out = args.out or taught_dir(data) / new_name(data)
    active = active_model(data)
    os.nice(10)  # the game and the dashboard come first
    config = TeachConfig(
        prompted=args.prompted,
        out=out,
        dataset=args.dataset,
        mapping=mapping,
        base=args.base,
        before=active.faces_path if active is not None else None,
        epochs=args.epochs,
        copies=args.copies,
        replay=args.replay,
        threads=args.threads,
        cache=data / "cache",
        localiser_fit=args.localiser,
        localiser_minutes=args.localiser_minutes,
        command=shlex.join(["templecam", "teach", *sys.argv[2:]]),
    )
    reporter = _JsonProgress() if args.progress == "json" else _BarProgress()
    log = (lambda m: None) if args.progress == "json" else _stderr
    card = teach(config, log=log, progress=reporter)
    if args.progress == "json":
        print(json.dumps({"stage": "done", "model": str(out), "card": card}), flush=True)
    elif args.json:
        print(json.dumps(card, indent=1))
    else:
        _summary(card, out, args.out is None)
    return 0


def _stderr(message: str) -> None:
    """Log a line on stderr."""
    print(message, file=sys.stderr, flush=True)


class _JsonProgress:
    """Progress as JSON lines on stdout: stage, done, total, seconds left."""

    def __init__(self) -> None:
        self.started: dict[str, float] = {}
        self.last = 0.0

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        start = self.started.setdefault(stage, now)
        if done < total and now - self.last < 0.5:
            return
        self.last = now
        eta = (now - start) / done * (total - done) if done else None
        line = {"stage": stage, "done": done, "total": total, "eta_s": _round(eta)}
        print(json.dumps(line), flush=True)


class _BarProgress:
    """Progress as a bar with an ETA on stderr."""

    def __init__(self) -> None:
        self.started: dict[str, float] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        start = self.started.setdefault(stage, now)
        if stage != "fine-tune" or (done % 10 and done < total):
            return
        eta = (now - start) / max(done, 1) * (total - done)
        filled = round(28 * done / max(total, 1))
        text = (
            f"\rteach: [{'#' * filled}{'.' * (28 - filled)}] {done}/{total} steps, {eta:.0f} s left"
        )
        sys.stderr.write(text + ("\n" if done >= total else ""))
        sys.stderr.flush()


def _round(value: float | None) -> float | None:
    """Round seconds for a progress line."""
    return None if value is None else round(value, 1)


def _summary(card: dict[str, Any], out: Path, kept: bool) -> None:
    """Print what the run made and how it compares."""
    held = card["figures"]["held_back"]
    shipped = card["figures"]["shipped_look"]
    print(f"taught reader: {out}  ({card['seconds']:.0f} s)")
    print(f"  held-back photos: {_f(held['before'])} before, {_f(held['after'])} after")
    for face, after in held["per_face_after"].items():
        before = held["per_face_before"].get(face)
        print(f"    {face:12s} {_f(before)} -> {_f(after)}")
    print(f"  shipped look (rendered): {_f(shipped['before'])} -> {_f(shipped['after'])}")
    if card.get("localiser"):
        taught = card["localiser"]
        print(
            f"  localiser, dice found on held-back photos: {_f(taught['found_before'])} -> "
            f"{_f(taught['found_after'])}"
        )
    if not card["checks"]["passed"]:
        print("  checks FAILED: " + "; ".join(card["checks"]["problems"]))
        print("  the camera keeps its reader")
    elif kept:
        print(f"  use it: templecam teach --use {out.name}   (or Use this model on /dice)")
    else:
        print(f"  score it: templecam eval --data DATA.yaml --faces {out / 'faces.onnx'}")
