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

Every ``check_every`` seconds (1) the hub also checks its subscribers, all at once: the
credential each came with (the hash of its token), and the client's connection. The store
keeps a token generation that every rotation and revocation moves: the hub reads it (one
small read) and only when it moved looks up every stream's credential (one store call for
all), besides those of the streams opened since the last check; so a token rotated or
revoked through any process ends its streams within that second. Every stream's socket
stays registered in one ``epoll`` set, polled without waiting (no write): a client that
went away frees its stream, and the stream's slot, within that second even on a game
where nothing happens. A subscriber that fails either is ended: its stream stops.
"""

from __future__ import annotations

import logging
import os
import queue
import select
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from service.adapters.store import LogRecorder, Recorded

log = logging.getLogger(__name__)

#: what an open stream came with: its player's id and the hash of its token
Credential = tuple[str, str]

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
    """One open stream: its queue of batches, the credential it was opened with (None: a
    spectator) and its client's connection (a socket, or None when the server gives none)."""

    def __init__(self, hub: LiveHub, stream: str, credential: Credential | None = None, connection: Any = None):
        self.hub = hub
        self.stream = stream
        self.credential = credential
        self.connection = connection
        self.fd = _fileno(connection)
        #: why the hub ended this stream (``"credential"``, ``"gone"``), or None while it runs
        self.ended: str | None = None
        self.queue: queue.Queue[Batch | None] = queue.Queue()

    def get(self, timeout: float) -> Batch | None:
        try:
            return self.queue.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None

    def end(self, reason: str) -> None:
        if self.ended is None:
            self.ended = reason
            self.queue.put(None)  # wakes the stream, which sees ``ended``

    def close(self) -> None:
        self.hub.unsubscribe(self)


def next_wait(started: float, last_sent: float, heartbeat: float, max_seconds: float | None) -> float | None:
    """How long a stream's next ``Subscriber.get`` may wait: until its next heartbeat is due,
    and no later than its end (``max_seconds`` after ``started``); None once it has ended."""
    now = time.monotonic()
    wait = last_sent + heartbeat - now
    if max_seconds is not None:
        left = started + max_seconds - now
        if left <= 0:
            return None
        wait = min(wait, left)
    return wait


class Credentials(Protocol):
    """What the hub asks of the players' records (``service.players.players.Players``)."""

    def token_generation(self) -> int: ...

    def still_current(self, credentials: set[Credential]) -> set[Credential]: ...


class LiveHub:
    def __init__(self, store: LogRecorder, load: Callable[[str], Any], poll: float = 0.2, batch: int = 1000,
                 credentials: Credentials | None = None, check_every: float = 1.0):
        """``load(stream)``: the game of a stream, loaded once per batch for all its subscribers;
        ``credentials``: whether the streams' tokens still hold."""
        self.store = store
        self.load = load
        self.poll = poll
        self.batch = batch
        self.credentials = credentials
        self.check_every = check_every
        self._checked = time.monotonic()
        self._generation: int | None = None  # the token generation of the last full check
        self._fresh: list[Subscriber] = []  # subscribed since the last check
        self._poller: Any = None  # every subscriber's socket, registered while it is open
        self._poller_pid = 0  # made in the process that polls (a forked child makes its own)
        self._by_fd: dict[int, Subscriber] = {}
        self._subscribers: dict[str, set[Subscriber]] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._positions: dict[int, int] | None = None

    @property
    def open_streams(self) -> int:
        with self._lock:
            return sum(len(s) for s in self._subscribers.values())

    def subscribe(self, stream: str, credential: Credential | None = None, connection: Any = None) -> Subscriber:
        subscriber = Subscriber(self, stream, credential, connection)
        with self._lock:
            if subscriber.fd >= 0:
                if self._poller is None or self._poller_pid != os.getpid():
                    self._poller, self._poller_pid, self._by_fd = _raw_poll()(), os.getpid(), {}
                try:
                    self._poller.register(subscriber.fd, WATCHED)
                except FileExistsError:  # epoll: a descriptor left by a connection closed meanwhile
                    self._poller.modify(subscriber.fd, WATCHED)
                self._by_fd[subscriber.fd] = subscriber
            if credential is not None:
                self._fresh.append(subscriber)
            if self._positions is None:  # the first subscriber: follow the log from here on
                self._positions = self.store.log_heads()
            self._subscribers.setdefault(stream, set()).add(subscriber)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="live-hub", daemon=True)
                self._thread.start()
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        with self._lock:
            if self._by_fd.get(subscriber.fd) is subscriber:
                del self._by_fd[subscriber.fd]
                try:
                    self._poller.unregister(subscriber.fd)
                except (OSError, KeyError):  # closed already (epoll forgot it by itself)
                    pass
            found = self._subscribers.get(subscriber.stream)
            if found is not None:
                found.discard(subscriber)
                if not found:
                    del self._subscribers[subscriber.stream]

    def _loop(self) -> None:
        while True:
            time.sleep(self.poll)
            with self._lock:
                if not self._subscribers:  # nobody listens: the thread ends (the next subscriber starts one)
                    self._thread, self._positions, self._fresh = None, None, []
                    return
            try:
                self.poll_once()
            except Exception:  # a store outage: streams wait, the next poll tries again
                log.exception("the live hub could not poll the store")
            if time.monotonic() - self._checked >= self.check_every:
                self._checked = time.monotonic()
                try:
                    self.check_subscribers()
                except Exception:  # a store outage: the next check tries again
                    log.exception("the live hub could not check its streams' credentials")

    def check_subscribers(self) -> None:
        """End every subscriber whose client went away or whose credential no longer holds."""
        with self._lock:
            ready = self._poller.poll(0) if self._poller is not None else []  # never waits
            gone = [self._by_fd[fd] for fd, flags in ready if fd in self._by_fd and _closed(self._by_fd[fd], flags)]
            fresh, self._fresh = self._fresh, []
        for subscriber in gone:
            subscriber.end("gone")
        if self.credentials is None:
            return
        try:
            generation = self.credentials.token_generation()
            checked = fresh
            if generation != self._generation:  # some token changed since: look at every stream's
                with self._lock:
                    checked = [s for found in self._subscribers.values() for s in found if s.credential is not None]
            checked = [s for s in checked if s.ended is None]
            if checked:
                current = self.credentials.still_current({s.credential for s in checked if s.credential is not None})
                for subscriber in checked:
                    if subscriber.credential not in current:
                        subscriber.end("credential")
        except BaseException:  # the store failed: these are checked next time
            with self._lock:
                self._fresh.extend(fresh)
            raise
        self._generation = generation

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


#: what the hub watches on a client's socket (the same bits for poll and epoll)
WATCHED = select.POLLIN | select.POLLERR | select.POLLHUP


def _raw_poll() -> Callable[[], Any]:
    """``select.epoll`` (Linux: a check costs what the sockets with something to tell cost,
    not one per socket), else ``select.poll``, as the OS has them: gevent's monkey-patching
    replaces ``poll`` by one that waits in the event loop and removes ``epoll``, while a raw
    ``poll(0)`` answers at once without blocking."""
    from gevent import monkey  # a dependency; this works whether or not it patched select

    for name in ("epoll", "poll"):
        try:
            return monkey.get_original("select", name)
        except AttributeError:  # not on this OS
            continue
    raise RuntimeError("the live hub needs select.epoll or select.poll")


def _fileno(connection: Any) -> int:
    try:
        return connection.fileno() if connection is not None else -1
    except (OSError, ValueError):  # closed already
        return -1


def _closed(subscriber: Subscriber, flags: int) -> bool:
    """Did the client close the connection? An error or hang-up says so; a readable socket
    is peeked at (never read), and only an end of file counts (a client may have sent
    bytes, which stay for the server)."""
    if flags & (select.POLLERR | select.POLLHUP | select.POLLNVAL):
        return True
    try:
        return subscriber.connection.recv(1, socket.MSG_PEEK) == b""
    except ConnectionError:  # reset by the peer
        return True
    except (OSError, ValueError):  # nothing to read after all, or a socket that cannot peek (TLS)
        return False
