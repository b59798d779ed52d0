"""The enrolled-tile library: each tile's canonical picture, its features and its properties."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from art.tiles import tile_back_texture, tile_texture
from base.files import write_atomically
from base.paths import data_dir
from calibration.tile_features import CANONICAL_PX, Features, describe, thumbnail
from rules.catalog import TileDef, parse_tile
from rules.errors import RecordError
from rules.every_tile import every_tile

FORMAT = "templecam-tiles/1"
LIBRARY_FILE = "library.json"
BACK = "back"
"""The id under which the (common) back of the tiles is enrolled and recognised."""

ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]+$")
_ABOUT = (
    "Enrolled chamber tiles: only those that differ from the packaged catalog (templecam's "
    "rules/data/basic_tiles.json) are listed. Each entry is a tile definition as in a game "
    "record's setup line (doors in the tile's own frame, stairway facing S; fields left out "
    "keep the packaged value) plus 'image': the PNG beside this file showing the tile top-down "
    "with its stairway at the bottom, or null for the packaged art. Edit with `templecam enroll "
    "edit` or by hand; `templecam enroll reset` restores the packaged tiles."
)


class EnrollmentError(Exception):
    """An enrolled-tile library or request that cannot be used; the message says what to do."""


def tiles_dir(override: str | Path | None = None) -> Path:
    """Return the folder that holds the user's enrolled tiles (`data_dir()/tiles`)."""
    return Path(override) if override else data_dir() / "tiles"


def canonical(image_bgr: np.ndarray) -> np.ndarray:
    """Return a tile picture as a CANONICAL_PX square, 8-bit BGR."""
    if image_bgr.ndim == 2:
        image_bgr = cv2.cvtColor(image_bgr, cv2.COLOR_GRAY2BGR)
    elif image_bgr.shape[2] == 4:
        image_bgr = cv2.cvtColor(image_bgr, cv2.COLOR_BGRA2BGR)
    if image_bgr.dtype != np.uint8:
        image_bgr = np.clip(np.asarray(image_bgr, np.float32) * 255 + 0.5, 0, 255).astype(np.uint8)
    if image_bgr.shape[:2] != (CANONICAL_PX, CANONICAL_PX):
        shrink = image_bgr.shape[0] > CANONICAL_PX
        interpolation = cv2.INTER_AREA if shrink else cv2.INTER_CUBIC
        image_bgr = cv2.resize(image_bgr, (CANONICAL_PX, CANONICAL_PX), interpolation=interpolation)
    return np.ascontiguousarray(image_bgr)


@dataclass
class Appearance:
    """What one tile face looks like: a top-down square picture, stairway at the bottom."""

    image: np.ndarray
    """CANONICAL_PX square, 8-bit BGR, in the tile's own frame (north up)."""
    photo: bool = False
    """True for the user's own picture; False for the packaged default art."""
    enrolled: str = ""
    """When the user's picture was enrolled (ISO 8601), empty for the default art."""
    _features: Features | None = field(default=None, init=False, repr=False, compare=False)
    _thumb: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def features(self) -> Features:
        """Return the picture's ORB features, computed once."""
        if self._features is None:
            self._features = describe(self.image)
        return self._features

    @property
    def thumb(self) -> np.ndarray:
        """Return the picture's normalised thumbnail, computed once."""
        if self._thumb is None:
            self._thumb = thumbnail(self.image)
        return self._thumb


@dataclass
class EnrolledTile:
    """One enrolled tile: its properties (a rules tile definition) and its appearance."""

    definition: TileDef
    appearance: Appearance

    @property
    def tile_id(self) -> str:
        """Return the tile's id."""
        return self.definition.tile_id


@cache
def _default_art(tile: TileDef) -> np.ndarray:
    image = canonical(cv2.cvtColor(tile_texture(tile, CANONICAL_PX), cv2.COLOR_RGB2BGR))
    image.setflags(write=False)  # shared by every default library
    return image


@cache
def _default_back() -> np.ndarray:
    image = canonical(cv2.cvtColor(tile_back_texture(CANONICAL_PX), cv2.COLOR_RGB2BGR))
    image.setflags(write=False)
    return image


def default_appearance(tile_id: str) -> Appearance:
    """Return the packaged art of a tile of any module (or of the tile back, id `back`)."""
    if tile_id == BACK:
        return Appearance(_default_back())
    catalog = every_tile()
    if tile_id not in catalog:
        raise EnrollmentError(f"tile {tile_id!r} has no packaged art: enroll a picture of it")
    return Appearance(_default_art(catalog[tile_id]))


class TileLibrary:
    """The enrolled tiles by id, plus the tile back; what `identify` matches against."""

    def __init__(self, tiles: Iterable[EnrolledTile], back: Appearance | None = None) -> None:
        """Hold `tiles` (in order) and the back's appearance (None: backs are not recognised)."""
        self.tiles: dict[str, EnrolledTile] = {t.tile_id: t for t in tiles}
        self.back = back

    # ----- building --------------------------------------------------------------------------

    @classmethod
    def default(cls) -> TileLibrary:
        """Return every module's packaged tiles with the renderer's art (nothing enrolled yet)."""
        tiles = [EnrolledTile(t, default_appearance(i)) for i, t in every_tile().items()]
        return cls(tiles, default_appearance(BACK))

    def ids(self) -> list[str]:
        """Return the enrolled tile ids in library order."""
        return list(self.tiles)

    def __contains__(self, tile_id: object) -> bool:
        return tile_id in self.tiles

    def __len__(self) -> int:
        return len(self.tiles)

    def __iter__(self) -> Iterator[EnrolledTile]:
        return iter(self.tiles.values())

    def tile(self, tile_id: str) -> EnrolledTile:
        """Return one enrolled tile; EnrollmentError naming the known ids when there is none."""
        if tile_id not in self.tiles:
            raise EnrollmentError(
                f"no tile {tile_id!r} is enrolled; known tiles: {', '.join(self.tiles)}"
                " (add a new one with `templecam enroll add ID --new --image PHOTO`)"
            )
        return self.tiles[tile_id]

    def only(self, tile_ids: Iterable[str]) -> TileLibrary:
        """Return a library of these tiles alone (and the back), sharing their appearances, so
        that features computed once serve both."""
        wanted = set(tile_ids)
        return TileLibrary([t for t in self.tiles.values() if t.tile_id in wanted], self.back)

    def references(self) -> list[tuple[str, Appearance]]:
        """Return every face to match against: each tile, then the back (id `back`)."""
        faces = [(t.tile_id, t.appearance) for t in self.tiles.values()]
        if self.back is not None:
            faces.append((BACK, self.back))
        return faces

    # ----- changing ----------------------------------------------------------------------------

    def enroll_image(self, tile_id: str, image_bgr: np.ndarray, *, new: bool = False) -> None:
        """Set a tile's appearance to a top-down picture with its stairway at the bottom.

        `tile_id` `back` enrolls the tile back. A tile that is not in the library is added only
        when `new` (as a chamber with no doors and free entry, to be edited).
        """
        appearance = Appearance(canonical(image_bgr), photo=True, enrolled=_now())
        if tile_id == BACK:
            self.back = appearance
            return
        if tile_id in self.tiles:
            self.tiles[tile_id].appearance = appearance
            return
        if not new:
            self.tile(tile_id)  # raises, listing the known ids
        if not ID_PATTERN.match(tile_id):
            raise EnrollmentError(
                f"{tile_id!r} cannot be a tile id: use letters, digits, '-' or '_' only"
            )
        definition = parse_tile(tile_id, {"name": tile_id, "kind": "chamber"})
        self.tiles[tile_id] = EnrolledTile(definition, appearance)

    def set_definition(self, definition: TileDef) -> None:
        """Replace an enrolled tile's properties (its id must be enrolled)."""
        self.tile(definition.tile_id).definition = definition

    def reset(self, tile_ids: Iterable[str] | None = None) -> None:
        """Restore tiles (all, by default, and the back) to the packaged definition and art."""
        if tile_ids is None:
            fresh = TileLibrary.default()
            self.tiles, self.back = fresh.tiles, fresh.back
            return
        catalog = every_tile()
        for tile_id in tile_ids:
            if tile_id == BACK:
                self.back = default_appearance(BACK)
            elif tile_id in catalog:
                self.tiles[tile_id] = EnrolledTile(catalog[tile_id], default_appearance(tile_id))
            elif tile_id in self.tiles:
                del self.tiles[tile_id]  # a tile the user added: reset means gone
            else:
                self.tile(tile_id)

    # ----- the engine's view -------------------------------------------------------------------

    def catalog_overrides(
        self, *, everything: bool = False, catalog: Mapping[str, TileDef] | None = None
    ) -> dict[str, dict[str, Any]]:
        """Return the setup line's `tiles` field: the definitions that differ from the packaged.

        With `everything`, every enrolled tile's definition is given (a self-contained record).
        `catalog`: the game's packaged tiles (`setup_catalog`); other modules' tiles are left
        out, so that a game never gains a tile of a module it does not play.
        """
        packaged = every_tile()
        game = packaged if catalog is None else catalog
        return {
            tile_id: t.definition.to_json()
            for tile_id, t in self.tiles.items()
            if (tile_id in game or tile_id not in packaged)
            and (everything or game.get(tile_id) != t.definition)
        }

    # ----- files -------------------------------------------------------------------------------

    def changed(self) -> list[str]:
        """Return the ids of tiles the user enrolled a picture of, edited or added."""
        catalog = every_tile()
        return [
            tile_id
            for tile_id, t in self.tiles.items()
            if t.appearance.photo or catalog.get(tile_id) != t.definition
        ]

    def to_json(self) -> dict[str, Any]:
        """Return the library file's contents: only what differs from the packaged tiles."""
        tiles: dict[str, Any] = {}
        for tile_id in self.changed():
            t = self.tiles[tile_id]
            entry = t.definition.to_json()
            entry.setdefault("gems", None)  # explicit: a missing field keeps the packaged value
            entry["image"] = f"{tile_id}.png" if t.appearance.photo else None
            if t.appearance.enrolled:
                entry["enrolled"] = t.appearance.enrolled
            tiles[tile_id] = entry
        data: dict[str, Any] = {"format": FORMAT, "about": _ABOUT, "tiles": tiles}
        if self.back is not None and self.back.photo:
            data["back"] = {"image": f"{BACK}.png", "enrolled": self.back.enrolled}
        return data

    def save(self, folder: str | Path | None = None) -> Path:
        """Write the library (user pictures as PNGs, then `library.json`), each atomically.

        Pictures no longer named by the library are removed afterwards.
        """
        target = tiles_dir(folder)
        pictures = [(t.tile_id, t.appearance) for t in self.tiles.values()]
        if self.back is not None:
            pictures.append((BACK, self.back))
        keep = {LIBRARY_FILE}
        for tile_id, appearance in pictures:
            if appearance.photo:
                ok, png = cv2.imencode(".png", appearance.image)
                if not ok:
                    raise EnrollmentError(f"could not encode the picture of {tile_id!r} as PNG")
                write_atomically(target / f"{tile_id}.png", png.tobytes())
                keep.add(f"{tile_id}.png")
        data = json.dumps(self.to_json(), indent=1) + "\n"
        write_atomically(target / LIBRARY_FILE, data.encode("utf-8"))
        for stale in target.glob("*.png"):
            if stale.name not in keep:
                stale.unlink(missing_ok=True)
        return target / LIBRARY_FILE

    @classmethod
    def load(cls, folder: str | Path | None = None) -> TileLibrary:
        """Read the user's library: the packaged tiles with the user's changes over them."""
        source = tiles_dir(folder)
        path = source / LIBRARY_FILE
        library = cls.default()
        if not path.is_file():
            return library
        fix = "fix it or run `templecam enroll reset` to start again from the packaged tiles"
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, UnicodeDecodeError) as error:
            raise EnrollmentError(f"{path} cannot be read ({error}); {fix}") from None
        except json.JSONDecodeError as error:
            raise EnrollmentError(
                f"{path} is not valid JSON (line {error.lineno}: {error.msg}); {fix}"
            ) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise EnrollmentError(f"{path} is not a templecam tile library ({FORMAT}); {fix}")
        entries = data.get("tiles", {})
        if not isinstance(entries, dict):
            raise EnrollmentError(f"{path}: 'tiles' must be an object by tile id; {fix}")
        for tile_id, entry in entries.items():
            library.tiles[tile_id] = _read_entry(source, tile_id, entry)
        if data.get("back") is not None:
            library.back = _read_appearance(source, BACK, data["back"])
        return library


def discard(folder: str | Path | None = None, tile_ids: Iterable[str] | None = None) -> None:
    """Drop tiles' entries (all, by default) from the library files, even a broken library.

    Their pictures go too; the packaged tiles of those ids come back on the next load.
    """
    target = tiles_dir(folder)
    path = target / LIBRARY_FILE
    if tile_ids is None:
        path.unlink(missing_ok=True)
        for picture in target.glob("*.png"):
            picture.unlink(missing_ok=True)
        return
    if not path.is_file():
        return
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        data = None
    entries = data.get("tiles") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(entries, dict):
        raise EnrollmentError(
            f"{path} is not readable as a tile library: run `templecam enroll reset` with no id "
            "to start again from the packaged tiles"
        ) from None
    for tile_id in tile_ids:
        if tile_id == BACK:
            data.pop("back", None)
        else:
            entries.pop(tile_id, None)
        (target / f"{tile_id}.png").unlink(missing_ok=True)
    write_atomically(path, (json.dumps(data, indent=1) + "\n").encode("utf-8"))


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _read_entry(folder: Path, tile_id: Any, entry: Any) -> EnrolledTile:
    """Validate one library entry (over the packaged tile of that id), then load its picture."""
    where = f"{folder / LIBRARY_FILE}: tile {tile_id!r}"
    fix = f"fix it or run `templecam enroll reset {tile_id}`"
    if not isinstance(tile_id, str) or not ID_PATTERN.match(tile_id) or tile_id == BACK:
        raise EnrollmentError(f"{where}: not a valid tile id (letters, digits, '-', '_'); {fix}")
    if not isinstance(entry, dict):
        raise EnrollmentError(f"{where}: the entry must be a JSON object; {fix}")
    packaged = every_tile().get(tile_id)
    properties = packaged.to_json() if packaged is not None else {}
    properties.update({k: v for k, v in entry.items() if k not in ("image", "enrolled")})
    try:
        definition = parse_tile(tile_id, properties)
    except RecordError as error:
        raise EnrollmentError(f"{folder / LIBRARY_FILE}: {error}; {fix}") from None
    return EnrolledTile(definition, _read_appearance(folder, tile_id, entry))


def _read_appearance(folder: Path, tile_id: str, entry: Any) -> Appearance:
    """Load the picture an entry names, or the packaged art when it names none."""
    where = f"{folder / LIBRARY_FILE}: {tile_id!r}"
    fix = f"enroll it again (`templecam enroll add {tile_id} --image PHOTO`) or reset it"
    if not isinstance(entry, dict):
        raise EnrollmentError(f"{where}: the entry must be a JSON object; {fix}")
    name = entry.get("image")
    if name is None:
        try:
            return default_appearance(tile_id)
        except EnrollmentError as error:
            raise EnrollmentError(f"{where}: {error}") from None
    if not isinstance(name, str) or Path(name).name != name or not name.endswith(".png"):
        raise EnrollmentError(f"{where}: 'image' must be a PNG file name beside it or null; {fix}")
    picture = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
    if picture is None:
        raise EnrollmentError(
            f"{where}: its picture {folder / name} is missing or unreadable; {fix}"
        )
    enrolled = entry.get("enrolled", "")
    return Appearance(canonical(picture), photo=True, enrolled=str(enrolled))
