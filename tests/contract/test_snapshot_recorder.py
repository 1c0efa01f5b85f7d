"""The ``SnapshotRecorder`` contract: the newest snapshot at or below a version, per stream
and schema; deleting them all is always allowed."""

from __future__ import annotations

from service.adapters.store import partition_of
from tests.contract.backends import StoreContract


class SnapshotRecorderContract(StoreContract):
    """The tests every store's snapshots pass."""

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

    def test_streams_and_schemas_with_separators_stay_apart(self, store):
        def partition(stream: str) -> int:
            return partition_of(stream, store.partitions)

        # streams of one log partition, so a store that keys snapshots by partition keeps them together
        base = next(f"g{i}" for i in range(10_000)
                    if partition(f"g{i}") == partition(f"g{i}:b") == partition(f"g{i}%3Ab"))
        store.save_snapshot(f"{base}:b", 1, "c", {"on": "x:b/c"})
        store.save_snapshot(base, 2, "b:c", {"on": "x/b:c"})
        store.save_snapshot(f"{base}%3Ab", 3, "c", {"on": "x%3Ab/c"})
        assert store.load_snapshot(f"{base}:b", "c") == (1, {"on": "x:b/c"})
        assert store.load_snapshot(base, "b:c") == (2, {"on": "x/b:c"})
        assert store.load_snapshot(f"{base}%3Ab", "c") == (3, {"on": "x%3Ab/c"})
        assert store.load_snapshot(base, "b") is None

    def test_snapshots_outlive_the_store_object(self, store, reopen):
        store.save_snapshot("g-1", 2, "v1", {"at": 2})
        store.close()

        again = reopen()
        assert again.load_snapshot("g-1", "v1") == (2, {"at": 2})
        again.delete_snapshots()
        assert again.load_snapshot("g-1", "v1") is None


class TestSnapshotRecorder(SnapshotRecorderContract):
    pass
