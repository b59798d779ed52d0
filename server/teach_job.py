"""The fine-tune the /dice page starts: `templecam teach` as a child process, one at a time.

The child (`python -m templecam teach --prompted DIR --progress json --data-dir DATA`, under
`server.teach_guard`, which ends it and its workers with the server) lowers its
own priority and reports one JSON line per step on stdout; this module reads them into a status
the page polls (stage, percent, seconds left), keeps the child's error message, and cancels it
by terminating its process group (the unfinished `.partial` model is discarded by the next run).
Torch is imported by the child only, never by the server.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

TEST_ARGS_ENV = "TEMPLECAM_TEACH_ARGS"
"""Extra `templecam teach` options for tests only (e.g. "--epochs 1 --copies 2 --replay 200")."""
STAGES: dict[str, tuple[str, float, float]] = {
    "crops": ("Preparing the crops", 12.0, 3.0),
    "replay": ("Rendering the shipped dice (the first time only)", 0.0, 5.0),
    "label": ("Labelling the photos", 5.0, 7.0),
    "fine-tune": ("Fine-tuning the die reader", 15.0, 70.0),
    "localiser": ("Fine-tuning the localiser on your dice", 85.0, 7.0),
    "check": ("Comparing the old and new reader", 92.0, 7.0),
}
"""Each stage's words on the page, and where its progress lies in the whole bar (start, span)."""
TIMED = ("replay", "fine-tune", "localiser")
"""Stages whose time left the child estimates well enough to show."""
ERROR_PREFIX = "templecam teach: error: "
STOP_SECONDS = 10.0


class TeachJob:
    """At most one fine-tune child at a time, and what the page shows of the last one."""

    def __init__(self, data_dir: Path, folder: Path) -> None:
        """Teach from the prompted capture `folder`, keeping models in `data_dir`."""
        self.data_dir = data_dir
        self.folder = folder
        self._lock = threading.Lock()
        self._process: subprocess.Popen[str] | None = None
        self._status: dict[str, Any] = {"state": "idle"}
        self._stderr: deque[str] = deque(maxlen=40)
        self._cancelled = False

    @property
    def running(self) -> bool:
        """Tell whether a fine-tune is under way."""
        return self._status.get("state") == "running"

    def command(self) -> list[str]:
        """Return the child's command line: `templecam teach` under `server.teach_guard`."""
        extra = shlex.split(os.environ.get(TEST_ARGS_ENV, ""))
        return [
            sys.executable,
            "-m",
            "server.teach_guard",
            sys.executable,
            "-m",
            "templecam",
            "teach",
            "--prompted",
            str(self.folder),
            "--progress",
            "json",
            "--data-dir",
            str(self.data_dir),
            *extra,
        ]

    def start(self) -> dict[str, Any]:
        """Start a fine-tune; raise RuntimeError when one is running already (or it cannot
        start)."""
        with self._lock:
            if self.running:
                raise RuntimeError("a fine-tune is already running: wait for it, or cancel it")
            self._stderr.clear()
            self._cancelled = False
            self._process = None
            self._status = {
                "state": "running",
                "stage": "crops",
                "stage_name": STAGES["crops"][0],
                "done": 0,
                "total": 1,
                "percent": 0.0,
                "eta_s": None,
                "started": time.time(),
                "message": None,
                "model": None,
            }
        launched = threading.Event()
        # The child is started by a thread that lives as long as it runs: its death signal
        # (`server.teach_guard`) comes when the thread that started it ends, so not a pool
        # thread that retires when idle.
        threading.Thread(
            target=self._run, args=(launched,), name="templecam-teach", daemon=True
        ).start()
        launched.wait(STOP_SECONDS)
        status = self.status()
        if status["state"] == "failed":
            raise RuntimeError(status["message"])
        return status

    def _run(self, launched: threading.Event) -> None:
        """Start the child, then follow it to its end."""
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        try:
            process = subprocess.Popen(
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                start_new_session=True,
            )
        except OSError as error:
            with self._lock:
                self._status = {"state": "failed", "message": f"cannot start templecam: {error}"}
            launched.set()
            return
        with self._lock:
            self._process = process
        launched.set()
        threading.Thread(target=self._read_errors, args=(process,), daemon=True).start()
        self._follow(process)

    def status(self) -> dict[str, Any]:
        """Return what the page shows: state, stage, percent, seconds left, message, model."""
        with self._lock:
            status = dict(self._status)
        if status.get("started"):
            end = status.get("ended") or time.time()
            status["elapsed_s"] = round(end - status["started"], 1)
        status.pop("card", None)
        return status

    def card(self) -> dict[str, Any] | None:
        """Return the card of the model the last run made (None when it made none)."""
        with self._lock:
            return self._status.get("card")

    def cancel(self) -> dict[str, Any]:
        """Stop the running fine-tune (its unfinished model is discarded by the next run)."""
        with self._lock:
            process = self._process if self.running else None
            if process is None:
                raise RuntimeError("no fine-tune is running")
            self._cancelled = True
        self._terminate(process)
        deadline = time.monotonic() + STOP_SECONDS
        while self.running and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.status()

    def shutdown(self) -> None:
        """Stop a running child (the server is stopping)."""
        with self._lock:
            process = self._process if self.running else None
            self._cancelled = True
        if process is not None:
            self._terminate(process)

    def _terminate(self, process: subprocess.Popen[str]) -> None:
        """SIGTERM the child's process group; SIGKILL it if it lingers."""
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)

    def _read_errors(self, process: subprocess.Popen[str]) -> None:
        """Keep the last lines of the child's stderr (its error message is the last)."""
        assert process.stderr is not None
        for line in process.stderr:
            for part in line.replace("\r", "\n").splitlines():
                if part.strip():
                    self._stderr.append(part.rstrip())

    def _follow(self, process: subprocess.Popen[str]) -> None:
        """Read the child's progress lines until it ends; then say how it ended."""
        assert process.stdout is not None
        final: dict[str, Any] | None = None
        for line in process.stdout:
            try:
                report = json.loads(line)
            except ValueError:
                continue
            if not isinstance(report, dict):
                continue
            if report.get("stage") == "done":
                final = report
            else:
                self._progress(report)
        code = process.wait()
        time.sleep(0.1)  # let the stderr reader take the last lines
        with self._lock:
            status = dict(self._status)
            status["ended"] = time.time()
            status["eta_s"] = None
            if self._cancelled:
                status.update(state="cancelled", message="cancelled: the reader in use is kept")
            elif code == 0 and final is not None:
                card = final.get("card") if isinstance(final.get("card"), dict) else {}
                status.update(
                    state="done",
                    percent=100.0,
                    model=Path(str(final.get("model", ""))).name,
                    card=card,
                    message=None,
                )
            else:
                status.update(state="failed", message=self._failure(code))
            self._status = status
            self._process = None
        log.info("teach: the fine-tune ended: %s", status["state"])

    def _progress(self, report: dict[str, Any]) -> None:
        """Take one progress line of the child."""
        stage = str(report.get("stage", ""))
        if stage not in STAGES:
            return
        name, start, span = STAGES[stage]
        try:
            done, total = int(report.get("done", 0)), max(1, int(report.get("total", 1)))
        except (TypeError, ValueError):
            return
        eta = report.get("eta_s")
        with self._lock:
            if self._status.get("state") != "running":
                return
            percent = max(
                float(self._status.get("percent", 0.0)),
                start + span * min(done, total) / total,
            )
            self._status.update(
                stage=stage,
                stage_name=name,
                done=done,
                total=total,
                percent=round(percent, 1),
                eta_s=eta if isinstance(eta, int | float) and stage in TIMED else None,
            )

    def _failure(self, code: int) -> str:
        """Return the child's error message, in the page's words."""
        lines = list(self._stderr)
        message = next((line for line in reversed(lines) if line.startswith(ERROR_PREFIX)), None)
        if message is not None:
            text = message.removeprefix(ERROR_PREFIX)
        elif lines:
            text = f"the fine-tune stopped (status {code}): {lines[-1]}"
        else:
            text = f"the fine-tune stopped (status {code})"
        for folder in {str(self.data_dir.resolve()), str(self.data_dir)}:
            text = text.replace(folder + "/", "").replace(folder, "the data folder")
        return text
