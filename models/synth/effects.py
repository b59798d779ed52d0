"""Domain randomisation of the camera and the room: light, colour, glare, blur, noise, JPEG."""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np

from art.noise import smooth_noise


def _kelvin_gains(kelvin: float) -> np.ndarray:
    """Return RGB gains of a light of colour temperature `kelvin`, normalised to green 1."""
    # Tanner Helland's fit of the black-body colours, good enough to tint a scene.
    t = kelvin / 100
    r = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = 99.47 * math.log(t) - 161.1 if t <= 66 else 288.1 * (t - 60) ** -0.0755
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5 * math.log(t - 10) - 305.0)
    rgb = np.clip(np.array([r, g, b]), 1, 255)
    return (rgb / rgb[1]).astype(np.float32)


def _illumination(
    rng: np.random.Generator, h: int, w: int, hard: bool
) -> tuple[np.ndarray, dict[str, Any]]:
    """Return a smooth brightness field: exposure, a lamp's falloff, vignetting, soft patches."""
    small_h, small_w = 36, 64
    ys, xs = np.mgrid[0:small_h, 0:small_w].astype(np.float32)
    xs, ys = xs / (small_w - 1) - 0.5, ys / (small_h - 1) - 0.5
    exposure = rng.uniform(0.65, 1.3) if hard else rng.uniform(0.8, 1.12)
    lamp = np.array([rng.uniform(-0.8, 0.8), rng.uniform(-0.8, 0.8)])
    spread = rng.uniform(0.6, 1.6)
    falloff = rng.uniform(0.15, 0.6) if hard else rng.uniform(0.05, 0.3)
    dist2 = ((xs - lamp[0]) ** 2 + (ys - lamp[1]) ** 2) / spread**2
    field = exposure * (1 - falloff * np.clip(dist2, 0, 1.5))
    vignette = rng.uniform(0.05, 0.35)
    field *= 1 - vignette * (xs**2 + ys**2) * 2
    field *= 1 + (0.12 if hard else 0.05) * smooth_noise(rng, small_h, small_w, 12)
    full = cv2.resize(field.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    info = {"exposure": round(float(exposure), 3), "lamp_falloff": round(float(falloff), 3)}
    info["vignette"] = round(float(vignette), 3)
    return full, info


def _glare(rng: np.random.Generator, h: int, w: int, hard: bool) -> tuple[np.ndarray | None, int]:
    """Return an additive field of soft specular spots (a lamp reflected in glossy card)."""
    count = int(rng.integers(0, 4 if hard else 3))
    if count == 0:
        return None, 0
    small = np.zeros((h // 8 + 1, w // 8 + 1), np.float32)
    for _ in range(count):
        centre = (int(rng.uniform(0, small.shape[1])), int(rng.uniform(0, small.shape[0])))
        axes = (int(rng.uniform(3, 18)), int(rng.uniform(2, 9)))
        level = rng.uniform(0.15, 0.6 if hard else 0.35)
        cv2.ellipse(small, centre, axes, rng.uniform(0, 180), 0, 360, float(level), -1)
    small = cv2.GaussianBlur(small, (0, 0), 3)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR), count


def apply_effects(
    rgb: np.ndarray, rng: np.random.Generator, hard: bool
) -> tuple[np.ndarray, dict[str, Any]]:
    """Turn a clean render into a webcam frame (uint8 BGR); return it and the settings used."""
    h, w = rgb.shape[:2]
    field, info = _illumination(rng, h, w, hard)
    kelvin = float(rng.uniform(2600, 7000))
    # The camera's white balance undoes most, not all, of the light's colour.
    balance = rng.uniform(0.55, 0.95) if hard else rng.uniform(0.7, 0.98)
    gains = _kelvin_gains(kelvin) ** (1 - balance) * rng.uniform(0.95, 1.05, 3).astype(np.float32)
    info.update(kelvin=round(kelvin, 1), white_balance=round(float(balance), 3))
    out = cv2.multiply(rgb, cv2.merge([field * float(g) for g in gains]))
    glare, spots = _glare(rng, h, w, hard)
    if glare is not None:
        out = cv2.add(out, cv2.merge([glare, glare, glare]))
    info["glare_spots"] = spots
    sigma = float(rng.choice([0.0, rng.uniform(0.4, 2.2 if hard else 1.2)], p=[0.4, 0.6]))
    sigma *= w / 1920
    if sigma > 0.2:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    info["defocus_px"] = round(sigma, 3)
    noise = float(rng.uniform(0.004, 0.03 if hard else 0.016))
    grain = rng.standard_normal((h, w), dtype=np.float32) * noise
    out = cv2.add(out, cv2.merge([grain, grain, grain]))
    info["noise"] = round(noise, 4)
    image = cv2.convertScaleAbs(np.maximum(out, 0.0), alpha=255.0)
    gamma = float(rng.uniform(0.85, 1.15))
    lut = np.clip(255 * (np.arange(256) / 255) ** gamma + 0.5, 0, 255).astype(np.uint8)
    bgr = cv2.cvtColor(cv2.LUT(image, lut), cv2.COLOR_RGB2BGR)
    info["gamma"] = round(gamma, 3)
    quality = int(rng.integers(30, 80) if hard else rng.integers(55, 96))
    ok, data = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if ok:
        bgr = cv2.imdecode(data, cv2.IMREAD_COLOR)
    info["jpeg_quality"] = quality
    return bgr, info
