"""The training extra (torch, Ultralytics), which `make run` leaves out: serving needs neither."""

from __future__ import annotations

from templecam.errors import UserError

INSTALL = "run `make test` once, or `.venv/bin/pip install -e '.[train]'`"
"""What installs the training extra."""


def require_training(what: str, modules: tuple[str, ...] = ("torch",)) -> None:
    """Stop with the install command when a module of the training extra cannot be imported."""
    missing = []
    for name in modules:
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    if missing:
        raise UserError(
            f"{what} needs {' and '.join(missing)}, which `make run` does not install: {INSTALL}"
        )
