"""What the camera saw on the table in one frame, in game terms (what vision.stages.scene emits)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

Cell = tuple[int, int]
"""A temple grid cell `(x, y)`, as in the game record."""


@dataclass(frozen=True)
class SeenDie:
    """One die in a player's zone: its top face (None while unreadable), where, how sure."""

    face: str | None
    xy_mm: tuple[float, float]
    conf: float
    guess: str | None = None
    """A die read unsurely (face None): the face the reader finds likeliest, if any."""
    guess_share: float = 0.0
    """That face's share of the reader's face probabilities."""


@dataclass(frozen=True)
class SeenTile:
    """A chamber tile lying in a temple cell: which enrolled tile, its stairway side, how sure."""

    tile: str
    """Enrolled tile id, or "unknown" when the tile is there but not recognised."""
    stairs: str
    """The table side (N, E, S, W) its stairway faces."""
    conf: float


@dataclass(frozen=True)
class Observation:
    """Everything one frame shows, in table terms; `busy` zones had hands or moving dice."""

    seq: int
    """The frame's sequence number at its source."""
    t: float
    """When the frame was grabbed, in seconds (monotonic clock of the source)."""
    dice: Mapping[str, tuple[SeenDie, ...]] = field(default_factory=dict)
    """Each player's dice, found in that player's zone."""
    tiles: Mapping[Cell, SeenTile] = field(default_factory=dict)
    gems: Mapping[Cell, int] = field(default_factory=dict)
    """Gems lying on each chamber (cells without gems are left out)."""
    depot_gems: int | None = None
    """Gems in the depot zone; None when the calibration has no depot zone."""
    figures: Mapping[str, Cell | None] = field(default_factory=dict)
    """Each adventurer figure's cell by colour; None when it stands outside the temple."""
    busy: frozenset[str] = frozenset()
    """Players whose zone has a hand over it or a die that cannot be read."""
    beside: frozenset[str] = frozenset()
    """Busy players whose zone is busy only from motion beside the dice (within a die's side),
    none over a die itself and no hand's box near: an arm passing by, the dice in plain view."""
    hands: int = 0
    """Hands and arms seen over the table."""
    reach: Mapping[Cell, str] = field(default_factory=dict)
    """Cells of the temple with an arm over them, by the player whose seat the arm comes from."""
    arms_out: frozenset[str] = frozenset()
    """Players whose arm crosses their seat strip (`vision.stages.seats`): reaching out or
    drawing back."""
    arm_paths: Mapping[Cell, Mapping[str, float]] = field(default_factory=dict)
    """Per open cell of the temple (where a chamber may be laid), the share of each player's
    path from it to his seat that moved (`vision.stages.arm_paths`)."""

    def capped(self, held: Mapping[str, int]) -> Observation:
        """Keep at most `held[player]` dice per player, the most confident (the engine knows how
        many dice each holds: a die more than that is a false one)."""
        dice = {
            p: tuple(sorted(d, key=lambda die: -die.conf)[: held[p]]) if p in held else d
            for p, d in self.dice.items()
        }
        if all(len(dice[p]) == len(d) for p, d in self.dice.items()):
            return self
        dice = {p: tuple(sorted(d, key=lambda die: die.xy_mm)) for p, d in dice.items()}
        return replace(self, dice=dice)

    def faces(self, player: str) -> tuple[str, ...] | None:
        """Return the player's readable faces, sorted; None if any of their dice is unreadable."""
        dice = self.dice.get(player, ())
        if any(d.face is None for d in dice):
            return None
        return tuple(sorted(d.face for d in dice if d.face is not None))

    def to_json(self) -> dict[str, Any]:
        """Return the observation as a JSON object (cells written as "x,y" keys)."""
        return {
            "seq": self.seq,
            "t": round(self.t, 3),
            "dice": {
                p: [
                    {
                        "face": d.face,
                        "xy_mm": [round(v, 1) for v in d.xy_mm],
                        "conf": round(d.conf, 3),
                    }
                    | (
                        {"guess": d.guess, "guess_share": round(d.guess_share, 3)}
                        if d.guess
                        else {}
                    )
                    for d in dice
                ]
                for p, dice in self.dice.items()
            },
            "tiles": {
                _key(c): {"tile": s.tile, "stairs": s.stairs, "conf": round(s.conf, 3)}
                for c, s in self.tiles.items()
            },
            "gems": {_key(c): n for c, n in self.gems.items()},
            "depot_gems": self.depot_gems,
            "figures": {p: (list(c) if c is not None else None) for p, c in self.figures.items()},
            "busy": sorted(self.busy),
            "beside": sorted(self.beside),
            "hands": self.hands,
            "reach": {_key(c): p for c, p in self.reach.items()},
            "arms_out": sorted(self.arms_out),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Observation:
        """Read an observation written by `to_json` (saved observations feed tests and replays)."""
        return cls(
            seq=int(data["seq"]),
            t=float(data["t"]),
            dice={
                p: tuple(
                    SeenDie(
                        d["face"],
                        (float(d["xy_mm"][0]), float(d["xy_mm"][1])),
                        float(d["conf"]),
                        d.get("guess"),
                        float(d.get("guess_share", 0.0)),
                    )
                    for d in dice
                )
                for p, dice in data.get("dice", {}).items()
            },
            tiles={
                _cell(k): SeenTile(str(v["tile"]), str(v["stairs"]), float(v["conf"]))
                for k, v in data.get("tiles", {}).items()
            },
            gems={_cell(k): int(n) for k, n in data.get("gems", {}).items()},
            depot_gems=data.get("depot_gems"),
            figures={
                p: (tuple(c) if c is not None else None)  # type: ignore[misc]
                for p, c in data.get("figures", {}).items()
            },
            busy=frozenset(data.get("busy", ())),
            beside=frozenset(str(p) for p in data.get("beside", ())),
            hands=int(data.get("hands", 0)),
            reach={_cell(k): str(p) for k, p in data.get("reach", {}).items()},
            arms_out=frozenset(str(p) for p in data.get("arms_out", ())),
        )


def _key(cell: Cell) -> str:
    return f"{cell[0]},{cell[1]}"


def _cell(key: str) -> Cell:
    x, y = key.split(",")
    return int(x), int(y)
