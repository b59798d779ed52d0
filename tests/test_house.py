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
