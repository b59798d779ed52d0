"""`templecam bench ...`: measure speed on this machine and print medians."""

from __future__ import annotations

import argparse
import json

from rules.benchmark import run_rules_benchmark
from rules.game_setup import KNOWN_MODULES
from rules.modules_registry import MODULES
from templecam.commands.bench_events import register_events
from templecam.commands.bench_robustness import register_robustness
from templecam.commands.bench_soak import register_soak
from templecam.commands.bench_teach import register_teach
from templecam.commands.bench_vision import register_vision
from templecam.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `bench` subcommand and its targets."""
    parser = subparsers.add_parser(
        "bench",
        help="measure speed (medians) on this machine",
        description=(
            "Run a benchmark and print its medians. Targets: rules, vision, events, robustness, "
            "soak, teach, tiles."
        ),
    )
    targets = parser.add_subparsers(dest="target", metavar="TARGET", required=True)
    rules = targets.add_parser(
        "rules",
        help="replay a long generated game; time all players' open actions on a 25-tile temple",
        description=(
            "Replays a long generated five-player game (a tenth of its events nonsense that must "
            "be rejected) and reports events per second; then times the open actions of six "
            "players on a full 5x5 temple, with the odds caches cold and warm."
        ),
    )
    rules.add_argument("--events", type=int, default=20000, help="events in the game (20000)")
    rules.add_argument("--repeats", type=int, default=5, help="repeats for the medians (5)")
    rules.add_argument("--seed", type=int, default=1, help="seed of the generated game (1)")
    rules.add_argument(
        "--modules",
        default="",
        help="modules in play, comma-separated (e.g. curses,treasures or pit,maze), or 'all' "
        "for every module (default none)",
    )
    rules.add_argument("--json", action="store_true", help="print the figures as JSON")
    rules.set_defaults(run=run_rules)
    register_vision(targets)
    register_events(targets)
    register_robustness(targets)
    register_soak(targets)
    register_teach(targets)
    tiles = targets.add_parser(
        "tiles",
        help="time the recognition of enrolled tiles in temple cells",
        description=(
            "Lays every enrolled tile (the default art unless you enrolled your own) in a cell "
            "picture at a random quarter turn, identifies it, and reports the median time and how "
            "many were right."
        ),
    )
    tiles.add_argument("--repeats", type=int, default=3, help="rounds over all tiles (3)")
    tiles.add_argument("--json", action="store_true", help="print the figures as JSON")
    tiles.set_defaults(run=run_tiles)


def run_tiles(args: argparse.Namespace) -> int:
    """Time tile identification and print its figures."""
    from calibration.enrollment import EnrollmentError, TileLibrary, tiles_dir
    from calibration.tile_bench import bench_identify

    if args.repeats < 1:
        raise UserError("--repeats must be at least 1")
    folder = tiles_dir()
    try:
        library = TileLibrary.load(folder) if folder.is_dir() else TileLibrary.default()
    except EnrollmentError as error:
        raise UserError(str(error)) from None
    figures = bench_identify(library, repeats=args.repeats)
    print(json.dumps(figures) if args.json else "\n".join(f"{k}: {v}" for k, v in figures.items()))
    return 0


def run_rules(args: argparse.Namespace) -> int:
    """Run the rules benchmark and print its figures."""
    if args.events < 1 or args.repeats < 1:
        raise UserError("--events and --repeats must be at least 1")
    chosen = [m for m in args.modules.split(",") if m]
    modules = KNOWN_MODULES if chosen == ["all"] else tuple(chosen)
    unknown = [m for m in modules if m not in KNOWN_MODULES]
    if unknown:
        raise UserError(
            f"unknown module {unknown[0]!r} (this version plays: {', '.join(KNOWN_MODULES)}; "
            "or 'all')"
        )
    missing = sorted({r for m in modules for r in MODULES[m].requires} - set(modules))
    if missing:
        raise UserError(
            f"{', '.join(m for m in modules if set(MODULES[m].requires) - set(modules))} "
            f"need {', '.join(missing)}: add them to --modules"
        )
    if not args.json:
        with_modules = f", modules {', '.join(modules)}" if modules else ""
        print(
            f"bench rules: {args.events} events, {args.repeats} repeats, seed {args.seed}"
            f"{with_modules}"
        )
    result = run_rules_benchmark(args.events, args.repeats, args.seed, modules)
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    module_events = f", {result.module_events} of the modules" if modules else ""
    print(
        f"replay: {result.events} events ({result.rejected_share:.0%} rejected{module_events}), "
        f"median {result.events_per_second:,.0f} events/s"
    )
    print(
        f"open actions, {result.players} players on a {result.temple_tiles}-tile temple: "
        f"median {result.open_actions_ms_warm:.3f} ms (odds cached), "
        f"{result.open_actions_ms_cold:.1f} ms (odds cold)"
    )
    return 0
