"""Without the training extra (a `make run` install), training commands say how to install it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _without_torch(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run templecam where `import torch` fails, as on a serving-only install."""
    shadow = tmp_path / "shadow" / "torch"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('No module named torch')\n")
    env = dict(os.environ, PYTHONPATH=f"{shadow.parent}{os.pathsep}{ROOT}")
    return subprocess.run(
        [sys.executable, "-m", "templecam", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("args", "what"),
    [
        (["teach", "--prompted", "dice"], "teaching"),
        (["train", "--faces", "--out", "faces"], "training"),
        (["bench", "teach"], "bench teach"),
    ],
)
def test_a_training_command_without_torch_names_the_install_command(
    tmp_path: Path, args: list[str], what: str
) -> None:
    result = _without_torch(tmp_path, *args)
    assert result.returncode == 2
    assert f"{what} needs torch" in result.stderr
    assert "pip install -e '.[train]'" in result.stderr
    assert "Traceback" not in result.stderr
