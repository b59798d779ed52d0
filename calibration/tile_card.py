"""A picture of one enrolled tile with its properties drawn on, for users to check their entries."""

from __future__ import annotations

import cv2
import numpy as np

from art.icons import face_icon
from calibration.enrollment import EnrolledTile

TILE_PX = 480
_MARGIN = 70
_HEADER = 70
_FOOTER = 150
_FONT = cv2.FONT_HERSHEY_SIMPLEX
_INK = (40, 30, 25)
_DOOR = (60, 170, 40)
_WALL = (40, 40, 190)
_STAIRS = (200, 120, 20)


def _text(image: np.ndarray, text: str, origin: tuple[int, int], scale: float = 0.6) -> None:
    cv2.putText(image, text, origin, _FONT, scale, _INK, 1 + int(scale > 0.7), cv2.LINE_AA)


def _centred(image: np.ndarray, text: str, centre: tuple[int, int], colour: tuple) -> None:
    (w, h), _ = cv2.getTextSize(text, _FONT, 0.55, 1)
    origin = (centre[0] - w // 2, centre[1] + h // 2)
    cv2.putText(image, text, origin, _FONT, 0.55, colour, 1, cv2.LINE_AA)


def _icon(image: np.ndarray, face: str, x: int, y: int, size: int) -> None:
    """Paste a die-face icon with its top-left corner at (x, y)."""
    rgb, alpha = face_icon(face, size)
    bgr = (rgb[..., ::-1] * 255).astype(np.float32)
    region = image[y : y + size, x : x + size].astype(np.float32)
    a = alpha[..., None]
    image[y : y + size, x : x + size] = (region * (1 - a) + bgr * a).astype(np.uint8)


def _sides(card: np.ndarray, tile: EnrolledTile, x0: int, y0: int) -> None:
    """Mark each side outside the picture: door (green), wall (red), stairway (blue)."""
    n = TILE_PX
    bar = 14
    spans = {
        "N": ((x0, y0 - bar - 6), (x0 + n, y0 - 6)),
        "S": ((x0, y0 + n + 6), (x0 + n, y0 + n + bar + 6)),
        "W": ((x0 - bar - 6, y0), (x0 - 6, y0 + n)),
        "E": ((x0 + n + 6, y0), (x0 + n + bar + 6, y0 + n)),
    }
    labels = {
        "N": (x0 + n // 2, y0 - 36),
        "S": (x0 + n // 2, y0 + n + 40),
        "W": (x0 - 40, y0 + n // 2),
        "E": (x0 + n + 40, y0 + n // 2),
    }
    for side, (a, b) in spans.items():
        if side == "S":
            colour, word = _STAIRS, "stairs"
        elif side in tile.definition.doors:
            colour, word = _DOOR, "door"
        else:
            colour, word = _WALL, "wall"
        cv2.rectangle(card, a, b, colour, -1)
        if side in ("W", "E"):
            _centred(card, side, (labels[side][0], labels[side][1] - 12), colour)
            _centred(card, word, (labels[side][0], labels[side][1] + 12), colour)
        else:
            _centred(card, f"{side}: {word}", labels[side], colour)


def tile_card(tile: EnrolledTile, *, show_id: bool = True) -> np.ndarray:
    """Return an 8-bit BGR card: the enrolled picture, its sides, entry icons and gems (and
    its id, which the command line needs and players' pages leave out)."""
    d = tile.definition
    width = TILE_PX + 2 * _MARGIN + 40
    height = _HEADER + TILE_PX + 2 * _MARGIN + _FOOTER
    card = np.full((height, width, 3), (236, 242, 246), np.uint8)
    _text(card, f"{d.name}", (20, 34), 0.85)
    source = "your picture" if tile.appearance.photo else "packaged art"
    if tile.appearance.enrolled:
        source += f", enrolled {tile.appearance.enrolled}"
    about = f"id {d.tile_id}  |  {d.kind}  |  {source}" if show_id else f"{d.kind}  |  {source}"
    _text(card, about, (20, 60), 0.5)
    x0, y0 = (width - TILE_PX) // 2, _HEADER + _MARGIN
    picture = cv2.resize(tile.appearance.image, (TILE_PX, TILE_PX), interpolation=cv2.INTER_CUBIC)
    card[y0 : y0 + TILE_PX, x0 : x0 + TILE_PX] = picture
    _sides(card, tile, x0, y0)
    y = y0 + TILE_PX + _MARGIN + 10
    _text(card, "Enter with:", (20, y + 24))
    if d.enter:
        for k, face in enumerate(d.enter):
            _icon(card, face, 140 + k * 44, y, 36)
        _text(card, " + ".join(d.enter), (150 + len(d.enter) * 44, y + 24), 0.5)
    else:
        _text(card, "free entry", (140, y + 24))
    gems = "none"
    if d.gems is not None:
        costs = ", ".join(f"{k + 1} for {c}" for k, c in enumerate(d.gems.costs))
        gems = f"{d.gems.count}, paid with {d.gems.icon} icons ({costs})"
    _text(card, f"Gems: {gems}", (20, y + 70))
    doors = ", ".join(side for side in "NEW" if side in d.doors) or "none"
    _text(card, f"Doors (own frame, stairway = S): {doors}", (20, y + 104))
    return card
