"""What a worker process holds for the jobs it runs: the configuration it was started with
and a game service built from it once.

``python -m service worker`` records its configuration at start (``configure``); a job run
by a plain ``rq worker`` reads the environment instead. The service is the worker's own
(RQ mode: its appends enqueue the projections', webhooks', clocks' and bots' jobs)."""

from __future__ import annotations

from typing import Any

from service.config import Config

_config: Config | None = None
_service: Any = None


def configure(config: Config) -> None:
    global _config, _service
    if config != _config:
        _config, _service = config, None


def config() -> Config:
    return _config or Config.from_env()


def service() -> Any:
    """The worker's game service, built on first use."""
    global _service
    if _service is None:
        from service.bootstrap import build_service

        _service = build_service(config())
    return _service
