"""Real test pictures: tile art laid on a rendered table top, turned, scaled, lit, blurred."""

from __future__ import annotations

import cv2
import numpy as np

from models.synth.materials import table_texture


def table_patch(seed: int, size: int) -> np.ndarray:
    """Return a rendered table top (wood, felt, cloth...) as 8-bit BGR."""
    rgb, _ = table_texture(np.random.default_rng(seed), size, size, 2.0)
    return cv2.cvtColor((rgb * 255).astype(np.uint8), cv2.COLOR_RGB2BGR)


def cell_picture(
    art_bgr: np.ndarray,
    clockwise_deg: float,
    *,
    seed: int = 0,
    cell_px: int = 240,
    tile_px: float = 200.0,
    shift_px: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """Lay the tile art, turned clockwise (seen from above, north up), in a cell of table."""
    background = table_patch(seed, cell_px)
    a = np.radians(clockwise_deg)
    s = tile_px / art_bgr.shape[0]
    c, n = np.cos(a) * s, np.sin(a) * s
    half = art_bgr.shape[0] / 2
    centre = (cell_px / 2 + shift_px[0], cell_px / 2 + shift_px[1])
    # Image y points down, so [[c, -n], [n, c]] turns clockwise as seen on screen (north up).
    matrix = np.array(
        [
            [c, -n, centre[0] - (c * half - n * half)],
            [n, c, centre[1] - (n * half + c * half)],
        ]
    )
    size = (cell_px, cell_px)
    tile = cv2.warpAffine(art_bgr, matrix, size, flags=cv2.INTER_AREA)
    mask = cv2.warpAffine(np.full(art_bgr.shape[:2], 255, np.uint8), matrix, size)
    alpha = (mask.astype(np.float32) / 255)[..., None]
    return (tile * alpha + background * (1 - alpha)).astype(np.uint8)


def relit(image: np.ndarray, gain: float, tint: tuple[float, float, float]) -> np.ndarray:
    """Change the light: overall gain and a per-channel (B, G, R) colour cast."""
    return np.clip(image.astype(np.float32) * gain * np.array(tint), 0, 255).astype(np.uint8)


def blurred(image: np.ndarray, sigma: float) -> np.ndarray:
    """Defocus the picture."""
    return cv2.GaussianBlur(image, (0, 0), sigma)


def jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    """Round-trip the picture through JPEG."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def hand_over(image: np.ndarray, area_px: float, seed: int = 0) -> np.ndarray:
    """Cover `area_px` square pixels near the middle with a skin-coloured blob (a hand)."""
    h, w = image.shape[:2]
    rng = np.random.default_rng(seed)
    out = image.copy()
    radius = np.sqrt(area_px / np.pi)
    centre = (int(rng.uniform(0.3, 0.7) * w), int(rng.uniform(0.3, 0.7) * h))
    mask = np.zeros((h, w), np.uint8)
    cv2.ellipse(
        mask, centre, (int(radius * 1.2), int(radius / 1.2)), rng.uniform(0, 180), 0, 360, 255, -1
    )
    skin = np.array([120, 160, 215], np.float32)  # BGR
    shade = 1 + 0.08 * cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 6)
    blob = np.clip(skin * shade[..., None], 0, 255)
    out[mask > 0] = blob[mask > 0].astype(np.uint8)
    return out


def photo_of_tile(
    art_bgr: np.ndarray,
    corners: list[tuple[float, float]],
    *,
    seed: int = 0,
    size: tuple[int, int] = (960, 720),
) -> np.ndarray:
    """Lay the tile art on a table photo: its NW, NE, SE, SW corners land on `corners` (px)."""
    w, h = size
    rgb, _ = table_texture(np.random.default_rng(seed), h, w, 1.5)
    table = cv2.cvtColor((rgb * 255).astype(np.uint8), cv2.COLOR_RGB2BGR)
    n = art_bgr.shape[0]
    source = np.array([[0, 0], [n, 0], [n, n], [0, n]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(source, np.asarray(corners, dtype=np.float32))
    tile = cv2.warpPerspective(art_bgr, matrix, (w, h), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full((n, n), 255, np.uint8), matrix, (w, h))
    alpha = (mask.astype(np.float32) / 255)[..., None]
    photo = (tile * alpha + table * (1 - alpha)).astype(np.uint8)
    return jpeg(blurred(photo, 0.8), 85)
