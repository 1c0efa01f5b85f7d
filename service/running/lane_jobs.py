"""The jobs of the clocks', bots' and webhooks' lanes, as an RQ worker runs them, on a game service of
the worker's own (``the_service``: its appends enqueue the other lanes' jobs). A job carries
ids and plain data only: a clock's game, seat and the version of its ``ClockStarted`` (its
timeout, or its reminder at 80%); a
bot's game and when it was prompted, or the decision it is to play (``Decision.to_job``)."""

from __future__ import annotations

from typing import Any

from service.background import job_runtime
from service.background.bot_seats import Decision, move, play, prompted_bots, sweep
from service.background.clocks import WARN
from service.background.rq_bots import RqDriver
from service.background.webhook_jobs import RqDeliveries
from service.background.webhooks import Webhooks, WebhookSettings
from service.base.config import Config

_service: Any = None
_built_for: Config | None = None


def the_service() -> Any:
    """The worker's game service, built on first use from its configuration."""
    global _service, _built_for
    config = job_runtime.config()
    if _service is None or _built_for != config:
        from service.wiring.bootstrap import build_service

        _service, _built_for = build_service(config), config
    return _service


# -- the clocks' lane --------------------------------------------------------------------
def timeout_job(game_id: str, seat: int, version: int) -> str:
    service = the_service()
    again = service.time_out(game_id, seat, version)
    if again is not None:  # not due yet (RQ's scheduler keeps whole seconds): come back then
        service.timeouts.later(again, (game_id, seat, version))
        return "not yet"
    return "done"


def warn_job(game_id: str, seat: int, version: int) -> str:
    """The reminder at 80% of a clock run (``GameService.warn_clock``)."""
    service = the_service()
    again = service.warn_clock(game_id, seat, version)
    if again is not None:  # not due yet (RQ's scheduler keeps whole seconds): come back then
        service.timeouts.later(again, (WARN, game_id, seat, version))
        return "not yet"
    return "done"


def sweep_clocks(config: Config) -> int:
    """Schedule the timeout of every running clock (the lane's start)."""
    job_runtime.configure(config)
    return int(the_service().timeouts.sweep())


# -- the bots' lane ----------------------------------------------------------------------
def _driver() -> RqDriver:
    return RqDriver.from_config(job_runtime.config())


def bot_move_job(game_id: str, prompted_at: float | None = None) -> str:
    """Decide the move of a prompted bot seat of ``game_id``; play it now if its think time
    is over, else schedule its play."""
    config = job_runtime.config()
    return move(the_service(), game_id, config.bot_think_seconds, prompted_at=prompted_at, keep=_driver().play_at)


def bot_play_job(job: dict) -> str:
    """Play a decision whose think time is over; decide again if the game moved on."""
    decision = Decision.from_job(job)
    service = the_service()
    if play(service, decision):
        return "played"
    game = service.load(decision.game_id)
    if prompted_bots(game):
        _driver().request(game.id, game.version)
    return "decide again"


#: the games the last bots' sweep of this worker found waiting for a person, with their versions
#: (``bot_seats.sweep``: not loaded again until they move)
_waiting_for_people: dict[str, int] = {}


def sweep_bots(config: Config) -> int:
    """Ask for every bot move a lost job left undone (the lane's start and its sweeps)."""
    job_runtime.configure(config)
    return sweep(the_service(), RqDriver.from_config(config), _waiting_for_people)


# -- the webhooks' lane ------------------------------------------------------------------
_deliveries: RqDeliveries | None = None


def _webhook_deliveries() -> RqDeliveries:
    """The worker's webhooks, built once per process from its configuration."""
    global _deliveries
    if _deliveries is None:
        from domain.games import default_registry
        from service.streams.loading import GameLoader
        from service.wiring.stores import open_store

        config = job_runtime.config()
        store = open_store(config)
        loader, settings = GameLoader(store, default_registry()), WebhookSettings.from_config(config)
        _deliveries = RqDeliveries(lambda wake: Webhooks(store, loader, settings, wake=wake), config)
    return _deliveries


def fan_out_job(game_id: str) -> int:
    """One delivery job for each subscription that covers the game."""
    return _webhook_deliveries().fan_out(game_id)


def deliver_job(sub_id: str, game_id: str) -> None:
    _webhook_deliveries().deliver(sub_id, game_id)
