"""The projections runner's row cache is bounded in bytes as well as rows (issue 38): a
long-running worker's memory stops growing once the cache is full, whatever the rows' sizes,
and a cache that keeps evicting still gives the same read models."""

from __future__ import annotations

import random
import tracemalloc
from typing import Any

from projections import PROJECTIONS
from service.adapters.codec import dumps
from service.adapters.sqlite_store import SqliteStore
from service.background.projections_runner import ProjectionRunner
from service.background.stored_tables import ROW_OVERHEAD, RowCache
from service.play.services import GameService
from tests.games.highcard import RULES
from tests.unit.projections.playing import new_players, open_game, play_moves


def test_the_oldest_rows_go_once_the_bytes_pass_the_budget() -> None:
    cache = RowCache(size=1000, budget=3 * (ROW_OVERHEAD + 2 + 100))
    for key in "abcd":
        cache.put("t", key, b"x" * 100)
    assert list(cache.rows) == [("t", "b"), ("t", "c"), ("t", "d")]  # a went: the rows bound did not
    assert cache.bytes == 3 * (ROW_OVERHEAD + 2 + 100)


def test_a_full_cache_holds_in_memory_about_what_it_counts() -> None:
    """orjson's output carries its whole buffer (4 kB for a row of 60 bytes, with orjson 3.12):
    kept as it came, a full cache held over ten times its budget, the growth the hour's soak
    showed in the projections' worker. It keeps a right-sized copy instead."""
    budget = 1_000_000
    cache = RowCache(size=100_000, budget=budget)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(20_000):
            cache.put("games", f"game-{i:012x}", dumps({"id": f"{i:016x}", "status": "finished", "seats": [i, i + 1]}))
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert budget - 400 < cache.bytes <= budget
    assert held < 1.5 * budget, f"the cache counts {cache.bytes:,} bytes and holds {held:,}"


def test_the_bytes_follow_a_row_rewritten_read_and_cleared() -> None:
    cache = RowCache(size=1000, budget=10_000)
    cache.put("t", "a", b"x" * 500)
    cache.put("t", "b", None)
    cache.put("t", "a", b"y" * 10)  # rewritten smaller
    assert cache.bytes == (ROW_OVERHEAD + 2 + 10) + (ROW_OVERHEAD + 2)
    assert cache.get("t", "a") == b"y" * 10
    cache.put("t", "c", b"z" * (10_000 - 3 * ROW_OVERHEAD - 6 - 10))  # exactly full
    assert set(cache.rows) == {("t", "a"), ("t", "b"), ("t", "c")}
    cache.put("t", "d", b"")  # one more row: the least recently used (b) goes
    assert set(cache.rows) == {("t", "a"), ("t", "c"), ("t", "d")}
    cache.clear()
    assert cache.bytes == 0 and not cache.rows


def test_a_runner_over_many_finished_games_keeps_to_its_budget_and_its_models_are_right(tmp_path: Any) -> None:
    """Real SQLite, the real read models: games finish one after another and the runner
    catches up after each, as the projections worker does on a long run."""
    store = SqliteStore(str(tmp_path / "events.db"))
    service = GameService(store, {"highcard": RULES})
    budget = 6_000
    runner = ProjectionRunner(store, row_cache_bytes=budget)
    unbounded = ProjectionRunner(store, {name: PROJECTIONS[name] for name in PROJECTIONS})  # the default budget
    players = new_players(service, 6)
    rng = random.Random(38)
    held = []
    for _ in range(25):
        game_id, by_seat = open_game(service, "highcard", rng.sample(players, 2), 2)
        play_moves(service, game_id, by_seat, rng)
        runner.catch_up_all()
        held.append({name: cache.bytes for name, cache in runner._caches.items()})
    assert all(size <= budget for sizes in held for size in sizes.values())
    assert any(size > budget // 2 for size in held[-1].values())  # the budget was what bounded it
    for name in runner.names:
        assert runner.model(name) == unbounded.replay(name), name  # stored rows = a fold from zero
