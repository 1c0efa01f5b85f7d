"""Read models at 1,000, 10,000 and 100,000 games: the cost of applying one event, and of
``GET /games``, should not grow with the number of games.

For each store (a SQLite file; a Redis started on a spare port, 16 partitions) the
lobby grows in steps: games are created through ``GameService`` (half of them with one
seat taken, so histories have rows too) and the projections catch up with one streaming
rebuild-style catch-up (timed: events/s, saved every 5,000 events). At each size:

* apply: append one event to a random game (a seat taken, which touches the lobby row,
  the history rows and the scoreboard's game row), then time one catch-up of every
  projection (read the checkpoints and the log tail, load the rows, apply, save the
  changed rows, index entries and checkpoints in one write). Median and p90 of 300.
* GET /games: the first page (limit 50) and a filtered page (waiting dynasties games)
  through the Flask app in-process, the read models read as stored (RQ mode: no
  catch-up on read). Median and p90 of 300.

    .venv/bin/python bench/bench_read_models.py [--sizes 1000 10000 100000] [--stores sqlite redis]
"""

from __future__ import annotations

import argparse
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain.games import default_registry  # noqa: E402
from service.app import create_app  # noqa: E402
from service.bootstrap import open_store  # noqa: E402
from service.config import Config  # noqa: E402
from service.projections_runner import ProjectionRunner  # noqa: E402
from service.read_models import ReadModels, attach  # noqa: E402
from service.services import GameService  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentiles(values: list[float]) -> str:
    values = sorted(values)
    return f"{statistics.median(values):7.2f} / {values[int(len(values) * 0.9)]:7.2f}"


def run(store_url: str, sizes: list[int], samples: int) -> list[tuple]:
    config = Config(store_url=store_url, projections="rq", redis_prefix="rmbench")
    store = open_store(config)
    service = GameService(store, default_registry())
    runner = ProjectionRunner(store, save_every=5000)
    attach(service, ReadModels(runner, catch_up_on_read=False, mode="rq"))
    client = create_app(config, service=service).test_client()
    players = [service.create_player(f"p{i}") for i in range(1000)]
    rng = random.Random(5)
    games: list[str] = []
    rows = []
    for size in sizes:
        started = time.perf_counter()
        while len(games) < size:
            host = players[len(games) % len(players)]
            game = service.create_game(host, "dynasties", {}, 4)
            if len(games) % 2:
                service.join_game(game.id, players[(len(games) * 7 + 1) % len(players)])
            games.append(game.id)
        created = time.perf_counter() - started
        started = time.perf_counter()
        applied = sum(runner.catch_up(name) for name in runner.names)
        caught = time.perf_counter() - started
        apply_ms = []
        open_games = [g for g in games if len(service.load(g).table.open_seats()) > 1]
        joiners = iter(rng.sample(players, len(players)))
        for _ in range(samples):
            game_id = rng.choice(open_games)
            try:
                service.join_game(game_id, next(joiners))
            except Exception:  # already seated there: draw again
                joiners = iter(rng.sample(players, len(players)))
                continue
            if len(service.load(game_id).table.open_seats()) <= 1:
                open_games.remove(game_id)
            started = time.perf_counter()
            for name in runner.names:
                runner.catch_up(name)
            apply_ms.append((time.perf_counter() - started) * 1000)
        lobby_ms, filtered_ms = [], []
        for _ in range(samples):
            started = time.perf_counter()
            response = client.get("/games?limit=50")
            lobby_ms.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200 and len(response.get_json()["games"]) == 50
            started = time.perf_counter()
            response = client.get("/games?type=dynasties&status=waiting&limit=50&offset=50")
            filtered_ms.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200
        total = client.get("/games?limit=1").get_json()["total"]
        rows.append((size, total, created, applied, caught, apply_ms, lobby_ms, filtered_ms))
        print(f"  {size:>7,} games (lobby total {total:,}): made in {created:5.1f} s; caught up {applied:,} "
              f"event applications in {caught:5.1f} s ({applied / caught:,.0f}/s); one event, every projection "
              f"(p50 / p90 ms) {percentiles(apply_ms)}; GET /games {percentiles(lobby_ms)}; "
              f"filtered page 2 {percentiles(filtered_ms)}", flush=True)
    store.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--stores", nargs="+", default=["sqlite", "redis"])
    parser.add_argument("--samples", type=int, default=300)
    args = parser.parse_args()
    results = {}
    for kind in args.stores:
        tmp = tempfile.mkdtemp(prefix="rm-bench-")
        proc = None
        try:
            if kind == "sqlite":
                url = f"sqlite:///{tmp}/events.db"
            else:
                port = free_port()
                proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                         "--appendonly", "no", "--dir", tmp], stdout=subprocess.DEVNULL)
                time.sleep(0.5)
                url = f"redis://127.0.0.1:{port}/0"
            print(f"{kind}:", flush=True)
            results[kind] = run(url, args.sizes, args.samples)
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait()
            shutil.rmtree(tmp, ignore_errors=True)
    print("\n| store | games | apply one event, all projections (p50 / p90 ms) | GET /games (p50 / p90 ms) "
          "| filtered page 2 (p50 / p90 ms) |")
    print("|---|---|---|---|---|")
    for kind, rows in results.items():
        for size, _, _, _, _, apply_ms, lobby_ms, filtered_ms in rows:
            print(f"| {kind} | {size:,} | {percentiles(apply_ms)} | {percentiles(lobby_ms)} | {percentiles(filtered_ms)} |")
        first, last = rows[0], rows[-1]
        print(f"| {kind} | ratio {last[0]:,} ÷ {first[0]:,} | {statistics.median(last[5]) / statistics.median(first[5]):.2f} "
              f"| {statistics.median(last[6]) / statistics.median(first[6]):.2f} "
              f"| {statistics.median(last[7]) / statistics.median(first[7]):.2f} |")


if __name__ == "__main__":
    main()
