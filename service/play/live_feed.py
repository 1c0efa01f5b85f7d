"""The live feed of one game: its events as they happen, as the reader may see them.

``follow`` is what ``GET /games/{id}/stream`` serves (service/api/live.py): the backlog
after the client's last event, then each new batch from the process's ``LiveHub``,
heartbeats while nothing happens, and an end once a finished game has sent everything.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from service.players.live_hub import next_wait
from service.streams.envelopes import public_event, stream_of
from service.streams.game import Game, audience

if TYPE_CHECKING:
    from service.play.services import GameService


class Heartbeat:
    """Marker yielded by ``follow`` when nothing happened for a while."""


class End:
    """Marker yielded by ``follow`` once a finished game has nothing more to send."""

    def __init__(self, version: int):
        self.version = version


def follow(service: GameService, game_id: str, player: Mapping[str, Any] | None, after: int = 0, *,
           heartbeat: float = 15.0, max_seconds: float | None = None, credential: str | None = None,
           connection: Any = None) -> Iterator[Any]:
    """A game's events after version ``after`` as ``player`` may see them, as they happen.

    Raises ``NotFound`` at once for an unknown game. The iterator yields each event
    (``public_event``: redacted for the caller's seat, or for a spectator without a
    player; everything once the game is over, like ``GameService.events``), a
    ``Heartbeat`` after ``heartbeat`` seconds without one, and finally ``End`` when the
    game is finished and every event was sent. New events come from the service's
    ``LiveHub`` (one poll of the store for every stream of the process), so it sees
    appends made by any process; it stops after ``max_seconds`` (the client reconnects
    from the last version it received).

    ``credential`` is what ``player`` came with (``hash_token`` of its token) and
    ``connection`` the client's socket: the hub re-checks both every second and the
    iterator stops within that second once the token was rotated or revoked (on any
    process) or the client went away.
    """
    game = service.load(game_id)
    return _feed(service, game, player, after, heartbeat, max_seconds, credential, connection)


def _feed(service: GameService, game: Game, player: Mapping[str, Any] | None, after: int,
          heartbeat: float, max_seconds: float | None, credential: str | None, connection: Any) -> Iterator[Any]:
    stream = stream_of(game.id)
    # before the backlog: nothing falls between
    # the hub re-checks the pair: the token's hash in its player's own record
    held = (str(player["id"]), credential) if player and credential else None
    subscriber = service.live_hub.subscribe(stream, held, connection)
    try:
        started = last_sent = time.monotonic()
        backlog = service.store.read(stream, after)
        if backlog:
            game = service.load(game.id)
            viewer = audience(game, player)
            for record in backlog:
                yield public_event(record, viewer, game.rules.upcasters)
                after = record.version
            last_sent = time.monotonic()
        while True:
            if game.over and after >= game.version:
                yield End(after)
                return
            wait = next_wait(started, last_sent, heartbeat, max_seconds)
            if wait is None:
                return
            batch = subscriber.get(wait)
            if subscriber.ended is not None:  # the token was rotated or revoked, or the client left
                return
            if batch is None:
                if time.monotonic() - last_sent >= heartbeat:
                    yield Heartbeat()
                    last_sent = time.monotonic()
                continue
            if batch.game.version >= game.version:
                game = batch.game
            viewer = audience(game, player)
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
