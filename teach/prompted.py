"""Reading a prompted capture folder: one sub-folder per face, plus `empty/`, of photos.

Every die in a photo of `key/` shows the key (the prompt is the label); photos in `empty/` show
the table without dice. `read_prompted` checks the folder and returns its captures, or raises
`TeachError` saying what is wrong: an unknown face folder, an unreadable photo, photos of
another size than the others, a folder with no usable photo.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2

from base.dataset_files import is_image
from teach.errors import TeachError
from vision.perception.classes import FACES

EMPTY = "empty"
"""The folder of photos of the table without dice."""
PROMPTS: tuple[str, ...] = (*FACES, EMPTY)
"""The folder names a prompted capture folder may hold, in the order the page asks for them."""


@dataclass(frozen=True)
class Capture:
    """One photo of a prompted capture folder."""

    file: str
    """Its path inside the folder, with `/` (e.g. `key/0001.jpg`)."""
    prompt: str
    """The face every die in it shows, or `empty`."""
    width: int
    height: int

    def to_json(self) -> dict[str, object]:
        """Return the capture as review.json stores it."""
        return {
            "file": self.file,
            "prompt": self.prompt,
            "width": self.width,
            "height": self.height,
        }


def image_files(folder: Path) -> list[Path]:
    """Return the image files directly inside `folder`, sorted by name (hidden ones left out)."""
    return sorted(
        p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".") and is_image(p)
    )


def read_prompted(folder: Path) -> list[Capture]:
    """Return the captures of a prompted folder, checked (see the module docstring)."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise TeachError(f"{folder} is not a folder: give the folder that holds key/, torch/, ...")
    subfolders = [p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")]
    unknown = sorted(p.name for p in subfolders if p.name not in PROMPTS)
    if unknown:
        raise TeachError(
            f"{folder}: unknown face folder {', '.join(unknown)}: name the folders "
            f"{', '.join(PROMPTS)} (one per face, and empty/ for the table without dice)"
        )
    captures: list[Capture] = []
    unreadable: list[str] = []
    for prompt in PROMPTS:
        if not (folder / prompt).is_dir():
            continue
        for path in image_files(folder / prompt):
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                unreadable.append(f"{prompt}/{path.name}")
                continue
            h, w = image.shape[:2]
            captures.append(Capture(f"{prompt}/{path.name}", prompt, w, h))
    if unreadable:
        raise TeachError(
            f"{folder}: cannot read {', '.join(unreadable)} as images: replace or delete them"
        )
    if not any(c.prompt != EMPTY for c in captures):
        raise TeachError(
            f"{folder} holds no usable photo of dice: put photos in {', '.join(FACES)} "
            "sub-folders (every die in a photo of key/ showing the key, and so on)"
        )
    sizes: dict[tuple[int, int], list[str]] = {}
    for capture in captures:
        sizes.setdefault((capture.width, capture.height), []).append(capture.file)
    if len(sizes) > 1:
        common = max(sizes, key=lambda s: len(sizes[s]))
        odd = [f for size, files in sizes.items() if size != common for f in files]
        raise TeachError(
            f"{folder}: {', '.join(odd[:5])}{' ...' if len(odd) > 5 else ''} "
            f"{'is' if len(odd) == 1 else 'are'} of another size than the others "
            f"({common[0]}x{common[1]}): take every photo with the same camera and setting"
        )
    return captures


def held_back(captures: list[Capture]) -> set[str]:
    """Return the captures kept out of training to compare models on: the last of each prompt
    that has two or more (so every face is compared on a photo the model never saw)."""
    out = set()
    for prompt in PROMPTS:
        files = sorted(c.file for c in captures if c.prompt == prompt)
        if len(files) >= 2:
            out.add(files[-1])
    return out
