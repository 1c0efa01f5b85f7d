"""The ``LogRecorder`` contract: every appended event once in the global log, in append order
within its partition, at increasing positions (from 1) a reader can resume after."""

from __future__ import annotations

from service.adapters.store import partition_of
from tests.contract.backends import StoreContract


class LogRecorderContract(StoreContract):
    """The tests every store's log passes (the events come in through ``StreamRecorder.append``)."""

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
        assert store.partitions >= 1
        assert store.log_heads() == {p: 0 for p in range(store.partitions)}
        for partition in range(store.partitions):
            assert store.read_log(partition, 0) == []
            assert store.log_head(partition) == 0

    def test_log_heads_are_every_partitions_log_head(self, store):
        for i in range(10):
            store.append(f"game-{i}", 0, [{"n": n} for n in range(i % 3 + 1)])
        heads = store.log_heads()
        assert sorted(heads) == list(range(store.partitions))
        assert heads == {p: store.log_head(p) for p in range(store.partitions)}
        assert all(head == store.read_log(p, 0)[-1].position for p, head in heads.items() if head)
        store.append("game-0", 1, [{"n": 1}])
        partition = partition_of("game-0", store.partitions)
        moved = store.log_heads()
        assert moved[partition] > heads[partition]  # only the appended stream's partition moves
        assert {p: h for p, h in moved.items() if p != partition} == {p: h for p, h in heads.items() if p != partition}

    def test_many_partitions_read_at_once_are_each_partitions_own_read(self, store):
        for i in range(16):
            store.append(f"game-{i}", 0, [{"n": n} for n in range(i % 4 + 1)])
        heads = store.log_heads()
        reads = {p: (p % 2, 2 + p % 3) for p in heads}  # from the start, or after the first entry
        found = store.read_logs(reads)
        assert found == {p: store.read_log(p, after, limit) for p, (after, limit) in reads.items()}
        assert any(found.values())
        assert store.read_logs({p: (head, 5) for p, head in heads.items()}) == {p: [] for p in heads}  # past the heads
        assert store.read_logs({0: (0, 0)}) == {0: []} and store.read_logs({}) == {}

    def test_a_reader_resumes_after_any_position(self, store):
        store.append("g-1", 0, [{"n": n} for n in range(5)])
        partition = partition_of("g-1", store.partitions)
        assert store.read_log(partition, 0, limit=0) == []
        read, after = [], 0
        while batch := store.read_log(partition, after, limit=2):
            assert len(batch) <= 2
            read += batch
            after = batch[-1].position
        assert [r.event["n"] for r in read] == [0, 1, 2, 3, 4]
        assert after == store.log_head(partition)

    def test_the_log_outlives_the_store_object(self, store, reopen):
        for i in range(6):
            store.append(f"g-{i}", 0, [{"n": 1}, {"n": 2}])
        logs = [store.read_log(p, 0) for p in range(store.partitions)]
        heads = store.log_heads()
        store.close()

        again = reopen()
        assert [again.read_log(p, 0) for p in range(again.partitions)] == logs
        assert again.log_heads() == heads
        again.append("g-0", 2, [{"n": 3}])
        partition = partition_of("g-0", again.partitions)
        assert again.read_log(partition, heads[partition])[0].event == {"n": 3}  # positions go on


class TestLogRecorder(LogRecorderContract):
    pass
