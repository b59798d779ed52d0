"""Reading game records (JSON Lines) and replaying them through the engine."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rules.engine import Game, Verdict
from rules.errors import RecordError
from rules.finite import UnfitJSONError, loads_finite


@dataclass(frozen=True)
class RecordLine:
    """One non-blank line of a game record: its line number and the JSON value it holds."""

    number: int
    value: Any


@dataclass
class Replay:
    """A replayed game: the events in order, the verdict on each, and the final game."""

    game: Game
    events: list[RecordLine]
    verdicts: list[Verdict]

    def to_json(self) -> dict[str, Any]:
        """Return verdicts and final state exactly as `templecam replay --json` prints them."""
        return {
            "verdicts": [verdict.to_json() for verdict in self.verdicts],
            "state": self.game.state_json(),
        }


def record_lines(text: str) -> list[str]:
    """Split a game record's text into its lines: at line feeds only (a U+2028, U+0085 or form
    feed inside a JSON string is part of the string, not the end of a line)."""
    return text.split("\n")


def parse_lines(lines: Iterable[str]) -> list[RecordLine]:
    """Parse JSON Lines, skipping blank lines; raise `RecordError` naming the first bad line
    (not JSON, a number JSON does not have: NaN, Infinity, 1e999, a number past Python's digit
    limit, a lone surrogate, a key named twice, or brackets nested deeper than
    `rules.finite.MAX_NESTING`)."""
    parsed: list[RecordLine] = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            parsed.append(RecordLine(number, loads_finite(text)))
        except json.JSONDecodeError as error:
            raise RecordError(f"line {number} is not valid JSON ({error.msg})") from None
        except UnfitJSONError as error:
            raise RecordError(f"line {number} is not valid JSON: {error}") from None
    return parsed


def replay_lines(lines: Iterable[str]) -> Replay:
    """Replay a game record given as lines of text; raise `RecordError` for a bad file."""
    parsed = parse_lines(lines)
    if not parsed:
        raise RecordError("the game record is empty: its first line must be the setup")
    first, events = parsed[0], parsed[1:]
    try:
        game = Game.from_setup_line(first.value)
    except RecordError as error:
        raise RecordError(f"line {first.number} is not a valid setup: {error}") from None
    verdicts = [game.apply(line.value, line.number) for line in events]
    return Replay(game, events, verdicts)
