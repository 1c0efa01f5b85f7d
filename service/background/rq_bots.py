"""Bot seats on Redis: the bots' lane of the RQ workers (``python -m service worker --lanes bots``).

``RqDriver.request`` enqueues ``service.running.lane_jobs.bot_move_job(game_id, prompted_at)`` on the lane's queue
under a job id made of the game and its version, so the requests of one decision share a
job. The job decides at once (``service.background.bot_seats.decide``, the search in the worker's
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
from rq.job import Job

from service.background.bot_seats import Decision
from service.background.rq_projections import job_safe
from service.base.config import Config

log = logging.getLogger(__name__)

LANE = "bots"
RETRY = Retry(max=5, interval=[1, 2, 5, 10, 30])
BOT_JOB_TIMEOUT = 120
#: a bot move job in one of these states is still to run (RQ keeps its status in the job hash;
#: a started one may be a dead worker's: asked again)
_WAITING = (b"queued", b"scheduled", b"deferred")


class RqDriver:
    def __init__(self, connection: redis.Redis, queue_name: str, prefix: str):
        self.queue = Queue(queue_name, connection=connection)
        self.prefix = prefix

    @classmethod
    def from_config(cls, config: Config) -> RqDriver:
        from service.adapters.redis_client import connect

        return cls(connect(config.rq_url), config.lane_queue(LANE), config.redis_prefix)

    def request(self, game_id: str, version: int, prompted_at: float | None = None) -> None:
        job_id = job_safe(f"{self.prefix}-bot-{game_id}-{version}")
        try:
            # a request already waiting stands: enqueuing its id again would push it
            # onto the queue once more (the sweep asks for every prompted bot each interval, and a
            # lane behind its work would see its queue grow with repeats: the soak found 7,879)
            if self.queue.connection.hget(f"{Job.redis_job_namespace_prefix}{job_id}", "status") in _WAITING:
                return
            self.queue.enqueue("service.running.lane_jobs.bot_move_job", game_id, prompted_at,
                               job_id=job_id, retry=RETRY, job_timeout=BOT_JOB_TIMEOUT, result_ttl=60,
                               description=f"bot move in game {game_id} at version {version}")
        except redis.RedisError:  # the move is stored; the next sweep asks again
            log.exception("could not enqueue a bot move for game %s", game_id)

    def play_at(self, decision: Decision) -> None:
        """Have the decision played when it is due (RQ's scheduler enqueues it then)."""
        # RQ's scheduler keeps whole seconds: rounded up, so a bot never plays before its time.
        # A due play goes to the front of the lane's queue: the decision is made and its seat
        # has waited its think time; the searches still queued have not started to cost anyone
        self.queue.enqueue_at(datetime.fromtimestamp(math.ceil(decision.due), UTC), "service.running.lane_jobs.bot_play_job",
                              decision.to_job(), retry=RETRY, job_timeout=BOT_JOB_TIMEOUT, result_ttl=60, at_front=True,
                              job_id=job_safe(f"{self.prefix}-botplay-{decision.game_id}-{decision.version}"),
                              description=f"bot move in game {decision.game_id} at version {decision.version}")
