"""The house plan (docs: ../shared/design/architecture.md): which room may import which.

Every import in a room's modules, at the top or inside a function, is read with `ast`.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imports_of(path: Path) -> list[tuple[int, str]]:
    """Return (line, module) of every absolute import in a Python file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def imports_in(room: str, forbidden: tuple[str, ...]) -> list[str]:
    """Return `file:line module` for each import in `room` of a forbidden module or package."""
    bad = []
    for path in sorted((ROOT / room).rglob("*.py")):
        for line, module in imports_of(path):
            if any(module == f or module.startswith(f + ".") for f in forbidden):
                bad.append(f"{path.relative_to(ROOT)}:{line} {module}")
    return bad


def test_vision_imports_neither_the_renderer_nor_torch():
    assert imports_in("vision", ("models.synth", "torch", "torchvision", "ultralytics")) == []


ROOMS: dict[str, tuple[str, ...]] = {
    "base": (),
    "rules": ("base",),
    "art": ("base", "rules"),
    "calibration": ("base", "rules", "art"),
    "vision": ("base", "rules", "art", "calibration"),
    "teach": ("base", "rules", "art", "calibration", "vision"),
    "models": ("base", "rules", "art", "calibration", "vision", "teach"),
    "server": ("base", "rules", "art", "calibration", "vision", "teach"),
    "templecam": ("base", "rules", "art", "calibration", "vision", "teach", "models", "server"),
}
"""Each room and the rooms below it that it may import (the command line sits on top)."""


def test_every_package_of_the_project_has_a_place_in_the_plan():
    import tomllib

    packages = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    assert {name.split(".")[0] for name in packages["packages"]} == set(ROOMS)


def test_no_room_imports_one_above_it():
    upward = []
    for room, below in ROOMS.items():
        forbidden = tuple(r for r in ROOMS if r != room and r not in below)
        upward += imports_in(room, forbidden)
    assert upward == [], "\n".join(upward)


def test_the_ground_floor_imports_nothing_of_the_project():
    assert imports_in("base", tuple(r for r in ROOMS if r != "base")) == []


def test_the_rules_import_no_other_room():
    assert imports_in("rules", tuple(r for r in ROOMS if r not in ("rules", "base"))) == []


def test_calibration_imports_neither_the_models_nor_the_server():
    assert imports_in("calibration", ("models", "server", "vision", "templecam")) == []


def test_vision_imports_neither_the_server_nor_the_models():
    assert imports_in("vision", ("server", "models", "templecam")) == []


def test_the_parts_of_the_detector_sit_below_it():
    parts = ("onnx_model", "letterbox", "yolo_decode", "tiling", "face_reader", "classes")
    for part in parts:
        modules = {module for _, module in imports_of(ROOT / "vision" / f"{part}.py")}
        assert "vision.detector" not in modules, part


def test_the_teaching_room_runs_without_torch():
    # The dashboard labels and reviews captures on a serving install, which has no torch.
    assert imports_in("teach", ("torch", "torchvision", "ultralytics", "models", "server")) == []
