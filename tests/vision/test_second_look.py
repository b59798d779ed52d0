"""A die the face reader is unsure of is looked at again (issue 20, item 3): through the whole
pipeline (motion gate, shipped localiser and reader on ONNX Runtime), players' dice lying still
are read wholly right in more frames with the second look than with one crop a die.

Measured on ten 10 s five-player games at 1280x720 (seeds 4251-4260): the second look read
+9 still zone-frames right of 2,481 (flat dice; the leaning ones the same), in 3 games, and
never fewer. The two games here are two of those 3 (a first crop left dice unsure in them)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import pytest

from models.synth.game_video import GamePlan, render_game
from models.synth.settings import SynthSettings
from rules.engine import Game
from vision.bench.events import GameVideo
from vision.perception.localiser import Localiser, LocaliserSettings
from vision.perception.shipped import FACES, LOCALISER, shipped_path
from vision.pipeline import build_pipeline

SEEDS = (4252, 4256)
"""Game seeds no training or tuning run used."""

pytestmark = pytest.mark.skipif(
    not (shipped_path(LOCALISER).is_file() and shipped_path(FACES).is_file()),
    reason="no shipped localiser and face reader",
)


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two 5-player games of 10 s at 10 frames a second, at 1280x720 (dice about 20 px)."""
    out = []
    for seed in SEEDS:
        folder = tmp_path_factory.mktemp(f"game{seed}")
        settings = SynthSettings(width=1280, height=720)
        render_game(GamePlan(folder, settings, players=5, seconds=10.0, fps=10.0, seed=seed))
        out.append(folder)
    return out


def _reads(folder: Path, second_look: bool) -> Counter[str]:
    """Run the pipeline over the video; count the still frames of each player's dice at rest,
    those with a die leaning on another and without, and those whose dice were all read right."""
    video = GameVideo.load(folder)
    game = Game.from_setup_line(video.setup)
    settings = LocaliserSettings(threads=2, second_look=second_look)
    pipeline = build_pipeline(
        Localiser(shipped_path(LOCALISER), settings), video.scene(list(game.players)), lambda: game
    )
    truth = [json.loads(line) for line in (folder / "frames.jsonl").open()]
    capture = cv2.VideoCapture(str(video.video))
    counts: Counter[str] = Counter()
    for seq, frame in enumerate(truth):
        ok, image = capture.read()
        assert ok
        seen = pipeline.process(image, seq, float(frame["t"])).observation
        for player, zone in frame["dice"].items():
            if zone["state"] != "rest" or player in seen.busy:
                continue
            dice = [d for d in zone["dice"] if d["state"] in ("rest", "locked", "leaning")]
            kind = "leaning" if any(d["state"] == "leaning" for d in dice) else "flat"
            read = sorted(d.face or "?" for d in seen.dice.get(player, ()))
            counts[kind] += 1
            counts[f"{kind} right"] += read == sorted(d["face"] for d in dice)
    capture.release()
    return counts


def test_a_die_read_unsurely_is_looked_at_again(games: list[Path]) -> None:
    once = sum((_reads(g, second_look=False) for g in games), Counter())
    again = sum((_reads(g, second_look=True) for g in games), Counter())
    assert once["leaning"] >= 20 and once["flat"] >= 200
    assert again["flat right"] + again["leaning right"] > once["flat right"] + once["leaning right"]
    assert again["flat right"] >= once["flat right"], (once, again)
    assert again["leaning right"] >= once["leaning right"], (once, again)
