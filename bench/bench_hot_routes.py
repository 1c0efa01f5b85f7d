"""The hot routes' cost in process: GET legal-commands, GET state and POST commands through
the whole Flask app (WSGI call, before-request hooks, the view, the answer), no server,
no network, on the in-memory store (so what is measured is the web layer and the rules).

Each target is a checkout (``--root DIR``, this one by default; ``--baseline DIR`` adds the
code before) run in its own process, in interleaved rounds; each round plays Dynasties
games of 3 seats for ``--seconds``: per cycle a GET of the mover's legal commands, a GET
of its state and a POST of one of its legal commands (a random one). Prints the CPU µs
per request (the thread's CPU time, not the wall clock: the box is shared), median round
and the range over rounds, and the ratio to the first target.

    .venv/bin/python bench/bench_hot_routes.py [--baseline DIR] [--rounds 3] [--seconds 3] \
        [--store memory://|redis://127.0.0.1:6379/9|sqlite] [--profile FILE]
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
ROUTES = ("legal", "state", "post")


def seed_the_server(seed: int) -> None:
    """The server's own randomness from ``seed``: game seeds and salts, tokens, ids
    (``secrets``, ``uuid.uuid4``). Two checkouts then play the same games, and their
    instruction counts differ by their code alone (unseeded, two runs of one checkout
    differ by about 1%: the games differ). For measuring only: the values are predictable."""
    import secrets
    import uuid

    rng = random.Random(seed)
    secrets.token_hex = lambda nbytes=32: rng.getrandbits(8 * nbytes).to_bytes(nbytes, "big").hex()
    secrets.token_urlsafe = lambda nbytes=32: rng.getrandbits(8 * nbytes).to_bytes(nbytes, "big").hex()[:43]
    uuid.uuid4 = lambda: uuid.UUID(int=rng.getrandbits(128), version=4)


def worker(seconds: float, seed: int, profiler=None, store_url: str = "memory://", cycles: int = 0,
           state: bool = True) -> dict[str, float]:
    """``cycles``: play exactly that many cycles (for an instruction count), not ``seconds``;
    ``state``: a cycle asks for the state too (without it, a cycle is the side-by-side bench's)."""
    import gc
    import os

    from service.api.app import create_app
    from service.base.config import Config

    # a store of its own: a fresh key prefix on Redis; on SQLite, a new file (the projector
    # process of ``serve`` is not started, so no projections run in this process)
    if store_url == "sqlite":
        import tempfile

        store_url = f"sqlite:///{tempfile.mkdtemp(prefix='hot-routes-')}/events.db"
    app = create_app(Config.from_env(store_url=store_url, limits_storage="memory://",
                                     redis_prefix=f"hot{os.getpid()}x{time.time_ns()}",
                                     inline_projector="process",
                                     # limits that count but never refuse; per token as many windows as
                                     # the default's two: one seat moving many times in a row made over
                                     # its 300 requests a second in process, and the round failed (429)
                                     limit_per_ip="1000000/second",
                                     limit_per_token="1000000/second;100000000/minute",
                                     limit_registrations_per_ip=""))
    wsgi = app.wsgi_app
    gc.freeze()  # as the server's workers do once the app is loaded
    status_of: list[str] = []

    def start_response(status, headers, exc_info=None):
        status_of.append(status)

    def call(method: str, path: str, token: str | None = None, body: dict | None = None) -> tuple[str, bytes]:
        data = json.dumps(body).encode() if body is not None else b""
        environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "bench",
                   "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": "http",
                   "wsgi.input": io.BytesIO(data), "wsgi.errors": sys.stderr, "wsgi.multithread": False,
                   "wsgi.multiprocess": True, "wsgi.run_once": False, "REMOTE_ADDR": "127.0.0.1",
                   "CONTENT_LENGTH": str(len(data))}
        if body is not None:
            environ["CONTENT_TYPE"] = "application/json"
        if token:
            environ["HTTP_AUTHORIZATION"] = f"Bearer {token}"
        status_of.clear()
        out = b"".join(wsgi(environ, start_response))
        return status_of[0], out

    rng = random.Random(seed)
    games = app.extensions["games"]

    def new_game() -> tuple[str, dict[int, str]]:
        players = [json.loads(call("POST", "/players", body={"name": f"p{i}"})[1]) for i in range(3)]
        game = json.loads(call("POST", "/games", players[0]["token"], {"type": "dynasties", "seats": 3})[1])["id"]
        for p in players:
            status, answer = call("POST", f"/games/{game}/join", p["token"], {})
            assert status.startswith("200"), answer
        seats = json.loads(answer)["game"]["seats"]
        token_of = {p["id"]: p["token"] for p in players}
        return game, {s["seat"]: token_of[s["player_id"]] for s in seats}

    spent = dict.fromkeys(ROUTES, 0.0)
    count = dict.fromkeys(ROUTES, 0)
    clock = time.thread_time  # CPU time: on a shared box the wall clock mostly measures the neighbours
    deadline = time.perf_counter() + seconds
    game, tokens = new_game()
    if profiler is not None:
        profiler.enable()
    while (count["post"] < cycles) if cycles else (time.perf_counter() < deadline):
        loaded = games.load(game, trust_cache=True)
        if loaded.over:
            game, tokens = new_game()
            continue
        token = tokens[rng.choice(loaded.rules.to_move(loaded.state))]
        started = clock()
        status, answer = call("GET", f"/games/{game}/legal-commands", token)
        spent["legal"] += clock() - started
        assert status.startswith("200"), answer
        if state:
            started = clock()
            status, _ = call("GET", f"/games/{game}/state", token)
            spent["state"] += clock() - started
            assert status.startswith("200")
        command = rng.choice(json.loads(answer)["commands"])
        started = clock()
        status, answer = call("POST", f"/games/{game}/commands", token, command)
        spent["post"] += clock() - started
        assert status.startswith("201"), answer
        for route in ROUTES:
            count[route] += 1
    if profiler is not None:
        profiler.disable()
    return {route: 1e6 * spent[route] / max(count[route], 1) for route in ROUTES} | {"cycles": count["post"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=str(HERE.parent.parent))
    parser.add_argument("--baseline", action="append", default=[], help="another checkout to run beside it")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3)
    parser.add_argument("--store", default="memory://",
                        help="the store: memory:// (default), redis://HOST:PORT/DB (a key prefix of its own), "
                             "or sqlite (a new file in a temporary directory)")
    parser.add_argument("--profile", metavar="FILE",
                        help="one round of --root under cProfile, its stats written to FILE (no table)")
    parser.add_argument("--cycles", type=int, default=0,
                        help="with --worker: exactly this many cycles, not --seconds (for callgrind: run it at two "
                             "counts and take the difference over the cycles between them)")
    parser.add_argument("--no-state", action="store_true",
                        help="a cycle without the GET of the state: the side-by-side bench's GET + POST")
    parser.add_argument("--seeded", action="store_true",
                        help="with --worker: the server's randomness seeded (seed_the_server), so that two "
                             "checkouts play the same games (for instruction counts)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker or args.profile:
        sys.path.insert(0, args.root)
        if args.profile:
            import cProfile
            profiler = cProfile.Profile(time.thread_time)  # CPU time, not the neighbours' share of the box
            print(json.dumps(worker(args.seconds, 1, profiler, args.store)))
            profiler.dump_stats(args.profile)
            return
        if args.seeded:
            seed_the_server(12345)
        print(json.dumps(worker(args.seconds, 1, store_url=args.store, cycles=args.cycles, state=not args.no_state)))
        return
    roots = [args.root, *args.baseline]
    results: dict[str, list[dict[str, float]]] = {root: [] for root in roots}
    for number in range(args.rounds):
        for root in roots[number % len(roots):] + roots[:number % len(roots)]:
            out = subprocess.run([sys.executable, str(HERE), "--worker", "--root", root, "--seconds",
                                  str(args.seconds), "--store", args.store], cwd=root, capture_output=True, text=True, check=True)
            row = json.loads(out.stdout.strip().splitlines()[-1])
            results[root].append(row)
            print(f"round {number + 1} {root}: " + "  ".join(f"{r} {row[r]:.0f} µs" for r in ROUTES)
                  + f"  ({row['cycles']:.0f} cycles)", flush=True)
    print("\n| checkout | " + " | ".join(f"{r} µs (range)" for r in ROUTES) + " | ÷ first, per route |")
    print("|---|" + "---|" * (len(ROUTES) + 1))
    first = {r: statistics.median(row[r] for row in results[roots[0]]) for r in ROUTES}
    for root in roots:
        medians = {r: statistics.median(row[r] for row in results[root]) for r in ROUTES}
        cells = [f"{medians[r]:.0f} ({min(row[r] for row in results[root]):.0f}–"
                 f"{max(row[r] for row in results[root]):.0f})" for r in ROUTES]
        ratios = ", ".join(f"{medians[r] / first[r]:.2f}" for r in ROUTES)
        print(f"| {root} | " + " | ".join(cells) + f" | {ratios} |")


if __name__ == "__main__":
    main()
