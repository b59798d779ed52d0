"""Which localiser and face reader run now: decided here, once, for the dashboard and the commands.

The models in use are the shipped ones (`vision.perception.shipped`) unless the data folder names a
taught model that passed its checks (`DATA/models/active.json`, written by
`teach.registry.use_model`): then its face reader reads the dice, and its own taught localiser finds
them when the run taught one. A `--model` given on the command line finds the dice whatever was
taught.

    choice = choose_models(data_dir, explicit)   # what should run
    detector, note = open_models(choice, "scale=0.75")
    reader_name(detector.faces.model_path, data_dir)   # "shipped" or the taught model's name

This module reads the taught models (`TaughtModel`, `active_model`); `teach.registry` writes
them (publishing, choosing, discarding) and reads them through here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vision.perception.shipped import running_copy

if TYPE_CHECKING:
    from vision.perception.localiser import LocaliserSettings
    from vision.perception.table_detector import TableDetector

ACTIVE_FILE = "active.json"
"""The file in `DATA/models/` that names the taught model in use."""
CARD_FILE = "card.json"
FACES_FILE = "faces.onnx"
FACES_INT8_FILE = "faces-int8.onnx"
"""The taught reader's int8 copy (`models.faces_int8`), what runs when it is there."""
LOCALISER_FILE = "localiser/localiser.onnx"
"""A taught localiser, when the run taught one (`models.teach_localiser`)."""
SHIPPED = "shipped"
"""The name that stands for the shipped models (in `use_model`, on the page, in the state)."""


def taught_dir(data: Path) -> Path:
    """Return the folder of taught models inside the data folder."""
    return Path(data) / "models" / "taught"


def active_file(data: Path) -> Path:
    """Return the file that names the taught model in use."""
    return Path(data) / "models" / ACTIVE_FILE


@dataclass(frozen=True)
class TaughtModel:
    """One taught reader in the data folder, with its card."""

    name: str
    folder: Path
    card: dict[str, Any]

    @property
    def faces_path(self) -> Path:
        """Return the reader's ONNX file that runs: its int8 copy when there is one (models
        taught before 2026-12-06 have none), else the reader itself."""
        return running_copy(self.folder / FACES_FILE, self.folder / FACES_INT8_FILE)

    @property
    def localiser_path(self) -> Path | None:
        """Return the taught localiser's ONNX file, when this model has one."""
        path = self.folder / LOCALISER_FILE
        return path if path.is_file() else None

    @property
    def passed(self) -> bool:
        """Return whether the model passed the checks that let it become active."""
        return bool(self.card.get("checks", {}).get("passed"))

    @property
    def created(self) -> str:
        """Return when it was taught, as its card says (else its name)."""
        return str(self.card.get("created") or self.name)

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


def load_taught(folder: Path) -> TaughtModel:
    """Return the taught model in `folder`; ValueError, saying why, when it is not whole."""
    try:
        card = json.loads((folder / CARD_FILE).read_text("utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"{folder.name}: its card cannot be read ({error})") from None
    if not isinstance(card, dict):
        raise ValueError(f"{folder.name}: its card is not a JSON object")
    if not (folder / FACES_FILE).is_file():
        raise ValueError(f"{folder.name}: {FACES_FILE} is missing")
    return TaughtModel(folder.name, folder, card)


def active_name(data: Path) -> str | None:
    """Return the name of the taught model in use, or None for the shipped one."""
    try:
        record = json.loads(active_file(data).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    name = record.get("faces") if isinstance(record, dict) else None
    return name if isinstance(name, str) and name else None


def active_model(data: Path) -> TaughtModel | None:
    """Return the taught model in use (None: the shipped one, or the named one is gone or did
    not pass its checks)."""
    name = active_name(data)
    if name is None:
        return None
    try:
        model = load_taught(taught_dir(data) / name)
    except ValueError:
        return None
    return model if model.passed else None


@dataclass(frozen=True)
class ModelChoice:
    """Which localiser and face reader run: the shipped ones, a taught model's, a `--model`."""

    explicit: Path | None = None
    """The localiser (or YOLO detector) given on the command line; it wins over any taught."""
    taught: TaughtModel | None = None
    """The taught model in use (None: the shipped reader)."""

    @property
    def localiser(self) -> Path | None:
        """Return the localiser file to open (None: the shipped one)."""
        if self.explicit is not None or self.taught is None:
            return self.explicit
        return self.taught.localiser_path

    @property
    def faces(self) -> Path | None:
        """Return the face reader file to open (None: the shipped one)."""
        return self.taught.faces_path if self.taught is not None else None

    @property
    def name(self) -> str:
        """Return the reader's name: "shipped" or the taught model's."""
        return self.taught.name if self.taught is not None else SHIPPED

    def shipped_reader(self) -> ModelChoice:
        """Return the same choice with the shipped reader (and localiser, unless `--model`)."""
        return ModelChoice(self.explicit, None)


_ACTIVE: Any = object()
"""`choose_models`' default: the taught model the data folder names."""


def choose_models(
    data: Path, explicit: Path | None = None, taught: TaughtModel | None = _ACTIVE
) -> ModelChoice:
    """Return which models run now: `explicit` (`--model`) finds the dice when given; the
    taught model `taught` (by default the one in use in `data`; None: the shipped) reads them
    and, unless `explicit`, brings its own localiser when it has one."""
    chosen = active_model(data) if taught is _ACTIVE else taught
    return ModelChoice(None if explicit is None else Path(explicit), chosen)


def open_models(
    choice: ModelChoice, settings: str | LocaliserSettings = ""
) -> tuple[TableDetector, str | None]:
    """Open the chosen models (`vision.perception.models.live_detector`): the detector and a note
    when it is the early baseline. ModelError when one does not open."""
    from vision.perception.models import live_detector

    return live_detector(choice.localiser, choice.faces, settings)


def reader_name(faces_file: str | Path | None, data: Path) -> str | None:
    """Name the face reader at `faces_file`: a taught model's name, "shipped", or None (no
    reader runs)."""
    if faces_file is None:
        return None
    folder = Path(faces_file).resolve().parent
    return folder.name if folder.parent == taught_dir(data).resolve() else SHIPPED
