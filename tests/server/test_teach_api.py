"""The /dice page's API on a real server: capture from the camera (an image folder), upload,
label, review, a real fine-tune child (progress, cancel, failure), compare, use, roll back, a
model that failed its checks, export and start over. Photos are rendered prompted captures of a
dice look the shipped reader was never trained on."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from conftest import SHORT_TIMELINE, ServerProcess, free_port

from models.synth.prompted import write_prompted
from models.synth.settings import SynthSettings
from teach.prompted import PROMPTS
from vision.perception.face_reader import default_faces_path

TINY = "--epochs 3 --copies 16 --replay 1000"
"""A fine-tune in seconds (tests only; the page's run keeps the defaults). One epoch of two
copies moved the held-back photos by a die either way, and the check refuses a reader one die
worse: with the reader shipped on 2026-12-04 it did (0.733 against 0.744). On the photos drawn
since 2026-12-05 (dice painted farthest from the camera first), 400 replayed crops let it read
them worse (0.643 against 0.661), and 5 epochs of 32 copies forgot the shipped dice (0.927
against 0.966); 1,000 replayed crops keep both."""
TEACH_SECONDS = 300.0


def call(server: Any, method: str, path: str, body: Any = None, **upload: Any) -> tuple[int, Any]:
    """Send a request; return (status, JSON answer) whatever the status."""
    headers, data = {}, None
    if body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    if upload:
        headers["Content-Type"] = upload.get("content_type", "image/jpeg")
        data = upload["data"]
    request = urllib.request.Request(server.url + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            raw = response.read()
            status = response.status
    except urllib.error.HTTPError as error:
        raw, status = error.read(), error.code
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw


def announce(server: Any, path: str, size: int) -> tuple[int, Any]:
    """POST `size` zero bytes as an image; return (status, JSON answer), even when the server
    answers before the body is all sent."""
    connection = http.client.HTTPConnection(server.url.removeprefix("http://"), timeout=30)
    connection.putrequest("POST", path)
    connection.putheader("Content-Type", "image/jpeg")
    connection.putheader("Content-Length", str(size))
    connection.endheaders()
    with contextlib.suppress(OSError):
        connection.send(bytes(size))
    response = connection.getresponse()
    answer = json.loads(response.read())
    connection.close()
    return response.status, answer


def render(folder: Path) -> Path:
    """Rendered prompted photos, 2 per face and 1 of the empty table, of the held-out look."""
    write_prompted(folder, SynthSettings(width=960, height=540, look="held_out"), 2, 1, seed=5)
    return folder


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return render(tmp_path_factory.mktemp("rendered") / "prompted")


def start(base: Path, data: Path, camera: tuple[str, ...], teach_args: str) -> ServerProcess:
    """A server whose fine-tunes take `teach_args` (an environment variable for tests)."""
    os.environ["TEMPLECAM_TEACH_ARGS"] = teach_args
    try:
        return ServerProcess(base, SHORT_TIMELINE, data, free_port(), camera=camera)
    finally:
        del os.environ["TEMPLECAM_TEACH_ARGS"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, rendered: Path) -> Iterator[Any]:
    """A server watching an image folder (one photo of keys) as its camera."""
    base = tmp_path_factory.mktemp("teach-api")
    camera = base / "camera"
    camera.mkdir()
    shutil.copy(rendered / "key" / "capture_0000.jpg", camera / "0.jpg")
    running = start(base, base / "data", ("--camera", str(camera)), TINY)
    try:
        yield running.server
    finally:
        running.stop()


def teach_folder(server: Any) -> Path:
    return server.data_dir / "teach" / "current"


def wait_for(server: Any, states: set[str], seconds: float = TEACH_SECONDS) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status = server.get("/api/dice/teach")
        if status["state"] in states:
            return status
        time.sleep(0.3)
    raise AssertionError(f"the fine-tune is still {status}")


def test_capture_saves_the_cameras_newest_frame_and_takes_it_back(server: Any) -> None:
    state = server.get("/api/dice")
    assert state["camera"]["live"], state["camera"]
    steps = {s["prompt"]: s for s in state["steps"]}
    assert list(steps) == list(PROMPTS)
    assert steps["golden_mask"]["name"] == "Golden mask"
    assert "shows the GOLDEN MASK" in steps["golden_mask"]["ask"]
    assert (steps["key"]["target"], steps["empty"]["target"]) == (3, 2)

    status, answer = call(server, "POST", "/api/dice/capture", {"prompt": "key"})
    assert status == 200, answer
    saved = teach_folder(server) / answer["saved"]
    image = cv2.imread(str(saved))
    assert image is not None and image.shape[:2] == (540, 960)
    assert {s["prompt"]: s["count"] for s in answer["steps"]}["key"] == 1
    assert str(server.data_dir) not in json.dumps(answer)

    status, answer = call(server, "POST", "/api/dice/capture/undo", {"prompt": "key"})
    assert status == 200 and {s["prompt"]: s["count"] for s in answer["steps"]}["key"] == 0
    assert not saved.exists()
    assert list((server.data_dir / "teach" / "set-aside").iterdir()), "the photo is kept aside"
    status, answer = call(server, "POST", "/api/dice/capture", {"prompt": "dragon"})
    assert status == 422


def test_uploads_take_photos_and_refuse_anything_else(server: Any, rendered: Path) -> None:
    for prompt in PROMPTS:
        for photo in sorted((rendered / prompt).glob("*.jpg")):
            status, answer = call(
                server, "POST", f"/api/dice/upload?prompt={prompt}", data=photo.read_bytes()
            )
            assert status == 200, answer
    counts = {s["prompt"]: s["count"] for s in server.get("/api/dice")["steps"]}
    assert counts == {**dict.fromkeys(PROMPTS[:-1], 2), "empty": 1}

    status, answer = call(
        server, "POST", "/api/dice/upload?prompt=key&name=notes.txt", data=b"not a photo at all"
    )
    assert status == 422 and answer["detail"].startswith("notes.txt is not a photo"), answer
    half = cv2.imread(str(rendered / "key" / "capture_0000.jpg"))[::2]
    _, small = cv2.imencode(".png", half)
    status, answer = call(
        server,
        "POST",
        "/api/dice/upload?prompt=key",
        data=small.tobytes(),
        content_type="image/png",
    )
    assert status == 422 and "photos so far are 960x540" in answer["detail"], answer
    status, answer = call(
        server, "POST", "/api/dice/upload?prompt=key", data=b"{}", content_type="application/json"
    )
    assert status == 415, answer
    status, _ = call(server, "POST", "/api/dice/upload?prompt=../../x", data=small.tobytes())
    assert status == 422
    status, answer = announce(server, "/api/dice/upload?prompt=key", 26 << 20)
    assert status == 413 and "25 MiB" in answer["detail"], answer
    status, answer = announce(server, "/api/dice/upload?prompt=key", 20 << 20)
    assert status == 422 and "not a photo" in answer["detail"], "20 MiB are read"
    status, answer = announce(server, "/api/dice/label", 100 << 10)
    assert status == 413 and "64 KiB" in answer["detail"], "only the upload takes a large body"
    counts = {s["prompt"]: s["count"] for s in server.get("/api/dice")["steps"]}
    assert counts["key"] == 2, "a refused upload saves nothing"


def test_labels_then_every_click_of_the_review_is_saved(server: Any) -> None:
    status, review = call(server, "POST", "/api/dice/label")
    assert status == 200, review
    counts = review["counts"]
    assert all(counts[face] >= 3 for face in ("key", "torch", "golden_mask")), counts
    assert counts["not_die"] >= 1, "whatever the empty table shows is a hard negative"
    empty_dice = [d for d in review["dice"] if d["image"].startswith("empty/")]
    assert empty_dice and all(d["label"] == "not_die" for d in empty_dice)
    assert {p["name"] for p in review["photos"]} >= {"Key", "Golden mask", "Empty table"}

    with urllib.request.urlopen(server.url + "/api/dice/crops/0.png", timeout=10) as response:
        assert response.headers["Content-Type"] == "image/png"
        crop = cv2.imdecode(np.frombuffer(response.read(), np.uint8), cv2.IMREAD_COLOR)
    assert crop.shape == (96, 96, 3)

    key = next(d for d in review["dice"] if d["label"] == "key")
    status, answer = call(
        server, "POST", "/api/dice/relabel", {"index": key["index"], "label": "torch"}
    )
    assert status == 200 and answer["counts"]["torch"] == counts["torch"] + 1
    on_disk = json.loads((teach_folder(server) / "review.json").read_text())
    assert on_disk["dice"][key["index"]]["label"] == "torch"
    status, _ = call(server, "POST", "/api/dice/relabel", {"index": key["index"], "label": "key"})
    assert status == 200

    photo = next(p for p in review["photos"] if p["prompt"] == "black_mask")
    status, added = call(
        server, "POST", "/api/dice/add", {"image": photo["file"], "x": 40.0, "y": 30.0}
    )
    assert status == 200 and added["label"] == "black_mask", added
    on_disk = json.loads((teach_folder(server) / "review.json").read_text())
    assert on_disk["dice"][added["index"]]["source"] == "added"
    status, _ = call(server, "POST", "/api/dice/relabel", {"index": added["index"], "label": "x"})
    assert status == 422
    status, answer = call(
        server, "POST", "/api/dice/add", {"image": photo["file"], "x": 5000.0, "y": 30.0}
    )
    assert status == 422 and "outside" in answer["detail"]
    status, _ = call(server, "POST", "/api/dice/relabel", {"index": 99999, "label": "key"})
    assert status == 422
    # the click was a mistake: the added crop is not a die after all
    call(server, "POST", "/api/dice/relabel", {"index": added["index"], "label": "not_die"})
    again = server.get("/api/dice/review")
    assert len(again["dice"]) == len(review["dice"]) + 1


def test_teaching_waits_until_the_labels_are_checked(server: Any) -> None:
    state = server.get("/api/dice")
    assert not state["readiness"]["ready"]
    (missing,) = state["readiness"]["missing"]
    assert missing.startswith("check the labels, then press The labels are right")
    status, answer = call(server, "POST", "/api/dice/teach")
    assert status == 409 and answer["detail"] == f"not ready to teach: {missing}", answer
    assert server.get("/api/dice/teach")["state"] != "running"

    status, review = call(server, "POST", "/api/dice/review/done", {"done": True})
    assert status == 200 and review["done"] and review["readiness"]["ready"], review
    on_disk = json.loads((teach_folder(server) / "review.json").read_text())
    assert on_disk["done"] is True, "the word is saved with the review"
    status, review = call(server, "POST", "/api/dice/review/done", {"done": False})
    assert status == 200 and not review["readiness"]["ready"]
    status, review = call(server, "POST", "/api/dice/review/done", {})
    assert status == 200 and server.get("/api/dice")["readiness"]["ready"]


def test_teaching_needs_every_face_and_warns_of_mislabelled_photos(tmp_path: Path) -> None:
    # Photos of the dice's usual look, which the shipped reader reads well.
    look = tmp_path / "standard"
    # at 1080p, where the dice are the size the reader is made for (30 px; the reader misreads
    # most keys of this look at 960x540, where they are 15 px)
    write_prompted(look, SynthSettings(width=1920, height=1080), 2, 1, seed=7)
    data = tmp_path / "data"
    current = data / "teach" / "current"
    for prompt in ("key", "torch", "empty"):
        shutil.copytree(look / prompt, current / prompt)
    running = start(tmp_path, data, ("--no-camera",), TINY)
    try:
        server = running.server
        state = server.get("/api/dice")
        assert "then upload a photo of it (Upload photos)" in state["steps"][0]["ask"], (
            "no camera: the page never asks to press Capture"
        )
        assert not any("Capture" in step["ask"] for step in state["steps"])
        assert call(server, "POST", "/api/dice/label")[0] == 200
        call(server, "POST", "/api/dice/review/done", {"done": True})
        status, answer = call(server, "POST", "/api/dice/teach")
        assert status == 409, answer
        assert answer["detail"].startswith(
            "not ready to teach: photograph every face, 2 photos at least: Adventurer (0 of 2), "
            "Golden mask (0 of 2), Black mask (0 of 2)"
        ), answer

        # Every face photographed, but the photos of the golden mask show torches.
        shutil.copytree(look / "adventurer", current / "adventurer")
        shutil.copytree(look / "black_mask", current / "black_mask")
        shutil.copytree(look / "torch", current / "golden_mask")
        status, answer = call(server, "POST", "/api/dice/teach")
        assert status == 409 and "press Find the dice in the photos again" in answer["detail"]
        status, answer = call(server, "POST", "/api/dice/review/done", {"done": True})
        assert status == 409 and "Find the dice in the photos again" in answer["detail"]
        status, review = call(server, "POST", "/api/dice/label")
        assert status == 200 and not review["done"], "new photos: the labels need a look"
        warnings = {w["face"]: w for w in review["readiness"]["warnings"]}
        assert "golden_mask" in warnings, review["readiness"]
        assert warnings["golden_mask"]["wrong"] > warnings["golden_mask"]["read"] / 2
        assert (
            "reads" in warnings["golden_mask"]["text"]
            and "Golden mask" in warnings["golden_mask"]["text"]
        )
        assert not {"key", "torch"} & set(warnings), "the faces photographed right are not"
        assert review["readiness"]["missing"] == [
            "check the labels, then press The labels are right (see the warnings)"
        ]
        status, _ = call(server, "POST", "/api/dice/teach")
        assert status == 409
    finally:
        running.stop()


def test_a_fine_tune_can_be_cancelled_and_leaves_no_model(server: Any) -> None:
    status, job = call(server, "POST", "/api/dice/teach")
    assert status == 202 and job["state"] == "running", job
    status, answer = call(server, "POST", "/api/dice/teach")
    assert status == 409 and "already running" in answer["detail"]
    status, answer = call(server, "POST", "/api/dice/relabel", {"index": 0, "label": "key"})
    assert status == 409, "the review does not change under a running fine-tune"
    status, job = call(server, "POST", "/api/dice/teach/cancel")
    assert status == 200 and job["state"] == "cancelled", job
    assert "cancelled" in job["message"]
    assert server.get("/api/dice/models")["models"] == []
    status, _ = call(server, "POST", "/api/dice/teach/cancel")
    assert status == 409


def test_a_fine_tune_to_the_end_then_compare_use_and_roll_back(server: Any) -> None:
    vision = server.get("/api/vision")
    assert vision["faces"] == "shipped"
    status, job = call(server, "POST", "/api/dice/teach")
    assert status == 202, job
    seen = set()
    deadline = time.monotonic() + TEACH_SECONDS
    while job["state"] == "running" and time.monotonic() < deadline:
        time.sleep(0.2)
        job = server.get("/api/dice/teach")
        seen.add(job.get("stage"))
        assert 0 <= job["percent"] <= 100
        status, _ = call(server, "GET", "/api/state")
        assert status == 200, "the dashboard answers while the fine-tune runs"
    assert job["state"] == "done", job
    assert "fine-tune" in seen or "check" in seen, seen
    name = job["model"]
    assert job["percent"] == 100.0

    listed = server.get("/api/dice/models")
    assert listed["active"] == "shipped" and listed["in_use"] == "shipped"
    (model,) = listed["models"]
    assert model["name"] == name and model["passed"] and model["here"], model
    compare = server.get(f"/api/dice/models/{name}")
    held = compare["figures"]["held_back"]
    assert set(held["per_face_after"]) >= {"key", "torch"}
    assert held["before"] is not None and held["after"] is not None
    assert compare["figures"]["shipped_look"]["after"] is not None
    review = server.get("/api/dice/review")
    for item in compare["wrong"]["before"] + compare["wrong"]["after"]:
        assert item["die"] is not None
        die = review["dice"][item["die"]]
        assert die["image"] in {p["file"] for p in review["photos"] if p["held_back"]}
        assert item["truth"] == die["label"]

    status, answer = call(server, "POST", "/api/dice/use", {"name": name})
    assert status == 200, answer
    assert answer["active"] == name and answer["in_use"] == name
    assert server.get("/api/vision")["faces"] == name
    active = json.loads((server.data_dir / "models" / "active.json").read_text())
    assert active["faces"] == name

    status, answer = call(server, "POST", "/api/dice/use", {"name": "shipped"})
    assert status == 200 and answer["in_use"] == "shipped", answer
    assert "shipped reader" in answer["message"]
    assert server.get("/api/vision")["faces"] == "shipped"
    status, answer = call(server, "POST", "/api/dice/use", {"name": "../../etc"})
    assert status == 404


def fake_model(data: Path, name: str, passed: bool) -> Path:
    """A taught model folder: the shipped reader's file with a card that passed or not."""
    folder = data / "models" / "taught" / name
    folder.mkdir(parents=True)
    shutil.copy(default_faces_path(), folder / "faces.onnx")
    problems = [] if passed else ["it reads the held-back photos worse than the reader in use"]
    card = {
        "name": name,
        "created": "2026-11-30T20:00:00+00:00",
        "checks": {"passed": passed, "problems": problems},
        "figures": {
            "held_back": {"before": 0.8, "after": 0.7 if not passed else 0.95},
            "shipped_look": {"before": 0.98, "after": 0.97},
        },
        "captures": {"folder": str(data / "elsewhere")},
    }
    (folder / "card.json").write_text(json.dumps(card))
    return folder


def test_a_model_that_failed_its_checks_is_refused(server: Any) -> None:
    fake_model(server.data_dir, "20261130-200000", passed=False)
    listed = server.get("/api/dice/models")
    failed = next(m for m in listed["models"] if m["name"] == "20261130-200000")
    assert not failed["passed"] and "worse" in failed["problems"][0]
    status, answer = call(server, "POST", "/api/dice/use", {"name": "20261130-200000"})
    assert status == 409 and "failed its checks" in answer["detail"], answer
    assert server.get("/api/vision")["faces"] == "shipped"

    broken = fake_model(server.data_dir, "20261130-210000", passed=True)
    (broken / "faces.onnx").write_bytes(b"not a model")
    before = (server.data_dir / "models" / "active.json").read_bytes()
    status, answer = call(server, "POST", "/api/dice/use", {"name": "20261130-210000"})
    assert status == 409 and "does not open" in answer["detail"], answer
    assert "nothing changed" in answer["detail"]
    assert server.get("/api/vision")["faces"] == "shipped"
    assert (server.data_dir / "models" / "active.json").read_bytes() == before


def test_export_as_a_dataset_then_start_over_keeps_every_photo(server: Any) -> None:
    status, answer = call(server, "POST", "/api/dice/export")
    assert status == 200, answer
    assert answer["path"].startswith("datasets/dice-")
    assert (server.data_dir / answer["path"] / "data.yaml").is_file()
    photos = sorted(
        p.relative_to(teach_folder(server)) for p in teach_folder(server).rglob("*.jpg")
    )

    status, answer = call(server, "POST", "/api/dice/start-over")
    assert status == 200 and answer["moved"].startswith("teach/earlier-"), answer
    moved = server.data_dir / answer["moved"]
    assert sorted(p.relative_to(moved) for p in moved.rglob("*.jpg")) == photos
    assert (moved / "review.json").is_file()
    assert all(s["count"] == 0 for s in answer["steps"])
    status, _ = call(server, "GET", "/api/dice/review")
    assert status == 409


def test_the_chosen_reader_is_used_at_start_and_a_child_error_is_shown(
    tmp_path: Path, rendered: Path
) -> None:
    data = tmp_path / "data"
    name = "20261130-210000"
    fake_model(data, name, passed=True)
    (data / "models" / "active.json").write_text(json.dumps({"faces": name}))
    shutil.copytree(rendered, data / "teach" / "current", ignore=shutil.ignore_patterns(".truth"))
    camera = tmp_path / "camera"
    camera.mkdir()
    shutil.copy(rendered / "empty" / "capture_0000.jpg", camera / "0.jpg")
    running = start(tmp_path, data, ("--camera", str(camera)), "--epochs 0")
    try:
        server = running.server
        assert server.get("/api/vision")["faces"] == name, "the choice survives a restart"
        listed = server.get("/api/dice/models")
        assert listed["active"] == name and listed["in_use"] == name
        status, _ = call(server, "POST", "/api/dice/teach")
        assert status == 409, "nothing to teach before the photos are labelled"
        assert call(server, "POST", "/api/dice/label")[0] == 200
        assert call(server, "POST", "/api/dice/review/done", {"done": True})[0] == 200
        status, job = call(server, "POST", "/api/dice/teach")
        assert status == 202, job
        job = wait_for(server, {"failed", "done", "cancelled"}, 120)
        assert job["state"] == "failed", job
        assert "--epochs" in job["message"] and "take 1 or more" in job["message"], job
        assert str(data) not in job["message"]
    finally:
        running.stop()


def teach_processes(data: Path) -> list[int]:
    """Return the ids of the running `templecam teach` processes working in `data`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().split(") ")[-1][:1]
        except OSError:
            continue
        if b"teach" in words and str(data).encode() in words and state != "Z":
            found.append(int(entry.name))
    return found


def test_a_long_fine_tune_runs_on_and_ends_with_a_crashed_server(
    tmp_path: Path, rendered: Path
) -> None:
    data = tmp_path / "data"
    shutil.copytree(rendered, data / "teach" / "current", ignore=shutil.ignore_patterns(".truth"))
    running = start(tmp_path, data, ("--no-camera",), "")  # the defaults: minutes of work
    try:
        server = running.server
        assert call(server, "POST", "/api/dice/label")[0] == 200
        assert call(server, "POST", "/api/dice/review/done", {"done": True})[0] == 200
        status, job = call(server, "POST", "/api/dice/teach")
        assert status == 202, job
        time.sleep(15)  # longer than an idle worker thread of the server lives
        assert server.get("/api/dice/teach")["state"] == "running"
        assert teach_processes(data), "the fine-tune is still at work"
        assert server.get("/api/state")["game"] is None, "the dashboard answers meanwhile"
        running.kill_hard()
        deadline = time.monotonic() + 15
        while teach_processes(data) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert teach_processes(data) == [], "no fine-tune is left running without its server"
    finally:
        running.stop()
