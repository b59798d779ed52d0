"""Screenshots the browser tests take: into TEMPLECAM_SCREENSHOTS (`make screenshots` refreshes
the README's pictures in docs/screenshots), else into a temporary folder."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from playwright.sync_api import Page


def screenshot_folder() -> Path:
    """TEMPLECAM_SCREENSHOTS (to refresh the README's pictures), else a temporary folder."""
    chosen = os.environ.get("TEMPLECAM_SCREENSHOTS")
    return Path(chosen) if chosen else Path(tempfile.gettempdir()) / "templecam-screenshots"


def screenshot(page: Page, name: str) -> Path:
    """Save the top of the page as `name` in the screenshot folder; return its path."""
    folder = screenshot_folder()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    page.evaluate("window.scrollTo(0, 0)")  # clicks may have scrolled; show the top of the page
    page.screenshot(path=str(path), full_page=False)
    return path
