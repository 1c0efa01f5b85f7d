"""The configuration an RQ worker was started with, for the jobs it runs.

``python -m service worker`` records it at start (``configure``); a job run by a plain
``rq worker`` reads the environment instead."""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import sys
from collections.abc import Callable
from functools import cache

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


def be_nice(niceness: int, idle: bool = False) -> None:
    """Run this process (and the threads and processes it starts after) at a lower priority: a
    bot's search gives way to web requests, clocks and webhooks when the cores are busy.
    ``idle``: also under Linux's idle scheduling policy, where a search runs only on a core
    that nothing else wants (a waking web worker preempts it at once); elsewhere niceness only."""
    log = logging.getLogger(__name__)
    if niceness > 0:
        try:
            os.nice(niceness)
        except OSError:  # not allowed here: at the same priority, as before
            log.warning("could not lower this process's priority by %d", niceness)
    if idle and hasattr(os, "SCHED_IDLE"):
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        except OSError:
            log.warning("could not run this process under the idle scheduling policy")


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none (musl, macOS)."""
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None


def give_back_free_memory() -> bool:
    """Hand the C heap's free pages back to the system (glibc's ``malloc_trim(0)``, all arenas).

    A long-running worker frees what it allocates, but glibc keeps freed pages in the heap of
    the thread that used them, and the buffers a job churns through (orjson's 4-64 kB outputs,
    libpq's results) leave holes that a later allocation rarely fits: the process's RSS creeps
    up for hours with nothing held. Python's own allocator is not concerned (it returns its
    arenas itself). The lanes' sweep calls this every round; it takes a few milliseconds (4 ms
    median in a process of the web's size here, 20 ms the first time).
    False: not on glibc (nothing done)."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
