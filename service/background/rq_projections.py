"""The web side of projections on Redis: an append asks RQ workers to catch them up.

After every append the web process asks for one catch-up job per projection
(``RqProjections.__call__``, the service's ``after_append``). A job carries only the
projection's name; the worker (``service.running.worker``) reads the log from the projection's
stored checkpoint, so jobs are idempotent and their order does not matter, and the next
job repairs a lost one.

At most one catch-up job per projection waits in the queue: enqueueing first sets a
``pending`` flag (``SET NX``, with a TTL so a job lost before it ran cannot block the
projection for long) and skips the enqueue if the flag was already set; the job clears
the flag as it starts, before it reads the log, so an append that lands while a job runs
enqueues the next one and no event is left waiting for an append that never comes.

Jobs name their function by its path (``service.running.worker.catch_up_job``), so this module
does not import the worker's.
"""

from __future__ import annotations

import logging
import re
import threading
import time
import uuid

import redis
from rq import Queue, Retry
from rq.job import Job

from service.base.config import Config

log = logging.getLogger(__name__)

#: retries of a failed catch-up job and the seconds before each
RETRY = Retry(max=5, interval=[1, 2, 5, 10, 30])
#: a pending flag outlives a job lost before it ran by at most this long
PENDING_TTL = 60
CATCH_UP_TIMEOUT = 600
REBUILD_TIMEOUT = 6 * 3600


#: a lock's holder (its token) renews it (ARGV[2]: milliseconds) / releases it
_EXTEND = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def job_safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", text)


class RqProjections:
    """Enqueues projection jobs on ``queue`` (and is the service's ``after_append``).

    With ``delay`` > 0 an append does not talk to the queue's Redis itself: it marks the
    projections as wanted and a background thread (a greenlet under gevent) sends one
    ``request_all`` for every append of the last ``delay`` seconds. The command's answer
    then waits for one Redis round trip (the append) instead of two, and a burst of appends
    costs one pipeline of ``SET NX``. An append whose process dies before the flush (a
    few milliseconds) leaves its event for the next append or the next worker start to
    pick up, as a lost job would.
    """

    def __init__(self, connection: redis.Redis, queue_name: str, prefix: str, names: list[str],
                 delay: float = 0.0):
        self.connection = connection
        self.queue = Queue(queue_name, connection=connection)
        self.prefix = prefix
        self.names = list(names)
        self.delay = delay
        self._wanted = threading.Event()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()

    @classmethod
    def from_config(cls, config: Config, names: list[str]) -> RqProjections:
        from service.adapters.redis_client import connect

        timeouts = {"socket_timeout": config.store_timeout, "socket_connect_timeout": min(config.store_timeout, 2.0)} \
            if config.store_timeout else {}
        return cls(connect(config.rq_url, **timeouts), config.lane_queue("projections"), config.redis_prefix, names,
                   config.enqueue_delay)

    def pending_key(self, name: str) -> str:
        return f"{self.prefix}:projections:pending:{name}"

    def lock_key(self, name: str) -> str:
        return f"{self.prefix}:projections:lock:{name}"

    # -- the projections' locks, several in one round trip (the tailer's) -------------------
    # The same locks as ``connection.lock(lock_key(name))`` (redis-py's ``Lock``: a random
    # token SET NX PX, released and extended only by its holder), which the jobs take one at
    # a time; a tailer takes, extends and releases all of its projections' in one pipeline.
    def take_locks(self, names: list[str], ttl: float) -> dict[str, str]:
        """The locks of ``names`` that were free, now held: name -> token."""
        tokens = {name: uuid.uuid4().hex for name in names}
        with self.connection.pipeline(transaction=False) as pipe:
            for name, token in tokens.items():
                pipe.set(self.lock_key(name), token, nx=True, px=int(ttl * 1000))
            taken = pipe.execute()
        return {name: token for (name, token), ok in zip(tokens.items(), taken, strict=True) if ok}

    def extend_locks(self, held: dict[str, str], ttl: float) -> list[str]:
        """Renew the TTL of the locks in ``held``; returns those that were no longer held."""
        replies = self._by_holder(_EXTEND, held, int(ttl * 1000))
        return [name for name, ok in zip(held, replies, strict=True) if not ok]

    def release_locks(self, held: dict[str, str]) -> list[str]:
        """Release the locks in ``held``; returns those that had expired meanwhile."""
        replies = self._by_holder(_RELEASE, held)
        return [name for name, ok in zip(held, replies, strict=True) if not ok]

    def _by_holder(self, script: str, held: dict[str, str], *args: int) -> list[int]:
        with self.connection.pipeline(transaction=False) as pipe:
            for name, token in held.items():
                pipe.eval(script, 1, self.lock_key(name), token, *args)
            return pipe.execute()

    def __call__(self, stream: str) -> None:
        if self.delay <= 0:
            try:
                self.request_all()
            except redis.RedisError:  # the append is stored; the next one (or a worker's start) enqueues
                log.exception("could not enqueue projection catch-up jobs after an append to %s", stream)
            return
        self._wanted.set()
        if self._thread is None:
            with self._start_lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._flush_loop, name="enqueue", daemon=True)
                    self._thread.start()

    def _flush_loop(self) -> None:
        while True:
            self._wanted.wait()
            time.sleep(self.delay)
            self._wanted.clear()
            try:
                self.request_all()
            except redis.RedisError:  # try again shortly; the events wait in the log meanwhile
                log.exception("could not enqueue projection catch-up jobs; retrying in 1 s")
                self._wanted.set()
                time.sleep(1)

    def request_all(self, force: bool = False) -> list[Job]:
        with self.connection.pipeline(transaction=False) as pipe:
            for name in self.names:
                pipe.set(self.pending_key(name), "1", nx=not force, ex=PENDING_TTL)
            flags = pipe.execute()
        return [self._enqueue_catch_up(name) for name, flagged in zip(self.names, flags, strict=True) if flagged]

    def request(self, name: str, force: bool = False) -> Job | None:
        if self.connection.set(self.pending_key(name), "1", nx=not force, ex=PENDING_TTL):
            return self._enqueue_catch_up(name)
        return None

    def _enqueue_catch_up(self, name: str) -> Job:
        return self.queue.enqueue(
            "service.running.worker.catch_up_job", name,
            job_id=job_safe(f"{self.prefix}-catch-up-{name}-{uuid.uuid4().hex[:12]}"),
            retry=RETRY, job_timeout=CATCH_UP_TIMEOUT, result_ttl=60,
            description=f"catch up projection {name}",
        )

    def enqueue_rebuild(self, name: str) -> Job:
        return self.queue.enqueue(
            "service.running.worker.rebuild_job", name,
            job_id=job_safe(f"{self.prefix}-rebuild-{name}-{uuid.uuid4().hex[:12]}"),
            job_timeout=REBUILD_TIMEOUT, result_ttl=3600,
            description=f"rebuild projection {name}",
        )

    def failed_jobs(self) -> list[str]:
        return self.queue.failed_job_registry.get_job_ids()
