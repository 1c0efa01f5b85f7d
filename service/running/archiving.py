"""Retention: games finished longer than ``GAMES_ARCHIVE_AFTER`` ago leave Redis for the archive.

On a Redis store with ``GAMES_ARCHIVE_URL`` set (``service.adapters.redis_store.archived``),
the archive job runs on the projections' lane (a log reader with nobody waiting for it, like
the read models): the lane's sweep enqueues it every ``GAMES_ARCHIVE_EVERY`` seconds. A run:

1. **follows the log** from where the last run stopped (``followed``, per partition) and notes
   each game whose append finished it, with the time it ended (``due``);
2. **lets the log go** where every reader has read it (``compact``): the older entries of each
   partition, those of games in play and players' feeds too, are copied to the archive and
   leave Redis, which otherwise keeps a copy of every event ever appended (every run, before
   the due games, so a run that spends its budget on them still does it);
3. **archives each due game** that ended longer ago than the retention period, the earliest
   first: reads its stream from Redis, folds it (it must be over), writes its events and its
   signed portable log to the archive in one transaction, and only then, once every read model
   and the follower have read past its last log entry, deletes it from Redis (stream,
   idempotency records, snapshots, log entries: one script, which deletes nothing if the game
   was appended to meanwhile).

Every step can be repeated: the archive ignores a game it has, a game Redis no longer holds is
taken off the due list, and the follower's position is saved after what it noted. A run killed
at any point (even SIGKILL) leaves every game readable, from Redis or from the archive, and the
next run goes on. One run at a time: a lock (``projection_lock_ttl``, renewed after each game).

What stays in Redis for an archived game: its rows in the read models (its lobby row, its
players' history entries, its share of the scoreboards: 3.6 kB a game in the soak), so every list still
shows it; everything else is read from the archive.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from domain.kernel.events import EVERYONE
from domain.kernel.table import FINISHED
from projections.base import STREAM_PREFIX
from service.adapters.redis_store.archived import ArchivedRedisStore
from service.streams.envelopes import game_of, stream_of
from service.streams.loading import GameLoader

log = logging.getLogger(__name__)

#: events read from each partition's log per round of the follower
FOLLOW_BATCH = 5000
#: games taken from the due list per round
DUE_BATCH = 100
#: seconds a run works before it ends (the next run goes on); below RQ's job timeout
RUN_BUDGET = 50.0
JOB_TIMEOUT = 300


def _epoch(at: str) -> float:
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()


class Archiver:
    """Archives the finished games of ``service`` (a ``GameService`` on an ``ArchivedRedisStore``)."""

    def __init__(self, service: Any, keep_seconds: float, projections: Sequence[str], *,
                 pause: float = 0.0, lock_ttl: float = 10.0, log_kept: int = 200,
                 now: Callable[[], float] = time.time):
        if not isinstance(service.store, ArchivedRedisStore):
            raise ValueError("archiving needs a Redis store with an archive (GAMES_ARCHIVE_URL)")
        self.service = service
        self.store: ArchivedRedisStore = service.store
        self.keep_seconds = keep_seconds
        self.projections = tuple(projections)
        self.pause = pause
        self.lock_ttl = lock_ttl
        self.log_kept = log_kept
        self.now = now

    def run(self, budget: float = RUN_BUDGET) -> dict[str, int]:
        """One run: follow the log, then archive what is due, for at most ``budget`` seconds.
        Counts of what it did (``busy``: another run holds the lock)."""
        lock = self.store.retention_lock(self.lock_ttl)
        if not lock.acquire(blocking=False):
            return {"busy": 1}
        deadline = time.monotonic() + budget
        counts = {"noted": 0, "archived": 0, "waiting": 0, "skipped": 0, "let_go": 0}
        try:
            counts["noted"] = self.follow(deadline, lock.extend)
            # first, as the log is read past: a run that spends its budget on due games still lets it go
            counts["let_go"] = self.compact()
            while time.monotonic() < deadline:
                due = self.store.due(self.now() - self.keep_seconds, DUE_BATCH)
                if not due:
                    break
                progress = False
                for game_id in due:
                    if time.monotonic() >= deadline:
                        break
                    outcome = self.archive(game_id)
                    counts[outcome] += 1
                    progress = progress or outcome != "waiting"
                    lock.extend(self.lock_ttl, replace_ttl=True)
                    if self.pause and outcome == "archived":
                        time.sleep(self.pause)
                if not progress:  # every due game waits for a read model to read past it
                    break
        finally:
            try:
                lock.release()
            except Exception:  # expired meanwhile: the next run takes it
                log.warning("the archive lock expired before the run released it")
        counts["due"] = self.store.waiting_count()
        log.info("archive run: %s", " ".join(f"{k}={v}" for k, v in counts.items()))
        return counts

    def follow(self, deadline: float = float("inf"), renew: Callable[..., Any] | None = None) -> int:
        """Note the games that ended since the last run, reading the log from where it stopped."""
        followed = self.store.followed()
        heads = self.store.log_heads()
        noted = 0
        while time.monotonic() < deadline:
            reads = {p: (followed.get(p, 0), FOLLOW_BATCH) for p, head in heads.items() if head > followed.get(p, 0)}
            if not reads:
                break
            ended: dict[str, float] = {}
            for partition, records in self.store.read_logs(reads).items():
                for record in records:
                    after = record.event.get("after")
                    if after and after.get("status") == FINISHED and record.stream.startswith(STREAM_PREFIX):
                        ended[game_of(record.stream)] = _epoch(record.event["at"])
                if records:
                    followed[partition] = records[-1].position
                else:  # nothing past it any more (entries deleted): the head is as far as it goes
                    followed[partition] = heads[partition]
            self.store.add_due(ended)  # before the position: a kill between notes a game twice, never zero times
            self.store.save_followed({p: followed[p] for p in reads})
            noted += len(ended)
            if renew is not None:
                renew(self.lock_ttl, replace_ttl=True)
        return noted

    def archive(self, game_id: str) -> str:
        """Archive one due game: "archived", "waiting" (a reader of the log has not read past
        it yet: it stays due), or "skipped" (not held by Redis any more, or not over)."""
        stream = stream_of(game_id)
        if not self.store.holds(stream):  # archived by a run killed before it took the game off the list
            self.store.remove_due(game_id)
            return "skipped"
        records = self.store.read(stream)
        game = self.service.loader.fold(game_id, records)
        if not game.over:
            self.store.remove_due(game_id)  # it is noted again when it ends
            return "skipped"
        ended = max((r.event["at"] for r in records if (r.event.get("after") or {}).get("status") == FINISHED),
                    default=records[-1].event["at"])
        signed = self.service.logs.export(game, EVERYONE)
        self.store.archive.store_game(game_id, game.table.game_type, datetime.fromtimestamp(_epoch(ended), UTC),
                                      signed, records)
        if not self._read_past(records[-1].partition, max(r.position for r in records)):
            return "waiting"
        if not self.store.drop_archived(records, [GameLoader.snapshot_schema(game.rules)]):
            log.warning("game %s was appended to while it was archived; it stays in Redis", game_id)
            self.store.remove_due(game_id)
            return "skipped"
        self.service.loader.forget(game_id)
        self.store.remove_due(game_id)
        return "archived"

    def compact(self) -> int:
        """Let Redis's log go where every reader has read past it, keeping the newest
        ``log_kept`` entries of each partition (a reader that falls behind reads them from Redis);
        what goes is in the archive first (``ArchivedRedisStore.compact_log``). The entries let go."""
        checkpoints = self.store.load_checkpoints_many(self.projections)
        if any(c is None for c in checkpoints.values()):
            return 0  # a read model being rebuilt: it reads the log from the start
        followed = self.store.followed()
        let_go = 0
        for partition, head in self.store.log_heads().items():
            read = min([followed.get(partition, 0), *(c.get(partition, 0) for c in checkpoints.values() if c)])
            upto = min(read - 1, head - self.log_kept)  # the entry at a checkpoint stays: a reader checks it
            if upto > 0:
                let_go += self.store.compact_log(partition, upto)
        return let_go

    def _read_past(self, partition: int, position: int) -> bool:
        """Have every read model and the follower read ``partition``'s log past ``position``?
        (A read model being rebuilt has no checkpoint: it has not.)"""
        checkpoints = self.store.load_checkpoints_many(self.projections)
        if any(c is None or c.get(partition, 0) < position for c in checkpoints.values()):
            return False
        return self.store.followed().get(partition, 0) >= position


def archiver_for(service: Any, config: Any) -> Archiver:
    return Archiver(service, config.archive_after, service.read_models.runner.names,
                    pause=config.archive_pause, lock_ttl=config.projection_lock_ttl, log_kept=config.log_kept)


def request_archive(connection: Any, config: Any) -> bool:
    """Enqueue a run on the projections' lane, at most once per ``archive_every`` seconds across
    the deployment's workers (a flag with that TTL); a run that meets another one's lock ends at
    once. False: one was asked for within the interval."""
    from rq import Queue

    if not connection.set(f"{config.redis_prefix}:archive:requested", 1, nx=True,
                          ex=max(1, int(config.archive_every))):
        return False
    Queue(config.lane_queue("projections"), connection=connection).enqueue(
        "service.running.archiving.archive_job", job_timeout=JOB_TIMEOUT, result_ttl=600, failure_ttl=86400,
        description="archive the games finished longer ago than the retention period")
    return True


def archive_job() -> dict[str, int]:
    """The RQ job (the projections' lane): one run on the worker's game service."""
    from service.background import job_runtime
    from service.running.lane_jobs import the_service

    return archiver_for(the_service(), job_runtime.config()).run()
