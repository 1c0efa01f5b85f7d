"""Projections on RQ, the worker's side: the jobs and the worker that runs them.

With ``projection_feed`` "tail" (the default) each worker process tails the log itself
(``tail``: blocking reads, in batches) and appends enqueue nothing; with "jobs" appends
enqueue catch-up jobs (``service.background.rq_projections``). A job carries only a projection's name
and catches it up from its stored checkpoint. The worker serves the lanes it is given
(``--lanes``; ``service.base.config.LANES``), each a queue of its own: the turn clocks'
timeouts and the bots' moves (``service.running.lane_jobs``), the webhooks'
deliveries (``service.background.webhook_jobs``) and the projections (this module).

One runner per projection at a time: a job holds a Redis lock on its projection while it
runs, renewed after every save (its TTL, ``projection_lock_ttl``, only matters when a
worker dies: the lock then frees itself). A job that finds the lock taken waits for it a
little longer than the TTL, then leaves the work to the holder (a rebuild fails instead,
visibly); the holder checks the lag after releasing the lock and asks for another job if
events came in meanwhile. Two
runners that meet anyway (a ``rebuild`` from the command line, say) stay correct: the
model is saved with a compare-and-set on its checkpoints (see ``service.background.projections_runner``).

A worker outlives Redis: when Redis restarts or cannot be reached, ``run_worker`` waits
(1 s, doubling up to 30 s), reconnects, asks again for every catch-up (jobs queued in a
Redis that lost its data are gone) and works on from the stored checkpoints.

RQ's scheduler (a child process of one worker at a time, holding a lock per queue) moves
scheduled jobs to the queue: retries, the turn clocks' timeouts, the webhooks' retries. A
worker killed with SIGKILL leaves its lock behind; the lag sweep frees a lock its holder has
stopped refreshing (``release_stale_scheduler_lock``) and the next maintenance of a live
worker takes the scheduling over.

Failed catch-up jobs are retried with backoff (1, 2, 5, 10 then 30 s) and stay in RQ's
failed job registry when the retries are spent. A rebuild job is not retried: what it
saved stays, and the next catch-up job goes on from there.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis
from rq import Queue, SimpleWorker
from rq.job import Job
from rq.scheduler import RQScheduler

from service.background import job_runtime
from service.background.projections_runner import ProjectionRunner
from service.background.rq_projections import RqProjections, job_safe
from service.base.config import LANES, Config

log = logging.getLogger(__name__)

#: seconds between reconnection attempts when Redis is gone (doubling up to the maximum)
RECONNECT_FIRST = 1.0
RECONNECT_MAX = 30.0

#: RQ's scheduler holds its queue's lock for ``interval + 60`` seconds and refreshes it at
#: every heartbeat (each second); a lock not refreshed for ``SCHEDULER_STALE`` seconds is a
#: dead scheduler's (a worker killed with SIGKILL) and is released, so that a live worker's
#: scheduler takes the queue over at its next maintenance (every ``MAINTENANCE_SECONDS``)
#: instead of after the lock's minute and RQ's ten-minute maintenance period: the timeouts
#: of turn clocks and the webhooks' retries wait for the scheduler. An idle worker blocks
#: on its queue for ``WORKER_TTL - 15`` seconds between maintenance checks (RQ's default
#: TTL of 420 s would leave it deaf for almost seven minutes).
SCHEDULER_LOCK_TTL = 1 + 60
SCHEDULER_STALE = 10
MAINTENANCE_SECONDS = 10
WORKER_TTL = 25
#: how long the listener of the worker's command channel (RQ's pubsub thread) waits for a
#: message before it looks again whether it should stop: the longest the worker's stop waits
#: for it (``LaneWorker.subscribe``)
LISTENER_WAKE_SECONDS = 1
_RELEASE_STALE_LOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('TTL', KEYS[1]) <= tonumber(ARGV[2]) then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


# -- what a worker process holds ---------------------------------------------------------
@dataclass
class Runtime:
    config: Config
    runner: ProjectionRunner
    projections: RqProjections


_runtime: Runtime | None = None


def runtime(config: Config | None = None) -> Runtime:
    """The worker's store, runner and queue, built once per process from ``config``
    (the environment when a plain ``rq worker`` runs the jobs)."""
    global _runtime
    if _runtime is None or (config is not None and config != _runtime.config):
        from service.wiring.stores import open_store

        config = config or Config.from_env()
        store = open_store(config)
        runner = ProjectionRunner(store, batch_size=config.projection_batch,
                                  save_every=config.projection_save_every, pause=config.projection_pause)
        _runtime = Runtime(config, runner, RqProjections.from_config(config, runner.names))
    return _runtime


# -- the jobs (they carry a projection name only) -----------------------------------------
#: feed "jobs": a catch-up job that applied events goes on catching up every ``JOB_PAUSE`` seconds while
#: each round finds new ones, for up to ``JOB_BUDGET`` seconds: under a steady load one job
#: then serves many appends instead of paying RQ's own bookkeeping (a dozen Redis commands)
#: per burst, and a quiet log ends the job at its first empty round
JOB_BUDGET = 1.0
JOB_PAUSE = 0.05


def catch_up_job(name: str) -> int:
    rt = runtime()
    rt.projections.connection.delete(rt.projections.pending_key(name))
    try:
        return _catch_up(rt, name)
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
        # the first command after a Redis restart meets a connection the server closed; the
        # pool has dropped it, so one more try connects afresh instead of waiting for a retry
        # that only the scheduler (itself perhaps cut off by the restart) would run
        log.warning("projection %s: connection lost during catch-up; trying once more", name)
        return _catch_up(rt, name)


def _catch_up(rt: Runtime, name: str) -> int:
    # with the "tail" feed the workers' tailers keep the projections current: a job (the
    # worker's start, the lag sweep) is one catch-up, leaves a projection whose lock a tailer
    # holds to it and asks for no next job. Chained jobs would run beside the tailers for
    # ever under a steady load (each ends with a lag, so each asked for the next), polling
    # every ``JOB_PAUSE`` and paying RQ's bookkeeping: a third of the worker's CPU.
    tailed = rt.config.projection_feed == "tail"

    def work(heartbeat: Callable[[], None]) -> int:
        deadline = time.monotonic() + JOB_BUDGET
        applied = latest = rt.runner.catch_up(name, heartbeat=heartbeat)
        while latest and not tailed and time.monotonic() < deadline:
            time.sleep(JOB_PAUSE)
            heartbeat()
            latest = rt.runner.catch_up(name, heartbeat=heartbeat)
            applied += latest
        return applied

    return locked(rt.projections, rt.runner, name, rt.config.projection_lock_ttl, work, tailing=tailed)


def rebuild_job(name: str) -> int:
    from rq import get_current_job

    rt = runtime()
    job = get_current_job()

    def progress(done: int, total: int) -> None:
        if job is not None:
            job.meta["progress"] = {"done": done, "total": total}
            job.save_meta()

    return locked(rt.projections, rt.runner, name, rt.config.projection_lock_ttl,
                  lambda heartbeat: rt.runner.rebuild(name, progress=progress, heartbeat=heartbeat), required=True)


class ProjectionBusy(Exception):
    """Another runner kept the projection's lock for longer than its TTL."""


def locked(projections: RqProjections, runner: ProjectionRunner, name: str, ttl: float,
           work: Callable[[Callable[[], None]], int], *, required: bool = False, tailing: bool = False) -> int:
    """Run ``work(heartbeat)`` holding the projection's lock (``heartbeat`` renews it), then
    ask for another catch-up if events came in meanwhile.

    If another runner keeps the lock, a catch-up leaves the work to it (returns 0); with
    ``required`` (a rebuild, which must happen) ``ProjectionBusy`` is raised instead.
    ``tailing``: tailers keep the projection current (the caller is one, ``tail``, or the
    feed is "tail"): it does not wait for a lock another runner holds, nor ask for another
    catch-up (a tailer looks again by itself)."""
    lock = projections.connection.lock(projections.lock_key(name), timeout=ttl, blocking_timeout=ttl + 1,
                                       thread_local=False)
    if not lock.acquire(blocking=not tailing):
        if tailing:
            return 0
        if required:
            raise ProjectionBusy(f"projection {name} is busy in another runner; try again later")
        log.info("projection %s is busy in another runner; leaving the work to it", name)
        return 0
    renewed = time.monotonic()

    def heartbeat() -> None:  # renew the lock's TTL, at most a few times per TTL
        nonlocal renewed
        if time.monotonic() - renewed > ttl / 4:
            lock.reacquire()
            renewed = time.monotonic()

    try:
        applied = work(heartbeat)
    finally:
        try:
            lock.release()
        except redis.exceptions.LockError:  # expired meanwhile; the compare-and-set kept the model whole
            log.warning("the lock on projection %s expired before the job released it", name)
    if not tailing and runner.lag_after_catch_up(name) > 0:  # appends that came in while the lock was held
        projections.request(name)
    return applied


# -- the tailer (feed "tail": appends enqueue nothing) --------------------------------------
#: the longest a tailer's blocking read of the log waits before it looks again anyway
TAIL_WAIT = 1.0
#: after a catch-up, the tailer lets appends gather this long before the next one (a round
#: costs a few commands per projection whatever it applies: under load one round then
#: serves every append of the pause instead of one each)
TAIL_PAUSE = 0.2


def tail(config: Config, stop: threading.Event | None = None) -> None:
    """Keep every projection current by tailing the log: catch them up together (each under
    its lock; one read of the log for all, in batches of ``projection_batch`` events, their
    models saved together every ``projection_save_every``: ``_tail_round``), then
    block on the log until something is appended past the heads read before that catch-up
    (so an append that lands during the catch-up wakes the next one at once), and again,
    letting ``TAIL_PAUSE`` pass between rounds so that they come in batches.

    One tailer per worker process; with several workers the one holding a projection's lock
    does the work and the others skip it (they look again at the next append, or within
    ``TAIL_WAIT``, so a worker killed with the lock is relieved once its TTL is over). The
    checkpoints are the store's, so a restarted worker goes on where the model is, and the
    lag sweep stays the safety net (it asks for catch-up jobs, which RQ runs as before)."""
    delay = RECONNECT_FIRST
    while stop is None or not stop.is_set():
        try:
            rt = runtime(config)
            heads = rt.runner.heads()
            _tail_round(rt, heads, config.projection_lock_ttl)
            time.sleep(TAIL_PAUSE)
            rt.runner.store.wait_for_log(heads, TAIL_WAIT)
            delay = RECONNECT_FIRST
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
            log.warning("projection tailer: Redis unavailable (%s); looking again in %.0f s", exc, delay)
            time.sleep(delay)
            delay = min(delay * 2, RECONNECT_MAX)
        except Exception:  # never let the feed die: the next round starts from the stored checkpoints
            log.exception("projection tailer failed; looking again in 1 s")
            time.sleep(1)


def _tail_round(rt: Runtime, heads: dict[int, int], ttl: float) -> None:
    """One catch-up of every projection whose lock is free, all of them together (one read
    of the log for all: ``ProjectionRunner.catch_up_together``), their locks taken, renewed
    and released in one round trip each. A lock another runner holds is left to it."""
    held = rt.projections.take_locks(rt.runner.names, ttl)
    if not held:
        return
    renewed = time.monotonic()

    def heartbeat() -> None:  # renew the locks' TTL, at most a few times per TTL
        nonlocal renewed
        if time.monotonic() - renewed > ttl / 4:
            for name in rt.projections.extend_locks(held, ttl):  # the compare-and-set keeps the model whole
                log.warning("the lock on projection %s expired during the tailer's catch-up", name)
                del held[name]
            renewed = time.monotonic()

    try:
        rt.runner.catch_up_together(list(held), heads=heads, heartbeat=heartbeat)
    finally:
        for name in rt.projections.release_locks(held):
            log.warning("the lock on projection %s expired before the tailer released it", name)


class LaneWorker(SimpleWorker):
    """RQ's ``SimpleWorker`` whose command listener wakes every ``LISTENER_WAKE_SECONDS``.

    RQ starts the listener with a 60 s wait, and redis-py (8.x) joins it, without a timeout,
    when the worker stops. When the listener reads the reply to the stop's UNSUBSCRIBE before
    the stop clears its running flag (the threads race; on a loaded machine the listener won
    17 races in 60), it goes back to waiting for a subscription that never comes, and the
    worker's SIGTERM took up to a minute (tests/integration/test_lane_worker_stop.py)."""

    def subscribe(self) -> None:
        self.log.info("Worker %s: subscribing to channel %s", self.name, self.pubsub_channel_name)
        self.pubsub = self.connection.pubsub()
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        listener: Any = self.pubsub.run_in_thread(sleep_time=LISTENER_WAKE_SECONDS, daemon=True,
                                                  exception_handler=self._pubsub_exception_handler)
        self.pubsub_thread = listener  # (RQ declares the attribute as None until it subscribes)


def run_worker(config: Config, *, lanes: tuple[str, ...] = LANES, burst: bool = False,
               with_scheduler: bool = True) -> None:
    """Work the queues of ``lanes`` (in the order of ``LANES``: the first non-empty queue is
    served first), after the repairs each lane makes at its start: the projections caught up
    once, every running clock's timeout scheduled, every prompted bot asked for its move.

    A worker of one lane is never held up by another lane's work: the deployment runs one
    worker per lane (docs/operations.md "Lanes"); a worker of several is for small setups.

    ``SimpleWorker`` runs jobs in the worker's own process: no fork per job, so it drains
    several times more jobs per second, and the store connection and the runner's
    in-memory model stay warm between jobs. The scheduler (a child process) re-enqueues
    retries when their backoff is over.
    """
    if not config.rq_url.startswith(("redis://", "rediss://", "unix://", "redis+sentinel://")):
        raise SystemExit(f"the worker needs Redis for its queue: --store redis://HOST:PORT/DB (or GAMES_QUEUE_URL); "
                         f"got {config.rq_url!r}. With SQLite the projections run in the web process.")
    unknown = [lane for lane in lanes if lane not in LANES]
    if unknown or not lanes:
        raise SystemExit(f"no lane named {unknown[0] if unknown else '(none)'!r}: lanes are {', '.join(LANES)}")
    lanes = tuple(lane for lane in LANES if lane in lanes)
    job_runtime.configure(config)
    job_runtime.log_to_stderr()
    if lanes == ("bots",):  # a worker of the bots' lane alone searches: it gives way to the rest
        job_runtime.be_nice(config.bot_nice, config.bot_idle)
    elif lanes == ("projections",):  # read models and archive: they give way to the web's requests
        job_runtime.be_nice(config.projection_nice)
    delay = RECONNECT_FIRST
    if not burst:
        threading.Thread(target=_sweep, args=(config, lanes), name="lane-sweep", daemon=True).start()
        if "projections" in lanes and config.projection_feed == "tail":
            threading.Thread(target=tail, args=(config,), name="projection-tailer", daemon=True).start()
    while True:
        try:
            rt = runtime(config)
            if "projections" in lanes:
                rt.projections.request_all(force=True)
            if "clocks" in lanes:
                _sweep_clocks(config)
            if "bots" in lanes:
                from service.running.lane_jobs import sweep_bots

                sweep_bots(config)
            connection = rt.projections.connection
            queues = [Queue(config.lane_queue(lane), connection=connection) for lane in lanes]
            worker = LaneWorker(queues, connection=connection,
                                name=job_safe(f"{config.queue_name}-{'+'.join(lanes)}-{uuid.uuid4().hex[:8]}"),
                                maintenance_interval=MAINTENANCE_SECONDS, worker_ttl=WORKER_TTL)
            delay = RECONNECT_FIRST
            worker.work(burst=burst, with_scheduler=with_scheduler, logging_level="INFO")
            return  # a burst drained the queue, or the worker was told to stop
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
            # Redis restarted or is unreachable: RQ's loop gives up on such an error; this one
            # waits, reconnects, re-requests every catch-up (jobs queued in a Redis that lost its
            # data are gone) and works on. A job cut short is retried from its checkpoint.
            if burst:
                raise
            log.warning("Redis unavailable (%s); the worker reconnects in %.0f s", exc, delay)
            time.sleep(delay)
            delay = min(delay * 2, RECONNECT_MAX)


def release_stale_scheduler_lock(connection: redis.Redis, queue_name: str) -> bool:
    """Free the scheduler lock of ``queue_name`` if its holder stopped refreshing it
    ``SCHEDULER_STALE`` seconds ago (checked and deleted atomically: a live holder keeps it)."""
    key = RQScheduler.get_locking_key(queue_name)
    holder = connection.get(key)
    if holder is None:
        return False
    released = connection.eval(_RELEASE_STALE_LOCK, 1, key, holder, SCHEDULER_LOCK_TTL - SCHEDULER_STALE)
    if released:
        log.warning("released the scheduler lock of queue %s: its holder %s stopped refreshing it",
                    queue_name, holder.decode(errors="replace") if isinstance(holder, bytes) else holder)
    return bool(released)


def _sweep_clocks(config: Config) -> None:
    """Schedule the timeout of every running turn clock again (``service.running.lane_jobs``): a
    timeout lost with a killed worker comes back with the next one."""
    from service.running.lane_jobs import sweep_clocks as sweep

    try:
        sweep(config)
    except redis.RedisError:
        raise
    except Exception:  # the projections must not wait for the clocks
        log.exception("could not sweep the turn clocks")


#: the clocks' worker schedules every running clock again every this many sweeps: a timeout
#: whose scheduling failed (the queue's master failing over under an append) is lost for at
#: most that long (each run schedules every running clock again, a job each, hence not every
#: sweep; it loads only the games that moved since the last: ``Timeouts.sweep``)
CLOCK_SWEEP_EVERY = 6


def _sweep(config: Config, lanes: tuple[str, ...] = LANES) -> None:
    """The safety net under the jobs, for the worker's lanes: every ``config.sweep_interval``
    seconds, ask for a move of every bot left prompted (bots), free the scheduler lock of a
    lane whose scheduler died (every lane), and ask for a catch-up of any projection that lags
    behind the log (projections). A job lost with a Redis that
    restarted, or a retry waiting for a scheduler that died, then costs a delay of one
    interval instead of waiting for the next append. Requests go through the pending flags,
    so a projection already queued is not queued twice, unless it made no progress since the
    last sweep: a flag left by a lost job would otherwise hold it back for ``PENDING_TTL``."""
    from service.wiring.stores import open_store

    runner: ProjectionRunner | None = None
    projections: RqProjections | None = None
    stalled: dict[str, list[dict[str, int]]] = {}  # lagging projections' checkpoints at the last sweep
    sweeps = 0
    while True:
        time.sleep(config.sweep_interval)
        sweeps += 1
        job_runtime.give_back_free_memory()  # the jobs' freed C buffers, back to the system
        try:
            if "clocks" in lanes and sweeps % CLOCK_SWEEP_EVERY == 0:
                _sweep_clocks(config)
            if runner is None or projections is None:
                runner = ProjectionRunner(open_store(config))
                projections = RqProjections.from_config(config, runner.names)
            for lane in lanes:
                release_stale_scheduler_lock(projections.connection, config.lane_queue(lane))
            if "bots" in lanes:
                from service.running.lane_jobs import sweep_bots

                sweep_bots(config)
            if "projections" not in lanes:
                continue
            if config.archive_url:  # finished games past the retention period leave Redis (service.running.archiving)
                from service.running.archiving import request_archive

                request_archive(projections.connection, config)
            for status in runner.status_all():
                name = status["name"]
                if status["lag"] == 0 and not status["ahead"]:  # ahead: a catch-up rebuilds it
                    stalled.pop(name, None)
                    continue
                # behind and not moving since the last sweep: the job its pending flag stands
                # for is lost, so ask past the flag (a second job is harmless: jobs are idempotent)
                stuck = stalled.get(name) == status["partitions"]
                projections.request(name, force=stuck)
                stalled[name] = status["partitions"]
        except redis.RedisError as exc:  # Redis is away: the main loop waits for it too
            log.info("lag sweep skipped: %s", exc)
        except Exception:  # never let the safety net die
            log.exception("lag sweep failed")


def job_progress(job: Job) -> dict[str, Any]:
    job.refresh()
    return job.meta.get("progress") or {"done": 0, "total": 0}
