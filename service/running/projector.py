"""The embedded mode's projections in a process of their own (SQLite under ``serve``).

Under gunicorn the web workers are gevent processes, and a SQLite call blocks the whole
worker: a catch-up run in a web worker (``InlineProjections``) holds up every request of
that worker meanwhile, which is most of a SQLite deployment's POST tail. With
``inline_projector`` = "process" (what ``serve`` sets for a SQLite store) an append asks
nothing: one projector process beside the workers (``python -m service project``, started
and stopped by gunicorn's master) tails the log and catches every projection up in big
slices, all of them together (one read of the log and one transaction a slice for every
projection: ``ProjectionRunner.catch_up_together``), under the same file lock as ever, so
at most one runner does it at a time.

Reads keep their guarantee: a read of a projection still applies a few pending events
itself first (``ReadModels``), so a client sees its own writes even if the projector is
behind, stopped or dead. A projector killed anywhere loses only its unsaved slice: the
checkpoints are stored with the rows (``service.background.projections_runner``). ``serve`` keeps it
running (``service.running.supervision.Supervised``): one that exits while the server runs (a crash, an out-of-
memory kill, a kill -9) is started again at once, then with a growing pause if it keeps dying.
"""

from __future__ import annotations

import fcntl
import logging
import time
from threading import Event

from service.background.projections_runner import ProjectionRunner
from service.base.config import Config

log = logging.getLogger(__name__)

#: events the projector applies per saved slice (a web worker's own slice is 20)
PROJECTOR_SLICE = 500
#: the longest it waits for an append before it looks again anyway
PROJECTOR_WAIT = 1.0
#: after a catch-up it lets appends gather this long before the next one (batches)
PROJECTOR_PAUSE = 0.2


def run_projector(config: Config, stop: Event | None = None) -> None:
    from service.wiring.stores import open_store

    store = open_store(config)
    runner = ProjectionRunner(store, batch_size=config.projection_batch, save_every=config.projection_save_every)
    path = getattr(store, "path", None)
    lock_path = f"{path}.projections.lock" if path else None
    while stop is None or not stop.is_set():
        try:
            heads = runner.heads()
            if lock_path is None:
                _catch_up(runner, heads)
            else:
                with open(lock_path, "a") as handle:
                    fcntl.flock(handle, fcntl.LOCK_EX)  # another runner's catch-up may hold it a moment
                    try:
                        _catch_up(runner, heads)
                    finally:
                        fcntl.flock(handle, fcntl.LOCK_UN)
            time.sleep(PROJECTOR_PAUSE)
            store.wait_for_log(heads, PROJECTOR_WAIT)
        except Exception:  # never let the projector die: the next round starts from the checkpoints
            log.exception("the projector failed; looking again in 1 s")
            time.sleep(1)


def _catch_up(runner: ProjectionRunner, heads: dict[int, int]) -> None:
    """Every projection up to ``heads``, together: one read of the log and one transaction
    per slice of ``PROJECTOR_SLICE`` events for all of them."""
    try:
        runner.catch_up_together(heads=heads, slice=PROJECTOR_SLICE)
    except Exception:  # logged; the others were caught up, the next round tries it again
        log.exception("a projection failed to catch up")
