"""Bot seats on Redis, moved by a real RQ worker process that is killed once mid-game.

A person plays over real HTTP (the app in this process, in RQ mode) against bots whose
moves are RQ jobs run by ``python -m service worker``. While a bot is thinking (its think
time makes the job last), the worker is killed with SIGKILL; a new worker starts, its
sweep asks again for the move the lost job owed, and the game goes on to the end. Every
decision is made once: each bot move was decided at the version it was appended at (its
idempotency key says which), no two moves share a decision, and the log folds to the end.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from domain.kernel.events import Event
from domain.kernel.rules import fold
from domain.kernel.table import PLATFORM
from service.api.app import create_app
from service.base.config import Config
from service.streams.envelopes import stream_of
from tests.api.conftest import LiveServer, serve
from tests.helpers.bots_http import play_against_bots

pytestmark = [pytest.mark.integration, pytest.mark.api]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def rq_deployment(redis_url, tmp_path):
    url, namespace = redis_url
    config = Config(store_url=url, projections="rq", redis_prefix=namespace, queue_name=f"{namespace}-projections",
                    redis_partitions=4, bot_think_seconds=0, stream_max_seconds=0.1)
    app = create_app(config)
    server = serve(app)
    workers: list[subprocess.Popen] = []

    def start_worker(think: float) -> subprocess.Popen:
        environment = {**os.environ, "PYTHONPATH": str(ROOT), "GAMES_REDIS_PREFIX": namespace,
                       "GAMES_REDIS_PARTITIONS": "4", "GAMES_BOT_THINK_SECONDS": str(think),
                       "GAMES_SWEEP_INTERVAL": "1"}
        with open(tmp_path / f"worker-{len(workers)}.log", "wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "service", "worker", "--store", url, "--queue", config.queue_name],
                cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
        workers.append(process)
        return process

    yield LiveServer(f"http://127.0.0.1:{server.server_port}", app), start_worker
    server.shutdown()
    for process in workers:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(timeout=10)


def kill(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


@pytest.mark.parametrize(("kind", "seats", "bots", "options"), [
    ("dynasties", 3, [{"kind": "greedy"}, {"kind": "mcts", "level": "easy"}], {"starting_gold": 10}),
    ("pax_pamir", 2, [{"kind": "greedy"}], {}),
])
def test_a_game_against_bots_on_redis_survives_its_worker_killed_mid_move(rq_deployment, kind, seats, bots,
                                                                           options):
    server, start_worker = rq_deployment
    workers = [start_worker(think=0.3)]
    killed = []

    def kill_once_mid_move(game: dict) -> None:
        if killed or game["version"] <= 40:
            return
        time.sleep(0.15)  # a bot is thinking (its job lasts its think time): cut it short
        kill(workers[-1])
        killed.append(game["version"])
        version = server.client().get(f"{server.url}/games/{game['id']}").json()["version"]
        time.sleep(1.0)
        assert server.client().get(f"{server.url}/games/{game['id']}").json()["version"] == version, \
            "no worker, no bot move"
        workers.append(start_worker(think=0.05))

    played = play_against_bots(server, kind, seats, bots, options, seed=seats, timeout=300,
                               waiting=kill_once_mid_move)
    game, game_id = played["summary"], played["summary"]["id"]
    assert killed, "the worker was killed mid-game"
    service = server.games
    stream = stream_of(game_id)
    records = service.store.read(stream, 0, 10**9)
    bot_players = {seat["seat"]: seat["player_id"] for seat in game["seats"] if seat.get("bot")}
    moves = 0
    for record in records:
        envelope = record.event
        if envelope.get("bot") and record.version == envelope["batch"]:  # the first event of a bot's move
            decided_at = envelope["batch"] - 1
            kept = service.store.idempotency_record(stream, f"{bot_players[envelope['actor']]}:bot-{decided_at}")
            assert kept is not None and kept["first"] == record.version, "the move was made under its decision's key"
            moves += 1
    bot_batches = {r.event["batch"] for r in records if r.event.get("actor") in bot_players
                   and r.event.get("source") != PLATFORM}
    assert moves == len(bot_batches) >= 4, "every bot move says so, and was made under its decision's key"
    loaded = service.load(game_id)
    state = fold(loaded.rules, [Event.from_json(r.event) for r in records if r.event.get("source") != PLATFORM])
    assert loaded.rules.outcome(state) is not None and loaded.rules.outcome(state) == loaded.rules.outcome(loaded.state)
