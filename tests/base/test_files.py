"""Atomic writes: a file is replaced whole, or left as it was with no temporary file behind."""

import os

import pytest

from base.files import write_atomically


def test_writes_text_and_bytes_and_creates_the_folder(tmp_path):
    target = tmp_path / "deep" / "game.jsonl"
    write_atomically(target, "line\n", durable=True)
    assert target.read_text() == "line\n"
    write_atomically(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in target.parent.iterdir()) == ["game.jsonl"]


def test_a_failed_replace_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "meta.json"
    target.write_text("old")

    def refuse(source, destination):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        write_atomically(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["meta.json"]
