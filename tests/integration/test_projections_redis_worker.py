"""Projections on Redis kept by a real RQ worker process (``python -m service worker``).

Games are played through the service in RQ mode; a worker process keeps the read models,
tailing the log (feed "tail", the default: an append enqueues nothing) or running the
catch-up jobs each append enqueues (feed "jobs"), and they converge on the model a clean
rebuild gives. A worker killed with SIGKILL in the middle of a rebuild leaves a model that the
next worker finishes, and the result is again exactly that of a clean rebuild.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from rq import Queue, Retry, SimpleWorker

from domain.games.dynasties import RULES as DYNASTIES
from service.background import rq_projections
from service.background.projections_runner import ProjectionRunner
from service.background.rq_projections import RqProjections
from service.base.config import Config
from service.running import worker as worker_module
from service.wiring.bootstrap import build_service
from tests.unit.projections.playing import play_games

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = {"dynasties": DYNASTIES}


@pytest.fixture
def deployment(redis_url, tmp_path, request):
    """The service, its config and ``start_worker``; the feed is ``request.param`` (indirect
    parametrization), "tail" by default."""
    url, namespace = redis_url
    feed = getattr(request, "param", "tail")
    config = Config(store_url=url, projections="rq", redis_prefix=namespace, queue_name=f"{namespace}-projections",
                    projection_lock_ttl=2, projection_feed=feed)
    service = build_service(config, REGISTRY)
    workers: list[subprocess.Popen] = []

    def start_worker(*extra: str, **env: str) -> subprocess.Popen:
        environment = {**os.environ, "PYTHONPATH": str(ROOT), "GAMES_REDIS_PREFIX": namespace,
                       "GAMES_PROJECTION_LOCK_TTL": "2", "GAMES_PROJECTION_FEED": feed, **env}
        with open(tmp_path / f"worker-{len(workers)}.log", "wb") as log:  # the child keeps its own copy
            process = subprocess.Popen(
                [sys.executable, "-m", "service", "worker", "--store", url, "--queue", config.queue_name, *extra],
                cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=log,
                start_new_session=True)  # its own process group: the worker and RQ's scheduler child
        workers.append(process)
        return process

    yield service, config, start_worker
    for process in workers:  # the whole group: RQ's scheduler child may outlive the worker
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(timeout=10)


def runner_of(service) -> ProjectionRunner:
    return service.read_models.runner


def wait_until_current(runner: ProjectionRunner, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(status["lag"] == 0 for status in runner.status_all()):
            return
        time.sleep(0.1)
    raise AssertionError(f"projections still lag: {[(s['name'], s['lag']) for s in runner.status_all()]}")


def stop(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=15)


@pytest.mark.parametrize("deployment", ["tail", "jobs"], indirect=True)
def test_projections_converge_while_games_are_played_with_a_worker_running(deployment):
    service, _, start_worker = deployment
    start_worker()
    ids = play_games(service, "dynasties", 4, seed=21, unfinished=2)
    runner = runner_of(service)
    wait_until_current(runner)
    for name in runner.names:
        assert runner.model(name) == runner.replay(name), name
    listed = {g["id"]: g for g in service.list_games()}
    assert set(listed) == set(ids)
    for game_id in ids:
        summary = service.load(game_id).summary()
        assert (listed[game_id]["status"], listed[game_id]["to_move"], listed[game_id]["version"]) == \
            (summary["status"], summary["to_move"], summary["version"])
    assert sum(s["partition"] >= 0 and s["head"] > 0 for s in runner.status("lobby")["partitions"]) > 1


@pytest.mark.parametrize("deployment", ["jobs"], indirect=True)
def test_appends_leave_at_most_one_waiting_job_per_projection(deployment):
    service, config, start_worker = deployment
    play_games(service, "dynasties", 2, seed=22)
    queue = Queue(config.lane_queue("projections"), connection=redis.Redis.from_url(config.store_url))
    assert sorted(job.args[0] for job in queue.jobs) == sorted(runner_of(service).names)
    assert all(job.func_name == "service.running.worker.catch_up_job" and job.args == (job.args[0],) for job in queue.jobs)
    assert runner_of(service).status("lobby")["lag"] > 0
    worker = start_worker("--burst")
    assert worker.wait(timeout=120) == 0  # a burst on a busy machine: it starts, drains, stops
    wait_until_current(runner_of(service), timeout=5)


def test_with_the_tail_feed_appends_enqueue_nothing_and_a_burst_worker_still_catches_up(deployment):
    service, config, start_worker = deployment
    play_games(service, "dynasties", 2, seed=22)
    queue = Queue(config.lane_queue("projections"), connection=redis.Redis.from_url(config.store_url))
    assert queue.jobs == [], "an append asks nothing of the queue"
    assert runner_of(service).status("lobby")["lag"] > 0
    worker = start_worker("--burst")  # asks for every catch-up as it starts, runs them, stops
    assert worker.wait(timeout=120) == 0  # a burst on a busy machine: it starts, drains, stops
    wait_until_current(runner_of(service), timeout=5)


def test_a_tailing_worker_killed_while_games_are_played_is_relieved_by_the_next(deployment):
    """kill -9 of a tailing worker in mid-play: a new worker goes on from the stored
    checkpoints and the models end exactly as a clean rebuild makes them (nothing applied
    twice, nothing skipped)."""
    service, _, start_worker = deployment
    first = start_worker(GAMES_PROJECTION_BATCH="5", GAMES_PROJECTION_SAVE_EVERY="5")
    play_games(service, "dynasties", 3, seed=25, unfinished=1)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait(timeout=10)
    play_games(service, "dynasties", 2, seed=26)
    runner = runner_of(service)
    assert runner.lag("lobby") > 0, "nobody tails the log while no worker runs"
    start_worker()
    wait_until_current(runner)
    for name in runner.names:
        assert runner.model(name) == runner.replay(name), name


def test_a_worker_killed_mid_rebuild_is_finished_by_the_next_to_exactly_a_clean_rebuild(deployment):
    service, config, start_worker = deployment
    fast = start_worker()
    play_games(service, "dynasties", 6, seed=23, unfinished=1)
    runner = runner_of(service)
    wait_until_current(runner)
    incremental = runner.model("scoreboard")
    total = sum(runner.heads().values())
    stop(fast)

    slow = start_worker(GAMES_PROJECTION_BATCH="20", GAMES_PROJECTION_SAVE_EVERY="20", GAMES_PROJECTION_PAUSE="0.05")
    RqProjections.from_config(config, runner.names).enqueue_rebuild("scoreboard")
    deadline = time.monotonic() + 30
    while True:  # wait until the rebuild has saved part of the log, and not all of it
        checkpoints = service.store.load_checkpoints("scoreboard")
        done = sum(checkpoints.values()) if checkpoints else 0
        if 0 < done < total * 0.6 and runner.model("scoreboard") != incremental:
            break
        assert time.monotonic() < deadline, "the rebuild never got going"
        time.sleep(0.02)
    os.killpg(slow.pid, signal.SIGKILL)
    slow.wait(timeout=10)
    assert runner.lag("scoreboard") > 0, "the kill should have come mid-rebuild"

    start_worker()  # enqueues a catch-up for every projection as it starts
    wait_until_current(runner)
    assert runner.model("scoreboard") == incremental == runner.replay("scoreboard")


def test_a_failing_job_is_retried_and_then_kept_in_the_failed_registry(deployment, monkeypatch):
    service, config, _ = deployment

    class Broken:
        name = "broken"

        def initial(self):
            return {}

        def apply(self, model, envelope):
            raise ValueError("a bug in a read model")

    play_games(service, "dynasties", 1, seed=24)
    connection = redis.Redis.from_url(config.store_url)
    projections = RqProjections(connection, config.lane_queue("projections"), config.redis_prefix, ["broken"])
    runner = ProjectionRunner(service.store, {"broken": Broken()})
    monkeypatch.setattr(worker_module, "_runtime", worker_module.Runtime(config, runner, projections))

    job = projections.request("broken")
    assert (job.retries_left, job.retry_intervals) == (5, [1, 2, 5, 10, 30])  # the production policy
    connection.delete(projections.pending_key("broken"))
    job.cancel()
    job.delete()

    monkeypatch.setattr(rq_projections, "RETRY", Retry(max=2))  # no backoff, so the test need not wait
    job = projections.request("broken")
    SimpleWorker([projections.queue], connection=connection).work(burst=True)
    job.refresh()
    assert job.get_status() == "failed" and job.retries_left == 0
    assert job.id in projections.failed_jobs()
    assert "a bug in a read model" in job.latest_result().exc_string


@pytest.mark.parametrize("deployment", ["tail", "jobs"], indirect=True)
def test_a_catch_up_job_asks_for_the_next_one_only_without_tailers(deployment, monkeypatch):
    """Events appended while a catch-up job runs leave a lag behind it. With the "jobs" feed
    the job asks for the next one (nobody else would apply them); with the "tail" feed the
    tailers will, so the job asks for nothing: chained jobs ran beside the tailers for ever
    under a steady load."""
    service, config, _ = deployment
    runner = runner_of(service)
    connection = redis.Redis.from_url(config.store_url)
    projections = RqProjections(connection, config.lane_queue("projections"), config.redis_prefix, ["lobby"])
    monkeypatch.setattr(worker_module, "_runtime", worker_module.Runtime(config, runner, projections))
    monkeypatch.setattr(worker_module, "JOB_BUDGET", 0.0)  # one round: the appends below land after it
    play_games(service, "dynasties", 1, seed=27)
    catch_up = runner.catch_up

    def catch_up_then_an_append(name, **kwargs):
        applied = catch_up(name, **kwargs)
        play_games(service, "dynasties", 1, seed=28)  # lands while the job still holds the lock
        return applied

    monkeypatch.setattr(runner, "catch_up", catch_up_then_an_append)
    queue = Queue(config.lane_queue("projections"), connection=connection)
    assert queue.jobs == [] or config.projection_feed == "jobs"
    for job in queue.jobs:  # the appends' own jobs (feed "jobs"): only the one asked by the job counts
        job.delete()
    connection.delete(projections.pending_key("lobby"))
    assert worker_module.catch_up_job("lobby") > 0
    assert runner.lag("lobby") > 0
    asked = [job.args[0] for job in Queue(config.lane_queue("projections"), connection=connection).jobs]
    assert asked == ([] if config.projection_feed == "tail" else ["lobby"])
