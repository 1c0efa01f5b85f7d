"""Request rates counted in this process's memory: the default (``memory://``) rate limits.

``LocalWindows`` does the sliding-window arithmetic of the ``limits`` library without its
storage's locks, timers and key strings; ``service.api.limits`` uses it unless a shared
(Redis) limits storage is configured.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from typing import Any


def _os_lock():
    """A real OS lock, also in a gevent-patched process: the sections it guards never yield,
    so a greenlet never waits on it, and it costs less than gevent's lock."""
    import _thread

    try:
        from gevent import monkey

        if monkey.is_module_patched("threading"):
            return monkey.get_original("_thread", "allocate_lock")()
    except ImportError:  # pragma: no cover - gevent is a dependency
        pass
    return _thread.allocate_lock()


class LocalWindows:
    """The sliding-window counter in this process's memory (what ``limits``' memory storage
    does, without its locks, timers and key strings): per (limit, scope, key) the counts of
    the current and the previous fixed window. Same arithmetic as the ``limits`` library's
    ``SlidingWindowCounterRateLimiter``: a hit is allowed while
    ``previous * (share of the previous window still in the sliding window) + current + 1``
    stays within the limit. Windows older than the previous one are swept once a minute."""

    SWEEP_EVERY = 60.0

    def __init__(self, clock: Callable[[], float] = time.time):
        self.clock = clock
        self._windows: dict[tuple, list] = {}  # (amount, expiry, scope, key) -> [window number, current, previous]
        self._lock = _os_lock()
        self._next_sweep = clock() + self.SWEEP_EVERY

    def hit(self, item, scope: str, key: str) -> bool:
        return self.first_refused(((item, scope, key),)) is None

    def first_refused(self, hits: Iterable[tuple[Any, str, str]]) -> tuple[Any, str, str] | None:
        """Count a hit of each ``(limit, scope, key)`` in order, up to the first one over its
        limit: that one is returned (it and the later ones are not counted), or None. One
        clock read and one turn of the lock for every limit a request is counted against."""
        now = self.clock()
        with self._lock:
            if now >= self._next_sweep:
                self._sweep(now)
            for hit in hits:
                item = hit[0]
                amount = item.amount
                expiry = item.get_expiry()
                number = int(now // expiry)
                name = (amount, expiry, hit[1], hit[2])
                window = self._windows.get(name)
                if window is None:
                    window = self._windows[name] = [number, 0, 0]
                elif window[0] != number:  # the window moved on: the current one becomes the previous
                    window[2] = window[1] if window[0] == number - 1 else 0
                    window[1] = 0
                    window[0] = number
                # the weighted count is at most previous + current: far from the limit, no need to weigh
                if window[2] + window[1] + 1 > amount and \
                        window[2] * (1 - (now - number * expiry) / expiry) + window[1] + 1 > amount:
                    return hit
                window[1] += 1
        return None

    def retry_after(self, item, scope: str, key: str) -> int:
        """Seconds until a hit would be allowed again (at least 1)."""
        expiry = item.get_expiry()
        now = self.clock()
        number = int(now // expiry)
        with self._lock:
            window = self._windows.get((item.amount, expiry, scope, key))
            if window is None or window[0] < number - 1:
                return 1
            current, previous = (window[1], window[2]) if window[0] == number else (0, window[1])
        elapsed = now - number * expiry
        if current + 1 > item.amount:  # this window alone is full: wait for the next, then its weight
            wait = expiry - elapsed + (expiry * (1 - (item.amount - 1) / current) if current else 0)
        elif previous:  # enough of the previous window must slide out
            share = (item.amount - 1 - current) / previous  # the weight it may keep
            wait = max(0.0, (1 - share) * expiry - elapsed)
        else:
            wait = 1
        return max(1, math.ceil(wait))

    def _sweep(self, now: float) -> None:
        self._next_sweep = now + self.SWEEP_EVERY
        stale = [name for name, window in self._windows.items() if window[0] < int(now // name[1]) - 1]
        for name in stale:
            del self._windows[name]
