"""What lies on the table in one frame, in table millimetres (x east, y north, z up)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from models.synth.camera import Camera
from models.synth.settings import SynthSettings
from rules.catalog import TileDef

PLAYER_COLOURS: dict[str, tuple[float, float, float]] = {
    "red": (0.78, 0.08, 0.07),
    "blue": (0.08, 0.22, 0.75),
    "green": (0.10, 0.55, 0.18),
    "yellow": (0.95, 0.80, 0.08),
    "purple": (0.45, 0.15, 0.62),
    "orange": (0.96, 0.45, 0.06),
}
"""Adventurer colours (red and blue are in the rulebook; the others are configurable guesses)."""

DIE_NORMALS = np.array(
    [[0, 0, 1], [0, 0, -1], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0]], dtype=np.float64
)
"""A die's six face normals in its own frame."""
DIE_FACES = ("adventurer", "adventurer", "key", "torch", "golden_mask", "black_mask")
"""The icon on each of `DIE_NORMALS` (the adventurer is on two faces)."""
DIE_STATES = ("rest", "locked", "leaning", "tumbling")
"""How a die lies: flat, set aside (a locked black mask), leaning on another die, in the air."""


def rotation_z(degrees: float) -> np.ndarray:
    """Return the rotation about the vertical axis by `degrees` (counter-clockwise from above)."""
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rotate_xy(points: np.ndarray, clockwise_degrees: float) -> np.ndarray:
    """Turn table vectors (N, 2) clockwise (seen from above) by `clockwise_degrees`."""
    a = math.radians(clockwise_degrees)
    c, s = math.cos(a), math.sin(a)
    pts = np.atleast_2d(points)
    return np.column_stack([pts[:, 0] * c + pts[:, 1] * s, -pts[:, 0] * s + pts[:, 1] * c])


@dataclass
class Zone:
    """The table area in front of one player, where their dice are rolled."""

    index: int
    colour: str
    side: str
    """The table edge the player sits at (N, E, S, W)."""
    centre: tuple[float, float]
    size: tuple[float, float]
    """Extent along x and along y, in mm."""

    def rect(self) -> tuple[float, float, float, float]:
        """Return (x0, y0, x1, y1) in mm."""
        (cx, cy), (w, h) = self.centre, self.size
        return cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2


@dataclass
class Die:
    """One die: whose it is, how it lies and how it moves during the exposure."""

    zone: int
    state: str
    centre: np.ndarray
    rotation: np.ndarray
    """Die frame to table frame."""
    wood: tuple[float, float, float]
    grain: int
    motion: tuple[float, float] = (0.0, 0.0)
    """Distance in mm travelled during the exposure (tumbling dice blur)."""
    swapped: bool = False
    """Key and torch painted in each other's colours (reported on one owner's die)."""
    paint: str = "standard"
    """The icons' print colours (a scheme of `models.synth.crop_look.PRINTS`)."""

    @property
    def at_rest(self) -> bool:
        """Tell whether the die lies still (flat, set aside or leaning)."""
        return self.state != "tumbling"

    def top(self) -> tuple[str, float]:
        """Return the face pointing most upward and its tilt from vertical in degrees."""
        up = (self.rotation @ DIE_NORMALS.T)[2]
        best = int(np.argmax(up))
        return DIE_FACES[best], math.degrees(math.acos(min(1.0, float(up[best]))))

    def corners(self, size: float) -> np.ndarray:
        """Return the 8 corners (8, 3) in table mm."""
        signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
        return self.centre + (signs * size / 2) @ self.rotation.T


@dataclass
class Chamber:
    """A chamber tile lying in the temple."""

    tile: TileDef
    cell: tuple[int, int]
    stairs: str
    centre: tuple[float, float]
    angle: float
    """Clockwise turn from the tile's own frame in degrees (quarter turns plus a small error)."""
    gems: int = 0

    def to_table(self, uv: np.ndarray, tile_mm: float) -> np.ndarray:
        """Map own-frame texture points (u east, v south, 0..1) to table mm (N, 2)."""
        uv = np.atleast_2d(uv)
        own = np.column_stack([uv[:, 0] - 0.5, 0.5 - uv[:, 1]]) * tile_mm
        return rotate_xy(own, self.angle) + self.centre


@dataclass
class FlatPiece:
    """A flat square piece lying on the table: a tile back of the draw pile, the depot board."""

    centre: tuple[float, float]
    size: tuple[float, float]
    angle: float
    z: float

    def quad(self) -> np.ndarray:
        """Return the four corners NW, NE, SE, SW (4, 3) in mm."""
        w, h = self.size
        own = np.array([[-w / 2, h / 2], [w / 2, h / 2], [w / 2, -h / 2], [-w / 2, -h / 2]])
        xy = rotate_xy(own, self.angle) + self.centre
        return np.column_stack([xy, np.full(4, self.z)])


@dataclass
class Gem:
    """A green crystal: on a chamber's gem icon, in the depot, or one of the two spares."""

    where: str
    """"cell", "depot" or "spare"."""
    position: tuple[float, float, float]
    angle: float
    variant: int
    cell: tuple[int, int] | None = None


@dataclass
class Figure:
    """An adventurer figure standing on a chamber."""

    colour: str
    cell: tuple[int, int]
    position: tuple[float, float, float]


@dataclass
class Hand:
    """An arm reaching over the table from a player's side."""

    wrist: tuple[float, float]
    heading: float
    """Direction from wrist to fingers, degrees counter-clockwise from east."""
    height: float
    """Height of the hand above the table in mm (the arm rises toward the player)."""
    pose: str
    """"flat", "cupped" or "pointing"."""
    skin: tuple[float, float, float]
    sleeve: tuple[float, float, float]
    sleeve_from: float
    """Distance from the wrist where the sleeve starts, in mm."""
    scale: float
    reach: float
    """Length of the visible forearm, from the wrist back to beyond the view, in mm."""
    left: bool = False
    """A left hand (the thumb on the other side)."""


@dataclass
class Clutter:
    """Something else on the table: a cup, a phone, the rulebook, a notepad, a bowl."""

    kind: str
    centre: tuple[float, float]
    angle: float
    colour: tuple[float, float, float]
    size: float


@dataclass
class Light:
    """The main light: where it comes from."""

    azimuth: float
    elevation: float

    def direction(self) -> np.ndarray:
        """Return the unit vector from the table toward the light."""
        a, e = math.radians(self.azimuth), math.radians(self.elevation)
        return np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])


@dataclass
class Scene:
    """Everything on the table in one frame."""

    settings: SynthSettings
    camera: Camera
    light: Light
    zones: list[Zone] = field(default_factory=list)
    dice: list[Die] = field(default_factory=list)
    chambers: list[Chamber] = field(default_factory=list)
    draw_pile: list[FlatPiece] = field(default_factory=list)
    """The top few tile backs of the draw pile (the rest lie hidden below them)."""
    pile_count: int = 0
    """How many tiles the draw pile holds."""
    depot: FlatPiece | None = None
    gems: list[Gem] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    hands: list[Hand] = field(default_factory=list)
    clutter: list[Clutter] = field(default_factory=list)
