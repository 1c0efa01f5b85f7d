"""Append and read throughput of the SQLite and Redis stores, one process, one thread.

    .venv/bin/python bench/bench_store_append.py [--appends 5000] [--games 50] [--redis-url URL]

For each backend it measures:

* appends/s with one event per append (the command path: one append per command),
* events/s with batches of ``--batch`` events per append,
* events/s read back and decoded per game stream (``read``) and through the log
  (``read_log``, 1000 entries per call), as a projection catching up would.

SQLite runs on a temporary file (WAL, ``synchronous=NORMAL`` as the store sets it); Redis
on ``--redis-url`` under a private key prefix that is deleted afterwards, so the figures
reflect that server's persistence settings (printed with the results).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import redis  # noqa: E402

from service.adapters.redis_store import RedisStore  # noqa: E402
from service.adapters.sqlite_store import SqliteStore  # noqa: E402
from service.adapters.store import EventStore  # noqa: E402


def event(n: int) -> dict:
    """A move of a plausible size (about 200 bytes of JSON)."""
    return {"type": "CardPlayed", "player": f"player-{n % 4}", "card": {"suit": "hearts", "rank": n % 13},
            "turn": n, "hand_left": [1, 5, 9, 12], "meta": {"at": 1_700_000_000 + n, "seat": n % 4}}


def run(store: EventStore, appends: int, games: int, batch: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    streams = [f"bench-{uuid.uuid4().hex[:8]}-{g}" for g in range(games)]
    versions = dict.fromkeys(streams, 0)

    started = time.perf_counter()
    for n in range(appends):
        stream = streams[n % games]
        versions[stream] = store.append(stream, versions[stream], [event(n)])
    figures["appends/s (1 event each)"] = appends / (time.perf_counter() - started)

    batches = max(1, appends // batch)
    started = time.perf_counter()
    for n in range(batches):
        stream = streams[n % games]
        versions[stream] = store.append(stream, versions[stream], [event(n * batch + i) for i in range(batch)])
    figures[f"events/s appended (batches of {batch})"] = batches * batch / (time.perf_counter() - started)

    started = time.perf_counter()
    read = sum(len(store.read(stream)) for stream in streams)
    figures["events/s read per stream (decoded)"] = read / (time.perf_counter() - started)
    assert read == sum(versions.values())

    started = time.perf_counter()
    read = 0
    for partition in range(store.partitions):
        after = 0
        while True:
            page = store.read_log(partition, after, limit=1000)
            if not page:
                break
            read += len(page)
            after = page[-1].position
    figures["events/s read from the log (decoded)"] = read / (time.perf_counter() - started)
    return figures


def show(name: str, figures: dict[str, float]) -> None:
    print(name)
    for label, value in figures.items():
        print(f"  {label:<40} {value:>12,.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--appends", type=int, default=5000)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as directory:
        store = SqliteStore(os.path.join(directory, "bench.db"))
        try:
            show("SQLite (WAL, synchronous=NORMAL, temporary file)", run(store, args.appends, args.games, args.batch))
        finally:
            store.close()

    client = redis.Redis.from_url(args.redis_url)
    try:
        client.ping()
    except redis.RedisError as exc:
        print(f"Redis at {args.redis_url}: not reachable ({exc}); skipped")
        return
    config = client.config_get("append*")
    persistence = f"appendonly={config.get('appendonly')}, appendfsync={config.get('appendfsync')}"
    started = time.perf_counter()
    for _ in range(2000):
        client.ping()
    print(f"Redis round trip (PING): {(time.perf_counter() - started) / 2000 * 1e6:.0f} µs")
    prefix = f"bench-{uuid.uuid4().hex[:10]}"
    store = RedisStore(args.redis_url, partitions=args.partitions, prefix=prefix)
    try:
        show(f"Redis {client.info('server')['redis_version']} ({args.redis_url}, {persistence}, "
             f"{args.partitions} partitions)", run(store, args.appends, args.games, args.batch))
    finally:
        store.close()
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        for start in range(0, len(keys), 1000):
            client.delete(*keys[start:start + 1000])
        client.close()


if __name__ == "__main__":
    main()
