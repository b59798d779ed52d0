"""Dataset import and export (teach.datasets, `templecam dataset`, `templecam train --data`).

Every fixture dataset is built here, in the layout each tool exports, with real JPEGs written by
OpenCV and boxes known in pixels: a test reads a dataset back and compares with those pixels.
"""

from __future__ import annotations

import errno
import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

import teach.datasets as datasets
from models.tiles import read_data_yaml
from teach.datasets import (
    DatasetError,
    export_review,
    load_dataset,
    normalise_name,
    parse_mapping,
    read_review,
    write_ultralytics,
)
from templecam.cli import main
from vision.perception.classes import FACES

W, H = 80, 60


def jpeg(path: Path, shade: int = 90, size: tuple[int, int] = (W, H)) -> Path:
    """Write a real JPEG: a grey field with a bright square, `shade` telling images apart."""
    path.parent.mkdir(parents=True, exist_ok=True)
    image = np.full((size[1], size[0], 3), shade, np.uint8)
    cv2.rectangle(image, (10, 10), (30, 30), (255, 255, 255), -1)
    assert cv2.imwrite(str(path), image)
    return path


def yolo_line(index: int, box: tuple[float, float, float, float], size=(W, H)) -> str:
    """A YOLO label line for a pixel box (x1, y1, x2, y2)."""
    x1, y1, x2, y2 = box
    w, h = size
    cx, cy, bw, bh = (x1 + x2) / 2 / w, (y1 + y2) / 2 / h, (x2 - x1) / w, (y2 - y1) / h
    return f"{index} {cx:.6f} {cy:.6f} {bw:.6f} {bh:.6f}\n"


def write_labels(path: Path, boxes: list[tuple[int, tuple[float, float, float, float]]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(yolo_line(i, b) for i, b in boxes))


def pixel_boxes(view, name: str) -> list[tuple[str, float, float, float, float]]:
    """The boxes of the image called `name` (its file name), rounded to 0.1 px."""
    (image,) = [i for i in view.images if i.path.name == name]
    return [(b.label, *(round(v, 1) for v in (b.x1, b.y1, b.x2, b.y2))) for b in image.boxes]


KEY_BOX = (10.0, 12.0, 30.0, 30.0)
TORCH_BOX = (40.0, 20.0, 60.0, 44.0)
MASK_BOX = (50.0, 5.0, 70.0, 25.0)


@pytest.fixture
def ultralytics_dir(tmp_path: Path) -> Path:
    """An Ultralytics dataset: names as a dict, train/val folders relative to `path`."""
    root = tmp_path / "ultra"
    jpeg(root / "images" / "train" / "a.jpg", 80)
    write_labels(root / "labels" / "train" / "a.txt", [(0, KEY_BOX), (2, TORCH_BOX)])
    jpeg(root / "images" / "train" / "b.jpg", 100)
    write_labels(root / "labels" / "train" / "b.txt", [(1, MASK_BOX)])
    jpeg(root / "images" / "val" / "c.jpg", 120)
    write_labels(root / "labels" / "val" / "c.txt", [(0, TORCH_BOX)])
    (root / "data.yaml").write_text(
        "path: .\ntrain: images/train\nval: images/val\n"
        "names:\n  0: Key\n  1: golden-mask\n  2: Torch\n"
    )
    return root


@pytest.fixture
def roboflow_dir(tmp_path: Path) -> Path:
    """Roboflow's YOLOv8 export: data.yaml with ../train/images paths, train/valid/test."""
    root = tmp_path / "dice.v3i.yolov8"
    for split, shade in (("train", 60), ("valid", 140), ("test", 200)):
        jpeg(root / split / "images" / f"{split}_1_jpg.rf.abc.jpg", shade)
        write_labels(root / split / "labels" / f"{split}_1_jpg.rf.abc.txt", [(1, KEY_BOX)])
    (root / "data.yaml").write_text(
        "train: ../train/images\nval: ../valid/images\ntest: ../test/images\n\n"
        "nc: 3\nnames: ['Black Mask', 'Key', 'meeple']\n\n"
        "roboflow:\n  workspace: someone\n  project: dice\n  version: 3\n"
    )
    return root


@pytest.fixture
def cvat_dir(tmp_path: Path) -> Path:
    """CVAT's YOLO 1.1 export: obj.data, obj.names, train.txt, obj_train_data/ side by side."""
    root = tmp_path / "cvat"
    data = root / "obj_train_data"
    names = []
    for n in range(5):
        jpeg(data / f"frame_{n:06d}.jpg", 40 + 30 * n)
        write_labels(data / f"frame_{n:06d}.txt", [(n % 2, KEY_BOX)])
        names.append(f"data/obj_train_data/frame_{n:06d}.jpg")
    (root / "obj.names").write_text("adventurer\nKEY\n")
    (root / "obj.data").write_text(
        "classes = 2\ntrain = data/train.txt\nnames = data/obj.names\nbackup = backup/\n"
    )
    (root / "train.txt").write_text("\n".join(names) + "\n")
    return root


@pytest.fixture
def label_studio_dir(tmp_path: Path) -> Path:
    """Label Studio's YOLO export: classes.txt, images/, labels/, notes.json."""
    root = tmp_path / "project-1-at-2026"
    jpeg(root / "images" / "1a2b3c4d-table.jpg", 70)
    write_labels(root / "labels" / "1a2b3c4d-table.txt", [(0, KEY_BOX), (1, TORCH_BOX)])
    jpeg(root / "images" / "5e6f7a8b-empty.jpg", 150)  # no label file: nothing on it
    (root / "classes.txt").write_text("Die key\nTorch\n")
    (root / "notes.json").write_text(
        json.dumps({"categories": [{"id": 0, "name": "Die key"}, {"id": 1, "name": "Torch"}]})
    )
    return root


# --- reading each format -----------------------------------------------------------------------


def test_an_ultralytics_dataset_is_read_with_pixel_boxes_and_templecam_names(ultralytics_dir):
    view = load_dataset(ultralytics_dir, {})

    assert view.format == "ultralytics"
    assert [(i.path.name, i.split) for i in view.images] == [
        ("a.jpg", "train"),
        ("b.jpg", "train"),
        ("c.jpg", "val"),
    ]
    assert pixel_boxes(view, "a.jpg") == [("key", *KEY_BOX), ("torch", *TORCH_BOX)]
    assert pixel_boxes(view, "b.jpg") == [("golden_mask", *MASK_BOX)]
    assert view.class_counts() == {"key": 2, "torch": 1, "golden_mask": 1}
    assert view.classes == {"Key": "key", "golden-mask": "golden_mask", "Torch": "torch"}
    assert (view.images[0].width, view.images[0].height) == (W, H)


def test_split_lists_in_txt_files_and_a_names_list_are_read(ultralytics_dir):
    (ultralytics_dir / "train.txt").write_text("./images/train/a.jpg\n./images/train/b.jpg\n")
    (ultralytics_dir / "val.txt").write_text("images/val/c.jpg\n")
    (ultralytics_dir / "data.yaml").write_text(
        f"path: {ultralytics_dir}\ntrain: train.txt\nval: val.txt\n"
        "names: [key, golden_mask, torch]\n"
    )

    view = load_dataset(ultralytics_dir / "data.yaml", {})

    assert [(i.path.name, i.split) for i in view.images] == [
        ("a.jpg", "train"),
        ("b.jpg", "train"),
        ("c.jpg", "val"),
    ]
    assert pixel_boxes(view, "c.jpg") == [("key", *TORCH_BOX)]


def test_a_roboflow_export_reads_train_valid_and_test_with_a_map_for_its_own_names(roboflow_dir):
    view = load_dataset(roboflow_dir, {"meeple": "ignore"})

    assert view.format == "roboflow"
    splits = {i.path.name.split("_")[0]: i.split for i in view.images}
    assert splits == {"train": "train", "valid": "val", "test": "val"}
    assert {b.label for i in view.images for b in i.boxes} == {"key"}


def test_a_cvat_export_without_a_val_split_holds_a_share_back(cvat_dir):
    view = load_dataset(cvat_dir, {})

    assert view.format == "cvat"
    assert len(view.images) == 5
    assert len(view.split("val")) == 1  # 20 % of 5
    assert view.class_counts() == {"adventurer": 3, "key": 2}
    assert pixel_boxes(view, "frame_000001.jpg") == [("key", *KEY_BOX)]
    assert any("no val split" in p for p in view.problems)
    again = load_dataset(cvat_dir, {})
    assert [i.split for i in again.images] == [i.split for i in view.images]  # stable


def test_val_fraction_re_splits_every_image(cvat_dir, ultralytics_dir):
    assert len(load_dataset(cvat_dir, {}, val_fraction=0.4).split("val")) == 2
    view = load_dataset(ultralytics_dir, {}, val_fraction=0.0)
    assert [i.split for i in view.images] == ["train", "train", "train"]


def test_a_label_studio_export_reads_an_image_without_label_file_as_empty(label_studio_dir):
    view = load_dataset(label_studio_dir, {"Die key": "key"})

    assert view.format == "label-studio"
    assert pixel_boxes(view, "1a2b3c4d-table.jpg") == [("key", *KEY_BOX), ("torch", *TORCH_BOX)]
    assert pixel_boxes(view, "5e6f7a8b-empty.jpg") == []
    assert any("1 image without a label file" in p for p in view.problems)


def test_an_export_unzipped_into_its_own_folder_is_found(roboflow_dir, tmp_path):
    outer = tmp_path / "download"
    outer.mkdir()
    shutil.move(roboflow_dir, outer / roboflow_dir.name)

    assert load_dataset(outer, {"meeple": "ignore"}).format == "roboflow"


# --- names and mistakes ----------------------------------------------------------------------


def test_class_names_match_ignoring_case_spaces_and_dashes():
    assert normalise_name(" Golden-Mask ") == normalise_name("golden mask") == "golden_mask"
    assert normalise_name("Black_MASK") == "black_mask"
    assert parse_mapping(["Die key=key", "meeple = ignore"]) == {
        "Die key": "key",
        "meeple": "ignore",
    }
    with pytest.raises(DatasetError, match="OLD=NEW"):
        parse_mapping(["key"])


def test_unknown_classes_are_all_listed_with_the_map_to_write(label_studio_dir):
    (label_studio_dir / "classes.txt").write_text("Die key\nFlame\n")

    with pytest.raises(DatasetError) as caught:
        load_dataset(label_studio_dir, {})

    message = str(caught.value)
    assert "'Die key' (1 box)" in message and "'Flame' (1 box)" in message
    assert "--map" in message and "ignore" in message

    view = load_dataset(label_studio_dir, {"die-key": "KEY", "flame": "ignore"})
    assert view.class_counts() == {"key": 1}
    assert view.ignored == 1


def test_a_map_naming_no_class_of_the_dataset_or_no_templecam_class_is_refused(ultralytics_dir):
    with pytest.raises(DatasetError, match="has no class 'Kye'"):
        load_dataset(ultralytics_dir, {"Kye": "key"})
    with pytest.raises(DatasetError, match="'lantern' is no templecam class"):
        load_dataset(ultralytics_dir, {"Torch": "lantern"})


def test_malformed_label_lines_name_their_file_and_line(ultralytics_dir):
    labels = ultralytics_dir / "labels" / "train"
    (labels / "a.txt").write_text(yolo_line(0, KEY_BOX) + "2 0.5 0.5\n")
    (labels / "b.txt").write_text("\n0 40 30 20 18\n")  # pixels, not fractions
    write_labels(ultralytics_dir / "labels" / "val" / "c.txt", [(1, KEY_BOX)])
    (ultralytics_dir / "data.yaml").write_text(
        "path: .\ntrain: images/train\nval: images/val\nnames: [Key, Flame, Torch]\n"
    )

    with pytest.raises(DatasetError) as caught:
        load_dataset(ultralytics_dir, {})

    message = str(caught.value)
    assert "labels/train/a.txt line 2: 3 values" in message
    assert "labels/train/b.txt line 2: coordinates outside 0-1" in message
    assert "not pixels" in message
    assert "classes templecam does not know: 'Flame' (1 box)" in message  # all errors at once


def test_a_class_number_beyond_the_names_is_an_error(ultralytics_dir):
    (ultralytics_dir / "labels" / "val" / "c.txt").write_text("7 0.5 0.5 0.1 0.1\n")
    with pytest.raises(
        DatasetError, match=r"c.txt line 1: class 7, but the dataset names classes 0 to 2"
    ):
        load_dataset(ultralytics_dir, {})


def test_unreadable_images_are_left_out_and_listed(ultralytics_dir):
    (ultralytics_dir / "images" / "train" / "b.jpg").write_bytes(b"\xff\xd8 not really a jpeg")

    view = load_dataset(ultralytics_dir, {})

    assert [i.path.name for i in view.images] == ["a.jpg", "c.jpg"]
    assert any("cannot be read" in p and "b.jpg" in p for p in view.problems)


def test_polygon_labels_become_their_bounding_boxes(ultralytics_dir):
    polygon = "0 0.125 0.2 0.375 0.2 0.375 0.5 0.125 0.5\n"  # x 10-30 px, y 12-30 px
    (ultralytics_dir / "labels" / "val" / "c.txt").write_text(polygon)

    assert pixel_boxes(load_dataset(ultralytics_dir, {}), "c.jpg") == [("key", *KEY_BOX)]


def test_a_folder_of_no_known_format_says_what_is_read(tmp_path):
    jpeg(tmp_path / "photos" / "x.jpg")
    jpeg(tmp_path / "photos" / "y.jpg")
    with pytest.raises(DatasetError, match=r"no dataset templecam recognises.*CVAT"):
        load_dataset(tmp_path / "photos", {})


# --- writing Ultralytics -----------------------------------------------------------------------


def test_an_import_written_as_ultralytics_reads_back_the_same(roboflow_dir, tmp_path):
    view = load_dataset(roboflow_dir, {"meeple": "ignore", "Black Mask": "black_mask"})
    out = tmp_path / "clean"

    data_yaml = write_ultralytics(view, out)

    spec = read_data_yaml(data_yaml)  # what `templecam train` reads
    assert spec.names == FACES  # only faces occur
    assert spec.train == out / "images" / "train"
    assert len(list(spec.val.iterdir())) == 2  # valid and test
    again = load_dataset(out, {})
    assert again.format == "ultralytics"
    before = sorted(
        (i.split, [(b.label, round(b.x1, 1), round(b.y2, 1)) for b in i.boxes]) for i in view.images
    )
    after = sorted(
        (i.split, [(b.label, round(b.x1, 1), round(b.y2, 1)) for b in i.boxes])
        for i in again.images
    )
    assert after == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_detector_classes_are_written_in_templecam_order(ultralytics_dir, tmp_path):
    (ultralytics_dir / "data.yaml").write_text(
        "path: .\ntrain: images/train\nval: images/val\nnames: [Hand, golden mask, Gem]\n"
    )
    view = load_dataset(ultralytics_dir, {})

    spec = read_data_yaml(write_ultralytics(view, tmp_path / "out"))

    assert spec.names[:5] == FACES and "hand" in spec.names and "gem" in spec.names
    label = (tmp_path / "out" / "labels" / "train" / "a.txt").read_text().split()
    assert spec.names[int(label[0])] == "hand"


def test_a_folder_that_holds_files_is_not_written_over(ultralytics_dir, tmp_path):
    out = tmp_path / "taken"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")

    with pytest.raises(DatasetError, match="already holds files"):
        write_ultralytics(load_dataset(ultralytics_dir, {}), out)
    assert [p.name for p in out.iterdir()] == ["mine.txt"]


def test_a_full_disk_leaves_no_half_dataset(ultralytics_dir, tmp_path, monkeypatch):
    view = load_dataset(ultralytics_dir, {})
    copies = []
    real_copy = shutil.copyfile

    def fill_up(src, dst):
        copies.append(dst)
        if len(copies) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_copy(src, dst)

    monkeypatch.setattr(datasets.shutil, "copyfile", fill_up)
    out = tmp_path / "out"

    with pytest.raises(DatasetError, match=r"the disk is full.*nothing was written"):
        write_ultralytics(view, out)
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ultra"]  # no partial folder


def test_replace_swaps_in_the_new_dataset_whole(ultralytics_dir, cvat_dir, tmp_path):
    out = tmp_path / "out"
    write_ultralytics(load_dataset(ultralytics_dir, {}), out)
    write_ultralytics(load_dataset(cvat_dir, {}), out, replace=True)

    assert len(load_dataset(out, {}).images) == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cvat", "out", "ultra"]


# --- exporting a review ------------------------------------------------------------------------


def teach_folder(root: Path) -> Path:
    """A reviewed teach folder: key/ and torch/ photos with dice, empty/ photos, review.json."""
    images, dice = [], []
    for prompt in ("key", "torch", "empty"):
        for n in range(1, 4):
            file = f"{prompt}/{n:04d}.jpg"
            jpeg(root / file, 30 * n)
            images.append({"file": file, "prompt": prompt, "width": W, "height": H})
            if prompt != "empty":
                dice.append(
                    {
                        "image": file,
                        "box": list(KEY_BOX),
                        "label": prompt,
                        "source": "found",
                        "conf": 0.9,
                    }
                )
    dice.append(
        {
            "image": "key/0001.jpg",
            "box": list(TORCH_BOX),
            "label": "torch",
            "source": "added",
            "conf": 1.0,
        }
    )
    dice.append(
        {
            "image": "empty/0002.jpg",
            "box": list(MASK_BOX),
            "label": "not_die",
            "source": "found",
            "conf": 0.4,
        }
    )
    dice.append(
        {
            "image": "key/0002.jpg",
            "box": [70, 50, 95, 70],
            "label": "key",
            "source": "added",
            "conf": 1.0,
        }
    )
    review = {"format": "templecam-teach-review/1", "images": images, "dice": dice}
    (root / "review.json").write_text(json.dumps(review))
    return root


def test_a_review_exports_the_five_faces_every_image_and_no_not_die(tmp_path):
    teach = teach_folder(tmp_path / "teach")
    out = tmp_path / "export"

    data_yaml = export_review(teach, out)

    spec = read_data_yaml(data_yaml)
    assert spec.names == FACES
    view = load_dataset(out, {})
    assert len(view.images) == 9
    assert len(view.split("val")) == 3  # one photo of each prompt held back
    assert view.class_counts() == {"key": 4, "torch": 4}
    assert len(list((out / "labels").rglob("*.txt"))) == 9
    empties = [p for p in (out / "labels").rglob("*.txt") if p.read_text() == ""]
    assert len(empties) == 3  # the empty table, not_die left out
    boxes = {
        (b.label, round(b.x1), round(b.y1), round(b.x2), round(b.y2))
        for i in view.images
        for b in i.boxes
    }
    assert ("key", 70, 50, 80, 60) in boxes  # a box past the edge is clipped to the image


def test_a_review_with_a_wrong_label_or_no_review_file_is_refused(tmp_path):
    teach = teach_folder(tmp_path / "teach")
    review = json.loads((teach / "review.json").read_text())
    review["dice"][0]["label"] = "lantern"
    (teach / "review.json").write_text(json.dumps(review))

    with pytest.raises(DatasetError, match="labelled 'lantern'"):
        read_review(teach)
    with pytest.raises(DatasetError, match=r"no review.json in .*capture and review"):
        read_review(tmp_path)


def test_a_review_image_that_went_missing_is_left_out_and_said(tmp_path):
    teach = teach_folder(tmp_path / "teach")
    (teach / "torch" / "0003.jpg").unlink()

    view = read_review(teach)

    assert len(view.images) == 8
    assert any("torch/0003.jpg" in p for p in view.problems)


# --- the command line --------------------------------------------------------------------------


def test_dataset_import_prints_what_it_wrote(roboflow_dir, tmp_path, capsys):
    out = tmp_path / "clean"
    status = main(
        ["dataset", "import", str(roboflow_dir), "--out", str(out), "--map", "meeple=ignore"]
    )

    assert status == 0
    printed = capsys.readouterr().out
    assert "format: roboflow" in printed
    assert "images: 3 (train 1, val 2)" in printed
    assert "  key " in printed and "(from" not in printed  # Key is key, no rename
    assert read_data_yaml(out / "data.yaml").names == FACES


def test_dataset_check_lists_counts_and_problems_and_exits_2_on_unknown_classes(
    label_studio_dir, capsys
):
    assert main(["dataset", "check", str(label_studio_dir)]) == 2
    printed = capsys.readouterr().out
    assert "format: label-studio" in printed
    assert "images: 2" in printed
    assert "error: the labels name classes templecam does not know: 'Die key'" in printed

    assert main(["dataset", "check", str(label_studio_dir), "--map", "Die key=key"]) == 0
    printed = capsys.readouterr().out
    assert "key " in printed and "(from Die key)" in printed
    assert "note: 1 image without a label file" in printed


def test_dataset_export_writes_the_review(tmp_path, capsys):
    teach = teach_folder(tmp_path / "teach")
    assert main(["dataset", "export", str(teach), "--out", str(tmp_path / "x")]) == 0
    printed = capsys.readouterr().out
    assert "left out: 1 box (not_die)" in printed
    assert main(["dataset", "export", str(tmp_path), "--out", str(tmp_path / "y")]) == 2
    assert "no review.json" in capsys.readouterr().err


def test_train_imports_another_format_into_the_model_folder_first(cvat_dir, tmp_path, monkeypatch):
    import models.train

    seen = {}

    def fake_train(config):
        seen["data"] = config.data
        seen["spec"] = read_data_yaml(config.data)
        raise models.train.TrainError("stop here")

    monkeypatch.setattr(models.train, "train", fake_train)
    out = tmp_path / "model"

    status = main(["train", "--data", str(cvat_dir), "--out", str(out), "--map", "KEY=torch"])

    assert status == 2  # the stand-in training stopped it
    assert seen["data"] == out / "dataset" / "data.yaml"
    assert seen["spec"].names == FACES
    counts = load_dataset(out / "dataset", {}).class_counts()
    assert counts == {"adventurer": 3, "torch": 2}


def test_train_keeps_an_ultralytics_data_yaml_as_it_is(ultralytics_dir, tmp_path, monkeypatch):
    import models.train

    seen = {}

    def fake_train(config):
        seen["data"] = config.data
        raise models.train.TrainError("stop here")

    monkeypatch.setattr(models.train, "train", fake_train)
    main(["train", "--data", str(ultralytics_dir / "data.yaml"), "--out", str(tmp_path / "m")])

    assert seen["data"] == ultralytics_dir / "data.yaml"
    assert not (tmp_path / "m" / "dataset").exists()


def test_a_teach_folder_given_as_a_dataset_is_read_as_its_review(tmp_path):
    teach = teach_folder(tmp_path / "teach")

    view = load_dataset(teach, {})

    assert view.format == "templecam-teach"
    assert view.class_counts() == read_review(teach).class_counts() == {"key": 4, "torch": 4}
    with pytest.raises(DatasetError, match="its labels need no --map"):
        load_dataset(teach, {"key": "torch"})
