"""When a seat may take its move back: a pure function over the game's stored stream.

A seat may undo its own latest standing move (every event of that command, its batch) as
long as nobody acted after it and the move did not reveal hidden information, draw cards
or hand the decision to another seat (an event of the move is marked ``barrier``). An undo
is itself an event (``MovesUndone``); the versions it takes back stay in the stream and
are skipped by every fold.
"""

from __future__ import annotations

from domain.kernel import RuleViolation
from domain.kernel.clocks import CLOCK_WARNED
from domain.kernel.table import undone_versions
from service.adapters.store import Recorded
from service.streams.envelopes import is_undo


def undoable_move(records: list[Recorded], seat: int) -> tuple[int, int]:
    """The first and last versions of ``seat``'s latest standing move, or ``RuleViolation``
    saying why it cannot be undone."""
    undone = undone_versions((r.version, r.event) for r in records)
    # a clock's reminder (``ClockWarned``) is the server's note, nobody's act: it stops no undo
    standing = [r for r in records if r.version not in undone and not is_undo(r.event)
                and r.event["type"] != CLOCK_WARNED]
    if not standing or standing[-1].event.get("actor") is None:
        raise RuleViolation("you have no move to undo")
    batch = standing[-1].event["batch"]
    move = [r for r in standing if r.event.get("batch") == batch]
    if move[0].event.get("actor") != seat:
        raise RuleViolation("another seat has acted since your last move; it can no longer be undone")
    if any(r.event.get("barrier") for r in move):
        raise RuleViolation("your last move revealed hidden information or drew cards, or handed the "
                            "decision to another seat; it cannot be undone")
    return move[0].version, move[-1].version
