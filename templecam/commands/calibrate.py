"""`templecam calibrate` (being built in this session; the real command replaces this file)."""

from __future__ import annotations

import argparse

from templecam.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `calibrate` subcommand."""
    parser = subparsers.add_parser("calibrate", help="(not built yet)")
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    raise UserError("templecam calibrate is not built yet")
