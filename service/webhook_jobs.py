"""Webhooks on RQ: an append enqueues one job for its game, a retry is a scheduled job.

A job carries ids only (a game, a subscription). At most one fan-out job per game waits in
the queue (a ``pending`` flag set with ``SET NX`` and a TTL, cleared as the job starts, as
for projections). A delivery that must wait for its backoff is enqueued with
``enqueue_in``: the worker's scheduler (``python -m service worker`` runs it unless
``--no-scheduler``) moves it to the queue when it is due.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from rq import Queue

from service import job_runtime
from service.config import Config
from service.envelopes import game_of
from service.rq_projections import job_safe
from service.webhooks import Webhooks, WebhookSettings

log = logging.getLogger(__name__)

PENDING_TTL = 60
JOB_TIMEOUT = 300


class RqDeliveries:
    """The service's after_append on Redis: asks the workers to deliver a game's news."""

    def __init__(self, webhooks: Webhooks, config: Config):
        from service.adapters.redis_client import connect

        self.webhooks = webhooks
        self.connection = connect(config.rq_url)
        self.queue = Queue(config.queue_name, connection=self.connection)
        self.prefix = config.redis_prefix
        webhooks.wake = self.game_changed

    def __call__(self, stream: str) -> None:
        if stream.startswith("game-") and self.webhooks.has_subscriptions():
            self.game_changed(game_of(stream))

    def pending_key(self, game_id: str) -> str:
        return f"{self.prefix}:webhooks:pending:{game_id}"

    def game_changed(self, game_id: str) -> None:
        try:
            if self.connection.set(self.pending_key(game_id), "1", nx=True, ex=PENDING_TTL):
                self.queue.enqueue("service.webhook_jobs.fan_out_job", game_id, job_timeout=JOB_TIMEOUT,
                                   result_ttl=60, job_id=job_safe(f"{self.prefix}-webhooks-{game_id}-"
                                                                  f"{self.connection.incr(self.prefix + ':wh:n')}"),
                                   description=f"webhooks of game {game_id}")
        except Exception:  # the append is stored; the next append or a replay asks again
            log.exception("could not enqueue the webhooks of game %s", game_id)

    def deliver(self, sub_id: str, game_id: str) -> None:
        retry = self.webhooks.deliver(sub_id, game_id)
        if retry is not None:
            self.queue.enqueue_in(timedelta(seconds=retry), "service.webhook_jobs.deliver_job", sub_id, game_id,
                                  job_timeout=JOB_TIMEOUT, result_ttl=60,
                                  description=f"retry webhook {sub_id} of game {game_id}")


_deliveries: RqDeliveries | None = None


def _runtime() -> RqDeliveries:
    """The worker's webhooks, built once per process from its configuration."""
    global _deliveries
    if _deliveries is None:
        from domain.games import default_registry
        from service.loading import GameLoader
        from service.stores import open_store

        config = job_runtime.config()
        store = open_store(config)
        webhooks = Webhooks(store, GameLoader(store, default_registry()), WebhookSettings.from_config(config))
        _deliveries = RqDeliveries(webhooks, config)
    return _deliveries


def fan_out_job(game_id: str) -> int:
    """Deliver the game's news to every subscription that covers it."""
    deliveries = _runtime()
    deliveries.connection.delete(deliveries.pending_key(game_id))
    targets = deliveries.webhooks.targets(deliveries.webhooks.loader.load(game_id))
    for sub_id in targets:
        deliveries.deliver(sub_id, game_id)
    return len(targets)


def deliver_job(sub_id: str, game_id: str) -> None:
    _runtime().deliver(sub_id, game_id)
