"""State-load time for games of 50, 500 and 5,000 events, with and without snapshots.

A load here is cold (a new service, so no cache): read the newest snapshot at or before
the head plus the tail, or every event, and fold. Prints milliseconds per load.

    .venv/bin/python bench/bench_state_load.py
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.games.dynasties import RULES  # noqa: E402
from service.adapters.sqlite_store import SqliteStore  # noqa: E402
from service.play.services import GameService  # noqa: E402
from tests.helpers.play import play_randomly, start_game  # noqa: E402

REGISTRY = {"dynasties": RULES}
SIZES = (50, 500, 5000)
SNAPSHOT_EVERY = 100


def build(store, size: int) -> str:
    writer = GameService(store, REGISTRY, snapshot_every=SNAPSHOT_EVERY)
    game_id, players = start_game(writer, "dynasties", 4, {"starting_gold": 100_000})
    play_randomly(writer, game_id, players, random.Random(size), until_version=size)
    return game_id


def time_loads(store, game_id: str, snapshot_every: int, repeat: int = 30) -> float:
    samples = []
    for _ in range(repeat):
        reader = GameService(store, REGISTRY, snapshot_every=snapshot_every)
        start = time.perf_counter()
        reader.load(game_id)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteStore(f"{tmp}/bench.db")
        print(f"cold state load, SQLite, Dynasties 4 seats, snapshot every {SNAPSHOT_EVERY} events (median ms)")
        print(f"{'events':>8} {'no snapshots':>14} {'snapshots':>11}")
        for size in SIZES:
            game_id = build(store, size)
            version = GameService(store, REGISTRY).load(game_id).version
            without = time_loads(store, game_id, snapshot_every=0)
            with_snapshots = time_loads(store, game_id, snapshot_every=SNAPSHOT_EVERY)
            print(f"{version:>8} {without:>14.2f} {with_snapshots:>11.2f}")


if __name__ == "__main__":
    main()
