"""Bot seats on Redis: an RQ job per bot decision, run by the workers (``python -m service worker``).

``RqDriver.request`` enqueues ``service.worker.bot_move_job(game_id)`` under a job id made
of the game and its version, so the requests of one decision share a job; the job runs
``service.bot_seats.play_one`` on a service of the worker's own. A killed job is retried
(``RETRY``), and a retry after the move was stored finds its first answer under the
decision's idempotency key: a bot never acts twice on one decision.
"""

from __future__ import annotations

import logging

import redis
from rq import Queue, Retry

from service.config import Config
from service.rq_projections import job_safe

log = logging.getLogger(__name__)

RETRY = Retry(max=5, interval=[1, 2, 5, 10, 30])
BOT_JOB_TIMEOUT = 120


class RqDriver:
    def __init__(self, connection: redis.Redis, queue_name: str, prefix: str):
        self.queue = Queue(queue_name, connection=connection)
        self.prefix = prefix

    @classmethod
    def from_config(cls, config: Config) -> RqDriver:
        from service.adapters.redis_client import connect

        return cls(connect(config.rq_url), config.queue_name, config.redis_prefix)

    def request(self, game_id: str, version: int) -> None:
        try:
            self.queue.enqueue("service.worker.bot_move_job", game_id,
                               job_id=job_safe(f"{self.prefix}-bot-{game_id}-{version}"),
                               retry=RETRY, job_timeout=BOT_JOB_TIMEOUT, result_ttl=60,
                               description=f"bot move in game {game_id} at version {version}")
        except redis.RedisError:  # the move is stored; the next sweep asks again
            log.exception("could not enqueue a bot move for game %s", game_id)
