"""The house plan (docs: ../shared/design/architecture.md): which room may import which.

Every import in a room's modules, at the top or inside a function, is read with `ast`.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


RESOURCE_CALLS = {
    "files",
    "read_text",
    "read_binary",
    "open_text",
    "open_binary",
    "path",
    "contents",
    "is_resource",
}
"""The `importlib.resources` functions whose first argument names a package to read files of."""


def _package_named(node: ast.Call) -> str | None:
    """Return the package a call reads from by name (`resources.files("models")`,
    `importlib.import_module("models.x")`, ...), or None when it is no such call."""
    func = node.func
    if not node.args or not isinstance(node.args[0], ast.Constant):
        return None
    name = node.args[0].value
    if not isinstance(name, str):
        return None
    if isinstance(func, ast.Name) and func.id in ("files", "import_module"):
        return name
    if isinstance(func, ast.Attribute):
        owner = func.value
        owner_name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", None)
        if func.attr == "import_module" and owner_name == "importlib":
            return name
        if func.attr in RESOURCE_CALLS and owner_name in ("resources", "importlib_resources"):
            return name
    return None


def imports_in_source(text: str, filename: str = "<source>") -> list[tuple[int, str]]:
    """Return (line, module) of every absolute import in Python source, counting a package's
    files read through `importlib.resources` (or imported by name) as an import of it; in the
    order of the lines."""
    found = []
    for node in ast.walk(ast.parse(text, filename)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and (package := _package_named(node)) is not None:
            found.append((node.lineno, package))
    return sorted(found)


def imports_of(path: Path) -> list[tuple[int, str]]:
    """Return (line, module) of every absolute import in a Python file (`imports_in_source`)."""
    return imports_in_source(path.read_text("utf-8"), str(path))


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


def test_reading_a_package_s_files_counts_as_importing_it():
    source = """
from importlib import resources, import_module
import importlib
resources.files("models") / "a.onnx"
importlib.resources.read_text("server", "x.txt")
import_module("models.synth")
importlib.import_module("teach.registry")
files("rules")
Path("models") / "x"
"""
    assert [m for _, m in imports_in_source(source)] == [
        "importlib",
        "importlib",
        "models",
        "server",
        "models.synth",
        "teach.registry",
        "rules",
    ]


def test_the_run_time_reads_no_file_of_the_training_package():
    # The shipped models are run-time data of vision (vision/data/models,
    # `vision.perception.shipped`).
    for room in ("base", "rules", "calibration", "vision", "teach", "server"):
        assert imports_in(room, ("models",)) == [], room


VISION_GROUPS: dict[str, tuple[str, ...]] = {
    "vision.sources": (),
    "vision.perception": (),
    "vision.stages": ("vision.perception",),
}
"""vision's groups and the others each may import: the frame sources and what finds things on the
table stand alone, the stages read what perception found; the pipeline, the live loop, annotation,
evaluation and the benchmarks at the top of vision/ put them together."""


def test_vision_s_groups_import_neither_each_other_out_of_order_nor_the_top():
    top = tuple(
        f"vision.{path.stem}" for path in (ROOT / "vision").glob("*.py") if path.stem != "__init__"
    )
    bad = []
    for group, below in VISION_GROUPS.items():
        others = tuple(g for g in VISION_GROUPS if g != group and g not in below)
        bad += imports_in(group.replace(".", "/"), (*others, *top, "vision.bench"))
    assert bad == [], "\n".join(bad)


def test_the_parts_of_the_detector_sit_below_it():
    parts = ("onnx_model", "letterbox", "yolo_decode", "tiling", "face_reader", "classes")
    for part in parts:
        modules = {
            module for _, module in imports_of(ROOT / "vision" / "perception" / f"{part}.py")
        }
        assert "vision.perception.detector" not in modules, part


def test_the_teaching_room_runs_without_torch():
    # The dashboard labels and reviews captures on a serving install, which has no torch.
    assert imports_in("teach", ("torch", "torchvision", "ultralytics", "models", "server")) == []
