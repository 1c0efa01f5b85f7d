"""Stream tickets: how a browser opens a live stream without putting its token in a URL.

``EventSource`` cannot send an ``Authorization`` header, and a long-lived token must never
appear in a URL (URLs end up in access logs, proxies and browser history). A seated player
asks ``POST /games/{id}/stream-ticket`` (with the token, in the header) for a ticket and
opens ``GET /games/{id}/stream?ticket=...`` with it.

A ticket is a Fernet token (AES-128-CBC and HMAC-SHA256, from the ``cryptography``
package) of the game's id and the SHA-256 of the token it was issued for, under a key every
process of the deployment shares (``secret('stream-ticket-key')`` in the store). So it is

* short-lived: it opens a stream only within ``TICKET_SECONDS`` of being issued (an open
  stream then lives on; reconnections within that minute may reuse it, which is what a
  browser's ``EventSource`` does, later ones need a new ticket);
* single-game and single-seat: it opens that game's stream as that player's seat, and is
  refused by every other endpoint (they only read ``Authorization``);
* tied to the token: once that token is rotated or revoked, the ticket stops working;
* opaque: the token's hash inside is encrypted, and an altered ticket fails its MAC.
"""

from __future__ import annotations

from typing import Any

import orjson
from cryptography.fernet import Fernet, InvalidToken

from service.adapters.store import EventStore
from service.base.errors import Unauthorized
from service.players.players import hash_token

TICKET_SECONDS = 60
SECRET_NAME = "stream-ticket-key"


class StreamTickets:
    def __init__(self, store: EventStore, seconds: int = TICKET_SECONDS):
        self.store = store
        self.seconds = seconds
        self._fernet: Fernet | None = None

    def _key(self) -> Fernet:
        if self._fernet is None:  # read from the store on first use, not when the app is built
            self._fernet = Fernet(self.store.secret(SECRET_NAME, Fernet.generate_key().decode()).encode())
        return self._fernet

    def issue(self, game_id: str, token: str) -> dict[str, object]:
        """A ticket to open ``game_id``'s stream as the holder of ``token`` (already authenticated)."""
        ticket = self._key().encrypt(orjson.dumps({"game": game_id, "token_hash": hash_token(token)}))
        return {"ticket": ticket.decode(), "expires_in": self.seconds}

    def feed_scope(self, ticket: str) -> str:
        """What a ticket for a player's own feed opens (``player:<id>``, as ``issue`` was given
        it), or ``Unauthorized``: expired, altered, or a game's ticket. ``redeem`` checks the rest."""
        try:
            scope = orjson.loads(self._key().decrypt(ticket.encode(), ttl=self.seconds)).get("game", "")
        except (InvalidToken, orjson.JSONDecodeError, UnicodeEncodeError, AttributeError):
            scope = ""
        if not isinstance(scope, str) or not scope.startswith("player:"):
            raise Unauthorized(f"the ticket is expired (they last {self.seconds} s), altered or not a feed ticket: "
                               "ask POST /players/me/stream-ticket for a new one")
        return scope

    def redeem(self, game_id: str, ticket: str) -> tuple[dict[str, Any], str]:
        """The player a ticket stands for and the hash of the token it was issued for (the
        stream counts against that token's limit), or ``Unauthorized`` saying why it is refused."""
        try:
            facts = orjson.loads(self._key().decrypt(ticket.encode(), ttl=self.seconds))
        except (InvalidToken, orjson.JSONDecodeError, UnicodeEncodeError):
            raise Unauthorized(f"the stream ticket is expired (they last {self.seconds} s), altered or not a "
                               "ticket: ask POST /games/{id}/stream-ticket for a new one") from None
        if facts.get("game") != game_id:
            raise Unauthorized("this stream ticket is for another game")
        player = self.store.player_by_token(facts["token_hash"])
        if player is None:
            raise Unauthorized("the token this stream ticket was issued for was rotated or revoked")
        return player, facts["token_hash"]
