"""Turn clocks, the service's side: the timeouts (the clock events of each append are
``service.streams.clock_rules``'s; a started clock is named by the version of its ``ClockStarted`` event).

A timeout is work scheduled for that deadline and carries the game, the seat and that
version (``GameService.time_out``); the reminder at 80% of the run is scheduled beside it
the same way (``GameService.warn_clock``, a key that starts with ``WARN``). It acts only if that very clock still runs: a seat
that moved in time stopped it, and a second run of the same timeout (a worker killed and
restarted, two runners) finds it stopped by the first, whose append won the version.
On the embedded store a timer thread runs them (in the background process ``serve``
supervises: ``service.running.background``); with RQ workers they are ``enqueue_in`` jobs on the
clocks' lane, which no bot or webhook shares. Games with running clocks are kept
in a set (``clocks:running``) that each runner sweeps when it starts, so no deadline is
lost with a process.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Hashable
from datetime import datetime, timedelta
from typing import Any, Protocol

from domain.kernel.clocks import warn_at
from service.background.timers import TimerThread
from service.streams.clock_rules import deadline_in
from service.streams.envelopes import game_of, stream_of
from service.streams.game import Game

log = logging.getLogger(__name__)

RUNNING = "clocks:running"

#: a timeout's or reminder's key (``_parts``) with its deadline (ISO 8601)
Due = tuple[tuple[Any, ...], str]


class ClockedGames(Protocol):
    """What the timeouts need of the game service: its games, and the two acts of a clock
    (``GameService.time_out`` and ``warn_clock``), each the seconds until it is due again or None."""

    def load(self, game_id: str, at: int | None = None, *, trust_cache: bool = False, known_version: int = 0
             ) -> Game: ...

    def time_out(self, game_id: str, seat: int, started_version: int) -> float | None: ...

    def warn_clock(self, game_id: str, seat: int, started_version: int) -> float | None: ...


class ClockSets(Protocol):
    """The store's sets the timeouts keep their games in (``RUNNING``)."""

    def set_add(self, name: str, member: str) -> None: ...

    def set_remove(self, name: str, member: str) -> None: ...

    def set_members(self, name: str) -> list[str]: ...

    def versions(self, streams: list[str]) -> list[int]: ...


class Now(Protocol):
    def now(self) -> datetime: ...


class Timeouts:
    """Schedules the timeout of every running clock after each append of a game with clocks.
    ``run(key)`` is the runner's way of acting: (game, seat, version) -> seconds until it is
    due again, or None. ``later(delay, key)`` schedules it (a timer thread, or RQ).
    ``games``: the game service, which is given its timeouts as it is built (it builds them
    with ``games=self``: ``service.wiring.bootstrap``)."""

    def __init__(self, games: ClockedGames, store: ClockSets, clock: Now, later: Callable[[float, Hashable], None]):
        self.games = games
        self.store = store
        self.clock = clock
        self.later = later
        #: the keys scheduled by this process: timeouts and reminders (``_parts``)
        self._scheduled: set[tuple[Any, ...]] = set()
        #: what the last sweep found of each game: its version, and its keys with their deadlines
        #: (``sweep`` schedules a game that has not moved again from these, without loading it)
        self._swept: dict[str, tuple[int, list[Due]]] = {}

    def __call__(self, stream: str) -> None:  # the service's after_append
        if not stream.startswith("game-"):
            return
        try:
            game = self.games.load(game_of(stream), trust_cache=True)
            if game.table.has_clock:
                self.schedule(game)
        except Exception:  # the append is stored; the sweep at the next start schedules it
            log.exception("could not schedule the clocks of %s", stream)

    def schedule(self, game: Game) -> None:
        dues = self.dues(game)
        if dues:
            self.store.set_add(RUNNING, game.id)
        else:
            self.store.set_remove(RUNNING, game.id)
        self._schedule(dues)

    @staticmethod
    def dues(game: Game) -> list[Due]:
        """The game's timeouts and reminders: each key with its deadline (none for a game over)."""
        if game.over:
            return []
        bots = game.table.bot_seats()
        dues: list[Due] = []
        for seat, run in game.table.clocks.running.items():
            dues.append(((game.id, seat, run.started_version), run.deadline))
            if not run.warned and seat not in bots:  # the reminder at 80% (none for a bot)
                dues.append(((WARN, game.id, seat, run.started_version), warn_at(run.since, run.deadline)))
        return dues

    def _schedule(self, dues: list[Due]) -> None:
        now = self.clock.now()
        for key, deadline in dues:
            if key not in self._scheduled:
                self._scheduled.add(key)
                self.later(max(0.0, deadline_in(deadline, now)), key)

    def sweep(self) -> int:
        """Schedule every running clock again (a runner's start: deadlines outlive processes; and
        the clocks' worker's sweeps: a timeout whose scheduling failed comes back).

        Which clocks run, and their deadlines, follow from the game's events alone, so a game
        whose version has not moved since the last sweep is scheduled again from what that sweep
        found, without loading it: the versions of all the games are read at once (in one round
        trip a thousand games where the store can), and only the games that moved are loaded."""
        self._scheduled.clear()
        games = list(self.store.set_members(RUNNING))
        known = self._swept
        versions = self.store.versions([stream_of(game_id) for game_id in games]) if known else [0] * len(games)
        swept: dict[str, tuple[int, list[Due]]] = {}
        for game_id, version in zip(games, versions, strict=True):
            found = known.get(game_id)
            if version and found is not None and found[0] == version:
                dues = found[1]
            else:
                try:
                    game = self.games.load(game_id)
                except Exception:
                    log.exception("could not schedule the clocks of game %s", game_id)
                    continue
                version, dues = game.version, self.dues(game)
                if not dues:
                    self.store.set_remove(RUNNING, game_id)
            self._schedule(dues)
            swept[game_id] = (version, dues)
        known.clear()  # kept in place: the timeouts are wired once, at construction
        known.update(swept)
        return len(games)

    def run(self, key: Hashable) -> float | None:
        """The timeout, or the reminder, of ``key``: the seconds until it is due again, or None."""
        warn, (game_id, seat, version) = _parts(key)
        act = self.games.warn_clock if warn else self.games.time_out
        again: float | None = act(game_id, seat, version)
        if again is None:
            self._scheduled.discard(key)
        return again


#: the first part of a reminder's key (a timeout's has none)
WARN = "warn"


def _parts(key: Any) -> tuple[bool, tuple[str, int, int]]:
    """A timeout's key: (game id, seat, version of its ClockStarted); a reminder's: (WARN, the same).
    Whether it is a reminder, and those three."""
    warn = key[0] == WARN
    game_id, seat, version = key[1:] if warn else key
    return warn, (str(game_id), int(seat), int(version))


class InProcessTimeouts(Timeouts):
    """The embedded store's timeouts: a timer thread of this process, theirs alone."""

    def __init__(self, games: ClockedGames, store: ClockSets, clock: Now):
        self.timer = TimerThread("clocks", self.run, retry_on_error=1.0)
        super().__init__(games, store, clock, self.timer.schedule)


class RqTimeouts(Timeouts):
    """Timeouts as RQ jobs, scheduled for their deadline with ``enqueue_in``."""

    def __init__(self, games: ClockedGames, store: ClockSets, clock: Now, config: Any):
        from rq import Queue

        from service.adapters.redis_client import connect

        self.queue = Queue(config.lane_queue("clocks"), connection=connect(config.rq_url))
        self.prefix = config.redis_prefix
        super().__init__(games, store, clock, self._enqueue)

    def _enqueue(self, delay: float, key: Hashable) -> None:
        """One job per clock run and due second (its id names the game, seat, version and that
        second): scheduling it again for the same second (the clocks' sweep) replaces it. A queue that cannot be reached (its master failing
        over) loses nothing: the move is stored, and the clocks' sweep schedules it again."""
        import redis
        from rq import Retry

        from service.background.rq_projections import job_safe

        warn, (game_id, seat, version) = _parts(key)
        kind = "warn" if warn else "timeout"
        # retried: a job cut off in its worker's hands by a failover of the queue's master is failed
        # by RQ's cleanup of its intermediate queue (after a minute), and then run again
        job = {"job_timeout": 60, "result_ttl": 60, "description": f"clock {kind} of seat {seat} in {game_id}",
               "retry": Retry(max=3, interval=[1, 5, 30]),
               "job_id": job_safe(f"{self.prefix}-{kind}-{game_id}-{seat}-{version}-"
                                 f"{math.ceil(time.time() + max(0.0, delay))}")}
        function = f"service.running.lane_jobs.{kind}_job"
        try:
            if delay <= 0:  # due already (a worker's start): straight to the queue, no scheduler needed
                self.queue.enqueue(function, game_id, seat, version, **job)
            else:
                self.queue.enqueue_in(timedelta(seconds=delay), function, game_id, seat, version, **job)
        except redis.RedisError:
            self._scheduled.discard(key)
            log.exception("could not schedule the clock %s of seat %s in game %s; the clocks' sweep will", kind,
                          seat, game_id)
