"""The embedded mode's projections in a process of their own (SQLite under ``serve``).

Under gunicorn the web workers are gevent processes, and a SQLite call blocks the whole
worker: a catch-up run in a web worker (``InlineProjections``) holds up every request of
that worker meanwhile, which is most of a SQLite deployment's POST tail. With
``inline_projector`` = "process" (what ``serve`` sets for a SQLite store) an append asks
nothing: one projector process beside the workers (``python -m service project``, started
and stopped by gunicorn's master) tails the log and catches every projection up in big
slices, all of them together (one read of the log and one transaction a slice for every
projection: ``ProjectionRunner.catch_up_together``), under the same file lock as ever, so
at most one runner does it at a time.

Reads keep their guarantee: a read of a projection still applies a few pending events
itself first (``ReadModels``), so a client sees its own writes even if the projector is
behind, stopped or dead. A projector killed anywhere loses only its unsaved slice: the
checkpoints are stored with the rows (``service.projections_runner``). ``serve`` keeps it
running (``ProjectorProcess``): one that exits while the server runs (a crash, an out-of-
memory kill, a kill -9) is started again at once, then with a growing pause if it keeps dying.
"""

from __future__ import annotations

import fcntl
import logging
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from threading import Event

from service.config import Config
from service.projections_runner import ProjectionRunner

log = logging.getLogger(__name__)

#: events the projector applies per saved slice (a web worker's own slice is 20)
PROJECTOR_SLICE = 500
#: the longest it waits for an append before it looks again anyway
PROJECTOR_WAIT = 1.0
#: after a catch-up it lets appends gather this long before the next one (batches)
PROJECTOR_PAUSE = 0.2
#: a projector that died is started again after this pause, doubled while it keeps dying
#: within ``RESTART_STEADY`` seconds of its start, up to ``RESTART_MAX``
RESTART_FIRST = 0.5
RESTART_MAX = 30.0
RESTART_STEADY = 10.0


def run_projector(config: Config, stop: Event | None = None) -> None:
    from service.stores import open_store

    store = open_store(config)
    runner = ProjectionRunner(store, batch_size=config.projection_batch, save_every=config.projection_save_every)
    path = getattr(store, "path", None)
    lock_path = f"{path}.projections.lock" if path else None
    while stop is None or not stop.is_set():
        try:
            heads = runner.heads()
            if lock_path is None:
                _catch_up(runner, heads)
            else:
                with open(lock_path, "a") as handle:
                    fcntl.flock(handle, fcntl.LOCK_EX)  # another runner's catch-up may hold it a moment
                    try:
                        _catch_up(runner, heads)
                    finally:
                        fcntl.flock(handle, fcntl.LOCK_UN)
            time.sleep(PROJECTOR_PAUSE)
            store.wait_for_log(heads, PROJECTOR_WAIT)
        except Exception:  # never let the projector die: the next round starts from the checkpoints
            log.exception("the projector failed; looking again in 1 s")
            time.sleep(1)


def _catch_up(runner: ProjectionRunner, heads: dict[int, int]) -> None:
    """Every projection up to ``heads``, together: one read of the log and one transaction
    per slice of ``PROJECTOR_SLICE`` events for all of them."""
    try:
        runner.catch_up_together(heads=heads, slice=PROJECTOR_SLICE)
    except Exception:  # logged; the others were caught up, the next round tries it again
        log.exception("a projection failed to catch up")


class ProjectorProcess:
    """``python -m service project`` (or another ``command``: the embedded store's background
    process, a worker of ``worker --processes``) as a child, kept running until ``stop``:
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
