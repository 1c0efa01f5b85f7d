"""Seat takeover: a computer opponent stands in for a person who left a game of three or more.

When a seat played by a person runs out of time with nothing to play for it (its prompt has
no default on a timeout), or its player resigns, a game of two ends there; a game of three
or more seats goes on for the others: ``SeatTakenOver`` gives the seat to a stand-in, a
computer opponent of the kind and level the table chose at its creation (``GameCreated``'s
``stand_in``), which plays it as any bot seat. The person who left may take the seat back
while the game runs (``SeatReclaimed``): the stand-in stops at once and the person answers
whatever the seat is asked from there (its turn, or the middle of an action).

Both are the platform's own events (``source: "platform"``), stored in the game's stream
like a move, so they replay, export and redact as every other event. A table with no
stand-in (``stand_in: null`` at creation, or a game created before there were any) ends as
a game of two does; so does a table where no other seat is left to a person.

What it means for the ratings (``projections.scoreboard``): the seat is unrated from the
moment its person left. The person who left counts a lost game (placed below every other
seat), whether or not they reclaim the seat, and the stand-in's result counts for nobody;
the other seats are rated among themselves by the game's result.
"""

from __future__ import annotations

from domain.kernel.events import Event

SEAT_TAKEN_OVER = "SeatTakenOver"
SEAT_RECLAIMED = "SeatReclaimed"
STAND_IN_EVENTS = frozenset({SEAT_TAKEN_OVER, SEAT_RECLAIMED})

#: why a seat was taken over
TIMED_OUT = "timeout"
RESIGNED = "resigned"

#: the fewest seats at which a game goes on without a seat's person
MIN_SEATS = 3
#: the kind of stand-in a table has unless its creator chooses another (or none): a quick one,
#: which plays its seat's best move one ply ahead and never holds the game up
DEFAULT_KIND = "greedy"


def seat_taken_over(seat: int, left: str, reason: str, stand_in_id: str, stand_in_name: str,
                    bot: dict[str, str]) -> Event:
    """``left``: the player whose seat it was; ``bot``: the stand-in's ``{kind, level}``."""
    return Event(SEAT_TAKEN_OVER, {"seat": seat, "player_id": left, "reason": reason,
                                   "stand_in": {"player_id": stand_in_id, "name": stand_in_name, "bot": dict(bot)}},
                 barrier=True)


def seat_reclaimed(seat: int, player_id: str, name: str) -> Event:
    return Event(SEAT_RECLAIMED, {"seat": seat, "player_id": player_id, "name": name}, barrier=True)

