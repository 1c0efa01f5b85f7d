"""Background work under load: bots, turn clocks and webhooks beside the web (issue 33).

Starts the server as an operator would (``python -m service serve`` on a SQLite file, or on
Redis with RQ workers: ``--shape single``, one ``python -m service worker`` for everything
as before issue 33, or ``--shape lanes``, one worker per lane), then plays for ``--seconds``:

* ``--games`` games with a bot seat (mcts, level ``--bot-level``), Dynasties and Pax Pamir
  in turn, two seats each: a scripted human (``--human-delay``: a random legal command
  2 to 5 s after it sees its prompt, or at once with 0) and the bot. A finished game is
  replaced by a new one. Each game carries a turn clock of a day, which never runs out
  here: its ``ClockStarted`` and ``ClockStopped`` events are the server's own record of
  when each seat was asked and when it answered.
* ``--clock-games`` Dynasties games between two scripted humans who never answer, with a
  ``--clock-seconds`` limit per move: every deadline must be acted on (a forfeit ends the
  game; a new one replaces it).
* a dripping webhook receiver (one byte every 3 s, never done in under two minutes)
  subscribed to the first bot game (``--no-drip``: none), and a fast receiver subscribed
  to the second.
* ``GET /health`` probed every 50 ms over four keep-alive connections by a process of its
  own, first for ``--baseline-seconds`` with nothing running (no game yet), then all along
  the load; the humans time their ``POST /games/{id}/commands``.

The measured time starts as the first game is created and lasts ``--seconds``. Figures,
from the games' events read back at the end (server timestamps):

* bot reply latency: a bot seat's prompt (its ``ClockStarted``) to its move (its clock
  stopped by its own move), minus the think time (``GAMES_BOT_THINK_SECONDS``, set from
  ``--think``) and minus its decision time where the server logs one
  (``bot-decision game=.. version=.. seat=.. decide_ms=..`` on stderr); a prompt still
  open when the events are read counts with its time so far. A bot whose think time runs
  while it decides overlaps the two: its reply beyond the longer of them is shown too.
  Also the longest any bot stayed prompted, and bot moves per second (per bot worker
  process where their number is known: one ``single`` worker, ``--bot-processes``; and
  per core).
* clock lateness: a ``ClockTimedOut`` event's time minus the deadline of the clock it
  ended; a deadline passed with nothing done by the end counts with its lateness so far.
* the fast receiver's lateness: the event's time to the request's arrival (an event not
  delivered by the end counts with its lateness so far; the events of a game before its
  subscription are not owed).
* ``GET /health`` p99 under the load, and its ratio to the p99 with nothing running and,
  with ``--reference-no-bots``, to its p99 under the same play with nothing searching (a
  first run of this checkout where a scripted person answering after ``--think`` seconds
  sits in each bot's seat: the web serves the same games, the bots' work is gone);
  ``POST /games/{id}/commands`` p99 (the humans' moves).
* where the CPU went during the load: each process the bench started, its children, the
  bench itself and the probe, in CPU seconds and as a share of the machine.

Runs go one after the other, each with its own server, SQLite file or Redis database
(``--redis-db``, else the highest-numbered empty one) and key prefix; ``--baseline DIR`` adds the code of
another checkout (the code before: ``--baseline-shape single``) to the same invocation,
and the table gives its figures beside this checkout's with their ratio. The servers run
this interpreter with ``PYTHONPATH`` and the working directory set to the checkout.
A table is printed and the figures written to ``bench/results/lanes-*.json``.

    .venv/bin/python bench/bench_lanes.py [--store sqlite redis] [--shape lanes|single] \\
        [--seconds 300] [--games 30] [--clock-games 5] [--human-delay 2-5] [--think 0.3] \\
        [--bot-processes K] [--webhook-processes K] \\
        [--baseline /path/to/checkout --baseline-shape single] [--checkout DIR] [--label after] \\
        [--server-env GAMES_BOT_IDLE=0 ...] [--reference-no-bots]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
LANES = ("clocks", "bots", "webhooks", "projections")
#: a bot game's clock: a day, so it never runs out in a run; it only records the prompts
MARKER_CLOCK = 86400
DECISION = re.compile(r"bot-decision game=(\w+) version=(\d+) seat=(\d+) decide_ms=([0-9.]+)")
DRIP_EVERY = 3.0
DRIP_BYTES = 40  # 40 bytes at one every 3 s: two minutes for one answer
PROBE_EVERY = 0.05
GRACE = 3.0  # seconds between the humans' stop and the reading of the events


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def at_of(text: str) -> float:
    """An event's ``at`` (ISO 8601, UTC) as Unix time."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def summary(values: list[float]) -> dict:
    return {"n": len(values), "p50": quantile(values, 0.5), "p95": quantile(values, 0.95),
            "p99": quantile(values, 0.99), "max": max(values) if values else None}


# -- the processes under test --------------------------------------------------------------
class Processes:
    """Every process the bench starts, each in a session of its own, its output in a file."""

    def __init__(self, logs: Path):
        self.logs = logs
        self.started: list[tuple[str, subprocess.Popen]] = []

    def start(self, name: str, argv: list[str], env: dict, cwd: Path) -> subprocess.Popen:
        out = open(self.logs / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        process = subprocess.Popen(argv, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        out.close()
        self.started.append((name, process))
        return process

    def stop(self) -> None:
        for _, process in self.started:
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 10
        for _, process in self.started:
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            try:  # the whole group: gunicorn's workers, the projector, RQ's work horses
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for _, process in self.started:
            process.wait()
        self.started.clear()

    def died(self) -> list[str]:
        return [f"{name} (exit {p.returncode})" for name, p in self.started if p.poll() is not None]


def cpu_seconds(processes: Processes, own: dict[str, int]) -> dict[int, tuple[str, float]]:
    """pid -> (who, CPU seconds so far) for every process the bench started and their
    descendants (the children they reaped counted in: RQ's work horses), and ``own`` (name ->
    pid: the bench itself, the probe). Where the machine's two cores go under the load."""
    import psutil

    found: dict[int, tuple[str, float]] = {}

    def count(process: psutil.Process, who: str) -> None:
        try:
            times = process.cpu_times()
            found[process.pid] = (who, times.user + times.system + times.children_user + times.children_system)
        except psutil.Error:
            pass

    for name, pid in own.items():
        count(psutil.Process(pid), name)
    for name, popen in processes.started:
        try:
            top = psutil.Process(popen.pid)
            below = top.children(recursive=True)
        except psutil.Error:
            continue
        count(top, name)
        for child in below:
            try:
                line = " ".join(child.cmdline()[1:4])[:60]
            except psutil.Error:
                continue
            count(child, f"{name} > {line}")
    return found


def cpu_during(before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]],
               seconds: float) -> dict[str, dict]:
    """Per kind of process: how many, CPU seconds between the snapshots, share of the machine."""
    kinds: dict[str, dict] = {}
    for pid, (who, total) in after.items():
        spent = total - before.get(pid, (who, 0.0))[1]
        kind = kinds.setdefault(who, {"processes": 0, "cpu_s": 0.0})
        kind["processes"] += 1
        kind["cpu_s"] += spent
    for kind in kinds.values():
        kind["machine_share"] = kind["cpu_s"] / (seconds * (os.cpu_count() or 1)) if seconds else None
    return dict(sorted(kinds.items(), key=lambda item: -item[1]["cpu_s"]))


# -- webhook receivers ---------------------------------------------------------------------
class FastReceiver:
    """Answers 204 at once; keeps (arrival, event) of every delivery, once per webhook-id."""

    def __init__(self):
        self.received: dict[str, tuple[float, dict]] = {}
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the standard library's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                arrived = time.time()
                self.send_response(204)
                self.end_headers()
                try:
                    data = json.loads(body)["data"]
                    event = {**data["event"], "game_id": data["game_id"]}
                except (ValueError, KeyError, TypeError):
                    return
                receiver.received.setdefault(self.headers.get("webhook-id", str(arrived)), (arrived, event))

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class DripReceiver:
    """Reads the request, then answers one byte every ``DRIP_EVERY`` seconds."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/hook"
        self.requests = 0
        self.closed = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed.is_set():
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.requests += 1
            threading.Thread(target=self._drip, args=(connection,), daemon=True).start()

    def _drip(self, connection: socket.socket) -> None:
        answer = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Drip: " + b"." * DRIP_BYTES + b"\r\n\r\nok"
        with connection:
            try:
                connection.settimeout(10)
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = connection.recv(65536)
                    if not chunk:
                        return
                    head += chunk
                for byte in answer:
                    if self.closed.wait(DRIP_EVERY):
                        return
                    connection.sendall(bytes([byte]))
            except OSError:
                return

    def close(self) -> None:
        self.closed.set()
        self.listener.close()


# -- the scripted players ------------------------------------------------------------------
@dataclass
class Player:
    id: str
    token: str
    session: requests.Session = field(default_factory=requests.Session)

    @property
    def auth(self) -> dict:
        return {"Authorization": f"Bearer {self.token}"}


class Api:
    def __init__(self, url: str):
        self.url = url

    def register(self, name: str) -> Player:
        answer = requests.post(f"{self.url}/players", json={"name": name}, timeout=30)
        answer.raise_for_status()
        body = answer.json()
        return Player(body["id"], body["token"])

    def create(self, player: Player, kind: str, options: dict, bots: list[dict]) -> tuple[str, int]:
        """A new game's id and version."""
        body = {"type": kind, "seats": 2, "options": options}
        if bots:
            body["bots"] = bots
        answer = player.session.post(f"{self.url}/games", json=body, headers=player.auth, timeout=30)
        if answer.status_code >= 300:
            raise RuntimeError(f"POST /games {answer.status_code}: {answer.text[:300]}")
        return answer.json()["id"], answer.json()["version"]

    def join(self, player: Player, game: str) -> None:
        answer = player.session.post(f"{self.url}/games/{game}/join", json={}, headers=player.auth, timeout=30)
        if answer.status_code >= 300:
            raise RuntimeError(f"join {answer.status_code}: {answer.text[:300]}")

    def subscribe(self, player: Player, game: str, url: str) -> None:
        answer = player.session.post(f"{self.url}/webhooks", json={"url": url, "scope": "game", "game_id": game},
                                     headers=player.auth, timeout=30)
        if answer.status_code >= 300:
            raise RuntimeError(f"POST /webhooks {answer.status_code}: {answer.text[:300]}")

    def status(self, player: Player, game: str) -> str:
        answer = player.session.get(f"{self.url}/games/{game}", headers=player.auth, timeout=60)
        return answer.json().get("status", "") if answer.status_code == 200 else ""

    def events(self, player: Player, game: str) -> list[dict]:
        events: list[dict] = []
        after = 0
        while True:
            page = player.session.get(f"{self.url}/games/{game}/events", params={"after": after, "limit": 500},
                                      headers=player.auth, timeout=120).json()
            events.extend(page["events"])
            if page.get("next_after") is None:
                return events
            after = page["next_after"]


@dataclass
class Run:
    """What the players of one run share: where to post, the clock, what they saw."""
    api: Api
    stop: threading.Event
    delay: tuple[float, float]
    window: list[float]  # [start, end] of the measured time (Unix)
    think: float = 0.0  # the bots' think time: the no-bots reference's opponents answer after it
    posts: list[tuple[float, float, int]] = field(default_factory=list)  # (when, ms, status)
    games: list[tuple[str, Player, str]] = field(default_factory=list)  # (game, a reader, "bot" | "clock")
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add_game(self, game: str, reader: Player, kind: str) -> None:
        with self.lock:
            self.games.append((game, reader, kind))


class Human(threading.Thread):
    """A person at a bot game: follows the seat's stream, answers its prompt after a delay
    with a random legal command, and starts a new game when one ends.

    With ``opponent`` (the no-bots reference, ``--reference-no-bots``) the other seat is not a
    bot but that player, a second scripted person who answers after ``--think`` seconds and
    follows this one to each new game: the web serves the same play, and nothing searches."""

    def __init__(self, run: Run, player: Player, kind: str, bot_level: str, number: int,
                 subscribe: str | None = None, opponent: Player | None = None, leader: Human | None = None,
                 delay: tuple[float, float] | None = None):
        super().__init__(daemon=True, name=f"human-{number}" if leader is None else f"opponent-{number}")
        self.run_ = run
        self.player = player
        self.kind = kind
        self.bot_level = bot_level
        self.rng = random.Random(number if leader is None else -1 - number)
        self.delays = delay or run.delay
        self.wake = threading.Event()
        self.subscribe = subscribe
        self.game = ""
        self.subscribed: dict[str, int] = {}  # game -> its version when the webhook was registered
        self.leader = leader
        self.opponent = None
        if opponent is not None:
            self.opponent = Human(run, opponent, kind, bot_level, number, leader=self, delay=(run.think, run.think))
        if leader is None:
            self.new_game()

    def new_game(self) -> None:
        api = self.run_.api
        bots = [] if self.opponent else [{"kind": "mcts", "level": self.bot_level}]
        self.game, version = api.create(self.player, self.kind, {"clock_bank_seconds": MARKER_CLOCK}, bots)
        if self.subscribe:
            api.subscribe(self.player, self.game, self.subscribe)
            self.subscribed[self.game] = version  # what came before is not owed to the receiver
        api.join(self.player, self.game)
        if self.opponent is not None:
            api.join(self.opponent.player, self.game)
            self.opponent.sit_at(self.game)
        self.run_.add_game(self.game, self.player, "bot")
        threading.Thread(target=self.follow, args=(self.game,), daemon=True).start()

    def sit_at(self, game: str) -> None:
        """The opponent's move to the leader's new game."""
        self.game = game
        threading.Thread(target=self.follow, args=(game,), daemon=True).start()
        self.wake.set()

    def follow(self, game: str) -> None:
        """The seat's live stream: every event wakes the player up."""
        session = requests.Session()
        after = 0
        while not self.run_.stop.is_set() and self.game == game:
            try:
                with session.get(f"{self.run_.api.url}/games/{game}/stream", params={"after": after},
                                 headers=self.player.auth, stream=True, timeout=(10, 60)) as answer:
                    for line in answer.iter_lines():
                        if self.run_.stop.is_set() or self.game != game:
                            return
                        if line.startswith(b"id:"):
                            after = int(line[3:])
                            self.wake.set()
            except (requests.RequestException, ValueError):
                time.sleep(1)

    def run(self) -> None:
        try:
            self.play()
        except Exception as exc:  # noqa: BLE001 - reported in the results, the others play on
            self.run_.errors.append(f"{self.name}: {exc!r}")

    def play(self) -> None:
        self.since: float | None = None  # when this prompt was first seen
        self.delay = self.rng.uniform(*self.delays)
        self.checked = -1
        while not self.run_.stop.is_set():
            try:
                self.step()
            except (requests.RequestException, ValueError, KeyError, RuntimeError) as exc:
                self.run_.errors.append(f"{self.name}: {exc!r}")
                time.sleep(1)

    def step(self) -> None:
        """Look at the seat's prompt; answer it once the person's delay is over."""
        url = self.run_.api.url
        legal = self.player.session.get(f"{url}/games/{self.game}/legal-commands", headers=self.player.auth,
                                        timeout=60).json()
        if legal.get("prompt") is None or not legal.get("commands"):
            self.since = None
            if legal.get("version") != self.checked:  # something happened: is the game over?
                self.checked = legal.get("version", -1)
                if self.leader is None and self.run_.api.status(self.player, self.game) == "finished":
                    self.new_game()
                    return
            self.wake.wait(3)
            self.wake.clear()
            return
        now = time.time()
        if self.since is None:
            self.since = now
        if now < self.since + self.delay:
            self.wake.wait(self.since + self.delay - now)
            self.wake.clear()
            return
        command = self.rng.choice(legal["commands"])
        started = time.perf_counter()
        answer = self.player.session.post(f"{url}/games/{self.game}/commands", json=command,
                                          headers=self.player.auth, timeout=60)
        took = (time.perf_counter() - started) * 1000
        with self.run_.lock:
            self.run_.posts.append((now, took, answer.status_code))
        if answer.status_code < 300:
            self.since = None
            self.delay = self.rng.uniform(*self.delays)
        # else (409, 422): the game moved on meanwhile; look again and answer what is shown now


class ClockTable(threading.Thread):
    """Two people at a game with a short clock who never answer: each deadline must be acted on."""

    def __init__(self, run: Run, players: tuple[Player, Player], seconds: int, number: int):
        super().__init__(daemon=True, name=f"clock-{number}")
        self.run_ = run
        self.players = players
        self.seconds = seconds
        self.game = ""
        self.new_game()

    def new_game(self) -> None:
        api = self.run_.api
        first, second = self.players
        self.game, _ = api.create(first, "dynasties", {"clock_bank_seconds": 600,
                                                       "clock_move_seconds": self.seconds}, [])
        api.join(first, self.game)
        api.join(second, self.game)
        self.run_.add_game(self.game, first, "clock")

    def run(self) -> None:
        try:
            while not self.run_.stop.wait(1.0):
                if self.run_.api.status(self.players[0], self.game) == "finished":
                    self.new_game()
        except Exception as exc:  # noqa: BLE001
            self.run_.errors.append(f"{self.name}: {exc!r}")


# -- /health, from a process of its own ----------------------------------------------------
def probe(url: str, seconds: float, out: str) -> None:
    """``--probe``: GET /health every 50 ms over four keep-alive connections in turn."""
    sessions = [requests.Session() for _ in range(4)]
    deadline = time.monotonic() + seconds
    with open(out, "w") as sink:
        turn = 0
        while time.monotonic() < deadline:
            started = time.perf_counter()
            try:
                status = sessions[turn % 4].get(f"{url}/health", timeout=60).status_code
            except requests.RequestException:
                status = 0
            took = (time.perf_counter() - started) * 1000
            sink.write(f"{time.time():.3f} {took:.3f} {status}\n")
            sink.flush()
            turn += 1
            time.sleep(max(0.0, PROBE_EVERY - took / 1000))


def probe_figures(path: Path) -> dict:
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()] if path.exists() else []
    times = [float(r[1]) for r in rows]
    figures = summary(times)
    figures["failed"] = sum(1 for r in rows if not r[2].startswith("2"))
    return figures


# -- one run -------------------------------------------------------------------------------
@dataclass
class Target:
    label: str
    checkout: Path
    shape: str
    env: dict[str, str] = field(default_factory=dict)  # settings of this target's servers (--server-env)
    opponent: str = "bot"  # "person": the no-bots reference (a scripted person in the bot's seat)


def environment(target: Target, prefix: str, args) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAMES_")}
    env.update({
        "PYTHONPATH": str(target.checkout),
        "GAMES_REDIS_PREFIX": prefix,
        "GAMES_BOT_THINK_SECONDS": str(args.think),
        "GAMES_WEBHOOK_ALLOW": "127.0.0.1/32",
        "GAMES_LIMIT_REGISTRATIONS_PER_IP": "10000/minute",
        "PYTHONUNBUFFERED": "1",
    })
    env.update(target.env)
    return env


def imported_from(target: Target, env: dict) -> str:
    return subprocess.run([sys.executable, "-c", "import service; print(service.__file__)"], env=env,
                          cwd=target.checkout, capture_output=True, text=True, check=True).stdout.strip()


def worker_commands(target: Target, store: str, args) -> list[tuple[str, list[str]]]:
    worker = [sys.executable, "-m", "service", "worker", "--store", store]
    if target.shape == "single":
        return [("worker", worker)]
    commands = []
    for lane in LANES:
        processes = {"bots": args.bot_processes, "webhooks": args.webhook_processes}.get(lane)
        extra = ["--processes", str(processes)] if processes else []
        commands.append((f"worker-{lane}", [*worker, "--lanes", lane, *extra]))
    return commands


def wait_healthy(url: str, processes: Processes, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        dead = processes.died()
        if dead:
            raise RuntimeError(f"exited before serving: {', '.join(dead)} (see the logs in {processes.logs})")
        try:
            if requests.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"{url} not healthy after {seconds} s")


def empty_db(url: str) -> int:
    """The highest-numbered empty database of the Redis at ``url`` (others' tests use the low ones)."""
    import redis

    for db in range(15, 0, -1):
        if not redis.Redis.from_url(f"{url.rstrip('/')}/{db}").dbsize():
            return db
    raise SystemExit("no empty Redis database: name one with --redis-db")


def redis_keys_clear(client, prefix: str) -> None:
    for pattern in (f"{prefix}:*", f"{prefix}-*", "rq:*"):
        batch = list(client.scan_iter(match=pattern, count=1000))
        for start in range(0, len(batch), 500):
            client.delete(*batch[start:start + 500])


def one_run(store_kind: str, target: Target, args) -> dict:
    prefix = f"bench-lanes-{os.getpid()}-{target.label}"
    logs = Path(tempfile.mkdtemp(prefix=f"bench-lanes-{store_kind}-{target.label}-"))
    env = environment(target, prefix, args)
    origin = imported_from(target, env)
    print(f"\n== {store_kind} / {target.label} ({target.shape}): service from {origin}; logs in {logs}", flush=True)
    redis_client = None
    if store_kind == "redis":
        import redis

        db = args.redis_db if args.redis_db is not None else empty_db(args.redis)
        store = f"{args.redis.rstrip('/')}/{db}"
        redis_client = redis.Redis.from_url(store)
        if redis_client.dbsize():
            raise SystemExit(f"Redis database {db} is not empty: choose an unused one with --redis-db")
    else:
        store = f"sqlite:///{logs / 'events.db'}"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    processes = Processes(logs)
    fast, drip = FastReceiver(), DripReceiver()
    run = Run(Api(url), threading.Event(), parse_delay(args.human_delay), [0.0, 0.0], think=args.think)
    people = target.opponent == "person"
    prober = None
    try:
        processes.start("serve", [sys.executable, "-m", "service", "serve", "--store", store, "--port", str(port),
                                  "--workers", str(args.web_workers)], env, target.checkout)
        if store_kind == "redis":
            for name, argv in worker_commands(target, store, args):
                processes.start(name, argv, env, target.checkout)
        wait_healthy(url, processes)
        time.sleep(2)  # the workers connect
        print(f"baseline: /health for {args.baseline_seconds:g} s with nothing running", flush=True)
        probe(url, args.baseline_seconds, str(logs / "health-baseline.txt"))
        players = [run.api.register(f"human {n}") for n in range(args.games + 2 * args.clock_games)]
        opponents = [run.api.register(f"opponent {n}") for n in range(args.games)] if people else []
        run.window[0] = time.time()  # from the first game's creation
        prober = subprocess.Popen([sys.executable, __file__, "--probe", url, str(args.seconds),
                                   str(logs / "health-load.txt")])
        humans = []
        for n in range(args.games):
            kind = "dynasties" if n % 2 == 0 else "pax_pamir"
            hook = (drip.url if args.drip else None) if n == 0 else fast.url if n == 1 else None
            humans.append(Human(run, players[n], kind, args.bot_level, n, hook, opponents[n] if people else None))
        tables = [ClockTable(run, (players[args.games + 2 * n], players[args.games + 2 * n + 1]),
                             args.clock_seconds, n) for n in range(args.clock_games)]
        own = {"bench (the people, the receivers)": os.getpid(), "probe": prober.pid}
        cpu_before, cpu_from = cpu_seconds(processes, own), time.time()
        for thread in [*humans, *(h.opponent for h in humans if h.opponent), *tables]:
            thread.start()
        print(f"load: {args.games} {'two-person' if people else 'bot'} games, {args.clock_games} clock games for {args.seconds:g} s", flush=True)
        while time.time() < run.window[0] + args.seconds:
            time.sleep(min(30.0, run.window[0] + args.seconds - time.time()))
            print(f"  {time.time() - run.window[0]:5.0f} s: {len(run.games)} games, {len(run.posts)} human moves, "
                  f"{len(fast.received)} fast webhooks, {drip.requests} drip requests", flush=True)
            if processes.died():
                run.errors.append(f"died during the run: {', '.join(processes.died())}")
                break
        run.window[1] = time.time()
        cpu = cpu_during(cpu_before, cpu_seconds(processes, own), time.time() - cpu_from)
        run.stop.set()
        prober.wait(timeout=120)
        time.sleep(GRACE)
        collected = time.time()
        with run.lock:
            games = list(run.games)
        events = {game: run.api.events(reader, game) for game, reader, _ in games}
        kinds = {game: kind for game, _, kind in games}
    finally:
        run.stop.set()
        if prober is not None and prober.poll() is None:
            prober.kill()
            prober.wait()
        processes.stop()
        drip.close()
        fast.close()
        if redis_client is not None:
            redis_keys_clear(redis_client, prefix)
        for stale in logs.glob("events.db*"):
            stale.unlink()
    decisions = read_decisions(logs)
    figures = analyse(events, kinds, decisions, run, collected, fast, humans[1].subscribed, args)
    figures["health_baseline_ms"] = probe_figures(logs / "health-baseline.txt")
    figures["health_load_ms"] = probe_figures(logs / "health-load.txt")
    base, load = figures["health_baseline_ms"]["p99"], figures["health_load_ms"]["p99"]
    figures["health_p99_ratio_to_baseline"] = load / base if base and load is not None else None
    posts = [ms for when, ms, _ in run.posts if run.window[0] <= when <= run.window[1]]
    figures["post_commands_ms"] = summary(posts)
    figures["post_commands_refused"] = sum(1 for _, _, status in run.posts if status >= 400)
    figures["post_commands_5xx"] = sum(1 for _, _, status in run.posts if status >= 500)
    figures["drip_requests"] = drip.requests
    if store_kind == "redis":
        bot_processes = 1 if target.shape == "single" else args.bot_processes or 1
    else:  # the embedded store's bots run where the server puts them: known only if told
        bot_processes = args.bot_processes
    moves = figures["bot_moves_per_second"]
    figures["bot_worker_processes"] = bot_processes
    figures["bot_moves_per_second_per_process"] = moves / bot_processes if bot_processes else None
    figures["bot_moves_per_second_per_core"] = moves / (os.cpu_count() or 1)
    figures["errors"] = run.errors[:20]
    figures["cpu_during_load"] = cpu
    print("CPU during the load, by process (count, CPU s, share of the machine):")
    for who, kind in cpu.items():
        print(f"  {kind['processes']:3d} {kind['cpu_s']:8.1f} {kind['machine_share']:6.1%}  {who}")
    return {"store": store_kind, "label": target.label, "checkout": str(target.checkout), "shape": target.shape,
            "server_env": target.env, "opponent": target.opponent,
            "service_imported_from": origin, "logs": str(logs), "figures": figures}


def setting(text: str) -> tuple[str, str]:
    name, equals, value = text.partition("=")
    if not equals or not name.startswith("GAMES_"):
        raise argparse.ArgumentTypeError(f"{text!r}: GAMES_NAME=VALUE")
    return name, value


def parse_delay(text: str) -> tuple[float, float]:
    low, _, high = text.partition("-")
    return float(low), float(high or low)


def read_decisions(logs: Path) -> dict[tuple[str, int], list[tuple[int, float]]]:
    """The bot-decision lines of every process: (game, seat) -> [(version, ms)]."""
    found: dict[tuple[str, int], list[tuple[int, float]]] = {}
    for path in logs.glob("*.log"):
        for match in DECISION.finditer(path.read_text(errors="replace")):
            game, version, seat, ms = match.groups()
            found.setdefault((game, int(seat)), []).append((int(version), float(ms)))
    return found


@dataclass
class Prompt:
    game: str
    seat: int
    start: float
    version: int
    end: float
    end_version: int | None  # None: still open when read
    answered: bool


def bot_prompts(game: str, events: list[dict], collected: float) -> list[Prompt]:
    """Each time a bot seat was asked (its clock started) and how it ended."""
    bots = {e["data"]["seat"] for e in events if e["type"] == "SeatTaken" and e["data"].get("bot")}
    running: dict[int, tuple[float, int]] = {}
    prompts = []
    for event in events:
        seat = event["data"].get("seat") if isinstance(event.get("data"), dict) else None
        if seat not in bots:
            continue
        if event["type"] == "ClockStarted":
            running[seat] = (at_of(event["data"]["at"]), event["version"])
        elif event["type"] in ("ClockStopped", "ClockTimedOut") and seat in running:
            start, version = running.pop(seat)
            prompts.append(Prompt(game, seat, start, version, at_of(event["at"]), event["version"],
                                  event["type"] == "ClockStopped" and event.get("actor") == seat))
    prompts.extend(Prompt(game, seat, start, version, collected, None, False)
                   for seat, (start, version) in running.items())
    return prompts


def clock_lateness(events: list[dict], collected: float, window: list[float]) -> tuple[list[float], int, int]:
    """Lateness of every deadline in the window (acted on, or so far), fired and missed counts."""
    started: dict[int, dict] = {}  # version -> ClockStarted data
    open_by_seat: dict[int, int] = {}
    late, fired = [], 0
    for event in events:
        data = event.get("data") if isinstance(event.get("data"), dict) else {}
        if event["type"] == "ClockStarted":
            started[event["version"]] = data
            open_by_seat[data["seat"]] = event["version"]
        elif event["type"] == "ClockTimedOut":
            clock = started.get(data["started_version"])
            open_by_seat.pop(data["seat"], None)
            if clock is not None and window[0] <= at_of(clock["deadline"]) <= window[1]:
                late.append(at_of(event["at"]) - at_of(clock["deadline"]))
                fired += 1
        elif event["type"] == "ClockStopped":
            open_by_seat.pop(data["seat"], None)
    missed = 0
    for version in open_by_seat.values():
        deadline = at_of(started[version]["deadline"])
        if window[0] <= deadline <= window[1]:
            late.append(collected - deadline)
            missed += 1
    return late, fired, missed


def analyse(events: dict[str, list[dict]], kinds: dict[str, str], decisions, run: Run, collected: float,
            fast: FastReceiver, fast_games: dict[str, int], args) -> dict:
    window = run.window
    seconds = window[1] - window[0]
    prompts = [p for game, log in events.items() if kinds[game] == "bot" for p in bot_prompts(game, log, collected)
               if window[0] <= p.start <= window[1]]
    excess, beyond_longer, raw, decided = [], [], [], []
    known = 0
    for p in prompts:
        took = p.end - p.start
        raw.append(took)
        if p.end_version is None:
            spent = 0.0
        else:
            mine = [ms for version, ms in decisions.get((p.game, p.seat), []) if p.version <= version < p.end_version]
            spent = sum(mine) / 1000
            known += bool(mine)
            if mine:
                decided.append(spent * 1000)
        excess.append(took - args.think - spent)
        beyond_longer.append(took - max(args.think, spent))
    answered = [p for p in prompts if p.answered and p.end <= window[1]]
    late, fired, missed = [], 0, 0
    for game, log in events.items():
        if kinds[game] == "clock":
            got, n_fired, n_missed = clock_lateness(log, collected, window)
            late.extend(got)
            fired += n_fired
            missed += n_missed
    owed = {(game, e["version"]): e for game, since in fast_games.items() for e in events.get(game, [])
            if e["version"] > since and window[0] <= at_of(e["at"]) <= window[1]}
    fast_late = [arrived - at_of(event["at"]) for arrived, event in fast.received.values()
                 if (event.get("game_id"), event.get("version")) in owed]
    delivered = {(event.get("game_id"), event.get("version")) for _, event in fast.received.values()}
    missing = [(game, e) for (game, version), e in owed.items() if (game, version) not in delivered]
    undelivered = [collected - at_of(e["at"]) for _, e in missing]
    return {
        "window_seconds": seconds,
        "bot_prompts": len(prompts),
        "bot_prompts_open_at_end": sum(1 for p in prompts if p.end_version is None),
        "bot_decisions_logged": known,
        "bot_decide_ms": summary(decided) if decided else None,
        "bot_reply_excess_s": summary(excess),  # minus think, minus decide where logged
        "bot_reply_beyond_longer_s": summary(beyond_longer),  # minus the longer of think and decide
        "bot_reply_raw_s": summary(raw),
        "bot_longest_prompted_s": max(raw) if raw else None,
        "bot_moves": len(answered),
        "bot_moves_per_second": len(answered) / seconds if seconds else 0.0,
        "clock_timeouts_fired": fired,
        "clock_deadlines_missed": missed,
        "clock_lateness_s": summary(late),
        "webhook_fast_lateness_s": summary(fast_late + undelivered),
        "webhook_fast_delivered": len(fast_late),
        "webhook_fast_undelivered": len(undelivered),
        "webhook_fast_undelivered_first": [f"{game} v{e['version']} {e['type']} at {e['at']}" for game, e in missing[:5]],
        "games_played": sum(1 for kind in kinds.values() if kind == "bot"),
        "clock_games_played": sum(1 for kind in kinds.values() if kind == "clock"),
        "human_moves": len(run.posts),
    }


# -- the table -----------------------------------------------------------------------------
ROWS = [
    ("bot reply p50, s beyond think (+decide)", lambda f: f["bot_reply_excess_s"]["p50"]),
    ("bot reply p95, s beyond think (+decide)", lambda f: f["bot_reply_excess_s"]["p95"]),
    ("bot reply max, s beyond think (+decide)", lambda f: f["bot_reply_excess_s"]["max"]),
    ("bot reply p95, s beyond max(think, decide)", lambda f: f["bot_reply_beyond_longer_s"]["p95"]),
    ("bot reply p95, s from prompt (raw)", lambda f: f["bot_reply_raw_s"]["p95"]),
    ("bot decisions logged / prompts", lambda f: f"{f['bot_decisions_logged']}/{f['bot_prompts']}"),
    ("bot decide ms p50 (logged)", lambda f: (f["bot_decide_ms"] or {}).get("p50")),
    ("longest a bot stayed prompted, s", lambda f: f["bot_longest_prompted_s"]),
    ("bot prompts still open at the end", lambda f: f["bot_prompts_open_at_end"]),
    ("bot moves/s", lambda f: f["bot_moves_per_second"]),
    ("bot moves/s per bot worker process", lambda f: f["bot_moves_per_second_per_process"]),
    ("bot moves/s per core", lambda f: f["bot_moves_per_second_per_core"]),
    ("clock timeouts fired / missed", lambda f: f"{f['clock_timeouts_fired']}/{f['clock_deadlines_missed']}"),
    ("clock lateness max, s", lambda f: f["clock_lateness_s"]["max"]),
    ("clock lateness p95, s", lambda f: f["clock_lateness_s"]["p95"]),
    ("fast webhook lateness p95, s", lambda f: f["webhook_fast_lateness_s"]["p95"]),
    ("fast webhook lateness max, s", lambda f: f["webhook_fast_lateness_s"]["max"]),
    ("fast webhooks delivered / not yet", lambda f: f"{f['webhook_fast_delivered']}/{f['webhook_fast_undelivered']}"),
    ("dripping receiver: requests", lambda f: f["drip_requests"]),
    ("GET /health p99 ms, nothing running", lambda f: f["health_baseline_ms"]["p99"]),
    ("GET /health p99 ms, under load", lambda f: f["health_load_ms"]["p99"]),
    ("GET /health max ms, under load", lambda f: f["health_load_ms"]["max"]),
    ("  /health p99 load / nothing running", lambda f: f["health_p99_ratio_to_baseline"]),
    ("  /health p99 load / the no-bots load", lambda f: f.get("health_p99_ratio_to_no_bots")),
    ("POST commands p99 ms", lambda f: f["post_commands_ms"]["p99"]),
    ("POST commands (refused / 5xx)", lambda f: f"{f['post_commands_ms']['n']} "
                                                f"({f['post_commands_refused']}/{f['post_commands_5xx']})"),
    ("bot games / clock games played", lambda f: f"{f['games_played']}/{f['clock_games_played']}"),
]


def shown(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)


def table(runs: list[dict]) -> str:
    """Each store's runs side by side; with two runs of bots (the code before and this), their ratio."""
    lines = []
    for store in dict.fromkeys(r["store"] for r in runs):
        mine = [r for r in runs if r["store"] == store]
        bots = [r for r in mine if r.get("opponent", "bot") == "bot"]
        ratio = len(bots) == 2
        heads = [f"{r['store']}/{r['label']}" for r in mine]
        if ratio:
            heads.append(f"{bots[1]['label']}/{bots[0]['label']}")
        lines.append(f"{'':44}" + "".join(f"{h:>18}" for h in heads))
        for name, get in ROWS:
            values = [get(r["figures"]) for r in mine]
            cells = [shown(v) for v in values]
            if ratio:
                reference, value = (get(r["figures"]) for r in bots)
                numeric = isinstance(reference, (int, float)) and isinstance(value, (int, float)) and reference
                cells.append(f"{value / reference:.2f}" if numeric else "")
            lines.append(f"{name:44}" + "".join(f"{c:>18}" for c in cells))
        lines.append("")
    return "\n".join(lines)


def interrupted(*_) -> None:
    """SIGTERM as Ctrl-C: every run's ``finally`` stops what it started."""
    raise KeyboardInterrupt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", nargs="+", choices=("sqlite", "redis"), default=["sqlite", "redis"])
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--baseline-seconds", type=float, default=30,
                        help="/health probed this long with nothing running, before the load")
    parser.add_argument("--games", type=int, default=30, help="games with a bot seat at once")
    parser.add_argument("--clock-games", type=int, default=5, help="games whose 4 s clocks must time out")
    parser.add_argument("--clock-seconds", type=int, default=4)
    parser.add_argument("--human-delay", default="2-5", help="seconds a person takes: LOW-HIGH, or 0 (at once)")
    parser.add_argument("--think", type=float, default=0.3, help="GAMES_BOT_THINK_SECONDS")
    parser.add_argument("--bot-level", default="normal")
    parser.add_argument("--no-drip", dest="drip", action="store_false",
                        help="no dripping receiver (the lanes' capacity alone)")
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the code to run (default: this checkout)")
    parser.add_argument("--shape", choices=("lanes", "single"), default="lanes",
                        help="Redis workers: one per lane (lanes) or one for everything (single, before issue 33)")
    parser.add_argument("--label", default="this")
    parser.add_argument("--webhook-processes", type=int,
                        help="Redis lanes: --processes of the webhooks worker (the compose file runs 4)")
    parser.add_argument("--bot-processes", type=int,
                        help="Redis lanes: --processes of the bots worker (default: none passed, 1 counted); "
                             "SQLite: the bot processes the server runs, for the per-process figure")
    parser.add_argument("--server-env", type=setting, action="append", default=[], metavar="GAMES_X=VALUE",
                        help="a setting of this checkout's servers (not the baseline's), e.g. GAMES_BOT_IDLE=0")
    parser.add_argument("--reference-no-bots", action="store_true",
                        help="first, this checkout with a scripted person (answering after --think) in each bot's "
                             "seat: the web's load without any search, /health's reference under load")
    parser.add_argument("--baseline", type=Path, help="another checkout (the code before) run in the same invocation")
    parser.add_argument("--baseline-shape", choices=("lanes", "single"), default="single")
    parser.add_argument("--baseline-label", default="before")
    parser.add_argument("--redis", default=os.environ.get("BENCH_REDIS", "redis://127.0.0.1:6379"))
    parser.add_argument("--redis-db", type=int,
                        help="an empty database for the run (default: the highest-numbered empty one)")
    parser.add_argument("--probe", nargs=3, metavar=("URL", "SECONDS", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        probe(args.probe[0], float(args.probe[1]), args.probe[2])
        return
    if args.games < 2:
        parser.error("--games: at least 2 (one for the dripping receiver, one for the fast one)")
    signal.signal(signal.SIGTERM, interrupted)
    targets = [Target(args.label, args.checkout.resolve(), args.shape, dict(args.server_env))]
    if args.baseline:
        targets.insert(0, Target(args.baseline_label, args.baseline.resolve(), args.baseline_shape))
    results_dir = ROOT / "bench" / "results"
    results_dir.mkdir(parents=True, exist_ok=True)
    started = datetime.now()
    load_before = os.getloadavg()
    if args.reference_no_bots:
        targets.insert(0, Target("no bots", args.checkout.resolve(), args.shape, dict(args.server_env), "person"))
    runs = []
    for store in args.store:
        for target in targets:
            runs.append(one_run(store, target, args))
            if len(args.store) * len(targets) > 1:
                print(table(runs[-1:]), flush=True)
        no_bots = [r for r in runs if r["store"] == store and r["opponent"] == "person"]
        reference = no_bots[0]["figures"]["health_load_ms"]["p99"] if no_bots else None
        for r in runs:
            if r["store"] == store and r["opponent"] == "bot" and reference and r["figures"]["health_load_ms"]["p99"]:
                r["figures"]["health_p99_ratio_to_no_bots"] = r["figures"]["health_load_ms"]["p99"] / reference
    settings = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items() if k != "probe"}
    report = {"started": started.isoformat(timespec="seconds"), "argv": sys.argv, "settings": settings,
              "cores": os.cpu_count(), "load_average_before": load_before, "load_average_after": os.getloadavg(),
              "compiled_domain": {str(t.checkout): any(t.checkout.glob("domain/**/*.so")) for t in targets},
              "runs": runs}
    out = results_dir / f"lanes-{started:%Y-%m-%d-%H%M%S}.json"
    out.write_text(json.dumps(report, indent=1) + "\n")
    print("\n" + table(runs))
    print(f"load average before {load_before[0]:.1f}, after {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          f"figures in {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
