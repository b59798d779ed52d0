"""The table calibration: image pixels <-> table millimetres, player zones, depot, tile pitch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from base.files import write_atomically

FORMAT = "templecam-calibration/1"
FILE_NAME = "calibration.json"
"""The calibration's file name inside the user's data folder."""

Point = Annotated[list[float], Field(min_length=2, max_length=2)]
Matrix3 = Annotated[
    list[Annotated[list[float], Field(min_length=3, max_length=3)]],
    Field(min_length=3, max_length=3),
]


class CalibrationError(Exception):
    """A calibration file that is missing, unreadable or does not fit this camera."""


class PlayerZone(BaseModel):
    """Where one player rolls their dice: a polygon in table mm."""

    model_config = ConfigDict(extra="forbid")

    player: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    polygon_mm: list[Point] = Field(min_length=3)


class TableCalibration(BaseModel):
    """Everything vision needs to turn image pixels into table places; x east, y north, mm."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["templecam-calibration/1"] = FORMAT
    image_size: tuple[int, int]
    """(width, height) of the camera frames this calibration belongs to."""
    table_to_image: Matrix3
    """Homography from table mm (z = 0) to undistorted image px."""
    camera_matrix: Matrix3 | None = None
    """Intrinsics for lens distortion; None: the lens is taken as distortion-free."""
    dist_coeffs: list[float] | None = None
    """OpenCV distortion coefficients (k1, k2, p1, p2[, k3]) that go with `camera_matrix`."""
    reprojection_px: float = 0.0
    """Mean reprojection error of the board's corners when calibrated."""
    reprojection_mm: float = 0.0
    """The same error measured on the table, in mm."""
    tile_mm: float = Field(default=100.0, gt=10, lt=500)
    die_mm: float = Field(default=16.0, gt=4, lt=60)
    zones: list[PlayerZone] = Field(default_factory=list)
    depot_mm: list[Point] | None = None
    """The gem depot's outline in table mm; None: gems in the depot are not counted."""
    created: str = ""
    source: str = ""
    """Where it came from: "board", "renderer", ..."""
    camera: str = ""
    """The camera it was made with, as the dashboard names it ("" when not known)."""
    reference_image: str | None = None
    """File name, beside the JSON, of a grey thumbnail of the calibration view (drift checks)."""

    _folder: Path | None = PrivateAttr(default=None)
    _reference: np.ndarray | None = PrivateAttr(default=None)

    @field_validator("image_size")
    @classmethod
    def _positive_size(cls, value: tuple[int, int]) -> tuple[int, int]:
        if value[0] < 16 or value[1] < 16:
            raise ValueError("image_size must be at least 16 x 16 px")
        return value

    @field_validator("table_to_image")
    @classmethod
    def _invertible(cls, value: list[list[float]]) -> list[list[float]]:
        matrix = np.asarray(value, dtype=np.float64)
        if not np.all(np.isfinite(matrix)) or abs(np.linalg.det(matrix)) < 1e-12:
            raise ValueError("table_to_image must be a finite, invertible 3x3 homography")
        return value

    # ----- geometry ------------------------------------------------------------------------

    def _h(self) -> np.ndarray:
        return np.asarray(self.table_to_image, dtype=np.float64)

    def _lens(self) -> tuple[np.ndarray, np.ndarray] | None:
        if self.camera_matrix is None or not self.dist_coeffs:
            return None
        return np.asarray(self.camera_matrix, np.float64), np.asarray(self.dist_coeffs, np.float64)

    def undistort_px(self, points_px: np.ndarray) -> np.ndarray:
        """Map raw image px (N, 2) to undistorted px (identity without lens data)."""
        points = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
        lens = self._lens()
        if lens is None or not len(points):
            return points
        matrix, dist = lens
        return cv2.undistortPoints(points.reshape(-1, 1, 2), matrix, dist, P=matrix).reshape(-1, 2)

    def distort_px(self, points_px: np.ndarray) -> np.ndarray:
        """Map undistorted px (N, 2) to raw image px (identity without lens data)."""
        points = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
        lens = self._lens()
        if lens is None or not len(points):
            return points
        matrix, dist = lens
        normalised = cv2.undistortPoints(points.reshape(-1, 1, 2), matrix, None)
        homogeneous = cv2.convertPointsToHomogeneous(normalised).reshape(-1, 3)
        projected, _ = cv2.projectPoints(homogeneous, np.zeros(3), np.zeros(3), matrix, dist)
        return projected.reshape(-1, 2)

    def image_to_table(self, points_px: np.ndarray) -> np.ndarray:
        """Map raw image px (N, 2) to table mm (N, 2)."""
        points = self.undistort_px(points_px)
        if not len(points):
            return points
        inverse = np.linalg.inv(self._h())
        return cv2.perspectiveTransform(points.reshape(-1, 1, 2), inverse).reshape(-1, 2)

    def table_to_image_px(self, points_mm: np.ndarray) -> np.ndarray:
        """Map table mm (N, 2) to raw image px (N, 2)."""
        points = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        if not len(points):
            return points
        undistorted = cv2.perspectiveTransform(points.reshape(-1, 1, 2), self._h()).reshape(-1, 2)
        return self.distort_px(undistorted)

    def die_px_at(self, centre_mm: np.ndarray | tuple[float, float]) -> float:
        """Return how many px across a `die_mm` die lying at `centre_mm` measures (the side of
        the square its top face makes in the picture)."""
        half = self.die_mm / 2
        corners = np.asarray(centre_mm, np.float64).reshape(1, 2) + np.array(
            [[-half, -half], [half, -half], [half, half], [-half, half]]
        )
        image = self.table_to_image_px(corners).astype(np.float32)
        return float(np.sqrt(abs(cv2.contourArea(image))))

    def die_px(self) -> float:
        """Return the die's size in px where the dice are rolled: the median over the players'
        zones (the middle of the picture when there are none)."""
        if self.zones:
            centres = [np.asarray(z.polygon_mm, np.float64).mean(axis=0) for z in self.zones]
        else:
            width, height = self.image_size
            centres = [self.image_to_table(np.array([[width / 2, height / 2]]))[0]]
        return float(np.median([self.die_px_at(c) for c in centres]))

    def zone_of(self, point_mm: tuple[float, float]) -> str | None:
        """Return the player whose zone holds the point, or None."""
        for zone in self.zones:
            polygon = np.asarray(zone.polygon_mm, dtype=np.float32)
            if cv2.pointPolygonTest(polygon, (float(point_mm[0]), float(point_mm[1])), False) >= 0:
                return zone.player
        return None

    def in_depot(self, point_mm: tuple[float, float]) -> bool:
        """Tell whether a table point lies in the depot zone."""
        if self.depot_mm is None:
            return False
        polygon = np.asarray(self.depot_mm, dtype=np.float32)
        return cv2.pointPolygonTest(polygon, (float(point_mm[0]), float(point_mm[1])), False) >= 0

    # ----- drift reference -----------------------------------------------------------------

    def attach_reference(self, grey: np.ndarray) -> None:
        """Keep a grey thumbnail of the calibration view; `save` writes it beside the JSON."""
        self._reference = np.ascontiguousarray(grey, dtype=np.uint8)

    def reference_grey(self) -> np.ndarray | None:
        """Return the calibration view's grey thumbnail, or None when there is none."""
        if self._reference is None and self.reference_image and self._folder is not None:
            image = cv2.imread(str(self._folder / self.reference_image), cv2.IMREAD_GRAYSCALE)
            self._reference = image if image is not None and image.size else None
        return self._reference

    # ----- files ---------------------------------------------------------------------------

    def save(self, path: str | Path) -> Path:
        """Write the calibration as JSON, atomically (a crash never leaves half a file).

        A drift reference goes beside it as `<name>.reference.png`.
        """
        target = Path(path)
        reference = self.reference_grey()
        if reference is not None:
            ok, png = cv2.imencode(".png", reference)
            if ok:
                name = f"{target.stem}.reference.png"
                write_atomically(target.with_name(name), png.tobytes())
                self.reference_image = name
        write_atomically(target, (self.model_dump_json(indent=1) + "\n").encode("utf-8"))
        self._folder = target.parent
        return target

    @classmethod
    def load(cls, path: str | Path, image_size: tuple[int, int] | None = None) -> TableCalibration:
        """Read and check a calibration file; `image_size` must match when given."""
        source = Path(path)
        if not source.is_file():
            raise CalibrationError(
                f"no calibration at {source}: run `templecam calibrate` with the board on the table"
            )
        try:
            data = json.loads(source.read_text("utf-8"))
        except (OSError, ValueError) as error:
            raise CalibrationError(
                f"{source} cannot be read as JSON ({error}): it is damaged; "
                "run `templecam calibrate` again"
            ) from None
        if not isinstance(data, dict) or data.get("format", FORMAT) != FORMAT:
            found = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise CalibrationError(
                f"{source} is not a templecam calibration (format {found!r}, expected {FORMAT!r}): "
                "give the file `templecam calibrate` wrote"
            )
        try:
            calibration = cls.model_validate(data)
        except ValidationError as error:
            first = str(error).splitlines()[:3]
            raise CalibrationError(
                f"{source} is not a valid calibration ({' '.join(first)}); "
                "run `templecam calibrate` again"
            ) from None
        if image_size is not None and tuple(image_size) != tuple(calibration.image_size):
            raise CalibrationError(
                f"{source} was made for {calibration.image_size[0]}x{calibration.image_size[1]} "
                f"frames but the camera gives {image_size[0]}x{image_size[1]}: "
                "recalibrate for this camera"
            )
        calibration._folder = source.parent
        return calibration
