"""A store that does not answer is a 503 with Retry-After, never a 500 or a hang.

Redis calls carry a socket timeout (``GAMES_STORE_TIMEOUT``, 3 s), so a Redis that is down
or frozen fails a request within it; SQLite's "database is locked" (after its 30 s busy
timeout) or an I/O error are the same kind of outage. ``GET /health`` probes every backing
service side by side with a 1 s timeout and no retry, and says which one is down.
"""

from __future__ import annotations

import concurrent.futures
import logging
import sqlite3
import time
from collections.abc import Callable

import redis
from flask import Flask
from redis.backoff import NoBackoff
from redis.retry import Retry

from service.api.errors import problem

log = logging.getLogger(__name__)
RETRY_AFTER = 5
#: seconds a health probe of one backing service waits for its answer
PROBE_TIMEOUT = 1.0


def unavailable(detail: str):
    response = problem(503, "store_unavailable", "Service Unavailable", detail)
    response.headers["Retry-After"] = str(RETRY_AFTER)
    return response


def register(app: Flask) -> None:
    @app.errorhandler(redis.exceptions.ConnectionError)
    @app.errorhandler(redis.exceptions.TimeoutError)
    @app.errorhandler(redis.exceptions.ReadOnlyError)
    def redis_down(exc):
        log.warning("Redis unavailable: %s", exc)
        return unavailable("the event store (Redis) does not answer; try again shortly")

    @app.errorhandler(redis.exceptions.ClusterDownError)
    @app.errorhandler(redis.exceptions.TryAgainError)
    def cluster_failing_over(exc):  # a master died and no replica serves its slots yet
        log.warning("Redis Cluster unavailable: %s", exc)
        return unavailable("the event store (a Redis Cluster) is failing over; try again shortly")

    @app.errorhandler(sqlite3.OperationalError)
    def sqlite_down(exc):
        log.warning("SQLite unavailable: %s", exc)
        return unavailable("the event store (SQLite) is busy or unavailable; try again shortly")


def checks(app: Flask) -> dict[str, dict[str, object]]:
    """Each backing service: ``{ok, error?}``. The probes run side by side, each giving up
    after ``PROBE_TIMEOUT``, so /health answers within about that time whatever is down."""
    games = app.extensions["games"]
    probes: dict[str, Callable[[], object]] = {"store": games.store.ping}
    queue = games.job_queue  # RQ mode: the job queue's Redis
    if queue is not None:
        probes["queue"] = lambda: _quick(queue).ping()
    rates = app.extensions.get("rate_limits")
    if rates is not None and rates.storage_uri.startswith("redis"):
        probes["limits"] = lambda: _ok(rates.storage.check())
    running = {name: _prober().submit(_probe, call) for name, call in probes.items()}
    deadline = time.monotonic() + PROBE_TIMEOUT + 0.2
    found: dict[str, dict[str, object]] = {}
    for name, future in running.items():
        try:
            found[name] = future.result(timeout=max(0.0, deadline - time.monotonic()))
        except concurrent.futures.TimeoutError:  # a store call without a timeout of its own (SQLite)
            found[name] = {"ok": False, "error": f"no answer within {PROBE_TIMEOUT:g} s"}
    return found


_executor: concurrent.futures.ThreadPoolExecutor | None = None


def _prober() -> concurrent.futures.ThreadPoolExecutor:
    """Threads (greenlets under gevent) for health probes, made once per process."""
    global _executor
    if _executor is None:
        _executor = concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="health-probe")
    return _executor


#: id(client) -> (client, its probe client); the client is kept so that its id stays its own
_probes: dict[int, tuple[redis.Redis, redis.Redis]] = {}


def _quick(client: redis.Redis) -> redis.Redis:
    """A client for health probes of ``client``'s server, with 1 s timeouts, made once per
    process: a probe then costs one round trip on a kept connection, not a new connection
    and its handshake (which made /health a quarter of a busy worker's CPU at 20 probes/s)."""
    found = _probes.get(id(client))
    if found is None:
        kwargs = dict(client.connection_pool.connection_kwargs)
        # no retry: redis.Redis's own default (10 retries with a backoff) made a probe of a frozen
        # Redis take 15 s instead of 1
        kwargs.update(socket_timeout=PROBE_TIMEOUT, socket_connect_timeout=PROBE_TIMEOUT, retry=Retry(NoBackoff(), 0))
        found = _probes[id(client)] = (client, redis.Redis(**{k: v for k, v in kwargs.items() if k in _REDIS_ARGS}))
    return found[1]


_REDIS_ARGS = {"host", "port", "db", "username", "password", "socket_timeout", "socket_connect_timeout",
               "ssl", "unix_socket_path", "path", "retry"}


def _ok(result: bool) -> None:
    if not result:
        raise ConnectionError("the limits storage does not answer")


def _probe(call) -> dict[str, object]:
    try:
        call()
        return {"ok": True}
    except Exception as exc:  # anything: health reports, it never fails
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
