"""Turn clocks: options every game has, and the platform events that run them.

A game created with ``clock_bank_seconds`` gives each seat a time bank. While the game
waits for a seat, that seat's clock runs (``ClockStarted``: from when, until which
deadline); when the seat moves (or is no longer asked), it stops (``ClockStopped``: the
time used, and the bank after it, plus ``clock_increment_seconds`` and at most
``clock_cap_seconds``). ``clock_move_seconds`` limits a single move (live play): the
deadline is the sooner of the bank's end and the move limit. Every seat played by a person
voting for it pauses the clocks (``ClocksPaused``: bots do not vote); any seat resumes them
(``ClocksResumed``).

When a run has used ``WARN_SHARE`` (80%) of its time, the seat's player is reminded once
(``ClockWarned``: the run, its deadline and the seconds left; the chess server's
correspondence reminder): the player's feed and webhooks carry it from the game's stream.

When a deadline passes, the server acts for the seat (``ClockTimedOut``): the game's
designated default on a timeout (a pass where the rules have one: ``timeout_defaults``),
else, in a game of three or more seats that goes on, a computer opponent takes the seat
(``ClockTimedOut`` with the action ``takeover``, then ``SeatTakenOver``:
``domain.kernel.stand_ins``), else the seat forfeits (``SeatForfeited``), which ends the
game: every other seat wins.
Several seats out of time are acted on in the order their clocks ran out (``run_out``).

These events carry times chosen by the service (ISO 8601, UTC); this module only folds them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from domain.kernel.events import Event
from domain.kernel.rules import OptionSpec, Outcome

DAY = 86_400

CLOCK_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("clock_bank_seconds", "int", None,
               "Turn clock: each seat's time bank in seconds (e.g. 259200 for 3 days). null: no clock.",
               minimum=1, maximum=30 * DAY, nullable=True),
    OptionSpec("clock_increment_seconds", "int", 0,
               "Turn clock: seconds added to a seat's bank after each of its moves (e.g. 86400: a day a move).",
               minimum=0, maximum=30 * DAY),
    OptionSpec("clock_cap_seconds", "int", None,
               "Turn clock: the most a bank may hold (e.g. 604800: 7 days). null: no cap.",
               minimum=1, maximum=365 * DAY, nullable=True),
    OptionSpec("clock_move_seconds", "int", None,
               "Turn clock: the longest one move may take, whatever the bank holds (live play). null: no limit.",
               minimum=1, maximum=30 * DAY, nullable=True),
)

CLOCK_STARTED = "ClockStarted"
CLOCK_STOPPED = "ClockStopped"
CLOCK_TIMED_OUT = "ClockTimedOut"
SEAT_FORFEITED = "SeatForfeited"
PAUSE_VOTED = "ClockPauseVoted"
CLOCKS_PAUSED = "ClocksPaused"
CLOCKS_RESUMED = "ClocksResumed"
CLOCK_WARNED = "ClockWarned"
CLOCK_EVENTS = frozenset({CLOCK_STARTED, CLOCK_STOPPED, CLOCK_TIMED_OUT, SEAT_FORFEITED, PAUSE_VOTED,
                          CLOCKS_PAUSED, CLOCKS_RESUMED, CLOCK_WARNED})

#: the share of a clock run's time after which its seat is reminded (the chess server's 80%)
WARN_SHARE = 0.8


def clock_started(seat: int, bank: float, at: str, deadline: str, version: int) -> Event:
    """``version``: the version this event is stored at, which names this run of the clock."""
    return Event(CLOCK_STARTED, {"seat": seat, "bank": bank, "at": at, "deadline": deadline, "version": version})


def clock_stopped(seat: int, used: float, bank: float) -> Event:
    return Event(CLOCK_STOPPED, {"seat": seat, "used": used, "bank": bank})


def clock_timed_out(seat: int, started_version: int, action: str) -> Event:
    return Event(CLOCK_TIMED_OUT, {"seat": seat, "started_version": started_version, "action": action},
                 barrier=True)


def seat_forfeited(seat: int) -> Event:
    return Event(SEAT_FORFEITED, {"seat": seat, "reason": "timeout"}, barrier=True)


def clock_warned(seat: int, started_version: int, deadline: str, seconds_left: float) -> Event:
    """The reminder of the run started at ``started_version``: ``WARN_SHARE`` of its time is used."""
    return Event(CLOCK_WARNED, {"seat": seat, "started_version": started_version, "deadline": deadline,
                                "seconds_left": seconds_left})


def pause_voted(seat: int) -> Event:
    return Event(PAUSE_VOTED, {"seat": seat})


def clocks_paused() -> Event:
    return Event(CLOCKS_PAUSED, {})


def clocks_resumed(seat: int) -> Event:
    return Event(CLOCKS_RESUMED, {"seat": seat})


def seconds_between(start: str, end: str) -> float:
    return (_parse(end) - _parse(start)).total_seconds()


def _parse(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def warn_at(since: str, deadline: str) -> str:
    """When a clock run from ``since`` to ``deadline`` (ISO times, UTC) has used ``WARN_SHARE``."""
    start, end = _parse(since), _parse(deadline)
    moment = (start + (end - start) * WARN_SHARE).astimezone(UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class RunningClock:
    started_version: int
    since: str
    deadline: str
    #: has its seat been reminded (``ClockWarned``)?
    warned: bool = False


@dataclass
class Clocks:
    """The clocks of one game, as their events say: banks, running clocks, pause votes."""

    banks: dict[int, float] = field(default_factory=dict)
    running: dict[int, RunningClock] = field(default_factory=dict)
    paused: bool = False
    pause_votes: set[int] = field(default_factory=set)
    forfeited: int | None = None

    def apply(self, event: Event) -> None:
        data = event.data
        if event.type == CLOCK_STARTED:
            self.banks[data["seat"]] = data["bank"]
            self.running[data["seat"]] = RunningClock(data["version"], data["at"], data["deadline"])
        elif event.type == CLOCK_STOPPED:
            self.banks[data["seat"]] = data["bank"]
            self.running.pop(data["seat"], None)
        elif event.type == CLOCK_WARNED:
            run = self.running.get(data["seat"])
            if run is not None and run.started_version == data["started_version"]:
                self.running[data["seat"]] = replace(run, warned=True)
        elif event.type == PAUSE_VOTED:
            self.pause_votes.add(data["seat"])
        elif event.type == CLOCKS_PAUSED:
            self.paused, self.pause_votes = True, set()
        elif event.type == CLOCKS_RESUMED:
            self.paused, self.pause_votes = False, set()
        elif event.type == SEAT_FORFEITED:
            self.forfeited = data["seat"]

    def run_out(self, at: str) -> list[int]:
        """The seats whose clocks have run out at ``at``, in the order they ran out: the
        earliest deadline first; equal deadlines, the clock started first (the lower
        ``started_version``), then the lower seat."""
        out = [(seconds_between(at, run.deadline), run.started_version, seat)
               for seat, run in self.running.items() if seconds_between(at, run.deadline) <= 0]
        return [seat for *_, seat in sorted(out)]

    def copy(self) -> Clocks:
        return Clocks(dict(self.banks), dict(self.running), self.paused, set(self.pause_votes), self.forfeited)

    def to_json(self, seats: int) -> dict[str, Any]:
        return {"paused": self.paused, "pause_votes": sorted(self.pause_votes),
                "seats": [{"seat": s, "bank_seconds": self.banks.get(s),
                           "running_since": self.running[s].since if s in self.running else None,
                           "deadline": self.running[s].deadline if s in self.running else None}
                          for s in range(seats)]}


def forfeit_outcome(seats: int, forfeited: int) -> Outcome:
    """A game ended by a seat's timeout: every other seat wins."""
    winners = tuple(s for s in range(seats) if s != forfeited)
    return Outcome(winners, {s: (1 if s in winners else 0) for s in range(seats)},
                   {"reason": "timeout", "forfeited": forfeited})
