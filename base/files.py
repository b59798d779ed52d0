"""Writing files whole or not at all, for every room that saves something."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomically(path: Path, data: bytes | str, *, durable: bool = False) -> None:
    """Write `data` to `path` so readers see the old file or the new one, never half of it.

    The bytes go to a temporary file beside `path`, which then replaces it. `durable` also
    flushes them to the disk first (for what must survive a power cut, like a game record).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("wb") as file:  # open() honours the umask, unlike mkstemp's 0600
            file.write(payload)
            if durable:
                file.flush()
                os.fsync(file.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
