"""The user's data folder: the flag, then $TEMPLECAM_DATA, then the XDG default."""

from pathlib import Path

from base.paths import DATA_ENV, data_dir


def test_the_flag_wins_over_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "env"))
    assert data_dir(tmp_path / "flag") == tmp_path / "flag"
    assert data_dir() == tmp_path / "env"


def test_without_either_it_is_templecam_in_the_xdg_data_folder(tmp_path, monkeypatch):
    monkeypatch.delenv(DATA_ENV)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert data_dir() == tmp_path / "templecam"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert data_dir() == Path.home() / ".local" / "share" / "templecam"
