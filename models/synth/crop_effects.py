"""The camera at crop level: exposure, light falloff, white balance, glare, blur, noise, JPEG.

Wider than the frame renderer's `effects.apply_effects`, and applied to the small patch a crop
is cut from (frame pixels, before the crop is resized), so blur, noise and JPEG blocks have the
size they have in a 1080p frame. The lighting family gives the ranges that depend on the light.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np

from models.synth.crop_look import LightFamily
from models.synth.effects import _kelvin_gains


def _falloff(rng: np.random.Generator, size: int, amount: float) -> np.ndarray:
    """Return a brightness ramp across a square patch: 1 +- `amount` along a random direction."""
    angle = rng.uniform(0, 2 * math.pi)
    coords = (np.arange(size, dtype=np.float32) + 0.5) / size - 0.5
    xs, ys = np.meshgrid(coords, coords)
    ramp = xs * math.cos(angle) + ys * math.sin(angle)
    return (1 + 2 * amount * ramp).astype(np.float32)


def _glare(rng: np.random.Generator, size: int) -> np.ndarray:
    """Return an additive soft spot (a lamp reflected in varnish)."""
    spot = np.zeros((size, size), np.float32)
    centre = (int(rng.uniform(0, size)), int(rng.uniform(0, size)))
    axes = (int(rng.uniform(3, size / 3)), int(rng.uniform(2, size / 5)))
    cv2.ellipse(spot, centre, axes, rng.uniform(0, 180), 0, 360, float(rng.uniform(0.1, 0.45)), -1)
    return cv2.GaussianBlur(spot, (0, 0), max(1.0, size / 25))


def _motion_kernel(rng: np.random.Generator, length: float) -> np.ndarray:
    """Return a line kernel `length` px long in a random direction (a shaking camera)."""
    size = 2 * math.ceil(length / 2) + 1
    kernel = np.zeros((size, size), np.float32)
    angle = rng.uniform(0, math.pi)
    c = size // 2
    dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
    p0 = (round((c - dx) * 16), round((c - dy) * 16))
    p1 = (round((c + dx) * 16), round((c + dy) * 16))
    cv2.line(kernel, p0, p1, 1.0, 1, cv2.LINE_AA, 4)
    return kernel / max(float(kernel.sum()), 1e-6)


def apply_crop_effects(
    rgb: np.ndarray, rng: np.random.Generator, light: LightFamily
) -> tuple[np.ndarray, dict[str, Any]]:
    """Turn a clean float RGB patch into what a webcam gives (uint8 BGR); return it and settings."""
    size = rgb.shape[0]
    exposure = float(rng.uniform(*light.exposure))
    field = exposure * _falloff(rng, size, float(rng.uniform(*light.gradient)))
    kelvin = float(rng.uniform(*light.kelvin))
    balance = float(rng.uniform(*light.white_balance))
    gains = _kelvin_gains(kelvin) ** (1 - balance) * rng.uniform(0.93, 1.07, 3).astype(np.float32)
    out = rgb * field[..., None] * gains
    if rng.random() < 0.12:
        out = out + _glare(rng, size)[..., None]
    sigma = float(rng.choice([0.0, rng.uniform(0.3, 1.6)], p=[0.35, 0.65]))
    if sigma > 0.2:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    if rng.random() < 0.1:
        out = cv2.filter2D(out, -1, _motion_kernel(rng, float(rng.uniform(1.5, 4.0))))
    if rng.random() < 0.3:  # webcams sharpen: a halo around edges
        soft = cv2.GaussianBlur(out, (0, 0), 1.0)
        out = out + float(rng.uniform(0.3, 1.0)) * (out - soft)
    noise = float(rng.uniform(*light.noise))
    luma = rng.standard_normal((size, size), dtype=np.float32)[..., None] * noise
    chroma = rng.standard_normal((size, size, 3), dtype=np.float32) * (noise * 0.4)
    out = np.clip(out + luma + chroma, 0, 1)
    gamma = float(rng.uniform(0.8, 1.2))
    image = (255 * out**gamma + 0.5).astype(np.uint8)
    bgr = np.ascontiguousarray(image[..., ::-1])
    quality = int(rng.integers(25, 96)) if rng.random() < 0.85 else 100
    if quality < 100:
        ok, data = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if ok:
            bgr = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return bgr, {
        "exposure": round(exposure, 3),
        "kelvin": round(kelvin),
        "white_balance": round(balance, 3),
        "blur": round(sigma, 2),
        "noise": round(noise, 4),
        "jpeg": quality,
    }
