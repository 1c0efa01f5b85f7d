"""The project beside its ceiling, in one run, under the same gunicorn settings.

Starts, each on ports of its own:

* **ceiling**: bench/ceiling_app.py, a bare Flask app whose POST does only a Redis
  compare-and-append and whose GET returns a cached 2 KB state, with its own redis-server;
* **redis**: ``python -m service serve`` on a Redis store of its own, plus one
  ``python -m service worker`` (projections on RQ, the production shape);
* **sqlite**: ``python -m service serve`` on a SQLite file (projections in-process);
* **boardgameio** (the peer, with ``--targets ... boardgameio``): boardgame.io's server
  (Node, socket.io) with its FlatFile storage, playing a 3-seat secret-hand card game
  (bench/peer_boardgameio/, npm-pinned; ``npm ci`` is run there when node_modules is
  missing), driven by its own Node client (driver.js: 16 matches at once, three seats'
  sockets each, a move as soon as the last one is answered). Its figures are per move:
  server CPU per move (the Node process's tree from /proc; the driver is not counted, as
  wrk is not) and the move's latency, sent to answered, p50/p99. It sits out the open loop.
* on request (``--targets``), the redis target's shape with a replica beside its Redis:
  **redis-replica** (the durability setting off) and **redis-wait1**
  (``GAMES_REDIS_WAIT_REPLICAS=1``: every acknowledged write waits for the replica), to
  measure the setting's cost side by side.

Each web server (the ceiling's too) runs under ``--server`` (service.running.serving: 2 worker processes, or ``--workers``;
gunicorn+gevent by default); with several servers every target runs under each in the same
rounds, and each is compared with the ceiling under its own server.
Before each round every target gets fresh Dynasties games, ``--connections`` of them
in play at once (one per connection). Then, in interleaved rounds (the order rotates),
wrk (C, bench/cycle.lua) drives each target for ``--seconds``: each connection plays its
game, a cycle being a GET of legal commands and a POST of one of them. Per round and
target: cycles/s, POST p50/p99 (measured in the Lua script), the CPU of each process per
cycle (from /proc, including the worker's catch-up after the round until the projections
have no lag), and the ratio to the ceiling of the same round. The table shows the median
round. Then an open-loop run (bench/open_loop.py) at ``--rate`` cycles/s per target.

The machine is shared and noisy: only ratios within one run mean much.

    .venv/bin/python bench/bench_side_by_side.py [--rounds 3] [--seconds 10] [--connections 16]
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench.open_loop import read_games  # noqa: E402
from bench.open_loop import run as open_loop  # noqa: E402
from bench.profile_summary import summarize, table  # noqa: E402
from service.running.serving import DEFAULT_SERVER, SERVERS  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
PEER = HERE / "peer_boardgameio"
PY = sys.executable


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tree(pid: int) -> list[int]:
    """``pid`` and all its descendants, now."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(children.get(p, []))
    return found


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, IndexError):
            pass
    return total / TICK


@dataclass
class Target:
    name: str
    url: str
    procs: dict[str, subprocess.Popen]          # role -> process (its tree is measured)
    project: bool = True
    redis_url: str | None = None
    peer: bool = False
    rounds: list[dict] = field(default_factory=list)

    def cpu(self) -> dict[str, float]:
        """CPU seconds per role's process tree; a web tree's SQLite projector (``python -m
        service project``, a child of the server) is counted apart, as ``projector``."""
        out: dict[str, float] = {}
        for role, proc in self.procs.items():
            pids = tree(proc.pid)
            projectors = [pid for pid in pids if role == "web" and _is_projector(pid)]
            out[role] = cpu_seconds([pid for pid in pids if pid not in projectors])
            if role == "web" and self.project and not self.peer:
                out["projector"] = out.get("projector", 0.0) + cpu_seconds(projectors)
        if not out.get("projector"):
            out.pop("projector", None)
        return out


def _is_projector(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            args = f.read().split(b"\0")
    except OSError:
        return False
    return b"service" in args and b"project" in args


class Bench:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.tmp = Path(tempfile.mkdtemp(prefix="side-by-side-"))
        self.started: list[subprocess.Popen] = []
        self.logs = []

    def spawn(self, cmd: list[str], env: dict | None = None, name: str = "proc", cwd: str | Path = ROOT
              ) -> subprocess.Popen:
        log = open(self.tmp / f"{name}.log", "wb")
        self.logs.append(log)
        proc = subprocess.Popen(cmd, env={**os.environ, **(env or {})}, stdout=log, stderr=subprocess.STDOUT,
                                cwd=cwd, start_new_session=True)
        self.started.append(proc)
        return proc

    def redis(self, name: str, replica_of: str | None = None) -> tuple[str, subprocess.Popen]:
        port = free_port()
        workdir = self.tmp / f"redis-{name}"
        workdir.mkdir()
        following = ["--replicaof", "127.0.0.1", replica_of.rsplit(":", 1)[1].split("/")[0]] if replica_of else []
        proc = self.spawn(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                           "--appendonly", "no", "--dir", str(workdir), *following], name=f"redis-{name}")
        url = f"redis://127.0.0.1:{port}/0"
        wait_for(lambda: subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).stdout
                 .strip() == b"PONG")
        return url, proc

    def stop(self) -> None:
        for proc in reversed(self.started):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for proc in self.started:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        for log in self.logs:
            log.close()
        if not self.args.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)

    # -- targets -------------------------------------------------------------------
    def serving(self, server: str) -> list[str]:
        """``serve``'s options for ``--server NAME[:N]`` (N connections, threads, per worker)
        and ``--workers``."""
        name, _, connections = server.partition(":")
        workers = ["--workers", str(self.args.workers)] if self.args.workers else []
        return ["--server", name, *(["--connections", connections] if connections else []), *workers]

    def start_project_targets(self, server: str, suffix: str) -> list[Target]:
        """The ceiling and the project's targets under one server (named NAME + suffix)."""
        targets = []
        serving = self.serving(server)
        tag = suffix.replace("/", "-").replace(":", "-")
        redis_url, redis_proc = self.redis(f"ceiling{tag}")
        port = free_port()
        web = self.spawn([PY, str(HERE / "ceiling_app.py"), "--port", str(port), "--redis", redis_url, *serving],
                         name=f"ceiling{tag}")
        targets.append(Target("ceiling" + suffix, f"http://127.0.0.1:{port}", {"web": web, "redis": redis_proc},
                              project=False))
        redis_url, redis_proc = self.redis(f"project{tag}")
        port = free_port()
        env = {"GAMES_STORE": redis_url, "GAMES_PROJECTIONS": "rq", **self.extra_env()}
        web = self.spawn([PY, "-m", "service", "serve", "--port", str(port), "--store", redis_url, *serving], env,
                         f"redis-web{tag}")
        worker = self.spawn([PY, "-m", "service", "worker", "--store", redis_url], env,
                            f"redis-worker{tag}")
        targets.append(Target("redis" + suffix, f"http://127.0.0.1:{port}", {"web": web, "worker": worker, "redis": redis_proc},
                              redis_url=redis_url))
        for name, wait in (("redis-replica", "0"), ("redis-wait1", "1")):
            if name not in self.args.targets:
                continue
            redis_url, redis_proc = self.redis(name + tag)
            _, replica_proc = self.redis(f"{name}{tag}-replica", replica_of=redis_url)
            port = free_port()
            env = {"GAMES_STORE": redis_url, "GAMES_PROJECTIONS": "rq", "GAMES_REDIS_WAIT_REPLICAS": wait,
                   **self.extra_env()}
            web = self.spawn([PY, "-m", "service", "serve", "--port", str(port), "--store", redis_url, *serving],
                             env, f"{name}{tag}-web")
            worker = self.spawn([PY, "-m", "service", "worker", "--store", redis_url], env, f"{name}{tag}-worker")
            targets.append(Target(name + suffix, f"http://127.0.0.1:{port}", {"web": web, "worker": worker, "redis": redis_proc,
                                                                      "replica": replica_proc}, redis_url=redis_url))
        port = free_port()
        store = f"sqlite:///{self.tmp}/events{tag}.db"
        env = {"GAMES_STORE": store, "GAMES_PROJECTIONS": "inline", **self.extra_env()}
        web = self.spawn([PY, "-m", "service", "serve", "--port", str(port), "--store", store, *serving], env,
                         f"sqlite-web{tag}")
        targets.append(Target("sqlite" + suffix, f"http://127.0.0.1:{port}", {"web": web}))
        return targets

    def start_targets(self) -> list[Target]:
        targets = []
        servers = self.args.server
        for server in servers:
            suffix = f"/{server}" if len(servers) > 1 else ""
            targets.extend(self.start_project_targets(server, suffix))
        if "boardgameio" in self.args.targets:
            targets.append(self.start_peer())
        if self.args.baseline:  # the same project from another checkout (the "before"), under the first server
            root = str(Path(self.args.baseline).resolve())
            serving = self.serving(servers[0])
            base_suffix = f"/{servers[0]}" if len(servers) > 1 else ""
            redis_url, redis_proc = self.redis("base")
            port = free_port()
            env = {"GAMES_STORE": redis_url, "GAMES_PROJECTIONS": "rq", "PYTHONPATH": root, **self.extra_env()}
            web = self.spawn([PY, "-m", "service", "serve", "--port", str(port), "--store", redis_url, *serving],
                             env, "base-redis-web", cwd=root)
            worker = self.spawn([PY, "-m", "service", "worker", "--store", redis_url], env, "base-redis-worker", cwd=root)
            targets.append(Target("redis@base" + base_suffix, f"http://127.0.0.1:{port}",
                                  {"web": web, "worker": worker, "redis": redis_proc}, redis_url=redis_url))
            port = free_port()
            store = f"sqlite:///{self.tmp}/base-events.db"
            env = {"GAMES_STORE": store, "GAMES_PROJECTIONS": "inline", "PYTHONPATH": root, **self.extra_env()}
            web = self.spawn([PY, "-m", "service", "serve", "--port", str(port), "--store", store, *serving],
                             env, "base-sqlite-web", cwd=root)
            targets.append(Target("sqlite@base" + base_suffix, f"http://127.0.0.1:{port}", {"web": web}))
        for target in targets:
            health = f"{target.url}/games" if target.peer else f"{target.url}/health"
            wait_for(lambda url=health: _ok(url), timeout=30)
        wanted = set(self.args.targets) | ({"redis@base", "sqlite@base"} if self.args.baseline else set())
        return [t for t in targets if t.name.split("/")[0] in wanted]

    def start_peer(self) -> Target:
        """boardgame.io's server on its FlatFile storage (or ``--peer-store``)."""
        if shutil.which("node") is None:
            raise SystemExit("the boardgameio target needs node and npm (apt-get install -y nodejs npm)")
        if not (PEER / "node_modules").is_dir():
            subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=PEER, check=True)
        port = free_port()
        web = self.spawn(["node", "server.js", "--port", str(port), "--store", self.args.peer_store,
                          "--dir", str(self.tmp / "peer-data")], name="boardgameio", cwd=PEER)
        return Target("boardgameio", f"http://127.0.0.1:{port}", {"web": web}, project=False, peer=True)

    def extra_env(self) -> dict[str, str]:
        # every player and every connection of the benchmark comes from one address: the
        # registration limit (60 a minute per IP) would refuse the games of the second round,
        # and the request limit per IP (1,000 a second per process) would answer 429 to a
        # fast machine's load. The per-IP limit is raised, not removed, so its counting is
        # still paid; the per-token limit stays at its default.
        return {"GAMES_LIMIT_REGISTRATIONS_PER_IP": "", "GAMES_LIMIT_PER_IP": "1000000/second",
                **dict(item.split("=", 1) for item in self.args.env)}

    # -- games ---------------------------------------------------------------------
    def make_games(self, target: Target, per_lane: int, lanes: int, tag: str) -> Path:
        path = self.tmp / f"games-{target.name.replace('/', '-')}-{tag}.txt"
        if target.peer:  # its driver makes its matches itself, before the timed part
            return path
        if not target.project:
            path.write_text("".join(f"{lane} {lane:04d}{tag}{k:04d} x\n" for lane in range(lanes)
                                    for k in range(per_lane)))
            return path

        def lane_games(lane: int) -> list[str]:
            http = requests.Session()
            players = [http.post(f"{target.url}/players", json={"name": f"p{lane}-{i}"}, timeout=30).json()
                       for i in range(3)]
            token_of = {p["id"]: p["token"] for p in players}
            lines = []
            for _ in range(per_lane):
                auth = {"Authorization": f"Bearer {players[0]['token']}"}
                game = http.post(f"{target.url}/games", json={"type": "dynasties", "seats": 3}, headers=auth,
                                 timeout=30).json()["id"]
                for p in players:
                    joined = http.post(f"{target.url}/games/{game}/join", json={},
                                       headers={"Authorization": f"Bearer {p['token']}"}, timeout=30)
                    joined.raise_for_status()
                seats = joined.json()["game"]["seats"]
                lines.append(f"{lane} {game} " + " ".join(token_of[s["player_id"]] for s in seats) + "\n")
            return lines

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            lines = [line for chunk in pool.map(lane_games, range(lanes)) for line in chunk]
        path.write_text("".join(lines))
        return path

    def settle(self, target: Target, timeout: float = 120) -> None:
        """Wait until the projections have no lag (the worker or the inline thread is done)."""
        if not target.project:
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            answer = requests.get(f"{target.url}/projections", timeout=30)
            if answer.status_code != 200:
                print(f"  {target.name}: GET /projections answered {answer.status_code}: {answer.text[:200]}",
                      file=sys.stderr)
            elif all(p["lag"] == 0 for p in answer.json()["projections"]):
                return
            time.sleep(0.2)
        print(f"  warning: {target.name} projections still lag after {timeout} s", file=sys.stderr)

    # -- a closed-loop round with wrk ------------------------------------------------
    def wrk_round(self, target: Target, games: Path) -> dict:
        args = self.args
        if target.peer:
            return self.peer_round(target)
        result = self.tmp / f"wrk-{target.name.replace('/', '-')}.out"
        before = target.cpu()
        started = time.monotonic()
        spies = self.profile(target) if args.profile else []
        subprocess.run(["wrk", f"-t{args.connections}", f"-c{args.connections}", f"-d{args.seconds}s",
                        "--timeout", "10s", "-s", str(HERE / "cycle.lua"), target.url, "--", str(games)],
                       env={**os.environ, "CYCLE_RESULT": str(result)}, check=True, capture_output=True)
        elapsed = time.monotonic() - started
        for spy, _, _ in spies:
            spy.wait(timeout=60)
        profiles = {}
        for _, role, out in spies:
            if out.exists():
                profiles.setdefault(role, []).append(str(out))
        for role, paths in profiles.items():
            print(f"  profile {target.name} {role}: {table(summarize(paths))}", flush=True)
        # the worker's catch-up for this round's load belongs to the round's cost
        self.settle(target)
        after = target.cpu()
        posts = gets = empty = errors = exhausted = 0
        latencies: list[float] = []
        statuses: dict[str, int] = {}
        for line in result.read_text().splitlines():
            parts = line.split()
            if parts[0] == "thread":
                values = dict(zip(parts[2::2], map(int, parts[3::2]), strict=True))
                posts += values["posts"]
                gets += values["gets"]
                empty += values["empty"]
                errors += values["errors"]
                exhausted += values["exhausted"]
            elif parts[0] == "status":
                statuses[parts[1]] = statuses.get(parts[1], 0) + int(parts[2])
            elif parts[0] == "lat":
                latencies.extend(float(x) for x in parts[1:])
        latencies.sort()
        cpu = {role: after[role] - before.get(role, 0.0) for role in after}
        return {
            "cycles_s": posts / elapsed,
            "p50": pct(latencies, 0.5) * 1000, "p99": pct(latencies, 0.99) * 1000,
            "cpu_ms": {role: 1000 * value / max(posts, 1) for role, value in cpu.items()},
            "gets_per_cycle": gets / max(posts, 1), "errors": errors, "exhausted": exhausted,
            "statuses": statuses,
        }

    def peer_round(self, target: Target) -> dict:
        """A round of the peer: its driver makes and connects its matches, says "ready", and
        plays for ``--seconds`` once told to; the server's CPU is read around the timed part."""
        args = self.args
        per_lane = args.peer_matches or max(4, args.seconds)
        driver = subprocess.Popen(["node", "driver.js", "--url", target.url, "--lanes", str(args.connections),
                                   "--matches", str(per_lane), "--seconds", str(args.seconds)],
                                  cwd=PEER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert driver.stdin is not None and driver.stdout is not None
        try:
            if driver.stdout.readline().strip() != "ready":
                raise RuntimeError("the boardgame.io driver did not get ready")
            before = target.cpu()
            driver.stdin.write("go\n")
            driver.stdin.flush()
            found = json.loads(driver.stdout.readline())
            after = target.cpu()
        finally:
            driver.kill()
            driver.wait()
        latencies = sorted(found["latencies"])
        moves = found["moves"]
        return {
            "cycles_s": moves / found["elapsed"],
            "p50": pct(latencies, 0.5) * 1000, "p99": pct(latencies, 0.99) * 1000,
            "cpu_ms": {role: 1000 * (after[role] - before.get(role, 0.0)) / max(moves, 1) for role in after},
            "gets_per_cycle": 0.0, "errors": found["errors"], "exhausted": found["exhausted"], "statuses": {},
        }

    def profile(self, target: Target) -> list[tuple[subprocess.Popen, str, Path]]:
        """py-spy on each web worker (the gunicorn master's children) and on the RQ worker."""
        spies = []
        for role, proc in target.procs.items():
            if role == "redis":
                continue
            pids = tree(proc.pid)[1:] if role == "web" else [proc.pid]
            for pid in pids:
                out = self.tmp / f"profile-{target.name.replace('/', '-')}-{role}-{pid}.txt"
                spies.append((subprocess.Popen([str(Path(sys.executable).parent / "py-spy"), "record", "-r", "200", "-d", str(max(2, self.args.seconds - 2)),
                                                "-f", "raw", "-o", str(out), "-p", str(pid), *self.args.spy_args],
                                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL), role, out))
        return spies

    def open_loop_run(self, target: Target, games: Path, rate: float) -> dict:
        before = target.cpu()
        results = asyncio.run(open_loop(target.url, read_games(str(games)), rate, self.args.open_seconds))
        self.settle(target)
        after = target.cpu()
        post = sorted(results.post)
        scheduled = sorted(results.scheduled)
        return {"cycles": results.cycles, "errors": results.errors, "late": results.late_starts,
                "p50": pct(post, 0.5) * 1000, "p99": pct(post, 0.99) * 1000, "max": post[-1] * 1000 if post else 0,
                "sched_p99": pct(scheduled, 0.99) * 1000,
                "cpu_ms": {role: 1000 * (after[role] - before.get(role, 0.0)) / max(results.cycles, 1) for role in after}}


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(len(values) * q))]


def _ok(url: str) -> bool:
    try:
        return requests.get(url, timeout=1).status_code == 200
    except requests.RequestException:
        return False


def wait_for(check, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError("a process did not come up; see its log (--keep keeps them)")
        time.sleep(0.1)


def cpu_text(cpu: dict[str, float]) -> str:
    total = sum(cpu.values())
    if len(cpu) == 1:
        return f"{total:.2f} ms"
    return f"{total:.2f} ms (" + ", ".join(f"{role} {value:.2f}" for role, value in cpu.items()) + ")"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workers", type=int, default=0,
                        help="web worker processes of every server, the ceiling's too (default: serve's, 2)")
    parser.add_argument("--rate", type=float, default=300, help="open-loop cycles/s (0: skip)")
    parser.add_argument("--rate-of-ceiling", type=float, default=0,
                        help="also an open-loop run at this share of the ceiling's cycles/s in this run (e.g. "
                             "0.125: 300 cycles/s where the ceiling makes 2,400)")
    parser.add_argument("--open-seconds", type=float, default=20)
    parser.add_argument("--games-per-lane", type=int, default=0, help="default: enough for --seconds")
    parser.add_argument("--targets", nargs="+", default=["ceiling", "redis", "sqlite"],
                        help="of ceiling redis sqlite boardgameio (the peer)")
    parser.add_argument("--server", nargs="+", default=[DEFAULT_SERVER], metavar="SERVER[:N]",
                        help=f"the HTTP server of the ceiling and the project, of {', '.join(SERVERS)} "
                             "(service.running.serving), with :N its --connections (threads per worker for gthread and "
                             "granian); with more than one, every target runs under each, named NAME/SERVER, "
                             "in the same rounds")
    parser.add_argument("--peer-store", default="flatfile", choices=["flatfile", "flatfile-queued", "memory"],
                        help="the boardgame.io peer's storage (bench/peer_boardgameio/server.js)")
    parser.add_argument("--peer-matches", type=int, default=0, help="matches per lane for the peer (default: "
                                                                    "--seconds, at least 4)")
    parser.add_argument("--env", nargs="*", default=[], help="KEY=VALUE settings for the project's processes")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (logs)")
    parser.add_argument("--profile", action="store_true", help="py-spy the web and RQ workers during each round")
    parser.add_argument("--spy-args", action="append", default=[], help="more py-spy options, e.g. --native --idle --threads")
    parser.add_argument("--baseline", help="a checkout of the project to run beside this one (e.g. the code before "
                                           "a change: `git archive COMMIT | tar -x -C DIR`)")
    args = parser.parse_args()
    for server in args.server:
        if server.partition(":")[0] not in SERVERS or not server.partition(":")[2].isdigit() and ":" in server:
            parser.error(f"--server {server}: one of {', '.join(SERVERS)}, optionally with :N")
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (apt-get install -y wrk)")
    bench = Bench(args)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # stop every process started, on a kill too
    try:
        targets = bench.start_targets()
        per_lane = args.games_per_lane or max(8, args.seconds * 10)
        print(f"{len(targets)} targets, {args.rounds} rounds of {args.seconds} s, {args.connections} connections "
              f"(one game each), {os.cpu_count()} cores", flush=True)
        for number in range(args.rounds):
            order = targets[number % len(targets):] + targets[:number % len(targets)]
            games = {t.name: bench.make_games(t, per_lane, args.connections, f"r{number}") for t in order}
            for target in targets:
                bench.settle(target)
            for target in order:
                row = bench.wrk_round(target, games[target.name])
                target.rounds.append(row)
                print(f"round {number + 1} {target.name:<8} {row['cycles_s']:8.0f} cycles/s  POST p50 "
                      f"{row['p50']:6.2f} p99 {row['p99']:7.2f} ms  CPU/cycle {cpu_text(row['cpu_ms'])}  "
                      f"GETs/cycle {row['gets_per_cycle']:.2f}  errors {row['errors']}"
                      + (f"  (games ran out {row['exhausted']}x)" if row["exhausted"] else ""), flush=True)
        def ceiling_of(target: Target) -> Target | None:  # the ceiling under the same server
            server = target.name.partition("/")[2]
            name = f"ceiling/{server}" if server else "ceiling"
            return next((t for t in targets if t.name == name), None)

        ceiling = next((t for t in targets if t.name.startswith("ceiling")), None)
        print(f"\n| | cycles/s | ÷ ceiling{' (same server)' if len(args.server) > 1 else ''} | cycles per CPU-second "
              f"÷ ceiling's | POST p50 / p99 | CPU per cycle |")
        print("|---|---|---|---|---|---|")
        label = {"ceiling": "bare ceiling", "redis": "project, Redis + RQ worker", "sqlite": "project, SQLite",
                 "redis@base": "baseline, Redis + RQ worker", "sqlite@base": "baseline, SQLite",
                 "boardgameio": f"boardgame.io, {args.peer_store} (per move)",
                 "redis-replica": "project, Redis with a replica, setting off",
                 "redis-wait1": "project, Redis with a replica, GAMES_REDIS_WAIT_REPLICAS=1"}
        for target in targets:
            ratios, per_cpu = [], []
            own_ceiling = ceiling_of(target) if not target.peer else None
            for i, row in enumerate(target.rounds):
                if own_ceiling is not None:
                    ratios.append(row["cycles_s"] / own_ceiling.rounds[i]["cycles_s"])
                    per_cpu.append(sum(own_ceiling.rounds[i]["cpu_ms"].values()) / sum(row["cpu_ms"].values()))
            median_row = sorted(target.rounds, key=lambda r: r["cycles_s"])[len(target.rounds) // 2]
            ratio = f"{statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})" if ratios else "-"
            # three places: issue 19's bar (0.6) is a ratio of this kind, and the targets sit near it
            cpu_ratio = f"{statistics.median(per_cpu):.3f} ({min(per_cpu):.3f}–{max(per_cpu):.3f})" if per_cpu else "-"
            name, _, server = target.name.partition("/")
            print(f"| {label[name]}{f', {server}' if server else ''} | {median_row['cycles_s']:,.0f} | {ratio} | "
                  f"{cpu_ratio} | "
                  f"{median_row['p50']:.1f} / {median_row['p99']:.1f} ms | {cpu_text(median_row['cpu_ms'])} |")
        bases = [t for t in targets if "@base" in t.name]
        if bases:
            print("\nCPU per cycle ÷ the baseline's (same server, same round), median (range over rounds):")
            for base in bases:
                mine = next((t for t in targets if t.name == base.name.replace("@base", "")), None)
                if mine is not None:
                    ratios = [sum(row["cpu_ms"].values()) / sum(base.rounds[i]["cpu_ms"].values())
                              for i, row in enumerate(mine.rounds)]
                    print(f"  {mine.name}: {statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})")
        peer = next((t for t in targets if t.peer), None)
        if peer is not None:
            print(f"\nCPU per command ÷ boardgame.io's CPU per move ({args.peer_store}), median (range over rounds):")
            for target in targets:
                if target.project:
                    ratios = [sum(row["cpu_ms"].values()) / sum(peer.rounds[i]["cpu_ms"].values())
                              for i, row in enumerate(target.rounds)]
                    print(f"  {target.name}: {statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})")
        rates = [args.rate] if args.rate else []
        if args.rate_of_ceiling and ceiling is not None:  # the same share of the ceiling as 300 of 2,399 on a quiet day
            rates.append(args.rate_of_ceiling * statistics.median(r["cycles_s"] for r in ceiling.rounds))
        for rate in rates:
            print(f"\nOpen loop: {rate:.0f} cycles/s for {args.open_seconds:.0f} s "
                  f"(POST latency; 'sched' counts from the scheduled start)")
            print("| | cycles | POST p50 / p99 / max | sched p99 | late starts | errors | CPU per cycle |")
            print("|---|---|---|---|---|---|---|")
            for target in targets:
                if target.peer:
                    continue
                games = bench.make_games(target, max(8, int(args.open_seconds)), 32, f"open{rate:.0f}")
                bench.settle(target)
                row = bench.open_loop_run(target, games, rate)
                print(f"| {target.name} | {row['cycles']} | {row['p50']:.2f} / {row['p99']:.2f} / {row['max']:.1f} ms"
                      f" | {row['sched_p99']:.2f} ms | {row['late']} | {row['errors']} | {cpu_text(row['cpu_ms'])} |",
                      flush=True)
    finally:
        bench.stop()


if __name__ == "__main__":
    main()
