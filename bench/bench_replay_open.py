"""How long and how many bytes opening a long Pax Pamir game's replay costs, as the web client does it,
over real HTTP on the embedded SQLite store. Issue 34 Deliver 7's bound: a 1,500-event game opens in
under 2 s and under 3 MB.

The client of this tree lists the steps without views (``view_every=0``), fetches the table of the
step it opens at (the last) with the next few, and then the chart's points (about 60 views spread
over the game). A server that does not know ``view_every`` (the code before) is read as its client
read it: every page of 200 steps, each step with its view.

    .venv/bin/python bench/bench_replay_open.py [--events 1500] [--seed 1] [--reference ../ref]

``--reference DIR``: the same bench, the same game (the games' seeds are drawn from --seed), run by the code in DIR (a worktree of the code
before) in a subprocess first, and the ratios printed.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import secrets
import subprocess
import sys
import tempfile
import threading
import time
import types
from pathlib import Path

import requests
from werkzeug.serving import make_server


def measure(events: int, seed: int) -> dict:
    import service.play.services as services
    from service.api.app import create_app
    from service.base.config import Config
    from tests.helpers.play import play_randomly, start_game

    # the same game in both trees: the games' seeds drawn from a seeded generator, not the system's
    drawn = random.Random(seed)
    services.secrets = types.SimpleNamespace(token_hex=lambda n=32: drawn.randbytes(n).hex(),
                                             token_urlsafe=secrets.token_urlsafe)

    with tempfile.TemporaryDirectory() as data:
        app = create_app(Config(store_url=f"sqlite:///{data}/events.db", projections="inline", limit_per_token=""))
        service = app.extensions["games"]
        rng = random.Random(seed)
        while True:  # a game that reaches the wanted length (random games end at different lengths)
            game_id, players = start_game(service, "pax_pamir", 2)
            play_randomly(service, game_id, players, rng)
            if service.load(game_id).version >= events:
                break
        version = service.load(game_id).version
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_port}/games/{game_id}/replay"
        http = requests.Session()
        got = {"bytes": 0, "requests": 0}

        def get(**query) -> dict:
            answer = http.get(url, params=query, timeout=300)
            got["bytes"] += len(answer.content)
            got["requests"] += 1
            return answer.json() if answer.status_code == 200 else {"status": answer.status_code}

        lazy = get(after=0, limit=1, view_every=0).get("status") != 422
        got.update(bytes=0, requests=0)
        started = time.perf_counter()
        steps, after = [], 0
        while after is not None:  # the steps: with no views (this tree), or each with its view (before)
            page = get(after=after, **({"view_every": 0, "limit": 1000} if lazy else {"limit": 200}))
            steps += page["steps"]
            after = page["next_after"]
        if lazy:  # the table at the step opened (the last), with the steps after it
            window = get(after=steps[-2]["event"]["version"], limit=12, view_every=1)
            assert window["steps"][0]["view"] is not None
        opened = time.perf_counter() - started
        opened_bytes, opened_requests = got["bytes"], got["requests"]
        if lazy:  # the chart's points, fetched after the table is drawn
            after, every, points = 0, max(1, math.ceil(version / 60)), 0
            while after is not None:
                page = get(after=after, limit=1000 if every > 1 else 200, view_every=every)
                points += sum(1 for step in page["steps"] if "view" in step)
                after = page["next_after"]
        whole = time.perf_counter() - started
        server.shutdown()
    return {"code": "lazy steps" if lazy else "every step's view", "events": version, "steps": len(steps),
            "open_s": round(opened, 3), "open_mb": round(opened_bytes / 1e6, 3), "open_requests": opened_requests,
            "with_chart_s": round(whole, 3), "with_chart_mb": round(got["bytes"] / 1e6, 3),
            "with_chart_requests": got["requests"]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reference", help="a worktree of the code before: measured first, the same game")
    parser.add_argument("--code", help=argparse.SUPPRESS)  # the tree whose code this process imports
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, args.code or str(Path(__file__).resolve().parents[1]))
    reference = None
    if args.reference:
        ran = subprocess.run([sys.executable, __file__, "--events", str(args.events), "--seed", str(args.seed),
                              "--code", str(Path(args.reference).resolve()), "--json"],
                             capture_output=True, text=True, check=True)
        reference = json.loads(ran.stdout.strip().splitlines()[-1])
    result = measure(args.events, args.seed)
    if args.json:
        print(json.dumps(result))
        return
    for name, r in (("reference", reference), ("this tree", result)):
        if r:
            print(f"{name} ({r['code']}): replay of a {r['events']}-event Pax Pamir game opens in {r['open_s']:.2f} s, "
                  f"{r['open_mb']:.2f} MB ({r['open_requests']} requests); with the chart {r['with_chart_s']:.2f} s, "
                  f"{r['with_chart_mb']:.2f} MB ({r['with_chart_requests']} requests)")
    print(f"bound: 2 s and 3 MB; this tree opens at {result['open_s'] / 2:.2f}x and {result['open_mb'] / 3:.2f}x the bound "
          f"(with the chart {result['with_chart_s'] / 2:.2f}x and {result['with_chart_mb'] / 3:.2f}x)")
    if reference:
        print(f"ratio reference / this tree, to open: {reference['open_s'] / result['open_s']:.1f}x the time, "
              f"{reference['open_mb'] / result['open_mb']:.1f}x the bytes; with the chart: "
              f"{reference['with_chart_s'] / result['with_chart_s']:.1f}x, {reference['with_chart_mb'] / result['with_chart_mb']:.1f}x")


if __name__ == "__main__":
    main()
