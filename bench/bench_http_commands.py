"""Commands per second over real HTTP: gunicorn (2 gevent workers) on SQLite or Redis.

Several client threads each play their own Dynasties games through the API: read
legal-commands, post one, repeat. Reports commands/s and the latency of the POST.
The clients run on the same 2 cores as the server, so the figures are a floor.

    .venv/bin/python bench/bench_http_commands.py [--store redis://127.0.0.1:6379/0] [--seconds 15]
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import requests


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def player(url: str, name: str) -> requests.Session:
    token = requests.post(f"{url}/players", json={"name": name}, timeout=10).json()["token"]
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {token}"
    return session


def client_loop(url: str, seed: int, deadline: float, latencies: list[float], errors: list[str]) -> None:
    rng = random.Random(seed)
    while time.monotonic() < deadline:
        seats = [player(url, f"bench-{seed}-{i}") for i in range(3)]
        game = seats[0].post(f"{url}/games", json={"type": "dynasties", "seats": 3}).json()["id"]
        for session in seats:
            session.post(f"{url}/games/{game}/join", json={})
        while time.monotonic() < deadline:
            summary = seats[0].get(f"{url}/games/{game}").json()
            if summary["status"] == "finished":
                break
            seat = rng.choice(summary["to_move"])
            legal = seats[seat].get(f"{url}/games/{game}/legal-commands").json()["commands"]
            start = time.perf_counter()
            posted = seats[seat].post(f"{url}/games/{game}/commands", json=rng.choice(legal))
            latencies.append(time.perf_counter() - start)
            if posted.status_code != 201:
                errors.append(posted.text)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", default=None)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--projections", default="inline", help="inline, or rq (start `python -m service worker`)")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp()
    store = args.store or f"sqlite:///{tmp}/bench.db"
    port = free_port()
    env = {**os.environ, "GAMES_STORE": store, "GAMES_PROJECTIONS": args.projections, "GAMES_REDIS_PREFIX": f"bench{port}"}
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", "2",
                               "--worker-class", "gevent", "--log-level", "warning", "service.running.wsgi:app"], env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                requests.get(f"{url}/health", timeout=1)
                break
            except requests.ConnectionError:
                time.sleep(0.1)
        latencies: list[float] = []
        errors: list[str] = []
        deadline = time.monotonic() + args.seconds
        threads = [threading.Thread(target=client_loop, args=(url, i, deadline, latencies, errors))
                   for i in range(args.clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        ms = sorted(x * 1000 for x in latencies)
        print(f"store {store.split(':')[0]}, projections {args.projections}, {args.clients} clients, {args.seconds:.0f} s, gunicorn 2 gevent workers")
        print(f"  commands posted: {len(ms)} ({len(ms) / args.seconds:.0f}/s; each also read state and legal-commands)")
        print(f"  POST latency ms: p50 {statistics.median(ms):.1f}  p90 {ms[int(len(ms) * 0.9)]:.1f}  "
              f"p99 {ms[int(len(ms) * 0.99)]:.1f}")
        print(f"  refused or failed: {len(errors)}")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
