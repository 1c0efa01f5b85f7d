"""What the contract suites share: the backends, a store opened on one, helpers for child processes.

A backend is described by a ``spec``, a small picklable tuple that ``open_store`` turns
into a store, so a test (or a child process) can open a second store on the same data:

* ``("memory",)``: a fresh ``MemoryStore`` (its data lives and dies with the object);
* ``("sqlite", path)``: a ``SqliteStore`` on a real file;
* ``("redis", url, partitions, prefix)``: a ``RedisStore`` on a real server (or cluster,
  for a ``redis-cluster://`` URL) under a key prefix of its own.

Each suite (``test_*_recorder.py``) is an abstract class, ``<Capability>Contract``, whose
tests take the ``store`` fixture of ``StoreContract``; ``conftest.py`` here gives it a
``spec`` fixture over the three backends, and another backend joins by subclassing a suite
with a ``spec`` fixture of its own (see ``tests/integration/test_redis_cluster.py``).
"""

from __future__ import annotations

import multiprocessing
import time
import traceback
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

from service.adapters import memory_store, redis_store, sqlite_store
from service.adapters.memory_store import MemoryStore
from service.adapters.redis_store import RedisStore
from service.adapters.sqlite_store import SqliteStore
from service.adapters.store import (
    EventStore,
    LogRecorder,
    PlayerRecorder,
    ProjectionRecorder,
    SharedStateRecorder,
    SnapshotRecorder,
    StreamRecorder,
    VersionConflict,
)

Spec = tuple[Any, ...]

#: the backends every suite runs on (the Redis one needs a server: ``integration``)
BACKENDS = ["memory", "sqlite", pytest.param("redis", marks=pytest.mark.integration)]

EVENT = {"type": "Played", "card": "Q♥", "score": [1, 2.5, None], "ok": True, "nested": {"a": {"b": "c"}}}


def open_store(spec: Spec) -> EventStore:
    kind = spec[0]
    if kind == "memory":
        return MemoryStore()
    if kind == "sqlite":
        return SqliteStore(spec[1])
    if kind == "redis":
        _, url, partitions, prefix = spec
        return RedisStore(url, partitions=partitions, prefix=prefix)
    raise ValueError(kind)


CAPABILITIES = (StreamRecorder, LogRecorder, ProjectionRecorder, SnapshotRecorder, PlayerRecorder,
                SharedStateRecorder)


def open_recorders(spec: Spec) -> tuple[dict[type, Any], Callable[[], None]]:
    """One recorder per capability, each an object of its own, all on one new datastore on
    ``spec``; and what closes the datastore."""
    kind = spec[0]
    datastore: Any
    if kind == "memory":
        module: ModuleType = memory_store
        datastore = memory_store.MemoryDatastore()
    elif kind == "sqlite":
        module, datastore = sqlite_store, sqlite_store.SqliteDatastore(spec[1])
    elif kind == "redis":
        _, url, partitions, prefix = spec
        module, datastore = redis_store, redis_store.RedisDatastore(url, partitions=partitions, prefix=prefix)
    else:
        raise ValueError(kind)
    name = {"memory": "Memory", "sqlite": "Sqlite", "redis": "Redis"}[kind]  # e.g. SqliteLogRecorder
    recorders: dict[type, Any] = {c: getattr(module, name + c.__name__)(datastore) for c in CAPABILITIES}
    return recorders, getattr(datastore, "close", lambda: None)


def outlives_the_store(spec: Spec) -> bool:
    """Whether a second store opened on ``spec`` sees what the first stored."""
    return spec[0] != "memory"


class StoreContract:
    """The base of the suites: a store opened on the ``spec`` backend, closed afterwards."""

    @pytest.fixture
    def store(self, spec: Spec) -> Iterator[EventStore]:
        store = open_store(spec)
        yield store
        store.close()

    @pytest.fixture
    def reopen(self, spec: Spec) -> Iterator[Callable[[], EventStore]]:
        """Opens another store on the same data (skips a backend whose data dies with the store)."""
        if not outlives_the_store(spec):
            pytest.skip("the memory store keeps its data in the store object")
        opened: list[EventStore] = []

        def again() -> EventStore:
            opened.append(open_store(spec))
            return opened[-1]

        yield again
        for store in opened:
            store.close()


# -- the racing appenders (module level so a child process can run them) -------------------

def append_until_done(store: EventStore, stream: str, writer: int, count: int) -> list[tuple[int, int]]:
    """Loop read-version -> append until ``count`` events are in; return (version won, seq)."""
    won: list[tuple[int, int]] = []
    seq = 0
    while seq < count:
        current = store.version(stream)
        time.sleep(0)  # let the others run between the read and the append: more races
        try:
            new_version = store.append(stream, current, [{"type": "Moved", "writer": writer, "seq": seq}])
        except VersionConflict:
            continue
        assert new_version == current + 1
        won.append((new_version, seq))
        seq += 1
    return won


def process_appender(spec: Spec, stream: str, writer: int, count: int, go, results) -> None:
    try:
        store = open_store(spec)
        try:
            go.wait(30)
            results.put((writer, append_until_done(store, stream, writer, count)))
        finally:
            store.close()
    except BaseException:  # report it to the parent instead of dying silently
        results.put((writer, traceback.format_exc()))


def process_context():
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")
