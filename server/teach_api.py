"""The /dice page's routes: teach templecam your own dice.

Guided capture writes the camera's newest frame (or an uploaded photo) into the data folder's
`teach/current/<face>/NNNN.jpg`, the layout `teach.prompted` reads; labelling runs the localiser
(`teach.review.auto_label`) and saves `review.json`, which every click of the review changes and
saves again; the fine-tune is `templecam teach` in a child process (`server.teach_job`); the
taught models, their comparison, switching and rolling back come from `teach.registry`. Answers
name no folder of this computer: paths are given inside the data folder.
"""

from __future__ import annotations

import asyncio
import re
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np
from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from base.files import write_atomically
from base.images import ImageTooLarge, decode_photo, header_size, read_photo
from base.paths import within
from server.teach_job import TeachJob
from server.vision_service import VisionService
from teach.errors import TeachError
from teach.prompted import EMPTY, PROMPTS, image_files
from teach.registry import (
    SHIPPED,
    TaughtModel,
    active_name,
    list_models,
    read_model,
    taught_dir,
    use_model,
)
from teach.review import LABELS, Review, load_review
from vision.perception.classes import FACES, NOT_DIE

TEACH_FOLDER = "teach"
CURRENT = "current"
PER_FACE = 3
"""Photos the page asks for of each face (a few, the dice moved between them)."""
EMPTY_PHOTOS = 2
"""Photos of the empty table the page asks for."""
MIN_PER_FACE = 2
"""Photos of each face needed before teaching: the last one is held back to compare on."""
MOSTLY_WRONG = 0.5
"""Share of a face's crops the shipped reader reads as something else that earns a warning."""
MAX_UPLOAD_BYTES = 25 * 1024 * 1024
"""The largest photo one upload takes."""
UPLOAD_PATH = "/api/dice/upload"
CROP_PX = 96
"""Side of a review crop on the page."""
PHOTO_WIDTH = 960
"""Captures are shown at most this wide."""
NAMES = {
    "adventurer": "Adventurer",
    "key": "Key",
    "torch": "Torch",
    "golden_mask": "Golden mask",
    "black_mask": "Black mask",
    NOT_DIE: "Not a die",
    EMPTY: "Empty table",
}
"""What the page calls each face, label and prompt."""
PHOTO_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}\.(jpg|jpeg|png|bmp|webp)$")
MODEL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,80}$")
NOT_A_PHOTO = "is not a photo templecam can read: upload JPEG or PNG photos from your camera"

Prompt = Literal["adventurer", "key", "torch", "golden_mask", "black_mask", "empty"]
Label = Literal["adventurer", "key", "torch", "golden_mask", "black_mask", "not_die"]


class PromptIn(BaseModel):
    """Which prompt a capture is for."""

    model_config = ConfigDict(extra="forbid")

    prompt: Prompt


class RelabelIn(BaseModel):
    """Move one crop of the review to another face, or to "not a die"."""

    model_config = ConfigDict(extra="forbid")

    index: int = Field(ge=0)
    label: Label


class AddIn(BaseModel):
    """A die the localiser missed: a click on a photo, in the photo's own pixels."""

    model_config = ConfigDict(extra="forbid")

    image: str = Field(min_length=1, max_length=200)
    x: float = Field(ge=0, le=100_000)
    y: float = Field(ge=0, le=100_000)
    label: Label | None = None


class DoneIn(BaseModel):
    """The user's word that the labels are checked (or not any more)."""

    model_config = ConfigDict(extra="forbid")

    done: bool = True


class UseIn(BaseModel):
    """The taught model the camera should read dice with (or "shipped")."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100)


def ask(prompt: str, live: bool = True) -> str:
    """Return what the page asks the user to do for `prompt` (`live`: a camera can capture;
    without one the photos are uploaded)."""
    then = "then press Capture" if live else "then upload a photo of it (Upload photos)"
    if prompt == EMPTY:
        return f"Take every die off the table, {then}"
    return (
        f"Turn every die so that it shows the {NAMES[prompt].upper()} and spread them in view, "
        f"{then}"
    )


def _stamp() -> str:
    """Return the date and time for a folder name."""
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S")


class DiceTeacher:
    """The teach folder, its review and the fine-tune, shared by the routes."""

    def __init__(self, data_dir: Path, service: VisionService | None) -> None:
        """Work in `data_dir`'s teach folder; capture from `service`'s camera."""
        self.data_dir = data_dir
        self.service = service
        self.root = data_dir / TEACH_FOLDER
        self.folder = self.root / CURRENT
        self.lock = threading.RLock()
        self.job = TeachJob(data_dir, self.folder)
        self._size: tuple[Path, tuple[int, int]] | None = None
        """The first photo and its size, read from its header once."""
        self._localiser: Any = None
        self._crops: dict[tuple[str, tuple[float, ...]], bytes] = {}

    # ----- capture ---------------------------------------------------------------------------

    def photos(self, prompt: str) -> list[Path]:
        """Return the photos of one prompt (never a link leading out of the data folder)."""
        folder = self.folder / prompt
        if not folder.is_dir() or not within(folder, self.data_dir):
            return []
        return [path for path in image_files(folder) if within(path, self.data_dir)]

    def photo_size(self) -> tuple[int, int] | None:
        """Return the size of the photos so far (None when there is none), read from the first
        readable photo's header once and remembered while that photo is there."""
        for prompt in PROMPTS:
            for path in self.photos(prompt):
                if self._size is not None and self._size[0] == path:
                    return self._size[1]
                try:
                    size = header_size(path)
                except ImageTooLarge:
                    continue  # never taken by this page; not a photo of this set
                if size is not None:
                    self._size = (path, size)
                    return size
        return None

    def camera(self) -> dict[str, Any]:
        """Return whether a live camera can capture, and what the page says about it."""
        service = self.service
        if service is None or service.mode == "off" or service.grabber is None:
            return {"live": False, "note": "No camera is on: upload photos instead."}
        if service.mode == "demo":
            return {
                "live": False,
                "note": "The demo recording plays, not your table: choose your camera on the "
                "set-up page, or upload photos instead.",
            }
        state = service.grabber.state()
        if state.frames == 0:
            return {"live": False, "note": "The camera has sent no picture yet."}
        return {"live": True, "note": None, "label": service.chosen_label()}

    def _check_not_running(self) -> None:
        """Refuse to change the captures or the review while a fine-tune reads them."""
        if self.job.running:
            raise HTTPException(409, "a fine-tune is running on these photos: wait or cancel it")

    def save_photo(self, prompt: str, image: np.ndarray, data: bytes | None = None) -> str:
        """Write one capture of `prompt` atomically; return its file inside the teach folder."""
        height, width = image.shape[:2]
        with self.lock:
            self._check_not_running()
            size = self.photo_size()
            if size is not None and size != (width, height):
                raise HTTPException(
                    422,
                    f"this photo is {width}x{height} but the photos so far are "
                    f"{size[0]}x{size[1]}: take every photo with the same camera and setting "
                    "(or Start over)",
                )
            suffix, payload = ".jpg", data
            if data is not None and data[:8] == b"\x89PNG\r\n\x1a\n":
                suffix = ".png"
            elif data is None or data[:2] != b"\xff\xd8":
                ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])
                if not ok:
                    raise HTTPException(500, "the photo could not be encoded as JPEG")
                payload = encoded.tobytes()
            number = self._next_number()
            path = self.folder / prompt / f"{number:04d}{suffix}"
            assert payload is not None
            try:
                write_atomically(path, payload, durable=True)
            except OSError as error:
                raise HTTPException(
                    507,
                    f"the photo could not be saved ({error.strerror or error}): is the disk "
                    "full? The photos so far are kept",
                ) from None
            return f"{prompt}/{path.name}"

    def _next_number(self) -> int:
        """Return the number of the next capture (one more than any so far)."""
        numbers = [0]
        for prompt in PROMPTS:
            for path in self.photos(prompt):
                digits = re.findall(r"\d+", path.stem)
                if digits:
                    numbers.append(int(digits[-1]))
        return max(numbers) + 1

    def set_aside_last(self, prompt: str) -> str:
        """Move the newest photo of `prompt` out of the teach folder (never deleted)."""
        with self.lock:
            self._check_not_running()
            photos = self.photos(prompt)
            if not photos:
                raise HTTPException(409, f"there is no photo of {NAMES[prompt]} to take back")
            last = max(photos, key=lambda p: (p.stat().st_mtime, p.name))
            target = self.root / "set-aside" / f"{_stamp()}-{prompt}-{last.name}"
            target.parent.mkdir(parents=True, exist_ok=True)
            last.rename(target)
            return f"{prompt}/{last.name}"

    def capture_state(self) -> dict[str, Any]:
        """Return the capture steps: what to do, how many photos, how many asked for."""
        steps = []
        camera = self.camera()
        for prompt in PROMPTS:
            target = EMPTY_PHOTOS if prompt == EMPTY else PER_FACE
            steps.append(
                {
                    "prompt": prompt,
                    "name": NAMES[prompt],
                    "ask": ask(prompt, bool(camera["live"])),
                    "count": len(self.photos(prompt)),
                    "target": target,
                }
            )
        return {"steps": steps, "camera": camera}

    # ----- review ----------------------------------------------------------------------------

    def review(self) -> Review | None:
        """Return the saved review (None before labelling)."""
        try:
            return load_review(self.folder)
        except TeachError as error:
            raise HTTPException(409, str(error)) from None

    def need_review(self) -> Review:
        """Return the saved review, or 409 before labelling."""
        review = self.review()
        if review is None:
            raise HTTPException(409, "label the photos first (Find the dice)")
        return review

    def readiness(self, review: Review | None) -> dict[str, Any]:
        """Return whether the photos and their review are ready to teach from: what is still
        missing (`missing`, in the order to do it) and the faces whose labels the shipped reader
        mostly reads otherwise (`warnings`, which do not stop teaching once the user checked)."""
        missing = []
        short = [
            f"{NAMES[face]} ({len(self.photos(face))} of {MIN_PER_FACE})"
            for face in FACES
            if len(self.photos(face)) < MIN_PER_FACE
        ]
        if short:
            missing.append(
                f"photograph every face, {MIN_PER_FACE} photos at least: {', '.join(short)}"
            )
        files = {f"{p}/{path.name}" for p in PROMPTS for path in self.photos(p)}
        if review is None:
            missing.append("find the dice in the photos (Find the dice in the photos)")
        elif files != {c.file for c in review.captures}:
            missing.append(
                "photos were added or taken back since the dice were found: press Find the "
                "dice in the photos again"
            )
        warnings = []
        if review is not None:
            counts = review.counts()
            empty = [NAMES[face] for face in FACES if counts[face] == 0]
            if empty and not short:
                missing.append(f"no die is labelled {', '.join(empty)}: check the labels")
            for face, (wrong, read) in review.disagreement().items():
                if read and wrong / read > MOSTLY_WRONG:
                    warnings.append(
                        {
                            "face": face,
                            "wrong": wrong,
                            "read": read,
                            "text": f"The shipped reader reads {round(100 * wrong / read)} % "
                            f"of the dice labelled {NAMES[face]} ({wrong} of {read}) as another "
                            f"face or no die: check that the photos of {NAMES[face]} show every "
                            "die turned to it, and move the crops that do not",
                        }
                    )
            if not review.done:
                missing.append(
                    "check the labels, then press The labels are right"
                    + (" (see the warnings)" if warnings else "")
                )
        return {"ready": not missing, "missing": missing, "warnings": warnings}

    def refuse_unready(self, review: Review | None) -> None:
        """Answer 409, saying what is missing, unless the photos are ready to teach from."""
        ready = self.readiness(review)
        if not ready["ready"]:
            raise HTTPException(409, "not ready to teach: " + "; ".join(ready["missing"]))

    def label(self) -> Review:
        """Find and label the dice of every photo (reviewed labels are kept); save the review."""
        from teach.review import auto_label
        from vision.perception.localiser import Localiser
        from vision.perception.models import default_model

        with self.lock:
            self._check_not_running()
            if self._localiser is None:
                path, _ = default_model()
                self._localiser = Localiser(path)
            try:
                review = auto_label(self.folder, self._localiser, keep=load_review(self.folder))
                review.save(self.folder)
            except TeachError as error:
                raise HTTPException(422, str(error)) from None
            return review

    def review_json(self, review: Review) -> dict[str, Any]:
        """Return the review as the page shows it."""
        from teach.prompted import held_back

        files = {f"{p}/{path.name}" for p in PROMPTS for path in self.photos(p)}
        held = held_back(review.captures)
        return {
            "photos": [
                {**c.to_json(), "name": NAMES[c.prompt], "held_back": c.file in held}
                for c in review.captures
            ],
            "dice": [
                {
                    "index": i,
                    "image": d.image,
                    "label": d.label,
                    "source": d.source,
                    "box": [round(v, 1) for v in d.box],
                }
                for i, d in enumerate(review.dice)
            ],
            "counts": review.counts(),
            "labels": [{"label": label, "name": NAMES[label]} for label in LABELS],
            "stale": files != {c.file for c in review.captures},
            "done": review.done,
            "readiness": self.readiness(review),
        }

    def crop_png(self, review: Review, index: int) -> bytes:
        """Return crop `index` of the review as a PNG (all crops of its photo are cut at once)."""
        from vision.perception.face_reader import crop_square, crop_window

        if not 0 <= index < len(review.dice):
            raise HTTPException(404, f"no crop {index}: the review has {len(review.dice)}")
        die = review.dice[index]
        key = (die.image, tuple(die.box))
        with self.lock:
            if key in self._crops:
                return self._crops[key]
            path = self.folder / die.image
            try:
                image = read_photo(path) if within(path, self.data_dir) else None
            except ImageTooLarge as error:
                raise HTTPException(422, f"{die.image}: {error}") from None
            if image is None:
                raise HTTPException(404, f"{die.image} can no longer be read")
            if len(self._crops) > 4000:
                self._crops.clear()
            for other in review.dice:
                if other.image != die.image:
                    continue
                crop = crop_square(image, crop_window(other.box), CROP_PX)
                ok, png = cv2.imencode(".png", crop)
                if ok:
                    self._crops[(other.image, tuple(other.box))] = png.tobytes()
            if key not in self._crops:
                raise HTTPException(500, "the crop could not be encoded as PNG")
            return self._crops[key]

    # ----- models ----------------------------------------------------------------------------

    def model(self, name: str) -> TaughtModel:
        """Return the taught model `name` (404 for any other name)."""
        if not MODEL_NAME.match(name):
            raise HTTPException(404, f"there is no taught model {name!r}")
        try:
            return read_model(taught_dir(self.data_dir) / name)
        except TeachError:
            raise HTTPException(404, f"there is no taught model {name!r}") from None

    def model_json(self, model: TaughtModel, active: str | None) -> dict[str, Any]:
        """Return what the page lists of a taught model."""
        summary = model.summary()
        return {
            **summary,
            "problems": [p for p in summary["problems"]],
            "active": model.name == active,
            "here": self._from_here(model),
        }

    def _from_here(self, model: TaughtModel) -> bool:
        """Tell whether the model was taught from the current teach folder (its crops show)."""
        folder = model.card.get("captures", {}).get("folder")
        try:
            return bool(folder) and Path(folder).resolve() == self.folder.resolve()
        except OSError:
            return False

    def models_json(self) -> dict[str, Any]:
        """Return every taught model, the one chosen and the one the camera reads with."""
        active = active_name(self.data_dir)
        models = list_models(self.data_dir)
        if active is not None and active not in {m.name for m in models if m.passed}:
            active = None  # gone or unusable: the shipped reader is in use
        in_use = None
        if self.service is not None and self.service.mode != "off":
            in_use = self.service.state_json().get("faces")
        return {
            "active": active or SHIPPED,
            "in_use": in_use,
            "models": [self.model_json(m, active) for m in models],
        }

    def compare_json(self, model: TaughtModel) -> dict[str, Any]:
        """Return old against new: per-face figures, the shipped look, the crops each got wrong."""
        card = model.card
        held_dice = [int(i) for i in card.get("held_back_dice", [])]
        held_photos = set(card.get("captures", {}).get("held_back_photos", []))
        review = self.review() if self._from_here(model) else None

        def die_of(crop: int) -> int | None:
            """The review die a held-back crop was cut from, if the review still holds it."""
            if review is None or not 0 <= crop < len(held_dice):
                return None
            index = held_dice[crop]
            ok = 0 <= index < len(review.dice) and review.dice[index].image in held_photos
            return index if ok else None

        def wrong(which: str) -> list[dict[str, Any]]:
            out = []
            for item in card.get("wrong", {}).get(which, []):
                die = die_of(int(item.get("crop", -1)))
                out.append({"die": die, "truth": item.get("truth"), "read": item.get("read")})
            return out

        return {
            **self.model_json(model, active_name(self.data_dir)),
            "crops": card.get("crops", {}),
            "wrong": {"before": wrong("before"), "after": wrong("after")},
            "wrong_picture": (model.folder / "wrong.png").is_file() and review is None,
            "localiser": card.get("localiser"),
            "seconds": card.get("seconds"),
        }

    def use(self, name: str) -> str:
        """Make `name` (or "shipped") the reader: the running camera switches first, and only
        a reader that opens is remembered; return what the page says."""
        from vision.perception.detector import ModelError

        model = None if name == SHIPPED else self.model(name)  # 404 for an unknown name
        with self.lock:
            if model is not None and not model.passed:
                try:
                    use_model(self.data_dir, name)  # refuses it, saying why
                except TeachError as error:
                    raise HTTPException(409, str(error)) from None
            what = "the shipped reader" if model is None else f"the reader taught {_when(model)}"
            live = self.service is not None and self.service.mode != "off"
            if live:
                assert self.service is not None
                try:
                    self.service.use_faces(model.faces_path if model else None, model)
                except ModelError as error:
                    raise HTTPException(
                        409, f"{what} does not open ({error!s}): nothing changed"
                    ) from None
            try:
                use_model(self.data_dir, name)
            except TeachError as error:
                raise HTTPException(409, str(error)) from None
            if not live:
                return f"Chosen: {what}. The camera is off; it reads with it once it is on"
            return f"The camera now reads the dice with {what}"

    # ----- the teach folder as a whole -------------------------------------------------------

    def export(self) -> str:
        """Write the reviewed photos as an Ultralytics dataset; return its place in the data
        folder."""
        from teach.datasets import export_review

        with self.lock:
            self.need_review()
            name = f"dice-{_stamp()}"
            try:
                export_review(self.folder, self.data_dir / "datasets" / name)
            except TeachError as error:
                raise HTTPException(422, str(error)) from None
            return f"datasets/{name}"

    def start_over(self) -> str | None:
        """Move the current teach folder aside (never deleted); return where it went."""
        with self.lock:
            self._check_not_running()
            if not self.folder.is_dir() or not any(self.folder.iterdir()):
                return None
            target = self.root / f"earlier-{_stamp()}"
            number = 2
            while target.exists():
                target = self.root / f"earlier-{_stamp()}-{number}"
                number += 1
            self.folder.rename(target)
            self._crops.clear()
            return f"{TEACH_FOLDER}/{target.name}"


def _when(model: TaughtModel) -> str:
    """Say when a model was taught, as the page does ("on 2026-12-01 at 19:30 UTC")."""
    created = str(model.card.get("created") or "")
    try:
        moment = datetime.fromisoformat(created)
    except ValueError:
        return f"as {model.name}"
    return f"on {moment:%Y-%m-%d at %H:%M} UTC"


def teach_router(service: VisionService | None, data_dir: Path) -> tuple[APIRouter, DiceTeacher]:
    """Return the /dice page's routes and the teacher they share (its job stops with the app)."""
    router = APIRouter()
    teacher = DiceTeacher(data_dir, service)

    @router.get("/api/dice")
    def state() -> dict[str, Any]:
        """The capture steps, the camera, whether a review exists, the fine-tune's status."""
        review = teacher.review()
        return {
            **teacher.capture_state(),
            "review": None if review is None else {"counts": review.counts()},
            "readiness": teacher.readiness(review),
            "job": teacher.job.status(),
        }

    @router.post("/api/dice/capture")
    def capture(body: PromptIn) -> dict[str, Any]:
        """Save the live camera's newest frame as a photo of the prompt."""
        if not teacher.camera()["live"]:
            raise HTTPException(409, f"no camera to capture with: {teacher.camera()['note']}")
        assert service is not None
        image = service.snapshot(timeout=2.0)
        if image is None:
            raise HTTPException(409, "the camera gave no picture: check it on the set-up page")
        file = teacher.save_photo(body.prompt, image)
        return {"saved": file, **teacher.capture_state()}

    @router.post(UPLOAD_PATH)
    async def upload(
        request: Request,
        prompt: Prompt = Query(...),  # noqa: B008
        name: str = Query("the file", max_length=200),
    ) -> dict[str, Any]:
        """Save an uploaded photo (the raw request body) as a photo of the prompt."""
        data = await request.body()
        try:
            image = await asyncio.to_thread(decode_photo, data) if data else None
        except ImageTooLarge as error:
            raise HTTPException(413, f"{name}: {error}") from None
        if image is None:
            raise HTTPException(422, f"{name} {NOT_A_PHOTO}")
        file = await asyncio.to_thread(teacher.save_photo, prompt, image, data)
        return {"saved": file, **teacher.capture_state()}

    @router.post("/api/dice/capture/undo")
    def undo_capture(body: PromptIn) -> dict[str, Any]:
        """Take back the newest photo of the prompt (moved aside, never deleted)."""
        file = teacher.set_aside_last(body.prompt)
        return {"taken_back": file, **teacher.capture_state()}

    @router.get("/api/dice/photos/{prompt}/{name}")
    def photo(prompt: Prompt, name: str) -> Response:
        """One capture, scaled down to at most PHOTO_WIDTH px wide, as a JPEG."""
        if not PHOTO_NAME.match(name):
            raise HTTPException(404, f"there is no photo {name!r}")
        path = teacher.folder / prompt / name
        try:
            image = read_photo(path) if within(path, teacher.data_dir) else None
        except ImageTooLarge:
            image = None
        if image is None:
            raise HTTPException(404, f"there is no photo {prompt}/{name}")
        if image.shape[1] > PHOTO_WIDTH:
            scale = PHOTO_WIDTH / image.shape[1]
            size = (PHOTO_WIDTH, max(1, round(image.shape[0] * scale)))
            image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        if not ok:
            raise HTTPException(500, "the photo could not be encoded as JPEG")
        return Response(data.tobytes(), media_type="image/jpeg")

    @router.post("/api/dice/label")
    def label() -> dict[str, Any]:
        """Find every die in the photos and label it with its photo's face (reviewed labels are
        kept); everything found on the empty table is "not a die"."""
        return teacher.review_json(teacher.label())

    @router.get("/api/dice/review")
    def review() -> dict[str, Any]:
        """Every photo and every crop with its label."""
        return teacher.review_json(teacher.need_review())

    @router.get("/api/dice/crops/{index}.png")
    def crop(index: int) -> Response:
        """One crop of the review, 96 px, as the face reader sees it."""
        data = teacher.crop_png(teacher.need_review(), index)
        return Response(data, media_type="image/png", headers={"Cache-Control": "no-store"})

    @router.post("/api/dice/relabel")
    def relabel(body: RelabelIn) -> dict[str, Any]:
        """Move a crop to another face or to "not a die"; the review is saved at once."""
        with teacher.lock:
            teacher._check_not_running()
            review = teacher.need_review()
            try:
                review.relabel(body.index, body.label)
            except TeachError as error:
                raise HTTPException(422, str(error)) from None
            review.save(teacher.folder)
        return {"index": body.index, "label": body.label, "counts": review.counts()}

    @router.post("/api/dice/review/done")
    def review_done(body: DoneIn) -> dict[str, Any]:
        """The user checked the labels (or takes that back); saved at once."""
        with teacher.lock:
            teacher._check_not_running()
            review = teacher.need_review()
            if body.done and teacher.review_json(review)["stale"]:
                raise HTTPException(
                    409,
                    "photos were added or taken back since the dice were found: press Find "
                    "the dice in the photos again, then check the labels",
                )
            review.done = body.done
            review.save(teacher.folder)
            return teacher.review_json(review)

    @router.post("/api/dice/add")
    def add(body: AddIn) -> dict[str, Any]:
        """Add a die the localiser missed, centred where the photo was clicked; saved at once."""
        with teacher.lock:
            teacher._check_not_running()
            review = teacher.need_review()
            try:
                index = review.add(body.image, body.x, body.y, body.label)
            except TeachError as error:
                raise HTTPException(422, str(error)) from None
            review.save(teacher.folder)
        die = review.dice[index]
        return {
            "index": index,
            "label": die.label,
            "box": [round(v, 1) for v in die.box],
            "counts": review.counts(),
        }

    @router.post("/api/dice/teach", status_code=202)
    def start() -> dict[str, Any]:
        """Start the fine-tune in the background, at low priority (one at a time)."""
        with teacher.lock:
            teacher.refuse_unready(teacher.review())
            try:
                return teacher.job.start()
            except RuntimeError as error:
                raise HTTPException(409, str(error)) from None

    @router.get("/api/dice/teach")
    def progress() -> dict[str, Any]:
        """The fine-tune's state: stage, percent, seconds left, its error or its model."""
        return teacher.job.status()

    @router.post("/api/dice/teach/cancel")
    def cancel() -> dict[str, Any]:
        """Stop the fine-tune; the camera keeps its reader."""
        try:
            return teacher.job.cancel()
        except RuntimeError as error:
            raise HTTPException(409, str(error)) from None

    @router.get("/api/dice/models")
    def models() -> dict[str, Any]:
        """Every taught model (newest first) with its figures; which one is chosen and in use."""
        return teacher.models_json()

    @router.get("/api/dice/models/{name}")
    def compare(name: str) -> dict[str, Any]:
        """Old against new on the held-back photos and the shipped look, and what each misread."""
        return teacher.compare_json(teacher.model(name))

    @router.get("/api/dice/models/{name}/wrong.png")
    def wrong_picture(name: str) -> FileResponse:
        """The crops each reader got wrong, as the fine-tune drew them."""
        path = teacher.model(name).folder / "wrong.png"
        if not path.is_file():
            raise HTTPException(404, "this model has no picture of its mistakes")
        return FileResponse(path, media_type="image/png")

    @router.post("/api/dice/use")
    def use(body: UseIn) -> dict[str, Any]:
        """Read dice with a taught model (or "shipped") from now on, without a restart."""
        message = teacher.use(body.name)
        return {"message": message, **teacher.models_json()}

    @router.post("/api/dice/export")
    def export() -> dict[str, Any]:
        """Write the reviewed photos as an Ultralytics dataset into the data folder."""
        path = teacher.export()
        return {"path": path, "message": f"Exported to {path} in the data folder"}

    @router.post("/api/dice/start-over")
    def start_over() -> dict[str, Any]:
        """Move the photos and their review aside (kept in the data folder) and start afresh."""
        moved = teacher.start_over()
        message = (
            "Nothing to set aside: no photo yet"
            if moved is None
            else f"The photos and their review were moved to {moved} in the data folder"
        )
        return {"moved": moved, "message": message, **teacher.capture_state()}

    return router, teacher
