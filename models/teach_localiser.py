"""Teaching the localiser one's own dice, when it does not find them: a short fine-tune.

The reader can only name dice the localiser finds. When the user had to add many dice by a
click (`NEEDS_SHARE` of the dice in the review), or asks for it, the localiser is fine-tuned
from the shipped weights at a tenth of its learning rate (`models.localiser.train`) for a few
minutes on the user's photos, mixed with rendered frames of the shipped look so that it keeps
finding what it found. The user's photos become a `templecam synth`-style dataset: the reviewed
dice are the dice (what the review calls not a die is background), and the gems, tiles and
figures are what the shipped localiser itself finds there (its own pseudo-labels: the fine-tune
should leave them as they are). The held-back photos validate it; it passes when it finds at
least as many of their dice as before.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2

from base.files import write_atomically
from models.localiser.train import LocaliserConfig, train_localiser
from models.synth.dataset import DatasetPlan, generate
from models.synth.settings import SynthSettings
from teach.review import Review
from vision.perception.classes import FACES, HAND, PIECES

NEEDS_SHARE = 0.2
"""Share of the reviewed dice added by a click that makes `auto` fine-tune the localiser."""
SHIPPED_LOCALISER = Path(__file__).resolve().parent / "templecam-default.pt"
REPLAY_FRAMES = 24
"""Rendered frames of the shipped look mixed into the fine-tune."""
PSEUDO_CONF = 0.3
"""Lowest score of the shipped localiser's pieces taken as labels of the user's photos."""


@dataclass(frozen=True)
class LocaliserTeach:
    """How the localiser is taught (`models.teach.TeachConfig.localiser_fit`)."""

    minutes: float = 2.0
    eval_every: int = 40
    threads: int = 2
    seed: int = 0


def needs_localiser(review: Review) -> bool:
    """Tell whether the user added so many dice by hand that the localiser should learn them."""
    dice = [d for d in review.dice if d.label in FACES]
    added = sum(1 for d in dice if d.source == "added")
    return bool(dice) and added / len(dice) >= NEEDS_SHARE


def _scene(review: Review, file: str, pieces: Any) -> dict[str, Any]:
    """Return the scene JSON of one photo: the reviewed dice and the localiser's pieces."""
    dice = [
        {"box": list(d.box), "label": d.label}
        for d in review.dice
        if d.image == file and d.label in FACES
    ]
    by_kind: dict[str, list[dict[str, Any]]] = {name: [] for name in (*PIECES, HAND)}
    for box, name, conf in zip(pieces.xyxy, pieces.names, pieces.confidence, strict=True):
        if name in by_kind and conf >= PSEUDO_CONF:
            by_kind[name].append({"box": [float(v) for v in box], "label": name})
    return {
        "dice": dice,
        "tiles": by_kind["tile"],
        "draw_pile": {"pieces": by_kind["tile_back"]},
        "gems": {"items": by_kind["gem"]},
        "figures": by_kind["figure"],
        "hands": by_kind[HAND],
    }


def photos_dataset(folder: Path, review: Review, back: set[str], localiser: Any, out: Path) -> Path:
    """Write the user's photos as a synth-style dataset (held-back photos as val); return it."""
    for index, capture in enumerate(review.captures):
        image = cv2.imread(str(Path(folder) / capture.file), cv2.IMREAD_COLOR)
        if image is None:
            continue
        split = "val" if capture.file in back else "train"
        stem = f"photo_{index:05d}"
        pieces = localiser.locate(image, PSEUDO_CONF)
        scene = _scene(review, capture.file, pieces)
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(folder) / capture.file, out / "images" / split / f"{stem}.jpg")
        write_atomically(out / "scenes" / split / f"{stem}.json", json.dumps(scene).encode("utf-8"))
    if not (out / "images" / "val").is_dir():  # no photo held back: validate on what it learns
        shutil.copytree(out / "images" / "train", out / "images" / "val")
        shutil.copytree(out / "scenes" / "train", out / "scenes" / "val")
    return out


def replay_frames(cache: Path) -> Path:
    """Return a folder of rendered frames of the shipped look (rendered once, then reused)."""
    out = cache / f"localiser-replay-{REPLAY_FRAMES}"
    plan = DatasetPlan(out, SynthSettings(), 7_000_000, REPLAY_FRAMES, 0.25)
    generate(plan)
    return out


def teach_localiser(
    folder: Path,
    review: Review,
    back: set[str],
    out: Path,
    cache: Path,
    settings: LocaliserTeach,
    log: Callable[[str], None],
    progress: Callable[[str, int, int], None],
) -> dict[str, Any]:
    """Fine-tune the localiser (see the module docstring); return its figures and checks."""
    from vision.perception.localiser import Localiser
    from vision.perception.models import default_model

    path, _ = default_model()
    photos = photos_dataset(folder, review, back, Localiser(path), out / "photos")
    replay = replay_frames(cache)
    config = LocaliserConfig(
        data=(photos, replay),
        out=out,
        base=SHIPPED_LOCALISER,
        eval_every=settings.eval_every,
        patience=1,
        lr_drops=1,
        max_minutes=settings.minutes,
        threads=settings.threads,
        seed=settings.seed,
        command="templecam teach (localiser)",
    )
    budget = settings.minutes

    def step(done: int, minutes: float, row: dict[str, float] | None) -> None:
        progress("localiser", min(int(minutes * 600), int(budget * 600)), int(budget * 600))

    card = train_localiser(config, log=log, progress=step)
    shutil.rmtree(out / "photos", ignore_errors=True)
    (out / "last.pt").unlink(missing_ok=True)
    history = card["history"]
    before = history[0].get("score")
    after = max((row.get("score") or 0.0) for row in history)
    problems = []
    if before is not None and after < before:
        problems.append(f"it finds fewer of the held-back dice ({after:.3f} against {before:.3f})")
    return {
        "found_before": before,
        "found_after": after,
        "steps": history[-1].get("step"),
        "minutes": card["minutes"],
        "stopped": card["stopped"],
        "problems": problems,
    }
