"""`make run` and `make test` on a fresh machine: the system packages they need are installed when
missing and permitted, otherwise the command stops at once with the one command to run; serving
installs no training packages (torch, Ultralytics)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "system-packages"
debian = pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="not a Debian system")


@debian
def test_installed_packages_need_nothing():
    done = subprocess.run([SCRIPT, "dpkg", "bash"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""


def _unprivileged() -> list[str]:
    """How to run as a user who may not install packages (skip when this user may)."""
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv to drop the privileges")
        return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    sudo = shutil.which("sudo")
    if sudo and subprocess.run([sudo, "-n", "true"], capture_output=True).returncode == 0:
        pytest.skip("this user has password-less sudo: the script would install the package")
    return []


@debian
def test_a_missing_package_without_permission_stops_with_the_one_command():
    command = [*_unprivileged(), str(SCRIPT), "dpkg", "templecam-no-such-package"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    assert done.returncode == 1
    assert "missing system packages: templecam-no-such-package" in done.stderr
    assert "sudo apt-get update && sudo apt-get install -y templecam-no-such-package" in done.stderr


def _planned(target: str, tmp_path: Path) -> str:
    """What `make TARGET` would run for a machine without .venv (make -n: nothing is run)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    venv = tmp_path / "fresh-venv"
    done = subprocess.run(
        ["make", "-n", target, f"VENV={venv}", f"PYTHON={sys.executable}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_make_run_installs_no_training_packages(tmp_path):
    plan = _planned("run", tmp_path)
    assert "scripts/system-packages libgl1 libglib2.0-0 libportaudio2 espeak-ng\n" in plan
    assert "pip install --progress-bar off -e .\n" in plan
    assert "[dev,train]" not in plan and "chromium" not in plan


def test_make_test_installs_everything_and_chromium(tmp_path):
    plan = _planned("test", tmp_path)
    assert "scripts/system-packages libgl1 libglib2.0-0 libportaudio2 espeak-ng chromium" in plan
    assert "-e '.[dev,train]'" in plan


def test_ci_needs_no_apt_line_of_its_own():
    ci = (REPO / ".ci" / "run").read_text()
    assert "apt-get" not in ci and "make test" in ci


def test_serving_needs_no_training_package():
    """The run-time dependencies hold no training package; the train extra holds them all."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    runtime = " ".join(project["dependencies"])
    for name in ("torch", "ultralytics", "onnxslim"):
        assert name not in runtime
        assert any(dep.startswith(name) for dep in project["optional-dependencies"]["train"])
