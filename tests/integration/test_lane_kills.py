"""Kill -9 of each lane's worker mid-run (Redis, real RQ workers, one per lane), each started
again a second later: no bot move is applied twice, no clock's timeout is missed (it acts
once), and no webhook is lost (every event delivered at least once, each under its own
``webhook-id``, so a repeat carries the same one)."""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from service.base.config import LANES, Config
from service.streams.envelopes import stream_of
from service.wiring.bootstrap import build_service
from tests.helpers.lanes import LaneWorkers, move, timeout_lateness, two_seat_game
from tests.reliability.test_webhooks import Receiver

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def test_each_lane_killed_mid_run_loses_and_doubles_nothing(redis_url, tmp_path):
    url, namespace = redis_url
    config = Config(store_url=url, projections="rq", redis_prefix=namespace, queue_name=f"{namespace}-q",
                    webhook_allow=("127.0.0.1/32",), webhook_backoff=0.5, bot_think_seconds=1.0, sweep_interval=1)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAMES_REDIS_PREFIX": namespace, "GAMES_BOT_THINK_SECONDS": "1",
           "GAMES_WEBHOOK_ALLOW": "127.0.0.1/32", "GAMES_WEBHOOK_BACKOFF": "0.5", "GAMES_SWEEP_INTERVAL": "1"}
    receiver = Receiver(flaky=False)
    http = make_server("127.0.0.1", 0, receiver, threaded=True)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    workers = LaneWorkers(url, config, env, ROOT, tmp_path)
    service = build_service(config)
    try:
        for lane in LANES:
            workers.start(lane)
        time.sleep(2)
        ann, bob = service.players.create("ann"), service.players.create("bob")
        hook = service.webhooks.subscribe(ann["id"], f"http://127.0.0.1:{http.server_port}/ann", "my_games")
        receiver.secrets["ann"] = hook["secret"]
        hooked = service.create_game(ann, "dynasties", {"starting_gold": 12}, 2)
        service.join_game(hooked.id, ann)
        service.join_game(hooked.id, bob)
        table = service.load(hooked.id).table
        hooked_players = [ann if table.players[s] == ann["id"] else bob for s in range(2)]
        clocked, clocked_players = two_seat_game(service, ("fay", "gus"), {"starting_gold": 30,
                                                                          "clock_bank_seconds": 8})
        move(service, clocked, clocked_players)  # the other seat's 8 s run from now; nobody answers
        eve = service.players.create("eve")
        botted = service.create_game(eve, "dynasties", {"starting_gold": 12}, 2, bots=[{"kind": "greedy"}])
        service.join_game(botted.id, eve)
        rng = random.Random(3)
        kills = iter(LANES)
        started = time.monotonic()
        next_kill = started + 2
        while time.monotonic() - started < 90:
            if time.monotonic() >= next_kill:
                lane = next(kills, None)
                if lane is not None:  # kill -9, and a new worker of the lane a second later
                    workers.kill(lane)
                    threading.Timer(1.0, workers.start, args=(lane,)).start()
                    next_kill += 3
            if not service.load(hooked.id).over and rng.random() < 0.3:
                move(service, hooked.id, hooked_players)
            game = service.load(botted.id)
            seat = game.table.seat_of(eve["id"])
            if not game.over and seat in game.rules.to_move(game.state):
                service.submit_command(botted.id, eve, rng.choice(game.rules.legal_commands(game.state, seat)))
            if service.load(botted.id).over and service.load(hooked.id).over and \
                    timeout_lateness(service, clocked) is not None:
                break
            time.sleep(0.1)
        # the clock ran out once, whatever the kills
        timeouts = [r for r in service.store.read(stream_of(clocked)) if r.event["type"] == "ClockTimedOut"]
        assert len(timeouts) == 1, [w.read_text()[-2000:] for w in tmp_path.glob("worker-clocks-*.log")]
        # the bot played its game to the end through the kills; each move under its decision's
        # idempotency key at the version it was decided at, so none was applied twice
        assert service.load(botted.id).over, [w.read_text()[-2000:] for w in tmp_path.glob("worker-bots-*.log")]
        bot_events = [r for r in service.store.read(stream_of(botted.id)) if r.event.get("bot")]
        assert bot_events, "the bot never moved"
        # each webhook event of the hooked game arrived (at least once: a repeat has the same id)
        last = service.load(hooked.id).version
        wanted = {f"msg_{hook['id']}_{hooked.id}_{v}" for v in range(1, last + 1)}
        deadline = time.monotonic() + 60
        while set(receiver.effective.get("ann", {})) != wanted and time.monotonic() < deadline:
            time.sleep(0.2)
        assert set(receiver.effective.get("ann", {})) == wanted
        assert receiver.bad_signatures == []
    finally:
        time.sleep(1.2)  # let a pending restart happen before stopping everything
        workers.stop()
        http.shutdown()
