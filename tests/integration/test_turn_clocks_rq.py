"""Turn clock timeouts on Redis, run by real RQ worker processes (``python -m service
worker``): a timeout acts exactly once when the worker is killed before the deadline and
another starts after it, and not at all for a seat that moved in time."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import redis
from werkzeug.serving import make_server as serve_receiver

from service.base.config import Config
from service.streams.envelopes import stream_of
from service.wiring.bootstrap import build_service
from tests.reliability.test_webhooks import Receiver

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


class Workers:
    """``python -m service worker`` processes on one Redis namespace, and a service beside them."""

    def __init__(self, redis_url, tmp_path, **settings):
        self.url, namespace = redis_url
        self.config = Config(store_url=self.url, projections="rq", redis_prefix=namespace,
                             queue_name=f"{namespace}-q", **settings)
        self.service = build_service(self.config)
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "GAMES_REDIS_PREFIX": namespace,
                    **({"GAMES_WEBHOOK_ALLOW": ",".join(settings["webhook_allow"])} if "webhook_allow" in settings else {})}
        self.tmp_path = tmp_path
        self.processes: list[subprocess.Popen] = []

    def start(self) -> subprocess.Popen:
        with open(self.log(len(self.processes)), "wb") as log:
            worker = subprocess.Popen([sys.executable, "-m", "service", "worker", "--store", self.url, "--queue",
                                       self.config.queue_name], cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL,
                                      stderr=log, start_new_session=True)
        self.processes.append(worker)
        return worker

    def log(self, number: int) -> Path:
        return self.tmp_path / f"worker-{number}.log"

    def stop(self) -> None:
        for worker in self.processes:
            try:
                os.killpg(worker.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            worker.wait(timeout=10)


@pytest.fixture
def workers(redis_url, tmp_path):
    started = Workers(redis_url, tmp_path)
    yield started
    started.stop()


def _dynasties_with_a_clock(service, bank: int):
    """A 2-seat game whose seat 0 has just moved in time: seat 1's clock runs."""
    ann, bob = service.players.create("ann"), service.players.create("bob")
    game = service.create_game(ann, "dynasties", {"starting_gold": 20, "clock_bank_seconds": bank}, 2)
    service.join_game(game.id, ann)
    service.join_game(game.id, bob)
    table = service.load(game.id).table
    seated = [ann if table.players[s] == ann["id"] else bob for s in range(2)]
    loaded = service.load(game.id)
    service.submit_command(game.id, seated[0], loaded.rules.legal_commands(loaded.state, 0)[0])
    return game


def _timeouts(service, game) -> list[tuple[int, str]]:
    return [(r.event["data"]["seat"], r.event["data"]["action"]) for r in service.store.read(stream_of(game.id))
            if r.event["type"] == "ClockTimedOut"]


def test_a_timeout_acts_once_across_a_worker_killed_and_restarted_around_its_deadline(workers):
    service = workers.service
    first = workers.start()
    game = _dynasties_with_a_clock(service, 3)  # seat 0 in time; seat 1's 3 s run from here
    time.sleep(1.0)  # the worker has the timeouts scheduled; it dies before they are due
    os.killpg(first.pid, signal.SIGKILL)
    first.wait(timeout=10)
    time.sleep(3.0)  # past seat 1's deadline, with no worker at all
    assert _timeouts(service, game) == [] and not service.load(game.id).over
    workers.start()
    deadline = time.monotonic() + 60
    while not service.load(game.id).over and time.monotonic() < deadline:
        time.sleep(0.2)
    assert service.load(game.id).over, workers.log(1).read_text()[-3000:]
    workers.start()  # a third runner sweeps the same clocks again: nothing more happens
    time.sleep(4.0)
    assert _timeouts(service, game) == [(1, "forfeit")]
    assert service.load(game.id).outcome().winners == (0,)


def test_a_timeout_scheduled_after_a_worker_was_killed_runs_near_its_deadline(workers):
    """A worker killed with SIGKILL leaves its scheduler's lock behind (RQ keeps it a minute,
    and a worker that missed it tries again at its maintenance, every ten minutes): the
    worker that replaces it frees a lock nobody refreshes and takes the scheduling over, so a
    timeout scheduled after the kill acts within seconds of its deadline."""
    service = workers.service
    lock = f"rq:scheduler-lock:{workers.config.lane_queue('clocks')}"
    queue_redis = redis.Redis.from_url(workers.url)
    first = workers.start()
    deadline = time.monotonic() + 30
    while queue_redis.get(lock) is None:  # its scheduler holds the queue
        assert time.monotonic() < deadline, workers.log(0).read_text()[-3000:]
        time.sleep(0.1)
    held_by = queue_redis.get(lock)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait(timeout=10)
    workers.start()  # at once: the dead scheduler's lock is still there
    assert queue_redis.get(lock) == held_by
    game = _dynasties_with_a_clock(service, 8)
    moved = time.monotonic()  # seat 1's bank of 8 s runs from here; its timeout needs the scheduler
    while not service.load(game.id).over and time.monotonic() < moved + 40:
        time.sleep(0.2)
    waited = time.monotonic() - moved
    assert service.load(game.id).over, workers.log(1).read_text()[-3000:]
    assert 8 <= waited < 40  # the dead lock alone would have held it for a minute
    assert queue_redis.get(lock) not in (None, held_by)  # the live worker's scheduler holds it now
    assert _timeouts(service, game) == [(1, "forfeit")]


def test_a_worker_reminds_a_seat_at_80_percent_of_its_time_in_its_feed_and_by_webhook(redis_url, tmp_path):
    """The clocks' lane of a real worker schedules the reminder with the timeout (RQ's
    scheduler, ``warn_job``); its ClockWarned reaches the feed, and the webhooks' lane delivers it."""
    hooks = Receiver(flaky=False)
    receiver = serve_receiver("127.0.0.1", 0, hooks, threaded=True)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    workers = Workers(redis_url, tmp_path, webhook_allow=("127.0.0.1/32",))
    try:
        service = workers.service
        workers.start()
        game = _dynasties_with_a_clock(service, 6)
        bob = service.load(game.id).table.players[1]  # seat 1's 6 s run from here: reminded 4.8 s in
        hook = service.webhooks.subscribe(bob, f"http://127.0.0.1:{receiver.server_port}/bob", "my_games")
        hooks.secrets["bob"] = hook["secret"]
        run = service.load(game.id).table.clocks.running[1]
        deadline = time.monotonic() + 30
        while not [r for r in service.store.read(stream_of(game.id)) if r.event["type"] == "ClockWarned"]:
            assert time.monotonic() < deadline, workers.log(0).read_text()[-3000:]
            time.sleep(0.1)
        warned = [r.event for r in service.store.read(stream_of(game.id)) if r.event["type"] == "ClockWarned"]
        assert [(w["data"]["seat"], w["data"]["started_version"]) for w in warned] == [(1, run.started_version)]
        assert 0 < warned[0]["data"]["seconds_left"] <= 1.2  # 80% of 6 s, to RQ's whole seconds
        notices = service.feed.page(bob, 0, 100)["events"]
        assert [n["data"]["seat"] for n in notices if n["type"] == "clock_warning"] == [1]
        while not any(p["data"]["event"]["type"] == "ClockWarned" for p in hooks.effective.get("bob", {}).values()):
            assert time.monotonic() < deadline + 30, workers.log(0).read_text()[-3000:]
            time.sleep(0.1)
        while not service.load(game.id).over:  # then the timeout, and no second reminder
            assert time.monotonic() < deadline + 60, workers.log(0).read_text()[-3000:]
            time.sleep(0.2)
        assert len([r for r in service.store.read(stream_of(game.id)) if r.event["type"] == "ClockWarned"]) == 1
    finally:
        workers.stop()
        receiver.shutdown()


def test_a_seat_out_of_time_in_a_game_of_three_is_taken_over_and_played_by_the_bots_lane(workers):
    """Issue 37's seat takeover on Redis: the clocks' lane of a real worker finds a seat out of time
    with nothing to play for it (a Dynasties Tribute), gives it to the table's stand-in, and the
    bots' lane plays it from then on, while the other seats play on."""
    service = workers.service
    workers.start()
    players = [service.players.create(name) for name in ("ann", "bob", "cleo")]
    game = service.create_game(players[0], "dynasties", {"starting_gold": 20, "clock_bank_seconds": 3,
                                                         "clock_increment_seconds": 60}, 3,
                               stand_in={"kind": "random"})
    for player in players:
        service.join_game(game.id, player)
    table = service.load(game.id).table
    seated = [next(p for p in players if p["id"] == table.players[s]) for s in range(3)]
    for seat in (0, 1):  # seats 0 and 1 give their Tributes in time; seat 2 never answers
        loaded = service.load(game.id)
        service.submit_command(game.id, seated[seat], loaded.rules.legal_commands(loaded.state, seat)[0])
    deadline = time.monotonic() + 60

    def stand_in_moves():
        return [r.event for r in service.store.read(stream_of(game.id))
                if r.event["source"] == "game" and r.event.get("actor") == 2 and r.event.get("bot")]

    while not stand_in_moves():
        assert time.monotonic() < deadline, workers.log(0).read_text()[-3000:]
        time.sleep(0.2)
    after = service.load(game.id)
    assert not after.over and after.table.left == {2: seated[2]["id"]}
    assert _timeouts(service, game) == [(2, "takeover")]
    assert {e["bot"] for e in stand_in_moves()} == {"random:default"}
