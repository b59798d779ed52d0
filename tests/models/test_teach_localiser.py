"""The localiser learns the user's dice when many had to be added by hand (a tiny run)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from models.teach import TeachConfig, teach
from models.teach_localiser import needs_localiser, photos_dataset
from teach.prompted import held_back
from teach.registry import TaughtModel
from teach.review import Review, ReviewedDie, auto_label
from tests.teach.prompted_photos import copy_captures, render_captures
from vision.perception.localiser import Localiser
from vision.perception.model_contract import is_localiser
from vision.perception.models import default_model


@pytest.fixture(scope="module")
def captures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return render_captures(tmp_path_factory.mktemp("loc") / "dice", per_face=2, empty=1)


@pytest.fixture(scope="module")
def review(captures: Path) -> Review:
    path, _ = default_model()
    return auto_label(captures, Localiser(path))


def test_many_dice_added_by_hand_call_for_the_localiser(review: Review) -> None:
    assert not needs_localiser(review), "the shipped localiser found these dice itself"
    found = [d for d in review.dice if d.label != "not_die"]
    added = [ReviewedDie(d.image, d.box, d.label, "added") for d in found[: len(found) // 3]]
    assert needs_localiser(Review(review.captures, [*found[len(found) // 3 :], *added]))


def test_the_photos_become_a_dataset_of_reviewed_dice_and_the_localisers_pieces(
    captures: Path, review: Review, tmp_path: Path
) -> None:
    path, _ = default_model()
    back = held_back(review.captures)
    out = photos_dataset(captures, review, back, Localiser(path), tmp_path / "photos")
    train = sorted((out / "scenes" / "train").glob("*.json"))
    val = sorted((out / "scenes" / "val").glob("*.json"))
    assert len(val) == len(back) and len(train) == len(review.captures) - len(back)
    scenes = [json.loads(p.read_text()) for p in train + val]
    dice = sum(len(s["dice"]) for s in scenes)
    assert dice == sum(1 for d in review.dice if d.label != "not_die")
    assert sum(len(s["gems"]["items"]) for s in scenes) > 0, "pseudo-labelled gems"
    assert sum(len(s["tiles"]) for s in scenes) > 0


def test_a_taught_localiser_is_exported_checked_and_found_by_the_registry(
    captures: Path, tmp_path: Path
) -> None:
    folder = copy_captures(captures, tmp_path / "dice")
    out = tmp_path / "model"
    config = TeachConfig(
        folder,
        out,
        epochs=1,
        copies=2,
        replay=200,
        cache=tmp_path / "cache",
        localiser_fit="on",
        localiser_minutes=0.05,
        localiser_eval_every=4,
    )
    card = teach(config, log=lambda m: None)
    taught = card["localiser"]
    assert taught["steps"] >= 4 and taught["found_before"] is not None
    assert taught["found_after"] >= taught["found_before"], "the best weights are exported"
    model = TaughtModel(out.name, out, card)
    assert model.localiser_path is not None and is_localiser(model.localiser_path)
    image = cv2.imread(str(folder / "key" / "capture_0001.jpg"))
    found = Localiser(model.localiser_path).locate(image, 0.3)
    assert len(found) > 0
    assert "localiser was taught too" in (out / "card.md").read_text()
    assert not (out / "localiser" / "last.pt").exists()
