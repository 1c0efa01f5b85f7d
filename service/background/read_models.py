"""Reading the projections: the lobby, scoreboards and players' histories.

Read models live in the event store beside the events, one row per game, per player's
game, per rating (``EventStore.save_rows``), and each list is an ordered index: a page of
the lobby, of a history or of a scoreboard reads one index range and those rows, and the
total is a stored count, so a read costs the same with 1,000 games as with 100,000.

In the embedded mode (``inline``) a background thread catches the read models up after
appends, in slices of ``INLINE_SLICE`` events with a yield to other requests between
slices; a read first applies pending events itself, slice by slice, for at most
``READ_CATCH_UP_SECONDS`` (a client sees its own writes; if the backlog is larger than
that, it answers from what is stored and the thread goes on). In RQ mode workers keep them up to date and a read returns what is stored: it
may trail the log by the projection lag shown at ``GET /projections``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from projections import history, lobby, scoreboard
from service.adapters.codec import loads
from service.adapters.store import CheckpointMoved
from service.background.inline_projections import INLINE_SLICE
from service.background.projections_runner import ProjectionRunner

log = logging.getLogger(__name__)

#: seconds a read spends applying pending events before it answers (inline mode), at most
#: (plus one slice of ``INLINE_SLICE`` events)
READ_CATCH_UP_SECONDS = 0.25


class ReadModels:
    def __init__(self, runner: ProjectionRunner, *, catch_up_on_read: bool, mode: str = "inline"):
        self.runner = runner
        self.store = runner.store
        self.catch_up_on_read = catch_up_on_read
        self.mode = mode

    def _fresh(self, name: str) -> None:
        if not self.catch_up_on_read:
            return
        deadline = time.monotonic() + READ_CATCH_UP_SECONDS
        try:
            while self.runner.catch_up(name, limit=INLINE_SLICE) >= INLINE_SLICE and time.monotonic() < deadline:
                time.sleep(0)  # other requests may run between slices
        except CheckpointMoved:
            # other runners (another process's background catch-up) kept saving first: they are
            # catching the model up, so the read answers from what they stored
            log.info("projection %s: a read left the catch-up to the other runners", name)

    def _page(self, name: str, table: str, index: str, offset: int, limit: int | None) -> tuple[list[Any], int]:
        self._fresh(name)
        keys = self.store.index_page(name, index, offset, limit)
        rows = self.store.get_rows(name, table, keys)
        found = [(key, loads(raw)) for key, raw in zip(keys, rows, strict=True) if raw is not None]
        return found, self.store.index_count(name, index)

    def lobby(self, kind: str | None = None, status: str | None = None, offset: int = 0,
              limit: int | None = None) -> dict[str, Any]:
        """A page of the lobby's games, latest activity first, and how many there are."""
        found, total = self._page(lobby.NAME, "games", lobby.index(kind, status), offset, limit)
        return {"games": [row for _, row in found], "total": total}

    def list_games(self, kind: str | None = None, status: str | None = None) -> list[dict[str, Any]]:
        """Every game of the lobby, latest activity first (tools and tests: prefer ``lobby``)."""
        return self.lobby(kind, status)["games"]

    def version(self, name: str) -> dict[str, Any]:
        """How far a read of ``name`` would reach, without loading the model: in inline mode
        the log's heads (a read catches up to at least them), else the stored model's
        checkpoints. Equal versions, equal models."""
        if self.catch_up_on_read:
            return {"heads": self.runner.heads()}
        return {"checkpoints": self.runner.store.load_checkpoints(name) or {}}

    def scoreboard(self, kind: str, offset: int = 0, limit: int | None = None) -> dict[str, Any]:
        found, total = self._page(scoreboard.NAME, "standings", scoreboard.board(kind), offset, limit)
        return {"type": kind, "total": total,
                "players": [scoreboard.row(key, standing, offset + i + 1) for i, (key, standing) in enumerate(found)]}

    def player_games(self, player_id: str, offset: int = 0, limit: int | None = None) -> dict[str, Any]:
        found, total = self._page(history.NAME, "entries", history.index(player_id), offset, limit)
        return {"player_id": player_id, "total": total, "games": [entry for _, entry in found]}

    def status(self) -> dict[str, Any]:
        if self.catch_up_on_read:  # inline mode: what a reader would be served now
            for name in self.runner.names:
                self._fresh(name)
        return {"mode": self.mode, "projections": self.runner.status_all()}

    def lobby_version(self) -> dict[str, Any]:
        """What the lobby's answer depends on, read cheaply (for its ETag)."""
        return self.version(lobby.NAME)
