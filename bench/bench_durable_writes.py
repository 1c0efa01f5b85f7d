"""What the durability setting costs an append, side by side with it off, in one run.

Starts a redis-server master with one replica (no persistence: the replica's confirmation
is what is measured), then in interleaved rounds appends one event per append to the
Redis store from ``--threads`` threads, with ``GAMES_REDIS_WAIT_REPLICAS`` off and at 1
(every append then waits, in its own pipeline, for the replica's WAIT answer). Per round
and mode: appends/s and the append's p50 / p99; then the median round and the ratio.

    .venv/bin/python bench/bench_durable_writes.py [--rounds 5] [--appends 3000] [--threads 8]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import redis  # noqa: E402

from service.adapters.redis_store import RedisStore  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(port: int, directory: str, *extra: str) -> subprocess.Popen:
    os.makedirs(directory)
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", directory, *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while True:
        try:
            if redis.Redis(port=port).ping():
                return proc
        except redis.RedisError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit("redis-server did not start")
        time.sleep(0.05)


def one_round(url: str, wait: int, appends: int, threads: int) -> dict[str, float]:
    store = RedisStore(url, partitions=16, prefix=f"bench-{uuid.uuid4().hex[:8]}", wait_replicas=wait)
    latencies: list[float] = []
    lock = threading.Lock()

    def work(lane: int) -> None:
        mine = []
        for n in range(appends // threads):
            stream = f"game-{lane}-{n % 10}"
            started = time.perf_counter()
            store.append(stream, n // 10, [{"type": "CardPlayed", "data": {"n": n, "lane": lane}}])
            mine.append(time.perf_counter() - started)
        with lock:
            latencies.extend(mine)

    started = time.perf_counter()
    workers = [threading.Thread(target=work, args=(lane,)) for lane in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    elapsed = time.perf_counter() - started
    store.close()
    latencies.sort()
    return {"appends_s": len(latencies) / elapsed, "p50": latencies[len(latencies) // 2] * 1000,
            "p99": latencies[int(len(latencies) * 0.99)] * 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--appends", type=int, default=3000)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        raise SystemExit("redis-server is not on PATH")
    workdir = tempfile.mkdtemp(prefix="bench-durable-")
    master_port, replica_port = free_port(), free_port()
    processes = [start(master_port, f"{workdir}/master")]
    try:
        processes.append(start(replica_port, f"{workdir}/replica", "--replicaof", "127.0.0.1", str(master_port)))
        while redis.Redis(port=replica_port).info("replication").get("master_link_status") != "up":
            time.sleep(0.05)
        url = f"redis://127.0.0.1:{master_port}/0"
        rows: dict[int, list[dict[str, float]]] = {0: [], 1: []}
        print(f"{args.rounds} rounds of {args.appends} appends from {args.threads} threads, "
              f"master + 1 replica, {os.cpu_count()} cores")
        for number in range(args.rounds):
            for wait in ((0, 1) if number % 2 == 0 else (1, 0)):
                row = one_round(url, wait, args.appends, args.threads)
                rows[wait].append(row)
                print(f"round {number + 1} wait_replicas={wait}: {row['appends_s']:7.0f} appends/s  "
                      f"p50 {row['p50']:.2f} ms  p99 {row['p99']:.2f} ms", flush=True)
        ratios = [on["appends_s"] / off["appends_s"] for on, off in zip(rows[1], rows[0], strict=True)]
        for wait, label in ((0, "off"), (1, "GAMES_REDIS_WAIT_REPLICAS=1")):
            median = sorted(rows[wait], key=lambda r: r["appends_s"])[len(rows[wait]) // 2]
            print(f"| {label} | {median['appends_s']:,.0f} appends/s | p50 {median['p50']:.2f} ms, "
                  f"p99 {median['p99']:.2f} ms |")
        print(f"on / off, per round: {', '.join(f'{r:.2f}' for r in ratios)}; median {statistics.median(ratios):.2f}")
    finally:
        for proc in processes:
            proc.terminate()
            proc.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
