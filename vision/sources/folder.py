"""A folder of images (or one image) played as frames, in natural name order."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import cv2
import numpy as np

from base.dataset_files import IMAGE_SUFFIXES, is_image
from vision.sources.base import SourceError

log = logging.getLogger(__name__)


def natural_key(path: Path) -> tuple[tuple[int, int | str], ...]:
    """Sort key that puts frame_2.png before frame_10.png."""
    parts = re.split(r"(\d+)", path.name.lower())
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts if p)


def list_images(folder: Path) -> list[Path]:
    """Return the image files directly inside `folder`, in natural name order."""
    found = [p for p in folder.iterdir() if p.is_file() and is_image(p)]
    return sorted(found, key=natural_key)


class FolderStream:
    """The images of a folder one after another; an unreadable one is skipped with a warning
    but keeps its place in time (position = index in the folder / fps)."""

    def __init__(self, paths: list[Path], fps: float) -> None:
        """Play `paths` as frames `1 / fps` seconds apart."""
        self._paths = paths
        self._fps = fps
        self._index = 0

    def read(self) -> tuple[np.ndarray, float | None] | None:
        """Return the next readable image and its position in seconds, or None at the end."""
        while self._index < len(self._paths):
            path = self._paths[self._index]
            self._index += 1
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is not None:
                return image, (self._index - 1) / self._fps
            log.warning("skipping %s: not a readable image", path)
        return None

    def close(self) -> None:
        """Nothing to release (each image is read whole)."""


class FolderSource:
    """An image folder, or a single image file, played at `fps` frames per second."""

    live = False

    def __init__(self, path: Path, fps: float) -> None:
        """Describe the folder or image; it is listed at each `open()`."""
        self.path = path
        self.fps = fps
        self.description = f"images {path}"

    def open(self) -> FolderStream:
        """List the images; raise SourceError when there are none."""
        if self.path.is_file():
            return FolderStream([self.path], self.fps)
        if not self.path.is_dir():
            raise SourceError(f"no image or image folder at {self.path}: check the path")
        paths = list_images(self.path)
        if not paths:
            raise SourceError(
                f"{self.path} has no images ({', '.join(IMAGE_SUFFIXES)}): choose a folder of "
                "frames, a video file or a camera"
            )
        return FolderStream(paths, self.fps)
