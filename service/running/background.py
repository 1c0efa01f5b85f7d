"""The embedded store's background work in a process of its own: bot seats, turn clocks and
webhooks (``python -m service background``; ``serve`` on SQLite starts and supervises it).

The web processes run none of it (``Config.background`` "process"): a bot's search, a
receiver that answers slowly or a clock's timer never waits on, or holds up, a web answer.
This process learns of every append by tailing the store's log (as the projector does),
and hands each game that moved to its runners, each with threads of its own so that no lane
holds up another: the clocks' timer thread (``service.background.clocks.InProcessTimeouts``), the
webhooks' delivery threads (``service.background.webhooks.InProcessDeliveries``, one slow receiver
holds one of them for at most a delivery's deadline) and the bots' lane
(``service.background.bot_seats.BotLane``), whose searches run in a pool of processes sized to the
machine (``DecisionPool``: neither the reads of a decision nor its search hold this
process's GIL).

What it owes survives it: running clocks and games with bot seats are kept in store sets
and swept when it starts; webhook deliveries are journalled per subscription and game.
A decision is played under its idempotency key, so one killed mid-move is never played twice.
"""

from __future__ import annotations

import dataclasses
import logging
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from service.adapters.store import VersionConflict
from service.background import job_runtime
from service.background.bot_seats import Decision, decide, decide_here, search_here
from service.base.config import Config
from service.streams.envelopes import game_of, stream_of

log = logging.getLogger(__name__)

#: the longest the tail waits for an append before it looks again anyway
WAIT = 1.0
#: log entries read per partition at a time
BATCH = 1000
#: the name of the tail's checkpoint in the store (as a projection's, with no rows)
CHECKPOINT = "background-tail"


def run_background(config: Config, stop: threading.Event | None = None) -> None:
    from service.wiring.bootstrap import build_service

    job_runtime.log_to_stderr()
    config = dataclasses.replace(config, background="thread")  # its runners are threads of this process
    decisions = DecisionPool(config, config.bot_search_processes)
    # two lane threads per decision process: while one plays a decided move (its append here),
    # the other has the next decision searched, so no decision process waits on an append
    service = build_service(config, decider=decisions, bot_threads=2 * decisions.processes)
    log.info("background work of %s: bots (%d decision processes), clocks, webhooks", config.store_url,
             decisions.processes)
    try:
        follow(service, stop)
    finally:
        decisions.close()


def follow(service: Any, stop: threading.Event | None = None) -> None:
    """Hand every game that moves (by any process) to this process's runners, until ``stop``.

    How far it has read is a checkpoint in the store (``CHECKPOINT``), saved after each batch
    it handed on: a background process killed and started again goes on from there, so the
    appends made while it was down are acted on too (the webhooks they owe among them). At the
    first start of all it begins at the log's head (the sweeps cover bots and clocks)."""
    store = service.store
    saved = store.load_checkpoints(CHECKPOINT)
    heads = dict(saved) if saved is not None else store.log_heads()
    if saved is None:
        store.save_rows(CHECKPOINT, heads, None, [], [])
    saved = dict(heads)
    while stop is None or not stop.is_set():
        try:
            store.wait_for_log(heads, WAIT)
            now = store.log_heads()
            reads = {p: (heads.get(p, 0), BATCH) for p, head in now.items() if head > heads.get(p, 0)}
            if not reads:
                continue
            streams: dict[str, list[Any]] = {}
            for partition, records in store.read_logs(reads).items():
                for record in records:
                    streams.setdefault(record.stream, []).append(record)
                if records:
                    heads[partition] = records[-1].position
            for stream, records in streams.items():
                news(service, stream, records)
            store.save_rows(CHECKPOINT, heads, saved, [], [])
            saved = dict(heads)
        except Exception:  # never let the tail die: it reads again from its stored checkpoint
            log.exception("the background tail failed; looking again in 1 s")
            if stop is not None and stop.wait(1):
                return
            saved = store.load_checkpoints(CHECKPOINT) or saved
            heads = dict(saved)


def news(service: Any, stream: str, records: list[Any]) -> None:
    """What a stream's new entries ask of the runners."""
    if stream.startswith("game-"):
        game = service.load(game_of(stream))  # read past this process's cache: another process appended
        service.deliveries(stream)
        if service.timeouts is not None:
            service.timeouts(stream)
        service.bots(game)
    elif stream.startswith("webhook-") and "-" not in stream[len("webhook-"):]:
        service.webhooks.subscriptions_changed()  # a subscription made or ended by a web process
    elif stream.startswith("webhook-") and any(r.event.get("type") == "WebhookReplayed" for r in records):
        _, game_id = stream[len("webhook-"):].split("-", 1)  # a dead letter asked for again
        service.webhooks.wake(game_id)


# -- the bots' decisions, in processes of their own ----------------------------------------
_child: Any = None


def _start_child(config: Any) -> None:
    """A decision process's own service, which only reads (it appends nothing)."""
    from service.wiring.bootstrap import build_service

    global _child
    job_runtime.log_to_stderr()  # its bot-decision lines, as its parent's
    job_runtime.be_nice(config.bot_nice, config.bot_idle)
    _child = build_service(dataclasses.replace(config, background="process"))


def _decide_in_child(game_id: str, think: float, prompted_at: float | None) -> tuple[str, dict[str, Any] | None]:
    """``decide`` in a pool's process: plain data out (neither an exception's extra fields nor
    the compiled engine's classes need pickle)."""
    try:
        decision = decide(_child, game_id, think, search_here, prompted_at)
    except VersionConflict:  # the game moved on while the bot read it
        return "conflict", None
    return ("decided", decision.to_job()) if decision is not None else ("nothing", None)


class DecisionPool:
    """Bots' decisions in a pool of processes (``processes``; 0: one per core), each with a
    service of its own on the same store: the reads of what the seat sees and the search both
    run there, so a decision holds neither a web request nor the clocks' and webhooks'
    threads (which share the GIL of their process), and decisions run side by side on every
    core. Games of the default registry only; others (a test's own) are decided here."""

    def __init__(self, config: Any, processes: int = 0):
        self.config = config
        self.processes = processes or os.cpu_count() or 1
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def __call__(self, service: Any, game_id: str, think: float, prompted_at: float | None) -> Decision | None:
        from domain.games import default_registry

        game = service.load(game_id, trust_cache=True)
        if type(default_registry().get(game.table.game_type)) is not type(game.rules):
            return decide_here(service, game_id, think, prompted_at)
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(self.processes, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=_start_child, initargs=(self.config,))
            pool = self._pool
        try:
            outcome, job = pool.submit(_decide_in_child, game_id, think, prompted_at).result()
        except BrokenProcessPool:  # a decision process was killed: a new pool for the next one
            with self._lock:
                if self._pool is pool:
                    self._pool = None
            raise
        if outcome == "conflict":
            raise VersionConflict(stream_of(game_id), -1, -1)  # it moved on while the bot read it
        return Decision.from_job(job) if job is not None else None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
