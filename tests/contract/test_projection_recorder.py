"""The ``ProjectionRecorder`` contract: read models per row and index entry, saved with their
checkpoints in one compare-and-set."""

from __future__ import annotations

import pytest

from service.adapters.store import CheckpointMoved, RowsSave
from tests.contract.backends import StoreContract


class ProjectionRecorderContract(StoreContract):
    """The tests every store's read models pass."""

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

    def test_several_saves_at_once_are_each_a_compare_and_set_of_its_own(self, store):
        store.save_rows("history", {0: 2}, None, [("entries", "p/g", b"1")], [])
        assert store.load_checkpoints_many(["lobby", "history"]) == {"lobby": None, "history": {0: 2}}
        moved = store.save_many([
            RowsSave("lobby", {0: 3}, None, [("games", "g-1", b'{"n":1}')], [("all", "g-1", 1.0)]),
            RowsSave("history", {0: 3}, {0: 1}, [("entries", "p/g", b"2")], [("player/p", "p/g", 1.0)]),  # stale
            RowsSave("scoreboard", {0: 3}, None, [("types", "x", b"{}")], []),
        ])
        assert moved == {"history"}
        assert store.load_checkpoints_many(["scoreboard", "history", "lobby"]) == \
            {"scoreboard": {0: 3}, "history": {0: 2}, "lobby": {0: 3}}
        assert store.get_rows("history", "entries", ["p/g"]) == [b"1"]  # the refused save wrote nothing
        assert store.index_count("history", "player/p") == 0
        assert store.get_rows("lobby", "games", ["g-1"]) == [b'{"n":1}'] and store.index_page("lobby", "all") == ["g-1"]
        assert store.get_rows("scoreboard", "types", ["x"]) == [b"{}"]
        assert store.save_many([RowsSave("lobby", {0: 4}, {0: 3}, [], [("all", "g-1", None)])]) == set()
        assert store.load_checkpoints("lobby") == {0: 4} and store.index_count("lobby", "all") == 0
        assert store.save_many([]) == set() and store.load_checkpoints_many([]) == {}

    def test_many_rows_come_back_in_the_order_asked(self, store):
        keys = [f"g-{i:04d}" for i in range(1200)]
        store.save_rows("lobby", {0: 1}, None, [("games", k, f'{{"k":"{k}"}}'.encode()) for k in keys[::2]], [])
        asked = [*reversed(keys), "missing"]
        expected = [f'{{"k":"{k}"}}'.encode() if int(k[2:]) % 2 == 0 else None for k in reversed(keys)] + [None]
        assert store.get_rows("lobby", "games", asked) == expected
        assert store.get_rows("lobby", "games", []) == []
        assert len(store.table_rows("lobby", "games")) == 600
        assert store.table_rows("lobby", "nothing") == {}

    def test_an_index_count_follows_adds_moves_and_removals(self, store):
        previous = None

        def save(*index):
            nonlocal previous
            checkpoints = {0: (previous or {0: 0})[0] + 1}
            store.save_rows("m", checkpoints, previous, [], list(index))
            previous = checkpoints

        save(("a", "k1", 1.0), ("a", "k2", 2.0), ("b", "k1", 5.0))
        save(("a", "k1", 3.0), ("a", "k3", None))  # a move and a removal of a key not there
        assert (store.index_count("m", "a"), store.index_count("m", "b")) == (2, 1)
        assert store.index_entries("m", "a") == [("k2", 2.0), ("k1", 3.0)]
        save(("a", "k1", None), ("a", "k1", None), ("a", "k4", 0.5), ("a", "k4", 9.0))  # twice in one save
        assert store.index_count("m", "a") == 2 and store.index_entries("m", "a") == [("k2", 2.0), ("k4", 9.0)]
        save(("a", "k2", 9.0))  # a tie on the score is ordered by key
        assert store.index_page("m", "a") == ["k2", "k4"]
        assert store.index_page("m", "a", 1) == ["k4"] and store.index_page("m", "a", 5) == []
        assert store.index_page("m", "a", 0, 0) == []
        save(("b", "k1", None))
        assert store.index_count("m", "b") == 0 and store.index_page("m", "b") == []

    def test_read_models_outlive_the_store_object(self, store, reopen):
        store.save_rows("lobby", {0: 4}, None, [("games", "g-1", b'{"n":3}')], [("all", "g-1", 1.0)])
        store.close()

        again = reopen()
        assert again.load_checkpoints("lobby") == {0: 4}
        assert again.get_rows("lobby", "games", ["g-1"]) == [b'{"n":3}']
        assert again.index_page("lobby", "all") == ["g-1"] and again.index_count("lobby", "all") == 1
        with pytest.raises(CheckpointMoved):
            again.save_rows("lobby", {0: 5}, None, [], [])
        again.save_rows("lobby", {0: 5}, {0: 4}, [], [("all", "g-2", 0.0)])
        assert again.index_page("lobby", "all") == ["g-2", "g-1"]


class TestProjectionRecorder(ProjectionRecorderContract):
    pass
