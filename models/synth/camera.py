"""The camera over the table: table millimetres to image pixels, with tilt and lens distortion."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from calibration.geometry import largest_rect_inside
from models.synth.settings import SynthSettings

_DOWN = np.array([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]])
"""World-to-camera rotation of a camera looking straight down with image up = table north."""


def _rotation(axis: int, degrees: float) -> np.ndarray:
    """Return the rotation by `degrees` about coordinate axis `axis` (0 x, 1 y, 2 z)."""
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    matrix = np.eye(3)
    matrix[i, i], matrix[i, j], matrix[j, i], matrix[j, j] = c, -s, s, c
    return matrix


@dataclass(frozen=True)
class Camera:
    """A pinhole camera with radial distortion; the table is the plane z = 0, x east, y north."""

    width: int
    height: int
    focal: float
    cx: float
    cy: float
    rotation: np.ndarray
    """World-to-camera rotation (rows are the camera axes in table coordinates)."""
    centre: np.ndarray
    """Camera centre in table millimetres."""
    k1: float
    k2: float

    def to_camera(self, points: np.ndarray) -> np.ndarray:
        """Return table points (N, 3) in camera coordinates (z is the depth in mm)."""
        return (np.asarray(points, dtype=np.float64) - self.centre) @ self.rotation.T

    def project(self, points: np.ndarray) -> np.ndarray:
        """Project table points (N, 3) in mm to distorted image pixels (N, 2)."""
        cam = self.to_camera(np.atleast_2d(points))
        x, y = cam[:, 0] / cam[:, 2], cam[:, 1] / cam[:, 2]
        # Far outside the view the polynomial would fold back: hold it at its value there.
        r2 = np.minimum(x * x + y * y, self._r2_limit())
        d = 1.0 + self.k1 * r2 + self.k2 * r2 * r2
        return np.stack([self.focal * x * d + self.cx, self.focal * y * d + self.cy], axis=1)

    def _r2_limit(self) -> float:
        """Return the squared normalised radius beyond which distortion stops growing."""
        return 2.0 * ((self.width / 2) ** 2 + (self.height / 2) ** 2) / self.focal**2

    def project_flat(self, points: np.ndarray, z: float = 0.0) -> np.ndarray:
        """Project table points (N, 2) lying at height `z` to image pixels."""
        pts = np.atleast_2d(np.asarray(points, dtype=np.float64))
        return self.project(np.column_stack([pts, np.full(len(pts), z)]))

    def px_per_mm(self, point: np.ndarray) -> float:
        """Return the image scale (pixels per mm) of a small object at table point `point`."""
        return self.focal / float(self.to_camera(np.atleast_2d(point))[0, 2])

    def homography(self) -> np.ndarray:
        """Return the pinhole homography from table mm (z = 0) to undistorted image pixels."""
        k = np.array([[self.focal, 0, self.cx], [0, self.focal, self.cy], [0, 0, 1.0]])
        t = -self.rotation @ self.centre
        h = k @ np.column_stack([self.rotation[:, 0], self.rotation[:, 1], t])
        return h / h[2, 2]

    def view_quad(self) -> np.ndarray:
        """Return the table points (4, 2) in mm seen at the image corners (distortion ignored)."""
        inverse = np.linalg.inv(self.homography())
        w, h = self.width, self.height
        corners = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], dtype=np.float64)
        table = corners @ inverse.T
        return table[:, :2] / table[:, 2:]

    def table_rect(self) -> tuple[float, float, float, float]:
        """Return a large axis-aligned table rectangle (x0, y0, x1, y1) in mm inside the view."""
        quad = self.view_quad().astype(np.float32)
        return largest_rect_inside(quad, quad.mean(axis=0), steps=16)

    def to_json(self) -> dict[str, Any]:
        """Return the camera as JSON: the homography plus the full model it comes from."""
        return {
            "homography": _rounded(self.homography(), 9),
            "about": (
                "homography maps table mm (z=0, x east, y north) to undistorted pixels; "
                "distorted px = c + (u - c) * (1 + k1 r2 + k2 r2^2), r2 = |u - c|^2 / focal^2"
            ),
            "width": self.width,
            "height": self.height,
            "focal": round(self.focal, 6),
            "cx": round(self.cx, 6),
            "cy": round(self.cy, 6),
            "rotation": _rounded(self.rotation, 9),
            "centre_mm": _rounded(self.centre, 6),
            "k1": round(self.k1, 6),
            "k2": round(self.k2, 6),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Camera:
        """Rebuild a camera written by `to_json`."""
        return cls(
            width=int(data["width"]),
            height=int(data["height"]),
            focal=float(data["focal"]),
            cx=float(data["cx"]),
            cy=float(data["cy"]),
            rotation=np.array(data["rotation"], dtype=np.float64),
            centre=np.array(data["centre_mm"], dtype=np.float64),
            k1=float(data["k1"]),
            k2=float(data["k2"]),
        )


def _rounded(array: np.ndarray, digits: int) -> list[Any]:
    """Return an array as nested lists of rounded floats (stable JSON bytes)."""
    return np.round(np.asarray(array, dtype=np.float64), digits).tolist()


def random_camera(rng: np.random.Generator, settings: SynthSettings) -> Camera:
    """Draw a webcam over the table: a die near the centre is ~27-33 px at 1920 px width."""
    hard = settings.hard
    hfov = math.radians(rng.uniform(60.0, 78.0))
    focal = settings.width / 2 / math.tan(hfov / 2)
    die_px = rng.uniform(27.0, 33.0) * settings.width / 1920
    distance = focal * settings.die_mm / die_px + settings.die_mm
    tilt = 16.0 if hard else 9.0
    pitch = float(np.clip(rng.normal(0.0, tilt / 2.5), -tilt, tilt))
    roll = float(np.clip(rng.normal(0.0, tilt / 4), -tilt / 2, tilt / 2))
    yaw = float(rng.uniform(-20.0, 20.0) if hard else rng.uniform(-8.0, 8.0))
    # Tilts are applied in the camera frame, after looking straight down.
    rotation = _rotation(0, pitch) @ _rotation(1, roll) @ _rotation(2, yaw) @ _DOWN
    target = np.array([rng.uniform(-20, 20), rng.uniform(-20, 20), 0.0])
    centre = target - distance * rotation[2]
    return Camera(
        width=settings.width,
        height=settings.height,
        focal=focal,
        cx=settings.width / 2 + rng.uniform(-0.01, 0.01) * settings.width,
        cy=settings.height / 2 + rng.uniform(-0.01, 0.01) * settings.height,
        rotation=rotation,
        centre=centre,
        k1=float(rng.uniform(-0.14, 0.0) if hard else rng.uniform(-0.09, 0.01)),
        k2=float(rng.uniform(-0.01, 0.02)),
    )
