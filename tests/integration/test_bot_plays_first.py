"""On the bots' lane (Redis), a decided move whose think time is over goes to the front of
the lane's queue: it never waits behind searches that have not started."""

from __future__ import annotations

import time

import pytest
import redis
from rq.scheduler import RQScheduler

from domain.kernel import Command
from service.background.bot_seats import Decision
from service.background.rq_bots import RqDriver

pytestmark = pytest.mark.integration


def test_a_due_play_is_queued_before_the_searches_waiting_in_the_lane(redis_url):
    url, namespace = redis_url
    connection = redis.Redis.from_url(url)
    driver = RqDriver(connection, f"{namespace}-bots", namespace)
    for game in ("g1", "g2", "g3"):  # three prompted bots wait for their search
        driver.request(game, 5)
    assert len(driver.queue) == 3
    decision = Decision("g0", 1, {"id": "p-bot", "name": "Bot"}, 7, Command("pass", {}), time.time() - 1)
    driver.play_at(decision)

    scheduler = RQScheduler([driver.queue], connection=connection)
    assert scheduler.acquire_locks()
    try:
        scheduler.enqueue_scheduled_jobs()  # what the lane's scheduler does once it is due
    finally:
        scheduler.release_locks()

    jobs = driver.queue.get_jobs()
    assert [job.func_name for job in jobs] == ["service.running.lane_jobs.bot_play_job"] + ["service.running.lane_jobs.bot_move_job"] * 3
    assert jobs[0].args[0]["game_id"] == "g0"
