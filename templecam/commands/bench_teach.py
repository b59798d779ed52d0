"""`templecam bench teach`: die faces before and after teaching a look, and the time it takes."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from templecam.errors import UserError

_DESCRIPTION = """\
Render a user's prompted photos of dice of a look the shipped reader never trained on (cherry
wood, another maker's print colours, a low sun): --per-face photos a face and --empty of the
bare table. Score the shipped reader on --frames table frames of that look and of the shipped
look; teach it (labels, fine-tune, checks, switch to the new model) in a fresh data folder,
timing the whole path from photos to the active model; score the taught reader on the same
frames. Die faces are `templecam eval`'s figure at conf 0.3. Everything rendered is kept in
--work and reused by the next run (the rendered replay crops too: say so when comparing
times)."""


def register_teach(targets: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `teach` target to `templecam bench`."""
    parser = targets.add_parser(
        "teach",
        help="die faces on an unseen dice look before/after teaching, and the time to teach",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--work",
        type=Path,
        default=Path("bench-teach"),
        help="folder for the rendered photos and frames (default: %(default)s)",
    )
    parser.add_argument("--per-face", type=int, default=3, help="photos a face (default: 3)")
    parser.add_argument("--empty", type=int, default=2, help="photos of the table (default: 2)")
    parser.add_argument("--frames", type=int, default=60, help="frames a look (default: 60)")
    parser.add_argument("--epochs", type=int, default=6, help="fine-tune passes (default: 6)")
    parser.add_argument("--seed", type=int, default=21, help="seed (default: 21)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(run=run_teach)


def _stderr(message: str) -> None:
    """Log a line on stderr."""
    print(message, file=sys.stderr, flush=True)


def run_teach(args: argparse.Namespace) -> int:
    """Run `templecam bench teach`."""
    if min(args.per_face, args.frames, args.epochs) < 1 or args.empty < 0:
        raise UserError("--per-face, --frames and --epochs take 1 or more, --empty 0 or more")
    from templecam.extras import require_training

    require_training("bench teach")
    from models.teach_bench import TeachBenchPlan, run_teach_bench

    plan = TeachBenchPlan(args.work, args.per_face, args.empty, args.frames, args.seed, args.epochs)
    figures = run_teach_bench(plan, log=_stderr)
    if args.json:
        print(json.dumps(figures, indent=1))
        return 0
    before, after = figures["before"], figures["after"]
    print(
        f"teaching {args.per_face} photos a face + {args.empty} empty, {args.frames} frames a look"
    )
    print("| figure | shipped reader | taught reader |")
    print("|---|---|---|")
    for look, name in (("held_out", "unseen look"), ("shipped", "shipped look")):
        print(
            f"| die faces, {name} | {before[look]['die_faces']:.3f} | "
            f"{after[look]['die_faces']:.3f} |"
        )
        print(
            f"| false dice a frame, {name} | {before[look]['false_dice_per_frame']:.2f} | "
            f"{after[look]['false_dice_per_frame']:.2f} |"
        )
    cached = "cached" if figures["replay_was_cached"] else "rendered in this run"
    print(f"photos to active model: {figures['seconds_to_active_model']:.0f} s (replay {cached})")
    print(f"checks: {'passed' if figures['checks']['passed'] else figures['checks']['problems']}")
    return 0
