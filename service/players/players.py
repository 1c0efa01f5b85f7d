"""Players: registration, and bearer tokens that can be rotated and revoked at once.

A token is ``<player id>.<256 random bits>``; the store keeps only its SHA-256, so a copy
of the store gives nobody a working token. The id in front lets a store find the token's
player where that player's record lives (on a Redis Cluster: the one slot of that player,
not one slot for everyone), and is checked there like the rest: a token with another
player's id in front matches nobody. Tokens issued before they carried an id stay valid
(``PlayerRecorder.player_by_token`` without an id). Rotation and revocation replace the stored hash with a
compare-and-set that also moves the store's token generation (a counter), and a revoked
token stops working everywhere at once: a process keeps the tokens it checked (``Kept``),
each valid at the generation it was checked at, and uses a kept token only where the
current generation is checked with it in the same round trip: the hot reads read it with
the game's version (``authenticate_at``), a command's append refuses to store anything if
it moved (``as_checked``: the token is then looked up again and the command run again).
Every other request looks its token up. On a Redis Cluster the generation is in another
slot than the game: nothing is kept there (``EventStore.tokens_cacheable``). An open live stream keeps the hash of the token
it was opened with (its credential); once a second the process's ``LiveHub`` reads the
store's token generation (a counter every rotation and revocation moves) and, when it
moved, re-checks every open stream's credential with one call (``still_current``): a
stream whose token was rotated or revoked ends within that second, on every process.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson
from cryptography.fernet import Fernet, InvalidToken

from service.adapters.store import EventStore, TokensChanged
from service.base.errors import NotFound, Unauthorized

T = TypeVar("T")

#: tokens a process keeps checked (the least recently used go first)
KEPT_TOKENS = 10_000
#: a kept token is looked up again after this long, whatever the generation says
KEPT_SECONDS = 60.0
#: how often a command is run again after a token rotation elsewhere refused its append
TOKEN_RETRIES = 5

#: how long a sign-in link works (``sign_in_link``)
SIGN_IN_LINK_SECONDS = 600

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


@dataclass(frozen=True)
class Kept:
    """A token this process checked: its player, the token generation it was current at,
    and when (``time.monotonic``)."""

    player: dict[str, Any]
    generation: int
    at: float


class Players:
    def __init__(self, store: EventStore, kept_tokens: int = KEPT_TOKENS):
        self.store = store
        self._kept: OrderedDict[str, Kept] = OrderedDict()  # token hash -> Kept
        self._kept_size = kept_tokens
        self._lock = threading.Lock()
        self._rotation_secret: str | None = None
        self._link_key: Fernet | None = None

    def create(self, name: str) -> dict[str, Any]:
        """A new player and its token (shown this once)."""
        player_id = uuid.uuid4().hex[:16]
        token = new_token(player_id)
        self.store.add_player(player_id, name, hash_token(token))
        return {"id": player_id, "name": name, "token": token}

    def authenticate(self, token: str | None) -> dict[str, Any] | None:
        """The player a bearer token belongs to, looked up in the store; None without a token."""
        if token is None:
            return None
        return self._look_up(token)[0]

    def authenticate_at(self, token: str, generation: int) -> dict[str, Any]:
        """The player of ``token``, where ``generation`` is the store's token generation just
        read: a token kept at that generation needs no lookup."""
        kept = self._kept_token(hash_token(token))
        if kept is not None and kept.generation == generation:
            return dict(kept.player)
        return self._look_up(token)[0]

    def as_checked(self, token: str, run: Callable[[dict[str, Any], int | None], T], *, fresh: bool = False) -> T:
        """``run(player, generation)`` for the player of ``token``, kept or looked up; ``run``
        appends with ``token_generation=generation``, which stores nothing if a token was
        rotated or revoked since (``TokensChanged``): the token is then looked up again (401
        if it was this one) and ``run`` called again. An answer that is not an append's is
        not checked by one: a refusal from a kept token is given only once the token was
        looked up again (401 first if it is no longer current), and ``fresh`` (a request
        that may be answered from a record, as an idempotent retry is) looks it up first."""
        kept = None if fresh else self._kept_token(hash_token(token))
        player, generation = (dict(kept.player), kept.generation) if kept is not None else self._look_up(token)
        for _ in range(TOKEN_RETRIES):
            try:
                return run(player, generation)
            except TokensChanged:
                player, generation = self._look_up(token)
                kept = None
            except Exception:
                if kept is not None:  # refused on a kept token: 401 instead if it is no longer current
                    self._look_up(token)
                raise
        raise Unauthorized("tokens keep changing; try again")

    def _look_up(self, token: str) -> tuple[dict[str, Any], int | None]:
        """The token's player from the store, and the generation it is current at (kept, on a
        store where kept tokens can be trusted; None elsewhere)."""
        hashed = hash_token(token)
        cacheable = self.store.tokens_cacheable
        if cacheable:
            player, generation = self.store.checked_token(hashed, player_named_by(token))
        else:  # the player's own record alone (a cluster: the generation's slot is not asked)
            player, generation = self.store.player_by_token(hashed, player_named_by(token)), 0
        if player is None:
            with self._lock:
                self._kept.pop(hashed, None)
            raise Unauthorized("the bearer token is not a known player's token")
        if not cacheable:
            return player, None
        with self._lock:
            self._kept[hashed] = Kept(dict(player), generation, time.monotonic())
            self._kept.move_to_end(hashed)
            while len(self._kept) > self._kept_size:
                self._kept.popitem(last=False)
        return player, generation

    def _kept_token(self, hashed: str) -> Kept | None:
        if not self.store.tokens_cacheable:
            return None
        with self._lock:
            kept = self._kept.get(hashed)
            if kept is None:
                return None
            if time.monotonic() - kept.at > KEPT_SECONDS:
                del self._kept[hashed]
                return None
            self._kept.move_to_end(hashed)
            return kept

    def token_generation(self) -> int:
        """Changes whenever any token is rotated or revoked (one cheap read)."""
        return self.store.token_generation()

    def still_current(self, credentials: Collection[tuple[str, str]]) -> set[tuple[str, str]]:
        """Those of ``credentials`` (a reader's player id and ``hash_token`` of the token it
        came with) whose token was neither rotated nor revoked since: one store call for all."""
        return self.store.current_tokens(credentials)

    def rotate_token(self, token: str, idempotency_key: str | None = None) -> dict[str, Any]:
        """A new token for the caller; the one it came with stops working at once.

        With an ``idempotency_key`` the rotation can be retried: the new token is then derived
        from the old one, the key and a server secret (``_rotated``), so a retry whose answer
        was lost (the old token already dead) finds the same new token still current and gets
        it again, instead of a 401 that would lock the player out. Nobody derives it without
        the old token, the key and the secret, which never leaves the store."""
        if idempotency_key is None:
            player = self._known(token)
            new = new_token(player["id"])
        else:
            new = self._rotated(token, idempotency_key)
            player_id = player_named_by(token)
            again = self.store.player_by_token(hash_token(new), player_id) if player_id else None
            if again is not None:  # a retry: this rotation happened, and its token is still current
                return {**again, "token": new}
            player = self._known(token)
            if player["id"] != player_id:  # a token from before ids were in front: no retry to offer
                new = new_token(player["id"])
        if not self.store.replace_token(player["id"], hash_token(token), hash_token(new)):
            again = self.store.player_by_token(hash_token(new), player["id"])
            if again is not None:  # the same rotation, retried at the same moment, came first
                return {**again, "token": new}
            raise Unauthorized("this token was revoked or rotated meanwhile")
        return {**player, "token": new}

    def _rotated(self, token: str, idempotency_key: str) -> str:
        """The token a rotation of ``token`` with ``idempotency_key`` issues (deterministic)."""
        if self._rotation_secret is None:
            self._rotation_secret = self.store.secret("token-rotation", secrets.token_hex(32))
        mac = hmac.new(bytes.fromhex(self._rotation_secret),
                       hash_token(token).encode() + b"\0" + idempotency_key.encode(), hashlib.sha256)
        player_id = player_named_by(token) or ""
        return f"{player_id}.{base64.urlsafe_b64encode(mac.digest()).decode().rstrip('=')}"

    def sign_in_link(self, token: str) -> dict[str, Any]:
        """A one-time code that signs another tab or device in as the caller, with the same token (so
        the tab it came from stays signed in), for ``SIGN_IN_LINK_SECONDS``.

        The code is a Fernet token (``cryptography``: AES and an HMAC) of the bearer token under a key
        every process shares: the store keeps no copy of the token. A code works once (``sign_in``),
        and not at all once the token it holds was rotated or revoked."""
        self._known(token)
        code = self._links().encrypt(orjson.dumps({"token": token})).decode()
        return {"code": code, "expires_in": SIGN_IN_LINK_SECONDS}

    def sign_in(self, code: str) -> dict[str, Any]:
        """The player (and token) a sign-in code stands for; 401 saying why if it is expired, altered,
        used already or holds a token that was rotated or revoked since."""
        try:
            token = orjson.loads(self._links().decrypt(code.encode(), ttl=SIGN_IN_LINK_SECONDS))["token"]
        except (InvalidToken, orjson.JSONDecodeError, UnicodeEncodeError, KeyError, TypeError):
            raise Unauthorized(f"this sign-in code is expired (codes last {SIGN_IN_LINK_SECONDS // 60} minutes), "
                               "altered or not a code: ask the signed-in tab for a new one") from None
        # once: the first redemption records its mark (set if absent, atomic in every store); later ones find it
        mark = secrets.token_hex(8)
        if self.store.secret(f"sign-in-code-used:{hashlib.sha256(code.encode()).hexdigest()}", mark) != mark:
            raise Unauthorized("this sign-in code was used already: ask the signed-in tab for a new one")
        player = self.authenticate(token)
        assert player is not None
        return {**player, "token": token}

    def _links(self) -> Fernet:
        if self._link_key is None:  # read from the store on first use, not when the app is built
            self._link_key = Fernet(self.store.secret("sign-in-link-key", Fernet.generate_key().decode()).encode())
        return self._link_key

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
