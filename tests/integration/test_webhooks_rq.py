"""Webhooks on Redis, delivered by a real RQ worker process (``python -m service worker``):
failed deliveries come back through RQ's scheduler (``enqueue_in``) after their backoff,
and a receiver failing half of its first requests still gets every event once in effect."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from service.base.config import Config
from service.wiring.bootstrap import build_service
from tests.helpers.play import play_randomly
from tests.reliability.test_webhooks import Receiver

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def receiver():
    app = Receiver(flaky_requests=16)  # each retry waits for the scheduler's next look (about 1 s)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    app.url = f"http://127.0.0.1:{server.server_port}"
    yield app
    server.shutdown()


def test_an_rq_worker_delivers_every_event_once_in_effect_with_retries(redis_url, tmp_path, receiver):
    url, namespace = redis_url
    config = Config(store_url=url, projections="rq", redis_prefix=namespace, queue_name=f"{namespace}-q",
                    webhook_allow=("127.0.0.1/32",), webhook_backoff=0.2)
    service = build_service(config)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAMES_REDIS_PREFIX": namespace,
           "GAMES_WEBHOOK_ALLOW": "127.0.0.1/32", "GAMES_WEBHOOK_BACKOFF": "0.2"}
    with open(tmp_path / "worker.log", "wb") as log:
        worker = subprocess.Popen([sys.executable, "-m", "service", "worker", "--store", url, "--queue",
                                   config.queue_name], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log,
                                  start_new_session=True)
    try:
        ann, bob = service.players.create("ann"), service.players.create("bob")
        hook = service.webhooks.subscribe(ann["id"], f"{receiver.url}/ann", "my_games")
        receiver.secrets["ann"] = hook["secret"]
        game = service.create_game(ann, "dynasties", {"starting_gold": 8}, 2)
        service.join_game(game.id, ann)
        service.join_game(game.id, bob)
        table = service.load(game.id).table
        seated = [ann if table.players[s] == ann["id"] else bob for s in range(2)]
        play_randomly(service, game.id, seated, random.Random(5))
        last = service.load(game.id).version
        wanted = {f"msg_{hook['id']}_{game.id}_{v}" for v in range(1, last + 1)}
        deadline = time.monotonic() + 90
        while set(receiver.effective.get("ann", {})) != wanted and time.monotonic() < deadline:
            time.sleep(0.2)
        assert set(receiver.effective.get("ann", {})) == wanted, (tmp_path / "worker.log").read_text()[-3000:]
        assert receiver.bad_signatures == []
        outcomes = {d["outcome"] for d in service.webhooks.deliveries(hook["id"], ann["id"], limit=10_000)}
        assert outcomes == {"delivered", "failed"}  # the failures were retried, by the scheduler
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)
