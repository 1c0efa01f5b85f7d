"""The embedded mode's projections: caught up in the web process, just after each append.

``InlineProjections`` is the service's ``after_append`` when there is no worker (SQLite,
``memory://``); with Redis, ``service.background.rq_projections`` enqueues jobs for RQ workers instead.
"""

from __future__ import annotations

import fcntl
import logging
import threading
import time

from service.background.projections_runner import ProjectionRunner

log = logging.getLogger(__name__)


#: events an inline catch-up applies before it saves and yields to other requests
INLINE_SLICE = 20


class InlineProjections:
    """``after_append`` for the embedded mode: projections catch up in-process, off the
    command's path.

    An append only wakes a background thread (a greenlet under gevent), which waits
    ``delay`` seconds (so a burst of appends is applied together) and catches every
    projection up in slices of ``slice`` events: each slice is applied and saved, then
    the thread yields (``time.sleep(0)``), so a request that arrives meanwhile waits for
    one slice at most, never for a whole backlog. Readers apply a few pending events
    themselves before reading (``ReadModels``), so a client still sees its own writes.

    A projection that fails is logged and left where it was: the append has happened and
    the command succeeded; the next catch-up (or ``python -m service rebuild``) retries.
    """

    def __init__(self, runner: ProjectionRunner, delay: float = 0.1, background: bool = True,
                 slice: int = INLINE_SLICE, lock_path: str | None = None):
        """``lock_path``: a file every process of one SQLite store locks (``flock``) around
        its background catch-up, so that one process at a time does it instead of all of
        them racing for the same compare-and-set; a process that finds it taken tries
        again after ``delay``."""
        self.runner = runner
        self.delay = delay
        self.slice = max(1, slice)
        self.lock_path = lock_path
        self.background = background  # False: catch up in the appender's thread (tests, tools)
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()

    def __call__(self, stream: str) -> None:
        if not self.background:
            self.flush()
            return
        self._wake.set()
        if self._thread is None:
            with self._start_lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._loop, name="projections", daemon=True)
                    self._thread.start()

    def flush(self) -> None:
        """Catch every projection up now, in the caller's thread, a slice at a time."""
        for name in self.runner.names:
            try:
                while self.runner.catch_up(name, limit=self.slice) >= self.slice:
                    time.sleep(0)  # let other requests (greenlets, threads) run between slices
            except Exception:  # a read model must never fail a command that was stored
                log.exception("projection %s failed to catch up", name)
            time.sleep(0)

    def _loop(self) -> None:
        while True:
            self._wake.wait()
            time.sleep(self.delay)
            self._wake.clear()
            if self.lock_path is None:
                self.flush()
                continue
            with open(self.lock_path, "a") as handle:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:  # another process is catching up: look again shortly
                    self._wake.set()
                    continue
                try:
                    self.flush()
                finally:
                    fcntl.flock(handle, fcntl.LOCK_UN)
