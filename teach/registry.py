"""The taught models kept in the data folder, and which one the camera uses.

Every taught reader lives in `DATA/models/taught/NAME/` (`faces.onnx`, `faces.pt`, `card.json`,
`card.md`) and is never deleted by templecam. A run builds its model in `NAME.partial/` and
renames it when every file is written and checked, so a crash leaves either a whole model or a
`.partial` folder that the next run discards (and says so). `DATA/models/active.json` names the
model in use; none (or a missing file) means the shipped reader. Only a model whose card says
it passed its checks can become the active one. Which models then run is decided in
`vision.perception.model_choice`, which reads the taught models for the run time; this module writes
them.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

from base.files import write_atomically
from teach.errors import TeachError
from vision.perception.model_choice import (
    ACTIVE_FILE,
    CARD_FILE,
    FACES_FILE,
    LOCALISER_FILE,
    SHIPPED,
    TaughtModel,
    active_file,
    active_model,
    active_name,
    load_taught,
    taught_dir,
)

ACTIVE_FORMAT = "templecam-active-models/1"
PARTIAL = ".partial"

__all__ = [
    "ACTIVE_FILE",
    "CARD_FILE",
    "FACES_FILE",
    "LOCALISER_FILE",
    "PARTIAL",
    "SHIPPED",
    "TaughtModel",
    "active_model",
    "active_name",
    "discard_partials",
    "list_models",
    "new_name",
    "publish",
    "read_model",
    "taught_dir",
    "use_model",
]


def new_name(data: Path) -> str:
    """Return a fresh model name: the date and time, made unique."""
    stem = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    name, n = stem, 1
    while (taught_dir(data) / name).exists() or (taught_dir(data) / f"{name}{PARTIAL}").exists():
        n += 1
        name = f"{stem}-{n}"
    return name


def read_model(folder: Path) -> TaughtModel:
    """Return the taught model in `folder`, or raise `TeachError` when it is not whole."""
    try:
        return load_taught(folder)
    except ValueError as error:
        raise TeachError(str(error)) from None


def list_models(data: Path) -> list[TaughtModel]:
    """Return the whole taught models, newest first (damaged folders are left out)."""
    root = taught_dir(data)
    if not root.is_dir():
        return []
    out = []
    for folder in sorted(root.iterdir(), reverse=True):
        if folder.is_dir() and not folder.name.endswith(PARTIAL):
            try:
                out.append(read_model(folder))
            except TeachError:
                continue
    return out


def discard_partials(data: Path) -> list[str]:
    """Delete runs that never finished (crash, Ctrl-C); return their names, for a message."""
    root = taught_dir(data)
    if not root.is_dir():
        return []
    gone = []
    for folder in root.iterdir():
        if folder.is_dir() and folder.name.endswith(PARTIAL):
            shutil.rmtree(folder, ignore_errors=True)
            gone.append(folder.name.removesuffix(PARTIAL))
    return sorted(gone)


def use_model(data: Path, name: str) -> TaughtModel | None:
    """Make `name` (or `shipped`) the model in use; return it (None for the shipped one)."""
    model = None
    if name != SHIPPED:
        folder = taught_dir(data) / name
        if not folder.is_dir():
            known = ", ".join(m.name for m in list_models(data)) or "none yet"
            raise TeachError(f"no taught model {name!r} (taught models: {known}; or {SHIPPED})")
        model = read_model(folder)
        if not model.passed:
            problems = "; ".join(model.card.get("checks", {}).get("problems", [])) or "unchecked"
            raise TeachError(f"{name} failed its checks ({problems}): it cannot be used")
    record = {
        "format": ACTIVE_FORMAT,
        "faces": None if model is None else model.name,
        "since": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    write_atomically(active_file(data), (json.dumps(record, indent=1) + "\n").encode())
    return model


def publish(staging: Path) -> Path:
    """Turn a finished `NAME.partial` folder into the model `NAME`; return its folder."""
    if not staging.name.endswith(PARTIAL):
        raise ValueError(f"{staging} is no staging folder")
    final = staging.with_name(staging.name.removesuffix(PARTIAL))
    if final.exists():
        raise TeachError(f"{final} exists already: give another name")
    staging.rename(final)
    return final
