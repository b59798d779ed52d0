"""Looks for the crop renderer: families of die wood, icon print colours and lighting.

A `Look` names the families a crop may draw from. `TRAIN_LOOK` uses every family but the held-out
ones; `HELD_OUT_LOOK` uses only those (a cherry wood, another maker's print colours, a low sun),
so that an evaluation rendered with it shows what the reader does with a look it never saw.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from art.icons import FACE_COLOURS

RGB = tuple[float, float, float]

WOODS: dict[str, tuple[RGB, ...]] = {
    "pale": ((0.92, 0.84, 0.68), (0.95, 0.89, 0.76), (0.88, 0.80, 0.66)),
    "natural": ((0.86, 0.70, 0.48), (0.80, 0.62, 0.40), (0.90, 0.78, 0.58), (0.74, 0.55, 0.34)),
    "honey": ((0.82, 0.58, 0.30), (0.76, 0.50, 0.24), (0.86, 0.64, 0.36)),
    "walnut": ((0.50, 0.36, 0.24), (0.42, 0.30, 0.20), (0.56, 0.42, 0.30)),
    "grey": ((0.72, 0.70, 0.66), (0.80, 0.78, 0.74), (0.64, 0.62, 0.58)),
    "cherry": ((0.70, 0.42, 0.30), (0.62, 0.36, 0.26), (0.74, 0.48, 0.36)),
}
"""Die body colours (RGB, 0-1) by wood family; `natural` is the frame renderer's."""

PRINTS: dict[str, dict[str, RGB]] = {
    "standard": dict(FACE_COLOURS),
    "deep": {
        "adventurer": (0.05, 0.42, 0.15),
        "key": (0.05, 0.18, 0.55),
        "torch": (0.62, 0.06, 0.06),
        "golden_mask": (0.85, 0.55, 0.05),
        "black_mask": (0.03, 0.03, 0.03),
    },
    "bright": {
        "adventurer": (0.30, 0.75, 0.30),
        "key": (0.25, 0.50, 0.92),
        "torch": (0.95, 0.30, 0.18),
        "golden_mask": (1.00, 0.85, 0.30),
        "black_mask": (0.18, 0.18, 0.20),
    },
    "faded": {
        "adventurer": (0.40, 0.60, 0.40),
        "key": (0.40, 0.50, 0.70),
        "torch": (0.75, 0.40, 0.35),
        "golden_mask": (0.85, 0.72, 0.45),
        "black_mask": (0.30, 0.28, 0.28),
    },
    "other_maker": {
        "adventurer": (0.15, 0.48, 0.40),
        "key": (0.10, 0.45, 0.70),
        "torch": (0.88, 0.35, 0.08),
        "golden_mask": (0.78, 0.58, 0.18),
        "black_mask": (0.16, 0.11, 0.08),
    },
}
"""Icon paint (RGB, 0-1) per face by print scheme; `standard` is the frame renderer's."""


@dataclass(frozen=True)
class LightFamily:
    """Ranges of one kind of lighting: where the light comes from, its colour and strength."""

    elevation: tuple[float, float]
    """Degrees above the table."""
    kelvin: tuple[float, float]
    white_balance: tuple[float, float]
    """How much of the light's colour the camera undoes (1: all)."""
    exposure: tuple[float, float]
    gradient: tuple[float, float]
    """Brightness change across the crop (a lamp's falloff), as a share."""
    shadow: tuple[float, float]
    """Darkness of cast shadows (0 none, 1 black)."""
    noise: tuple[float, float]
    """Sensor noise, as a share of full scale."""


LIGHTS: dict[str, LightFamily] = {
    "overhead": LightFamily(
        (60, 90), (3800, 6000), (0.75, 0.98), (0.85, 1.15), (0.0, 0.1), (0.2, 0.45), (0.004, 0.02)
    ),
    "lamp": LightFamily(
        (35, 60), (2600, 3400), (0.55, 0.9), (0.75, 1.2), (0.05, 0.3), (0.35, 0.6), (0.005, 0.025)
    ),
    "daylight": LightFamily(
        (40, 75), (5500, 7500), (0.6, 0.95), (0.85, 1.3), (0.0, 0.15), (0.15, 0.4), (0.004, 0.02)
    ),
    "dim": LightFamily(
        (45, 90), (2800, 5000), (0.6, 0.95), (0.3, 0.7), (0.05, 0.25), (0.2, 0.5), (0.015, 0.045)
    ),
    "low_sun": LightFamily(
        (18, 33), (3300, 4500), (0.5, 0.8), (0.9, 1.35), (0.1, 0.35), (0.5, 0.7), (0.004, 0.02)
    ),
}
"""Lighting families."""

HELD_OUT = {"wood": "cherry", "print": "other_maker", "light": "low_sun"}
"""The families training never sees."""


@dataclass(frozen=True)
class Look:
    """The wood, print and lighting families crops are drawn from."""

    woods: tuple[str, ...]
    prints: tuple[str, ...]
    lights: tuple[str, ...]

    def __post_init__(self) -> None:
        for kind, names, known in (
            ("wood", self.woods, WOODS),
            ("print", self.prints, PRINTS),
            ("light", self.lights, LIGHTS),
        ):
            unknown = [n for n in names if n not in known]
            if not names or unknown:
                raise ValueError(f"{kind}: {unknown or 'none given'}; known: {', '.join(known)}")

    def describe(self) -> str:
        """Return the look as `parse_look` reads it."""
        parts = {"wood": self.woods, "print": self.prints, "light": self.lights}
        return ",".join(f"{key}={'+'.join(names)}" for key, names in parts.items())

    def sample(self, rng: np.random.Generator) -> tuple[str, str, str]:
        """Draw one (wood, print, light) family of this look."""
        return (
            str(self.woods[int(rng.integers(len(self.woods)))]),
            str(self.prints[int(rng.integers(len(self.prints)))]),
            str(self.lights[int(rng.integers(len(self.lights)))]),
        )


TRAIN_LOOK = Look(
    tuple(w for w in WOODS if w != HELD_OUT["wood"]),
    tuple(p for p in PRINTS if p != HELD_OUT["print"]),
    tuple(li for li in LIGHTS if li != HELD_OUT["light"]),
)
"""Every family but the held-out ones: what training renders."""
HELD_OUT_LOOK = Look((HELD_OUT["wood"],), (HELD_OUT["print"],), (HELD_OUT["light"],))
"""Only the held-out families: an evaluation of a look never trained on."""
NAMED_LOOKS = {"train": TRAIN_LOOK, "held_out": HELD_OUT_LOOK}


def parse_look(text: str) -> Look:
    """Read a look: `train`, `held_out`, or `wood=A+B,print=C,light=D` (missing: as `train`)."""
    text = text.strip()
    if text in NAMED_LOOKS:
        return NAMED_LOOKS[text]
    parts = {"wood": TRAIN_LOOK.woods, "print": TRAIN_LOOK.prints, "light": TRAIN_LOOK.lights}
    for item in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or key.strip() not in parts:
            raise ValueError(f"{item!r}: write wood=..., print=... or light=...")
        parts[key.strip()] = tuple(v.strip() for v in value.split("+") if v.strip())
    return Look(parts["wood"], parts["print"], parts["light"])


def jitter_colour(rng: np.random.Generator, rgb: RGB, amount: float) -> np.ndarray:
    """Return `rgb` with its brightness and tint changed by up to `amount`."""
    out = np.asarray(rgb, dtype=np.float32) * rng.uniform(1 - amount, 1 + amount)
    out *= rng.uniform(1 - amount / 2, 1 + amount / 2, 3).astype(np.float32)
    return np.clip(out, 0.01, 0.99)
