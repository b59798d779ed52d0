"""The reader's training loop: AdamW, one-cycle, label smoothing, validation every epoch.

`fit` trains a `FaceNet` on a crop set, validates it on fixed rendered sets after every epoch
(and once before the first when it starts from given weights), keeps the best weights, writes a
checkpoint per epoch (`last.pt`, which `resume` continues), shows a progress bar, and stops when
validation accuracy has not improved for `patience` epochs (the plateau) or at `epochs`.

Fine-tuning (`base` given) starts from the base's weights as they are: the head is kept when the
classes match (rows are matched by class name when they do not), the learning rate is a tenth
of the scratch one with no warm-up (the schedule starts at its peak and anneals), and batch
norm keeps the base's statistics, updated slowly (momentum 0.01).
"""

from __future__ import annotations

import io
import math
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from base.files import write_atomically
from models.faces_data import as_input, augment, soft_targets, to_tensor
from models.faces_net import FaceNet
from models.synth.crop_set import CropSet

CHECKPOINT_FORMAT = "templecam-faces-checkpoint/1"


@dataclass(frozen=True)
class FitConfig:
    """How `fit` trains."""

    epochs: int = 16
    batch: int = 128
    lr: float = 0.004
    """Peak learning rate from scratch (fine-tuning: `lr * finetune_lr`)."""
    finetune_lr: float = 0.1
    weight_decay: float = 0.0005
    label_smoothing: float = 0.05
    patience: int = 3
    """Epochs without a better validation accuracy that make a plateau."""
    min_gain: float = 0.001
    """Smallest validation accuracy gain that counts as better."""
    warmup: float = 0.15
    """Share of the run spent warming up from scratch."""
    threads: int = 2
    seed: int = 0
    keep_last: bool = False
    """Keep the weights of the last epoch, not the best one's (teaching: a few held-back
    photos score too coarsely to pick an epoch by, and the schedule anneals to the end)."""


@dataclass
class FitState:
    """Where a run stands: its epochs so far and the best weights."""

    history: list[dict[str, Any]] = field(default_factory=list)
    best_epoch: int = -1
    best_accuracy: float = -1.0
    best_state: dict[str, torch.Tensor] | None = None
    stopped: str = ""


def evaluate(model: nn.Module, crops: CropSet, batch: int = 512) -> dict[str, Any]:
    """Return loss, accuracy on readable crops, and predictions of `model` on a crop set."""
    model.eval()
    images = to_tensor(crops.images)
    labels = torch.from_numpy(np.asarray(crops.labels, dtype=np.int64))
    logits = []
    with torch.no_grad():
        for start in range(0, len(labels), batch):
            logits.append(model(as_input(images[start : start + batch])))
    out = torch.cat(logits) if logits else torch.zeros(0, 1)
    targets = soft_targets(labels, out.shape[1], 0.0)
    loss = float(-(targets * torch.log_softmax(out, dim=1)).sum(dim=1).mean()) if len(out) else 0.0
    predicted = out.argmax(dim=1)
    known = labels >= 0
    right = int((predicted[known] == labels[known]).sum())
    return {
        "loss": loss,
        "accuracy": right / max(int(known.sum()), 1),
        "predicted": predicted.numpy(),
        "probabilities": torch.softmax(out, dim=1).numpy(),
    }


def _bar(done: int, total: int, text: str, started: float) -> None:
    """Draw a one-line progress bar on stderr (a line per call when not a terminal)."""
    width = 28
    filled = round(width * done / max(total, 1))
    rate = done / max(time.monotonic() - started, 1e-6)
    line = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {text} {rate:.0f} crops/s"
    if sys.stderr.isatty():
        sys.stderr.write("\r" + line + ("\n" if done >= total else ""))
    elif done >= total:
        sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _keep_bn_statistics(model: nn.Module) -> None:
    """Let batch norm update the base's statistics only slowly while fine-tuning."""
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.momentum = 0.01


def _scheduler(
    optimizer: torch.optim.Optimizer, config: FitConfig, steps: int, fine_tune: bool
) -> torch.optim.lr_scheduler.OneCycleLR:
    """Return the one-cycle schedule: a warm-up from scratch, none when fine-tuning."""
    peak = config.lr * (config.finetune_lr if fine_tune else 1.0)
    return torch.optim.lr_scheduler.OneCycleLR(
        optimizer,
        max_lr=peak,
        total_steps=max(steps, 2),
        pct_start=0.01 if fine_tune else config.warmup,
        div_factor=1.0 if fine_tune else 25.0,
        final_div_factor=100.0,
        anneal_strategy="cos",
        cycle_momentum=False,
    )


def _save_checkpoint(
    path: Path,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    scheduler: Any,
    state: FitState,
    meta: dict[str, Any],
    generator: torch.Generator,
) -> None:
    """Write everything a resumed run needs."""
    data = {
        "generator": generator.get_state(),
        "format": CHECKPOINT_FORMAT,
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "history": state.history,
        "best_epoch": state.best_epoch,
        "best_accuracy": state.best_accuracy,
        "best_state": state.best_state,
        "meta": meta,
    }
    buffer = io.BytesIO()
    torch.save(data, buffer)
    write_atomically(path, buffer.getvalue())


def fit(
    model: FaceNet,
    train: CropSet,
    val: dict[str, CropSet],
    config: FitConfig,
    checkpoint: Path,
    fine_tune: bool = False,
    resume: bool = False,
    meta: dict[str, Any] | None = None,
    log: Callable[[str], None] = print,
    on_step: Callable[[int, int], None] | None = None,
) -> FitState:
    """Train `model` in place (see the module docstring); `val`'s first set picks the best.

    `on_step(done, total)` is told of every training step (for a progress bar with an ETA).
    """
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    generator = torch.Generator().manual_seed(config.seed)
    meta = dict(meta or {}, fit=asdict(config), fine_tune=fine_tune)
    images = to_tensor(train.images)
    labels = torch.from_numpy(np.asarray(train.labels, dtype=np.int64))
    classes = model.head.out_features
    per_epoch = math.ceil(len(labels) / config.batch)
    if fine_tune:
        _keep_bn_statistics(model)
    decay = [p for n, p in model.named_parameters() if p.ndim > 1]
    other = [p for n, p in model.named_parameters() if p.ndim <= 1]
    optimizer = torch.optim.AdamW(
        [{"params": decay, "weight_decay": config.weight_decay}, {"params": other}],
        lr=config.lr,
        weight_decay=0.0,
    )
    scheduler = _scheduler(optimizer, config, per_epoch * config.epochs, fine_tune)
    state = FitState()
    main = next(iter(val))
    if resume and checkpoint.is_file():
        data = torch.load(checkpoint, map_location="cpu", weights_only=False)
        model.load_state_dict(data["model"])
        optimizer.load_state_dict(data["optimizer"])
        scheduler.load_state_dict(data["scheduler"])
        state = FitState(
            data["history"], data["best_epoch"], data["best_accuracy"], data["best_state"]
        )
        generator.set_state(data["generator"])
        log(f"faces: resuming after epoch {state.history[-1]['epoch']} from {checkpoint}")
    elif fine_tune:
        row = _validate(model, val, 0, {"train_loss": None, "lr": 0.0, "seconds": 0.0})
        state.history.append(row)
        state.best_epoch, state.best_accuracy = 0, row[f"{main}_accuracy"]
        state.best_state = {k: v.clone() for k, v in model.state_dict().items()}
        log(_describe(row, main))
    started_run = time.monotonic() - (state.history[-1].get("elapsed", 0.0) if state.history else 0)
    first = (state.history[-1]["epoch"] + 1) if state.history else 1
    for epoch in range(first, config.epochs + 1):
        if epoch - max(state.best_epoch, 0) > config.patience and state.best_epoch >= 0:
            state.stopped = f"plateau: no gain over {config.patience} epochs"
            break
        model.train()
        started, cpu = time.monotonic(), time.process_time()
        order = torch.randperm(len(labels), generator=generator)
        total, seen = 0.0, 0
        for step in range(per_epoch):
            pick = order[step * config.batch : (step + 1) * config.batch]
            x = augment(as_input(images[pick]), generator)
            target = soft_targets(labels[pick], classes, config.label_smoothing)
            loss = -(target * torch.log_softmax(model(x), dim=1)).sum(dim=1).mean()
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            if scheduler.last_epoch < scheduler.total_steps - 1:
                scheduler.step()
            total += float(loss.detach()) * len(pick)
            seen += len(pick)
            if on_step is not None:
                on_step((epoch - 1) * per_epoch + step + 1, per_epoch * config.epochs)
            if step % 20 == 0 or step == per_epoch - 1:
                _bar(seen, len(labels), f"epoch {epoch} loss {total / seen:.3f}", started)
        train_row = {
            "train_loss": total / max(seen, 1),
            "lr": optimizer.param_groups[0]["lr"],
            "seconds": time.monotonic() - started,
            "cpu_seconds": round(time.process_time() - cpu, 1),
        }
        row = _validate(model, val, epoch, train_row)
        row["elapsed"] = round(time.monotonic() - started_run, 1)
        state.history.append(row)
        if row[f"{main}_accuracy"] >= state.best_accuracy + config.min_gain:
            state.best_epoch, state.best_accuracy = epoch, row[f"{main}_accuracy"]
            state.best_state = {k: v.clone() for k, v in model.state_dict().items()}
        _save_checkpoint(checkpoint, model, optimizer, scheduler, state, meta, generator)
        log(_describe(row, main))
    else:
        state.stopped = state.stopped or f"all {config.epochs} epochs"
    if state.best_state is not None and not config.keep_last:
        model.load_state_dict(state.best_state)
    return state


def _validate(
    model: nn.Module, val: dict[str, CropSet], epoch: int, train_row: dict[str, Any]
) -> dict[str, Any]:
    """Return one history row: the training figures plus loss and accuracy on each val set."""
    row: dict[str, Any] = {"epoch": epoch, **train_row}
    for name, crops in val.items():
        result = evaluate(model, crops)
        row[f"{name}_loss"] = round(result["loss"], 5)
        row[f"{name}_accuracy"] = round(result["accuracy"], 5)
    for key in ("train_loss", "seconds"):
        if isinstance(row.get(key), float):
            row[key] = round(row[key], 5 if key == "train_loss" else 1)
    return row


def _describe(row: dict[str, Any], main: str) -> str:
    """Return a log line for one epoch."""
    parts = [f"faces: epoch {row['epoch']}"]
    if row.get("train_loss") is not None:
        parts.append(f"train loss {row['train_loss']:.4f}")
    parts += [
        f"{k.removesuffix('_accuracy')} {v:.4f}" for k, v in row.items() if k.endswith("_accuracy")
    ]
    parts.append(f"{row.get('seconds', 0):.0f} s")
    return ", ".join(parts)
