"""Train the localiser on two CPU cores until its validation curve flattens; export it to ONNX.

`train_localiser(LocaliserConfig(...))` reads `templecam synth` datasets, trains on patches
(`models.localiser.data`) with CenterNet's focal loss, validates every `eval_every` steps on
whole validation frames at the run-time scale (dice found and false dice per frame), lowers the
learning rate when the score stalls and stops at the plateau: after `lr_drops` drops with no
gain since, or at `max_minutes`. Every validation writes `last.pt` (resumable) and the best
weights to `best.pt`; the end exports `localiser.onnx` and writes `card.json` and `curve.png`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from base.files import write_atomically
from models.localiser.data import (
    LOCALISER_CLASSES,
    NATIVE_DIE_PX,
    RUN_SCALE,
    Frame,
    LocaliserDataError,
    PatchSampler,
    frame_scale,
    load_frames,
    synth_frames,
)
from models.localiser.net import INPUT_MULTIPLE, LocaliserNet
from vision.perception.detections import box_iou
from vision.perception.localiser import resize_for_network
from vision.perception.localiser_decode import decode, sigmoid

CARD_FORMAT = "templecam-localiser-card/1"
MATCH_IOU = 0.5
"""A found box matches a true one at this IoU (as `templecam eval` matches)."""
VAL_CONF = 0.3
FINE_TUNE_WARMUP = 100
"""Steps over which a fine-tune's learning rate ramps up from zero."""
"""Centre score at which validation counts a die as found."""


@dataclass(frozen=True)
class LocaliserConfig:
    """What one localiser training run does."""

    data: tuple[Path, ...]
    out: Path
    base: Path | None = None
    width: int = 16
    patch: int = 256
    batch: int = 16
    lr: float = 2e-3
    eval_every: int = 400
    patience: int = 3
    """Validations without a gain before the learning rate drops."""
    lr_drops: int = 3
    """Stop when the learning rate has dropped this often and the score has not gained since."""
    max_minutes: float = 90.0
    val_frames: int = 48
    threads: int = 2
    seed: int = 0
    command: str = ""


@dataclass
class History:
    """The training curve: one row per validation."""

    rows: list[dict[str, Any]] = field(default_factory=list)

    def best(self) -> float:
        """Return the best validation score so far (-1 before any)."""
        return max((r["score"] for r in self.rows), default=-1.0)


def focal_loss(logits: torch.Tensor, target: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss over heatmaps, normalised by the object count."""
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    neg = (1 - pos) * weight
    pos_loss = torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = torch.log(1 - p) * p**2 * (1 - target) ** 4 * neg
    count = pos.sum().clamp(min=1.0)
    return -(pos_loss.sum() + neg_loss.sum()) / count


def box_loss(pred: torch.Tensor, target: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """L1 loss of size (log px) and offset at object centres."""
    m = mask.unsqueeze(1)
    return (torch.abs(pred - target) * m).sum() / m.sum().clamp(min=1.0)


def pad_to_multiple(image: np.ndarray, multiple: int = INPUT_MULTIPLE) -> np.ndarray:
    """Pad an (H, W, 3) image at the bottom and right to multiples of `multiple` (grey)."""
    h, w = image.shape[:2]
    ph, pw = -h % multiple, -w % multiple
    if not ph and not pw:
        return image
    return np.pad(image, ((0, ph), (0, pw), (0, 0)), constant_values=114)


@dataclass(frozen=True)
class ValFrame:
    """A validation frame at the run-time scale with its true boxes in full-frame px."""

    image: np.ndarray
    scale: float
    xyxy: np.ndarray
    cls: np.ndarray
    ignore: np.ndarray


def val_frames(frames: Sequence[Frame]) -> list[ValFrame]:
    """Resize cached frames to the scale their die size asks for (`frame_scale`), padded, as
    the localiser resizes frames at run time (`resize_for_network`)."""
    out = []
    for f in frames:
        o = f.objects
        scale = min(frame_scale(o.die_px), f.scale)
        k = scale / f.scale
        h, w = f.image.shape[:2]
        image = resize_for_network(f.image, max(1, round(w * k)), max(1, round(h * k)))
        out.append(ValFrame(pad_to_multiple(image), scale, o.xyxy, o.cls, o.ignore))
    return out


def match_counts(found: np.ndarray, truth: np.ndarray, ignore: np.ndarray) -> tuple[int, int, int]:
    """Return (true found, true total, false found) at MATCH_IOU; boxes over ignored ones are
    neither found nor false."""
    wanted = truth[~ignore]
    if not len(found):
        return 0, len(wanted), 0
    hit = np.zeros(len(found), bool)
    matched = 0
    if len(wanted):
        iou = box_iou(found, wanted)
        used = np.zeros(len(wanted), bool)
        for i in range(len(found)):  # found is best first: greedy matching
            j = int(np.argmax(np.where(used, -1, iou[i])))
            if iou[i, j] >= MATCH_IOU and not used[j]:
                used[j] = hit[i] = True
                matched += 1
    if ignore.any():
        hit |= box_iou(found, truth[ignore]).max(axis=1) >= 0.3
    return matched, len(wanted), int((~hit).sum())


def validate(model: LocaliserNet, frames: Sequence[ValFrame]) -> dict[str, float]:
    """Score whole frames: die recall and false dice per frame, other classes' recall."""
    model.eval()
    counts = np.zeros((len(LOCALISER_CLASSES), 3))
    with torch.no_grad():
        for f in frames:
            x = torch.from_numpy(f.image.astype(np.float32).transpose(2, 0, 1)[None] / 255.0)
            logits, box = model(x)
            heat = sigmoid(logits[0].numpy())
            xyxy, _, cls = decode(heat, box[0].numpy(), VAL_CONF, f.scale)
            for c in range(len(LOCALISER_CLASSES)):
                counts[c] += match_counts(xyxy[cls == c], f.xyxy[f.cls == c], f.ignore[f.cls == c])
    model.train()
    recall = counts[:, 0] / np.maximum(counts[:, 1], 1)
    false = counts[:, 2] / max(len(frames), 1)
    row = {"die_recall": float(recall[0]), "false_dice": float(false[0])}
    for c, name in enumerate(LOCALISER_CLASSES[1:], start=1):
        row[f"{name}_recall"] = float(recall[c])
        row[f"false_{name}"] = float(false[c])
    # One number to track: recall, less the false dice per frame over the dice per frame.
    dice_per_frame = counts[0, 1] / max(len(frames), 1)
    row["score"] = float(recall[0] - false[0] / max(dice_per_frame, 1.0))
    return row


def load_data(
    config: LocaliserConfig, log: Callable[[str], None]
) -> tuple[list[Frame], list[Frame]]:
    """Load the training and validation frames of every dataset in `config.data`."""
    train_pairs, val_pairs = [], []
    for folder in config.data:
        train_pairs += synth_frames(folder, "train")
        val_pairs += synth_frames(folder, "val")
    if not train_pairs:
        raise LocaliserDataError("no training frames in " + ", ".join(map(str, config.data)))
    if not val_pairs:
        raise LocaliserDataError("no validation frames in " + ", ".join(map(str, config.data)))
    step = max(1, len(val_pairs) // config.val_frames)
    val_pairs = val_pairs[::step][: config.val_frames]
    log(f"loading {len(train_pairs)} training and {len(val_pairs)} validation frames")
    return load_frames(train_pairs), load_frames(val_pairs)


def _checkpoint(
    path: Path,
    model: LocaliserNet,
    optimizer: torch.optim.Optimizer,
    step: int,
    lr: float,
    drops: int,
    history: History,
    seconds: float,
    config: LocaliserConfig,
) -> None:
    """Write a resumable checkpoint atomically."""
    state = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "step": step,
        "lr": lr,
        "drops": drops,
        "history": history.rows,
        "seconds": seconds,
        "classes": LOCALISER_CLASSES,
        "width": state_width(model),
    }
    tmp = path.with_suffix(".tmp")
    torch.save(state, tmp)
    tmp.replace(path)


def state_width(model: LocaliserNet) -> int:
    """Return the width a network was built with (its stem's channels)."""
    return int(model.stem[0][0].out_channels)


def _save_best(
    path: Path, model: LocaliserNet, config: LocaliserConfig, width: int, step: int
) -> None:
    """Write the weights worth exporting, atomically."""
    tmp = path.with_suffix(".tmp")
    torch.save(
        {"model": model.state_dict(), "width": width, "classes": LOCALISER_CLASSES, "step": step},
        tmp,
    )
    tmp.replace(path)


def load_weights(path: Path) -> dict[str, Any]:
    """Read a localiser checkpoint; raise LocaliserDataError when it is not one."""
    try:
        state = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as error:  # torch raises many kinds for a bad file
        raise LocaliserDataError(f"{path}: not a localiser checkpoint ({error})") from None
    if not isinstance(state, dict) or "model" not in state or "width" not in state:
        raise LocaliserDataError(f"{path}: not a localiser checkpoint (no weights in it)")
    if tuple(state.get("classes", ())) != LOCALISER_CLASSES:
        raise LocaliserDataError(f"{path}: its classes {state.get('classes')} are not ours")
    return state


def keep_batch_statistics(model: LocaliserNet, momentum: float = 0.01) -> None:
    """Let a fine-tune move the base's batch-norm statistics only slowly (as the face reader's
    does): small batches of patches would otherwise replace them within a few steps."""
    for module in model.modules():
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            module.momentum = momentum


def train_localiser(
    config: LocaliserConfig,
    log: Callable[[str], None] = print,
    progress: Callable[[int, float, dict[str, float] | None], None] | None = None,
) -> dict[str, Any]:
    """Train (or resume, or fine-tune from `config.base`) and export; return the model card."""
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    config.out.mkdir(parents=True, exist_ok=True)
    last = config.out / "last.pt"
    train_frames, val_source = load_data(config, log)
    vals = val_frames(val_source)
    sampler = PatchSampler(train_frames, config.patch, config.seed)
    model = LocaliserNet(len(LOCALISER_CLASSES), config.width)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=1e-4)
    step, drops, seconds, lr = 0, 0, 0.0, config.lr
    history = History()
    warmup = 300
    if last.is_file():
        state = load_weights(last)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        step, lr, drops = state["step"], state["lr"], state["drops"]
        history.rows, seconds = list(state["history"]), state["seconds"]
        log(f"resuming {last} at step {step} ({seconds / 60:.1f} min done)")
    elif config.base is not None:
        state = load_weights(config.base)
        model = LocaliserNet(len(LOCALISER_CLASSES), state["width"])
        model.load_state_dict(state["model"])
        lr = config.lr / 10
        optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
        # Adam's first steps move every weight by about the learning rate whatever its gradient:
        # a short ramp keeps them from shaking weights that already work.
        warmup = FINE_TUNE_WARMUP
        log(f"fine-tuning from {config.base} at learning rate {lr:g}")
    if config.base is not None:
        keep_batch_statistics(model)
    if not history.rows:
        first = {"step": 0, "minutes": 0.0, "lr": lr, "loss": None, **validate(model, vals)}
        history.rows.append(first)
        log(_describe(first))
        _save_best(config.out / "best.pt", model, config, state_width(model), 0)
    model.train()
    started = time.monotonic() - seconds
    losses: list[float] = []
    stalled = 0
    best_at_drop = history.best()
    while True:
        images, heat, box, mask, weight = sampler.batch(config.batch)
        scale = min(1.0, (step + 1) / warmup) if warmup else 1.0
        for group in optimizer.param_groups:
            group["lr"] = lr * scale
        logits, pred = model(torch.from_numpy(images))
        loss = focal_loss(logits, torch.from_numpy(heat), torch.from_numpy(weight))
        loss = loss + box_loss(pred, torch.from_numpy(box), torch.from_numpy(mask))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
        step += 1
        minutes = (time.monotonic() - started) / 60
        if progress is not None:
            progress(step, minutes, None)
        if step % config.eval_every:
            continue
        row = {"step": step, "minutes": round(minutes, 2), "lr": lr, "loss": float(np.mean(losses))}
        losses.clear()
        row.update(validate(model, vals))
        improved = row["score"] > history.best() + 1e-3
        history.rows.append(row)
        log(_describe(row))
        if progress is not None:
            progress(step, minutes, row)
        if improved:
            _save_best(config.out / "best.pt", model, config, state_width(model), step)
            stalled = 0
        else:
            stalled += 1
        stop = None
        if stalled >= config.patience:
            if drops >= config.lr_drops and history.best() <= best_at_drop + 1e-3:
                stop = f"plateau: no gain after {drops} learning-rate drops"
            else:
                drops += 1
                lr *= 0.3
                stalled = 0
                best_at_drop = history.best()
                log(f"learning rate down to {lr:.2e}")
        if minutes >= config.max_minutes:
            stop = f"time budget of {config.max_minutes:g} min reached"
        _checkpoint(last, model, optimizer, step, lr, drops, history, minutes * 60, config)
        if stop:
            log(stop)
            inputs = [v.image.astype(np.float32).transpose(2, 0, 1)[None] / 255.0 for v in vals]
            return finish(config, history, stop, inputs[:8])


def _describe(row: dict[str, Any]) -> str:
    """One log line for a validation row."""
    loss = "  -  " if row["loss"] is None else f"{row['loss']:.3f}"
    return (
        f"step {row['step']:>6}  {row['minutes']:6.1f} min  loss {loss}  "
        f"dice found {row['die_recall']:.3f}  false/frame {row['false_dice']:.2f}  "
        f"tiles {row['tile_recall']:.3f}  gems {row['gem_recall']:.3f}  "
        f"hands {row['hand_recall']:.3f}  score {row['score']:.3f}"
    )


def finish(
    config: LocaliserConfig,
    history: History,
    stopped: str,
    calibration: Sequence[np.ndarray] = (),
) -> dict[str, Any]:
    """Export the best weights to ONNX (and an int8 copy calibrated on `calibration`, network
    inputs of validation frames) and write the model card and the curve plot."""
    from models.localiser.export import export_onnx, plot_curve
    from models.quantize import quantize_int8

    best = config.out / "best.pt"
    state = load_weights(best) if best.is_file() else load_weights(config.out / "last.pt")
    onnx_path = export_onnx(state, config.out / "localiser.onnx")
    if calibration:
        quantize_int8(onnx_path, config.out / "localiser-int8.onnx", calibration)
    plot_curve(history.rows, config.out / "curve.png")
    card = {
        "format": CARD_FORMAT,
        "classes": list(LOCALISER_CLASSES),
        "input_scale": RUN_SCALE,
        "native_die_px": NATIVE_DIE_PX,
        "width": state["width"],
        "parameters": sum(int(np.prod(v.shape)) for v in state["model"].values()),
        "stopped": stopped,
        "best_step": state.get("step"),
        "minutes": history.rows[-1]["minutes"] if history.rows else 0.0,
        "history": history.rows,
        "config": {k: str(v) if isinstance(v, Path) else v for k, v in asdict(config).items()},
        "onnx": onnx_path.name,
        "onnx_int8": "localiser-int8.onnx" if calibration else None,
    }
    card["config"]["data"] = [str(p) for p in config.data]
    for row in card["history"]:  # runs of an earlier version wrote NaN for "no loss yet"
        row.update({k: None for k, v in row.items() if isinstance(v, float) and v != v})
    text = json.dumps(card, indent=1, allow_nan=False)
    write_atomically(config.out / "card.json", text.encode())
    return card
