"""The runner: each event applied exactly once per stored checkpoint, whatever fails when."""

from __future__ import annotations

import pytest

from projections import PROJECTIONS, envelope
from service.adapters.memory_store import MemoryStore
from service.adapters.store import CheckpointMoved, Recorded, partition_of
from service.background.inline_projections import InlineProjections
from service.background.projections_runner import ProjectionRunner
from service.base.errors import NotFound
from service.play.services import GameService
from tests.games.highcard import RULES
from tests.unit.projections.playing import play_games


class Counting:
    """Counts the events it was given per position: any position seen twice is a double apply."""

    name = "counting"

    def initial(self):
        return {"seen": {}}

    def apply(self, model, envelope):
        key = f"{envelope['partition']}:{envelope['position']}"
        model["seen"][key] = model["seen"].get(key, 0) + 1
        return model


class CrashingAt(Counting):
    """``Counting`` whose ``apply`` raises on its ``at``-th call, as a worker killed there would."""

    def __init__(self, at: int, name: str = "counting"):
        self.at, self.name, self.calls = at, name, 0

    def apply(self, model, envelope):
        self.calls += 1
        if self.calls == self.at:
            raise RuntimeError("the worker died here")
        return super().apply(model, envelope)


class PartitionedMemoryStore(MemoryStore):
    """A memory store whose log is split into partitions, as Redis's is."""

    partitions = 4

    def read_log(self, partition, after, limit=1000):
        with self._data.lock:
            mine = [r for r in self._data.log if partition_of(r.stream, self.partitions) == partition]
        return [Recorded(r.stream, r.version, r.event, partition, i) for i, r in enumerate(mine, start=1)
                if i > after][:limit]

    def log_head(self, partition):
        with self._data.lock:
            return sum(1 for r in self._data.log if partition_of(r.stream, self.partitions) == partition)


def played(store=None, games=6, seed=1):
    service = GameService(store or MemoryStore(), {"highcard": RULES})
    play_games(service, "highcard", games, seed=seed, unfinished=2)
    return service


def total_events(store):
    return sum(store.log_head(p) for p in range(store.partitions))


def test_a_catch_up_applies_every_event_once_and_a_second_applies_nothing():
    service = played()
    runner = ProjectionRunner(service.store, {"counting": Counting()}, batch_size=7, save_every=10)
    assert runner.catch_up("counting") == total_events(service.store)
    assert runner.catch_up("counting") == 0
    seen = runner.model("counting")["seen"]
    assert len(seen) == total_events(service.store) and set(seen.values()) == {1}
    assert runner.lag("counting") == 0


def test_incremental_catch_ups_after_every_append_equal_a_rebuild():
    store = MemoryStore()
    runner = ProjectionRunner(store, batch_size=3, save_every=5)
    service = GameService(store, {"highcard": RULES}, after_append=InlineProjections(runner, background=False))
    play_games(service, "highcard", 8, seed=2, unfinished=2)
    incremental = {name: runner.model(name) for name in runner.names}
    for name in runner.names:
        runner.rebuild(name)
        assert runner.model(name) == incremental[name] == runner.replay(name)


def test_a_crash_between_apply_and_save_loses_nothing_and_applies_nothing_twice():
    service = played()

    runner = ProjectionRunner(service.store, {"counting": CrashingAt(25)}, batch_size=4, save_every=10)
    with pytest.raises(RuntimeError):
        runner.catch_up("counting")
    assert service.store.load_checkpoints("counting") == {0: 20}  # the last save before the crash; events 21-24 were not saved
    runner.catch_up("counting")
    seen = runner.model("counting")["seen"]
    assert len(seen) == total_events(service.store) and set(seen.values()) == {1}


def test_a_runner_that_loses_the_compare_and_set_reloads_and_continues():
    service = played()
    store = service.store
    first = ProjectionRunner(store, {"counting": Counting()}, batch_size=5, save_every=5)
    second = ProjectionRunner(store, {"counting": Counting()}, batch_size=5, save_every=5)
    first.catch_up("counting")
    second.catch_up("counting")  # second's cached record is now current; first's is stale
    play_games(service, "highcard", 2, seed=9)
    second.catch_up("counting")
    play_games(service, "highcard", 1, seed=10)
    first.catch_up("counting")  # starts from its stale cache, is refused, reloads, goes on
    seen = first.model("counting")["seen"]
    assert len(seen) == total_events(store) and set(seen.values()) == {1}


def test_the_compare_and_set_refuses_a_stale_save():
    store = MemoryStore()
    store.save_rows("p", {0: 5}, None, [("t", "k", b"1")], [])
    with pytest.raises(CheckpointMoved):
        store.save_rows("p", {0: 9}, {0: 4}, [("t", "k", b"2")], [])
    assert store.get_rows("p", "t", ["k"]) == [b"1"]


def test_partitions_are_merged_and_each_keeps_its_own_order():
    store = PartitionedMemoryStore()
    service = played(store, games=40, seed=3)
    runner = ProjectionRunner(store, batch_size=6, save_every=11)
    for name in runner.names:
        runner.catch_up(name)
    assert store.load_checkpoints("lobby") == \
        {p: store.log_head(p) for p in range(4)}
    assert all(store.log_head(p) for p in range(4)), "the games should spread over every partition"
    for name in runner.names:
        assert runner.model(name) == runner.replay(name)
    lobby = runner.model("lobby")["games"]
    for game_id, game in lobby.items():
        assert game["version"] == service.load(game_id).version


def test_a_catch_up_reads_each_partition_up_to_the_head_it_read_first_and_no_further():
    """One read per batch of each partition that is behind, and no read that would find
    nothing once the partition's head (read at the start) is reached; what is appended
    during a catch-up is the next one's."""
    store = PartitionedMemoryStore()
    service = played(store, games=12, seed=4)
    reads: list[int] = []
    read_log = store.read_log

    def counted(partition, after, limit=1000):
        reads.append(partition)
        found = read_log(partition, after, limit)
        if len(reads) == 1:  # an append lands during the catch-up, after its heads were read
            play_games(service, "highcard", 1, seed=5)
        return found

    store.read_log = counted
    heads = {p: store.log_head(p) for p in range(4)}
    runner = ProjectionRunner(store, {"counting": Counting()}, batch_size=1000)
    assert runner.catch_up("counting") == sum(heads.values())
    assert sorted(reads) == [p for p in range(4) if heads[p]]
    assert store.load_checkpoints("counting") == heads
    assert runner.catch_up("counting") == total_events(store) - sum(heads.values()) > 0
    seen = runner.model("counting")["seen"]
    assert len(seen) == total_events(store) and set(seen.values()) == {1}


def test_lag_counts_the_events_not_yet_applied_per_partition():
    store = PartitionedMemoryStore()
    played(store, games=3)
    runner = ProjectionRunner(store)
    status = runner.status("lobby")
    assert status["lag"] == total_events(store)
    assert [r["head"] for r in status["partitions"]] == [store.log_head(p) for p in range(4)]
    runner.catch_up("lobby")
    assert runner.lag("lobby") == 0


def test_rebuild_reports_progress_up_to_the_whole_log():
    service = played()
    runner = ProjectionRunner(service.store, batch_size=10, save_every=10)
    calls = []
    runner.rebuild("scoreboard", progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (total_events(service.store), total_events(service.store))
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


def test_an_unknown_projection_is_not_found():
    with pytest.raises(NotFound, match="no projection named 'nope'"):
        ProjectionRunner(MemoryStore()).catch_up("nope")


def test_a_failing_projection_never_fails_the_command_in_inline_mode(caplog):
    class Broken:
        name = "broken"

        def initial(self):
            return {}

        def apply(self, model, envelope):
            raise ValueError("bug in a read model")

    store = MemoryStore()
    runner = ProjectionRunner(store, {"broken": Broken(), "lobby": PROJECTIONS["lobby"]})
    service = GameService(store, {"highcard": RULES}, after_append=InlineProjections(runner, background=False))
    play_games(service, "highcard", 1)
    assert runner.lag("lobby") == 0 and runner.lag("broken") == total_events(store)
    assert "projection broken failed" in caplog.text


# -- several projections caught up together (the tailer's and the projector's path) ---------------
def counting_runner(store, *names, **options):
    counters = {name: Counting() for name in names}
    for name, projection in counters.items():
        projection.name = name
    return ProjectionRunner(store, {**PROJECTIONS, **counters}, **options)


def test_projections_caught_up_together_read_each_partition_once_for_all_of_them():
    store = PartitionedMemoryStore()
    played(store, games=12, seed=4)
    reads: list[int] = []
    read_log = store.read_log

    def counted(partition, after, limit=1000):
        reads.append(partition)
        return read_log(partition, after, limit)

    store.read_log = counted
    runner = counting_runner(store, "a", "b")
    heads = store.log_heads()
    assert runner.catch_up_together() == {name: sum(heads.values()) for name in runner.names}
    assert sorted(reads) == [p for p in range(4) if heads[p]]  # one read per partition, not one per projection
    for name in runner.names:
        assert runner.model(name) == runner.replay(name), name
        assert store.load_checkpoints(name) == heads
    reads.clear()
    assert runner.catch_up_together() == {name: 0 for name in runner.names} and reads == []


def test_projections_at_different_checkpoints_each_apply_only_what_they_have_not():
    store = PartitionedMemoryStore()
    service = played(store, games=10, seed=6)
    runner = counting_runner(store, "a", "b", batch_size=5, save_every=7)
    runner.catch_up("a")
    runner.catch_up("lobby")
    before = total_events(store)
    play_games(service, "highcard", 3, seed=7)
    applied = runner.catch_up_together()
    assert applied["a"] == applied["lobby"] == total_events(store) - before
    assert applied["b"] == applied["history"] == applied["scoreboard"] == total_events(store)
    for name in ("a", "b"):
        seen = runner.model(name)["seen"]
        assert len(seen) == total_events(store) and set(seen.values()) == {1}
    for name in runner.names:
        assert runner.model(name) == runner.replay(name), name


def test_a_crash_in_a_joint_catch_up_keeps_the_last_slice_saved_and_the_rest_is_applied_once():
    store = PartitionedMemoryStore()
    played(store, games=8, seed=8)

    runner = ProjectionRunner(store, {"crashing": CrashingAt(25, "crashing"), "counting": Counting()}, save_every=10)
    saved: list[dict[str, dict[int, int]]] = []
    save_many = store.save_many

    def recorded(saves):
        saved.append({save.name: save.checkpoints for save in saves})
        return save_many(saves)

    store.save_many = recorded
    total = total_events(store)
    # the joint catch-up saved two slices of 10 and failed in the third; the one-by-one
    # catch-ups went on from what was saved
    assert runner.catch_up_together() == {"crashing": total, "counting": total}
    assert [sum(s["crashing"].values()) for s in saved] == [10, 20]
    for name in runner.names:
        seen = runner.model(name)["seen"]
        assert len(seen) == total and set(seen.values()) == {1}, name


def test_a_projection_that_keeps_failing_holds_back_no_other_and_its_error_is_raised():
    store = PartitionedMemoryStore()
    played(store, games=4, seed=9)

    class Broken(Counting):
        name = "broken"

        def apply(self, model, envelope):
            raise ValueError("bug in a read model")

    runner = ProjectionRunner(store, {"broken": Broken(), **PROJECTIONS})
    with pytest.raises(ValueError, match="bug in a read model"):
        runner.catch_up_together()
    assert store.load_checkpoints("broken") is None
    for name in PROJECTIONS:
        assert store.load_checkpoints(name) == store.log_heads() and runner.model(name) == runner.replay(name)


def test_a_projection_another_runner_saved_during_a_joint_catch_up_is_caught_up_on_its_own():
    store = PartitionedMemoryStore()
    service = played(store, games=8, seed=11)
    first = counting_runner(store, "a", "b")
    other = counting_runner(store, "a", "b")
    first.catch_up_together()
    play_games(service, "highcard", 2, seed=12)
    save_many = store.save_many
    raced: list[str] = []

    def racing(saves):
        if not raced:  # another runner saves "a" between this one's read and its save
            raced.append("a")
            other.catch_up("a")
        return save_many(saves)

    store.save_many = racing
    applied = first.catch_up_together()
    assert raced and applied["b"] == applied["lobby"] > 0
    for name in first.names:
        assert first.model(name) == first.replay(name), name
        assert store.load_checkpoints(name) == store.log_heads(), name
    seen = first.model("a")["seen"]
    assert len(seen) == total_events(store) and set(seen.values()) == {1}


def test_no_projection_changes_the_envelope_it_is_handed():
    """A joint catch-up hands every projection the same envelope object."""
    import copy

    from projections import envelope

    store = PartitionedMemoryStore()
    played(store, games=10, seed=13)
    models = {name: projection.initial() for name, projection in PROJECTIONS.items()}
    for partition in range(store.partitions):
        for recorded in store.read_log(partition, 0):
            given = envelope(recorded.stream, recorded.version, recorded.event, partition, recorded.position)
            kept = copy.deepcopy(given)
            for name, projection in PROJECTIONS.items():
                projection.apply(models[name], given)
                assert given == kept, (name, recorded)


def test_a_catch_up_builds_no_envelope_for_an_event_every_projection_ignores(monkeypatch):
    """A game's own event that is not the last of its append changes no read model here
    (``projections.base.restated``): it is counted as applied, but not enveloped."""
    import service.background.projections_runner as runner_module
    from projections.base import restated

    store = PartitionedMemoryStore()
    played(store, games=6, seed=14)
    bodies = [r.event for p in range(store.partitions) for r in store.read_log(p, 0)]
    built = []
    monkeypatch.setattr(runner_module, "envelope", lambda *args: built.append(args) or envelope(*args))
    runner = ProjectionRunner(store)
    assert runner.catch_up_together() == {name: len(bodies) for name in runner.names}
    assert 0 < len(built) == sum(1 for body in bodies if not restated(body)) < len(bodies)
    for name in runner.names:
        assert runner.model(name) == runner.replay(name), name
