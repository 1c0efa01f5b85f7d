"""Use cases that read projections (lobby, scoreboards, histories) and the live game feed.

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

import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from projections import history, lobby, scoreboard
from service.adapters.codec import loads
from service.errors import NotFound
from service.projections_runner import INLINE_SLICE, ProjectionRunner

if TYPE_CHECKING:
    from service.services import GameService

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
        if self.catch_up_on_read:
            deadline = time.monotonic() + READ_CATCH_UP_SECONDS
            while self.runner.catch_up(name, limit=INLINE_SLICE) >= INLINE_SLICE and time.monotonic() < deadline:
                time.sleep(0)  # other requests may run between slices

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


def attach(service: GameService, read_models: ReadModels) -> None:
    # GameService (service/services.py, being split into modules) declares no such
    # attribute yet; declare read_models and live_hub there, then drop both ignores
    service.read_models = read_models  # type: ignore[attr-defined]


def read_models_of(service: GameService) -> ReadModels:
    """The service's read models; a service built without ``bootstrap`` gets in-process ones
    that catch up when read (so ``list_games`` is right even with no ``after_append``)."""
    found = getattr(service, "read_models", None)
    if found is None:
        found = ReadModels(ProjectionRunner(service.store), catch_up_on_read=True)
        attach(service, found)
    return found


def lobby_version(service: GameService) -> dict[str, Any]:
    """What the lobby's answer depends on, read cheaply (for its ETag)."""
    return read_models_of(service).version(lobby.NAME)


def scoreboard_of(service: GameService, kind: str, offset: int = 0, limit: int | None = None) -> dict[str, Any]:
    if kind not in service.registry:
        raise NotFound(f"no game type {kind!r}; known types: {', '.join(sorted(service.registry))}")
    return read_models_of(service).scoreboard(kind, offset, limit)


def games_of_player(service: GameService, player_id: str, offset: int = 0,
                    limit: int | None = None) -> dict[str, Any]:
    service.get_player(player_id)  # NotFound for an unknown player
    return read_models_of(service).player_games(player_id, offset, limit)


def lobby_of(service: GameService, kind: str | None, status: str | None, offset: int,
             limit: int | None) -> dict[str, Any]:
    """A page of the lobby (``GET /games``) and the total."""
    return read_models_of(service).lobby(kind, status, offset, limit)


def projections_status(service: GameService) -> dict[str, Any]:
    return read_models_of(service).status()


# -- the live feed -----------------------------------------------------------------------
class Heartbeat:
    """Marker yielded by ``follow`` when nothing happened for a while."""


class End:
    """Marker yielded by ``follow`` once a finished game has nothing more to send."""

    def __init__(self, version: int):
        self.version = version


def live_hub_of(service: GameService, poll: float = 0.2):
    """The process's one ``LiveHub`` for ``service`` (created on first use)."""
    from service.live_hub import LiveHub

    hub = getattr(service, "live_hub", None)
    if hub is None:
        hub = LiveHub(service.store, lambda stream: service.load(stream.removeprefix("game-")), poll=poll)
        service.live_hub = hub  # type: ignore[attr-defined]
    return hub


def follow(service: GameService, game_id: str, player: Mapping[str, Any] | None, after: int = 0, *,
           poll: float = 0.2, heartbeat: float = 15.0, max_seconds: float | None = None) -> Iterator[Any]:
    """A game's events after version ``after`` as ``player`` may see them, as they happen.

    Raises ``NotFound`` at once for an unknown game. The iterator yields each event
    (``public_event``: redacted for the caller's seat, or for a spectator without a
    player; everything once the game is over, like ``GameService.events``), a
    ``Heartbeat`` after ``heartbeat`` seconds without one, and finally ``End`` when the
    game is finished and every event was sent. New events come from the process's
    ``LiveHub`` (one poll of the store every ``poll`` seconds for every stream), so it
    sees appends made by any process; it stops after ``max_seconds`` (the client
    reconnects from the last version it received).
    """
    game = service.load(game_id)
    return _feed(service, game, player, after, poll, heartbeat, max_seconds)


def _feed(service: GameService, game: Any, player: Mapping[str, Any] | None, after: int, poll: float,
          heartbeat: float, max_seconds: float | None) -> Iterator[Any]:
    from service.services import public_event, stream_of

    stream = stream_of(game.id)
    subscriber = live_hub_of(service, poll).subscribe(stream)  # before the backlog: nothing falls between
    try:
        started = last_sent = time.monotonic()
        backlog = service.store.read(stream, after)
        if backlog:
            game = service.load(game.id)
            viewer = game.audience(player)
            for record in backlog:
                yield public_event(record, viewer)
                after = record.version
            last_sent = time.monotonic()
        while True:
            if game.over and after >= game.version:
                yield End(after)
                return
            now = time.monotonic()
            wait = last_sent + heartbeat - now
            if max_seconds is not None:
                left = started + max_seconds - now
                if left <= 0:
                    return
                wait = min(wait, left)
            batch = subscriber.get(wait)
            if batch is None:
                if time.monotonic() - last_sent >= heartbeat:
                    yield Heartbeat()
                    last_sent = time.monotonic()
                continue
            if batch.game.version >= game.version:
                game = batch.game
            viewer = game.audience(player)
            sent = False
            for number, event in batch.encoded(viewer, public_event):
                if number > after:
                    yield event
                    after = number
                    sent = True
            if sent:
                last_sent = time.monotonic()
    finally:
        subscriber.close()
