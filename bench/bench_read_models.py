"""Read models at 1,000, 10,000 and 100,000 games: the cost of applying one event, and of
``GET /games``, should not grow with the number of games.

For each store kind (SQLite files; a Redis started on a spare port, one database per
size, 16 partitions) one store per size is filled: games are created through
``GameService`` (half of them with one seat taken, so histories have rows too) and the
projections catch up in one streaming catch-up (timed: events/s, saved every 5,000
events). Then the sizes are sampled in interleaved rounds, so the machine's changing
load falls on every size alike. Each sample:

* apply: append one event to a random game (a seat taken, which touches the lobby row,
  the history rows and the scoreboard's game row), then time one catch-up of every
  projection (read the checkpoints and the log tail, load the rows, apply, save the
  changed rows, index entries and checkpoints in one write). Median and p90 of 300.
* GET /games: the first page (limit 50) and a filtered page (waiting dynasties games)
  through the Flask app in-process, the read models read as stored (RQ mode: no
  catch-up on read). Median and p90 of 300.

The bench runs as the server's web workers do, in a gevent-patched process: on SQLite
that is what moves the WAL's checkpoints out of the commits into a thread of their own
(``SqliteDatastore``), as in ``python -m service serve``. Without it every thousandth
commit copies the WAL back into the database file, and at 100,000 games those pages are
all different ones: the mean apply then grows with the size for a reason the server does
not have.

    .venv/bin/python bench/bench_read_models.py [--sizes 1000 10000 100000] [--stores sqlite redis]
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()  # before anything imports socket, threading or time

import argparse  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain.games import default_registry  # noqa: E402
from service.api.app import create_app  # noqa: E402
from service.background.projections_runner import ProjectionRunner  # noqa: E402
from service.background.read_models import ReadModels  # noqa: E402
from service.base.config import Config  # noqa: E402
from service.play.services import GameService  # noqa: E402
from service.wiring.stores import open_store  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentiles(values: list[float]) -> str:
    values = sorted(values)
    return f"{statistics.median(values):7.2f} / {values[int(len(values) * 0.9)]:7.2f}"


class Lobby:
    """One store with ``size`` games, its service, runner and in-process app."""

    def __init__(self, store_url: str, size: int, rng: random.Random, row_cache: int | None = None):
        self.size = size
        config = Config(store_url=store_url, projections="rq", redis_prefix=f"rmbench{size}")
        self.store = open_store(config)
        cache = {} if row_cache is None else {"row_cache": row_cache}
        self.runner = ProjectionRunner(self.store, save_every=5000, **cache)
        self.service = GameService(self.store, default_registry(),
                                   read_models=ReadModels(self.runner, catch_up_on_read=False, mode="rq"))
        self.client = create_app(config, service=self.service).test_client()
        self.players = [self.service.players.create(f"p{i}") for i in range(1000)]
        started = time.perf_counter()
        self.open_games: list[str] = []
        for number in range(size):
            game = self.service.create_game(self.players[number % len(self.players)], "dynasties", {}, 4)
            if number % 2:
                self.service.join_game(game.id, self.players[(number * 7 + 1) % len(self.players)])
            self.open_games.append(game.id)
        self.created = time.perf_counter() - started
        started = time.perf_counter()
        self.applied = sum(self.runner.catch_up(name) for name in self.runner.names)
        self.caught = time.perf_counter() - started
        self.rng = rng
        self.apply_ms: list[float] = []
        self.lobby_ms: list[float] = []
        self.filtered_ms: list[float] = []
        print(f"  {size:>7,} games: made in {self.created:5.1f} s; caught up {self.applied:,} event applications "
              f"in {self.caught:5.1f} s ({self.applied / self.caught:,.0f}/s, saved every 5,000)", flush=True)

    def sample(self) -> None:
        """One event applied (a seat taken) and two lobby reads, timed."""
        while True:
            game_id = self.rng.choice(self.open_games)
            game = self.service.load(game_id)
            if len(game.table.open_seats()) <= 1:
                self.open_games.remove(game_id)
                continue
            seated = set(game.table.players.values())
            joiner = next(p for p in self.rng.sample(self.players, 10) if p["id"] not in seated)
            self.service.join_game(game_id, joiner)
            break
        started = time.perf_counter()
        for name in self.runner.names:
            self.runner.catch_up(name)
        self.apply_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        response = self.client.get("/games?limit=50")
        self.lobby_ms.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200 and len(response.get_json()["games"]) == 50
        started = time.perf_counter()
        response = self.client.get("/games?type=dynasties&status=waiting&limit=50&offset=50")
        self.filtered_ms.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200


def run(url_for, sizes: list[int], samples: int, row_cache: int | None = None) -> list[Lobby]:
    """Build one store per size, then sample them in interleaved rounds (the machine's load
    drifts; interleaving spreads it evenly over the sizes)."""
    rng = random.Random(5)
    lobbies = [Lobby(url_for(size), size, rng, row_cache) for size in sizes]
    for _ in range(samples):
        for lobby in lobbies:
            lobby.sample()
    for lobby in lobbies:
        print(f"  {lobby.size:>7,} games: one event, every projection (p50 / p90 ms) {percentiles(lobby.apply_ms)}; "
              f"GET /games {percentiles(lobby.lobby_ms)}; filtered page 2 {percentiles(lobby.filtered_ms)}",
              flush=True)
        lobby.store.close()
    return lobbies


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--stores", nargs="+", default=["sqlite", "redis"])
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--row-cache", type=int, default=None,
                        help="rows the runner keeps per projection (default: the runner's 20,000; 0: every row "
                             "is read from the store, as at any size once the model outgrows the cache)")
    args = parser.parse_args()
    results = {}
    for kind in args.stores:
        tmp = tempfile.mkdtemp(prefix="rm-bench-")
        proc = None
        try:
            if kind == "sqlite":
                def url_for(size, tmp=tmp):
                    return f"sqlite:///{tmp}/events-{size}.db"
            else:
                port = free_port()
                proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                         "--appendonly", "no", "--dir", tmp], stdout=subprocess.DEVNULL)
                time.sleep(0.5)

                def url_for(size, port=port):
                    return f"redis://127.0.0.1:{port}/{args.sizes.index(size)}"
            print(f"{kind}:", flush=True)
            results[kind] = run(url_for, args.sizes, args.samples, args.row_cache)
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait()
            shutil.rmtree(tmp, ignore_errors=True)
    print("\n| store | games | apply one event, all projections (p50 / p90 ms) | GET /games (p50 / p90 ms) "
          "| filtered page 2 (p50 / p90 ms) |")
    print("|---|---|---|---|---|")
    for kind, lobbies in results.items():
        for lobby in lobbies:
            print(f"| {kind} | {lobby.size:,} | {percentiles(lobby.apply_ms)} | {percentiles(lobby.lobby_ms)} "
                  f"| {percentiles(lobby.filtered_ms)} |")
        first, last = lobbies[0], lobbies[-1]

        def ratio(values_last, values_first):
            return statistics.median(values_last) / statistics.median(values_first)

        print(f"| {kind} | ratio {last.size:,} ÷ {first.size:,} | {ratio(last.apply_ms, first.apply_ms):.2f} "
              f"| {ratio(last.lobby_ms, first.lobby_ms):.2f} | {ratio(last.filtered_ms, first.filtered_ms):.2f} |")


if __name__ == "__main__":
    main()
