"""How long and how many bytes opening a long Pax Pamir game's replay costs, as the web client does it
(GET /games/{id}/replay page by page, limit 200, over real HTTP, embedded SQLite store). Issue 34
Deliver 7's bound: a 1,500-event game opens in under 2 s and under 3 MB.

    .venv/bin/python bench/bench_replay_open.py [--events 1500] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests
from werkzeug.serving import make_server

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.app import create_app  # noqa: E402
from service.config import Config  # noqa: E402
from tests.helpers.play import play_randomly, start_game  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        app = create_app(Config(store_url=f"sqlite:///{data}/events.db", projections="inline"))
        service = app.extensions["games"]
        rng = random.Random(args.seed)
        while True:  # a game that reaches the wanted length (random games end at different lengths)
            game_id, players = start_game(service, "pax_pamir", 2)
            play_randomly(service, game_id, players, rng)
            if service.load(game_id).version >= args.events:
                break
        version = service.load(game_id).version
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_port}"
        started, total, after, pages = time.perf_counter(), 0, 0, 0
        while after is not None:
            answer = requests.get(f"{url}/games/{game_id}/replay?after={after}&limit=200", timeout=120)
            total += len(answer.content)
            pages += 1
            after = answer.json()["next_after"]
        took = time.perf_counter() - started
        server.shutdown()
    print(f"replay of a {version}-event Pax Pamir game: {took:.2f} s, {total / 1e6:.1f} MB in {pages} pages "
          f"(bound: 2 s and 3 MB: {took / 2:.1f}x and {total / 3e6:.1f}x the bound)")


if __name__ == "__main__":
    main()
