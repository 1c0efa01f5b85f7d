"""Read models: pure folds from public events to what clients list and rank.

Each projection is ``apply(model, envelope) -> model`` with a ``name`` and an
``initial()`` model (``projections.base``); the service's runner feeds it the global log
in order and stores the model with its checkpoint. Projections import only ``domain``
(and openskill for ratings): they know nothing of the store that holds them.

What a projection sees. Every envelope is built by ``projections.base.envelope``: the
event redacted for a spectator plus its place and public facts. Secrets never arrive.

Undo. A seat may take back its latest move while nothing hidden was revealed since
(``MovesUndone``). An undone event stays in the log, so a projection that reacted to a
game event as it came would count a move that no longer stands. The projections here
therefore react only to facts that are never undone or that are re-stated after an undo:

* the platform's ``GameCreated``, ``SeatTaken`` and ``GameStarted`` (undo takes back only
  a seat's own moves, never these);
* ``after`` on the last event of every append: the status, the seats to move and the
  outcome as they stand after it. The ``MovesUndone`` append carries its own ``after``,
  which states them as they are once the move is taken back;
* the outcome of a finished game (nothing is undone once a game is over).

A game's own event that is not the last of its append (``projections.base.restated``)
changes nothing here: its version and time come again with the append's last event. The
projections say so (``wants``), and the runner skips such events without building their
envelopes (most of a command's events).

A projection that wants game events themselves (a move log, say) must also fold
``MovesUndone`` and drop the versions it names, as ``domain.kernel.table.undone_versions``
does.
"""

from __future__ import annotations

from projections.base import Projection, envelope
from projections.history import HISTORY
from projections.lobby import LOBBY
from projections.scoreboard import SCOREBOARD

#: every projection the service keeps, by name
PROJECTIONS: dict[str, Projection] = {p.name: p for p in (LOBBY, SCOREBOARD, HISTORY)}

__all__ = ["PROJECTIONS", "Projection", "envelope"]
