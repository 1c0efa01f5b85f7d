"""Projection benchmark: rebuild speed, and lag behind a steady command load.

    PYTHONPATH=. .venv/bin/python bench/bench_projections.py [--events 100000] [--rate 50] [--seconds 20]

1. Rebuild speed. A log of at least ``--events`` events is made by playing random
   Dynasties games through ``GameService`` on SQLite (kept in /tmp, so later runs skip
   this), then every projection is rebuilt from position zero and timed: events/s. The
   same log is copied into Redis (16 partitions) and rebuilt there too.
2. Lag under load (needs Redis). A worker process (``python -m service worker``) runs;
   this process plays moves in 20 games at a fixed rate (each append enqueues catch-up
   jobs, as the web server does) for ``--seconds``. A sampler measures, for every
   append, the time until each projection's checkpoint covers it (append -> visible in
   the read model), and samples the lag in events. Percentiles are printed.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402
from rq import Queue  # noqa: E402

from domain.games.dynasties import RULES  # noqa: E402
from service.adapters.redis_store import RedisStore  # noqa: E402
from service.adapters.sqlite_store import SqliteStore  # noqa: E402
from service.adapters.store import partition_of  # noqa: E402
from service.background.projections_runner import ProjectionRunner  # noqa: E402
from service.base.config import Config  # noqa: E402
from service.play.services import GameService  # noqa: E402
from service.streams.envelopes import stream_of  # noqa: E402
from service.wiring.bootstrap import build_service  # noqa: E402
from tests.unit.projections.playing import open_game, play_moves  # noqa: E402

REGISTRY = {RULES.kind: RULES}


# -- making a log --------------------------------------------------------------------------
def start_game(service: GameService, pool: list[dict], rng: random.Random) -> tuple[str, list[dict]]:
    return open_game(service, RULES.kind, rng.sample(pool, rng.choice((2, 3, 4))), 0)


def move(service: GameService, game_id: str, by_seat: list[dict], rng: random.Random, undo_rate: float = 0.0) -> bool:
    """One random legal move (or, now and then, an undo); False once the game is over."""
    return play_moves(service, game_id, by_seat, rng, moves=1, undo_rate=undo_rate) == 1


def make_log(path: Path, events: int, seed: int = 1) -> SqliteStore:
    store = SqliteStore(str(path))
    if store.log_head(0) >= events:
        print(f"log: {store.log_head(0):,} events in {path} (cached)")
        return store
    service = GameService(store, REGISTRY)
    rng = random.Random(seed + store.log_head(0))
    pool = [service.players.create(f"bench-{i}") for i in range(24)]
    started = time.perf_counter()
    games = 0
    while store.log_head(0) < events:
        game_id, by_seat = start_game(service, pool, rng)
        while move(service, game_id, by_seat, rng, undo_rate=0.02):
            pass
        games += 1
        if games % 50 == 0:
            print(f"  ... {games} games, {store.log_head(0):,} events", flush=True)
    print(f"log: played {games} games, {store.log_head(0):,} events in {time.perf_counter() - started:.1f} s")
    return store


def copy_log(source: SqliteStore, target: RedisStore) -> None:
    """The log appended again in its original order, one append per original batch."""
    versions: dict[str, int] = {}
    after = 0
    while records := source.read_log(0, after, 5000):
        batch: list = []
        for record in records + [None]:
            if batch and (record is None or record.stream != batch[0].stream
                          or record.event.get("batch") != batch[0].event.get("batch")):
                stream = batch[0].stream
                versions[stream] = target.append(stream, versions.get(stream, 0), [r.event for r in batch])
                batch = []
            if record is not None:
                batch.append(record)
        after = records[-1].position


# -- 1. rebuild speed ------------------------------------------------------------------------
def bench_rebuild(store, label: str) -> None:
    runner = ProjectionRunner(store, batch_size=1000, save_every=10_000)
    total = sum(runner.heads().values())
    print(f"\nrebuild from position zero, {label}: {total:,} events, {store.partitions} partition(s)")
    for name in runner.names:
        started = time.perf_counter()
        applied = runner.rebuild(name)
        took = time.perf_counter() - started
        print(f"  {name:<11} {applied:>9,} events  {took:6.2f} s  {applied / took:>9,.0f} events/s")


# -- 2. lag under a steady load ---------------------------------------------------------------
def percentiles(values: list[float]) -> str:
    if not values:
        return "no samples"
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return (f"p50 {at(0.50):7.1f}  p90 {at(0.90):7.1f}  p99 {at(0.99):7.1f}  max {ordered[-1]:7.1f}"
            f"  mean {statistics.fmean(ordered):7.1f}")


def bench_lag(url: str, rate: float, seconds: float) -> None:
    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    config = Config(store_url=url, projections="rq", redis_prefix=prefix, queue_name=prefix)
    service = build_service(config, REGISTRY)
    store = service.store
    names = ProjectionRunner(store).names
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAMES_REDIS_PREFIX": prefix}
    worker = subprocess.Popen([sys.executable, "-m", "service", "worker", "--store", url, "--queue",
                               config.queue_name, "--lanes", "projections"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        rng = random.Random(7)
        pool = [service.players.create(f"load-{i}") for i in range(30)]
        games = [start_game(service, pool, rng) for _ in range(20)]
        sampler_store = RedisStore(url, partitions=store.partitions, prefix=prefix)
        wait_current(sampler_store, names, timeout=60)

        pending: list[tuple[float, int, int]] = []  # (appended at, partition, position it needs)
        latencies: dict[str, list[float]] = {name: [] for name in names}
        open_for: dict[str, list[tuple[float, int, int]]] = {name: [] for name in names}
        lags: dict[str, list[int]] = {name: [] for name in names}
        lock = threading.Lock()
        running = threading.Event()
        running.set()

        def sample():
            while running.is_set() or any(open_for.values()):
                with lock:
                    for name in names:
                        open_for[name].extend(pending)
                    pending.clear()
                heads = [sampler_store.log_head(p) for p in range(sampler_store.partitions)]
                now = time.perf_counter()
                for name in names:
                    checkpoints = sampler_store.load_checkpoints(name) or {}
                    lags[name].append(sum(h - checkpoints.get(p, 0) for p, h in enumerate(heads)))
                    waiting = []
                    for appended, partition, position in open_for[name]:
                        if checkpoints.get(partition, 0) >= position:
                            latencies[name].append((now - appended) * 1000)
                        else:
                            waiting.append((appended, partition, position))
                    open_for[name] = waiting
                time.sleep(0.002)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        interval = 1.0 / rate
        commands = 0
        head_before = sum(sampler_store.log_head(p) for p in range(store.partitions))
        started = next_at = time.perf_counter()
        turn = 0
        while time.perf_counter() - started < seconds:
            game_id, by_seat = games[turn % len(games)]
            if not move(service, game_id, by_seat, rng):
                games[turn % len(games)] = start_game(service, pool, rng)
            partition = partition_of(stream_of(game_id), store.partitions)
            with lock:
                pending.append((time.perf_counter(), partition, store.log_head(partition)))
            commands += 1
            turn += 1
            next_at += interval
            delay = next_at - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
        took = time.perf_counter() - started
        events = sum(sampler_store.log_head(p) for p in range(store.partitions)) - head_before
        running.clear()
        sampler.join(timeout=60)
        finished_jobs = len(Queue(config.lane_queue("projections"),
                                  connection=redis.Redis.from_url(url)).finished_job_registry)
        print("\nlag under load (Redis, 16 partitions, one SimpleWorker process, 20 games in play):")
        print(f"  load: {commands} commands in {took:.1f} s = {commands / took:.0f} commands/s,"
              f" {events:,} events = {events / took:,.0f} events/s; catch-up jobs run: ~{finished_jobs}")
        for name in names:
            print(f"  {name:<11} append -> visible (ms):  {percentiles(latencies[name])}")
        for name in names:
            print(f"  {name:<11} lag in events (sampled): {percentiles([float(x) for x in lags[name]])}")
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=30)
        client = redis.Redis.from_url(url)
        keys = set(client.scan_iter(match=f"{prefix}*", count=1000)) | set(client.scan_iter(match=f"*{prefix}*", count=1000))
        if keys:
            client.delete(*keys)


def wait_current(store, names: list[str], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    runner = ProjectionRunner(store)
    while any(runner.lag(name) for name in names):
        if time.monotonic() > deadline:
            raise SystemExit("the worker did not catch up; is it running?")
        time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100_000, help="size of the log to rebuild")
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    parser.add_argument("--rate", type=float, default=50.0, help="commands per second in the load")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the load runs")
    parser.add_argument("--skip-rebuild", action="store_true")
    parser.add_argument("--skip-lag", action="store_true")
    args = parser.parse_args()

    redis_up = _reachable(args.redis)
    if not args.skip_rebuild:
        sqlite = make_log(Path(f"/tmp/bench_projections_{args.events}.db"), args.events)
        bench_rebuild(sqlite, "SQLite")
        if redis_up:
            prefix = f"bench-{uuid.uuid4().hex[:8]}"
            target = RedisStore(args.redis, partitions=16, prefix=prefix)
            try:
                started = time.perf_counter()
                copy_log(sqlite, target)
                print(f"\n(copied the log into Redis in {time.perf_counter() - started:.1f} s)")
                bench_rebuild(target, "Redis")
            finally:
                client = redis.Redis.from_url(args.redis)
                keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
                for start in range(0, len(keys), 1000):
                    client.delete(*keys[start:start + 1000])
    if not args.skip_lag:
        if not redis_up:
            print("\nlag under load: skipped (no Redis at", args.redis, ")")
        else:
            bench_lag(args.redis, args.rate, args.seconds)


def _reachable(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=0.5).ping())
    except redis.RedisError:
        return False


if __name__ == "__main__":
    main()
