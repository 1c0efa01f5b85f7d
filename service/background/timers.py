"""Threads that run work when it is due: the embedded store's stand-in for RQ's scheduler
and workers.

``schedule(delay, key)`` asks for ``handler(key)`` in ``delay`` seconds; the handler returns
the seconds until it wants to run again for that key (None: done). ``threads`` threads (one
by default) take the due keys in deadline order, started on first use; one key is never
run by two threads at once (a key asked for again while it runs waits for that run), so a
slow key holds one thread and the others go on with the rest. Work that raises is retried
after ``retry_on_error`` seconds.
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
    def __init__(self, name: str, handler: Callable[[Hashable], float | None], retry_on_error: float = 5.0,
                 threads: int = 1):
        self.name = name
        self.handler = handler
        self.retry_on_error = retry_on_error
        self.threads = threads
        self._due: list[tuple[float, int, Hashable]] = []
        self._order = itertools.count()
        self._cv = threading.Condition()
        self._running: set[Hashable] = set()
        self._started = 0

    def schedule(self, delay: float, key: Hashable) -> None:
        with self._cv:
            heapq.heappush(self._due, (time.monotonic() + max(delay, 0.0), next(self._order), key))
            if self._started < self.threads and len(self._running) >= self._started:
                self._started += 1
                threading.Thread(target=self._run, name=f"{self.name}-{self._started}", daemon=True).start()
            self._cv.notify()

    def idle(self) -> bool:
        """Nothing waiting (later work included), nothing running."""
        with self._cv:
            return not self._running and not self._due

    def _next(self) -> Hashable:
        """The first due key that no other thread runs (waits for one)."""
        with self._cv:
            while True:
                now = time.monotonic()
                ready = [entry for entry in self._due if entry[0] <= now and entry[2] not in self._running]
                if ready:
                    entry = min(ready)
                    self._due.remove(entry)
                    heapq.heapify(self._due)
                    self._running.add(entry[2])
                    return entry[2]
                later = [at for at, _, key in self._due if key not in self._running]
                self._cv.wait(timeout=(min(later) - now) if later else None)

    def _run(self) -> None:
        while True:
            key = self._next()
            try:
                again = self.handler(key)
            except Exception:  # a store outage, say: try again later; the work waits in the store
                log.exception("%s: the work for %r failed", self.name, key)
                again = self.retry_on_error
            with self._cv:
                self._running.discard(key)
                self._cv.notify_all()
            if again is not None:
                self.schedule(again, key)
