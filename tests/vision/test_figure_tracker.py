"""Figure colours over frames: a hand's skin over a figure never renames it."""

from __future__ import annotations

import numpy as np
import pytest

from vision.bench.robustness import warm_lamp
from vision.stages.figures import FIGURE_RGB, FIGURE_SHARE, FigureTracker, figure_shares

PURPLE_BOX = [100.0, 100.0, 150.0, 150.0]
ORANGE_BOX = [400.0, 300.0, 450.0, 350.0]
PLAYERS = list(FIGURE_RGB)
SKIN_TONES = [
    (0.98, 0.86, 0.76),
    (0.96, 0.80, 0.69),
    (0.89, 0.68, 0.54),
    (0.76, 0.55, 0.40),
    (0.55, 0.37, 0.25),
    (0.36, 0.24, 0.17),
]
"""Skin from the palest to the darkest (the tones the renderers draw hands in)."""


def _picture(top: tuple[float, float, float], bottom: tuple[float, float, float]) -> np.ndarray:
    """A 40 x 40 px BGR picture: `top` (RGB 0..1) over its upper half, `bottom` below, each
    shaded from 0.6 to 1 of its brightness left to right (a figure's sides are in shadow)."""
    shade = np.linspace(0.6, 1.0, 40)[None, :, None]
    halves = [
        np.array(rgb[::-1])[None, None, :] * shade * np.ones((20, 1, 1)) for rgb in (top, bottom)
    ]
    return np.round(np.concatenate(halves) * 255).astype(np.uint8)


def _frames(
    tracker: FigureTracker, shares: list[dict[str, float]], frames: int, t: float
) -> tuple[list[str | None], float]:
    boxes = np.array([PURPLE_BOX, ORANGE_BOX][: len(shares)], np.float32)
    named: list[str | None] = []
    for _ in range(frames):
        t += 0.1
        named = tracker.update(boxes, shares, t)
    return named, t


def test_a_hand_over_a_figure_does_not_give_it_the_orange_figures_colour() -> None:
    tracker = FigureTracker()
    seen = [{"purple": 0.8, "orange": 0.2}, {"orange": 0.99}]
    named, t = _frames(tracker, seen, 20, 0.0)
    assert named == ["purple", "orange"]
    skin = [{"orange": 1.0}, {"orange": 0.99}]  # a hand over the purple figure reads as orange
    named, t = _frames(tracker, skin, 5, t)
    assert named == ["purple", "orange"]
    # one frame's colours alone would have named the purple figure orange
    assert FigureTracker().update(np.array([PURPLE_BOX, ORANGE_BOX]), skin, 0.0)[0] == "orange"


def test_a_colour_goes_to_one_figure_box_only() -> None:
    tracker = FigureTracker()
    named, _ = _frames(tracker, [{"orange": 0.9}, {"orange": 0.95}], 3, 0.0)
    assert named == [None, "orange"]


def test_a_figure_set_down_where_another_was_lifted_is_read_afresh() -> None:
    tracker = FigureTracker()
    named, t = _frames(tracker, [{"purple": 0.9}], 20, 0.0)
    assert named == ["purple"]
    t += tracker.keep_seconds + 0.5  # the purple figure was picked up
    assert tracker.update(np.zeros((0, 4), np.float32), [], t) == []
    named, _ = _frames(tracker, [{"green": 0.9}], 3, t)
    assert named == ["green"]


def test_a_figure_showing_two_colours_is_the_one_standing_in_its_cell() -> None:
    # at 720p a green figure can read yellow about as often as green: where the engine has
    # green standing, it stays green; with nobody standing there, the likelier colour names it
    box = np.array([PURPLE_BOX], np.float32)
    split = [{"yellow": 0.5, "green": 0.45, "orange": 0.05}]
    assert FigureTracker().update(box, split, 0.0) == ["yellow"]
    assert FigureTracker().update(box, split, 0.0, [{"green"}]) == ["green"]
    # a figure plainly of another colour is that colour, whoever stood there
    plain = [{"yellow": 0.9, "green": 0.1}]
    assert FigureTracker().update(box, plain, 0.0, [{"green"}]) == ["yellow"]


def test_a_hand_over_a_figure_votes_for_the_figure_alone() -> None:
    # skin of every tone is less saturated than the figures: it votes for no colour at all
    for tone in SKIN_TONES:
        picture = _picture(FIGURE_RGB["purple"], tone)
        assert figure_shares(picture, [0, 0, 40, 40], PLAYERS) == {"purple": 1.0}, tone


def test_every_figure_reads_as_itself_in_shade_and_under_a_warm_lamp() -> None:
    rng = np.random.default_rng(0)
    for colour, rgb in FIGURE_RGB.items():
        picture = _picture(rgb, rgb)
        for lit in (picture, warm_lamp(picture, None, rng)):  # type: ignore[arg-type]
            shares = figure_shares(lit, [0, 0, 40, 40], PLAYERS)
            assert max(shares, key=shares.__getitem__) == colour, (colour, shares)
            assert shares[colour] >= FIGURE_SHARE


def test_a_loose_figure_box_votes_from_its_middle_not_the_art_around_the_figure() -> None:
    # the orange figure fills the middle half of a loose box on warm chamber art (which votes
    # yellow): the whole box would read yellow
    art = np.array([0.15, 0.60, 0.85])[None, None, :]  # BGR
    picture = np.round(np.ones((60, 60, 1)) * art * 255).astype(np.uint8)
    orange = np.array(FIGURE_RGB["orange"][::-1])
    picture[15:45, 15:45] = np.round(orange * 255).astype(np.uint8)
    assert figure_shares(picture, [0, 0, 60, 60], PLAYERS) == pytest.approx(
        {"orange": 900 / 1296, "yellow": 396 / 1296}
    )
