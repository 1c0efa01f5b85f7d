"""What the live hub's once-a-second check of its open streams costs (issue 18).

Every second a process's ``LiveHub`` checks all its subscribers at once: their client's
sockets (one ``poll(0)`` of a poll object they stay registered in) and the store's token
generation (one read); only when the generation moved (a token was rotated or revoked
somewhere) does it look up every stream's credential (one store call for all). This
builds ``--streams`` subscribers, each on a connected socket pair and with its own
player's token, on a real SQLite file (or ``--store redis://...``), and times, in one
run: the steady check (nothing changed), the check after a rotation (every credential
looked up), and beside them the hub's store poll (``poll_once``, five times a second).

    .venv/bin/python bench/bench_stream_checks.py [--streams 1000 5000] [--rounds 30] [--store redis://...]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.base.config import Config  # noqa: E402
from service.players.live_hub import LiveHub  # noqa: E402
from service.players.players import Players, hash_token  # noqa: E402
from service.wiring.stores import open_store  # noqa: E402


def measure(store, count: int, rounds: int) -> dict[str, float]:
    players = Players(store)
    # the hub's own thread sleeps for the whole run (poll=3600): the calls below are timed alone
    hub = LiveHub(store, lambda stream: None, poll=3600, credentials=players)
    pairs, subscribers = [], []
    for i in range(count):
        made = players.create(f"p{i}")
        ours, theirs = socket.socketpair()
        pairs.append((ours, theirs))
        subscribers.append(hub.subscribe(f"game-{i % 10}", hash_token(made["token"]), ours))

    def timed(call) -> float:
        runs = []
        for _ in range(rounds):
            started = time.perf_counter()
            call()
            runs.append((time.perf_counter() - started) * 1000)
        return statistics.median(runs)

    hub.check_subscribers()  # the first check looks at every stream
    check = timed(hub.check_subscribers)
    other = players.create("other")

    def after_a_rotation() -> None:
        other["token"] = players.rotate_token(other["token"])["token"]
        hub.check_subscribers()

    rotated = timed(after_a_rotation)
    poll = timed(hub.poll_once)
    assert not any(s.ended for s in subscribers), "every stream is open and its token current"
    for ours, theirs in pairs:
        ours.close()
        theirs.close()
    for subscriber in subscribers:
        subscriber.close()
    return {"check": check, "rotated": rotated, "poll": poll}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--streams", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--store", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.store or f"sqlite:///{tmp}/events.db"
        print(f"store {url.split(':')[0]}; median of {args.rounds} calls")
        print("| open streams | check, steady (ms, once a second) | check after a rotation (ms) | "
              "store poll (ms, five times a second) |")
        print("|---|---|---|---|")
        for count in args.streams:
            store = open_store(Config(store_url=url, redis_prefix=f"bench-{uuid.uuid4().hex[:8]}"))
            found = measure(store, count, args.rounds)
            print(f"| {count} | {found['check']:.3f} | {found['rotated']:.2f} | {found['poll']:.3f} |")
            store.close()


if __name__ == "__main__":
    main()
