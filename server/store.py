"""Saved games on disk: one game record (JSON Lines) and one small metadata file per game."""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from base.files import write_atomically

log = logging.getLogger(__name__)

GAME_ID_PATTERN = re.compile(r"^\d{8}-\d{6}-[0-9a-f]{4}$")
TAIL_CHUNK = 4096
"""Bytes read at a time, backwards, looking for the start of a record's last line."""


class SaveFailed(Exception):  # noqa: N818 - reads as "save failed", like the message
    """The disk refused a write; nothing of it was kept. `disk_full` tells a full disk apart."""

    def __init__(self, what: str, error: OSError) -> None:
        self.disk_full = error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
        if self.disk_full:
            message = f"the disk is full: {what} could not be saved; free some space and try again"
        else:
            reason = error.strerror or type(error).__name__
            message = f"{what} could not be saved ({reason}); check the data folder's disk"
        super().__init__(message)


class UnknownGame(LookupError):  # noqa: N818 - reads as "unknown game", like KeyError
    """No saved game has this id (or the id is not one the store could have made)."""


@dataclass(frozen=True)
class SavedGame:
    """A game in the store, as the list of past games shows it."""

    game_id: str
    created: float
    players: list[str]
    lines: int


class GameStore:
    """The folder of saved games: `<id>.jsonl` (the record) and `<id>.meta.json` beside it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)

    def _path(self, game_id: str, suffix: str) -> Path:
        if not isinstance(game_id, str) or not GAME_ID_PATTERN.match(game_id):
            raise UnknownGame(f"{game_id!r} is not a game id")
        return self.root / f"{game_id}{suffix}"

    def record_path(self, game_id: str) -> Path:
        """Return the path of a game's record, for an id the store could have made."""
        return self._path(game_id, ".jsonl")

    def create(self, setup_line: dict[str, Any], meta: dict[str, Any]) -> str:
        """Save a new game with its setup line; return its id. Raises `SaveFailed` (and keeps
        nothing of the new game) when the disk refuses."""
        while True:
            game_id = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)
            if not self.record_path(game_id).exists():
                break
        record = self.record_path(game_id)
        try:
            write_atomically(record, json.dumps(setup_line) + "\n", durable=True)
            self.write_meta(game_id, meta)
        except (OSError, SaveFailed) as error:
            record.unlink(missing_ok=True)
            self._path(game_id, ".meta.json").unlink(missing_ok=True)
            if isinstance(error, SaveFailed):
                raise
            raise SaveFailed("the new game", error) from None
        return game_id

    def start_over(self, game_id: str, setup_line: dict[str, Any]) -> None:
        """Put a game's record back to its setup line alone, atomically (the demo's loop: one
        saved game, not one a loop). Raises `SaveFailed` (the record kept) when the disk refuses."""
        try:
            write_atomically(self.record_path(game_id), json.dumps(setup_line) + "\n", durable=True)
        except OSError as error:
            raise SaveFailed("the game started over", error) from None

    def append(self, game_id: str, line: dict[str, Any]) -> None:
        """Append one event line and flush it to disk before returning.

        A last line left without its newline by a crash is mended first (see `_mend_tail`),
        so the new line always starts on a line of its own. When the disk refuses the write
        (full, or failing), the record is cut back to what it was and `SaveFailed` is raised:
        a line is on disk whole, or not at all.
        """
        # allow_nan=False: a record holds JSON only (no NaN or Infinity), or nothing is written
        data = (json.dumps(line, allow_nan=False) + "\n").encode("utf-8")
        path = self.record_path(game_id)
        # Unbuffered: a failed write leaves no bytes in a buffer for close() to write later.
        with path.open("a+b", buffering=0) as file:
            try:
                _mend_tail(file, game_id)
            except OSError as error:
                raise SaveFailed("the event", error) from None
            start = file.seek(0, os.SEEK_END)
            try:
                view = memoryview(data)
                while view:
                    view = view[file.write(view) :]
                os.fsync(file.fileno())
            except OSError as error:
                _cut_back(file, start, game_id)
                raise SaveFailed("the event", error) from None

    def read_lines(self, game_id: str) -> list[str]:
        """Return the record's lines, without a last line cut short by a crash mid-write."""
        path = self.record_path(game_id)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise UnknownGame(f"there is no saved game {game_id}") from None
        lines = text.split("\n")
        if lines and lines[-1].strip():
            try:
                json.loads(lines[-1])
            except json.JSONDecodeError:
                log.warning("%s: dropping a last line cut short by a crash", path.name)
                lines = lines[:-1]
        return [line for line in lines if line.strip()]

    def write_meta(self, game_id: str, meta: dict[str, Any]) -> None:
        """Replace the game's metadata (clock, audio choice) atomically; raise `SaveFailed`
        (the old metadata kept) when the disk refuses."""
        try:
            write_atomically(
                self._path(game_id, ".meta.json"), json.dumps(meta, indent=1), durable=True
            )
        except OSError as error:
            raise SaveFailed("the game's clock", error) from None

    def read_meta(self, game_id: str) -> dict[str, Any]:
        """Return the game's metadata, or {} when it is missing or unreadable."""
        try:
            data = json.loads(self._path(game_id, ".meta.json").read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return {}
        return data if isinstance(data, dict) else {}

    def list_games(self) -> list[SavedGame]:
        """Return the saved games, newest first."""
        games = []
        for path in self.root.glob("*.jsonl"):
            game_id = path.stem
            if not GAME_ID_PATTERN.match(game_id):
                continue
            lines = self.read_lines(game_id)
            try:
                players = json.loads(lines[0]).get("players", []) if lines else []
            except (json.JSONDecodeError, AttributeError):
                players = []
            meta = self.read_meta(game_id)
            games.append(
                SavedGame(game_id, float(meta.get("created", 0.0)), list(players), len(lines))
            )
        return sorted(games, key=lambda g: g.game_id, reverse=True)


def _mend_tail(file: BinaryIO, game_id: str) -> None:
    """End the record on a newline: a complete last line gets one, a torn one is cut off.

    A line is complete when it parses as JSON (a cut JSON object never does); only the bytes
    after the last newline can be torn, so no complete line is ever lost.
    """
    size = file.seek(0, os.SEEK_END)
    if size == 0:
        return
    file.seek(size - 1)
    if file.read(1) == b"\n":
        return
    start = _last_line_start(file, size)
    file.seek(start)
    tail = file.read(size - start)
    try:
        json.loads(tail.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        file.truncate(start)
        log.warning(
            "game %s: cut off a last line torn by a crash (%d bytes dropped)",
            game_id,
            size - start,
        )
    else:
        file.write(b"\n")  # the file is opened for appending: this goes at its end
        log.warning("game %s: its last line lacked a newline; added one", game_id)


def _cut_back(file: BinaryIO, size: int, game_id: str) -> None:
    """Cut the record back to `size` bytes after a failed append (freeing, never writing)."""
    try:
        file.truncate(size)
    except OSError:  # the torn bytes are cut off by `_mend_tail` or `read_lines` next time
        log.exception("game %s: could not cut back a failed write", game_id)


def _last_line_start(file: BinaryIO, size: int) -> int:
    """Return the offset just after the file's last newline (0 when it has none)."""
    end = size
    while end > 0:
        begin = max(0, end - TAIL_CHUNK)
        file.seek(begin)
        found = file.read(end - begin).rfind(b"\n")
        if found >= 0:
            return begin + found + 1
        end = begin
    return 0
