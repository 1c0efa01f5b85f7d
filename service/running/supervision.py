"""Child processes kept running: ``serve``'s projector and background process on the
embedded store, and the workers of ``worker --processes N``. One that exits while its
parent runs (a crash, an out-of-memory kill, a kill -9) is started again at once, then with
a growing pause if it keeps dying."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time
from collections.abc import Mapping

log = logging.getLogger(__name__)

#: a projector that died is started again after this pause, doubled while it keeps dying
#: within ``RESTART_STEADY`` seconds of its start, up to ``RESTART_MAX``
RESTART_FIRST = 0.5
RESTART_MAX = 30.0
RESTART_STEADY = 10.0


class Supervised:
    """A child process kept running until ``stop`` (``python -m service project`` unless
    another ``command``: the embedded store's background process, a worker of ``worker
    --processes``):
    a thread polls it (gunicorn's master reaps children too, so its exit status may be gone:
    an exit is an exit) and starts a new one when it ended."""

    def __init__(self, env: Mapping[str, str], command: list[str] | None = None, name: str = "projector"):
        self.env = dict(env)
        self.name = name
        self.command = command or [sys.executable, "-m", "service", "project"]
        self.process: subprocess.Popen[bytes] | None = None
        self.restarts = 0
        self._stopped = threading.Event()
        self._lock = threading.Lock()

    def start(self) -> None:
        self._spawn()
        threading.Thread(target=self._watch, name=f"{self.name}-watch", daemon=True).start()

    def _spawn(self) -> None:
        with self._lock:
            if not self._stopped.is_set():
                self.process = subprocess.Popen(self.command, env=self.env)
                self._started = time.monotonic()

    def _watch(self) -> None:
        pause = RESTART_FIRST
        while not self._stopped.wait(0.2):
            process = self.process
            if process is None or process.poll() is None:
                continue
            if self._stopped.is_set():
                return
            steady = time.monotonic() - self._started >= RESTART_STEADY
            pause = RESTART_FIRST if steady else min(pause * 2, RESTART_MAX)
            # (its exit status may be the master's to reap: gunicorn waits for every child)
            log.warning("the %s (pid %s) ended; starting another in %.1f s", self.name, process.pid, pause)
            if self._stopped.wait(pause):
                return
            self._spawn()
            self.restarts += 1

    def stop(self) -> None:
        with self._lock:
            self._stopped.set()
            process = self.process
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
