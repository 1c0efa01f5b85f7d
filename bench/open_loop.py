"""An open-loop (fixed-rate) load generator for game cycles: GET legal-commands, POST one.

wrk drives a closed loop (each connection sends its next request when the last one
answered), so a slow server is offered less load and its worst latencies hide. Here the
cycles start at fixed times, ``rate`` per second, whatever the server does: each start
time goes to the next idle lane (a keep-alive connection playing its own games); if
every lane is busy the start waits and that wait counts in the "from schedule" latency
(no coordinated omission). Plain asyncio over raw sockets, so the client costs little.

Used by bench/bench_side_by_side.py; on its own:

    python bench/open_loop.py http://127.0.0.1:8000 GAMES_FILE --rate 300 --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from urllib.parse import urlparse


@dataclass
class Lane:
    games: list[tuple[str, list[str]]]
    index: int = 0
    seat: int = 0
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None


@dataclass
class Results:
    post: list[float] = field(default_factory=list)        # POST send -> answer
    scheduled: list[float] = field(default_factory=list)   # scheduled start -> POST answer
    cycles: int = 0
    errors: int = 0
    late_starts: int = 0                                   # started > 1 ms after schedule


async def _http(lane: Lane, host: str, port: int, method: str, path: str, token: str,
                body: bytes | None = None) -> tuple[int, bytes]:
    for attempt in range(2):
        if lane.writer is None:
            lane.reader, lane.writer = await asyncio.open_connection(host, port)
        head = (f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\n")
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        lane.writer.write(head.encode() + b"\r\n" + (body or b""))
        try:
            status_line = await lane.reader.readline()
            if not status_line:
                raise ConnectionResetError
            status = int(status_line.split()[1])
            length = 0
            close = False
            while True:
                line = await lane.reader.readline()
                if line in (b"\r\n", b""):
                    break
                name, _, value = line.decode().partition(":")
                name = name.strip().lower()
                if name == "content-length":
                    length = int(value)
                elif name == "connection" and value.strip().lower() == "close":
                    close = True
            payload = await lane.reader.readexactly(length) if length else b""
            if close:
                lane.writer.close()
                lane.writer = None
            return status, payload
        except (ConnectionError, asyncio.IncompleteReadError):
            lane.writer = None  # the server closed an idle keep-alive connection: reconnect once
            if attempt:
                raise
    raise AssertionError("unreachable")


async def _cycle(lane: Lane, host: str, port: int, rng: random.Random, results: Results, scheduled: float) -> None:
    for _ in range(4 * len(lane.games) + 8):
        game_id, tokens = lane.games[lane.index]
        empties = 0
        while empties < len(tokens):
            status, body = await _http(lane, host, port, "GET", f"/games/{game_id}/legal-commands",
                                       tokens[lane.seat])
            commands = json.loads(body).get("commands", []) if status == 200 else []
            if commands:
                break
            empties += 1
            lane.seat = (lane.seat + 1) % len(tokens)
        else:  # over: the next game
            lane.index = (lane.index + 1) % len(lane.games)
            lane.seat = 0
            continue
        payload = json.dumps(rng.choice(commands)).encode()
        sent = time.perf_counter()
        status, _ = await _http(lane, host, port, "POST", f"/games/{game_id}/commands", tokens[lane.seat], payload)
        done = time.perf_counter()
        lane.seat = (lane.seat + 1) % len(tokens)
        if status != 201:
            results.errors += 1
            return
        results.post.append(done - sent)
        results.scheduled.append(done - scheduled)
        results.cycles += 1
        return


async def run(url: str, lanes_games: list[list[tuple[str, list[str]]]], rate: float, seconds: float) -> Results:
    parsed = urlparse(url)
    host, port = parsed.hostname, parsed.port
    lanes = [Lane(games) for games in lanes_games if games]
    results = Results()
    idle: asyncio.Queue[Lane] = asyncio.Queue()
    for lane in lanes:
        idle.put_nowait(lane)
    rng = random.Random(1)
    tasks: set[asyncio.Task] = set()

    async def one(lane: Lane, scheduled: float) -> None:
        try:
            await _cycle(lane, host, port, rng, results, scheduled)
        except Exception:
            results.errors += 1
            lane.writer = None
        finally:
            idle.put_nowait(lane)

    loop = asyncio.get_running_loop()
    start = loop.time() + 0.05
    count = int(rate * seconds)
    for k in range(count):
        at = start + k / rate
        delay = at - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        lane = await idle.get()
        if loop.time() - at > 0.001:
            results.late_starts += 1
        # the schedule in perf_counter terms: the lateness of this start counts in the latency
        scheduled = time.perf_counter() - (loop.time() - at)
        task = asyncio.create_task(one(lane, scheduled))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    if tasks:
        await asyncio.gather(*tasks)
    for lane in lanes:
        if lane.writer is not None:
            lane.writer.close()
    return results


def read_games(path: str) -> list[list[tuple[str, list[str]]]]:
    by_lane: dict[int, list[tuple[str, list[str]]]] = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts:
                by_lane.setdefault(int(parts[0]), []).append((parts[1], parts[2:]))
    return [by_lane[k] for k in sorted(by_lane)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("games")
    parser.add_argument("--rate", type=float, default=300)
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    results = asyncio.run(run(args.url, read_games(args.games), args.rate, args.seconds))
    post = sorted(results.post)
    print(f"{results.cycles} cycles, {results.errors} errors, POST p50 {post[len(post) // 2] * 1000:.2f} ms "
          f"p99 {post[int(len(post) * 0.99)] * 1000:.2f} ms")


if __name__ == "__main__":
    main()
