"""The ``StreamRecorder`` contract: append at an expected version, read, version, idempotency."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from service.adapters.store import DuplicateRequest, VersionConflict, partition_of
from tests.contract.backends import (
    EVENT,
    StoreContract,
    append_until_done,
    outlives_the_store,
    process_appender,
    process_context,
)


class StreamRecorderContract(StoreContract):
    """The tests every store's streams pass. Appends are atomic with their log entries, so a
    few tests also look at the log (``LogRecorder``)."""

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

    def test_an_append_that_names_another_event_at_the_expected_version_conflicts(self, store):
        from service.adapters.codec import digest

        store.append("g-1", 0, [EVENT, {"type": "B"}])
        assert store.append("g-1", 2, [{"type": "C"}], head=digest({"type": "B"})) == 3
        with pytest.raises(VersionConflict) as conflict:
            store.append("g-1", 3, [{"type": "D"}], head=digest({"type": "B"}))  # it decided on B, not C
        assert (conflict.value.expected, conflict.value.current) == (3, 3)
        assert store.version("g-1") == 3 and store.read("g-1")[-1].event == {"type": "C"}
        assert store.append("g-1", 3, [{"type": "D"}]) == 4  # no head: not checked

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

    # -- data outlives the store object ---------------------------------------------------
    def test_streams_outlive_the_store_object(self, store, reopen):
        store.append("g-1", 0, [{"n": 1}, {"n": 2}], ("req-1", {"r": 1}))
        store.append("g-2", 0, [{"n": 1}])
        events = store.read("g-1")
        store.close()

        again = reopen()
        assert again.version("g-1") == 2 and again.version("g-2") == 1
        assert again.read("g-1") == events
        assert again.idempotency_record("g-1", "req-1") == {"r": 1}
        assert again.append("g-1", 2, [{"n": 3}]) == 3
        with pytest.raises(DuplicateRequest):
            again.append("g-1", 3, [{"n": 4}], ("req-1", {"r": 2}))

    # -- concurrency -----------------------------------------------------------------
    WRITERS = 6
    EACH = 12
    PROCESSES = 4
    PROCESS_EACH = 10

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

    def test_concurrent_appenders_processes(self, spec, store):
        if not outlives_the_store(spec):
            pytest.skip("processes do not share a memory store")
        context = process_context()
        go = context.Event()
        results = context.Queue()
        processes = [
            context.Process(target=process_appender,
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


class TestStreamRecorder(StreamRecorderContract):
    pass
