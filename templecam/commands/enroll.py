"""`templecam enroll` (being built in this session; the real command replaces this file)."""

from __future__ import annotations

import argparse

from templecam.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `enroll` subcommand."""
    parser = subparsers.add_parser("enroll", help="(not built yet)")
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    raise UserError("templecam enroll is not built yet")
