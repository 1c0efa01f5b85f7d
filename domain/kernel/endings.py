"""How a game ends other than by its rules: resignation, abort, agreement, and the rematch after.

These are the platform's own events (``source: "platform"``), stored in the game's stream
like a move, so they replay, export and redact as every other event:

* ``SeatResigned``: a seat gives up; the game ends at once. What that means for the others
  is the game's own ruling (``resigned_outcome``: each game says it in its rules document),
  and the outcome is decided once and kept in the event, so a replay never decides it again.
* ``GameAborted``: before the first move the table is called off; nobody wins, nothing counts.
* ``EndProposed``/``EndAgreed``/``EndDeclined``: a seat proposes to stop; once every seat
  played by a person agreed, ``GameEndedByAgreement`` ends it as a draw (every seat shares
  the result). A decline (or a move) clears the proposal.
* ``RematchOffered``/``RematchAccepted``/``RematchDeclined`` after the end; once every seat
  played by a person accepted, ``RematchStarted`` names the new game (the same players,
  each moved one seat on).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from domain.kernel.events import Event
from domain.kernel.rules import Outcome

SEAT_RESIGNED = "SeatResigned"
GAME_ABORTED = "GameAborted"
END_PROPOSED = "EndProposed"
END_AGREED = "EndAgreed"
END_DECLINED = "EndDeclined"
GAME_ENDED_BY_AGREEMENT = "GameEndedByAgreement"
REMATCH_OFFERED = "RematchOffered"
REMATCH_ACCEPTED = "RematchAccepted"
REMATCH_DECLINED = "RematchDeclined"
REMATCH_STARTED = "RematchStarted"
ENDING_EVENTS = frozenset({SEAT_RESIGNED, GAME_ABORTED, END_PROPOSED, END_AGREED, END_DECLINED,
                           GAME_ENDED_BY_AGREEMENT, REMATCH_OFFERED, REMATCH_ACCEPTED, REMATCH_DECLINED,
                           REMATCH_STARTED})

#: ``Outcome.details["reason"]`` of each ending
RESIGNED = "resigned"
ABORTED = "aborted"
AGREED = "agreement"


def every_other_seat_wins(seats: int, resigned: int) -> Outcome:
    """The default meaning of a resignation, for a game whose rules say nothing of it."""
    winners = tuple(s for s in range(seats) if s != resigned)
    return Outcome(winners, {s: (1 if s in winners else 0) for s in range(seats)})


def best_of_the_others(seats: int, resigned: int, key: Any, scores: dict[int, int]) -> Outcome:
    """A resignation ruled by the game's own standing: the seats other than ``resigned``
    with the best ``key(seat)`` win (ties share the win); ``scores`` as they stand."""
    others = [s for s in range(seats) if s != resigned]
    best = max(key(s) for s in others)
    return Outcome(tuple(s for s in others if key(s) == best), dict(scores))


def resigned_outcome(rules: Any, state: Any, seat: int, seats: int) -> Outcome:
    """What ``seat`` resigning means in this game: the rules' ``resigned(state, seat)`` if they
    rule on it, else every other seat wins. The outcome's details say who resigned."""
    ruling = getattr(rules, "resigned", None)
    outcome = ruling(state, seat) if ruling is not None and state is not None else every_other_seat_wins(seats, seat)
    return Outcome(outcome.winners, outcome.scores, {**outcome.details, "reason": RESIGNED, "resigned": seat})


def seat_resigned(seat: int, outcome: Outcome) -> Event:
    return Event(SEAT_RESIGNED, {"seat": seat, "outcome": outcome.to_json()}, barrier=True)


def game_aborted(seat: int | None) -> Event:
    """``seat``: who called it off (None: the table's creator before taking a seat)."""
    return Event(GAME_ABORTED, {"seat": seat}, barrier=True)


def end_proposed(seat: int) -> Event:
    return Event(END_PROPOSED, {"seat": seat})


def end_agreed(seat: int) -> Event:
    return Event(END_AGREED, {"seat": seat})


def end_declined(seat: int) -> Event:
    return Event(END_DECLINED, {"seat": seat})


def game_ended_by_agreement(seats: int) -> Event:
    """A draw: every seat shares the result."""
    outcome = Outcome(tuple(range(seats)), {s: 0 for s in range(seats)}, {"reason": AGREED})
    return Event(GAME_ENDED_BY_AGREEMENT, {"outcome": outcome.to_json()}, barrier=True)


def rematch_offered(seat: int) -> Event:
    return Event(REMATCH_OFFERED, {"seat": seat})


def rematch_accepted(seat: int) -> Event:
    return Event(REMATCH_ACCEPTED, {"seat": seat})


def rematch_declined(seat: int) -> Event:
    return Event(REMATCH_DECLINED, {"seat": seat})


def rematch_started(game_id: str) -> Event:
    return Event(REMATCH_STARTED, {"game_id": game_id})


def aborted_outcome(seat: int | None) -> Outcome:
    return Outcome((), {}, {"reason": ABORTED, "aborted_by": seat})


def outcome_from_json(body: dict[str, Any]) -> Outcome:
    return Outcome(tuple(body["winners"]), {int(s): v for s, v in body["scores"].items()}, dict(body["details"]))


@dataclass
class Endings:
    """The fold of these events: how the game ended (None while the rules decide), the
    seats that agreed to stop now, the rematch's acceptances and the new game."""

    outcome: Outcome | None = None
    end_votes: set[int] = field(default_factory=set)
    rematch_votes: set[int] = field(default_factory=set)
    rematch_declined: bool = False
    rematch: str | None = None

    def apply(self, event: Event) -> None:
        data = event.data
        kind = event.type
        if kind in (SEAT_RESIGNED, GAME_ENDED_BY_AGREEMENT):
            self.outcome = outcome_from_json(data["outcome"])
            self.end_votes = set()
        elif kind == GAME_ABORTED:
            self.outcome = aborted_outcome(data["seat"])
        elif kind in (END_PROPOSED, END_AGREED):
            self.end_votes.add(data["seat"])
        elif kind == END_DECLINED:
            self.end_votes = set()
        elif kind in (REMATCH_OFFERED, REMATCH_ACCEPTED):
            self.rematch_votes.add(data["seat"])
            self.rematch_declined = False
        elif kind == REMATCH_DECLINED:
            self.rematch_votes, self.rematch_declined = set(), True
        elif kind == REMATCH_STARTED:
            self.rematch = data["game_id"]

    def copy(self) -> Endings:
        return Endings(self.outcome, set(self.end_votes), set(self.rematch_votes), self.rematch_declined, self.rematch)

    def to_json(self) -> dict[str, Any]:
        return {"end_votes": sorted(self.end_votes), "rematch_votes": sorted(self.rematch_votes),
                "rematch_declined": self.rematch_declined, "rematch": self.rematch}
