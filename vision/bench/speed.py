"""Detector speed on this machine: median milliseconds per frame for each setting tried."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.perception.detector import Detector, DetectorSettings, ModelError
from vision.perception.localiser import Localiser, LocaliserSettings
from vision.perception.model_contract import is_localiser
from vision.perception.scale import follow_camera
from vision.perception.table_detector import TableDetector

BASELINE_SETTINGS: tuple[str, ...] = (
    "tile=auto",
    "tile=640 overlap=64",
    "tile=640 overlap=64 whole=off",
    "tile=640 overlap=64 batch=off",
    "tile=960",
    "tile=0",
    "tile=0 imgsz=1280",
    "tile=640 threads=1",
    "tile=640 threads=2",
    "tile=640 spin=on",
)
"""Settings `templecam bench vision` tries on the early YOLO baseline (`--model` it) when none
are given."""

LOCALISER_SETTINGS: tuple[str, ...] = (
    "scale=auto",
    "scale=auto faces=float",
    "scale=auto faces=off",
    "scale=0.5",
    "scale=0.75",
    "scale=auto threads=1",
    "scale=auto spin=1",
)
"""Settings `templecam bench vision` tries on a localiser when none are given."""


@dataclass(frozen=True)
class BenchResult:
    """One setting's timing: median, 90th percentile and best ms per frame over all runs."""

    setting: str
    threads: int | None
    inputs: int | None
    """Model inputs per frame (tiles plus the whole-frame pass)."""
    frames: int
    runs: int
    ms_median: float | None
    ms_p90: float | None
    ms_min: float | None
    detections: float | None
    """Median detections per frame."""
    error: str | None = None
    """Why the setting could not run (then there are no timings)."""

    def to_json(self) -> dict[str, Any]:
        """Return the result as a JSON object (ms rounded to 0.1)."""
        data = asdict(self)
        for key in ("ms_median", "ms_p90", "ms_min", "detections"):
            if data[key] is not None:
                data[key] = round(data[key], 1)
        return data


def _setting(
    value: DetectorSettings | LocaliserSettings | str, localiser: bool = False
) -> DetectorSettings | LocaliserSettings:
    """Accept settings or their `key=value` text (a localiser's when `localiser`)."""
    if not isinstance(value, str):
        return value
    return LocaliserSettings.parse(value) if localiser else DetectorSettings.parse(value)


def bench_one(
    model: Path,
    images: Sequence[np.ndarray],
    settings: DetectorSettings | LocaliserSettings,
    repeats: int = 3,
) -> BenchResult:
    """Time one setting: a warm-up frame, then every frame `repeats` times."""
    label = settings.describe()
    try:
        if isinstance(settings, LocaliserSettings):
            detector: TableDetector = Localiser(model, settings)
        else:
            detector = Detector(model, settings)
    except (ModelError, ValueError) as error:
        return BenchResult(
            label, settings.threads, None, len(images), 0, None, None, None, None, str(error)
        )
    height, width = images[0].shape[:2]
    if isinstance(detector, Localiser):
        inputs = 1
        detector, choice = follow_camera(detector, None, images[:3])
        if choice is not None and settings.scale is None:  # auto: say what it chose
            label = f"{label} (scale {choice.scale:.2f})"
    else:
        plan = detector.plan(width, height)
        inputs = len(plan.tiles) + int(plan.whole)
    detector.detect(images[0])
    times, counts = [], []
    for _ in range(repeats):
        for image in images:
            start = time.perf_counter()
            found = detector.detect(image)
            times.append((time.perf_counter() - start) * 1000.0)
            counts.append(len(found))
    times.sort()
    return BenchResult(
        setting=label,
        threads=detector.threads,
        inputs=inputs,
        frames=len(images),
        runs=len(times),
        ms_median=statistics.median(times),
        ms_p90=times[min(len(times) - 1, round(0.9 * (len(times) - 1)))],
        ms_min=times[0],
        detections=float(statistics.median(counts)),
    )


def run_vision_benchmark(
    model: str | Path,
    images: Sequence[np.ndarray],
    settings: Sequence[DetectorSettings | LocaliserSettings | str] | None = None,
    repeats: int = 3,
    progress: Callable[[BenchResult], None] | None = None,
) -> list[BenchResult]:
    """Time the detector on `images` under each of `settings`; one result per setting."""
    if not images:
        raise ValueError("run_vision_benchmark needs at least one image")
    localiser = is_localiser(Path(model))
    if settings is None:
        settings = LOCALISER_SETTINGS if localiser else BASELINE_SETTINGS
    parsed = [_setting(s, localiser) for s in settings]
    results = []
    for setting in parsed:
        result = bench_one(Path(model), images, setting, repeats)
        results.append(result)
        if progress is not None:
            progress(result)
    return results
