"""Run-time settings written as `key=value` words (`--setting "tile=640 threads=2"`), read and
written back the same way for every model kind (the YOLO detector, the localiser)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar

Settings = TypeVar("Settings")


def parse_words(kind: type[Settings], text: str, convert: Callable[[str, str], Any]) -> Settings:
    """Read `key=value` words (commas count as spaces) into settings `kind`, each value turned
    into its type by `convert(key, raw)`; an unknown key or a word without `=` is refused."""
    names = [f.name for f in fields(kind)]  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for word in text.replace(",", " ").split():
        key, sep, raw = word.partition("=")
        if not sep or key not in names:
            raise ValueError(f"{word!r}: expected key=value with a key in {', '.join(names)}")
        values[key] = convert(key, raw)
    return kind(**values)


def format_value(value: Any) -> str:
    """Write a setting's value as `parse_words` reads it back (None: auto; booleans: on/off)."""
    if value is None:
        return "auto"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def describe_words(settings: Any) -> str:
    """Return the settings that differ from their defaults as `key=value` words."""
    default = type(settings)()
    words = [
        f"{f.name}={format_value(getattr(settings, f.name))}"
        for f in fields(settings)
        if getattr(settings, f.name) != getattr(default, f.name)
    ]
    return " ".join(words) or "defaults"
