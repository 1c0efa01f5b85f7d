"""Lanes on Redis, with real RQ worker processes, one per lane (``worker --lanes X``): a
webhook receiver that never answers holds the webhooks' lane, and meanwhile a bot in
another game answers its person within seconds each time and a turn clock in a third game
runs out on time (issue 33: one slow receiver used to stop every game's bots and clocks)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from service.base.config import LANES, Config
from service.wiring.bootstrap import build_service
from tests.helpers.lanes import BlackHole, LaneWorkers, lanes_hold

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def lane_workers(redis_url, tmp_path):
    url, namespace = redis_url
    config = Config(store_url=url, projections="rq", redis_prefix=namespace, queue_name=f"{namespace}-q",
                    webhook_allow=("127.0.0.1/32",), bot_think_seconds=0.3)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAMES_REDIS_PREFIX": namespace, "GAMES_BOT_THINK_SECONDS": "0.3",
           "GAMES_WEBHOOK_ALLOW": "127.0.0.1/32"}
    workers = LaneWorkers(url, config, env, ROOT, tmp_path)
    for lane in LANES:
        workers.start(lane)
    time.sleep(2)  # the workers register and their schedulers take their queues
    yield build_service(config), tmp_path
    workers.stop()


def test_a_receiver_that_never_answers_delays_no_bot_and_no_clock_of_another_game(lane_workers):
    service, logs = lane_workers
    hole = BlackHole()
    try:
        seen = lanes_hold(service, hole, patience=8.0)
    finally:
        hole.close()
    assert seen["held"] >= 1
    assert len(seen["bot_replies"]) >= 3 and max(seen["bot_replies"]) < 5.0, seen
    assert seen["timeout_lateness"] < 2.5, seen
    bots_log = "".join(path.read_text() for path in logs.glob("worker-bots-*.log"))
    assert "bot-decision game=" in bots_log  # the bots' lane, not another, made the moves


def test_the_lanes_nobody_waits_on_give_way_to_the_web(redis_url, tmp_path):
    """A worker of the projections' lane alone runs at nice 5, of the bots' lane alone at nice 10
    (under the idle policy too); the clocks' and the webhooks' workers at the web's priority."""
    import psutil

    url, namespace = redis_url
    config = Config(store_url=url, projections="rq", redis_prefix=namespace, queue_name=f"{namespace}-q")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAMES_REDIS_PREFIX": namespace}
    workers = LaneWorkers(url, config, env, ROOT, tmp_path)
    own = psutil.Process().nice()
    try:
        for lane in LANES:
            workers.start(lane)
        expected = {"projections": min(19, own + config.projection_nice), "bots": min(19, own + config.bot_nice),
                    "clocks": own, "webhooks": own}
        deadline = time.monotonic() + 30
        while True:  # each worker lowers its priority as it starts
            seen = {lane: psutil.Process(workers.processes[lane].pid).nice() for lane in LANES}
            if seen == expected or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert seen == expected
    finally:
        workers.stop()
