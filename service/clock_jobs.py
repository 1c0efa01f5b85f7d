"""The clocks' lane of the RQ workers: the timeout job run at a clock's deadline
(``service.clocks``), and the sweep the lane runs when it starts. A job carries ids only:
the game, the seat and the version of the clock's ``ClockStarted``."""

from __future__ import annotations

from service import job_runtime
from service.config import Config

LANE = "clocks"


def timeout_job(game_id: str, seat: int, version: int) -> str:
    service = job_runtime.service()
    again = service.time_out(game_id, seat, version)
    if again is not None:  # not due yet (RQ's scheduler keeps whole seconds): come back then
        service.timeouts.later(again, (game_id, seat, version))
        return "not yet"
    return "done"


def sweep(config: Config) -> int:
    """Schedule the timeout of every running clock (the lane's start)."""
    job_runtime.configure(config)
    return int(job_runtime.service().timeouts.sweep())
