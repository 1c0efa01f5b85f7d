"""A tailer's round (``service.running.worker._tail_round``) in the steady state costs a fixed
number of Redis round trips whatever the number of projections and partitions behind:
the locks of every projection taken in one, their checkpoints read in one, the log read
in one (every partition behind), the models saved in one, the locks released in one.
Counted on a real Redis at the socket (``tests.helpers.redis_trips``), as in
``test_cycle_round_trips``. Before the joint catch-up a round cost five round trips per
projection and one more per partition behind and projection."""

from __future__ import annotations

import random

import pytest

from domain.games.dynasties import RULES
from service.base.config import Config
from service.running import worker
from service.wiring.bootstrap import build_service
from tests.helpers.play import play_randomly, start_game

pytestmark = pytest.mark.integration

#: lock, checkpoints, log, save, release
ROUND_TRIPS = 5


def test_a_tailers_round_costs_five_redis_round_trips_for_every_projection_and_partition(redis_url, trips):
    url, namespace = redis_url
    config = Config(store_url=url, projections="rq", redis_prefix=namespace, queue_name=f"{namespace}-projections",
                    redis_partitions=4)
    service = build_service(config, {"dynasties": RULES})
    games = [start_game(service, "dynasties", 3) for _ in range(6)]
    rt = worker.runtime(config)
    try:
        worker._tail_round(rt, rt.runner.heads(), config.projection_lock_ttl)  # cold: loads the rows it keeps
        rng = random.Random(3)
        for game_id, players in games:
            play_randomly(service, game_id, players, rng, max_commands=3)
        heads = rt.runner.heads()
        assert sum(1 for p, head in heads.items() if head > rt.runner.store.load_checkpoints("lobby")[p]) > 1
        trips.take()
        worker._tail_round(rt, heads, config.projection_lock_ttl)
        sent = [commands[1:] for commands in trips.take()]
        assert len(sent) == ROUND_TRIPS, sent
        assert sent[0] == ["SET"] * len(rt.runner.names)
        assert sent[1] == ["GET"] * len(rt.runner.names)
        assert set(sent[2]) == {"XRANGE"} and len(sent[2]) > 1
        assert sent[3] == ["EVALSHA"] * len(rt.runner.names)
        assert sent[4] == ["EVAL"] * len(rt.runner.names)
        for name in rt.runner.names:
            assert rt.runner.lag(name) == 0
            assert rt.runner.model(name) == rt.runner.replay(name), name
    finally:
        worker._runtime = None
        rt.runner.store.close()
        service.store.close()
