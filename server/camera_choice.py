"""The camera sources the dashboard offers, a page's choice checked, and the choice remembered.

A page chooses one of: a webcam this computer lists, a stream URL (http, https or rtsp only), a
video file or image folder inside the data folder, or the demo recording. Nothing else reaches
`open_source` from a request: a webcam must be one listed now, a file must resolve inside the
data folder. The last choice that worked is kept in `camera.json` in the data folder and used at
the next start, unless `templecam serve --camera` says otherwise.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from base.files import write_atomically
from vision.sources.capture import hide_password
from vision.sources.folder import IMAGE_SUFFIXES
from vision.sources.webcams import Webcam

log = logging.getLogger(__name__)

REMEMBERED = "camera.json"
"""The remembered choice's file name in the data folder."""
URL_SCHEMES = ("http", "https", "rtsp", "rtsps")
"""Stream addresses a page may give: MJPEG over HTTP(S) and RTSP."""
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".webm", ".m4v", ".mjpeg", ".mjpg", ".mpg")
"""Files listed as videos from the data folder."""
SKIPPED_FOLDERS = ("games", "cache", "tiles")
"""Data folders that hold templecam's own files, not recordings."""
MAX_DEPTH = 3
"""How deep the data folder is searched for videos and image folders."""
MAX_FILES = 200
"""At most this many files and folders are offered."""

SourceKind = Literal["webcam", "url", "file", "demo"]


class CameraPick(BaseModel):
    """A page's choice: which kind of source and which one."""

    model_config = ConfigDict(extra="forbid")

    kind: SourceKind
    value: str = Field("", max_length=2000)
    """The webcam's spec, the URL, or the path relative to the data folder (demo: empty)."""


class PickError(ValueError):
    """A choice that cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class ChosenSource:
    """A source ready to open, with how the page names it."""

    kind: SourceKind | Literal["cli", "default"]
    """How it was chosen: one of a page's kinds, `--camera`, or the first webcam found."""
    spec: str
    """What `open_source` is given (a file's full path: never sent to a page)."""
    label: str
    """What pages show: no folder of this computer, no password."""
    value: str = ""
    """What is remembered (a file: its path inside the data folder)."""

    @property
    def demo(self) -> bool:
        """Whether this is the bundled demo recording."""
        return self.kind == "demo"

    def pick(self) -> CameraPick | None:
        """Return the choice as a page would make it (None for `--camera` and defaults)."""
        if self.kind in ("webcam", "url", "file", "demo"):
            return CameraPick(kind=self.kind, value=self.value)  # type: ignore[arg-type]
        return None

    def to_json(self) -> dict[str, Any]:
        """Return what a page may know of it."""
        value = hide_password(self.value) if self.kind == "url" else self.value
        if self.kind not in ("webcam", "url", "file", "demo"):
            value = ""
        return {"kind": self.kind, "label": self.label, "value": value}


DEMO_LABEL = "the demo recording"
"""How pages name the bundled demo recording."""


def demo_choice(video: Path) -> ChosenSource:
    """Return the bundled demo recording as a choice."""
    return ChosenSource("demo", str(video), DEMO_LABEL)


def webcam_label(webcam: Webcam) -> str:
    """Name a webcam for people: "webcam HD Pro Webcam C920 (/dev/video0)"."""
    return f"webcam {webcam.name} ({webcam.device})"


def cli_choice(spec: str, data_dir: Path) -> ChosenSource:
    """Return what `--camera` (or the first webcam found) named, labelled for the pages."""
    spec = spec.strip()
    if re.fullmatch(r"\d+", spec):
        label = f"webcam {spec}"
    elif "://" in spec:
        label = f"stream {hide_password(spec)}"
    elif spec.startswith("/dev/"):
        label = f"webcam {spec}"
    else:
        path = Path(spec).expanduser()
        inside = _inside(path, data_dir)
        label = f"{_file_kind(path)} {inside if inside is not None else path.name}"
    return ChosenSource("cli", spec, label)


def _file_kind(path: Path) -> str:
    return "images" if path.is_dir() or path.suffix.lower() in IMAGE_SUFFIXES else "video"


def _inside(path: Path, folder: Path) -> str | None:
    """Return `path` relative to `folder` when it lies inside it (links resolved), else None."""
    try:
        return path.resolve().relative_to(folder.resolve()).as_posix()
    except (ValueError, OSError, RuntimeError):
        return None


def resolve_pick(
    pick: CameraPick,
    data_dir: Path,
    webcams: Callable[[], list[Webcam]],
    demo_video: Path,
) -> ChosenSource:
    """Check a page's choice and return it ready to open; raise PickError saying what is wrong."""
    value = pick.value.strip()
    if pick.kind == "demo":
        if not demo_video.is_file():
            raise PickError("the demo recording is not installed with this copy of templecam")
        return demo_choice(demo_video)
    if pick.kind == "url":
        return ChosenSource("url", value, f"stream {hide_password(value)}", check_url(value))
    if pick.kind == "webcam":
        found = webcams()
        for webcam in found:
            if value in (webcam.spec, webcam.device, *webcam.aliases):
                return ChosenSource("webcam", webcam.spec, webcam_label(webcam), webcam.spec)
        listed = ", ".join(webcam_label(w) for w in found) or "none"
        raise PickError(
            f"there is no webcam {value!r} on this computer now (listed: {listed}): was it "
            "unplugged? Plug it in and press Look again"
        )
    return _file_choice(value, data_dir)


def check_url(url: str) -> str:
    """Return `url` when it is an http(s) or rtsp address with a host; raise PickError if not."""
    if not url:
        raise PickError("give the stream's address, like http://192.168.1.20:8080/video")
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise PickError("a stream address has no spaces or control characters")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as error:
        raise PickError(f"{hide_password(url)} is not a valid address ({error})") from None
    if parts.scheme.lower() not in URL_SCHEMES:
        raise PickError(
            f"only http://, https:// and rtsp:// stream addresses can be chosen here, not "
            f"{parts.scheme or 'an address without a scheme'}: a phone camera app shows its "
            "address, like http://192.168.1.20:8080/video or rtsp://192.168.1.20:8554/live"
        )
    if not parts.hostname:
        raise PickError(f"{hide_password(url)} names no computer: add its address")
    return url


def _file_choice(value: str, data_dir: Path) -> ChosenSource:
    if not value:
        raise PickError("choose a video file or an image folder from the data folder")
    relative = Path(value)
    if relative.is_absolute() or value.startswith("~"):
        raise PickError(
            "only files inside the data folder can be chosen here: copy the video there "
            "(or start templecam with --camera FILE)"
        )
    path = data_dir / relative
    inside = _inside(path, data_dir)
    if inside is None:
        raise PickError("only files inside the data folder can be chosen here")
    if path.is_dir():
        kind = "images"
    elif path.is_file() and path.suffix.lower() in VIDEO_SUFFIXES + IMAGE_SUFFIXES:
        kind = _file_kind(path)
    elif path.is_file():
        raise PickError(
            f"{inside} is not a video or an image (a video ends in "
            f"{', '.join(VIDEO_SUFFIXES[:4])}, ...): choose another file"
        )
    else:
        raise PickError(f"there is no {inside} in the data folder now: press Look again")
    return ChosenSource("file", str(path.resolve()), f"{kind} {inside}", inside)


def list_files(data_dir: Path) -> list[dict[str, Any]]:
    """Return the videos and image folders inside the data folder, paths relative to it."""
    found: list[dict[str, Any]] = []
    for path, kind, count in _walk(data_dir, 0):
        inside = _inside(path, data_dir)
        if inside is None:
            continue
        item: dict[str, Any] = {"value": inside, "kind": kind, "label": f"{kind} {inside}"}
        if count is not None:
            item["images"] = count
        found.append(item)
        if len(found) >= MAX_FILES:
            break
    return found


def _walk(folder: Path, depth: int) -> Iterator[tuple[Path, str, int | None]]:
    try:
        entries = sorted(folder.iterdir(), key=lambda p: p.name.lower())
    except OSError:
        return
    images = [p for p in entries if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES]
    if depth > 0 and images:
        yield folder, "images", len(images)
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_file() and entry.suffix.lower() in VIDEO_SUFFIXES:
            yield entry, "video", None
        elif entry.is_dir() and depth < MAX_DEPTH:
            if depth == 0 and entry.name in SKIPPED_FOLDERS:
                continue
            yield from _walk(entry, depth + 1)


def remember(data_dir: Path, chosen: ChosenSource) -> None:
    """Keep a page's choice for the next start (a failure to write is logged, not raised)."""
    pick = chosen.pick()
    if pick is None:
        return
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        write_atomically(data_dir / REMEMBERED, (pick.model_dump_json() + "\n").encode("utf-8"))
    except OSError as error:
        log.warning("cannot remember the camera: %s", error)


def remembered(data_dir: Path) -> CameraPick | None:
    """Return the choice kept by `remember`, or None (none, or a damaged file)."""
    path = data_dir / REMEMBERED
    if not path.is_file():
        return None
    try:
        return CameraPick.model_validate(json.loads(path.read_text("utf-8")))
    except (OSError, ValueError, ValidationError) as error:
        log.warning("%s cannot be read (%s): the camera is chosen afresh", REMEMBERED, error)
        return None
