"""A small guard between the dashboard and its fine-tune: `python -m server.teach_guard CMD...`.

It runs CMD in a process group of its own and ends that whole group (the fine-tune and the
worker processes it forks) when it is told to stop (SIGTERM, SIGINT) or when the dashboard that
started it dies, even by SIGKILL (Linux's parent-death signal). Without it, a crashed server
would leave a fine-tune's workers running on cores the next game needs. Its exit status is
CMD's; its output is CMD's (inherited).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from types import FrameType

STOP_SECONDS = 10.0
"""How long the fine-tune may take to stop on SIGTERM before it is killed."""


def _die_with_parent() -> None:
    """Get SIGTERM when the process that started this one dies (Linux; elsewhere nothing)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _end_group(child: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process group `child` leads; SIGKILL it if it lingers."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    while time.monotonic() < deadline:
        child.poll()  # reap the fine-tune itself, so that only live processes count
        try:
            os.killpg(child.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGKILL)


def main(argv: list[str]) -> int:
    """Run `argv` guarded (see the module docstring); return its exit status."""
    if not argv:
        print("usage: python -m server.teach_guard COMMAND...", file=sys.stderr)
        return 2
    parent = os.getppid()
    _die_with_parent()
    child = subprocess.Popen(argv, start_new_session=True)
    asked: list[float] = []

    def stop(signum: int, frame: FrameType | None) -> None:
        # Only signals here: the main loop below waits (a Popen call here could deadlock).
        if not asked:
            asked.append(time.monotonic())
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if os.getppid() != parent:  # the dashboard died before the death signal was set
        stop(signal.SIGTERM, None)
    while True:
        try:
            code = child.wait(timeout=0.2)
            break
        except subprocess.TimeoutExpired:
            if asked and time.monotonic() - asked[0] > STOP_SECONDS:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.pid, signal.SIGKILL)
    _end_group(child)  # workers the fine-tune left behind
    return 128 + signal.SIGTERM if asked else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
