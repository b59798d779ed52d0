"""Photos read safely: the size comes from the file's header, and nothing too large is decoded.

A PNG of a few megabytes may declare 30000x30000 pixels and take gigabytes to decode (an image
bomb). Pillow reads the width and height from the header without decoding the pixels; only a
photo within `MAX_IMAGE_SIDE` and `MAX_IMAGE_PIXELS` is then decoded, by OpenCV.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, UnidentifiedImageError

MAX_IMAGE_SIDE = 8192
"""The widest or tallest photo read (an 8K camera frame is 7680 wide)."""
MAX_IMAGE_PIXELS = 8192 * 8192
"""The most pixels a photo read may have."""


class ImageTooLarge(ValueError):  # noqa: N818 - reads as "image too large", like the message
    """A photo declares more pixels than `MAX_IMAGE_SIDE` / `MAX_IMAGE_PIXELS` allow."""


def header_size(source: bytes | Path) -> tuple[int, int] | None:
    """Return a photo's (width, height) from its header, decoding no pixel; None when it is
    no image Pillow knows. Raises `ImageTooLarge` for a photo over the caps."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            opened = Image.open(io.BytesIO(source) if isinstance(source, bytes) else source)
            with opened as image:
                width, height = image.size
    except Image.DecompressionBombError:
        raise ImageTooLarge(_too_large_message(None)) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        return None
    if max(width, height) > MAX_IMAGE_SIDE or width * height > MAX_IMAGE_PIXELS:
        raise ImageTooLarge(_too_large_message((width, height)))
    return width, height


def _too_large_message(size: tuple[int, int] | None) -> str:
    declared = "" if size is None else f" declares {size[0]}x{size[1]} pixels and"
    return (
        f"the photo{declared} is too large: photos of at most {MAX_IMAGE_SIDE}x{MAX_IMAGE_SIDE} "
        "pixels are read (a camera frame is far smaller)"
    )


def decode_photo(data: bytes) -> np.ndarray | None:
    """Decode an uploaded photo (BGR) once its header is within the caps; None when it is no
    photo. Raises `ImageTooLarge`."""
    if header_size(data) is None:
        return None
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)


def read_photo(path: Path) -> np.ndarray | None:
    """Read a photo file (BGR) once its header is within the caps; None when it is missing or
    no photo. Raises `ImageTooLarge`."""
    if not path.is_file() or header_size(path) is None:
        return None
    return cv2.imread(str(path), cv2.IMREAD_COLOR)
