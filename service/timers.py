"""A thread that runs work when it is due: the embedded store's stand-in for RQ's scheduler.

``schedule(delay, key)`` asks for ``handler(key)`` in ``delay`` seconds; the handler returns
the seconds until it wants to run again for that key (None: done). One thread per timer,
started on first use; work that raises is retried after ``retry_on_error`` seconds.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable, Hashable

log = logging.getLogger(__name__)


class TimerThread:
    def __init__(self, name: str, handler: Callable[[Hashable], float | None], retry_on_error: float = 5.0):
        self.name = name
        self.handler = handler
        self.retry_on_error = retry_on_error
        self._due: list[tuple[float, int, Hashable]] = []
        self._order = itertools.count()
        self._cv = threading.Condition()
        self._busy = False
        self._thread: threading.Thread | None = None

    def schedule(self, delay: float, key: Hashable) -> None:
        with self._cv:
            heapq.heappush(self._due, (time.monotonic() + max(delay, 0.0), next(self._order), key))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
            self._cv.notify()

    def idle(self) -> bool:
        """Nothing waiting (later work included), nothing running."""
        with self._cv:
            return not self._busy and not self._due

    def _run(self) -> None:
        while True:
            with self._cv:
                self._busy = False
                while not self._due or self._due[0][0] > time.monotonic():
                    self._cv.wait(timeout=(self._due[0][0] - time.monotonic()) if self._due else None)
                _, _, key = heapq.heappop(self._due)
                self._busy = True
            try:
                again = self.handler(key)
            except Exception:  # a store outage, say: try again later; the work waits in the store
                log.exception("%s: the work for %r failed", self.name, key)
                again = self.retry_on_error
            if again is not None:
                self.schedule(again, key)
