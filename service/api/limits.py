"""Limits and quotas: request rates per IP and per token, registrations per IP, open live
streams per token, per IP and per process, and waiting games per player.

Rates use the sliding-window counter strategy (two fixed windows, the previous one
weighted by how much of it still overlaps the sliding window). Per process (the default,
``GAMES_LIMITS_STORAGE=memory://``) the counters are a plain dict in this module
(``LocalWindows``: a few dict operations per request, no I/O); in Redis
(``GAMES_LIMITS_STORAGE=redis://HOST:PORT/DB``: shared by every process of a deployment)
they go through the ``limits`` library (the engine under flask-limiter), one round trip
per limit per request.
Open streams are counted in memory per process, and also in Redis when the limits storage
is Redis. A request over a rate answers ``429`` problem+json with ``Retry-After`` (seconds);
a stream over the per-process cap answers ``503`` with ``Retry-After``. If the limits
storage itself fails (or takes over ``STORAGE_TIMEOUT``), requests are let through (and
logged) and the storage is left alone for ``STORAGE_PAUSE`` seconds: limits never take the
service down, nor add more than ``STORAGE_TIMEOUT`` to one request of an outage.

Every setting is in ``service.base.config.Config`` (``GAMES_LIMIT_*``) and docs/operations.md
lists them with their defaults. ``GAMES_LIMITS=off`` turns rates and stream caps off (the
waiting-games quota stays: it is a property of the lobby, not of traffic).
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from flask import Flask, Response, request
from limits import parse_many, storage, strategies

from service.api.errors import problem
from service.api.lean import current_request
from service.api.rate_windows import LocalWindows
from service.base.config import Config

log = logging.getLogger(__name__)

#: operations that are never rate-limited (a load balancer's health probe must always get through)
EXEMPT = frozenset({"meta.health"})
REGISTER = "players.create_player"
#: what each scope of a rate counts, for the refusal's detail
LIMITED = {"ip": "requests from your address", "token": "requests with your token",
           "register": "player registrations from your address"}


@dataclass
class Refusal:
    status: int
    code: str
    detail: str
    retry_after: int

    def response(self) -> Response:
        answer = problem(self.status, self.code, "Too Many Requests" if self.status == 429 else "Service Unavailable",
                         self.detail)
        answer.headers["Retry-After"] = str(self.retry_after)
        return answer


#: seconds a call to a Redis limits storage may take (a counter's increment: well under a
#: millisecond when Redis is well); past it the request goes on unlimited
STORAGE_TIMEOUT = 0.5
#: seconds the limits storage is left alone after it failed (requests go on unlimited), so an
#: outage costs one request ``STORAGE_TIMEOUT``, not every request
STORAGE_PAUSE = 5.0


class StorageOutage:
    """Shared by the rate counters and the stream leases of a Redis limits storage: after
    a failure both skip the storage for ``STORAGE_PAUSE`` seconds (the per-process stream
    counts still hold), then try it again."""

    def __init__(self, pause: float = STORAGE_PAUSE):
        self.pause = pause
        self._until = 0.0

    @property
    def ongoing(self) -> bool:
        return time.monotonic() < self._until

    def began(self) -> None:
        self._until = time.monotonic() + self.pause


class RateLimits:
    def __init__(self, config: Config, outage: StorageOutage | None = None):
        self.storage_uri = config.limits_storage or "memory://"
        self.outage = outage or StorageOutage()
        self.local: LocalWindows | None = None
        self.storage = self.limiter = None
        if self.storage_uri.startswith("memory://"):
            self.local = LocalWindows()
        else:
            options = {"socket_timeout": STORAGE_TIMEOUT, "socket_connect_timeout": STORAGE_TIMEOUT} \
                if self.storage_uri.startswith("redis") else {}
            self.storage = storage.storage_from_string(self.storage_uri, **options)
            strategy = getattr(strategies, "SlidingWindowCounterRateLimiter", strategies.FixedWindowRateLimiter)
            self.limiter = strategy(self.storage)
        self.per_ip = parse_many(config.limit_per_ip) if config.limit_per_ip else []
        self.per_token = parse_many(config.limit_per_token) if config.limit_per_token else []
        self.registrations = parse_many(config.limit_registrations_per_ip) if config.limit_registrations_per_ip else []

    def check(self, endpoint: str | None, ip: str, token: str | None, method: str) -> Refusal | None:
        if endpoint in EXEMPT:
            return None
        hits = [(item, "ip", ip) for item in self.per_ip]
        if token and self.per_token:
            key = _token_key(token)
            hits += [(item, "token", key) for item in self.per_token]
        if endpoint == REGISTER and method == "POST":
            hits += [(item, "register", ip) for item in self.registrations]
        if self.local is not None:
            refused = self.local.first_refused(hits)
            if refused is None:
                return None
            item, scope, key = refused
            return Refusal(429, "rate_limited", f"too many {LIMITED[scope]}: at most {item}",
                           self.local.retry_after(item, scope, key))
        assert self.limiter is not None  # a shared storage, when there is no local counter
        for item, scope, key in hits:
            if self.outage.ongoing:
                return None
            try:
                allowed = self.limiter.hit(item, scope, key)
            except Exception:  # the limits storage is down: let the request through
                log.warning("rate limit storage unavailable; not limiting for %g s", self.outage.pause,
                            exc_info=True)
                self.outage.began()
                return None
            if not allowed:
                return Refusal(429, "rate_limited", f"too many {LIMITED[scope]}: at most {item}",
                               self._retry_after(item, scope, key))
        return None

    def _retry_after(self, item, scope: str, key: str) -> int:
        assert self.limiter is not None
        try:
            reset = self.limiter.get_window_stats(item, scope, key).reset_time
            return max(1, math.ceil(reset - time.time()))
        except Exception:
            return item.get_expiry()


class StreamSlots:
    """Open live streams per token, per IP and per process. Counts live in this process;
    with a Redis limits storage they are also kept in Redis (sorted sets of leases that
    expire after ``lease_seconds``, the longest a stream may stay open), so the per-token
    and per-IP caps hold across processes."""

    def __init__(self, config: Config, redis_url: str | None, outage: StorageOutage | None = None):
        self.per_token = config.limit_streams_per_token
        self.per_ip = config.limit_streams_per_ip
        self.per_process = config.limit_streams_per_process
        self.lease_seconds = config.stream_max_seconds + 60
        self.prefix = f"{config.redis_prefix}:streams"
        self._lock = threading.Lock()
        self._open: dict[str, int] = {}
        self._redis = None
        self.outage = outage or StorageOutage()
        if redis_url:
            import redis

            self._redis = redis.Redis.from_url(redis_url, socket_timeout=STORAGE_TIMEOUT,
                                               socket_connect_timeout=STORAGE_TIMEOUT)

    def acquire(self, ip: str, token: str | None, token_hash: str | None = None
                ) -> tuple[Callable[[], None] | None, Refusal | None]:
        keys = [("process", "all", self.per_process), ("ip", ip, self.per_ip)]
        if token or token_hash:  # a stream ticket brings the hash of the token it was issued for
            keys.append(("token", token_hash[:32] if token_hash else _token_key(token or ""), self.per_token))
        taken: list[str] = []
        lease = uuid.uuid4().hex
        with self._lock:
            for scope, key, limit in keys:
                name = f"{scope}:{key}"
                if limit and self._open.get(name, 0) >= limit:
                    self._release_local(taken)
                    return None, self._refusal(scope, limit)
                self._open[name] = self._open.get(name, 0) + 1
                taken.append(name)
        shared = [name for name in taken if not name.startswith("process:")]
        limits = {f"{scope}:{key}": limit for scope, key, limit in keys}
        shared_counts = self._redis is not None and not self.outage.ongoing
        full = self._take_shared(shared, limits, lease) if shared_counts else None
        if full is not None:
            with self._lock:
                self._release_local(taken)
            return None, self._refusal(full.split(":", 1)[0], limits[full])

        released = threading.Event()

        def release() -> None:
            if released.is_set():
                return
            released.set()
            with self._lock:
                self._release_local(taken)
            if shared_counts and self._redis is not None:
                try:
                    with self._redis.pipeline(transaction=False) as pipe:
                        for name in shared:
                            pipe.zrem(f"{self.prefix}:{name}", lease)
                        pipe.execute()
                except Exception:  # the lease expires by itself
                    log.warning("could not release a stream lease in Redis", exc_info=True)

        return release, None

    def _take_shared(self, names: list[str], limits: dict[str, int], lease: str) -> str | None:
        """Add ``lease`` to each shared count; the name of the first one over its limit (then
        nothing stays taken), or None."""
        client = self._redis
        if client is None:
            return None
        now = time.time()
        added: list[str] = []
        try:
            for name in names:
                key = f"{self.prefix}:{name}"
                with client.pipeline(transaction=True) as pipe:
                    pipe.zremrangebyscore(key, "-inf", now)
                    pipe.zadd(key, {lease: now + self.lease_seconds})
                    pipe.zcard(key)
                    pipe.expire(key, int(self.lease_seconds) + 1)
                    count = pipe.execute()[2]
                added.append(key)
                if limits[name] and count > limits[name]:
                    for done in added:
                        client.zrem(done, lease)
                    return name
        except Exception:  # Redis is down: the per-process counts still hold
            log.warning("stream leases unavailable in Redis; counting in this process only", exc_info=True)
            self.outage.began()
        return None

    def _release_local(self, names: list[str]) -> None:
        for name in names:
            self._open[name] -= 1
            if not self._open[name]:
                del self._open[name]

    @staticmethod
    def _refusal(scope: str, limit: int) -> Refusal:
        if scope == "process":
            return Refusal(503, "server_busy", f"this server process holds its maximum of {limit} open "
                                                "streams; try again shortly", 5)
        who = "your token" if scope == "token" else "your address"
        return Refusal(429, "too_many_streams", f"{who} already holds {limit} open streams; close one first", 5)


def _token_key(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()[:32]


#: the address of a request whose server named none
UNKNOWN_IP = "unknown"


def client_ip() -> str:
    return request.remote_addr or UNKNOWN_IP


def bearer(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


def install(app: Flask, config: Config) -> None:
    """Rate limits before every request, and the stream slots the live stream takes."""
    redis_url = config.limits_storage if config.limits_storage.startswith(("redis://", "rediss://")) else None
    outage = StorageOutage()
    app.extensions["stream_slots"] = StreamSlots(config, redis_url, outage) if config.limits_enabled else None
    if config.proxy_hops:
        from werkzeug.middleware.proxy_fix import ProxyFix

        # Flask's documented way to add WSGI middleware; its stubs declare wsgi_app a method
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=config.proxy_hops, x_proto=config.proxy_hops)  # type: ignore[method-assign]
    if not config.limits_enabled:
        return
    rates = RateLimits(config, outage)
    app.extensions["rate_limits"] = rates

    @app.before_request
    def limit_rates():
        # the request itself, not the ``request`` proxy: each read through the proxy looks
        # the context up again, which cost as much as the counting
        current = current_request()
        environ = current.environ
        refusal = rates.check(current.endpoint, environ.get("REMOTE_ADDR") or UNKNOWN_IP,
                              bearer(environ.get("HTTP_AUTHORIZATION")), current.method)
        return refusal.response() if refusal else None


def _nothing_to_release() -> None:
    """The release of a stream that took no slot."""


def stream_slot(app: Flask, token_hash: str | None = None) -> tuple[Callable[[], None], Response | None]:
    """Take a slot for one open stream: ``(release, None)``, or ``(noop, refusal response)``.
    ``token_hash``: the stream was opened with a ticket of the token of this hash."""
    slots: StreamSlots | None = app.extensions.get("stream_slots")
    if slots is None:
        return _nothing_to_release, None
    release, refusal = slots.acquire(client_ip(), bearer(request.headers.get("Authorization")), token_hash)
    if refusal is not None:
        return _nothing_to_release, refusal.response()
    assert release is not None, "acquire gives a release or a refusal"
    return release, None


#: what every operation may answer besides what it lists: 429 (a rate) and 503 (the store is
#: unavailable), each with Retry-After (``contract.ContractPlugin`` adds them)
_RETRY = {"Retry-After": {"description": "seconds to wait before trying again", "schema": {"type": "integer"}}}
_PROBLEM_CONTENT = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
RETRY_ANSWERS = {
    "429": {"description": "Too Many Requests", "headers": _RETRY, "content": _PROBLEM_CONTENT},
    "503": {"description": "Service Unavailable", "headers": _RETRY, "content": _PROBLEM_CONTENT},
}
