"""One store poll per process for every live stream of that process.

A ``LiveHub`` keeps, for each game stream someone follows, the set of its subscribers.
One background thread (a greenlet under gevent) polls the store every ``poll`` seconds:
one round trip for the heads of every log partition, then one read of each partition
that moved. It groups the new log entries by stream, loads each followed game once (for
its status: everything is revealed once it is over) and hands the batch to every
subscriber of that stream through its queue. So the cost of an open stream is a socket,
a greenlet and a queue, not a query: 5,000 streams cost one poll, whatever game they
watch.

The hub reads the global log, so it sees appends made by any process, on SQLite and on
Redis (also a Redis Cluster: the partitions are read one by one). The log carries each
event's body, so nothing more is read. Messages are encoded once per viewer (a seat, or
a spectator) and batch, and shared by the subscribers with that viewer.

A subscriber first subscribes, then reads its backlog from its stream (``after`` its
last event), then takes batches from its queue and skips any version it already sent, so
an event appended between the two reads is neither lost nor sent twice.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from service.adapters.store import LogRecorder, Recorded

log = logging.getLogger(__name__)

#: subscribers woken at once; then the hub pauses a millisecond so other requests get a turn
FANOUT_CHUNK = 50


@dataclass
class Batch:
    """New events of one stream, with what every subscriber of it needs to show them."""

    stream: str
    records: list[Recorded]
    game: Any  # the game as loaded after these events (its status and seats)
    _encoded: dict[Any, Any] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def encoded(self, viewer: Any, encode: Callable[[Recorded, Any], Any]) -> list[tuple[int, Any]]:
        """``(version, encode(record, viewer))`` per record, computed once per viewer."""
        with self._lock:
            found = self._encoded.get(viewer)
            if found is None:
                found = self._encoded[viewer] = [(r.version, encode(r, viewer)) for r in self.records]
            return found


class Subscriber:
    def __init__(self, hub: LiveHub, stream: str):
        self.hub = hub
        self.stream = stream
        self.queue: queue.Queue[Batch] = queue.Queue()

    def get(self, timeout: float) -> Batch | None:
        try:
            return self.queue.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None

    def close(self) -> None:
        self.hub.unsubscribe(self)


class LiveHub:
    def __init__(self, store: LogRecorder, load: Callable[[str], Any], poll: float = 0.2, batch: int = 1000):
        """``load(stream)``: the game of a stream, loaded once per batch for all its subscribers."""
        self.store = store
        self.load = load
        self.poll = poll
        self.batch = batch
        self._subscribers: dict[str, set[Subscriber]] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._positions: dict[int, int] | None = None

    @property
    def open_streams(self) -> int:
        with self._lock:
            return sum(len(s) for s in self._subscribers.values())

    def subscribe(self, stream: str) -> Subscriber:
        subscriber = Subscriber(self, stream)
        with self._lock:
            if self._positions is None:  # the first subscriber: follow the log from here on
                self._positions = self.store.log_heads()
            self._subscribers.setdefault(stream, set()).add(subscriber)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="live-hub", daemon=True)
                self._thread.start()
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        with self._lock:
            found = self._subscribers.get(subscriber.stream)
            if found is not None:
                found.discard(subscriber)
                if not found:
                    del self._subscribers[subscriber.stream]

    def _loop(self) -> None:
        while True:
            time.sleep(self.poll)
            try:
                self.poll_once()
            except Exception:  # a store outage: streams wait, the next poll tries again
                log.exception("the live hub could not poll the store")

    def poll_once(self) -> None:
        with self._lock:
            if not self._subscribers:
                self._positions = None  # nobody listens: the next subscriber starts from the heads
                return
            positions = dict(self._positions or {})
        heads = self.store.log_heads()
        by_stream: dict[str, list[Recorded]] = {}
        for partition, head in heads.items():
            after = positions.get(partition, head)
            while after < head:
                records = self.store.read_log(partition, after, self.batch)
                if not records:
                    break
                for record in records:
                    by_stream.setdefault(record.stream, []).append(record)
                after = records[-1].position
            positions[partition] = max(after, positions.get(partition, 0))
        with self._lock:
            self._positions = positions
            wanted = {stream: list(self._subscribers.get(stream, ())) for stream in by_stream}
        for stream, subscribers in wanted.items():
            if not subscribers:
                continue
            records = sorted(by_stream[stream], key=lambda r: r.version)
            try:
                game = self.load(stream)
            except Exception:
                log.exception("the live hub could not load %s", stream)
                continue
            batch = Batch(stream, records, game)
            for number, subscriber in enumerate(subscribers, start=1):
                subscriber.queue.put(batch)
                if number % FANOUT_CHUNK == 0:
                    # let the woken streams write, and the event loop look at its sockets, before
                    # waking more: a request that arrives meanwhile waits for one chunk, not for all
                    time.sleep(0.001)
