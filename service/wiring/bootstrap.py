"""The composition root: the service built from a Config, every collaborator given at
construction (no attribute of a built object is set afterwards: ``tests/unit/service/
test_composition_root.py``). The one place that knows the deployment's shape: the store for
its URL, who keeps the read models (``_projections``), and who runs the background work
(bots, clocks, webhooks; ``_Background``): the lanes of the RQ workers, threads of this
process, or nobody here (the background process of the embedded store does)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from domain.kernel import GameRules
from service.adapters.store import EventStore
from service.background.bot_seats import THREADS, BotLane, BotTables, Decider, Driver, decide_here, sweep
from service.background.clocks import ClockedGames, InProcessTimeouts, RqTimeouts, Timeouts
from service.background.inline_projections import InlineProjections
from service.background.projections_runner import ProjectionRunner
from service.background.read_models import ReadModels
from service.background.webhooks import InProcessDeliveries, Webhooks, WebhookSettings, WebhooksFor
from service.base.config import Config
from service.play.services import GameService
from service.players.player_feed import PlayerFeed
from service.players.players import Players
from service.streams.appending import Clock
from service.streams.loading import GameLoader
from service.wiring.stores import open_store

if TYPE_CHECKING:
    from redis import Redis

    from service.background.webhook_jobs import RqDeliveries

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
    """The composition root: every collaborator of the service, built for the deployment's
    shape and given at construction. ``decider``: how this process's bot lane has a bot
    decide (here, in the lane's thread; the background process passes a pool of processes,
    and ``bot_threads`` to keep it busy)."""
    if registry is None:
        from domain.games import default_registry

        registry = default_registry()
    store = store or open_store(config)
    runner = ProjectionRunner(store, batch_size=config.projection_batch,
                              save_every=config.projection_save_every, pause=config.projection_pause)
    after_append, read_models, job_queue = _projections(config, store, runner)
    loader, clock = GameLoader(store, registry, snapshot_every=config.snapshot_every), Clock()
    background = _Background(config, background_mode(config), store, loader, clock, decider, bot_threads)
    service = GameService(store, registry, loader=loader, clock=clock, players=Players(store),
                          feed=PlayerFeed(store, clock), after_append=after_append,
                          read_models=read_models, signing_keys=config.signing_keys,
                          max_waiting_games=config.limit_waiting_games_per_player, stream_poll=config.stream_poll,
                          max_bot_games=config.limit_bot_games_per_player, webhooks=background.deliveries.webhooks,
                          deliveries=background.deliveries, timeouts=background.timeouts, bots=background.bots,
                          job_queue=job_queue)
    if isinstance(service.timeouts, InProcessTimeouts):
        service.timeouts.sweep()  # clocks a stopped server left running
    if isinstance(service.bots.driver, BotLane):
        sweep(service, service.bots.driver)  # moves a stopped server owed its bot seats
    return service


def _projections(config: Config, store: EventStore, runner: ProjectionRunner
                 ) -> tuple[Callable[[str], None], ReadModels, Redis | None]:
    """Who keeps the read models: an append's news for them, the read models, and the job
    queue's Redis (RQ) or None."""
    if config.projections == "rq":  # workers keep the read models; an append enqueues their jobs
        from service.background.rq_projections import RqProjections

        if config.projection_feed not in ("tail", "jobs"):
            raise ValueError(f"unknown projection feed {config.projection_feed!r}: use tail or jobs")
        jobs = RqProjections.from_config(config, runner.names)
        # "tail": the workers tail the log, an append asks nothing (``service.running.worker.tail``)
        return (jobs if config.projection_feed == "jobs" else _nothing,
                ReadModels(runner, catch_up_on_read=False, mode="rq"), jobs.connection)
    if config.projections == "inline":  # each append catches the read models up in-process
        read_models = ReadModels(runner, catch_up_on_read=True, mode="inline")
        if config.inline_projector == "process":  # a projector process catches up (service.running.projector)
            return _nothing, read_models, None
        path = getattr(store, "path", None)  # SQLite: one catch-up at a time across the web processes
        return InlineProjections(runner, lock_path=f"{path}.projections.lock" if path else None), read_models, None
    raise ValueError(f"unknown projections mode {config.projections!r}: use inline or rq")


class _Idle:
    """The runner of a deployment where another process delivers the webhooks: nothing here."""

    def __init__(self, webhooks: WebhooksFor):
        self.webhooks = webhooks(_nothing)

    def __call__(self, stream: str) -> None:
        """The background process acts on the append, from the log."""


class _Background:
    """Who runs the bots, clocks and webhooks in this deployment (``background_mode``): the
    lanes of the RQ workers, threads of this process, or nobody here. The clocks' and bots'
    runners act on the service, which tells them of each append: they are factories the
    service calls with itself as it is built."""

    def __init__(self, config: Config, mode: str, store: EventStore, loader: GameLoader, clock: Clock,
                 decider: Decider, bot_threads: int):
        self.config, self.mode, self.store, self.clock, self.decider = config, mode, store, clock, decider
        self.bot_threads = bot_threads
        settings = WebhookSettings.from_config(config)

        def webhooks(wake: Callable[[str], None]) -> Webhooks:
            return Webhooks(store, loader, settings, wake=wake)

        self.deliveries: InProcessDeliveries | RqDeliveries | _Idle
        if mode == "rq":  # the lanes' workers deliver and time out, their schedulers run the retries
            from service.background.webhook_jobs import RqDeliveries

            self.deliveries = RqDeliveries(webhooks, config)
        elif mode == "thread":
            self.deliveries = InProcessDeliveries(webhooks, config.webhook_threads)
        else:  # the background process does it, from the log
            self.deliveries = _Idle(webhooks)

    def timeouts(self, games: ClockedGames) -> Timeouts | None:
        if self.mode == "rq":
            return RqTimeouts(games, self.store, self.clock, self.config)
        if self.mode == "thread":
            return InProcessTimeouts(games, self.store, self.clock)
        return None

    def bots(self, games: BotTables) -> Driver | None:
        if self.mode == "rq":  # bot moves are jobs of the bots' lane
            from service.background.rq_bots import RqDriver

            return RqDriver.from_config(self.config)
        if self.mode == "thread":  # threads of this process play the bot seats
            return BotLane(games, self.config.bot_think_seconds, self.decider, self.bot_threads)
        return None
