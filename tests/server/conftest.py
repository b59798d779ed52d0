"""Fixtures for the dashboard's browser tests: a real server on loopback and Debian's Chromium.

The browser tests carry the `browser` marker: `pytest -m "not browser"` deselects them. When
they run, a missing Chromium is a failure with a clear message, never a silent skip.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SERVER_START_SECONDS = 30.0
TRAINING_ONLY = ("torch", "torchvision", "ultralytics", "onnxslim")
"""Packages of the `train` extra: serving must never import them."""
SERVE_WITHOUT_TRAINING = (
    "import sys\n"
    f"for name in {TRAINING_ONLY!r}:\n"
    "    sys.modules[name] = None  # importing it raises ImportError: serving must not need it\n"
    "from templecam.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)
"""`templecam ...` as every test server runs it: as if the training extra were not installed."""

SHORT_TIMELINE = {
    "intro_seconds": 2.0,
    "game_seconds": 40.0,
    "countdowns": [
        {"n": 1, "start": 6.0, "end": 9.0},
        {"n": 2, "start": 14.0, "end": 16.0},
        {"n": 3, "start": 30.0, "end": 40.0},
    ],
}
"""A 42-second soundtrack: countdown 1 comes 8 s after Start, so a test can wait for it."""

GAME_TIMELINE = {
    "intro_seconds": 0.5,
    "game_seconds": 900.0,
    "countdowns": [
        {"n": 1, "start": 300.0, "end": 330.0},
        {"n": 2, "start": 600.0, "end": 630.0},
        {"n": 3, "start": 880.0, "end": 900.0},
    ],
}
"""A whole game's clock with a half-second introduction: play starts at once, no door slams."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "browser: drives Debian's Chromium (/usr/bin/chromium) against a real server; "
        'deselect with -m "not browser"',
    )


@dataclass(frozen=True)
class LiveServer:
    """A `templecam serve` process on loopback."""

    url: str
    data_dir: Path
    log_path: Path

    def get(self, path: str) -> object:
        """GET a JSON document from the server."""
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            return json.load(response)

    def post(self, path: str, body: object) -> object:
        """POST a JSON body; return the JSON answer (raises on an HTTP error)."""
        with urllib.request.urlopen(self._json_request(path, body, "POST"), timeout=10) as response:
            return json.load(response)

    def send(self, path: str, body: object, method: str = "POST") -> tuple[int, Any]:
        """Send a JSON body; return the status and the JSON answer, an HTTP error's included."""
        try:
            with urllib.request.urlopen(
                self._json_request(path, body, method), timeout=10
            ) as answer:
                return answer.status, json.load(answer)
        except urllib.error.HTTPError as error:
            return error.code, json.load(error)

    def _json_request(self, path: str, body: object, method: str) -> urllib.request.Request:
        return urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method=method,
        )


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until_up(url: str, process: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + SERVER_START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"the server exited with status {process.returncode}:\n{log_path.read_text()}"
            )
        try:
            with urllib.request.urlopen(url + "/api/state", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.1)
    raise RuntimeError(
        f"the server did not answer in {SERVER_START_SECONDS:.0f} s:\n{log_path.read_text()}"
    )


def _launch(
    base: Path,
    timeline: dict[str, object],
    data_dir: Path,
    port: int,
    camera: Sequence[str] = ("--no-camera",),
) -> subprocess.Popen[bytes]:
    """Start `templecam serve` on `port`, with the training packages made unimportable (serving
    must not need them); its output goes to base/server.log.

    `camera`: the camera options (default: none, manual mode only).
    """
    timeline_path = base / "timeline.json"
    timeline_path.write_text(json.dumps(timeline))
    command = [sys.executable, "-c", SERVE_WITHOUT_TRAINING, "serve", "--no-host-audio"]
    command += ["--port", str(port)]
    command += ["--timeline", str(timeline_path), "--data-dir", str(data_dir), *camera]
    env = {**os.environ, "TEMPLECAM_DATA": str(data_dir), "PYTHONUNBUFFERED": "1"}
    with (base / "server.log").open("ab") as log:
        return subprocess.Popen(
            command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


class ServerProcess:
    """A running `templecam serve` that a test may stop, or kill as a crash would."""

    def __init__(
        self,
        base: Path,
        timeline: dict[str, object],
        data_dir: Path,
        port: int,
        camera: Sequence[str] = ("--no-camera",),
    ) -> None:
        self.process = _launch(base, timeline, data_dir, port, camera)
        self.server = LiveServer(f"http://127.0.0.1:{port}", data_dir, base / "server.log")
        _wait_until_up(self.server.url, self.process, self.server.log_path)

    def kill_hard(self) -> None:
        """SIGKILL the server and its children: no shutdown handler runs."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        """Stop the server politely (SIGTERM), or kill it after 10 s."""
        _stop(self.process)


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """Start servers on demand (same data folder and port across restarts); stop them all after."""
    started: list[ServerProcess] = []

    def start(timeline: dict[str, object], port: int) -> ServerProcess:
        server = ServerProcess(tmp_path, timeline, tmp_path / "data", port)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """Run `python -m templecam serve` with a short timeline and its own data folder."""
    base = tmp_path_factory.mktemp("live-server")
    running = ServerProcess(base, SHORT_TIMELINE, base / "data", free_port())
    try:
        yield running.server
    finally:
        running.stop()


@pytest.fixture(scope="module")
def game_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """Run `python -m templecam serve` with a whole game's clock (`GAME_TIMELINE`)."""
    base = tmp_path_factory.mktemp("game-server")
    running = ServerProcess(base, GAME_TIMELINE, base / "data", free_port())
    try:
        yield running.server
    finally:
        running.stop()


def start_the_clock(server: LiveServer, within: float = 10.0) -> None:
    """Press Start and wait until play begins (the introduction is over)."""
    server.post("/api/clock", {"action": "start"})
    deadline = time.monotonic() + within
    while server.get("/api/state")["clock"]["t"] < 0:  # type: ignore[index]
        assert time.monotonic() < deadline, "the game clock never started"
        time.sleep(0.05)


def hold_the_clock(server: LiveServer) -> None:
    """Press Start, wait for "Escape!", then Pause: events are taken, no countdown comes."""
    start_the_clock(server)
    server.post("/api/clock", {"action": "pause"})


COUNTDOWN_SOON = {
    "intro_seconds": 0.5,
    "game_seconds": 400.0,
    "countdowns": [
        {"n": 1, "start": 1.0, "end": 300.0},
        {"n": 2, "start": 320.0, "end": 330.0},
        {"n": 3, "start": 380.0, "end": 400.0},
    ],
}
"""A clock whose first countdown begins one second after "Escape!" (for a record that needs a
line of the clock's own), and ends long after."""


def wait_for_line(server: LiveServer, kind: str, within: float = 15.0) -> int:
    """Wait until the live log holds an event of `kind`; return its line."""
    deadline = time.monotonic() + within
    while True:
        log = server.get("/api/state")["log"]  # type: ignore[index]
        lines = [entry["line"] for entry in log if entry["event"].get("type") == kind]
        if lines:
            return lines[-1]
        assert time.monotonic() < deadline, f"no {kind} came"
        time.sleep(0.05)


@pytest.fixture(autouse=True)
def _no_training_imports() -> Iterator[None]:
    """A server test must not import the training packages (whatever other tests did before)."""
    before = {name for name in TRAINING_ONLY if name in sys.modules}
    yield
    imported = {name for name in TRAINING_ONLY if name in sys.modules} - before
    assert not imported, f"a server test imported the training packages {sorted(imported)}"


@contextlib.contextmanager
def checked_page(
    chromium: Any, url: str, viewport: dict[str, int], timeout_ms: int = 8_000
) -> Iterator[Any]:
    """A fresh page of its own context at `viewport` on `url`; its scripts must raise no error
    (checked when the page closes)."""
    context = chromium.new_context(viewport=viewport, base_url=url)
    context.set_default_timeout(timeout_ms)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield page
    finally:
        context.close()
    assert not errors, f"the page's scripts failed: {errors}"


def open_alerts(page: Any) -> None:
    """Open the spoken alerts' panel with its button. On busy cores the top bar can still
    reflow between Playwright's check that the button stands still and its click, so the click
    lands beside it: a person clicks again, and so does this (the panel is what is tested)."""
    from playwright.sync_api import expect

    fold = page.get_by_test_id("spoken-alerts-fold")
    for _ in range(3):
        page.get_by_test_id("alerts-toggle").click()
        try:
            expect(fold).to_have_js_property("open", True, timeout=2_000)
            return
        except AssertionError:
            continue
    expect(fold).to_have_js_property("open", True)


def start_the_game(page: Any) -> None:
    """Press the set-up page's start button and wait for the game page. On busy cores a click can
    land while the page still reflows and so never reach the button (the button stays enabled,
    no refusal shown): a person presses again, and so does this. A refusal fails with its words;
    a start still in flight (button disabled) is given longer."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    button = page.get_by_test_id("start-game")
    for _ in range(3):
        button.click()
        try:
            page.wait_for_url("**/game", timeout=5_000)
            return
        except PlaywrightTimeout:
            error = page.get_by_test_id("setup-error")
            if error.is_visible() and error.inner_text().strip():
                raise AssertionError(f"the game did not start: {error.inner_text()}") from None
            if button.is_disabled():  # the server is still starting it
                page.wait_for_url("**/game", timeout=20_000)
                return
    raise AssertionError("pressing start three times never opened the game page")


@pytest.fixture(scope="session")
def chromium() -> Iterator[object]:
    """Debian's Chromium under Playwright (never a downloaded browser)."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's Chromium (apt-get install chromium) to run "
            'the browser tests, or deselect them with -m "not browser"',
            pytrace=False,
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
