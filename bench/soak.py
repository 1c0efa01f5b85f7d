"""A soak of the production shape on Redis (issue 38, Deliver 3; ``make soak``, not in CI).

Starts, as an operator would: a private ``redis-server`` (so its memory is this run's alone),
``python -m service serve --workers N`` (gunicorn, gevent) on it, and one
``python -m service worker --lanes LANE`` per lane; with ``--archive-url`` the archive of
finished games too (``GAMES_ARCHIVE_AFTER`` from ``--archive-after``). Then keeps
``--live-games`` games in play for ``--minutes``, half Dynasties and half Pax Pamir, two seats
each: a scripted person (a random legal command as soon as it is asked, at most ``--rate``
commands a second over all games) and a ``random`` bot on the bots' lane. A game that ends is
replaced by a new one of the same type and person (``--live-games`` people play all along, as
people who come back do), so the finished games pile up (and, with an archive, leave Redis).
``--idle-games N`` adds N live games made before the load (half of each type, a ``random`` bot
in each, 100 to a person) whose people do not come back within the hour: the many games in
progress of a real deployment, holding Redis memory and read-model rows while the active ones
are played.

Every ``--report-every`` seconds one row: the RSS of each process (the web master and workers,
each lane's worker with its children), Redis ``used_memory``, POST and GET p50/p99 in the
interval (``POST /games/{id}/commands``, ``GET /games/{id}/legal-commands``), the lanes' queue
depths (waiting + scheduled jobs), the projections' lag (events, ``GET /projections``), errors
(any answer but 2xx, 304, 409 and 429, and failed requests) and 429s, games live, finished and
archived, and the machine's CPU in the interval (``/proc/stat``: the share its processes used,
and the share the hypervisor took, "steal", with its worst second; and the median CPU
milliseconds of one fixed piece of work timed each second, the machine's own speed). With ``--requests-log`` every
request goes to a CSV as it is answered, and the machine's CPU second by second beside it:
``bench/soak_tail.py`` lines the slowest requests up with it.

Before the load starts, and at the end, the Redis memory per live game and per finished game
is measured: ``used_memory`` before and after creating the live games, and
the fall when every finished game is archived at the end (``python -m service archive`` with
``GAMES_ARCHIVE_AFTER=0``; ``--archive-url``). "archived" counts this run's games only.

    .venv/bin/python bench/soak.py [--minutes 60] [--report-every 300] [--live-games 500] \\
        [--rate 40] [--idle-games 10000] [--web-workers 2] [--archive-url postgresql://...] \\
        [--archive-after 300] [--requests-log /tmp/requests.csv]

Prints a table and writes the rows to ``bench/results/soak-<time>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import redis
import requests

ROOT = Path(__file__).resolve().parents[1]
LANES = ("clocks", "bots", "webhooks", "projections")
KINDS = ("dynasties", "pax_pamir")
#: seconds a client waits before it looks again at a table where its person is not asked
POLL_EVERY = 0.25
PROBE_WORK = 100_000  # the speed probe's loop: a few milliseconds of one core, once a second


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def rss_of_group(pgid: int) -> int:
    """Resident memory (bytes) of every process in the process group ``pgid``."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[2]) != pgid:  # fields after the name: state, ppid, pgrp
                continue
            with open(f"/proc/{entry}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            continue
    return total


def rss_of(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return found


@dataclass
class Stats:
    lock: threading.Lock = field(default_factory=threading.Lock)
    posts: list[float] = field(default_factory=list)
    gets: list[float] = field(default_factory=list)
    errors: int = 0
    limited: int = 0
    error_samples: list[str] = field(default_factory=list)
    finished: int = 0
    #: with ``--requests-log``: the open CSV, a line per request (start s, method, route, game type,
    #: ms, status, client thread); written as it goes, as strings (which the collector does not walk:
    #: a list of hundreds of thousands of tuples would make the driver's own pauses grow over the hour)
    log: Any = None

    def take(self) -> tuple[list[float], list[float], int, int]:
        with self.lock:
            out = (self.posts, self.gets, self.errors, self.limited)
            self.posts, self.gets, self.errors, self.limited = [], [], 0, 0
            return out

    def error(self, what: str) -> None:
        with self.lock:
            self.errors += 1
            if len(self.error_samples) < 20:
                self.error_samples.append(what)


class Person:
    """A player of the soak, with a token and a session of their own; they play one game at a
    time and start another when it ends, as people who come back do."""

    def __init__(self, api: str, number: int):
        self.session = requests.Session()
        player = self.session.post(f"{api}/players", json={"name": f"soak-{number}"}, timeout=60).json()
        self.auth = {"Authorization": f"Bearer {player['token']}"}


class Table:
    """One live game of ``person``'s, against a ``random`` bot."""

    def __init__(self, api: str, kind: str, person: Person):
        self.session, self.auth = person.session, person.auth
        self.person = person
        created = self.session.post(f"{api}/games", json={"type": kind, "seats": 2, "bots": [{"kind": "random"}]},
                                    headers=self.auth, timeout=60)
        created.raise_for_status()
        self.id = created.json()["id"]
        self.kind = kind
        self.version = -1  # the game's version when the person last looked
        self.look_at = 0.0  # when to look again (time.monotonic), while the person is not asked
        joined = self.session.post(f"{api}/games/{self.id}/join", json={}, headers=self.auth, timeout=60)
        joined.raise_for_status()


class Load:
    def __init__(self, api: str, live: int, rate: float, threads: int, stats: Stats):
        self.api, self.rate, self.stats = api, rate, stats
        self.stop = threading.Event()
        self.created = 0
        self.tables: list[Table | None] = [None] * live
        self.rng = random.Random(38)
        self.next_post = time.monotonic()
        self.pace = threading.Lock()
        self.began = time.perf_counter()
        self.threads = [threading.Thread(target=self.play, args=(i, threads), daemon=True) for i in range(threads)]

    def new_table(self, slot: int, person: Person) -> Table:
        """A new game in ``slot``: always of the slot's type, so the mix of live games stays as it began."""
        self.created += 1
        return Table(self.api, KINDS[slot % 2], person)

    def fill(self) -> None:
        for i in range(len(self.tables)):
            self.tables[i] = self.new_table(i, Person(self.api, i))

    def fill_idle(self, games: int, per_person: int = 100, threads: int = 8) -> None:
        """``games`` more live games, half of each type, against a ``random`` bot, whose people do
        not come back while the soak runs (a bot that moves first has moved): the games in
        progress of a real deployment, which hold Redis memory and read-model rows while the
        active tables are played. ``per_person`` games a person, made ``threads`` at a time."""
        people = [Person(self.api, 100_000 + n) for n in range(-(-games // per_person))]
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(lambda n: Table(self.api, KINDS[n % 2], people[n // per_person]), range(games)))

    def wait_turn(self) -> None:
        with self.pace:
            self.next_post = max(self.next_post + 1 / self.rate, time.monotonic() - 1)
            due = self.next_post
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)

    def request(self, table: Table, method: str, path: str, **kwargs):
        started = time.perf_counter()
        try:
            answer = table.session.request(method, f"{self.api}{path}", headers=table.auth, timeout=60, **kwargs)
        except requests.RequestException as exc:
            self.stats.error(f"{method} {path}: {exc!r}")
            return None
        ms = (time.perf_counter() - started) * 1000
        with self.stats.lock:
            (self.stats.posts if method == "POST" else self.stats.gets).append(ms)
            if self.stats.log is not None:
                route = path.rsplit("/", 1)[-1] if path.count("/") > 2 else "state"
                self.stats.log.write(f"{started - self.began:.4f},{method},{route},{table.kind},{ms:.2f},"
                                     f"{answer.status_code},{threading.get_ident() % 10_000}\n")
        if answer.status_code == 429:
            with self.stats.lock:
                self.stats.limited += 1
        elif answer.status_code >= 300 and answer.status_code not in (304, 409):
            self.stats.error(f"{method} {path}: {answer.status_code} {answer.text[:200]}")
        return answer

    def play(self, index: int, threads: int) -> None:
        """A client thread's tables, as a polling client plays them: a table whose person is not
        asked is looked at again ``POLL_EVERY`` seconds later, and its state is read only when
        the game has moved since (its version). Polling every table as fast as the loop goes, as
        this did before 4 December's evening, turned a slow second into a flood of GETs: the bots,
        whose lane gives way to the web, fell behind, every table waited, and the GETs for them
        kept the machine at 90% for tens of seconds."""
        mine = list(range(index, len(self.tables), threads))
        while not self.stop.is_set():
            acted = False
            for slot in mine:
                if self.stop.is_set():
                    return
                table = self.tables[slot]
                if table is None or table.look_at > time.monotonic():
                    continue
                answer = self.request(table, "GET", f"/games/{table.id}/legal-commands")
                if answer is None or answer.status_code != 200:
                    table.look_at = time.monotonic() + POLL_EVERY
                    continue
                body = answer.json()
                if body["commands"]:
                    self.wait_turn()
                    command = self.rng.choice(body["commands"])
                    self.request(table, "POST", f"/games/{table.id}/commands", json=command)
                    acted = True
                    continue
                table.look_at = time.monotonic() + POLL_EVERY
                moved, table.version = body["version"] != table.version, body["version"]
                if body["prompt"] is None and moved:
                    state = self.request(table, "GET", f"/games/{table.id}")
                    if state is None or state.status_code != 200:
                        table.version = -1  # not read: read it at the next look
                    elif state.json().get("status") == "finished":
                        with self.stats.lock:
                            self.stats.finished += 1
                        try:
                            self.tables[slot] = self.new_table(slot, table.person)
                        except (requests.RequestException, KeyError) as exc:
                            self.stats.error(f"new game: {exc!r}")
                            table.version = -1  # a new game at the next look
            if not acted:
                next_look = min((t.look_at for slot in mine if (t := self.tables[slot]) is not None), default=0.0)
                time.sleep(min(POLL_EVERY, max(0.01, next_look - time.monotonic())))


class MachineCpu:
    """The machine's CPU second by second (``/proc/stat``): what all its processes used and what
    the hypervisor took from it (steal), to tell a slow window of ours from a machine that was
    not ours to use."""

    def __init__(self) -> None:
        self.seconds: list[tuple[float, float, float]] = []  # (time, busy share, steal share)
        self.probes: list[tuple[float, float]] = []  # (time, ms of CPU for the same fixed work)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    @staticmethod
    def ticks() -> list[int]:
        with open("/proc/stat") as f:
            return [int(x) for x in f.readline().split()[1:9]]  # user nice system idle iowait irq softirq steal

    @staticmethod
    def probe() -> float:
        """Milliseconds of this thread's CPU for one fixed piece of work: the machine's speed, which a
        neighbour can change without any steal (a shared cache, the host's clock rate)."""
        began = time.thread_time_ns()
        total = 0
        for i in range(PROBE_WORK):
            total += i * i % 7
        return (time.thread_time_ns() - began) / 1e6

    def run(self) -> None:
        last = self.ticks()
        while not self.stop.wait(1.0):
            now = self.ticks()
            delta = [b - a for a, b in zip(last, now, strict=True)]
            total = sum(delta) or 1
            self.seconds.append((time.time(), 1 - (delta[3] + delta[4] + delta[7]) / total, delta[7] / total))
            self.probes.append((time.time(), self.probe()))
            last = now

    def window(self, since: float) -> dict[str, float | None]:
        """Busy and steal shares (mean, and steal's worst second) since ``since`` (Unix time)."""
        recent = [entry for entry in self.seconds if entry[0] >= since]
        probes = [ms for at, ms in self.probes if at >= since]
        if not recent:
            return {"cpu_busy": None, "cpu_steal": None, "cpu_steal_worst_second": None, "probe_ms": None}
        return {"cpu_busy": round(sum(e[1] for e in recent) / len(recent), 3),
                "cpu_steal": round(sum(e[2] for e in recent) / len(recent), 3),
                "cpu_steal_worst_second": round(max(e[2] for e in recent), 3),
                "probe_ms": round(quantile(probes, 0.5) or 0.0, 2)}


def queue_depths(client: redis.Redis, queue: str) -> dict[str, int]:
    return {lane: int(client.llen(f"rq:queue:{queue}-{lane}")) + int(client.zcard(f"rq:scheduled:{queue}-{lane}"))
            for lane in LANES}


#: the variable parts of a key (game and player ids, hashed names, numbers), collapsed so keys group by kind
_VARIABLE = re.compile(r"[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}|(?<=[:-])([a-z]+-)?[0-9a-f]{12,}|(?<=\{p)\d+(?=\})|(?<=player:)[^}:]+|(?<=[:-])\d+(?=:|$)|(?<=player/)[0-9a-f]+")


def memory_by_family(client: redis.Redis) -> dict[str, float]:
    """Redis memory (MB, ``MEMORY USAGE``) by kind of key: ``dyn:{p*}:log``, ``dyn:{p*}:game:*`` ..."""
    found: dict[str, int] = {}
    batch: list[bytes] = []

    def count() -> None:  # a batch at a time, in one round trip (tens of thousands of keys with --idle-games)
        pipe = client.pipeline(transaction=False)
        for key in batch:
            pipe.memory_usage(key)
        for key, size in zip(batch, pipe.execute(), strict=True):
            family = _VARIABLE.sub(lambda m: (m.group(1) or "") + "*", key.decode(errors="replace"))
            found[family] = found.get(family, 0) + int(size or 0)
        batch.clear()

    for key in client.scan_iter(count=1000):
        batch.append(key)
        if len(batch) >= 1000:
            count()
    if batch:
        count()
    return {family: round(size / 1e6, 2) for family, size in sorted(found.items(), key=lambda kv: -kv[1])}


#: kinds of key that outlive a game by design: the read models' rows (a finished game's lobby row,
#: its players' history entries, its share of the scoreboards) and the players; the rest is
#: what the games in play (and those within the retention period) hold, with their jobs
OUTLIVING = ("dyn:{rm:", "dyn:{player:")


def redis_split(by_key: dict[str, float]) -> tuple[float, float]:
    """(MB the games in play hold, MB of the records that outlive them) from ``memory_by_family``."""
    records = sum(mb for family, mb in by_key.items() if family.startswith(OUTLIVING))
    return round(sum(by_key.values()) - records, 2), round(records, 2)


def percent(share: float | None) -> str:
    return "-" if share is None else f"{share * 100:.0f}"


def spread(values: list[float]) -> float | None:
    """(max - min) / min: how far a series strays from flat."""
    values = [v for v in values if v is not None]
    return round((max(values) - min(values)) / min(values), 3) if values and min(values) > 0 else None


def flatness(rows: list[dict], window: float = 45) -> dict[str, float | None]:
    """The spread of each measure over the last ``window`` minutes (the issue's bars: RSS and the
    games' Redis memory within 10%, p99 within 25%). Memory is read at each row's minute, so the
    rows from the window's first minute count; a p99 is of the minutes before its row, so only
    the rows whose interval lies within the window do."""
    cut = rows[-1]["minute"] - window - 0.5 if rows else 0
    last = [r for r in rows if r["minute"] >= cut]
    if not last:
        return {}
    starts = [0.0] + [r["minute"] for r in rows[:-1]]  # where each row's interval began
    intervals = [(start, r) for start, r in zip(starts, rows, strict=True) if start >= cut] or [(starts[-1], rows[-1])]
    out: dict[str, float | None] = {"from_minute": last[0]["minute"], "to_minute": last[-1]["minute"]}
    out["rss_web_master"] = spread([r["rss_web_master_mb"] for r in last])
    for i in range(min(len(r["rss_web_workers_mb"]) for r in last)):
        out[f"rss_web_worker_{i + 1}"] = spread([r["rss_web_workers_mb"][i] for r in last])
    for lane in LANES:
        out[f"rss_{lane}"] = spread([r["rss_workers_mb"][lane] for r in last])
    for key in ("redis_used_mb", "redis_games_mb"):
        out[key] = spread([r[key] for r in last])
    for key in ("post_p99_ms", "get_p99_ms"):
        out[key] = spread([r[key] for _, r in intervals])
    out["p99_from_minute"] = intervals[0][0]
    return out


def projection_lag(api: str) -> int | None:
    try:
        body = requests.get(f"{api}/projections", timeout=30).json()
        return sum(max(0, p["lag"]) for p in body["projections"])
    except (requests.RequestException, KeyError, ValueError):
        return None


def archived(url: str | None) -> int | None:
    if not url:
        return None
    import psycopg

    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=5) as c:
            return int(c.execute("SELECT count(*) FROM archived_games").fetchone()[0])
    except psycopg.Error:
        return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--report-every", type=float, default=300)
    parser.add_argument("--live-games", type=int, default=500)
    parser.add_argument("--idle-games", type=int, default=0,
                        help="more live games, made before the load and left waiting for their person")
    parser.add_argument("--rate", type=float, default=40, help="the people's commands per second, all games")
    parser.add_argument("--threads", type=int, default=16, help="client threads")
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--archive-url", default="", help="postgresql://... (empty: no archive)")
    parser.add_argument("--archive-after", default="300", help="GAMES_ARCHIVE_AFTER for the run")
    parser.add_argument("--requests-log", default="", help="a CSV of every request (start s, method, route, "
                        "game type, ms, status, client thread), to see what makes a window's slowest")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="soak-"))
    redis_port, web_port = free_port(), free_port()
    store = f"redis://127.0.0.1:{redis_port}/0"
    api = f"http://127.0.0.1:{web_port}"
    # the production shape runs the built package (its engine compiled: ``make soak`` builds it)
    # where there is one, else the sources
    code = ROOT / "build" / "engine" if (ROOT / "build" / "engine" / ".built").exists() else ROOT
    env = {**os.environ, "PYTHONPATH": str(code), "GAMES_STORE": store, "GAMES_QUEUE": "soak", "GAMES_LIMITS": "off",
           "GAMES_LIMIT_BOT_GAMES_PER_PLAYER": "0", "GAMES_LIMIT_WAITING_GAMES_PER_PLAYER": "0",
           "GAMES_BOT_THINK_SECONDS": "0"}
    if args.archive_url:
        env.update(GAMES_ARCHIVE_URL=args.archive_url, GAMES_ARCHIVE_AFTER=args.archive_after)  # its run: the default
    processes: dict[str, subprocess.Popen] = {}

    def start(name: str, argv: list[str]) -> None:
        with open(workdir / f"{name}.log", "wb") as out:
            processes[name] = subprocess.Popen(argv, cwd=code, env=env, stdout=out, stderr=subprocess.STDOUT,
                                               start_new_session=True)

    start("redis", [shutil.which("redis-server") or "redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--dir", str(workdir)])
    client = redis.Redis(port=redis_port)
    for _ in range(100):
        try:
            client.ping()
            break
        except redis.RedisError:
            time.sleep(0.1)
    start("web", [sys.executable, "-m", "service", "serve", "--port", str(web_port), "--workers",
                  str(args.web_workers)])
    for lane in LANES:
        start(f"worker-{lane}", [sys.executable, "-m", "service", "worker", "--lanes", lane])
    rows: list[dict] = []
    stats = Stats()
    if args.requests_log:
        stats.log = open(args.requests_log, "w")  # noqa: SIM115 (closed once the load has stopped)
        stats.log.write("start_s,method,route,kind,ms,status,thread\n")
    load = Load(api, args.live_games, args.rate, args.threads, stats)
    machine = MachineCpu()
    try:
        for _ in range(300):
            try:
                if requests.get(f"{api}/health", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            time.sleep(0.2)
        engine = requests.get(f"{api}/health", timeout=5).json().get("engine")
        print(f"soak: the server runs {code.relative_to(ROOT) if code != ROOT else 'the sources'}, engine {engine}",
              flush=True)
        empty = int(client.info("memory")["used_memory"])
        archived_at_start = archived(args.archive_url) or 0  # the archive database may hold earlier runs' games
        load.fill()
        if args.idle_games:
            made = time.perf_counter()
            load.fill_idle(args.idle_games)
            for _ in range(1200):  # the bots' first moves in them played before the load begins
                if not queue_depths(client, "soak")["bots"]:
                    break
                time.sleep(0.5)
            print(f"soak: {args.idle_games} games left waiting made in {time.perf_counter() - made:.0f} s", flush=True)
        time.sleep(5)
        filled = int(client.info("memory")["used_memory"])
        per_live_at_start = (filled - empty) / (args.live_games + args.idle_games)
        print(f"soak: {args.live_games + args.idle_games} live games created ({args.idle_games} left waiting); "
              f"Redis used_memory {empty / 1e6:.1f} -> {filled / 1e6:.1f} MB, {per_live_at_start / 1e3:.1f} kB a "
              f"game at its start", flush=True)
        load.began, summary_began = time.perf_counter(), time.time()
        window_ended = summary_began
        machine.thread.start()
        for thread in load.threads:
            thread.start()
        started = time.monotonic()
        end = started + args.minutes * 60
        while time.monotonic() < end:
            time.sleep(min(args.report_every, max(0.0, end - time.monotonic())))
            posts, gets, errors, limited = stats.take()
            window_began, window_ended = window_ended, time.time()
            web = processes["web"]
            row = {
                "minute": round((time.monotonic() - started) / 60, 1),
                "rss_web_master_mb": round(rss_of(web.pid) / 1e6, 1),
                "rss_web_workers_mb": [round(rss_of(p) / 1e6, 1) for p in sorted(children(web.pid))],
                "rss_workers_mb": {lane: round(rss_of_group(processes[f"worker-{lane}"].pid) / 1e6, 1) for lane in LANES},
                "redis_used_mb": round(int(client.info("memory")["used_memory"]) / 1e6, 1),
                "post_p50_ms": quantile(posts, 0.5), "post_p99_ms": quantile(posts, 0.99),
                "get_p50_ms": quantile(gets, 0.5), "get_p99_ms": quantile(gets, 0.99),
                "posts": len(posts), "gets": len(gets),
                "queues": queue_depths(client, "soak"), "projection_lag": projection_lag(api),
                "errors": errors, "429s": limited, "live": args.live_games + args.idle_games, "finished": stats.finished,
                "archived": (archived(args.archive_url) or 0) - archived_at_start if args.archive_url else None,
                "died": [name for name, p in processes.items() if p.poll() is not None],
                "redis_mb_by_key": memory_by_family(client),
            }
            row["redis_games_mb"], row["redis_records_mb"] = redis_split(row["redis_mb_by_key"])
            row.update(machine.window(window_began))
            for key in ("post_p50_ms", "post_p99_ms", "get_p50_ms", "get_p99_ms"):
                row[key] = round(row[key], 1) if row[key] is not None else None
            rows.append(row)
            print(json.dumps(row), flush=True)
        load.stop.set()
        for thread in load.threads:
            thread.join(timeout=60)
        summary = {"engine": engine, "live_games": args.live_games, "idle_games": args.idle_games, "rate": args.rate, "minutes": args.minutes,
                   "redis_per_live_game_at_start_kb": round(per_live_at_start / 1e3, 1), "rows": rows,
                   "error_samples": stats.error_samples, "games_created": load.created,
                   "archived_before_the_run": archived_at_start, "flatness": flatness(rows)}
        if args.archive_url:  # the fall: every finished game archived now, Redis measured either side
            time.sleep(5)  # the lanes' last jobs of the load
            before = int(client.info("memory")["used_memory"])
            moved = subprocess.run([sys.executable, "-m", "service", "archive"], cwd=code, timeout=600,
                                   env={**env, "GAMES_ARCHIVE_AFTER": "0"}, capture_output=True, text=True)
            after = int(client.info("memory")["used_memory"])
            summary["archive_at_end"] = {"redis_used_mb_before": round(before / 1e6, 1),
                                         "redis_used_mb_after": round(after / 1e6, 1), "exit": moved.returncode,
                                         "output": moved.stdout[-500:] + moved.stderr[-500:],
                                         "archived_in_all": (archived(args.archive_url) or 0) - archived_at_start}
            print(f"soak: archiving every finished game at the end: Redis used_memory {before / 1e6:.1f} -> "
                  f"{after / 1e6:.1f} MB (exit {moved.returncode})", flush=True)
    finally:
        load.stop.set()
        machine.stop.set()
        if stats.log is not None:
            with stats.lock:
                stats.log.close()
        for process in processes.values():
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        time.sleep(3)
        for process in processes.values():
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()
    print("\n| minute | web RSS MB (master; workers) | lane workers RSS MB (clocks/bots/webhooks/projections) | Redis MB "
          "(games; records) | POST p50/p99 ms | GET p50/p99 ms | queues (c/b/w/p) | lag | errors | 429 | finished "
          "| archived | machine busy / steal % | probe ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['minute']} | {r['rss_web_master_mb']}; {', '.join(map(str, r['rss_web_workers_mb']))} | "
              f"{'/'.join(str(r['rss_workers_mb'][lane]) for lane in LANES)} | {r['redis_used_mb']} "
              f"({r['redis_games_mb']}; {r['redis_records_mb']}) | "
              f"{r['post_p50_ms']}/{r['post_p99_ms']} | {r['get_p50_ms']}/{r['get_p99_ms']} | "
              f"{'/'.join(str(r['queues'][lane]) for lane in LANES)} | {r['projection_lag']} | {r['errors']} | "
              f"{r['429s']} | {r['finished']} | {r['archived']} | {percent(r['cpu_busy'])} / {percent(r['cpu_steal'])} | {r['probe_ms']} |")
    flat = flatness(rows)
    if flat:
        span, p99_span = f"{flat.pop('from_minute')}-{flat.pop('to_minute')}", flat.pop("p99_from_minute")
        print(f"\nspread (max - min) / min over minutes {span} (the p99s: the intervals from minute {p99_span}): "
              + ", ".join(f"{k} {v:.1%}" if v is not None else f"{k} -" for k, v in flat.items()))
    if stats.log is not None:
        with open(Path(args.requests_log).with_suffix(".cpu.csv"), "w") as f:
            f.write("time,busy,steal,probe_ms\n")
            f.writelines(f"{t:.1f},{busy:.3f},{steal:.3f},{probe:.2f}\n"
                         for (t, busy, steal), (_, probe) in zip(machine.seconds, machine.probes, strict=True))
        for log in workdir.glob("*.log"):  # the processes' own logs, to line the slow requests up with
            shutil.copy(log, Path(args.requests_log).with_suffix(f".{log.stem}.log"))
        print(f"requests written to {args.requests_log} (began at {summary_began:.3f} Unix time), the processes' "
              f"logs beside it")
    out = ROOT / "bench" / "results" / f"soak-{datetime.now():%Y%m%d-%H%M%S}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(summary, indent=1))
    print(f"written to {out}")
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
