"""The projection runner: tails the global log and keeps each read model up to date.

For one projection a catch-up does:

1. load the stored record: the model and a checkpoint per log partition (the position of
   the last event applied);
2. read every partition after its checkpoint in batches and apply the events in order;
   partitions are merged by the time of the append, so a rebuild applies events in about
   the order they happened (projections do not depend on it, see
   ``projections.scoreboard``; it only keeps re-rating rare);
3. save the model and the checkpoints together with a compare-and-set on the checkpoints
   it loaded (``EventStore.save_projection``).

The model and its checkpoints are one write, so a crash anywhere loses at most the work
since the last save, and that work is redone from the old checkpoint: an event is never
applied twice to a stored model nor skipped. If another runner saved first (the
compare-and-set fails with ``CheckpointMoved``), this one drops its work, reloads and
continues from the other's checkpoint. Any number of runners may therefore run at once
(in several processes, or a rebuild beside the workers); they converge on the same model.

A runner keeps the last model it saved in memory, so the catch-up that follows an append
in the same process reads and applies only the new events; the compare-and-set tells it
when another process has moved the record on.
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
from service.adapters.store import CheckpointMoved, EventStore, ProjectionRecord, Recorded
from service.errors import NotFound

log = logging.getLogger(__name__)

#: how often a catch-up starts over after another runner saved first, before giving up
MAX_RELOADS = 20

#: ``progress(applied, total)``: events applied so far and (an estimate of) how many in all
Progress = Callable[[int, int], None]


class ProjectionRunner:
    def __init__(self, store: EventStore, projections: Mapping[str, Projection] | None = None, *,
                 batch_size: int = 1000, save_every: int = 5000, pause: float = 0.0):
        """``batch_size``: events read per request; ``save_every``: events applied between saves
        (a catch-up always saves at its end); ``pause``: seconds to sleep after each save,
        to throttle a rebuild on a busy store."""
        self.store = store
        self.projections = dict(projections if projections is not None else PROJECTIONS)
        self.batch_size = batch_size
        self.save_every = max(1, save_every)
        self.pause = pause
        self._cache: dict[str, ProjectionRecord] = {}
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
                 heartbeat: Callable[[], None] | None = None) -> int:
        """Apply every event after the stored checkpoints; returns how many were applied."""
        projection = self.projection(name)
        with self._locks[name]:
            for _ in range(MAX_RELOADS):
                record = self._cache.pop(name, None) or self.store.load_projection(name)
                try:
                    return self._run(projection, record, progress, heartbeat)
                except CheckpointMoved:
                    log.info("projection %s: another runner saved first; reloading", name)
                    continue
        raise CheckpointMoved(f"{name}: gave up after {MAX_RELOADS} reloads; another runner keeps winning")

    def catch_up_all(self) -> dict[str, int]:
        return {name: self.catch_up(name) for name in self.projections}

    def rebuild(self, name: str, progress: Progress | None = None,
                heartbeat: Callable[[], None] | None = None) -> int:
        """Drop the read model and build it again from position zero."""
        self.projection(name)
        with self._locks[name]:
            self.store.delete_projection(name)
            self._cache.pop(name, None)
        return self.catch_up(name, progress=progress, heartbeat=heartbeat)

    def _run(self, projection: Projection, record: ProjectionRecord | None, progress: Progress | None,
             heartbeat: Callable[[], None] | None) -> int:
        partitions = range(self.store.partitions)
        previous = dict(record.checkpoints) if record else None
        checkpoints = {p: (previous or {}).get(p, 0) for p in partitions}
        model = record.model if record else projection.initial()
        total = sum(max(0, self.store.log_head(p) - checkpoints[p]) for p in partitions) if progress else 0
        applied = unsaved = 0
        for partition, recorded in self._merged(checkpoints, heartbeat):
            model = projection.apply(model, envelope(recorded.stream, recorded.version, recorded.event,
                                                     partition, recorded.position))
            checkpoints[partition] = recorded.position
            applied += 1
            unsaved += 1
            if unsaved >= self.save_every:
                previous = self._save(projection.name, checkpoints, model, previous)
                unsaved = 0
                if progress:
                    progress(applied, max(total, applied))
                if self.pause:
                    time.sleep(self.pause)
        if unsaved or previous is None:
            previous = self._save(projection.name, checkpoints, model, previous)
        # only a catch-up that ran to its end leaves its model for the next one in this process
        self._cache[projection.name] = ProjectionRecord(previous, model)
        if progress:
            progress(applied, max(total, applied))
        return applied

    def _save(self, name: str, checkpoints: dict[int, int], model: dict[str, Any],
              previous: dict[int, int] | None) -> dict[int, int]:
        saved = dict(checkpoints)
        self.store.save_projection(name, ProjectionRecord(saved, model), previous)
        return saved

    def _merged(self, checkpoints: dict[int, int],
                heartbeat: Callable[[], None] | None) -> Iterable[tuple[int, Recorded]]:
        """Every partition's events after its checkpoint, each partition in its own order,
        interleaved by append time (ties: lower partition first)."""
        buffers: dict[int, deque[Recorded]] = {}
        read_to = dict(checkpoints)
        done: set[int] = set()

        def refill(partition: int) -> None:
            batch = self.store.read_log(partition, read_to[partition], self.batch_size)
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
        """The stored model (the initial one if the projection has never run)."""
        record = self.store.load_projection(name)
        return record.model if record else self.projection(name).initial()

    def heads(self) -> dict[int, int]:
        return {p: self.store.log_head(p) for p in range(self.store.partitions)}

    def lag(self, name: str) -> int:
        """Events in the log that the stored model has not applied yet."""
        return self.status(name)["lag"]

    def lag_after_catch_up(self, name: str) -> int:
        """The lag behind the checkpoints of this runner's last complete catch-up (cheap:
        the model is not loaded); the stored lag if there was none."""
        record = self._cache.get(name)
        if record is None:
            return self.lag(name)
        return sum(max(0, head - record.checkpoints.get(p, 0)) for p, head in self.heads().items())

    def status(self, name: str, heads: dict[int, int] | None = None) -> dict[str, Any]:
        """Checkpoint, log head and lag per partition, and the total lag."""
        self.projection(name)
        heads = heads if heads is not None else self.heads()
        record = self.store.load_projection(name)
        checkpoints = record.checkpoints if record else {}
        rows = [{"partition": p, "checkpoint": checkpoints.get(p, 0), "head": head,
                 "lag": max(0, head - checkpoints.get(p, 0))} for p, head in sorted(heads.items())]
        return {"name": name, "lag": sum(r["lag"] for r in rows), "partitions": rows}

    def status_all(self) -> list[dict[str, Any]]:
        heads = self.heads()
        return [self.status(name, heads) for name in self.projections]


def _at(recorded: Recorded) -> str:
    return recorded.event.get("at") or ""


class InlineProjections:
    """``after_append`` for the embedded mode: projections catch up in-process, off the
    command's path.

    An append only wakes a background thread, which waits ``delay`` seconds (so a burst of
    appends is applied and saved once) and catches every projection up. Readers catch up
    themselves before reading (``ReadModels``), so a client still sees its own writes; the
    thread keeps the stored models close to the log when nobody reads. Saving a model
    writes it whole, so doing it once per burst rather than once per command keeps the
    command latency flat as the lobby grows.

    A projection that fails is logged and left where it was: the append has happened and
    the command succeeded; the next catch-up (or ``python -m service rebuild``) retries.
    """

    def __init__(self, runner: ProjectionRunner, delay: float = 0.1, background: bool = True):
        self.runner = runner
        self.delay = delay
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
        """Catch every projection up now, in the caller's thread."""
        for name in self.runner.names:
            try:
                self.runner.catch_up(name)
            except Exception:  # a read model must never fail a command that was stored
                log.exception("projection %s failed to catch up", name)

    def _loop(self) -> None:
        while True:
            self._wake.wait()
            time.sleep(self.delay)
            self._wake.clear()
            self.flush()
