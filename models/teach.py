"""Teaching the face reader one's own dice: label, fine-tune on the CPU, compare, check, publish.

`teach` takes a prompted capture folder (`teach.prompted`), labels it with the localiser unless
the user already reviewed it (`teach.review`), and fine-tunes the reader in use from its weights
on jittered crops of the user's dice mixed with as many rendered crops of the training look
(a replay, so that what the reader knew is not forgotten). It compares the old and new reader
through ONNX Runtime on the photos held back from training (`teach.prompted.held_back`) and on
fresh rendered crops of the shipped look, checks the new one, and writes the model folder
(`faces.onnx`, its int8 copy `faces-int8.onnx` that runs, `faces.pt`, `card.json`, `card.md`,
`wrong.png`) through a `.partial` folder that is renamed only when everything is written: an
interrupted run never leaves half a model.
"""

from __future__ import annotations

import json
import math
import platform
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from base.files import write_atomically
from base.paths import data_dir
from models.faces_fit import FitConfig, fit
from models.faces_int8 import quantize_reader
from models.faces_net import FaceWeightsError, export_onnx, load_weights, save_weights
from models.faces_report import confusion
from models.synth.crop_look import TRAIN_LOOK
from models.synth.crop_set import CropSet
from models.synth.crops import LABELS
from teach.crop_sets import Crops, cut_crops
from teach.dataset_review import DATASET_PROMPT
from teach.errors import TeachError
from teach.prompted import EMPTY, PROMPTS, held_back, read_prompted
from teach.registry import PARTIAL, publish
from teach.review import Review, auto_label, load_review
from vision.perception.face_reader import FaceModelError, FaceReader, default_faces_path
from vision.perception.model_choice import FACES_INT8_FILE

CARD_FORMAT = "templecam-taught-card/1"
SHIPPED_FACES = Path(__file__).resolve().parent / "templecam-faces.pt"
"""The shipped reader's weights: where teaching starts unless told otherwise."""
REPLAY_SEED = 7_000_000
"""Seed of the rendered replay crops (apart from every other crop set)."""
MAX_SHIPPED_LOSS = 0.03
"""Largest drop of accuracy on the shipped look that a taught model may show and still pass."""

Progress = Callable[[str, int, int], None]
"""progress(stage, done, total): what the run is doing, for a bar with an ETA."""


@dataclass(frozen=True)
class TeachConfig:
    """What one `teach` call does."""

    prompted: Path | None
    """The prompted capture folder (`teach.prompted`); None when teaching from `dataset`."""
    out: Path
    """The model folder to write (must not exist, or be empty)."""
    dataset: Path | None = None
    """A labelled dataset (`teach.datasets.load_dataset`) to teach from instead."""
    mapping: tuple[tuple[str, str], ...] = ()
    """The dataset's class names mapped to templecam's (`--map old=new`)."""
    base: Path | None = None
    """Reader weights (.pt) to start from; None: the shipped reader."""
    before: Path | None = None
    """The reader (.onnx) the camera uses now, compared with the new one; None: the base's."""
    localiser: Path | None = None
    """The localiser that labels the photos; None: the shipped one."""
    copies: int = 16
    """Jittered crops of each of the user's dice per epoch."""
    replay: int = 3000
    """Rendered crops of the training look mixed in."""
    occlude: float = 0.3
    """Share of the jittered crops of dice partly covered (`teach.crop_sets.cut_crops`)."""
    check_crops: int = 1000
    """Rendered crops of the shipped look the old and new reader are compared on."""
    epochs: int = 6
    lr: float = 0.004
    """Peak learning rate of training from scratch; fine-tuning runs at a tenth of it."""
    threads: int = 2
    seed: int = 0
    cache: Path | None = None
    """Where rendered crops are cached between runs (None: the data folder's cache/)."""
    localiser_fit: str = "auto"
    """Fine-tune the localiser too: "on", "off", or "auto" (when many dice were added by hand,
    `models.teach_localiser.needs_localiser`)."""
    localiser_minutes: float = 2.0
    localiser_eval_every: int = 40
    """Training steps of the localiser between validations (its stops are checked there)."""
    command: str = ""


def _silent(stage: str, done: int, total: int) -> None:
    """Report nothing."""


def _check_out(config: TeachConfig) -> None:
    """Refuse an output folder that holds anything (nothing of the user's is overwritten)."""
    out = config.out
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise TeachError(f"{out} exists and is not empty: give a new folder for the model")


def _start(config: TeachConfig) -> Path:
    """Check the output folder; return the staging folder the run writes into."""
    _check_out(config)
    out = config.out
    staging = out.with_name(out.name + PARTIAL)
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    return staging


def _review(
    config: TeachConfig, progress: Progress, log: Callable[[str], None]
) -> tuple[Review, Path, set[str]]:
    """Return what to teach: the review, the folder its files are in, and the held-back files.

    A prompted folder's review is the user's (brought up to date with new photos) or labelled
    afresh; a dataset's comes from its labels.
    """
    from vision.perception.localiser import Localiser
    from vision.perception.models import default_model

    if config.dataset is not None:
        from teach.dataset_review import dataset_review
        from teach.datasets import load_dataset

        view = load_dataset(config.dataset, dict(config.mapping))
        review, back = dataset_review(view)
        log(f"teach: {len(review.captures)} images of {view.format} {config.dataset}")
        return review, Path("/"), back
    if config.prompted is None:
        raise TeachError("give a prompted capture folder or a dataset to teach from")
    saved = load_review(config.prompted)
    captures = read_prompted(config.prompted)
    if saved is not None and {c.file for c in saved.captures} == {c.file for c in captures}:
        log(f"teach: using the reviewed labels of {len(captures)} photos")
        return saved, config.prompted, held_back(captures)
    path, _ = default_model(config.localiser)
    localiser = Localiser(path)
    review = auto_label(
        config.prompted, localiser, lambda d, t: progress("label", d, t), keep=saved
    )
    review.save(config.prompted)
    log(f"teach: labelled {len(review.captures)} photos: {_counts_text(review.counts())}")
    return review, config.prompted, held_back(review.captures)


def _counts_text(counts: dict[str, int]) -> str:
    """Return label counts as words."""
    return ", ".join(f"{n} {label}" for label, n in counts.items())


def _as_set(crops: Crops) -> CropSet:
    """Return teaching crops as the trainer's crop set."""
    return CropSet(crops.images, crops.labels, [])


def _replay(
    config: TeachConfig,
    imgsz: int,
    crop_scale: float,
    log: Callable[[str], None],
    progress: Progress = _silent,
) -> tuple[CropSet, CropSet]:
    """Return rendered crops of the training look as the base reads them: the replay and the
    shipped-look check set (rendered once, then read from the cache; the first time shows as
    the `replay` stage)."""
    from models.faces_data import cached_set

    cache = config.cache or data_dir() / "cache"

    def quiet(message: str) -> None:
        """Keep the renderer's log lines out of the teaching log (the bar shows them)."""

    def rendered(done: int, total: int) -> None:
        progress("replay", done, total)

    # Rendered in this process: worker processes forked from one that has already run OpenCV
    # or ONNX Runtime threads (the dashboard's child, a test, the benchmark) can hang.
    sets = [
        cached_set(cache, kind, n, seed, TRAIN_LOOK, imgsz, crop_scale, 0, quiet, rendered)
        for kind, n, seed in (
            ("replay", config.replay, REPLAY_SEED),
            ("check", config.check_crops, REPLAY_SEED + 1),
        )
    ]
    log(f"teach: {len(sets[0])} rendered replay crops, {len(sets[1])} to check the shipped look")
    return sets[0], sets[1]


@dataclass(frozen=True)
class _Base:
    """The reader a run starts from: its weights file, model and crop settings."""

    path: Path
    model: Any
    imgsz: int
    crop_scale: float


def _base_reader(weights: Path) -> Path:
    """Return the reader (.onnx) of the weights a run starts from: the shipped reader for the
    shipped weights (run-time data, `vision.perception.shipped`), else the .onnx beside the .pt."""
    if weights.resolve() == SHIPPED_FACES.resolve():
        return default_faces_path()
    return weights.with_suffix(".onnx")


def _base(config: TeachConfig) -> _Base:
    """Load the reader to fine-tune (`config.base`, else the shipped one)."""
    path = config.base or SHIPPED_FACES
    try:
        model, settings = load_weights(path)
    except FaceWeightsError as error:
        raise TeachError(str(error)) from None
    if tuple(settings["names"]) != LABELS:
        raise TeachError(f"{path} reads {', '.join(settings['names'])}: not a reader to teach")
    return _Base(path, model, int(settings["imgsz"]), float(settings["crop_scale"]))


def _score(reader: FaceReader, crops: CropSet) -> dict[str, Any]:
    """Return per-face accuracy of an ONNX reader on crops, with the crops it got wrong."""
    if not len(crops.labels):
        return {"crops": 0, "top1": None, "per_class": {}, "wrong": []}
    probabilities = reader.predict(list(crops.images))
    result = confusion(np.asarray(crops.labels), probabilities, reader.names)
    order = [reader.names.index(n) for n in LABELS]
    read = probabilities[:, order].argmax(axis=1)
    result["wrong"] = [
        {"crop": int(i), "truth": LABELS[int(crops.labels[i])], "read": LABELS[int(read[i])]}
        for i in np.flatnonzero(read != np.asarray(crops.labels))
    ]
    result.pop("confusion", None)
    return result


def _wrong_picture(crops: CropSet, before: dict, after: dict, path: Path) -> None:
    """Draw the held-back crops each reader got wrong: before on top, after below."""
    rows = []
    for title, result in (("before", before), ("after", after)):
        tiles = [cv2.resize(crops.images[w["crop"]], (80, 80)) for w in result["wrong"][:24]]
        label = np.full((24, 80 * 8, 3), 255, np.uint8)
        cv2.putText(
            label,
            f"{title}: {len(result['wrong'])} wrong",
            (4, 17),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.5,
            (0, 0, 0),
            1,
        )
        rows.append(label)
        for start in range(0, max(len(tiles), 1), 8):
            row = tiles[start : start + 8]
            row += [np.full((80, 80, 3), 240, np.uint8)] * (8 - len(row))
            rows.append(np.hstack(row))
    ok, png = cv2.imencode(".png", np.vstack(rows))
    if ok:
        write_atomically(path, png.tobytes())


def _checks(before: dict, after: dict, shipped: dict, opened: bool) -> dict[str, Any]:
    """Return whether the new reader may become the active one, and why not."""
    problems = []
    if not opened:
        problems.append("the exported model does not open in ONNX Runtime")
    new, old = after["held_back"]["top1"], before["held_back"]["top1"]
    if new is not None and old is not None and new < old:
        problems.append(
            f"it reads the held-back photos worse than the reader in use ({new:.3f} against "
            f"{old:.3f})"
        )
    drop = shipped["before"]["top1"] - shipped["after"]["top1"]
    if drop > MAX_SHIPPED_LOSS:
        problems.append(
            f"it forgot the shipped dice ({shipped['after']['top1']:.3f} against "
            f"{shipped['before']['top1']:.3f} on rendered crops)"
        )
    return {"passed": not problems, "problems": problems}


def teach(
    config: TeachConfig,
    log: Callable[[str], None] = print,
    progress: Progress = _silent,
) -> dict[str, Any]:
    """Teach the reader the dice of `config.prompted` (see the module docstring); return its
    card. The model folder appears only once it is whole."""
    started = time.monotonic()
    _check_out(config)
    base = _base(config)
    replay = _replay(config, base.imgsz, base.crop_scale, log, progress)
    review, folder, back = _review(config, progress, log)
    staging = _start(config)
    try:
        card = _teach_into(
            config, base, review, folder, back, replay, staging, started, log, progress
        )
        final = staging.with_name(config.out.name)
        if final.exists():
            final.rmdir()  # an empty folder the user named
        publish(staging)
        return card
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _teach_into(
    config: TeachConfig,
    start: _Base,
    review: Review,
    folder: Path,
    back: set[str],
    replay_sets: tuple[CropSet, CropSet],
    staging: Path,
    started: float,
    log: Callable[[str], None],
    progress: Progress,
) -> dict[str, Any]:
    """Do the work of `teach` inside the staging folder; return the card."""
    base, model, imgsz, crop_scale = start.path, start.model, start.imgsz, start.crop_scale
    train = cut_crops(
        folder,
        review,
        lambda d: d.image not in back,
        imgsz,
        crop_scale,
        config.copies,
        config.seed,
        config.occlude,
    )
    held = cut_crops(folder, review, lambda d: d.image in back, imgsz, crop_scale)
    if not len(train):
        raise TeachError(
            f"{config.prompted or config.dataset}: no die was found in the photos kept for "
            "teaching: check that the dice are in view, or add them by a click on the /dice page"
        )
    replay, check = replay_sets
    progress("crops", 1, 1)
    before_path = config.before or _base_reader(base)
    before_reader = FaceReader(before_path, threads=config.threads)
    held_set = _as_set(held)
    before = {"held_back": _score(before_reader, held_set), "shipped": _score(before_reader, check)}
    mixed = CropSet(
        np.concatenate([train.images, replay.images]),
        np.concatenate([train.labels, replay.labels]),
        [],
    )
    val = {"held_back": held_set} if len(held) else {"taught": _as_set(train)}
    val["shipped_look"] = check
    fit_config = FitConfig(
        epochs=config.epochs,
        lr=config.lr,
        threads=config.threads,
        seed=config.seed,
        patience=config.epochs,
        keep_last=True,
    )
    log(
        f"teach: fine-tuning {base.name} on {len(train)} crops of your dice "
        f"({_counts_text(_label_counts(train))}) and {len(replay)} rendered ones"
    )
    state = fit(
        model,
        mixed,
        val,
        fit_config,
        staging / "last.pt",
        fine_tune=True,
        meta={"command": config.command},
        log=log,
        on_step=lambda d, t: progress("fine-tune", d, t),
    )
    (staging / "last.pt").unlink(missing_ok=True)
    localiser = _localiser(config, review, folder, back, staging, log, progress)
    progress("check", 0, 1)
    save_weights(staging / "faces.pt", model, LABELS, imgsz, crop_scale)
    onnx_path = export_onnx(model, staging / "faces.onnx", LABELS, imgsz, crop_scale)
    running = _int8_copy(onnx_path, staging / FACES_INT8_FILE, mixed.images, log)
    try:  # the checks read with the reader that will run
        after_reader: FaceReader | None = FaceReader(running, threads=config.threads)
    except FaceModelError:
        after_reader = None
    after = {
        "held_back": _score(after_reader, held_set) if after_reader else _nothing(),
        "shipped": _score(after_reader, check) if after_reader else _nothing(),
    }
    shipped = {"before": before["shipped"], "after": after["shipped"]}
    checks = _checks(before, after, shipped, after_reader is not None)
    if localiser is not None:
        checks["problems"] += localiser["problems"]
        checks["passed"] = not checks["problems"]
    _wrong_picture(held_set, before["held_back"], after["held_back"], staging / "wrong.png")
    seconds = round(time.monotonic() - started, 1)
    card = _card(config, review, back, train, held, base, before_path, before, after, state)
    card.update(checks=checks, seconds=seconds, localiser=localiser)
    write_atomically(staging / "card.json", (json.dumps(card, indent=1) + "\n").encode())
    write_atomically(staging / "card.md", card_markdown(card).encode())
    progress("check", 1, 1)
    return card


def _int8_copy(reader: Path, out: Path, crops: np.ndarray, log: Callable[[str], None]) -> Path:
    """Write the taught reader's int8 copy (what runs: about twice as fast, reading alike) and
    return it; when it cannot be made, say so and return the reader itself, which then runs."""
    try:
        return quantize_reader(reader, out, crops)
    except Exception as error:  # ONNX Runtime's tools raise their own types; the float one runs
        out.unlink(missing_ok=True)
        log(f"teach: no int8 copy ({error}): the reader runs as it is")
        return reader


def _localiser(
    config: TeachConfig,
    review: Review,
    folder: Path,
    back: set[str],
    staging: Path,
    log: Callable[[str], None],
    progress: Progress,
) -> dict[str, Any] | None:
    """Fine-tune the localiser when asked or needed; return its figures (None: not taught)."""
    from models.teach_localiser import LocaliserTeach, needs_localiser, teach_localiser

    wanted = config.localiser_fit == "on" or (
        config.localiser_fit == "auto" and needs_localiser(review)
    )
    if not wanted:
        return None
    log(f"teach: fine-tuning the localiser too ({config.localiser_minutes:g} min)")
    settings = LocaliserTeach(
        minutes=config.localiser_minutes,
        eval_every=config.localiser_eval_every,
        threads=config.threads,
        seed=config.seed,
    )
    cache = config.cache or data_dir() / "cache"
    return teach_localiser(
        folder, review, back, staging / "localiser", cache, settings, log, progress
    )


def _nothing() -> dict[str, Any]:
    """Return the score of a model that could not be run."""
    return {"crops": 0, "top1": 0.0, "per_class": {}, "wrong": []}


def _label_counts(crops: Crops) -> dict[str, int]:
    """Return crops per label."""
    return {name: int((crops.labels == k).sum()) for k, name in enumerate(LABELS)}


def _per_face(result: dict[str, Any]) -> dict[str, float | None]:
    """Return top-1 accuracy per label of a score."""
    return {name: row["top1"] for name, row in result.get("per_class", {}).items()}


def _card(
    config: TeachConfig,
    review: Review,
    back: set[str],
    train: Crops,
    held: Crops,
    base: Path,
    before_path: Path,
    before: dict[str, Any],
    after: dict[str, Any],
    state: Any,
) -> dict[str, Any]:
    """Return the taught model's card (card.json)."""
    import onnxruntime
    import torch

    prompts = PROMPTS if config.dataset is None else (DATASET_PROMPT,)
    photos = {p: sum(1 for c in review.captures if c.prompt == p) for p in prompts}
    return {
        "format": CARD_FORMAT,
        "name": config.out.name,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": config.command,
        "captures": {
            "folder": str(Path(config.prompted or config.dataset or ".").resolve()),
            "photos": photos,
            "held_back_photos": sorted(back),
            "dice": review.counts(),
            "empty_photos": photos.get(EMPTY, 0),
        },
        "crops": {"train": _label_counts(train), "held_back": _label_counts(held)},
        "started_from": str(base),
        "compared_with": str(before_path),
        "figures": {
            "held_back": {
                "before": before["held_back"]["top1"],
                "after": after["held_back"]["top1"],
                "per_face_before": _per_face(before["held_back"]),
                "per_face_after": _per_face(after["held_back"]),
            },
            "shipped_look": {
                "before": before["shipped"]["top1"],
                "after": after["shipped"]["top1"],
            },
        },
        "wrong": {"before": before["held_back"]["wrong"], "after": after["held_back"]["wrong"]},
        "held_back_dice": [int(i) for i in held.sources],
        "epochs": {"run": max(0, len(state.history) - 1), "kept": "last"},
        "history": state.history,
        "versions": {
            "torch": torch.__version__,
            "onnxruntime": onnxruntime.__version__,
            "python": platform.python_version(),
        },
    }


def card_markdown(card: dict[str, Any]) -> str:
    """Return the card as a short Markdown page."""
    figures = card["figures"]
    held, shipped = figures["held_back"], figures["shipped_look"]

    def f(value: float | None) -> str:
        return (
            "-"
            if value is None or (isinstance(value, float) and math.isnan(value))
            else f"{value:.3f}"
        )

    lines = [
        f"# Taught die-face reader {card['name']}",
        "",
        f"Made {card['created']} from {card['captures']['folder']} in {card['seconds']} s.",
        f"Started from `{Path(card['started_from']).name}`; compared with "
        f"`{Path(card['compared_with']).name}`.",
        "",
        "| photos | " + " | ".join(card["captures"]["photos"]) + " |",
        "|---|" + "---|" * len(card["captures"]["photos"]),
        "| | " + " | ".join(str(n) for n in card["captures"]["photos"].values()) + " |",
        "",
        "| held-back photos | before | after |",
        "|---|---|---|",
        f"| all crops | {f(held['before'])} | {f(held['after'])} |",
    ]
    for face in held["per_face_after"]:
        lines.append(
            f"| {face} | {f(held['per_face_before'].get(face))} | "
            f"{f(held['per_face_after'].get(face))} |"
        )
    lines += [
        f"| shipped look (rendered) | {f(shipped['before'])} | {f(shipped['after'])} |",
        "",
        _localiser_line(card),
        "",
        "Checks: "
        + ("passed" if card["checks"]["passed"] else "; ".join(card["checks"]["problems"])),
        "",
    ]
    return "\n".join(lines)


def _localiser_line(card: dict[str, Any]) -> str:
    """Return the card's line about the localiser: taught or not, and what it finds."""
    taught = card.get("localiser")
    if not taught:
        return "The localiser was not taught (the shipped one found your dice)."
    return (
        f"The localiser was taught too ({taught['minutes']:.1f} min, {taught['steps']} steps): "
        f"held-back score {taught['found_before']:.3f} before, {taught['found_after']:.3f} after."
    )
