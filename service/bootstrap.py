"""Wires the service from a Config: the store for its URL, the games, the projections, and
who runs the background work (bots, clocks, webhooks): the lanes of the RQ workers, threads
of this process, or nobody here (the background process of the embedded store does)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from domain.kernel import GameRules
from service.adapters.store import EventStore
from service.bot_seats import THREADS, BotLane, BotSeats, Decider, Driver, decide_here, sweep
from service.clocks import InProcessTimeouts, RqTimeouts
from service.config import Config
from service.inline_projections import InlineProjections
from service.projections_runner import ProjectionRunner
from service.read_models import ReadModels
from service.services import GameService
from service.stores import open_store
from service.webhooks import InProcessDeliveries, Webhooks, WebhookSettings


def _nothing(stream: str) -> None:
    """An append's news when others act on it (RQ workers, the embedded background process)."""


def background_mode(config: Config) -> str:
    """Who runs the bots, clocks and webhooks: "rq" (the workers' lanes), "process" (the
    embedded store's background process: none of it here) or "thread" (threads of this process)."""
    if config.projections == "rq":
        return "rq"
    if config.background not in ("", "thread", "process"):
        raise ValueError(f"unknown background mode {config.background!r}: use thread or process")
    if config.webhook_threads < 1 or config.bot_search_processes < 0:
        raise ValueError("GAMES_WEBHOOK_THREADS must be at least 1 and GAMES_BOT_SEARCH_PROCESSES at least 0 "
                         "(0: one per core)")
    return config.background or "thread"


def build_service(config: Config, registry: Mapping[str, GameRules] | None = None,
                  store: EventStore | None = None, decider: Decider = decide_here,
                  bot_threads: int = THREADS) -> GameService:
    """``decider``: how this process's bot lane has a bot decide (here, in the lane's thread;
    the background process passes a pool of processes, and ``bot_threads`` to keep it busy)."""
    if registry is None:
        from domain.games import default_registry

        registry = default_registry()
    store = store or open_store(config)
    runner = ProjectionRunner(store, batch_size=config.projection_batch,
                              save_every=config.projection_save_every, pause=config.projection_pause)
    mode = background_mode(config)
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
    driver: Driver | None = None
    if mode == "rq":  # bot moves are jobs of the bots' lane
        from service.rq_bots import RqDriver

        driver = RqDriver.from_config(config)
    elif mode == "thread":  # threads of this process play the bot seats
        driver = BotLane(config.bot_think_seconds, decider, bot_threads)
    service = GameService(store, registry, snapshot_every=config.snapshot_every, after_append=after_append,
                          read_models=read_models, signing_keys=config.signing_keys,
                          max_waiting_games=config.limit_waiting_games_per_player, stream_poll=config.stream_poll,
                          bots=BotSeats(driver), max_bot_games=config.limit_bot_games_per_player)
    service.webhooks = Webhooks(store, service.loader, WebhookSettings.from_config(config))
    if mode == "rq":  # the lanes' workers deliver and time out, their schedulers run the retries
        from service.webhook_jobs import RqDeliveries

        service.deliveries = RqDeliveries(service.webhooks, config)
        service.timeouts = RqTimeouts(service, config)
    elif mode == "thread":
        service.deliveries = InProcessDeliveries(service.webhooks, config.webhook_threads)
        service.timeouts = InProcessTimeouts(service)
        service.timeouts.sweep()
    else:  # the background process does it, from the log
        service.deliveries = _nothing
        service.timeouts = _nothing
    service.job_queue = jobs.connection if jobs is not None else None
    projections = service.appender.after_append

    def after_each_append(stream: str) -> None:
        projections(stream)
        service.deliveries(stream)
        service.timeouts(stream)

    service.appender.after_append = after_each_append
    if isinstance(driver, BotLane):
        driver.attach(service)
        sweep(service, driver)  # moves a stopped server owed its bot seats
    return service
