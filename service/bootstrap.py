"""Wires the service from a Config: the store for its URL, the games, the projections."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from domain.kernel import GameRules
from service.adapters.store import EventStore
from service.bot_seats import BotSeats, Driver, ThreadDriver, sweep
from service.clocks import InProcessTimeouts, RqTimeouts
from service.config import Config
from service.inline_projections import InlineProjections
from service.projections_runner import ProjectionRunner
from service.read_models import ReadModels
from service.services import GameService
from service.stores import open_store
from service.webhooks import InProcessDeliveries, Webhooks, WebhookSettings


def _nothing(stream: str) -> None:
    """An append's projections when others tail the log (RQ workers, the SQLite projector)."""


def build_service(config: Config, registry: Mapping[str, GameRules] | None = None,
                  store: EventStore | None = None) -> GameService:
    if registry is None:
        from domain.games import default_registry

        registry = default_registry()
    store = store or open_store(config)
    runner = ProjectionRunner(store, batch_size=config.projection_batch,
                              save_every=config.projection_save_every, pause=config.projection_pause)
    after_append: Callable[[str], None]
    jobs = None
    if config.projections == "rq":  # workers keep the read models; an append enqueues their jobs
        from service.rq_projections import RqProjections

        if config.projection_feed not in ("tail", "jobs"):
            raise ValueError(f"unknown projection feed {config.projection_feed!r}: use tail or jobs")
        jobs = RqProjections.from_config(config, runner.names)
        # "tail": the workers tail the log, an append asks nothing (``service.worker.tail``)
        after_append = jobs if config.projection_feed == "jobs" else _nothing
        read_models = ReadModels(runner, catch_up_on_read=False, mode="rq")
    elif config.projections == "inline":  # each append catches the read models up in-process
        path = getattr(store, "path", None)  # SQLite: one catch-up at a time across the web processes
        if config.inline_projector == "process":  # a projector process catches up (service.projector)
            after_append = _nothing
        else:
            after_append = InlineProjections(runner, lock_path=f"{path}.projections.lock" if path else None)
        read_models = ReadModels(runner, catch_up_on_read=True, mode="inline")
    else:
        raise ValueError(f"unknown projections mode {config.projections!r}: use inline or rq")
    driver: Driver
    if config.projections == "rq":  # bot moves are RQ jobs too, run by the workers
        from service.rq_bots import RqDriver

        driver = RqDriver.from_config(config)
    else:  # a worker thread of this process plays the bot seats
        driver = ThreadDriver(config.bot_think_seconds)
    service = GameService(store, registry, snapshot_every=config.snapshot_every, after_append=after_append,
                          read_models=read_models, signing_keys=config.signing_keys,
                          max_waiting_games=config.limit_waiting_games_per_player, stream_poll=config.stream_poll,
                          bots=BotSeats(driver))
    service.webhooks = Webhooks(store, service.loader, WebhookSettings.from_config(config))
    if config.projections == "rq":  # the workers deliver, and their scheduler runs the retries
        from service.webhook_jobs import RqDeliveries

        service.deliveries = RqDeliveries(service.webhooks, config)
    else:  # a thread of this process delivers
        service.deliveries = InProcessDeliveries(service.webhooks)
    if config.projections == "rq":  # the workers' scheduler runs the timeouts
        service.timeouts = RqTimeouts(service, config)
    else:
        service.timeouts = InProcessTimeouts(service)
        service.timeouts.sweep()
    service.job_queue = jobs.connection if jobs is not None else None
    projections = service.appender.after_append

    def after_each_append(stream: str) -> None:
        projections(stream)
        service.deliveries(stream)
        service.timeouts(stream)

    service.appender.after_append = after_each_append
    if isinstance(driver, ThreadDriver):
        driver.attach(service)
        sweep(service, driver)  # moves a stopped server owed its bot seats
    return service
