"""Many open live streams on one web process: one store poll serves them all.

Starts ``python -m service serve --workers 1`` (gevent, ``--connections`` above the
stream count) on a SQLite file (or ``--store redis://...``), opens ``--streams``
Server-Sent Events streams spread over ``--games`` started games, then posts
``--moves`` commands, one every ``--every`` seconds, and measures:

* for every stream and every move, the delay from the POST's answer to the event's
  arrival on that stream (every stream must get every event; the bar: within 1 s);
* ``GET /health`` latency, polled all along (the bar: under 50 ms).

The clients are one asyncio process on the same cores, so the figures are a floor.

    .venv/bin/python bench/bench_streams.py [--streams 5000] [--games 10] [--moves 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def listen(port: int, game: str, arrivals: dict, connected: list, stop: asyncio.Event) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    writer.write(f"GET /games/{game}/stream HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    status = await reader.readline()
    if b" 200 " not in status:
        raise RuntimeError(f"stream refused: {status!r}")
    connected.append(1)
    mine: dict[int, float] = {}
    arrivals.setdefault(game, []).append(mine)
    try:
        while not stop.is_set():
            line = await reader.readline()
            if not line:
                break
            if line.startswith(b"id: "):
                mine[int(line[4:])] = time.monotonic()
    finally:
        writer.close()


def probe(url: str, seconds: float) -> None:
    """``--probe``: GET /health every 50 ms from a process of its own; prints milliseconds."""
    session = requests.Session()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.perf_counter()
        session.get(f"{url}/health", timeout=30)
        print(f"{(time.perf_counter() - started) * 1000:.3f}", flush=True)
        time.sleep(0.05)


async def main_async(args, url: str, port: int, games: list[tuple[str, list[requests.Session]]]) -> None:
    arrivals: dict[str, list[dict[int, float]]] = {}
    connected: list[int] = []
    stop = asyncio.Event()
    listeners = []
    for i in range(args.streams):
        game = games[i % len(games)][0]
        listeners.append(asyncio.create_task(listen(port, game, arrivals, connected, stop)))
        if i % 200 == 199:
            await asyncio.sleep(0.05)
    while len(connected) < args.streams:
        failed = [t for t in listeners if t.done() and t.exception() is not None]
        if failed:
            raise RuntimeError(f"{len(failed)} streams failed to open: {failed[0].exception()!r}")
        await asyncio.sleep(0.1)
    await asyncio.sleep(2)  # let every stream get through its backlog
    prober = subprocess.Popen([sys.executable, __file__, "--probe", url, str(args.moves * args.every + 3)],
                              stdout=subprocess.PIPE, text=True)
    loop = asyncio.get_running_loop()
    rng = random.Random(3)
    posted: list[tuple[str, int, float]] = []
    for _ in range(args.moves):
        game, seats = rng.choice(games)

        def move(game=game, seats=seats):
            for session in seats:
                legal = session.get(f"{url}/games/{game}/legal-commands", timeout=30).json()
                if legal["commands"]:
                    answer = session.post(f"{url}/games/{game}/commands", json=rng.choice(legal["commands"]),
                                          timeout=30)
                    return answer.json()["version"]
            return None

        version = await loop.run_in_executor(None, move)
        if version is not None:
            posted.append((game, version, time.monotonic()))
        await asyncio.sleep(args.every)
    await asyncio.sleep(3)
    stop.set()
    health = [float(x) for x in (await loop.run_in_executor(None, prober.communicate))[0].split()]
    for task in listeners:
        task.cancel()
    delays, missing = [], 0
    for game, version, at in posted:
        for mine in arrivals[game]:
            arrived = mine.get(version)
            if arrived is None:
                missing += 1
            else:
                delays.append(max(0.0, arrived - at))
    delays.sort()
    health.sort()
    print(f"{args.streams} streams over {len(games)} games on one gevent worker ({args.store_kind}); "
          f"{len(posted)} moves")
    print(f"  delivery after the POST answered: p50 {delays[len(delays) // 2] * 1000:.0f} ms, "
          f"p99 {delays[int(len(delays) * 0.99)] * 1000:.0f} ms, max {delays[-1] * 1000:.0f} ms; "
          f"{len(delays)} deliveries, {missing} missing")
    print(f"  GET /health during it: p50 {health[len(health) // 2]:.1f} ms, p99 {health[int(len(health) * 0.99)]:.1f} "
          f"ms, max {health[-1]:.1f} ms ({len(health)} probes)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--streams", type=int, default=5000)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--every", type=float, default=0.5)
    parser.add_argument("--store", default="")
    parser.add_argument("--probe", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        return probe(args.probe[0], float(args.probe[1]))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.streams * 2 + 1000)), hard))
    tmp = tempfile.mkdtemp(prefix="streams-")
    store = args.store or f"sqlite:///{tmp}/events.db"
    args.store_kind = store.split(":")[0]
    port = free_port()
    # every stream comes from this one address: lift the per-IP and per-process stream caps
    # (defaults 100 and 500; docs/operations.md) for the measurement
    env = {**os.environ, "GAMES_STORE": store, "GAMES_STREAM_MAX_SECONDS": "600", "GAMES_REDIS_PREFIX": f"st{port}",
           "GAMES_LIMIT_STREAMS_PER_IP": "0", "GAMES_LIMIT_STREAMS_PER_PROCESS": "0",
           "GAMES_LIMIT_PER_IP": "", "GAMES_LIMIT_PER_TOKEN": ""}
    server = subprocess.Popen([sys.executable, "-m", "service", "serve", "--port", str(port), "--workers", "1",
                               "--connections", str(args.streams + 500), "--store", store], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=open(f"{tmp}/server.log", "wb"))
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if requests.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("the server did not start")
            time.sleep(0.2)
        games = []
        for _ in range(args.games):
            seats = []
            for i in range(2):
                token = requests.post(f"{url}/players", json={"name": f"p{i}"}, timeout=10).json()["token"]
                session = requests.Session()
                session.headers["Authorization"] = f"Bearer {token}"
                seats.append(session)
            game = seats[0].post(f"{url}/games", json={"type": "dynasties", "seats": 2}, timeout=10).json()["id"]
            for session in seats:
                session.post(f"{url}/games/{game}/join", json={}, timeout=10)
            games.append((game, seats))
        asyncio.run(main_async(args, url, port, games))
    finally:
        server.terminate()
        server.wait(timeout=20)


if __name__ == "__main__":
    main()
