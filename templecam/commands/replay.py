"""`templecam replay FILE`: check a saved game record against the rules and show the result."""

from __future__ import annotations

import argparse
import json
import stat
from pathlib import Path

from rules.errors import RecordError
from rules.narrative import describe_event, describe_state
from rules.record import Replay, record_lines, replay_lines
from templecam.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `replay` subcommand."""
    parser = subparsers.add_parser(
        "replay",
        help="replay a game record and judge every event",
        description=(
            "Replay a game record (JSON Lines: a setup line, then one event a line) through the "
            "rules engine. Prints each event with the engine's verdict and the final state; "
            "--json prints {verdicts, state} as the game-record contract defines."
        ),
    )
    parser.add_argument("file", type=Path, metavar="FILE", help="the game record (.jsonl)")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.set_defaults(run=run)


MAX_RECORD_BYTES = 256 * 1024 * 1024
"""The largest game record `replay` reads (a ten-minute game is a few hundred kilobytes)."""
MAX_LINE_BYTES = 1024 * 1024
"""The longest line `replay` reads (a real event line is under a kilobyte)."""


def load_replay(path: Path) -> Replay:
    """Read and replay a game record file; raise `UserError` when it cannot be read.

    Only a regular file is read (never a device such as /dev/zero, a FIFO or a socket, which
    could be endless or block), and only up to `MAX_RECORD_BYTES`, with lines of at most
    `MAX_LINE_BYTES`.
    """
    try:
        info = path.stat()
    except FileNotFoundError:
        raise UserError(f"{path}: no such file; give the path of a game record (.jsonl)") from None
    except OSError as error:
        raise UserError(f"{path}: cannot read it ({error.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise UserError(f"{path} is a folder; give the path of a game record file")
    if not stat.S_ISREG(info.st_mode):
        raise UserError(
            f"{path} is not a regular file (a device, a pipe or a socket); "
            "give the path of a game record file (.jsonl)"
        )
    if info.st_size > MAX_RECORD_BYTES:
        raise UserError(
            f"{path} is {info.st_size // (1024 * 1024)} MiB: a game record is far smaller "
            f"(at most {MAX_RECORD_BYTES // (1024 * 1024)} MiB is read)"
        )
    try:
        text = _read_text(path)
    except UnicodeDecodeError:
        raise UserError(f"{path} is not a UTF-8 text file; a game record is JSON Lines") from None
    except OSError as error:
        raise UserError(f"{path}: cannot read it ({error.strerror})") from None
    try:
        return replay_lines(record_lines(text))
    except RecordError as error:
        raise UserError(f"{path}: {error}") from None


def _read_text(path: Path) -> str:
    """Read a record's text with bounded memory; raise `UserError` for a line too long."""
    lines: list[str] = []
    with path.open("rb") as file:
        number = 0
        while True:
            raw = file.readline(MAX_LINE_BYTES + 1)
            if not raw:
                break
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                raise UserError(
                    f"{path}: line {number} is longer than {MAX_LINE_BYTES // 1024} KiB; "
                    "a game-record line is one event of under a kilobyte"
                )
            lines.append(raw.decode("utf-8"))
    return "".join(lines)


def run(args: argparse.Namespace) -> int:
    """Replay the file and print the verdicts and the final state."""
    result = load_replay(args.file)
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    for line, verdict in zip(result.events, result.verdicts, strict=True):
        clock = line.value.get("t") if isinstance(line.value, dict) else None
        stamp = f"{clock:7.1f}s" if isinstance(clock, int | float) else "        "
        mark = "ok" if verdict.ok else f"REJECTED: {verdict.reason}"
        print(f"line {line.number:>4} {stamp}  {describe_event(line.value)}  -> {mark}")
    rejected = sum(not v.ok for v in result.verdicts)
    print(f"\n{len(result.verdicts)} events, {rejected} rejected")
    print("\n".join(describe_state(result.game)))
    return 0
