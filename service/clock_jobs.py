"""The timeout job an RQ worker runs at a clock's deadline (``service.clocks``), and the
sweep a worker runs when it starts. A job carries ids only: the game, the seat and the
version of the clock's ``ClockStarted``."""

from __future__ import annotations

from typing import Any

from service import job_runtime
from service.config import Config

_service: Any = None


def _the_service(config: Config | None = None) -> Any:
    """The worker's service (RQ mode: its appends enqueue projections, webhooks and clocks),
    built from the worker's configuration at its start (``sweep``), else from the environment."""
    global _service
    if _service is None or config is not None:
        from service.bootstrap import build_service

        _service = build_service(config or job_runtime.config())
    return _service


def timeout_job(game_id: str, seat: int, version: int) -> str:
    service = _the_service()
    again = service.time_out(game_id, seat, version)
    if again is not None:  # not due yet (a clock of another process ran fast): come back then
        service.timeouts.later(again, (game_id, seat, version))
        return "not yet"
    return "done"


def sweep(config: Config) -> int:
    """Schedule the timeout of every running clock (a worker's start)."""
    return int(_the_service(config).timeouts.sweep())
