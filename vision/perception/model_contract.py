"""The model contract: what a templecam ONNX model says about itself, written once, read once.

Training writes it (`models.faces_net`, `models.localiser.export`, `models.train`) and the run
time reads it (`vision.perception.localiser`, `vision.perception.face_reader`,
`vision.perception.onnx_model`), both through the cards here: each is a frozen dataclass with
`to_props()` (the ONNX `metadata_props` strings) and `from_props()` (reading them back, falling back
on the JSON sidecar `<model>.json` where older files kept a field only there). The strings are those
the shipped models carry, so every model made before this module reads unchanged:

- a localiser (`LocaliserCard`): `kind` "templecam-localiser", `names` as a JSON list, `stride`,
  `input_multiple`, `input_scale`, `native_die_px`;
- a face reader (`FaceReaderCard`): `names` as a Python {index: name} literal, `imgsz` as
  [S, S], `crop_scale`, `task` "classify", `description`;
- a YOLO detector, the old baseline (`DetectorCard`): what Ultralytics writes (`names`, `imgsz`,
  `stride`, `end2end`) and templecam's `tile`.

No torch and no onnx import: `set_props` edits any ONNX `ModelProto` it is handed.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LOCALISER_KIND = "templecam-localiser"
"""The metadata `kind` that marks a localiser (a YOLO model has none)."""
FACES_DESCRIPTION = "templecam die-face reader (models/faces_net.py)"


class ModelError(Exception):
    """The model file cannot be used; the message says why."""


def props_of(session: Any) -> dict[str, str]:
    """Return an ONNX Runtime session's metadata props (empty when it has none)."""
    return dict(getattr(session.get_modelmeta(), "custom_metadata_map", {}) or {})


def set_props(model: Any, props: Mapping[str, str]) -> None:
    """Add or replace entries of an ONNX `ModelProto`'s metadata_props, keeping the others."""
    kept = [p for p in model.metadata_props if p.key not in props]
    del model.metadata_props[:]
    model.metadata_props.extend(kept)
    for key, value in props.items():
        model.metadata_props.add(key=key, value=value)


def parse_literal(text: str | None) -> Any:
    """Parse a metadata value that Ultralytics writes as a Python literal (or JSON)."""
    if text is None:
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        try:
            return json.loads(text)
        except ValueError:
            return text


def parse_names(value: Any) -> tuple[str, ...] | None:
    """Return class names from a list or an {index: name} mapping, in index order."""
    if isinstance(value, dict):
        try:
            return tuple(str(value[k]) for k in sorted(value, key=int))
        except (TypeError, ValueError):
            return None
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def parse_imgsz(value: Any) -> tuple[int, int] | None:
    """Return (height, width) from an int or a [height, width] list."""
    if isinstance(value, int) and value > 0:
        return value, value
    if (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(v, int) for v in value)
    ):
        return int(value[0]), int(value[1])
    if isinstance(value, (list, tuple)) and len(value) == 1 and isinstance(value[0], int):
        return int(value[0]), int(value[0])
    return None


def sidecar_metadata(model_path: Path) -> dict[str, Any]:
    """Read `names`, `imgsz`, `tile` from `<model>.json` or `metrics.json` beside the model."""
    for candidate in (model_path.with_suffix(".json"), model_path.parent / "metrics.json"):
        if not candidate.is_file():
            continue
        try:
            data = json.loads(candidate.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        found: dict[str, Any] = {}
        for scope in (data, *(v for v in data.values() if isinstance(v, dict))):
            for key in ("names", "imgsz", "tile"):
                if key in scope and key not in found:
                    found[key] = scope[key]
        if found:
            return found
    return {}


def _number(value: Any) -> float | None:
    """Return a parsed metadata number, or None when it is none."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class LocaliserCard:
    """What a localiser model says about itself."""

    names: tuple[str, ...]
    """Its own classes, "die" first (die, gem, tile, tile_back, figure, hand)."""
    stride: int
    """Input px per cell of its output maps."""
    input_multiple: int = 32
    """Its input height and width must be multiples of this."""
    input_scale: float = 0.5
    """The resize factor of a frame it was trained for (0.5: 1080p frames at half size)."""
    native_die_px: float | None = None
    """The die side in input px it reads best (None: an older model that does not say)."""

    def to_props(self) -> dict[str, str]:
        """Return the ONNX metadata props that carry this card."""
        props = {
            "kind": LOCALISER_KIND,
            "names": json.dumps(list(self.names)),
            "stride": str(self.stride),
            "input_multiple": str(self.input_multiple),
            "input_scale": str(self.input_scale),
        }
        if self.native_die_px is not None:
            props["native_die_px"] = str(self.native_die_px)
        return props

    @classmethod
    def from_props(cls, props: Mapping[str, str], where: str = "the model") -> LocaliserCard:
        """Read a localiser's card from its metadata props; ModelError when it is none."""
        if props.get("kind") != LOCALISER_KIND:
            raise ModelError(f"{where}: not a templecam localiser (no kind metadata)")
        try:
            names = tuple(str(n) for n in json.loads(props["names"]))
            native = props.get("native_die_px")
            return cls(
                names=names,
                stride=int(props.get("stride", 4)),
                input_multiple=int(props.get("input_multiple", 32)),
                input_scale=float(props.get("input_scale", 0.5)),
                native_die_px=None if native is None else float(native),
            )
        except (KeyError, ValueError, TypeError):
            raise ModelError(f"{where}: its metadata lacks names or scale") from None


@dataclass(frozen=True)
class FaceReaderCard:
    """What a die-face reader model says about itself."""

    names: tuple[str, ...]
    """The classes it tells apart, in output order."""
    imgsz: int | None = None
    """The side of its square input crops (None: only its input shape says)."""
    crop_scale: float | None = None
    """Crop side over a box's longer side it was trained on (None: the run time's default)."""
    description: str = FACES_DESCRIPTION

    def to_props(self) -> dict[str, str]:
        """Return the ONNX metadata props that carry this card (Ultralytics' spelling)."""
        props = {"names": repr(dict(enumerate(self.names)))}
        if self.imgsz is not None:
            props["imgsz"] = repr([self.imgsz, self.imgsz])
        if self.crop_scale is not None:
            props["crop_scale"] = str(self.crop_scale)
        props["task"] = "classify"
        props["description"] = self.description
        return props

    @classmethod
    def from_props(
        cls, props: Mapping[str, str], sidecar: Mapping[str, Any] | None = None
    ) -> FaceReaderCard:
        """Read a face reader's card from its metadata props, names else from its sidecar
        JSON; `names` is empty when neither says them."""
        names = parse_names(parse_literal(props.get("names")))
        if names is None:
            names = parse_names((sidecar or {}).get("names"))
        size = parse_imgsz(parse_literal(props.get("imgsz")))
        scale = _number(parse_literal(props.get("crop_scale")))
        return cls(
            names=names or (),
            imgsz=size[0] if size is not None and size[0] == size[1] else None,
            crop_scale=scale,
            description=props.get("description", ""),
        )


@dataclass(frozen=True)
class DetectorCard:
    """What a YOLO detector (the old baseline) says: Ultralytics' fields and templecam's tile."""

    names: tuple[str, ...] | None = None
    imgsz: tuple[int, int] | None = None
    """The (height, width) it was exported at."""
    stride: int | None = None
    end2end: bool | None = None
    """True: its output is (batch, detections, 6) after NMS; None: it does not say."""
    tile: int | None = None
    """The tile edge it was trained on (0: whole frames); None: it does not say."""

    def to_props(self) -> dict[str, str]:
        """Return the metadata props of the fields set (Ultralytics writes the others itself)."""
        props: dict[str, str] = {}
        if self.names is not None:
            props["names"] = repr(dict(enumerate(self.names)))
        if self.imgsz is not None:
            props["imgsz"] = repr(list(self.imgsz))
        if self.stride is not None:
            props["stride"] = str(self.stride)
        if self.end2end is not None:
            props["end2end"] = str(self.end2end)
        if self.tile is not None:
            props["tile"] = str(self.tile)
        return props

    @classmethod
    def from_props(
        cls, props: Mapping[str, str], sidecar: Mapping[str, Any] | None = None
    ) -> DetectorCard:
        """Read a detector's card from its metadata props, else from its sidecar JSON."""
        side = sidecar or {}
        names = parse_names(parse_literal(props.get("names"))) or parse_names(side.get("names"))
        imgsz = parse_imgsz(parse_literal(props.get("imgsz"))) or parse_imgsz(side.get("imgsz"))
        stride = _number(parse_literal(props.get("stride")))
        end2end = props.get("end2end")
        tile = parse_literal(props.get("tile")) if "tile" in props else side.get("tile")
        tile_number = _number(tile)
        return cls(
            names=names,
            imgsz=imgsz,
            stride=None if stride is None else int(stride),
            end2end=None if end2end is None else str(end2end).lower() == "true",
            tile=int(tile_number) if tile_number is not None and tile_number >= 0 else None,
        )


def is_localiser(model_path: str | Path) -> bool:
    """Return whether an .onnx file is a localiser (its metadata names the kind), unopened.

    The metadata's strings are stored as they are in the file, so the kind's name shows in its
    bytes; `LocaliserCard.from_props` then checks the metadata properly.
    """
    try:
        return LOCALISER_KIND.encode() in Path(model_path).read_bytes()
    except OSError:
        return False
