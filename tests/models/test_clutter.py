"""Things that are no dice: both renderers draw them where asked and never label them dice; the
localiser's patches centre on them as negatives at any die size, and a tiny run learns them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from models.synth.crop_look import TRAIN_LOOK
from models.synth.crops import LABELS, render_crop
from models.synth.draw_trinkets import SMALL_KINDS, TRINKET_KINDS, random_trinket
from models.synth.frame import render_frame
from models.synth.settings import SynthSettings
from vision.perception.classes import DIE_CLASSES
from vision.perception.face_reader import NOT_DIE

SETTINGS = SynthSettings(width=960, height=540)


def _frame_with_trinkets():
    """Return the first small rendered frame that shows trinkets."""
    for index in range(6):
        frame = render_frame(SETTINGS, 41, index)
        shown = [c for c in frame.scene["clutter"] if c["kind"] in TRINKET_KINDS and c["box"]]
        if len(shown) >= 2:
            return frame, shown
    raise AssertionError("no frame of seed 41 shows two trinkets")


def _label_boxes(frame) -> list[tuple[str, np.ndarray]]:
    """Return (class, xyxy px) of each line of a frame's label file."""
    from models.synth.labels import DETECTION_NAMES

    out = []
    for line in frame.labels.splitlines():
        c, cx, cy, w, h = line.split()
        cx, w = float(cx) * SETTINGS.width, float(w) * SETTINGS.width
        cy, h = float(cy) * SETTINGS.height, float(h) * SETTINGS.height
        box = np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])
        out.append((DETECTION_NAMES[int(c)], box))
    return out


def test_the_frame_renderer_draws_trinkets_with_no_label():
    frame, shown = _frame_with_trinkets()
    assert all(c["label"] is None for c in shown)
    dice = [box for name, box in _label_boxes(frame) if name in DIE_CLASSES]
    for trinket in shown:
        x0, y0, x1, y1 = trinket["box"]
        centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
        # No die label is centred on a trinket (they lie beside dice, never on them).
        for box in dice:
            inside = box[0] < centre[0] < box[2] and box[1] < centre[1] < box[3]
            assert not inside


def test_trinkets_lie_beside_dice_and_loose_gems_are_gems():
    near, loose = 0, 0
    for index in range(8):
        frame = render_frame(SETTINGS, 43, index)
        dice = [d["centre_mm"][:2] for d in frame.scene["dice"]]
        gems = frame.scene["gems"]["items"]
        loose += sum(1 for g in gems if g["where"] == "loose" and g["label"] == "gem")
        near += len(frame.scene["clutter"]) and any(
            c["kind"] in SMALL_KINDS and c["box"] is not None for c in frame.scene["clutter"]
        )
        assert dice
    assert near > 0 and loose > 0


def test_random_trinkets_cover_every_kind():
    rng = np.random.default_rng(0)
    kinds = {random_trinket(rng, (0.0, 0.0)).kind for _ in range(300)}
    assert kinds == set(TRINKET_KINDS)


def test_trinket_crops_are_not_dice_and_dice_beside_trinkets_keep_their_face():
    labels = [render_crop(7, i, TRAIN_LOOK, 40, kind="trinket").label for i in range(12)]
    assert set(labels) == {NOT_DIE}
    dice = [render_crop(7, i, TRAIN_LOOK, 40, kind="die") for i in range(60)]
    assert {c.label for c in dice} <= {*LABELS, "unknown"} - {NOT_DIE}
    sizes = [c.info["die_px"] for c in dice]
    assert min(sizes) < 20 and max(sizes) > 38  # dice 14-45 px across


needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None, reason="needs the train extra (torch)"
)
SHIPPED_PT = Path(__file__).resolve().parents[2] / "models" / "templecam-default.pt"


def _cluttered_frames(tmp_path):
    """Two small rendered frames on disk, loaded as the localiser's training frames."""
    from models.localiser.data import load_frames
    from models.synth.dataset import DatasetPlan, generate

    plan = DatasetPlan(tmp_path, SynthSettings(), 47, 2, 0.0)
    generate(plan)
    pairs = [
        (p, tmp_path / "scenes" / "train" / f"{p.stem}.json")
        for p in sorted((tmp_path / "images" / "train").iterdir())
    ]
    return load_frames(pairs)


@needs_torch
@pytest.mark.skipif(not SHIPPED_PT.is_file(), reason="no shipped localiser weights")
def test_patches_centre_on_clutter_at_every_die_size_and_a_tiny_run_learns_it(tmp_path):
    import torch

    from models.localiser.data import DIE_PX_RANGE, PatchSampler
    from models.localiser.net import LocaliserNet
    from models.localiser.train import focal_loss, load_weights

    frames = _cluttered_frames(tmp_path)
    assert all(len(f.objects.negatives) for f in frames)
    assert all(20 < f.objects.die_px < 40 for f in frames)
    sampler = PatchSampler(frames, size=128, seed=1)
    sizes = []
    for _ in range(60):
        _, heat, box, mask, _ = sampler.sample()
        sizes += np.exp(box[0][mask > 0]).tolist()
    dice = np.array(sizes)  # every object's width in input px; dice are most of them
    assert np.median(dice) < DIE_PX_RANGE[1] * 1.6 and dice.min() < DIE_PX_RANGE[0] * 1.4
    only = PatchSampler(frames, size=64, seed=2, mix=(0.0, 0.0), clutter=1.0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny convolutions: a second thread on busy cores only waits
    torch.manual_seed(0)
    state = load_weights(SHIPPED_PT)  # the shipped localiser, fine-tuned on clutter alone
    net = LocaliserNet(6, state["width"])
    net.load_state_dict(state["model"])
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    held = torch.from_numpy(PatchSampler(frames, 64, 9, (0.0, 0.0), 1.0, 0.0).batch(8)[0])

    def die_heat() -> float:
        """Return the mean over held patches centred on clutter of their highest die score."""
        net.eval()
        with torch.no_grad():
            logits, _ = net(held)
        net.train()
        return float(torch.sigmoid(logits[:, 0]).amax(dim=(1, 2)).mean())

    try:
        before = die_heat()
        for _ in range(25):
            images, heat, box, mask, weight = only.batch(4)
            logits = net(torch.from_numpy(images))[0]
            loss = focal_loss(logits, *map(torch.from_numpy, (heat, weight)))
            opt.zero_grad()
            loss.backward()
            opt.step()
        after = die_heat()
    finally:
        torch.set_num_threads(threads)
    assert after < before, (before, after)
