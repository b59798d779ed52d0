"""`templecam bench teach`: what teaching one's own dice gains, how long it takes, what it costs.

It renders a user's prompted captures of a dice look the shipped reader never trained on (the
held-out look: cherry wood, another maker's print colours, a low sun), scores the shipped
reader on held-out-look table frames and on frames of the shipped look, times the path from
captures to an active model (labels, fine-tune, checks, `use_model`) in a fresh data folder,
and scores the taught reader on the same frames. Every figure is the one `templecam eval`
prints (die faces: dice found by exactly one detection, of the right face).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.synth.dataset import DatasetPlan, generate, write_data_yaml
from models.synth.prompted import write_prompted
from models.synth.settings import SynthSettings
from models.teach import TeachConfig, teach
from teach.registry import active_model, load_taught, use_model
from vision.evaluate import evaluate, read_data_yaml
from vision.perception.localiser import Localiser, LocaliserSettings
from vision.perception.models import default_model

CONF = 0.3
"""The confidence the evaluation figures are read at (as in the perception figures)."""


@dataclass(frozen=True)
class TeachBenchPlan:
    """What one benchmark run renders and teaches."""

    work: Path
    per_face: int = 3
    empty: int = 2
    frames: int = 60
    """Table frames of each look scored before and after."""
    seed: int = 21
    epochs: int = 6
    threads: int = 2


def _frames(work: Path, look: str, frames: int, seed: int) -> Path:
    """Render (or reuse) `frames` table frames of a look; return their data.yaml."""
    out = work / f"frames-{look}-s{seed}"
    plan = DatasetPlan(out, SynthSettings(look=look), seed, frames, 1.0)
    generate(plan)
    return write_data_yaml(plan)


def _faces(data_yaml: Path, faces: str) -> dict[str, Any]:
    """Return die faces and false dice a frame of the shipped localiser with a reader."""
    path, _ = default_model()
    model = Localiser(path, LocaliserSettings(faces=faces))
    result = evaluate(model, read_data_yaml(data_yaml), conf=CONF)
    return {
        "die_faces": result.die_face_accuracy,
        "false_dice_per_frame": result.die_false_positives_per_image,
    }


def run_teach_bench(plan: TeachBenchPlan, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Run the benchmark (see the module docstring); return its figures."""
    seed = plan.seed
    captures = plan.work / f"captures-s{seed}-{plan.per_face}x{plan.empty}"
    if not captures.is_dir():
        log(f"bench teach: rendering {plan.per_face} photos a face and {plan.empty} empty")
        write_prompted(captures, SynthSettings(look="held_out"), plan.per_face, plan.empty, seed)
    (captures / "review.json").unlink(missing_ok=True)  # labelled afresh: part of the time
    log(f"bench teach: rendering {plan.frames} table frames of each look")
    held_out = _frames(plan.work, "held_out", plan.frames, seed + 1)
    standard = _frames(plan.work, "standard", plan.frames, seed + 2)
    log("bench teach: scoring the shipped reader")
    before = {"held_out": _faces(held_out, "auto"), "shipped": _faces(standard, "auto")}
    data = plan.work / f"data-{time.strftime('%Y%m%d-%H%M%S')}"
    out = data / "models" / "taught" / "bench"
    cached = any((plan.work / "cache").glob("replay-*.npz"))
    log("bench teach: teaching (labels, fine-tune, checks, switch)")
    started = time.monotonic()
    card = teach(
        TeachConfig(
            captures,
            out,
            epochs=plan.epochs,
            threads=plan.threads,
            seed=seed,
            cache=plan.work / "cache",
        ),
        log=log,
    )
    if card["checks"]["passed"]:
        use_model(data, "bench")
    to_active = time.monotonic() - started
    active = active_model(data)
    log("bench teach: scoring the taught reader")
    faces = str(load_taught(out).faces_path)  # what runs: its int8 copy
    after = {"held_out": _faces(held_out, faces), "shipped": _faces(standard, faces)}
    return {
        "captures": {"per_face": plan.per_face, "empty": plan.empty, "look": "held_out"},
        "frames": plan.frames,
        "before": before,
        "after": after,
        "seconds_to_active_model": round(to_active, 1),
        "replay_was_cached": cached,
        "active": active.name if active else None,
        "checks": card["checks"],
        "held_back": card["figures"]["held_back"],
        "shipped_look_crops": card["figures"]["shipped_look"],
    }
