"""Bot seats on Redis: the bots' lane of the RQ workers (``python -m service worker --lanes bots``).

``RqDriver.request`` enqueues ``bot_move_job(game_id, prompted_at)`` on the lane's queue
under a job id made of the game and its version, so the requests of one decision share a
job. The job decides at once (``service.bot_seats.decide``, the search in the worker's
process) and, when the bot's think time is not over, schedules ``bot_play_job`` for the
moment it is (``enqueue_at``: RQ's scheduler moves it to the queue then); the worker is
free meanwhile. A killed job is retried (``RETRY``), and the lane's sweep asks again for
any bot left prompted; a play that runs twice finds its first answer under the decision's
idempotency key: a bot never acts twice on one decision.
"""

from __future__ import annotations

import logging
import math
from datetime import UTC, datetime

import redis
from rq import Queue, Retry

from service import job_runtime
from service.bot_seats import RETRIES, Decision, decide, play, prompted_bots, sweep
from service.config import Config
from service.errors import Conflict
from service.rq_projections import job_safe

log = logging.getLogger(__name__)

LANE = "bots"
RETRY = Retry(max=5, interval=[1, 2, 5, 10, 30])
BOT_JOB_TIMEOUT = 120


class RqDriver:
    def __init__(self, connection: redis.Redis, queue_name: str, prefix: str):
        self.queue = Queue(queue_name, connection=connection)
        self.prefix = prefix

    @classmethod
    def from_config(cls, config: Config) -> RqDriver:
        from service.adapters.redis_client import connect

        return cls(connect(config.rq_url), config.lane_queue(LANE), config.redis_prefix)

    def request(self, game_id: str, version: int, prompted_at: float | None = None) -> None:
        try:
            self.queue.enqueue("service.rq_bots.bot_move_job", game_id, prompted_at,
                               job_id=job_safe(f"{self.prefix}-bot-{game_id}-{version}"),
                               retry=RETRY, job_timeout=BOT_JOB_TIMEOUT, result_ttl=60,
                               description=f"bot move in game {game_id} at version {version}")
        except redis.RedisError:  # the move is stored; the next sweep asks again
            log.exception("could not enqueue a bot move for game %s", game_id)

    def play_at(self, decision: Decision) -> None:
        """Have the decision played when it is due (RQ's scheduler enqueues it then)."""
        # RQ's scheduler keeps whole seconds: rounded up, so a bot never plays before its time
        self.queue.enqueue_at(datetime.fromtimestamp(math.ceil(decision.due), UTC), "service.rq_bots.bot_play_job",
                              decision.to_job(), retry=RETRY, job_timeout=BOT_JOB_TIMEOUT, result_ttl=60,
                              job_id=job_safe(f"{self.prefix}-botplay-{decision.game_id}-{decision.version}"),
                              description=f"bot move in game {decision.game_id} at version {decision.version}")


def _driver() -> RqDriver:
    return RqDriver.from_config(job_runtime.config())


def bot_move_job(game_id: str, prompted_at: float | None = None) -> str:
    """Decide the move of a prompted bot seat of ``game_id``; play it now if its think time
    is over, else schedule its play."""
    config, service = job_runtime.config(), job_runtime.service()
    for _ in range(RETRIES):
        try:
            decision = decide(service, game_id, config.bot_think_seconds, prompted_at=prompted_at)
        except Conflict as conflict:
            if conflict.extra.get("code") != "version_conflict":
                raise
            continue
        if decision is None:
            return "nothing asked"
        if decision.due > datetime.now(UTC).timestamp():
            _driver().play_at(decision)
            return "scheduled"
        if play(service, decision):
            return "played"
        prompted_at = None  # the game moved on under the bot: decide again
    return "gave up"


def bot_play_job(job: dict) -> str:
    """Play a decision whose think time is over; decide again if the game moved on."""
    decision = Decision.from_job(job)
    service = job_runtime.service()
    if play(service, decision):
        return "played"
    game = service.load(decision.game_id)
    if prompted_bots(game):
        _driver().request(game.id, game.version)
    return "decide again"


def sweep_bots(config: Config) -> int:
    """Ask for every bot move a lost job left undone (the lane's start and its sweeps)."""
    job_runtime.configure(config)
    return sweep(job_runtime.service(), RqDriver.from_config(config))
