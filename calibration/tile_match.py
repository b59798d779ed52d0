"""Which enrolled tile a top-down cell picture shows, and which table side its stairway faces.

The cell's ORB features are matched against every enrolled picture (ratio test per tile). The
tiles with the most matches, plus the two whose colour thumbnail (in its best quarter turn) is
most like the cell's centre, get a rotation, scale and shift fitted with RANSAC, which must be a
near quarter turn at a plausible scale. The winner has the most agreeing features weighted by
how alike the cell, turned back into the tile's frame, looks to the tile's picture: tiles that
share their icons (many basic chambers do) differ in the rest of their art.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.enrollment import Appearance, TileLibrary
from calibration.tile_features import (
    CANONICAL_PX,
    QUERY_FEATURES,
    THUMB_PX,
    Features,
    describe,
    likeness,
    thumbnail,
)
from rules.vocabulary import SIDES

COVERAGE_GRID = 4
"""The tile is cut into this many rows and columns to see how much of it the matches cover."""

DEFAULT_TILE_SHARE = 0.77
"""The tile's edge as a share of the cell picture's side when `tile_px` is not given."""


@dataclass(frozen=True)
class TileMatch:
    """A recognised tile: its id (or `back`), where its stairway faces, and how sure."""

    tile: str
    stairs: str
    """The table side (N, E, S, W) the stairway faces, the cell picture's top being north."""
    quarter_turns: int
    """Clockwise quarter turns from the tile's own frame (stairway S) to how it lies."""
    angle_deg: float
    """The measured clockwise turn in degrees (0-360), before snapping to a quarter turn."""
    scale: float
    """The tile's measured edge over the expected `tile_px`."""
    inliers: int
    """Feature matches that agree with the fitted placement."""
    similarity: float
    """Correlation of the cell, turned into the tile's frame, with the enrolled picture (-1..1)."""
    confidence: float
    """0..1: enough agreeing features, a picture that looks alike, and no close runner-up."""


SURE = 0.4
"""Confidence from which no match was wrong in our measurements, unenrolled tiles included."""


@dataclass(frozen=True)
class MatchSettings:
    """Thresholds of `identify` (the defaults were measured on rendered table frames)."""

    first_pass: int = 150
    """How many of the cell's strongest keypoints are matched against every tile."""
    candidates: int = 4
    """How many tiles, most first-pass matches first, are matched in full and get a placement."""
    thumb_candidates: int = 2
    """How many tiles most alike by thumbnail get a placement fitted too."""

    ratio: float = 0.8
    """Lowe's ratio test: best descriptor distance over the second best, per tile."""
    min_inliers: int = 12
    max_angle_error_deg: float = 12.0
    """How far from a quarter turn a placement may be (tiles lie square in their cells)."""
    scale_tolerance: float = 0.25
    """How far the tile's measured edge may be from `tile_px` (a share)."""
    reprojection_px: float = 4.0
    """RANSAC tolerance, in cell-picture pixels."""
    min_similarity: float = 0.3
    min_confidence: float = SURE
    """Below this the answer is None (a wrong tile costs more than an unknown one). Lower it
    for a best guess: enrolled tiles half hidden or blurred can score 0.25-0.4, but so can a
    look-alike tile that was never enrolled."""


DEFAULT_SETTINGS = MatchSettings()


@dataclass(frozen=True)
class _Fit:
    """One candidate's fitted placement (canonical px -> cell px) and its scores."""

    tile: str
    matrix: np.ndarray
    angle: float
    scale: float
    inliers: int
    similarity: float
    coverage: float = 0.0

    @property
    def score(self) -> float:
        # Agreeing features say "this tile, lying this way"; among tiles that share their icons
        # the likeness of the aligned picture (stone pattern, colour) decides.
        return self.inliers * max(self.similarity, 0.0)


def stairs_for(quarter_turns: int) -> str:
    """Return the table side the stairway faces after `quarter_turns` clockwise turns."""
    return SIDES[(SIDES.index("S") + quarter_turns) % 4]


def identify(
    library: TileLibrary,
    cell_image_bgr: np.ndarray,
    *,
    tile_px: float | None = None,
    settings: MatchSettings = DEFAULT_SETTINGS,
) -> TileMatch | None:
    """Return the enrolled tile (or `back`) a cell picture shows, or None when none matches.

    The picture is a top-down view of one temple cell, north up, centred on the cell (8-bit
    BGR). `tile_px` is the tile's edge in its pixels (default: 77 % of the picture's side).
    """
    if cell_image_bgr.ndim == 2:
        cell_image_bgr = cv2.cvtColor(cell_image_bgr, cv2.COLOR_GRAY2BGR)
    side = min(cell_image_bgr.shape[:2])
    if side < 32:
        return None
    expected = float(tile_px) if tile_px else DEFAULT_TILE_SHARE * side
    # One shrunk copy serves the thumbnail pass and every likeness check.
    shrink = min(1.0, THUMB_PX / expected)
    small = cv2.resize(cell_image_bgr, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
    query = describe(cell_image_bgr, QUERY_FEATURES)
    if len(query) < settings.min_inliers or query.descriptors is None:
        return None
    references = library.references()
    # The strongest keypoints rank every tile; the rest are matched for the shortlist only.
    first = settings.first_pass
    pairs = [_pairs(query, appearance, settings, 0, first) for _, appearance in references]
    by_matches = np.argsort([-len(p) for p in pairs], kind="stable")[: settings.candidates]
    by_looks = _most_alike(references, small, expected * shrink, settings.thumb_candidates)
    fits = []
    for i in dict.fromkeys([*by_matches.tolist(), *by_looks]):
        tile_id, appearance = references[i]
        found = np.vstack([pairs[i], _pairs(query, appearance, settings, first, len(query))])
        fit = _fit(tile_id, appearance, found, query, small, shrink, expected, settings)
        if fit is not None:
            fits.append(fit)
    if not fits:
        return None
    fits.sort(key=lambda f: f.score, reverse=True)
    best = fits[0]
    if best.similarity < settings.min_similarity:
        return None
    runner_up = fits[1].score if len(fits) > 1 else 0.0
    confidence = _confidence(best, runner_up)
    if confidence < settings.min_confidence:
        return None
    turns = round(best.angle / 90) % 4
    return TileMatch(
        tile=best.tile,
        stairs=stairs_for(turns),
        quarter_turns=turns,
        angle_deg=round(best.angle % 360, 2),
        scale=round(best.scale * CANONICAL_PX / expected, 4),
        inliers=best.inliers,
        similarity=round(best.similarity, 4),
        confidence=round(confidence, 3),
    )


def _confidence(best: _Fit, runner_up_score: float) -> float:
    """Map inliers, their spread over the tile, likeness and the lead to 0..1."""
    support = min(1.0, best.inliers / 30)
    # A tile that was never enrolled still matches the icons and stairs it shares with
    # enrolled ones, but not the rest of their art.
    spread = min(1.0, best.coverage / 0.4)
    looks = min(1.0, max(0.0, (best.similarity - 0.2) / 0.5))
    lead = 1.0 - runner_up_score / max(best.score, 1e-9)
    return support * spread * looks * min(1.0, 0.4 + lead)


def _most_alike(
    references: list[tuple[str, Appearance]], small_bgr: np.ndarray, tile_px: float, count: int
) -> list[int]:
    """Return the indices of the references whose thumbnail, in its best quarter turn, is most
    like the centre of the (shrunk) cell picture."""
    if not references or count <= 0:
        return []
    h, w = small_bgr.shape[:2]
    half = max(2, round(tile_px / 2))
    cy, cx = h // 2, w // 2
    ours = thumbnail(small_bgr[max(0, cy - half) : cy + half, max(0, cx - half) : cx + half])
    stack = np.stack([appearance.thumb for _, appearance in references])
    best = np.full(len(references), -np.inf)
    for turns in range(4):
        best = np.maximum(best, likeness(stack, np.rot90(ours, turns)))
    return np.argsort(-best, kind="stable")[:count].tolist()


def _pairs(
    query: Features, appearance: Appearance, settings: MatchSettings, start: int, stop: int
) -> np.ndarray:
    """Return the (reference, query) pairs (N, 2) of query[start:stop] passing the ratio test."""
    ref = appearance.features
    if ref.descriptors is None or len(ref) < 2 or query.descriptors is None or start >= stop:
        return np.zeros((0, 2), np.int64)
    descriptors = query.descriptors[start:stop]
    distance, nearest = cv2.batchDistance(
        descriptors, ref.descriptors, -1, normType=cv2.NORM_HAMMING, K=2
    )
    keep = np.flatnonzero(distance[:, 0] < settings.ratio * distance[:, 1])
    return np.column_stack([nearest[keep, 0], start + keep]).astype(np.int64)


def _fit(
    tile_id: str,
    appearance: Appearance,
    pairs: np.ndarray,
    query: Features,
    small_bgr: np.ndarray,
    shrink: float,
    expected_px: float,
    settings: MatchSettings,
) -> _Fit | None:
    """Fit a placement to the matches with RANSAC; None when too few agree or it is implausible."""
    ref = appearance.features
    if len(pairs) < settings.min_inliers:
        return None
    matrix, mask = cv2.estimateAffinePartial2D(
        ref.points[pairs[:, 0]],
        query.points[pairs[:, 1]],
        method=cv2.RANSAC,
        ransacReprojThreshold=settings.reprojection_px,
        maxIters=2000,
        confidence=0.995,
    )
    if matrix is None or mask is None or int(mask.sum()) < settings.min_inliers:
        return None
    scale = math.hypot(matrix[0, 0], matrix[1, 0])
    angle = math.degrees(math.atan2(matrix[1, 0], matrix[0, 0]))
    off_square = abs((angle + 45) % 90 - 45)
    size_error = abs(scale * CANONICAL_PX / expected_px - 1)
    if off_square > settings.max_angle_error_deg or size_error > settings.scale_tolerance:
        return None
    # Sample the shrunk cell at the thumbnail's pixels: thumb px -> canonical px -> cell px.
    to_small = shrink * matrix @ np.diag([CANONICAL_PX / THUMB_PX, CANONICAL_PX / THUMB_PX, 1.0])
    aligned = cv2.warpAffine(
        small_bgr,
        to_small,
        (THUMB_PX, THUMB_PX),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    similarity = float(likeness(appearance.thumb[None], thumbnail(aligned))[0])
    agreeing = ref.points[pairs[mask.ravel() > 0, 0]]
    cells = np.clip(
        (agreeing * (COVERAGE_GRID / CANONICAL_PX)).astype(np.int64), 0, COVERAGE_GRID - 1
    )
    coverage = len(np.unique(cells[:, 1] * COVERAGE_GRID + cells[:, 0])) / COVERAGE_GRID**2
    return _Fit(tile_id, matrix, angle, scale, int(mask.sum()), similarity, coverage)
