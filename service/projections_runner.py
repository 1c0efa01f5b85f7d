"""The projection runner: tails the global log and keeps each read model up to date.

A read model is stored per row (``projections.base.Projection``; ``EventStore.save_rows``).
For one projection a catch-up does:

1. load the stored checkpoints (the position of the last event applied, per log partition);
2. read every partition after its checkpoint in batches and apply the events in order,
   each to tables that load a row from the store the first time it is touched and keep
   it; partitions are merged by the time of the append, so a rebuild applies events in
   about the order they happened (projections do not depend on it, see
   ``projections.scoreboard``; it only keeps re-rating rare);
3. save the rows that changed, their index entries and the new checkpoints together, with
   a compare-and-set on the checkpoints it loaded, every ``save_every`` events and at the end.

A save is one atomic write, so a crash anywhere loses at most the work since the last
save, and that work is redone from the old checkpoint: an event is never applied twice to
a stored model nor skipped. If another runner saved first (the compare-and-set fails with
``CheckpointMoved``), this one drops its work and its cached rows, reloads and continues
from the other's checkpoint. Any number of runners may therefore run at once (in several
processes, or a rebuild beside the workers); they converge on the same model.

What one event costs is the rows it touches (a game's row, its players' rows), whatever
the size of the model. A runner keeps the rows it saved last in a bounded in-memory cache
(``row_cache`` rows per projection), valid while the stored checkpoints are the ones it
saved: a catch-up that finds other checkpoints drops the cache first. So a warm runner
reads nothing but the log and the checkpoints.
"""

from __future__ import annotations

import fcntl
import heapq
import logging
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from typing import Any

from projections import PROJECTIONS, Projection, envelope
from projections.base import indexes_of
from service.adapters.codec import dumps, loads
from service.adapters.store import CheckpointMoved, EventStore, IndexWrite, Recorded, RowWrite
from service.errors import NotFound

log = logging.getLogger(__name__)

#: how often a catch-up starts over after another runner saved first, before giving up
MAX_RELOADS = 20

#: ``progress(applied, total)``: events applied so far and (an estimate of) how many in all
Progress = Callable[[int, int], None]

_ABSENT = object()


class RowCache:
    """Rows as last saved by this runner (JSON bytes, or None for "no row"), least recently used out."""

    def __init__(self, size: int):
        self.size = size
        self.rows: OrderedDict[tuple[str, str], bytes | None] = OrderedDict()
        self.checkpoints: dict[int, int] | None = None  # what the cached rows are valid for

    def get(self, table: str, key: str) -> Any:
        found = self.rows.get((table, key), _ABSENT)
        if found is not _ABSENT:
            self.rows.move_to_end((table, key))
        return found

    def put(self, table: str, key: str, raw: bytes | None) -> None:
        self.rows[(table, key)] = raw
        self.rows.move_to_end((table, key))
        while len(self.rows) > self.size:
            self.rows.popitem(last=False)

    def clear(self) -> None:
        self.rows.clear()
        self.checkpoints = None


class Session:
    """The rows of one projection touched since the last save, and the tables ``apply`` sees."""

    def __init__(self, store: EventStore, projection: Projection, cache: RowCache):
        self.store = store
        self.projection = projection
        self.cache = cache
        self.tables = {name: StoredTable(self, name) for name in projection.initial()}
        self.model: dict[str, Any] = dict(self.tables)

    def changes(self) -> tuple[list[RowWrite], list[IndexWrite], list[tuple[str, str, bytes | None]]]:
        rows: list[RowWrite] = []
        index: list[IndexWrite] = []
        cached: list[tuple[str, str, bytes | None]] = []
        for table in self.tables.values():
            for key, (raw, before) in table.loaded.items():
                row = table.rows.get(key)
                new = None if row is None else dumps(row)
                cached.append((table.name, key, new))
                if new == raw:
                    continue
                rows.append((table.name, key, new))
                after = {} if row is None else indexes_of(self.projection, table.name, key, row)
                for idx, score in after.items():
                    if before.get(idx) != score:
                        index.append((idx, key, score))
                index.extend((idx, key, None) for idx in before if idx not in after)
        return rows, index, cached

    def saved(self, cached: list[tuple[str, str, bytes | None]]) -> None:
        """After a successful save: the touched rows become the cache's; start afresh."""
        for table, key, raw in cached:
            self.cache.put(table, key, raw)
        for stored in self.tables.values():
            stored.reset()


class StoredTable(MutableMapping):
    """One table of a stored read model as ``apply`` sees it: a dict whose rows load on first
    access. Every row handed out counts as touched (``apply`` may change it in place) and is
    compared with what was stored when the session saves. A table cannot be iterated (that
    would read it whole); ``scan`` walks an index instead."""

    def __init__(self, session: Session, name: str):
        self.session = session
        self.name = name
        self.reset()

    def reset(self) -> None:
        self.rows: dict[str, Any] = {}  # key -> row now (None: no row)
        self.loaded: dict[str, tuple[bytes | None, dict[str, float]]] = {}  # key -> (stored, its indexes)

    def _load(self, key: str) -> Any:
        if key in self.rows:
            return self.rows[key]
        session = self.session
        raw = session.cache.get(self.name, key)
        if raw is _ABSENT:
            (raw,) = session.store.get_rows(session.projection.name, self.name, [key])
        row = None if raw is None else loads(raw)
        before = {} if row is None else indexes_of(session.projection, self.name, key, row)
        self.loaded[key] = (raw, before)
        self.rows[key] = row
        return row

    def preload(self, keys: Iterable[str]) -> None:
        """Load many rows with one store read (a scan's rows)."""
        session = self.session
        missing = [k for k in keys if k not in self.rows and session.cache.get(self.name, k) is _ABSENT]
        if missing:
            for key, raw in zip(missing, session.store.get_rows(session.projection.name, self.name, missing),
                                strict=True):
                session.cache.put(self.name, key, raw)

    def __getitem__(self, key: str) -> Any:
        row = self._load(key)
        if row is None:
            raise KeyError(key)
        return row

    def get(self, key: str, default: Any = None) -> Any:
        row = self._load(key)
        return default if row is None else row

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._load(key) is not None

    def __setitem__(self, key: str, row: Any) -> None:
        self._load(key)
        self.rows[key] = row

    def __delitem__(self, key: str) -> None:
        if self._load(key) is None:
            raise KeyError(key)
        self.rows[key] = None

    def __iter__(self) -> Iterator[str]:
        raise TypeError(f"table {self.name!r} of a stored read model cannot be iterated: scan an index")

    def __len__(self) -> int:
        raise TypeError(f"table {self.name!r} of a stored read model has no cheap length: count an index")

    def scan(self, index: str) -> list[str]:
        """The keys in ``index`` by (score, key): the stored order, with this session's
        unsaved changes merged in."""
        session = self.session
        entries = dict(session.store.index_entries(session.projection.name, index))
        for key, (_, before) in self.loaded.items():
            row = self.rows[key]
            after = {} if row is None else indexes_of(session.projection, self.name, key, row)
            if index in after:
                entries[key] = after[index]
            elif index in before:
                entries.pop(key, None)
        keys = sorted(entries, key=lambda k: (entries[k], k))
        self.preload(keys)
        return keys


class ProjectionRunner:
    def __init__(self, store: EventStore, projections: Mapping[str, Projection] | None = None, *,
                 batch_size: int = 1000, save_every: int = 5000, pause: float = 0.0, row_cache: int = 20_000):
        """``batch_size``: events read per request; ``save_every``: events applied between saves
        (a catch-up always saves at its end); ``pause``: seconds to sleep after each save,
        to throttle a rebuild on a busy store; ``row_cache``: rows kept in memory per projection."""
        self.store = store
        self.projections = dict(projections if projections is not None else PROJECTIONS)
        self.batch_size = batch_size
        self.save_every = max(1, save_every)
        self.pause = pause
        self._caches = {name: RowCache(row_cache) for name in self.projections}
        self._saved: dict[str, dict[int, int]] = {}
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
        return {name: self.catch_up(name) for name in self.projections}

    def rebuild(self, name: str, progress: Progress | None = None,
                heartbeat: Callable[[], None] | None = None) -> int:
        """Drop the read model and build it again from position zero, streaming: rows are
        saved every ``save_every`` events, never held all at once."""
        self.projection(name)
        with self._locks[name]:
            self.store.delete_projection(name)
            self._caches[name].clear()
            self._saved.pop(name, None)
        return self.catch_up(name, progress=progress, heartbeat=heartbeat)

    def _run(self, projection: Projection, progress: Progress | None, heartbeat: Callable[[], None] | None,
             limit: int | None) -> int:
        name = projection.name
        cache = self._caches[name]
        previous = self.store.load_checkpoints(name)
        if previous != cache.checkpoints:  # another runner saved since: what we cached is stale
            cache.clear()
        heads = self.store.log_heads()
        checkpoints = {p: (previous or {}).get(p, 0) for p in heads}
        session = Session(self.store, projection, cache)
        total = sum(max(0, heads[p] - checkpoints[p]) for p in heads)
        applied = unsaved = 0
        batch = self.batch_size if limit is None else max(1, min(self.batch_size, limit))
        behind = {p: c for p, c in checkpoints.items() if heads[p] > c}  # only these partitions are read
        for partition, recorded in self._merged(behind, heartbeat, batch):
            projection.apply(session.model, envelope(recorded.stream, recorded.version, recorded.event,
                                                     partition, recorded.position))
            checkpoints[partition] = recorded.position
            applied += 1
            unsaved += 1
            if unsaved >= self.save_every:
                previous = self._save(session, checkpoints, previous)
                unsaved = 0
                if progress:
                    progress(applied, max(total, applied))
                if self.pause:
                    time.sleep(self.pause)
            if limit is not None and applied >= limit:
                break
        if unsaved or previous is None:
            previous = self._save(session, checkpoints, previous)
        self._saved[name] = previous
        if progress:
            progress(applied, max(total, applied))
        return applied

    def _save(self, session: Session, checkpoints: dict[int, int],
              previous: dict[int, int] | None) -> dict[int, int]:
        saved = dict(checkpoints)
        rows, index, cached = session.changes()
        self.store.save_rows(session.projection.name, saved, previous, rows, index)
        session.saved(cached)
        session.cache.checkpoints = saved
        return saved

    def _merged(self, checkpoints: dict[int, int], heartbeat: Callable[[], None] | None,
                batch_size: int | None = None) -> Iterable[tuple[int, Recorded]]:
        """Every partition's events after its checkpoint, each partition in its own order,
        interleaved by append time (ties: lower partition first)."""
        batch_size = batch_size or self.batch_size
        buffers: dict[int, deque[Recorded]] = {}
        read_to = dict(checkpoints)
        done: set[int] = set()

        def refill(partition: int) -> None:
            batch = self.store.read_log(partition, read_to[partition], batch_size)
            if batch:
                buffers[partition] = deque(batch)
                read_to[partition] = batch[-1].position
            else:
                done.add(partition)
            if heartbeat:
                heartbeat()

        heads: list[tuple[str, int]] = []
        for partition in checkpoints:
            refill(partition)
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
        return sum(max(0, head - saved.get(p, 0)) for p, head in self.heads().items())

    def status(self, name: str, heads: dict[int, int] | None = None) -> dict[str, Any]:
        """Checkpoint, log head and lag per partition, and the total lag."""
        self.projection(name)
        heads = heads if heads is not None else self.heads()
        checkpoints = self.store.load_checkpoints(name) or {}
        rows = [{"partition": p, "checkpoint": checkpoints.get(p, 0), "head": head,
                 "lag": max(0, head - checkpoints.get(p, 0))} for p, head in sorted(heads.items())]
        return {"name": name, "lag": sum(r["lag"] for r in rows), "partitions": rows}

    def status_all(self) -> list[dict[str, Any]]:
        heads = self.heads()
        return [self.status(name, heads) for name in self.projections]


def _at(recorded: Recorded) -> str:
    return recorded.event.get("at") or ""


#: events an inline catch-up applies before it saves and yields to other requests
INLINE_SLICE = 100


class InlineProjections:
    """``after_append`` for the embedded mode: projections catch up in-process, off the
    command's path.

    An append only wakes a background thread (a greenlet under gevent), which waits
    ``delay`` seconds (so a burst of appends is applied together) and catches every
    projection up in slices of ``slice`` events: each slice is applied and saved, then
    the thread yields (``time.sleep(0)``), so a request that arrives meanwhile waits for
    one slice at most, never for a whole backlog. Readers apply a few pending events
    themselves before reading (``ReadModels``), so a client still sees its own writes.

    A projection that fails is logged and left where it was: the append has happened and
    the command succeeded; the next catch-up (or ``python -m service rebuild``) retries.
    """

    def __init__(self, runner: ProjectionRunner, delay: float = 0.1, background: bool = True,
                 slice: int = INLINE_SLICE, lock_path: str | None = None):
        """``lock_path``: a file every process of one SQLite store locks (``flock``) around
        its background catch-up, so that one process at a time does it instead of all of
        them racing for the same compare-and-set; a process that finds it taken tries
        again after ``delay``."""
        self.runner = runner
        self.delay = delay
        self.slice = max(1, slice)
        self.lock_path = lock_path
        self.background = background  # False: catch up in the appender's thread (tests, tools)
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()

    def __call__(self, stream: str) -> None:
        if not self.background:
            self.flush()
            return
        self._wake.set()
        if self._thread is None:
            with self._start_lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._loop, name="projections", daemon=True)
                    self._thread.start()

    def flush(self) -> None:
        """Catch every projection up now, in the caller's thread, a slice at a time."""
        for name in self.runner.names:
            try:
                while self.runner.catch_up(name, limit=self.slice) >= self.slice:
                    time.sleep(0)  # let other requests (greenlets, threads) run between slices
            except Exception:  # a read model must never fail a command that was stored
                log.exception("projection %s failed to catch up", name)
            time.sleep(0)

    def _loop(self) -> None:
        while True:
            self._wake.wait()
            time.sleep(self.delay)
            self._wake.clear()
            if self.lock_path is None:
                self.flush()
                continue
            with open(self.lock_path, "a") as handle:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:  # another process is catching up: look again shortly
                    self._wake.set()
                    continue
                try:
                    self.flush()
                finally:
                    fcntl.flock(handle, fcntl.LOCK_UN)
