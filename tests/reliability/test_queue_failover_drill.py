"""The job queue's Redis behind Sentinel loses its master mid-load (``make drills``).

A master, two replicas and three sentinels (real ``redis-server`` processes, quorum 2, a master
down after 1 s); the game service (the web side: its appends enqueue the lanes' jobs) and one
worker per lane (``python -m service worker --lanes LANE``) reach the queue through Sentinel
(``GAMES_QUEUE_URL=redis+sentinel://.../queue/0?wait=1``: an enqueue is acknowledged once a
replica holds it). Under load (people playing against greedy bots, turn clocks running out,
probe jobs enqueued every 20 ms) the master is killed with SIGKILL. Checked afterwards:

* every probe job whose enqueue was acknowledged ran at least once (refused ones are counted);
* every bot game played on to its end, and no bot acted twice (each bot move is one append
  under its decision's key ``bot-<version>``, at that version);
* every clock ran out and acted exactly once (one ``ClockTimedOut`` per game), and how late.

``pytest -m drill tests/reliability/test_queue_failover_drill.py -s`` prints the figures.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from pathlib import Path

import pytest
import redis
from rq import Queue, Retry

from domain.kernel.clocks import CLOCK_TIMED_OUT
from service.adapters.codec import loads
from service.adapters.redis_client import connect
from service.base.config import LANES, Config
from service.streams.envelopes import stream_of
from service.wiring.bootstrap import build_service
from tests.helpers.lanes import LaneWorkers, move, timeout_lateness, two_seat_game
from tests.reliability.redis_sentinel import start_sentinels

pytestmark = [pytest.mark.drill, pytest.mark.integration]

ROOT = Path(__file__).resolve().parents[2]
BOT_GAMES = 6
CLOCK_GAMES = 8
CLOCK_SECONDS = 4


def _bot_moves(service, game_id: str) -> tuple[int, int]:
    """(bot appends, bot appends not made at their decision's version): a bot that acted twice
    on one decision, or on a decision made at another version, counts in the second."""
    stream = stream_of(game_id)
    idem = service.store._redis.hgetall(f"{service.store.prefix}:{{p{service.store._stream_tag(stream)[0]}}}:idem:{stream}")  # noqa: SLF001
    moves = wrong = 0
    for key, raw in idem.items():  # keys are "<player id>:<Idempotency-Key>"
        player, _, name = key.decode().partition(":")
        if name.startswith("bot-"):
            moves += 1
            if loads(raw)["first"] != int(name[4:]) + 1:
                wrong += 1
    return moves, wrong


def test_the_queue_master_killed_mid_load_loses_no_acknowledged_job_no_timeout_and_doubles_no_bot(redis_url, tmp_path):
    url, namespace = redis_url
    sentinels = start_sentinels(replicas=2)
    queue_url = sentinels.url(wait=1)
    config = Config(store_url=url, projections="rq", redis_prefix=namespace, queue_name=f"{namespace}-q",
                    queue_url=queue_url, bot_think_seconds=0.2, sweep_interval=1)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAMES_REDIS_PREFIX": namespace, "GAMES_QUEUE_URL": queue_url,
           "GAMES_BOT_THINK_SECONDS": "0.2", "GAMES_SWEEP_INTERVAL": "1"}
    workers = LaneWorkers(url, config, env, ROOT, tmp_path)
    service = build_service(config)
    stop = threading.Event()
    acknowledged: list[str] = []
    refused = [0]
    errors: list[str] = []
    ran_key = f"{namespace}:probes-ran"

    def probes() -> None:
        queue = Queue(config.lane_queue("clocks"), connection=connect(queue_url, socket_timeout=2,
                                                                      socket_connect_timeout=1))
        while not stop.is_set():
            token = uuid.uuid4().hex
            try:
                queue.enqueue("tests.reliability.queue_probe.probe", url, ran_key, token, result_ttl=60,
                              retry=Retry(max=3, interval=[1, 5, 30]))
                acknowledged.append(token)
            except redis.RedisError:
                refused[0] += 1
            time.sleep(0.02)

    def people(games: dict[str, dict]) -> None:
        while not stop.is_set():
            for game_id, person in games.items():
                try:
                    game = service.load(game_id)
                    seat = game.table.seat_of(person["id"])
                    if not game.over and seat in game.rules.to_move(game.state):
                        service.submit_command(game_id, person, game.rules.legal_commands(game.state, seat)[0])
                except Exception as exc:  # noqa: BLE001 - counted: a person's move must not fail
                    errors.append(repr(exc))
            time.sleep(0.05)

    try:
        for lane in LANES:
            workers.start(lane)
        time.sleep(3)
        bot_games: dict[str, dict] = {}
        for i in range(BOT_GAMES):
            person = service.players.create(f"person-{i}")
            game = service.create_game(person, "dynasties", {"starting_gold": 20}, 2, bots=[{"kind": "greedy"}])
            service.join_game(game.id, person)
            bot_games[game.id] = person
        threads = [threading.Thread(target=probes, daemon=True), threading.Thread(target=people, args=(bot_games,),
                                                                                  daemon=True)]
        for thread in threads:
            thread.start()
        clock_games = []
        first_master = sentinels.master()
        killed_at = 0.0
        for i in range(CLOCK_GAMES):  # clocks run out before, during and after the failover
            game_id, players = two_seat_game(service, (f"fay-{i}", f"gus-{i}"),
                                             {"starting_gold": 30, "clock_bank_seconds": CLOCK_SECONDS})
            move(service, game_id, players)  # the other seat's clock runs; nobody answers
            clock_games.append(game_id)
            if i == CLOCK_GAMES // 2:
                sentinels.kill(first_master)
                killed_at = time.monotonic()
            time.sleep(0.5)
        promoted = None
        while promoted is None:
            port = sentinels.master()
            if port != first_master:
                promoted = time.monotonic() - killed_at
            assert time.monotonic() - killed_at < 30, "no replica was promoted"
            time.sleep(0.05)
        time.sleep(3)
        stop.set()
        for thread in threads:
            thread.join(timeout=10)
        store = redis.Redis.from_url(url)
        deadline = time.monotonic() + 180  # a job cut off mid-dequeue is retried after RQ's one-minute cleanup
        while True:
            ran = {m.decode() for m in store.smembers(ran_key)}
            lost = [t for t in acknowledged if t not in ran]
            timed_out = [g for g in clock_games if timeout_lateness(service, g) is not None]
            stop.clear()
            over = [g for g in bot_games if service.load(g).over]
            if not lost and len(timed_out) == CLOCK_GAMES and len(over) == BOT_GAMES:
                break
            if time.monotonic() > deadline:
                break
            if len(over) < BOT_GAMES:  # the people play on until every bot game is over
                people_once = threading.Thread(target=people, args=(bot_games,), daemon=True)
                people_once.start()
                time.sleep(1)
                stop.set()
                people_once.join(timeout=10)
            else:
                time.sleep(0.5)
        timeouts = {g: sum(1 for r in service.store.read(stream_of(g)) if r.event["type"] == CLOCK_TIMED_OUT)
                    for g in clock_games}
        lateness = [timeout_lateness(service, g) for g in clock_games]
        bots = [_bot_moves(service, g) for g in bot_games]
        settled = time.monotonic() - killed_at
        print(f"\nqueue failover drill: master killed, replica promoted after {promoted:.1f} s, all settled after "
              f"{settled:.0f} s; "
              f"probe jobs acknowledged {len(acknowledged)}, ran {len(acknowledged) - len(lost)}, lost {len(lost)}, "
              f"refused during the failover {refused[0]}; bot games over {len(over)}/{BOT_GAMES}, "
              f"bot moves {sum(m for m, _ in bots)}, acted twice {sum(w for _, w in bots)}; clocks timed out "
              f"{sum(1 for n in timeouts.values() if n == 1)}/{CLOCK_GAMES} once each, lateness "
              f"{', '.join(f'{x:.1f}' if x is not None else 'none' for x in lateness)} s; person errors {len(errors)}")
        assert not lost, f"{len(lost)} acknowledged jobs never ran"
        assert len(acknowledged) > 100
        assert len(over) == BOT_GAMES, "a bot game stopped"
        assert sum(w for _, w in bots) == 0 and sum(m for m, _ in bots) > 0
        assert all(n == 1 for n in timeouts.values()), timeouts
    finally:
        stop.set()
        workers.stop()
        sentinels.stop()
        service.store.close()
