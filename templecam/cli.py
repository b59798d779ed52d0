"""The `templecam` command: one entry point, one module per subcommand in `templecam.commands`."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from templecam import __version__
from templecam.errors import UserError

SUBCOMMANDS: tuple[str, ...] = (
    "serve",
    "replay",
    "soundtrack",
    "synth",
    "detect",
    "eval",
    "train",
    "export",
    "bench",
    "calibrate",
    "enroll",
    "capture",
    "dataset",
    "teach",
)
"""Subcommand modules under `templecam.commands`, each with `register(subparsers)`."""


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="templecam",
        description="A table-side assistant for Escape: The Curse of the Temple.",
    )
    parser.add_argument("--version", action="version", version=f"templecam {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in SUBCOMMANDS:
        importlib.import_module(f"templecam.commands.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (2 for a user mistake)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except UserError as error:
        print(f"templecam {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
