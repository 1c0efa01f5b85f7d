"""The webhooks' lane of the RQ workers (``python -m service worker --lanes webhooks``): what
enqueues its jobs (the jobs themselves are ``service.running.lane_jobs``').

An append enqueues one fan-out job for its game (at most one waits per game: a ``pending``
flag set with ``SET NX`` and a TTL, cleared as the job starts); the fan-out enqueues one
delivery job per subscription that covers the game (again at most one waiting per pair),
which delivers that subscription's due events of the game in order, each within the
delivery's deadline (``Webhooks._checked_post``). A receiver that fails is retried after its
own backoff, a job scheduled with ``enqueue_in`` (the lane's scheduler moves it to the queue
when it is due; one per pair), so a slow or dead receiver costs one delivery's deadline of
one worker now and then, and never the deliveries of others.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from rq import Queue

from service.background.rq_projections import job_safe
from service.background.webhooks import WebhooksFor
from service.base.config import Config
from service.streams.envelopes import game_of

log = logging.getLogger(__name__)

LANE = "webhooks"
PENDING_TTL = 60
JOB_TIMEOUT = 60


class RqDeliveries:
    """The service's after_append on Redis: asks the webhooks' lane to deliver a game's news."""

    def __init__(self, webhooks: WebhooksFor, config: Config):
        from service.adapters.redis_client import connect

        self.webhooks = webhooks(self.game_changed)
        self.connection = connect(config.rq_url)
        self.queue = Queue(config.lane_queue(LANE), connection=self.connection)
        self.prefix = config.redis_prefix

    def __call__(self, stream: str) -> None:
        if stream.startswith("game-") and self.webhooks.has_subscriptions():
            self.game_changed(game_of(stream))

    def pending_key(self, game_id: str, sub_id: str = "") -> str:
        return f"{self.prefix}:webhooks:pending:{game_id}:{sub_id}"

    def game_changed(self, game_id: str) -> None:
        try:
            if self.connection.set(self.pending_key(game_id), "1", nx=True, ex=PENDING_TTL):
                self.queue.enqueue("service.running.lane_jobs.fan_out_job", game_id, job_timeout=JOB_TIMEOUT,
                                   result_ttl=60, job_id=job_safe(f"{self.prefix}-webhooks-{game_id}-"
                                                                  f"{self.connection.incr(self.prefix + ':wh:n')}"),
                                   description=f"webhooks of game {game_id}")
        except Exception:  # the append is stored; the next append or a replay asks again
            log.exception("could not enqueue the webhooks of game %s", game_id)

    def fan_out(self, game_id: str) -> int:
        self.connection.delete(self.pending_key(game_id))
        targets = self.webhooks.targets(self.webhooks.loader.load(game_id))
        for sub_id in targets:
            if self.connection.set(self.pending_key(game_id, sub_id), "1", nx=True, ex=PENDING_TTL):
                self.queue.enqueue("service.running.lane_jobs.deliver_job", sub_id, game_id, job_timeout=JOB_TIMEOUT,
                                   result_ttl=60, description=f"webhook {sub_id} of game {game_id}")
        return len(targets)

    def deliver(self, sub_id: str, game_id: str) -> None:
        self.connection.delete(self.pending_key(game_id, sub_id))
        retry = self.webhooks.deliver(sub_id, game_id)
        if retry is not None:  # one waiting retry per pair: its job id says which
            self.queue.enqueue_in(timedelta(seconds=retry), "service.running.lane_jobs.deliver_job", sub_id, game_id,
                                  job_timeout=JOB_TIMEOUT, result_ttl=60,
                                  job_id=job_safe(f"{self.prefix}-webhook-retry-{sub_id}-{game_id}"),
                                  description=f"retry webhook {sub_id} of game {game_id}")
