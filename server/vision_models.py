"""The models the camera's pipeline reads with: the detector (which one: `model_choice`) and the
enrolled-tile reader."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from server.vision_words import plain

if TYPE_CHECKING:
    from vision.perception.model_choice import TaughtModel


class VisionModels:
    """Opens the detector and the tile reader; one that does not open is a word, not an error."""

    def __init__(
        self, data_dir: Path, model: Path | None, localiser: str, problem: Callable[[str], None]
    ) -> None:
        """Open models for `data_dir` (`model`: `--model`; `localiser`: its settings); say
        what does not open through `problem`."""
        self.data_dir = data_dir
        self.model = model
        self.localiser = localiser
        self._problem = problem
        self.detector: Any = None
        """The detector the pipeline finds pieces with (None when no model opened)."""
        self.tile_reader: Any = None
        """The enrolled-tile reader the scene stage identifies tiles with (None before start)."""
        self.notes: list[str] = []
        """What the panel always says of the detector (the early baseline's note)."""

    def open_detector(self) -> list[str]:
        """Open the detector chosen for the data folder (a taught reader that no longer opens:
        the shipped one); return its notes for the panel."""
        from vision.perception.detector import ModelError
        from vision.perception.model_choice import choose_models, open_models

        choice = choose_models(self.data_dir, self.model)
        try:
            self.detector, note = open_models(choice, self.localiser)
            if note:
                self.notes = [note]
        except ModelError as error:
            if choice.taught is not None:  # a taught reader that no longer opens: the shipped
                self._problem(
                    f"the taught die reader of {choice.taught.created} does not open "
                    f"({plain(str(error), self.data_dir)}): the shipped reader reads the dice"
                )
                try:
                    self.detector, _ = open_models(choice.shipped_reader(), self.localiser)
                    return list(self.notes)
                except ModelError as again:
                    error = again
            self._problem(f"detector: {error}. The video is shown; enter events by hand")
        return list(self.notes)

    def use_faces(self, taught: TaughtModel | None) -> None:
        """Read dice with the taught model `taught` (None: the shipped reader) from now on.
        Raises ModelError, and nothing changes, when it does not open."""
        from vision.perception.model_choice import choose_models, open_models

        choice = choose_models(self.data_dir, self.model, taught)
        self.detector, _ = open_models(choice, self.localiser)

    def faces_file(self) -> str | None:
        """Return the path of the face reader the pipeline reads dice with (None: no reader)."""
        reader = getattr(self.detector, "faces", None)
        return str(reader.model_path) if reader is not None else None

    def faces_name(self) -> str | None:
        """Name the die reader in use: a taught model's name, "shipped", or None (none)."""
        from vision.perception.model_choice import reader_name

        return reader_name(self.faces_file(), self.data_dir)

    def load_tiles(self) -> None:
        """Read the enrolled tiles (the default ones when none are enrolled or they are damaged)."""
        from calibration.enrollment import EnrollmentError, TileLibrary, tiles_dir
        from vision.stages.tile_reader import EnrolledTileReader

        folder = tiles_dir(self.data_dir / "tiles")
        try:
            library = TileLibrary.load(folder) if folder.is_dir() else TileLibrary.default()
        except EnrollmentError as error:
            self._problem(f"enrolled tiles: {error}; using the default tiles")
            library = TileLibrary.default()
        self.tile_reader = EnrolledTileReader(library)

    def tiles_for(self, game: Any) -> Any:
        """The tile reader of the game's own tiles (its catalog: the modules it plays)."""
        if self.tile_reader is None or game is None:
            return self.tile_reader
        return self.tile_reader.for_game(game.catalog)
