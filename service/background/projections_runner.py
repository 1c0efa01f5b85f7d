"""The projection runner: tails the global log and keeps each read model up to date.

A read model is stored per row (``projections.base.Projection``; ``ProjectionRecorder.save_rows``).
For one projection a catch-up does:

1. load the stored checkpoints (the position of the last event applied, per log partition);
2. read every partition after its checkpoint in batches and apply the events in order,
   each to tables that load a row from the store the first time it is touched and keep
   it; partitions are merged by the time of the append, so a rebuild applies events in
   about the order they happened (projections do not depend on it, see
   ``projections.scoreboard``; it only keeps re-rating rare);
3. save the rows that changed, their index entries and the new checkpoints together, with
   a compare-and-set on the checkpoints it loaded, every ``save_every`` events and at the end.

A store can go back in time (a Redis failover to a replica that lacked the last writes,
a restore from an older backup), leaving a checkpoint past what the log now holds: the
model then holds events that are gone, and new events would take the positions it
believes applied. A catch-up notices both: a checkpoint ahead of its log head, and a log
entry at a checkpoint's position that is not the one applied there (each save keeps, in
the model's ``_tail`` table, a digest of the entry at each checkpoint; the first read of
a partition starts one entry early to compare it, at no extra round trip). Either way the
fact is logged and the model rebuilt from position zero, never skipping an event. A digest
that does not match is believed only while the stored checkpoints are still the ones read:
another runner that saved between the two reads left digests of later positions, which is
a ``CheckpointMoved`` (reload and go on), not a store gone back.

A save is one atomic write, so a crash anywhere loses at most the work since the last
save, and that work is redone from the old checkpoint: an event is never applied twice to
a stored model nor skipped. If another runner saved first (the compare-and-set fails with
``CheckpointMoved``), this one drops its work and its cached rows, reloads and continues
from the other's checkpoint. Any number of runners may therefore run at once (in several
processes, or a rebuild beside the workers); they converge on the same model.

What one event costs is the rows it touches (a game's row, its players' rows), whatever
the size of the model. A runner keeps the rows it saved last in a bounded in-memory cache
(``row_cache`` rows and ``row_cache_bytes`` bytes per projection), valid while the stored checkpoints are the ones it
saved: a catch-up that finds other checkpoints drops the cache first. So a warm runner
reads nothing but the log and the checkpoints.
"""

from __future__ import annotations

import heapq
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from projections import PROJECTIONS, Projection, envelope
from projections.base import wants
from service.adapters.codec import digest, dumps, loads
from service.adapters.store import CheckpointMoved, ReadModelStore, Recorded, RowsSave
from service.background.stored_tables import RowCache, Session
from service.base.errors import NotFound

log = logging.getLogger(__name__)

#: how often a catch-up starts over after another runner saved first, before giving up
MAX_RELOADS = 20

#: ``progress(applied, total)``: events applied so far and (an estimate of) how many in all
Progress = Callable[[int, int], None]

#: the table of each model that keeps, per partition, the digest of the log entry at its checkpoint
TAIL = "_tail"


class LogWentBack(Exception):
    """The log no longer holds, at a checkpoint's position, the entry the model applied there."""


def _entry_digest(recorded: Recorded) -> str:
    return digest([recorded.stream, recorded.version, recorded.event])


def _take_digests(tails: dict[int, str], last: dict[int, Recorded]) -> None:
    """The digest of each partition's last applied entry into ``tails`` (what a save keeps)."""
    tails.update({partition: _entry_digest(recorded) for partition, recorded in last.items()})
    last.clear()


class ProjectionRunner:
    def __init__(self, store: ReadModelStore, projections: Mapping[str, Projection] | None = None, *,
                 batch_size: int = 1000, save_every: int = 5000, pause: float = 0.0, row_cache: int = 20_000,
                 row_cache_bytes: int = 4 * 2**20):
        """``batch_size``: events read per request; ``save_every``: events applied between saves
        (a catch-up always saves at its end); ``pause``: seconds to sleep after each save,
        to throttle a rebuild on a busy store; ``row_cache``, ``row_cache_bytes``: rows kept in memory per projection, at most so many
        and so many bytes (the bytes bound keeps a long-running worker's memory flat)."""
        self.store = store
        self.projections = dict(projections if projections is not None else PROJECTIONS)
        self.batch_size = batch_size
        self.save_every = max(1, save_every)
        self.pause = pause
        self._caches = {name: RowCache(row_cache, row_cache_bytes) for name in self.projections}
        self._saved: dict[str, dict[int, int]] = {}
        #: per projection, the digests of the entries at the checkpoints this runner saved last
        self._tails: dict[str, dict[int, str]] = {}
        self._locks = {name: threading.Lock() for name in self.projections}

    @property
    def names(self) -> list[str]:
        return list(self.projections)

    def projection(self, name: str) -> Projection:
        try:
            return self.projections[name]
        except KeyError:
            raise NotFound(f"no projection named {name!r}; projections: {', '.join(self.projections)}") from None

    # -- keeping up ------------------------------------------------------------------
    def catch_up(self, name: str, *, progress: Progress | None = None,
                 heartbeat: Callable[[], None] | None = None, limit: int | None = None) -> int:
        """Apply every event after the stored checkpoints (at most about ``limit``, then save
        and stop); returns how many were applied."""
        projection = self.projection(name)
        with self._locks[name]:
            for _ in range(MAX_RELOADS):
                try:
                    return self._run(projection, progress, heartbeat, limit)
                except CheckpointMoved:
                    log.info("projection %s: another runner saved first; reloading", name)
                    self._caches[name].clear()
                    continue
        raise CheckpointMoved(f"{name}: gave up after {MAX_RELOADS} reloads; another runner keeps winning")

    def catch_up_all(self) -> dict[str, int]:
        return self.catch_up_together()

    def catch_up_together(self, names: Iterable[str] | None = None, *, heads: Mapping[int, int] | None = None,
                          slice: int | None = None, heartbeat: Callable[[], None] | None = None) -> dict[str, int]:
        """Catch ``names`` (every projection by default) up to the log's heads with one read
        of the log for all of them: each entry is read, decoded and enveloped once and handed
        to every projection that has not applied it yet; the models are saved together
        (``save_many``) every ``slice`` entries (``save_every`` by default) and at the end.
        Returns the events applied per projection.

        ``heads``: the heads read just before, if the caller has them (the catch-up goes no
        further; read afresh if any checkpoint looks ahead of them). This is the steady
        state's path (the tailer, the projector); whatever it does not handle, it leaves to
        ``catch_up``, one projection at a time, which handles everything: a projection whose
        checkpoints are ahead of the heads or that another runner saved meanwhile, a log
        that went back in time, an ``apply`` that failed (every projection still gets its
        own catch-up; the first error is raised after them)."""
        wanted = set(self.projections) if names is None else {self.projection(n).name for n in names}
        ordered = [name for name in self.projections if name in wanted]  # one lock order for every caller
        applied = {name: 0 for name in ordered}
        alone = ordered
        for name in ordered:
            self._locks[name].acquire()
        try:
            alone = self._run_together(ordered, heads, max(1, slice or self.save_every), heartbeat, applied)
        except (LogWentBack, CheckpointMoved):
            pass  # left to the one-by-one path, which tells a store gone back from another runner
        except Exception:
            log.exception("projections %s: a joint catch-up failed; catching up one by one", ", ".join(ordered))
        finally:
            for name in reversed(ordered):
                self._locks[name].release()
        failure: Exception | None = None
        for name in alone:
            try:
                applied[name] += self.catch_up(name, heartbeat=heartbeat)
            except Exception as exc:  # the others still catch up
                failure = failure or exc
        if failure is not None:
            raise failure
        return applied

    def _run_together(self, names: list[str], heads: Mapping[int, int] | None, slice: int,
                      heartbeat: Callable[[], None] | None, applied: dict[str, int]) -> list[str]:
        """``catch_up_together``'s work, under the caller's locks; returns the projections left
        to ``catch_up``. Raises ``LogWentBack`` (nothing saved since the last slice)."""
        loaded = self.store.load_checkpoints_many(names)
        if heads is None:
            heads = self.store.log_heads()
        members: list[_Member] = []
        alone: list[str] = []
        for name in names:
            previous = loaded[name]
            cache = self._caches[name]
            if previous != cache.checkpoints:  # another runner saved since: what we cached is stale
                cache.clear()
                self._tails.pop(name, None)
            checkpoints = {p: (previous or {}).get(p, 0) for p in heads}
            if any(c > heads[p] for p, c in checkpoints.items()):  # ahead (or heads read before a save)
                alone.append(name)
                continue
            behind = {p: c for p, c in checkpoints.items() if heads[p] > c}
            members.append(_Member(self.projections[name], Session(self.store, self.projections[name], cache),
                                   previous, checkpoints, dict(self._expected_tails(name, behind))))
        # each partition is read from the lowest checkpoint (the entry at a checkpoint too, to check its digest)
        starts: dict[int, int] = {}
        for member in members:
            for p, c in member.checkpoints.items():
                if heads[p] > c:
                    start = c - 1 if p in member.verify else c
                    starts[p] = min(start, starts.get(p, start))
        unsaved = 0
        for partition, recorded in self._merged(starts, heartbeat, until=heads):
            body: dict[str, Any] | None = None
            for member in members:
                if not member.takes(partition, recorded):
                    continue
                member.unsaved += 1
                if not wants(member.projection, recorded.event):  # nothing to apply: no envelope either
                    continue
                if body is None:  # built once, handed to every projection (``apply`` never changes it)
                    body = envelope(recorded.stream, recorded.version, recorded.event, partition, recorded.position)
                member.projection.apply(member.session.model, body)
            unsaved += 1
            if unsaved >= slice:
                members = self._save_together(members, alone, applied)
                unsaved = 0
        for member in members:
            if member.verify:  # a partition that no longer reaches the entry at its checkpoint
                raise LogWentBack(f"partition {min(member.verify)} no longer holds at position "
                                  f"{member.verify[min(member.verify)][0]} the entry applied there")
        self._save_together(members, alone, applied, final=True)
        return alone

    def _save_together(self, members: list[_Member], alone: list[str], applied: dict[str, int],
                       final: bool = False) -> list[_Member]:
        """Save every member that applied something (at the end: or was never saved) in one
        ``save_many``, counting what was saved in ``applied``; a member another runner saved
        meanwhile goes to ``alone``. Returns the members that go on."""
        saves: list[tuple[_Member, RowsSave, list[tuple[str, str, bytes | None]]]] = []
        for member in members:
            if not member.last and not (final and member.previous is None):
                continue
            name = member.projection.name
            tails = self._tails.setdefault(name, {})
            _take_digests(tails, member.last)
            save, cached = self._changes(member.session, member.checkpoints, member.previous)
            saves.append((member, save, cached))
        moved = self.store.save_many([save for _, save, _ in saves]) if saves else set()
        for member, save, cached in saves:
            name = member.projection.name
            if name in moved:
                log.info("projection %s: another runner saved first; catching it up on its own", name)
                self._caches[name].clear()
                self._tails.pop(name, None)
                alone.append(name)
                continue
            self._saved_rows(member.session, cached, save.checkpoints)
            member.previous = save.checkpoints
            applied[name] += member.unsaved
            member.unsaved = 0
        if final:
            for member in members:
                if member.projection.name not in moved and member.previous is not None:
                    self._saved[member.projection.name] = member.previous
        return [member for member in members if member.projection.name not in moved]

    def rebuild(self, name: str, progress: Progress | None = None,
                heartbeat: Callable[[], None] | None = None) -> int:
        """Drop the read model and build it again from position zero, streaming: rows are
        saved every ``save_every`` events, never held all at once."""
        self.projection(name)
        with self._locks[name]:
            self._drop(name)
        return self.catch_up(name, progress=progress, heartbeat=heartbeat)

    def _drop(self, name: str) -> None:
        self.store.delete_projection(name)
        self._caches[name].clear()
        self._saved.pop(name, None)
        self._tails.pop(name, None)

    def _run(self, projection: Projection, progress: Progress | None, heartbeat: Callable[[], None] | None,
             limit: int | None) -> int:
        name = projection.name
        cache = self._caches[name]
        previous = loaded = self.store.load_checkpoints(name)
        if previous != cache.checkpoints:  # another runner saved since: what we cached is stale
            cache.clear()
            self._tails.pop(name, None)
        heads = self.store.log_heads()
        checkpoints = {p: (previous or {}).get(p, 0) for p in heads}
        ahead = {p: (c, heads[p]) for p, c in checkpoints.items() if c > heads[p]}
        if ahead:
            log.warning("projection %s: checkpoints ahead of the log (partition: (checkpoint, head)) %s: the "
                        "store went back in time; rebuilding the projection from the log", name, ahead)
            self._drop(name)
            return self._run(projection, progress, heartbeat, limit)
        session = Session(self.store, projection, cache)
        total = sum(max(0, heads[p] - checkpoints[p]) for p in heads)
        applied = unsaved = 0
        batch = self.batch_size if limit is None else max(1, min(self.batch_size, limit))
        behind = {p: c for p, c in checkpoints.items() if heads[p] > c}  # only these partitions are read
        tails = self._tails.setdefault(name, {})
        last: dict[int, Recorded] = {}  # per partition, the entry applied last (its digest is taken at a save)
        try:
            merged = self._merged(behind, heartbeat, batch, self._expected_tails(name, behind), until=heads)
            for partition, recorded in merged:
                if wants(projection, recorded.event):
                    projection.apply(session.model, envelope(recorded.stream, recorded.version, recorded.event,
                                                             partition, recorded.position))
                checkpoints[partition] = recorded.position
                last[partition] = recorded
                applied += 1
                unsaved += 1
                if unsaved >= self.save_every:
                    _take_digests(tails, last)
                    previous = self._save(session, checkpoints, previous)
                    unsaved = 0
                    if progress:
                        progress(applied, max(total, applied))
                    if self.pause:
                        time.sleep(self.pause)
                if limit is not None and applied >= limit:
                    break
        except LogWentBack as gone:
            # the checkpoints and the digests at them are two reads: another runner that saved
            # between them left digests of later positions, which is no sign of a store gone back
            if self.store.load_checkpoints(name) != loaded:
                raise CheckpointMoved(f"{name}: another runner saved while this one read its checkpoints") from gone
            log.warning("projection %s: %s: the store went back in time; rebuilding the projection from the log",
                        name, gone)
            self._drop(name)
            return self._run(projection, progress, heartbeat, limit)
        _take_digests(tails, last)
        if unsaved or previous is None:
            previous = self._save(session, checkpoints, previous)
        self._saved[name] = previous
        if progress:
            progress(applied, max(total, applied))
        return applied

    def _expected_tails(self, name: str, behind: dict[int, int]) -> dict[int, tuple[int, str]]:
        """Per partition to read: its checkpoint and the digest of the entry applied there
        (from this runner's last save, else from the model's ``_tail`` table)."""
        known = self._tails.get(name, {})
        wanted = [p for p, c in behind.items() if c > 0 and p not in known]
        if wanted:
            for p, raw in zip(wanted, self.store.get_rows(name, TAIL, [str(p) for p in wanted]), strict=True):
                if raw is not None:
                    known[p] = loads(raw)
        return {p: (c, known[p]) for p, c in behind.items() if c > 0 and p in known}

    def _save(self, session: Session, checkpoints: dict[int, int],
              previous: dict[int, int] | None) -> dict[int, int]:
        save, cached = self._changes(session, checkpoints, previous)
        self.store.save_rows(save.name, save.checkpoints, save.previous, save.rows, save.index)
        self._saved_rows(session, cached, save.checkpoints)
        return save.checkpoints

    def _changes(self, session: Session, checkpoints: dict[int, int],
                 previous: dict[int, int] | None) -> tuple[RowsSave, list[tuple[str, str, bytes | None]]]:
        """What saving ``session`` at ``checkpoints`` writes (the rows that changed, the digests
        at the checkpoints that moved), and the rows to cache once it is saved."""
        saved = dict(checkpoints)
        rows, index, cached = session.changes()
        tails = self._tails.get(session.projection.name, {})
        rows = [*rows, *((TAIL, str(p), dumps(tails[p])) for p, position in saved.items()
                         if position != (previous or {}).get(p, 0) and p in tails)]
        return RowsSave(session.projection.name, saved, previous, rows, index), cached

    @staticmethod
    def _saved_rows(session: Session, cached: list[tuple[str, str, bytes | None]], saved: dict[int, int]) -> None:
        session.saved(cached)
        session.cache.checkpoints = saved

    def _merged(self, checkpoints: dict[int, int], heartbeat: Callable[[], None] | None,
                batch_size: int | None = None, verify: Mapping[int, tuple[int, str]] | None = None,
                until: Mapping[int, int] | None = None) -> Iterable[tuple[int, Recorded]]:
        """Every partition's events after its checkpoint, each partition in its own order,
        interleaved by append time (ties: lower partition first). ``verify``: per partition,
        the checkpoint and the digest of the entry there; the first read starts at it and
        raises ``LogWentBack`` if the log holds something else. ``until``: per partition, the
        head read before: a partition is read up to it and no further (what came after is the
        next catch-up's), which saves a read that finds nothing per partition and round."""
        batch_size = batch_size or self.batch_size
        buffers: dict[int, deque[Recorded]] = {}
        read_to = dict(checkpoints)
        done: set[int] = set()
        unverified = dict(verify or {})

        def size_of(partition: int) -> int:
            if until is None:
                return batch_size
            return min(batch_size, until.get(partition, 0) - read_to[partition])

        def refill(partition: int, read: list[Recorded] | None = None) -> None:
            size = size_of(partition)
            if size <= 0:
                done.add(partition)
                return
            check = unverified.pop(partition, None)
            if read is not None:  # read already, with the other partitions' first reads
                batch = read
            elif check is None:
                batch = self.store.read_log(partition, read_to[partition], size)
            else:
                position, expected = check
                batch = self.store.read_log(partition, position - 1, size + 1)
                if not batch or batch[0].position != position or _entry_digest(batch[0]) != expected:
                    raise LogWentBack(f"partition {partition} no longer holds at position {position} the "
                                      f"entry applied there")
                batch = batch[1:]
            if batch:
                buffers[partition] = deque(batch)
                read_to[partition] = batch[-1].position
            else:
                done.add(partition)
            if heartbeat:
                heartbeat()

        # the first read of every partition that needs no digest check goes in one request
        first = self.store.read_logs({p: (read_to[p], size_of(p)) for p in checkpoints
                                      if p not in unverified and size_of(p) > 0})
        heads: list[tuple[str, int]] = []
        for partition in checkpoints:
            refill(partition, first.get(partition))
            if partition not in done:
                heads.append((_at(buffers[partition][0]), partition))
        heapq.heapify(heads)
        while heads:
            _, partition = heapq.heappop(heads)
            buffer = buffers[partition]
            yield partition, buffer.popleft()
            if not buffer:
                refill(partition)
            if partition not in done:
                heapq.heappush(heads, (_at(buffers[partition][0]), partition))

    # -- looking -----------------------------------------------------------------------
    def replay(self, name: str) -> dict[str, Any]:
        """The model folded from position zero, in memory only (nothing is saved)."""
        projection = self.projection(name)
        model = projection.initial()
        for partition, recorded in self._merged({p: 0 for p in range(self.store.partitions)}, None):
            model = projection.apply(model, envelope(recorded.stream, recorded.version, recorded.event,
                                                     partition, recorded.position))
        return model

    def model(self, name: str) -> dict[str, Any]:
        """The whole stored model as plain dicts (it reads every row: tests and tools only)."""
        projection = self.projection(name)
        return {table: {key: loads(raw) for key, raw in self.store.table_rows(name, table).items()}
                for table in projection.initial()}

    def heads(self) -> dict[int, int]:
        return self.store.log_heads()

    def lag(self, name: str) -> int:
        """Events in the log that the stored model has not applied yet."""
        return self.status(name)["lag"]

    def lag_after_catch_up(self, name: str) -> int:
        """The lag behind the checkpoints of this runner's last complete catch-up (cheap:
        no read of the model); the stored lag if there was none."""
        saved = self._saved.get(name)
        if saved is None:
            return self.lag(name)
        return sum(abs(head - saved.get(p, 0)) for p, head in self.heads().items())  # ahead: rebuild

    def status(self, name: str) -> dict[str, Any]:
        """Checkpoint, log head and lag per partition, and the total lag."""
        self.projection(name)
        return _status(name, self.heads(), self.store.load_checkpoints(name))

    def status_all(self) -> list[dict[str, Any]]:
        """Every projection's ``status``, in two reads of the store (heads, checkpoints): ``GET
        /health`` asks for it, and under gevent each read lets every other request run first."""
        heads = self.heads()
        checkpoints = self.store.load_checkpoints_many(list(self.projections))
        return [_status(name, heads, checkpoints.get(name)) for name in self.projections]


def _status(name: str, heads: dict[int, int], checkpoints: dict[int, int] | None) -> dict[str, Any]:
    saved = checkpoints or {}
    rows = [{"partition": p, "checkpoint": saved.get(p, 0), "head": head, "lag": head - saved.get(p, 0)}
            for p, head in sorted(heads.items())]
    return {"name": name, "lag": sum(r["lag"] for r in rows if r["lag"] > 0),
            "ahead": -sum(r["lag"] for r in rows if r["lag"] < 0), "partitions": rows}


class _Member:
    """One projection in a joint catch-up: its session, checkpoints, and the digests still
    to check (per partition: the checkpoint and the digest of the entry applied there)."""

    def __init__(self, projection: Projection, session: Session, previous: dict[int, int] | None,
                 checkpoints: dict[int, int], verify: dict[int, tuple[int, str]]):
        self.projection = projection
        self.session = session
        self.previous = previous
        self.checkpoints = checkpoints
        self.verify = verify
        self.last: dict[int, Recorded] = {}  # per partition, the entry applied last since the last save
        self.unsaved = 0  # events applied since the last save

    def takes(self, partition: int, recorded: Recorded) -> bool:
        """Is ``recorded`` one to apply (past the checkpoint)? Checks the entry at the
        checkpoint on the way (``LogWentBack`` if the log holds another one there, or
        none)."""
        check = self.verify.get(partition)
        if check is not None:
            position, expected = check
            if recorded.position > position or (recorded.position == position and _entry_digest(recorded) != expected):
                raise LogWentBack(f"partition {partition} no longer holds at position {position} the entry "
                                  f"applied there")
            if recorded.position == position:
                del self.verify[partition]
            return False
        if recorded.position <= self.checkpoints[partition]:
            return False
        self.checkpoints[partition] = recorded.position
        self.last[partition] = recorded
        return True


def _at(recorded: Recorded) -> str:
    return recorded.event.get("at") or ""
