"""The configuration an RQ worker was started with, for the jobs it runs.

``python -m service worker`` records it at start (``configure``); a job run by a plain
``rq worker`` reads the environment instead."""

from __future__ import annotations

import logging
import os
import sys

from service.base.config import Config

_config: Config | None = None


def configure(config: Config) -> None:
    global _config
    _config = config


def config() -> Config:
    return _config or Config.from_env()


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


def be_nice(niceness: int) -> None:
    """Run this process (and the threads and processes it starts) at a lower priority: a
    bot's search gives way to web requests, clocks and webhooks when the cores are busy."""
    if niceness > 0:
        try:
            os.nice(niceness)
        except OSError:  # not allowed here: at the same priority, as before
            logging.getLogger(__name__).warning("could not lower this process's priority by %d", niceness)
