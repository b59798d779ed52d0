"""Where templecam keeps the user's data (never inside the installed package)."""

from __future__ import annotations

import os
from pathlib import Path

DATA_ENV = "TEMPLECAM_DATA"


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """Return the per-user data folder: `override`, `$TEMPLECAM_DATA`, or the XDG default."""
    if override:
        return Path(override).expanduser()
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV]).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(xdg) / "templecam"


def within(path: Path, root: Path) -> bool:
    """Tell whether `path`, with every symbolic link followed, lies inside `root` (a link that
    leads out of the data folder is never followed)."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a link loop, or a folder that cannot be read
        return False
