"""The taught models kept in the data folder, and which one the camera uses.

Every taught reader lives in `DATA/models/taught/NAME/` (`faces.onnx`, `faces.pt`, `card.json`,
`card.md`) and is never deleted by templecam. A run builds its model in `NAME.partial/` and
renames it when every file is written and checked, so a crash leaves either a whole model or a
`.partial` folder that the next run discards (and says so). `DATA/models/active.json` names the
model in use; none (or a missing file) means the shipped reader. Only a model whose card says
it passed its checks can become the active one.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from base.files import write_atomically
from teach.errors import TeachError

ACTIVE_FILE = "active.json"
ACTIVE_FORMAT = "templecam-active-models/1"
CARD_FILE = "card.json"
FACES_FILE = "faces.onnx"
LOCALISER_FILE = "localiser/localiser.onnx"
"""A taught localiser, when the run taught one (`models.teach_localiser`)."""
PARTIAL = ".partial"
SHIPPED = "shipped"
"""The name that stands for the shipped models in `use_model` and on the page."""


def taught_dir(data: Path) -> Path:
    """Return the folder of taught models inside the data folder."""
    return Path(data) / "models" / "taught"


def new_name(data: Path) -> str:
    """Return a fresh model name: the date and time, made unique."""
    stem = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    name, n = stem, 1
    while (taught_dir(data) / name).exists() or (taught_dir(data) / f"{name}{PARTIAL}").exists():
        n += 1
        name = f"{stem}-{n}"
    return name


@dataclass(frozen=True)
class TaughtModel:
    """One taught reader in the data folder, with its card."""

    name: str
    folder: Path
    card: dict[str, Any]

    @property
    def faces_path(self) -> Path:
        """Return the reader's ONNX file."""
        return self.folder / FACES_FILE

    @property
    def localiser_path(self) -> Path | None:
        """Return the taught localiser's ONNX file, when this model has one."""
        path = self.folder / LOCALISER_FILE
        return path if path.is_file() else None

    @property
    def passed(self) -> bool:
        """Return whether the model passed the checks that let it become active."""
        return bool(self.card.get("checks", {}).get("passed"))

    def summary(self) -> dict[str, Any]:
        """Return what the page lists of the model."""
        return {
            "name": self.name,
            "created": self.card.get("created"),
            "passed": self.passed,
            "problems": self.card.get("checks", {}).get("problems", []),
            "captures": self.card.get("captures", {}),
            "figures": self.card.get("figures", {}),
        }


def read_model(folder: Path) -> TaughtModel:
    """Return the taught model in `folder`, or raise `TeachError` when it is not whole."""
    card_path = folder / CARD_FILE
    try:
        card = json.loads(card_path.read_text("utf-8"))
    except (OSError, ValueError) as error:
        raise TeachError(f"{folder.name}: its card cannot be read ({error})") from None
    if not (folder / FACES_FILE).is_file():
        raise TeachError(f"{folder.name}: {FACES_FILE} is missing")
    return TaughtModel(folder.name, folder, card)


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


def active_name(data: Path) -> str | None:
    """Return the name of the taught model in use, or None for the shipped one."""
    path = Path(data) / "models" / ACTIVE_FILE
    try:
        record = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    name = record.get("faces") if isinstance(record, dict) else None
    return name if isinstance(name, str) and name else None


def active_model(data: Path) -> TaughtModel | None:
    """Return the taught model in use (None: the shipped one, or the named one is gone)."""
    name = active_name(data)
    if name is None:
        return None
    try:
        model = read_model(taught_dir(data) / name)
    except TeachError:
        return None
    return model if model.passed else None


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
    write_atomically(
        Path(data) / "models" / ACTIVE_FILE, (json.dumps(record, indent=1) + "\n").encode()
    )
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
