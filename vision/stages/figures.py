"""Which adventurer a figure is: its colour, read from the pixels inside its box."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.stages.pairing import closest_first

FIGURE_RGB: dict[str, tuple[float, float, float]] = {
    "red": (0.78, 0.08, 0.07),
    "blue": (0.08, 0.22, 0.75),
    "green": (0.10, 0.55, 0.18),
    "yellow": (0.95, 0.80, 0.08),
    "purple": (0.45, 0.15, 0.62),
    "orange": (0.96, 0.45, 0.06),
}
"""Default figure colours (red and blue are in the rulebook; the others are guesses)."""


def _hue_of(rgb: tuple[float, float, float]) -> float:
    pixel = np.uint8([[[round(rgb[2] * 255), round(rgb[1] * 255), round(rgb[0] * 255)]]])
    return float(cv2.cvtColor(pixel, cv2.COLOR_BGR2HSV_FULL)[0, 0, 0]) * 360.0 / 256.0


def _hue_distance(a: np.ndarray, b: float) -> np.ndarray:
    d = np.abs(a - b) % 360.0
    return np.minimum(d, 360.0 - d)


FIGURE_TRIM = 0.2
"""The share of a figure box's width (and height) left out at each side: only its middle votes,
where the figure stands (a loose box takes in the chamber's art around it, whose warm colours
can outvote an orange figure's)."""
FIGURE_SHARE = 0.4
"""A colour must win at least this share of a box's strongly coloured pixels to name it."""
SKIN_HUES_DEG = (340.0, 60.0)
"""Hues (from, through red, to) of skin in every tone; the figure colours there (red, orange,
yellow) are the ones a hand over a figure can pass for."""
SKIN_MAX_SATURATION = 174
"""The most saturated skin (0.68 of full, HSV) that the classic skin rules allow: a pixel voting
for a figure colour of skin's hues must be more saturated than this (the figures are far purer),
so a hand over a figure does not read as the orange one."""
STAYING_BONUS = 0.1
"""The share of a figure box's votes added to the colour the engine has standing in its cell
(a figure stays where it stood unless it is plainly another colour)."""


def figure_shares(
    frame_bgr: np.ndarray,
    box: Sequence[float],
    players: Sequence[str],
    colours: dict[str, tuple[float, float, float]] | None = None,
) -> dict[str, float]:
    """Return each player's share of the strongly coloured pixels in the middle of a figure
    box (empty when it shows too few). Only strongly coloured pixels vote (the tile art under a
    figure is dull stone), each for the player colour nearest in hue; players without a known
    colour get none.
    """
    palette = {p: (colours or FIGURE_RGB)[p] for p in players if p in (colours or FIGURE_RGB)}
    if not palette:
        return {}
    h, w = frame_bgr.shape[:2]
    bx0, by0, bx1, by1 = (float(v) for v in box)
    trim_x, trim_y = (bx1 - bx0) * FIGURE_TRIM, (by1 - by0) * FIGURE_TRIM
    x0, y0 = round(bx0 + trim_x), round(by0 + trim_y)
    x1, y1 = round(bx1 - trim_x), round(by1 - trim_y)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return {}
    hsv = cv2.cvtColor(frame_bgr[y0:y1, x0:x1], cv2.COLOR_BGR2HSV_FULL).reshape(-1, 3)
    strong = hsv[(hsv[:, 1] > 110) & (hsv[:, 2] > 50)]
    if len(strong) < 6:
        return {}
    hues = strong[:, 0].astype(np.float64) * 360.0 / 256.0
    names = list(palette)
    colour_hues = [_hue_of(palette[n]) for n in names]
    distances = np.stack([_hue_distance(hues, hue) for hue in colour_hues])
    nearest = np.argmin(distances, axis=0)
    skin_like = np.array([_skin_hued(hue) for hue in colour_hues])
    nearest = nearest[~skin_like[nearest] | (strong[:, 1] > SKIN_MAX_SATURATION)]
    if len(nearest) < 6:
        return {}
    votes = np.bincount(nearest, minlength=len(names))
    return {n: float(v) / len(nearest) for n, v in zip(names, votes, strict=True) if v}


def _skin_hued(hue: float) -> bool:
    """Tell whether a hue (degrees) is one that skin takes."""
    return hue >= SKIN_HUES_DEG[0] or hue <= SKIN_HUES_DEG[1]


@dataclass
class _Track:
    """One figure box followed over frames: where it is and its colour votes so far."""

    centre: np.ndarray
    votes: Counter[str]
    last_t: float


@dataclass
class FigureTracker:
    """Names figure boxes by the colour votes their figure gathered over the frames it stood
    there, each colour once: a hand over a figure shows skin, which reads as orange, and one
    frame's colours would move the orange figure onto it; a figure standing for a while keeps
    its colour, and a colour goes to the box whose figure has shown it most."""

    keep_seconds: float = 1.0
    """A figure box unseen this long is forgotten (the figure was picked up)."""
    tracks: list[_Track] = field(default_factory=list)

    def update(
        self,
        boxes_px: np.ndarray,
        shares: Sequence[dict[str, float]],
        t: float,
        staying: Sequence[set[str]] = (),
    ) -> list[str | None]:
        """Take one frame's figure boxes (n x 4 px) and each box's colour shares; return each
        box's colour (None: no colour holds FIGURE_SHARE of its votes, or another box has it).
        `staying` holds, per box, the colours the engine has standing in the box's cell: a
        figure that shows two colours about equally is taken for the one standing there."""
        self.tracks = [k for k in self.tracks if t - k.last_t <= self.keep_seconds]
        boxes_px = np.asarray(boxes_px, np.float64).reshape(-1, 4)
        centres = (boxes_px[:, :2] + boxes_px[:, 2:]) / 2
        reach = (boxes_px[:, 2:] - boxes_px[:, :2]).max(axis=1, initial=0.0) / 2
        known = np.array([k.centre for k in self.tracks]).reshape(-1, 2)
        distances = np.linalg.norm(centres[:, None, :] - known[None, :, :], axis=2)
        near = zip(*np.nonzero(distances <= reach[:, None]), strict=True)
        pairs = closest_first((float(distances[i, j]), int(i), int(j)) for i, j in near)
        track_of = {i: self.tracks[j] for i, j in pairs.items()}
        for i in range(len(centres)):
            track = track_of.get(i)
            if track is None:
                track = track_of[i] = _Track(centres[i], Counter(), t)
                self.tracks.append(track)
            track.centre, track.last_t = centres[i], t
            track.votes.update(shares[i])
        votes = [track_of[i].votes for i in range(len(centres))]
        bonus = [
            {c: STAYING_BONUS * sum(votes[i].values()) for c in staying[i]}
            if i < len(staying)
            else {}
            for i in range(len(votes))
        ]
        return assign_figures(votes, bonus)


def assign_figures(
    votes: Sequence[Mapping[str, float]], bonus: Sequence[Mapping[str, float]] = ()
) -> list[str | None]:
    """Name each figure box once, and each colour once, from each box's colour votes (its
    colour shares, summed over frames): the naming with the most votes in all (each adventurer
    is one figure, so a box whose colour a hand or a warm light pulls toward another's gives
    way to the box that colour fills, and a box that shows two colours takes the one no other
    box shows). A colour must hold `FIGURE_SHARE` of a box's votes to name it; `bonus` adds,
    per box, to some colours' votes when weighing the namings."""
    options = [
        [
            (c, v + (bonus[i].get(c, 0.0) if i < len(bonus) else 0.0))
            for c, v in box.items()
            if v > 0 and v >= FIGURE_SHARE * sum(box.values())
        ]
        for i, box in enumerate(votes)
    ]
    bits = {c: 1 << k for k, c in enumerate(sorted({c for opts in options for c, _ in opts}))}
    # the best naming of the boxes so far, for each set of colours it uses (at most 2^6 sets)
    best: dict[int, tuple[float, tuple[str | None, ...]]] = {0: (0.0, ())}
    for opts in options:
        after: dict[int, tuple[float, tuple[str | None, ...]]] = {}
        for used, (score, named) in best.items():
            choices = [(used, score, (*named, None))]
            choices += [
                (used | bits[c], score + v, (*named, c)) for c, v in opts if not used & bits[c]
            ]
            for key, total, naming in choices:
                if key not in after or total > after[key][0]:
                    after[key] = (total, naming)
        best = after
    return list(max(best.values(), key=lambda entry: entry[0])[1])
