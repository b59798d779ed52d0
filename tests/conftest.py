"""Shared test set-up: keep every test away from the user's real data folder."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TEMPLECAM_DATA", str(tmp_path_factory.mktemp("templecam-data")))
