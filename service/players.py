"""Players: registration, and bearer tokens that can be rotated and revoked at once.

A token is ``<player id>.<256 random bits>``; the store keeps only its SHA-256, so a copy
of the store gives nobody a working token. The id in front lets a store find the token's
player where that player's record lives (on a Redis Cluster: the one slot of that player,
not one slot for everyone), and is checked there like the rest: a token with another
player's id in front matches nobody. Tokens issued before they carried an id stay valid
(``PlayerRecorder.player_by_token`` without an id). Rotation and revocation replace the stored hash with a
compare-and-set, and every process reads it from the store on each request: a revoked
token stops working everywhere at once. An open live stream keeps the hash of the token
it was opened with (its credential); once a second the process's ``LiveHub`` reads the
store's token generation (a counter every rotation and revocation moves) and, when it
moved, re-checks every open stream's credential with one call (``still_current``): a
stream whose token was rotated or revoked ends within that second, on every process.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import uuid
from collections.abc import Collection
from typing import Any

from service.adapters.store import EventStore
from service.errors import NotFound, Unauthorized

#: a player id as ``create`` makes them (a token's id part is only used if it looks like one)
PLAYER_ID = re.compile(r"[0-9a-f]{16}")


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token(player_id: str) -> str:
    return f"{player_id}.{secrets.token_urlsafe(32)}"


def player_named_by(token: str) -> str | None:
    """The player id a token carries in front (None: a token from before they carried one)."""
    named, dot, _ = token.partition(".")
    return named if dot and PLAYER_ID.fullmatch(named) else None


class Players:
    def __init__(self, store: EventStore):
        self.store = store

    def create(self, name: str) -> dict[str, Any]:
        """A new player and its token (shown this once)."""
        player_id = uuid.uuid4().hex[:16]
        token = new_token(player_id)
        self.store.add_player(player_id, name, hash_token(token))
        return {"id": player_id, "name": name, "token": token}

    def authenticate(self, token: str | None) -> dict[str, Any] | None:
        """The player a bearer token belongs to; None without a token."""
        if token is None:
            return None
        player = self.store.player_by_token(hash_token(token), player_named_by(token))
        if player is None:
            raise Unauthorized("the bearer token is not a known player's token")
        return player

    def token_generation(self) -> int:
        """Changes whenever any token is rotated or revoked (one cheap read)."""
        return self.store.token_generation()

    def still_current(self, credentials: Collection[tuple[str, str]]) -> set[tuple[str, str]]:
        """Those of ``credentials`` (a reader's player id and ``hash_token`` of the token it
        came with) whose token was neither rotated nor revoked since: one store call for all."""
        return self.store.current_tokens(credentials)

    def rotate_token(self, token: str) -> dict[str, Any]:
        """A new token for the caller; the one it came with stops working at once."""
        player = self._known(token)
        new = new_token(player["id"])
        if not self.store.replace_token(player["id"], hash_token(token), hash_token(new)):
            raise Unauthorized("this token was revoked or rotated meanwhile")
        return {**player, "token": new}

    def revoke_token(self, token: str) -> None:
        """The caller's token stops working (a leaked token: rotate instead, to keep access)."""
        player = self._known(token)
        if not self.store.replace_token(player["id"], hash_token(token), None):
            raise Unauthorized("this token was revoked or rotated meanwhile")

    def _known(self, token: str) -> dict[str, Any]:
        player = self.authenticate(token)
        assert player is not None
        return player

    def restore(self, player_id: str, name: str) -> None:
        """A player of a game restored from this server's own signed log, recorded here if
        missing (a restore onto another store), so that the game's listings lead somewhere.
        It has no valid token: nobody can act as it here."""
        if self.store.player(player_id) is not None:
            return
        try:
            self.store.add_player(player_id, name, f"revoked:{player_id}")  # no token hashes to this
        except Exception:
            if self.store.player(player_id) is None:  # not a concurrent restore of the same player
                raise

    def get(self, player_id: str) -> dict[str, Any]:
        player = self.store.player(player_id)
        if player is None:
            raise NotFound(f"no player with id {player_id!r}")
        return player
