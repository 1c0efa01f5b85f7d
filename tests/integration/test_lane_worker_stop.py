"""A worker told to stop stops within seconds, whichever way its threads race.

RQ's worker listens on a command channel in a thread of its own and, when it stops, sends
UNSUBSCRIBE and then joins that thread (redis-py 8 joins without a timeout). When the listener
reads the UNSUBSCRIBE's reply before the stop clears its running flag, it goes back to waiting
for a subscription: for RQ's 60 s, for ``LISTENER_WAKE_SECONDS`` in ``LaneWorker``. On a busy
machine the listener won that race for 17 SIGTERMs in 60, and the worker took up to a
minute to stop (CI's worker stop timeouts)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from rq import Queue

from service.running.worker import LISTENER_WAKE_SECONDS, LaneWorker
from tests.helpers.waiting import wait_until

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def test_the_listener_that_read_its_unsubscribe_first_still_stops_within_its_wake(redis_url):
    url, namespace = redis_url
    connection = redis.Redis.from_url(url)
    worker = LaneWorker([Queue(f"{namespace}-q", connection=connection)], connection=connection,
                        name=f"{namespace}-worker")
    worker.subscribe()
    try:
        wait_until(lambda: worker.pubsub.subscribed, 5, "the listener to subscribe")
        # the race as the listener wins it: the reply to UNSUBSCRIBE is read while it still runs
        worker.pubsub.unsubscribe()
        wait_until(lambda: not worker.pubsub.subscribed, 5, "the listener to read the UNSUBSCRIBE")
        started = time.monotonic()
        worker.pubsub_thread.stop(timeout=30)
        took = time.monotonic() - started
        assert not worker.pubsub_thread.is_alive(), "the listener still runs after 30 s"
        assert took <= LISTENER_WAKE_SECONDS + 1, f"the listener took {took:.1f} s to stop"
    finally:
        worker.pubsub_thread.stop(timeout=0)
        worker.pubsub.close()


def test_a_worker_process_stops_on_sigterm_within_seconds_each_time(redis_url, tmp_path):
    """Real worker processes of every lane, stopped at different moments of their start."""
    url, namespace = redis_url
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAMES_REDIS_PREFIX": namespace, "GAMES_SWEEP_INTERVAL": "0.5"}
    for attempt, wait in enumerate((0.5, 1.5, 3.0)):
        with open(tmp_path / f"worker-{attempt}.log", "wb") as log:
            worker = subprocess.Popen([sys.executable, "-m", "service", "worker", "--store", url,
                                       "--queue", f"{namespace}-q"],
                                      cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True)
        try:
            time.sleep(wait)
            started = time.monotonic()
            worker.terminate()
            worker.wait(timeout=20)
            took = time.monotonic() - started
        finally:
            if worker.poll() is None:
                os.killpg(worker.pid, signal.SIGKILL)
                worker.wait(timeout=10)
        assert took < 10, f"the worker took {took:.1f} s to stop: " + (tmp_path / f"worker-{attempt}.log").read_text()[-2000:]
