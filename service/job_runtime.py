"""The configuration an RQ worker was started with, for the jobs it runs (webhooks, clocks).

``python -m service worker`` records it at start (``configure``); a job run by a plain
``rq worker`` reads the environment instead."""

from __future__ import annotations

from service.config import Config

_config: Config | None = None


def configure(config: Config) -> None:
    global _config
    _config = config


def config() -> Config:
    return _config or Config.from_env()
