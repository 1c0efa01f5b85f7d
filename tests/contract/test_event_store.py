"""The composite: a backend's ``EventStore`` is every capability, and each capability is a
recorder class of its own that works alone on the backend's datastore."""

from __future__ import annotations

from service.adapters.store import EventStore, partition_of
from tests.contract.backends import CAPABILITIES, StoreContract, open_recorders


class EventStoreContract(StoreContract):
    """The tests every backend's composite and recorders pass."""

    def test_the_store_is_every_capability_and_answers_a_ping(self, store):
        assert all(isinstance(store, capability) for capability in CAPABILITIES)
        store.ping()
        store.append("g-1", 0, [{"n": 1}])
        store.ping()

    def test_the_version_and_the_token_generation_read_together_are_each_read_alone(self, store):
        assert store.version_and_token_generation("g-1") == (0, store.token_generation())
        store.append("g-1", 0, [{"n": 1}, {"n": 2}])
        store.add_player("p-1", "Ada", "hash-1")
        store.replace_token("p-1", "hash-1", "hash-2")  # the generation moves
        assert store.version_and_token_generation("g-1") == (2, store.token_generation())
        assert store.version_and_token_generation("g-2") == (0, store.token_generation())
        assert store.token_generation() != 0

    def test_each_capability_works_alone_on_one_datastore(self, spec):
        recorders, close = open_recorders(spec)
        try:
            for capability, recorder in recorders.items():
                assert isinstance(recorder, capability) and not isinstance(recorder, EventStore)
                others = [c for c in CAPABILITIES if c is not capability]
                assert not any(isinstance(recorder, other) for other in others)
            streams, log, models, snapshots, players, shared = (recorders[c] for c in CAPABILITIES)

            assert streams.append("g-1", 0, [{"n": 1}, {"n": 2}], ("req-1", {"r": 1})) == 2
            assert streams.idempotency_record("g-1", "req-1") == {"r": 1}
            partition = partition_of("g-1", log.partitions)
            assert [(r.stream, r.version) for r in log.read_log(partition, 0)] == [("g-1", 1), ("g-1", 2)]
            assert log.log_heads()[partition] == log.log_head(partition) == streams.read("g-1")[-1].position

            models.save_rows("m", log.log_heads(), None, [("t", "k", b"1")], [("i", "k", 1.0)])
            assert models.load_checkpoints("m") == log.log_heads()
            assert models.get_rows("m", "t", ["k"]) == [b"1"] and models.index_page("m", "i") == ["k"]

            snapshots.save_snapshot("g-1", 2, "v1", {"at": 2})
            assert snapshots.load_snapshot("g-1", "v1") == (2, {"at": 2})
            players.add_player("p-1", "Ada", "hash-1")
            assert players.player_by_token("hash-1", "p-1") == {"id": "p-1", "name": "Ada"}
            assert shared.secret("s", "x") == "x"
            shared.set_add("set", "a")
            assert shared.set_members("set") == ["a"]
        finally:
            close()


class TestEventStore(EventStoreContract):
    pass
