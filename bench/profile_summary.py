"""Where a process spends its CPU, by package, from a py-spy raw profile.

Each sample is charged to the innermost frame that belongs to a known package (a
sample in ``socket.send`` called from redis-py counts for redis-py), so the shares add
up to 100%. Samples whose innermost frame is a wait (gevent's hub loop, a blocking
read, a sleep) are left out: py-spy counts such a thread as running. Used by ``bench_side_by_side.py --profile``; on its own:

    py-spy record -r 200 -d 15 -f raw -o profile.txt -p PID
    python bench/profile_summary.py profile.txt [more.txt ...]
"""

from __future__ import annotations

import sys
from collections import Counter

#: (label, substrings of the frame's file path); the first match wins
CATEGORIES = [
    ("access log", ("(gunicorn/glogging",)),
    ("redis-py", ("(redis/",)),
    ("rq", ("(rq/",)),
    ("gunicorn", ("(gunicorn/",)),
    ("gevent", ("(gevent/",)),
    ("flask-smorest/webargs", ("(flask_smorest/", "(webargs/", "(apispec/")),
    ("marshmallow", ("(marshmallow/",)),
    ("flask/werkzeug", ("(flask/", "(werkzeug/", "(jinja2/")),
    ("JSON", ("(json/", "orjson")),
    ("logging", ("(logging/",)),
    ("openskill", ("(openskill/",)),
    ("service", ("(service/",)),
    ("projections", ("(projections/",)),
    ("domain", ("(domain/",)),
    ("sqlite3", ("(sqlite3/",)),
]


def category(frame: str) -> str | None:
    for label, needles in CATEGORIES:
        if any(n in frame for n in needles):
            return label
    return None


#: innermost frames that mean "waiting": gevent's hub, a blocking socket read, a sleep
WAITING = ("run (gevent/hub.py", "wait (gevent/", "switch (gevent/", "select (", "poll (", "_read_from_socket (",
           "read_response (redis/_parsers", "sleep (", "recv_into (", "readinto (socket.py",
           "acquire_with_timeout (gevent/", "_socket_can_read (", "_HiredisParser.read_from_socket (")


def _waiting(leaf: str) -> bool:
    return leaf.startswith(WAITING)


def summarize(paths: list[str]) -> Counter:
    shares: Counter = Counter()
    for path in paths:
        with open(path) as f:
            for line in f:
                stack, _, count = line.rstrip("\n").rpartition(" ")
                if not stack or not count.isdigit():
                    continue
                frames = stack.split(";")
                if _waiting(frames[-1]):
                    continue  # the process is waiting (an event loop or a blocking read), not working
                label = "other (stdlib, C)"
                for frame in reversed(frames):
                    found = category(frame)
                    if found:
                        label = found
                        break
                shares[label] += int(count)
    return shares


def table(shares: Counter) -> str:
    total = sum(shares.values()) or 1
    return ", ".join(f"{label} {100 * n / total:.0f}%" for label, n in shares.most_common())


if __name__ == "__main__":
    print(table(summarize(sys.argv[1:])))
