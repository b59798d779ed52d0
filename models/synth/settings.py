"""What a synthetic dataset is rendered with: image size, object sizes and difficulty."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

JPEG_QUALITY = 92
"""Quality of the JPEG files written (fixed, so that the same seed gives the same bytes)."""


@dataclass(frozen=True)
class SynthSettings:
    """Rendering settings shared by every frame of one dataset."""

    width: int = 1920
    height: int = 1080
    hard: bool = False
    """Harder frames for held-out evaluation: more blur, occlusion and lighting change."""
    look: str = "standard"
    """"standard": the dice's usual wood, print and lights; "held_out": a look training never
    sees (cherry wood, another maker's print colours, a low sun), for evaluation only."""
    die_mm: float = 16.0
    """Edge of a die (reported about 16 mm, unverified)."""
    tile_mm: float = 100.0
    """Edge of a chamber tile (about 10 cm is a guess)."""
    gem_mm: float = 13.0
    """Length of a gem crystal."""
    figure_mm: float = 38.0
    """Height of an adventurer figure."""

    def to_json(self) -> dict[str, Any]:
        """Return the settings as a JSON object."""
        return asdict(self)
