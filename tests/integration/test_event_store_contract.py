"""One contract for every event store, run against the memory store, a real SQLite file and
a real Redis server.

``EventStoreContract`` holds the tests; a backend joins by subclassing it and providing a
``spec`` fixture: a small picklable description that ``open_store`` turns into a store, so
a test (or a child process) can open a second store on the same backend. Backends whose
data outlives the store object (a file, a server) subclass ``SharedBackendContract``,
which adds the reopen and multi-process tests.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
import traceback
from collections import Counter
from typing import Any

import pytest

from service.adapters.memory_store import MemoryStore
from service.adapters.redis_store import RedisStore
from service.adapters.sqlite_store import SqliteStore
from service.adapters.store import (
    CheckpointMoved,
    DuplicateRequest,
    EventStore,
    VersionConflict,
    partition_of,
)

Spec = tuple[Any, ...]


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


def _process_appender(spec: Spec, stream: str, writer: int, count: int, go, results) -> None:
    try:
        store = open_store(spec)
        try:
            go.wait(30)
            results.put((writer, append_until_done(store, stream, writer, count)))
        finally:
            store.close()
    except BaseException:  # report it to the parent instead of dying silently
        results.put((writer, traceback.format_exc()))


def _process_context():
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


EVENT = {"type": "Played", "card": "Q♥", "score": [1, 2.5, None], "ok": True, "nested": {"a": {"b": "c"}}}


class EventStoreContract:
    """The tests every store passes. Subclasses provide the ``spec`` fixture."""

    @pytest.fixture
    def spec(self) -> Spec:  # pragma: no cover - overridden
        raise NotImplementedError

    @pytest.fixture
    def store(self, spec):
        store = open_store(spec)
        yield store
        store.close()

    # -- streams ---------------------------------------------------------------------
    def test_append_read_version(self, store):
        assert store.version("g-1") == 0
        assert store.read("g-1") == []
        assert store.append("g-1", 0, [EVENT, {"type": "B"}, {"type": "C"}]) == 3
        assert store.version("g-1") == 3
        assert store.append("g-1", 3, [{"type": "D"}]) == 4

        found = store.read("g-1")
        assert [r.version for r in found] == [1, 2, 3, 4]
        assert [r.event for r in found] == [EVENT, {"type": "B"}, {"type": "C"}, {"type": "D"}]
        assert {r.stream for r in found} == {"g-1"}
        assert {r.partition for r in found} == {partition_of("g-1", store.partitions)}
        positions = [r.position for r in found]
        assert positions == sorted(positions) and len(set(positions)) == 4 and positions[0] >= 1
        assert store.version("g-2") == 0

    def test_read_ranges(self, store):
        store.append("g-1", 0, [{"n": n} for n in range(1, 8)])
        versions = lambda **kw: [r.version for r in store.read("g-1", **kw)]  # noqa: E731
        assert versions(after=3) == [4, 5, 6, 7]
        assert versions(until=2) == [1, 2]
        assert versions(after=2, until=5) == [3, 4, 5]
        assert versions(after=4, until=4) == []
        assert versions(after=7) == []
        assert versions(after=20) == []
        assert versions(after=5, until=100) == [6, 7]
        assert [r.event["n"] for r in store.read("g-1", after=2, until=5)] == [3, 4, 5]

    def test_what_the_store_returns_is_the_callers_to_change(self, store):
        event = {"type": "A", "cards": [1, 2]}
        store.append("g-1", 0, [event], ("req-1", {"seen": [1]}))
        event["cards"].append(3)  # neither the appended dict ...
        store.read("g-1")[0].event["cards"].append(4)  # ... nor what comes back is the stored one
        store.read_log(partition_of("g-1", store.partitions), 0)[0].event["type"] = "B"
        store.idempotency_record("g-1", "req-1")["seen"].append(2)
        with pytest.raises(DuplicateRequest) as raised:
            store.append("g-1", 1, [event], ("req-1", {}))
        raised.value.record["seen"].append(3)
        assert store.read("g-1")[0].event == {"type": "A", "cards": [1, 2]}
        assert store.read_log(partition_of("g-1", store.partitions), 0)[0].event == {"type": "A", "cards": [1, 2]}
        assert store.idempotency_record("g-1", "req-1") == {"seen": [1]}

    def test_fresh_stream_starts_at_expected_zero(self, store):
        with pytest.raises(VersionConflict) as raised:
            store.append("fresh", 1, [{"type": "A"}])
        assert (raised.value.stream, raised.value.expected, raised.value.current) == ("fresh", 1, 0)
        assert store.version("fresh") == 0
        assert store.append("fresh", 0, [{"type": "A"}]) == 1
        assert [r.version for r in store.read("fresh")] == [1]

    def test_version_conflict_reports_current_and_appends_nothing(self, store):
        store.append("g-1", 0, [{"n": 1}, {"n": 2}])
        heads = [store.log_head(p) for p in range(store.partitions)]
        for stale in (0, 1, 5):
            with pytest.raises(VersionConflict) as raised:
                store.append("g-1", stale, [{"n": "late"}])
            assert (raised.value.stream, raised.value.expected, raised.value.current) == ("g-1", stale, 2)
        assert store.version("g-1") == 2
        assert [r.event["n"] for r in store.read("g-1")] == [1, 2]
        assert [store.log_head(p) for p in range(store.partitions)] == heads

    def test_a_conflicting_batch_leaves_nothing(self, store):
        store.append("g-1", 0, [{"n": 1}])
        with pytest.raises(VersionConflict):
            store.append("g-1", 0, [{"n": "a"}, {"n": "b"}, {"n": "c"}], ("req-1", {"result": "x"}))
        assert store.version("g-1") == 1
        assert [r.event for r in store.read("g-1")] == [{"n": 1}]
        assert store.idempotency_record("g-1", "req-1") is None
        log = [r for p in range(store.partitions) for r in store.read_log(p, 0)]
        assert [(r.stream, r.version) for r in log] == [("g-1", 1)]
        # the key was not consumed by the refused batch
        assert store.append("g-1", 1, [{"n": 2}, {"n": 3}], ("req-1", {"result": "y"})) == 3
        assert store.idempotency_record("g-1", "req-1") == {"result": "y"}

    # -- idempotency -----------------------------------------------------------------
    def test_idempotency_key_refuses_a_second_append(self, store):
        first = {"command": "play", "result": {"version": 1, "seen": ["a", "b"]}}
        assert store.append("g-1", 0, [{"n": 1}], ("req-1", first)) == 1
        assert store.idempotency_record("g-1", "req-1") == first
        heads = [store.log_head(p) for p in range(store.partitions)]

        for expected in (1, 0):  # the key is checked before the version
            with pytest.raises(DuplicateRequest) as raised:
                store.append("g-1", expected, [{"n": 2}], ("req-1", {"other": True}))
            assert raised.value.key == "req-1"
            assert raised.value.record == first
        assert store.version("g-1") == 1
        assert [store.log_head(p) for p in range(store.partitions)] == heads
        assert store.idempotency_record("g-1", "req-1") == first
        assert store.idempotency_record("g-1", "req-2") is None

    def test_idempotency_keys_are_scoped_per_stream(self, store):
        store.append("g-1", 0, [{"n": 1}], ("req-1", {"on": "g-1"}))
        assert store.idempotency_record("g-2", "req-1") is None
        assert store.append("g-2", 0, [{"n": 1}], ("req-1", {"on": "g-2"})) == 1
        assert store.idempotency_record("g-1", "req-1") == {"on": "g-1"}
        assert store.idempotency_record("g-2", "req-1") == {"on": "g-2"}
        # names that only differ in where a separator falls stay apart
        store.append("a:b", 0, [{"n": 1}], ("c", {"on": "a:b/c"}))
        assert store.idempotency_record("a", "b:c") is None
        assert store.append("a", 0, [{"n": 1}], ("b:c", {"on": "a/b:c"})) == 1
        assert store.idempotency_record("a:b", "c") == {"on": "a:b/c"}

    # -- global log ------------------------------------------------------------------
    def test_global_log(self, store):
        streams = [f"game-{i}" for i in range(12)]
        appended: list[tuple[str, int]] = []
        for round_ in range(3):
            for stream in streams:
                size = 1 + (round_ + len(stream)) % 2
                version = store.version(stream)
                store.append(stream, version, [{"round": round_, "i": i} for i in range(size)])
                appended += [(stream, version + i + 1) for i in range(size)]

        seen: list[tuple[str, int]] = []
        used = 0
        for partition in range(store.partitions):
            log = store.read_log(partition, 0)
            ours = [item for item in appended if partition_of(item[0], store.partitions) == partition]
            assert [(r.stream, r.version) for r in log] == ours  # append order within the partition
            assert all(r.partition == partition for r in log)
            positions = [r.position for r in log]
            assert all(a < b for a, b in zip(positions, positions[1:], strict=False))
            assert store.log_head(partition) == (positions[-1] if positions else 0)
            if log:
                used += 1
                assert positions[0] >= 1
                # the log carries the event, the same as the stream does
                by_version = {r.version: r for r in store.read(log[0].stream)}
                assert log[0].event == by_version[log[0].version].event
                assert log[0].position == by_version[log[0].version].position
                # paging: after and limit
                assert store.read_log(partition, positions[0], limit=2) == log[1:3]
                assert store.read_log(partition, positions[-1]) == []
            seen += [(r.stream, r.version) for r in log]
        assert sorted(seen) == sorted(appended)  # every event exactly once across partitions
        assert len(seen) == len(set(seen))
        if store.partitions > 1:
            assert used > 1

    def test_log_of_an_empty_store(self, store):
        for partition in range(store.partitions):
            assert store.read_log(partition, 0) == []
            assert store.log_head(partition) == 0

    # -- concurrency -----------------------------------------------------------------
    WRITERS = 6
    EACH = 12

    def check_race(self, store, stream: str, won: dict[int, list[tuple[int, int]]], writers: int, each: int):
        total = writers * each
        assert store.version(stream) == total
        found = store.read(stream)
        assert [r.version for r in found] == list(range(1, total + 1))  # no gap, no duplicate
        pairs = Counter((r.event["writer"], r.event["seq"]) for r in found)
        assert pairs == Counter({(w, s): 1 for w in range(writers) for s in range(each)})
        for writer in range(writers):  # a writer's events keep its order
            assert [r.event["seq"] for r in found if r.event["writer"] == writer] == list(range(each))
        # exactly one winner per version, and the stored event is the winner's
        claims = Counter(version for wins in won.values() for version, _ in wins)
        assert sorted(claims) == list(range(1, total + 1)) and set(claims.values()) == {1}
        at = {r.version: r.event for r in found}
        for writer, wins in won.items():
            for version, seq in wins:
                assert (at[version]["writer"], at[version]["seq"]) == (writer, seq)
        log = [r for p in range(store.partitions) for r in store.read_log(p, 0, limit=10 * total)
               if r.stream == stream]
        assert sorted(r.version for r in log) == list(range(1, total + 1))

    def test_concurrent_appenders_threads(self, store):
        start = threading.Barrier(self.WRITERS)
        won: dict[int, list[tuple[int, int]]] = {}
        errors: list[BaseException] = []

        def run(writer: int) -> None:
            try:
                start.wait(10)
                won[writer] = append_until_done(store, "race", writer, self.EACH)
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(w,)) for w in range(self.WRITERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert not errors, errors
        self.check_race(store, "race", won, self.WRITERS, self.EACH)

    # -- players ---------------------------------------------------------------------
    def test_players(self, store):
        store.add_player("p-1", "Ada", "hash-1")
        store.add_player("p-2", "Brunhilde 🐉", "hash-2")
        assert store.player("p-1") == {"id": "p-1", "name": "Ada"}
        assert store.player("p-2") == {"id": "p-2", "name": "Brunhilde 🐉"}
        assert store.player_by_token("hash-1") == {"id": "p-1", "name": "Ada"}
        assert store.player_by_token("hash-2") == {"id": "p-2", "name": "Brunhilde 🐉"}
        assert store.player("p-3") is None
        assert store.player_by_token("hash-3") is None

    # -- snapshots -------------------------------------------------------------------
    def test_snapshots(self, store):
        assert store.load_snapshot("g-1", "v1") is None
        for version in (3, 5, 9):
            store.save_snapshot("g-1", version, "v1", {"at": version})
        store.save_snapshot("g-1", 4, "v2", {"schema": 2})
        store.save_snapshot("g-2", 7, "v1", {"other": True})

        assert store.load_snapshot("g-1", "v1") == (9, {"at": 9})
        assert store.load_snapshot("g-1", "v1", at_most=100) == (9, {"at": 9})
        assert store.load_snapshot("g-1", "v1", at_most=9) == (9, {"at": 9})
        assert store.load_snapshot("g-1", "v1", at_most=8) == (5, {"at": 5})
        assert store.load_snapshot("g-1", "v1", at_most=4) == (3, {"at": 3})
        assert store.load_snapshot("g-1", "v1", at_most=2) is None
        assert store.load_snapshot("g-1", "v2") == (4, {"schema": 2})  # schemas are isolated
        assert store.load_snapshot("g-1", "v2", at_most=3) is None
        assert store.load_snapshot("g-1", "v3") is None
        assert store.load_snapshot("g-2", "v1") == (7, {"other": True})
        assert store.load_snapshot("g-3", "v1") is None

        store.save_snapshot("g-1", 9, "v1", {"at": 9, "again": True})  # a retake replaces
        assert store.load_snapshot("g-1", "v1") == (9, {"at": 9, "again": True})

        store.delete_snapshots()
        for stream, schema in (("g-1", "v1"), ("g-1", "v2"), ("g-2", "v1")):
            assert store.load_snapshot(stream, schema) is None
        store.save_snapshot("g-1", 11, "v1", {"at": 11})  # still usable after a delete
        assert store.load_snapshot("g-1", "v1") == (11, {"at": 11})

    # -- projections: read models per row ---------------------------------------------
    def test_projections(self, store):
        assert store.load_checkpoints("lobby") is None
        assert store.get_rows("lobby", "games", ["g-1"]) == [None]
        store.save_rows("lobby", {0: 3, 1: 0}, None,
                        [("games", "g-1", b'{"n":1}'), ("games", "g-2", b'{"n":2}')],
                        [("all", "g-1", -5.0), ("all", "g-2", -7.5), ("all/type/x", "g-2", 1.0)])
        assert store.load_checkpoints("lobby") == {0: 3, 1: 0}
        assert store.get_rows("lobby", "games", ["g-2", "nope", "g-1"]) == [b'{"n":2}', None, b'{"n":1}']
        assert store.index_page("lobby", "all") == ["g-2", "g-1"]  # by score
        assert store.index_page("lobby", "all", 1, 5) == ["g-1"]
        assert store.index_page("lobby", "all", 0, 1) == ["g-2"]
        assert store.index_count("lobby", "all") == 2 and store.index_count("lobby", "none") == 0
        assert store.index_entries("lobby", "all") == [("g-2", -7.5), ("g-1", -5.0)]

        with pytest.raises(CheckpointMoved):  # someone else created it
            store.save_rows("lobby", {0: 9, 1: 9}, None, [("games", "g-1", b"{}")], [])
        with pytest.raises(CheckpointMoved):  # a stale previous
            store.save_rows("lobby", {0: 9, 1: 9}, {0: 2, 1: 0}, [("games", "g-1", b"{}")], [("all", "g-1", None)])
        assert store.get_rows("lobby", "games", ["g-1"]) == [b'{"n":1}'] and store.index_count("lobby", "all") == 2

        store.save_rows("lobby", {0: 5, 1: 2}, {1: 0, 0: 3},  # key order does not matter
                        [("games", "g-1", None), ("games", "g-3", b'{"n":3}')],
                        [("all", "g-1", None), ("all", "g-3", -5.0), ("all", "g-2", -1.0), ("all", "gone", None)])
        assert store.load_checkpoints("lobby") == {0: 5, 1: 2}
        assert store.get_rows("lobby", "games", ["g-1", "g-3"]) == [None, b'{"n":3}']
        assert store.index_entries("lobby", "all") == [("g-3", -5.0), ("g-2", -1.0)]  # moved, not doubled
        assert store.index_count("lobby", "all") == 2
        assert store.table_rows("lobby", "games") == {"g-2": b'{"n":2}', "g-3": b'{"n":3}'}
        with pytest.raises(CheckpointMoved):  # the first checkpoints are stale now
            store.save_rows("lobby", {0: 6, 1: 2}, {0: 3, 1: 0}, [], [])

        store.save_rows("ranks", {}, None, [], [])
        with pytest.raises(CheckpointMoved):  # {} is a saved projection, not a missing one
            store.save_rows("ranks", {0: 1}, None, [], [])
        store.save_rows("ranks", {0: 1}, {}, [("t", "a/b", b"[1]")], [("i/x", "a/b", 0.0)])
        assert store.load_checkpoints("ranks") == {0: 1}

        store.delete_projection("lobby")
        assert store.load_checkpoints("lobby") is None
        assert store.get_rows("lobby", "games", ["g-2"]) == [None]
        assert store.index_page("lobby", "all") == [] and store.index_count("lobby", "all") == 0
        assert store.get_rows("ranks", "t", ["a/b"]) == [b"[1]"] and store.index_page("ranks", "i/x") == ["a/b"]
        store.delete_projection("lobby")  # deleting twice is harmless
        store.save_rows("lobby", {0: 1}, None, [("games", "g-9", b"{}")], [("all", "g-9", 0.0)])
        assert store.index_page("lobby", "all") == ["g-9"] and store.index_count("lobby", "all") == 1


class SharedBackendContract(EventStoreContract):
    """Stores whose data outlives the store object: reopen it, share it between processes."""

    PROCESSES = 4
    PROCESS_EACH = 10

    def test_reopen_after_close(self, spec, store):
        store.append("g-1", 0, [{"n": 1}, {"n": 2}], ("req-1", {"r": 1}))
        store.append("g-2", 0, [{"n": 1}])
        store.add_player("p-1", "Ada", "hash-1")
        store.save_snapshot("g-1", 2, "v1", {"at": 2})
        heads = {p: store.log_head(p) for p in range(store.partitions)}
        store.save_rows("lobby", heads, None, [("games", "g-1", b'{"n":3}')], [("all", "g-1", 1.0)])
        logs = [store.read_log(p, 0) for p in range(store.partitions)]
        events = store.read("g-1")
        store.close()

        again = open_store(spec)
        try:
            assert again.version("g-1") == 2 and again.version("g-2") == 1
            assert again.read("g-1") == events
            assert [again.read_log(p, 0) for p in range(again.partitions)] == logs
            assert again.idempotency_record("g-1", "req-1") == {"r": 1}
            assert again.player_by_token("hash-1") == {"id": "p-1", "name": "Ada"}
            assert again.load_snapshot("g-1", "v1") == (2, {"at": 2})
            assert again.load_checkpoints("lobby") == heads
            assert again.get_rows("lobby", "games", ["g-1"]) == [b'{"n":3}']
            assert again.index_page("lobby", "all") == ["g-1"] and again.index_count("lobby", "all") == 1
            assert again.append("g-1", 2, [{"n": 3}]) == 3
            with pytest.raises(DuplicateRequest):
                again.append("g-1", 3, [{"n": 4}], ("req-1", {"r": 2}))
        finally:
            again.close()

    def test_concurrent_appenders_processes(self, spec, store):
        context = _process_context()
        go = context.Event()
        results = context.Queue()
        processes = [
            context.Process(target=_process_appender,
                            args=(spec, "race", w, self.PROCESS_EACH, go, results), daemon=True)
            for w in range(self.PROCESSES)
        ]
        for process in processes:
            process.start()
        go.set()
        won: dict[int, list[tuple[int, int]]] = {}
        try:
            for _ in processes:
                writer, outcome = results.get(timeout=45)
                assert not isinstance(outcome, str), f"appender {writer} failed:\n{outcome}"
                won[writer] = outcome
        finally:
            for process in processes:
                process.join(10)
                if process.is_alive():  # pragma: no cover - only after a failure
                    process.kill()
        assert all(process.exitcode == 0 for process in processes)
        self.check_race(store, "race", won, self.PROCESSES, self.PROCESS_EACH)


class TestMemoryStore(EventStoreContract):
    @pytest.fixture
    def spec(self) -> Spec:
        return ("memory",)


class TestSqliteStore(SharedBackendContract):
    @pytest.fixture
    def spec(self, tmp_path) -> Spec:
        return ("sqlite", str(tmp_path / "events.db"))


@pytest.mark.integration
class TestRedisStore(SharedBackendContract):
    @pytest.fixture
    def spec(self, redis_url) -> Spec:
        url, namespace = redis_url
        return ("redis", url, 4, namespace)
