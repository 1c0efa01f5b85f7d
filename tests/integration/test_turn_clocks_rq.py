"""Turn clock timeouts on Redis, run by real RQ worker processes (``python -m service
worker``): a timeout acts exactly once when the worker is killed before the deadline and
another starts after it, and not at all for a seat that moved in time."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from service.bootstrap import build_service
from service.config import Config
from service.envelopes import stream_of

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def test_a_timeout_acts_once_across_a_worker_killed_and_restarted_around_its_deadline(redis_url, tmp_path):
    url, namespace = redis_url
    config = Config(store_url=url, projections="rq", redis_prefix=namespace, queue_name=f"{namespace}-q")
    service = build_service(config)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAMES_REDIS_PREFIX": namespace}
    workers: list[subprocess.Popen] = []

    def start_worker() -> subprocess.Popen:
        with open(tmp_path / f"worker-{len(workers)}.log", "wb") as log:
            worker = subprocess.Popen([sys.executable, "-m", "service", "worker", "--store", url, "--queue",
                                       config.queue_name], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                      stderr=log, start_new_session=True)
        workers.append(worker)
        return worker

    def events(kind: str) -> list[dict]:
        return [r.event for r in service.store.read(stream_of(game.id)) if r.event["type"] == kind]

    try:
        first = start_worker()
        ann, bob = service.players.create("ann"), service.players.create("bob")
        game = service.create_game(ann, "dynasties", {"starting_gold": 20, "clock_bank_seconds": 3}, 2)
        service.join_game(game.id, ann)
        service.join_game(game.id, bob)
        table = service.load(game.id).table
        seated = [ann if table.players[s] == ann["id"] else bob for s in range(2)]
        loaded = service.load(game.id)
        service.submit_command(game.id, seated[0], loaded.rules.legal_commands(loaded.state, 0)[0])  # in time
        time.sleep(1.0)  # the worker has the timeouts scheduled; it dies before they are due
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
        time.sleep(3.0)  # past seat 1's deadline, with no worker at all
        assert events("ClockTimedOut") == [] and not service.load(game.id).over
        start_worker()
        deadline = time.monotonic() + 60
        while not service.load(game.id).over and time.monotonic() < deadline:
            time.sleep(0.2)
        assert service.load(game.id).over, (tmp_path / "worker-1.log").read_text()[-3000:]
        start_worker()  # a third runner sweeps the same clocks again: nothing more happens
        time.sleep(4.0)
        assert [(e["data"]["seat"], e["data"]["action"]) for e in events("ClockTimedOut")] == [(1, "forfeit")]
        assert service.load(game.id).outcome().winners == (0,)
    finally:
        for worker in workers:
            try:
                os.killpg(worker.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            worker.wait(timeout=10)


def test_a_timeout_scheduled_after_a_worker_was_killed_runs_near_its_deadline(redis_url, tmp_path):
    """A worker killed with SIGKILL leaves its scheduler's lock behind (RQ keeps it a minute,
    and a worker that missed it tries again at its maintenance, every ten minutes): the
    worker that replaces it frees a lock nobody refreshes and takes the scheduling over, so a
    timeout scheduled after the kill acts within seconds of its deadline."""
    url, namespace = redis_url
    config = Config(store_url=url, projections="rq", redis_prefix=namespace, queue_name=f"{namespace}-q")
    service = build_service(config)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAMES_REDIS_PREFIX": namespace}
    lock = f"rq:scheduler-lock:{config.queue_name}"
    queue_redis = redis.Redis.from_url(url)
    workers: list[subprocess.Popen] = []

    def start_worker() -> subprocess.Popen:
        with open(tmp_path / f"worker-{len(workers)}.log", "wb") as log:
            worker = subprocess.Popen([sys.executable, "-m", "service", "worker", "--store", url, "--queue",
                                       config.queue_name], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                      stderr=log, start_new_session=True)
        workers.append(worker)
        return worker

    try:
        first = start_worker()
        deadline = time.monotonic() + 30
        while queue_redis.get(lock) is None:  # its scheduler holds the queue
            assert time.monotonic() < deadline, (tmp_path / "worker-0.log").read_text()[-3000:]
            time.sleep(0.1)
        held_by = queue_redis.get(lock)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
        start_worker()  # at once: the dead scheduler's lock is still there
        assert queue_redis.get(lock) == held_by
        ann, bob = service.players.create("ann"), service.players.create("bob")
        game = service.create_game(ann, "dynasties", {"starting_gold": 20, "clock_bank_seconds": 8}, 2)
        service.join_game(game.id, ann)
        service.join_game(game.id, bob)
        table = service.load(game.id).table
        seated = [ann if table.players[s] == ann["id"] else bob for s in range(2)]
        loaded = service.load(game.id)
        service.submit_command(game.id, seated[0], loaded.rules.legal_commands(loaded.state, 0)[0])
        moved = time.monotonic()  # seat 1's bank of 8 s runs from here; its timeout needs the scheduler
        while not service.load(game.id).over and time.monotonic() < moved + 40:
            time.sleep(0.2)
        waited = time.monotonic() - moved
        assert service.load(game.id).over, (tmp_path / "worker-1.log").read_text()[-3000:]
        assert 8 <= waited < 40  # the dead lock alone would have held it for a minute
        assert queue_redis.get(lock) not in (None, held_by)  # the live worker's scheduler holds it now
        timed_out = [r.event for r in service.store.read(stream_of(game.id)) if r.event["type"] == "ClockTimedOut"]
        assert [(e["data"]["seat"], e["data"]["action"]) for e in timed_out] == [(1, "forfeit")]
    finally:
        for worker in workers:
            try:
                os.killpg(worker.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            worker.wait(timeout=10)
