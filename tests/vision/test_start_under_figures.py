"""The temple grid is found on the first frame even while the figures hide the start chamber."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from models.synth.game_video import GamePlan, render_game
from models.synth.settings import SynthSettings
from rules.engine import Game
from vision.bench.events import GameVideo
from vision.perception.models import live_detector
from vision.pipeline import build_pipeline
from vision.sources.open import open_source, read_all


@pytest.fixture(scope="module", params=[1, 2, 3])
def game_start(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first second of a five-player game, every figure in the start chamber."""
    out = tmp_path_factory.mktemp(f"start{request.param}")
    settings = SynthSettings(width=960, height=540)
    render_game(GamePlan(out, settings, players=5, seconds=1.0, fps=5.0, seed=request.param))
    return out


def test_the_chamber_the_figures_crowd_is_the_start_whatever_the_temple(game_start: Path) -> None:
    video = GameVideo.load(game_start)
    assert len(video.setup["temple"]) >= 2  # page 5's starting temple: more than one chamber
    game = Game.from_setup_line(video.setup)
    scene = video.scene(list(game.players))
    detector, _ = live_detector(None, None, "")
    pipeline = build_pipeline(detector, scene, lambda: game)
    first = next(read_all(open_source(str(video.video))))
    pipeline.process(first.image, first.seq, 0.0)
    assert scene.grid is not None, "no grid on the first frame"
    truth = json.loads((game_start / "truth.json").read_text("utf-8"))["grid"]
    assert scene.grid.origin_mm == pytest.approx(truth["origin_mm"], abs=tile_fraction(truth))


def tile_fraction(truth: dict[str, float]) -> float:
    """A fifth of a tile: the grid's origin lies on the start chamber, not on its neighbour."""
    return float(truth["tile_mm"]) / 5
