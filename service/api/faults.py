"""A store that does not answer is a 503 with Retry-After, never a 500 or a hang.

Redis calls carry a socket timeout (``GAMES_STORE_TIMEOUT``, 3 s), so a Redis that is down
or frozen fails a request within it; SQLite's "database is locked" (after its 30 s busy
timeout) or an I/O error are the same kind of outage. ``GET /health`` probes every backing
service with a short timeout and says which one is down.
"""

from __future__ import annotations

import logging
import sqlite3

import redis
from flask import Flask

from service.api.errors import problem

log = logging.getLogger(__name__)
RETRY_AFTER = 5


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
    """Each backing service: ``{ok, error?}``."""
    found: dict[str, dict[str, object]] = {}
    games = app.extensions["games"]
    found["store"] = _probe(games.store.ping)
    queue = getattr(games.appender.after_append, "connection", None)  # RQ mode: the job queue's Redis
    if queue is not None:
        found["queue"] = _probe(lambda: _quick(queue).ping())
    rates = app.extensions.get("rate_limits")
    if rates is not None and rates.storage_uri.startswith("redis"):
        found["limits"] = _probe(lambda: _ok(rates.storage.check()))
    return found


#: id(client) -> (client, its probe client); the client is kept so that its id stays its own
_probes: dict[int, tuple[redis.Redis, redis.Redis]] = {}


def _quick(client: redis.Redis) -> redis.Redis:
    """A client for health probes of ``client``'s server, with 1 s timeouts, made once per
    process: a probe then costs one round trip on a kept connection, not a new connection
    and its handshake (which made /health a quarter of a busy worker's CPU at 20 probes/s)."""
    found = _probes.get(id(client))
    if found is None:
        kwargs = dict(client.connection_pool.connection_kwargs)
        kwargs.update(socket_timeout=1.0, socket_connect_timeout=1.0)
        found = _probes[id(client)] = (client, redis.Redis(**{k: v for k, v in kwargs.items() if k in _REDIS_ARGS}))
    return found[1]


_REDIS_ARGS = {"host", "port", "db", "username", "password", "socket_timeout", "socket_connect_timeout",
               "ssl", "unix_socket_path", "path"}


def _ok(result: bool) -> None:
    if not result:
        raise ConnectionError("the limits storage does not answer")


def _probe(call) -> dict[str, object]:
    try:
        call()
        return {"ok": True}
    except Exception as exc:  # anything: health reports, it never fails
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
