"""Use cases that read projections (lobby, scoreboards, histories) and the live game feed.

Read models live in the event store beside the events (``EventStore.load_projection``).
In the embedded mode they are caught up in-process after each append, and once more
before a read, so a reader sees its own writes. In RQ mode workers keep them up to date
and a read returns what is stored: it may trail the log by the projection lag shown at
``GET /projections``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from projections import history, lobby, scoreboard
from service.errors import NotFound
from service.projections_runner import ProjectionRunner

if TYPE_CHECKING:
    from service.services import GameService


class ReadModels:
    def __init__(self, runner: ProjectionRunner, *, catch_up_on_read: bool, mode: str = "inline"):
        self.runner = runner
        self.catch_up_on_read = catch_up_on_read
        self.mode = mode

    def _model(self, name: str) -> dict[str, Any]:
        if self.catch_up_on_read:
            self.runner.catch_up(name)
        return self.runner.model(name)

    def list_games(self, kind: str | None = None, status: str | None = None) -> list[dict[str, Any]]:
        """Games from the lobby, latest activity first."""
        return lobby.games(self._model(lobby.NAME), kind, status)

    def version(self, name: str) -> dict[str, Any]:
        """How far a read of ``name`` would reach, without loading the model: in inline mode
        the log's heads (a read catches up to at least them), else the stored model's
        checkpoints. Equal versions, equal models."""
        if self.catch_up_on_read:
            return {"heads": self.runner.heads()}
        record = self.runner.store.load_projection(name)
        return {"checkpoints": record.checkpoints if record else {}}

    def scoreboard(self, kind: str) -> dict[str, Any]:
        return {"type": kind, "players": scoreboard.table(self._model(scoreboard.NAME), kind)}

    def player_games(self, player_id: str) -> dict[str, Any]:
        return {"player_id": player_id, "games": history.games_of(self._model(history.NAME), player_id)}

    def status(self) -> dict[str, Any]:
        if self.catch_up_on_read:  # inline mode: what a reader would be served now
            self.runner.catch_up_all()
        return {"mode": self.mode, "projections": self.runner.status_all()}


def attach(service: GameService, read_models: ReadModels) -> None:
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


def scoreboard_of(service: GameService, kind: str) -> dict[str, Any]:
    if kind not in service.registry:
        raise NotFound(f"no game type {kind!r}; known types: {', '.join(sorted(service.registry))}")
    return read_models_of(service).scoreboard(kind)


def games_of_player(service: GameService, player_id: str) -> dict[str, Any]:
    service.get_player(player_id)  # NotFound for an unknown player
    return read_models_of(service).player_games(player_id)


def projections_status(service: GameService) -> dict[str, Any]:
    return read_models_of(service).status()


# -- the live feed -----------------------------------------------------------------------
class Heartbeat:
    """Marker yielded by ``follow`` when nothing happened for a while."""


class End:
    """Marker yielded by ``follow`` once a finished game has nothing more to send."""

    def __init__(self, version: int):
        self.version = version


def follow(service: GameService, game_id: str, player: Mapping[str, Any] | None, after: int = 0, *,
           poll: float = 0.2, heartbeat: float = 15.0, max_seconds: float | None = None) -> Iterator[Any]:
    """A game's events after version ``after`` as ``player`` may see them, as they happen.

    Raises ``NotFound`` at once for an unknown game. The iterator yields each event
    (``public_event``: redacted for the caller's seat, or for a spectator without a
    player; everything once the game is over, like ``GameService.events``), a
    ``Heartbeat`` after ``heartbeat`` seconds without one, and finally ``End`` when the
    game is finished and every event was sent. It polls the store every ``poll`` seconds,
    so it sees appends made by any process; it stops after ``max_seconds`` (the client
    reconnects from the last version it received).
    """
    game = service.load(game_id)
    return _feed(service, game, player, after, poll, heartbeat, max_seconds)


def _feed(service: GameService, game: Any, player: Mapping[str, Any] | None, after: int, poll: float,
          heartbeat: float, max_seconds: float | None) -> Iterator[Any]:
    from service.services import public_event, stream_of

    stream = stream_of(game.id)
    started = last_sent = time.monotonic()
    while True:
        records = service.store.read(stream, after)
        if records:
            game = service.load(game.id)
            viewer = game.audience(player)
            for record in records:
                yield public_event(record, viewer)
                after = record.version
            last_sent = time.monotonic()
        if game.over and after >= game.version:
            yield End(after)
            return
        now = time.monotonic()
        if now - last_sent >= heartbeat:
            yield Heartbeat()
            last_sent = now
        wait = poll
        if max_seconds is not None:
            left = started + max_seconds - now
            if left <= 0:
                return
            wait = min(poll, left)
        time.sleep(wait)
