"""What a worker process holds for the jobs it runs: the configuration it was started with
and a game service built from it once.

``python -m service worker`` records its configuration at start (``configure``); a job run
by a plain ``rq worker`` reads the environment instead. The service is the worker's own
(RQ mode: its appends enqueue the projections', webhooks', clocks' and bots' jobs)."""

from __future__ import annotations

import logging
import sys
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


def log_to_stderr() -> None:
    """The service's own log lines (a bot's ``bot-decision``, a lane's warnings) on stderr,
    at INFO, beside RQ's: a worker or background process is watched through its log."""
    logger = logging.getLogger("service")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
