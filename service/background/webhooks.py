"""Webhooks: a game's events pushed to a URL, signed the Standard Webhooks way.

**Subscriptions.** A player subscribes a URL for every game they sit at, or for one game;
an operator (``GAMES_OPERATOR_TOKEN``) for every game's public events. A subscription is a
stream of its own (``webhook-<id>``: ``WebhookSubscribed``, ``WebhookSecretRotated``,
``WebhookUnsubscribed``), its secret shown once, at creation or rotation (the replaced secret
keeps signing beside the new one for a grace period). The URL must be http(s) and resolve only to addresses the
allow-list admits: public ones, and private or loopback ranges only when configured
(``GAMES_WEBHOOK_ALLOW``), so the server cannot be turned against its own network. The
check runs at subscription and again before every delivery (a name may move), and each
delivery's connection is refused unless the address it reached is allowed (a name that
moves between the check and the connection, DNS rebinding). An IPv6 address that carries an
IPv4 one (mapped, compatible, NAT64, 6to4, Teredo: ``carried_ipv4``) is judged by the IPv4
address inside, which is where a packet to it ends up.

**What is delivered.** Each event of a covered game, as the subscriber's seat may see it
(``audience``: a player's own seat, a spectator for an operator or a player without a
seat), one event per request, in order per game; or, with the ``chat`` preset, a chat
room message (``{"text", "content"}``: Slack and Discord read one each) when it becomes
the player's turn, and the reminder when the player's clock has used 80% of its time
(``ClockWarned``). Every request carries ``webhook-id`` (the same for every retry of one
delivery, so a receiver drops repeats), ``webhook-timestamp`` and ``webhook-signature``
(``v1,`` HMAC-SHA256 by the ``standardwebhooks`` library; a receiver checks it with
``standardwebhooks.Webhook(secret).verify(body, headers)``).

**Exactly once in effect.** Per subscription and game, a stream ``webhook-<id>-<game>``
records each outcome (``WebhookDelivered``, ``WebhookFailed`` with its attempt, and
``WebhookDeadLettered`` once ``webhook_max_attempts`` are spent), appended at the version
the runner read, so two runners never both record one delivery. A failure stops that
game's deliveries for the subscription until the retry, after ``webhook_backoff * 2^(n-1)``
seconds (exponential backoff); a dead letter is skipped and kept for a replay
(``POST /webhooks/{id}/replay``), which sends it again with the same ``webhook-id``.

**Who delivers.** With RQ workers, the webhooks' lane: an append enqueues one fan-out job
per game, which enqueues one delivery job per subscription (``service.background.webhook_jobs``), and
a retry is an ``enqueue_in`` job run by the lane's scheduler; on the embedded store, threads
of the background process (``service.running.background``) do the same work with a timer queue.
Each delivery has a deadline for the whole exchange (``webhook_timeout``): past it, the
attempt has failed and the subscription waits out its own backoff.
"""

from __future__ import annotations

import base64
import ipaddress
import logging
import secrets
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import requests
from standardwebhooks import Webhook

from domain.kernel import Event
from domain.kernel.clocks import CLOCK_WARNED
from service.adapters.codec import dumps
from service.adapters.store import EventStore, Recorded, VersionConflict
from service.background.timers import TimerThread
from service.base.config import Config
from service.base.errors import Conflict, Forbidden, NotFound, TooManyRequests, Unprocessable
from service.streams.envelopes import game_of, public_event, stream_of
from service.streams.game import Game, audience
from service.streams.loading import GameLoader

log = logging.getLogger(__name__)

PLAYER_GAMES, ONE_GAME, PUBLIC = "my_games", "game", "public"
SCOPES = (PLAYER_GAMES, ONE_GAME, PUBLIC)
RAW, CHAT = "events", "chat"
PRESETS = (RAW, CHAT)
OPERATOR = "operator"

SUBSCRIBED, UNSUBSCRIBED, ROTATED = "WebhookSubscribed", "WebhookUnsubscribed", "WebhookSecretRotated"
DELIVERED, FAILED, DEAD, REPLAYED = "WebhookDelivered", "WebhookFailed", "WebhookDeadLettered", "WebhookReplayed"

MAX_URL = 2048
#: a webhook URL's form, as openapi.yaml states it: http or https, a host (a name, or an IPv6
#: address in brackets) with no user name, an optional port; whether the host resolves, and to
#: an address the server may post to, ``check_url`` asks when subscribing
#: (no \s nor \S: what they match differs between Python's and JavaScript's regular expressions)
URL_PATTERN = (r"^[Hh][Tt][Tt][Pp][Ss]?://(\[[0-9A-Fa-f:.]+\]|[^\x00-\x20\x7f/?#@:\[\]]+)(:[0-9]{1,5})?"
               r"([/?#][^\x00-\x20\x7f]*)?$")
_ALL = "webhooks:all"


@dataclass(frozen=True)
class WebhookSettings:
    #: networks (CIDR) or host names a URL may reach besides the public internet
    allow: tuple[str, ...] = ()
    max_attempts: int = 8
    backoff: float = 5.0
    timeout: float = 5.0
    #: the most subscriptions one player may hold, and hold for one game (0: no limit)
    per_player: int = 20
    per_game: int = 5
    #: seconds a secret replaced by a rotation keeps signing deliveries beside the new one
    secret_grace: float = 86_400.0

    @classmethod
    def from_config(cls, config: Config) -> WebhookSettings:
        return cls(config.webhook_allow, config.webhook_max_attempts, config.webhook_backoff,
                   config.webhook_timeout, per_player=config.limit_webhooks_per_player,
                   per_game=config.limit_webhooks_per_game, secret_grace=config.webhook_secret_grace)


# -- the allow-list -------------------------------------------------------------------------
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

#: IPv6 ranges whose addresses carry an IPv4 one: (range, where the IPv4 sits (bit offsets from
#: the left), whether it is inverted (Teredo)). A packet to one of them reaches, or may reach
#: through a translator or a tunnel, the IPv4 address inside, so that address is judged.
_CARRIERS: tuple[tuple[ipaddress.IPv6Network, tuple[int, ...], bool], ...] = (
    (ipaddress.IPv6Network("::ffff:0:0/96"), (96,), False),  # IPv4-mapped
    (ipaddress.IPv6Network("::/96"), (96,), False),  # IPv4-compatible (deprecated), ::1 and :: too
    (ipaddress.IPv6Network("::ffff:0:0:0/96"), (96,), False),  # IPv4-translated (SIIT)
    (ipaddress.IPv6Network("64:ff9b::/96"), (96,), False),  # NAT64, the well-known prefix
    # NAT64, local use: the IPv4 sits where RFC 6052 puts it for the prefix length the
    # translator uses (/48, /56, /64 or /96), which the server cannot know: each is judged
    (ipaddress.IPv6Network("64:ff9b:1::/48"), (48, 56, 64, 96), False),
    (ipaddress.IPv6Network("2002::/16"), (16,), False),  # 6to4
    (ipaddress.IPv6Network("2001::/32"), (96,), True),  # Teredo: the client, inverted
)


def carried_ipv4(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (mapped, compatible, translated, NAT64,
    6to4, Teredo), which a connection to it may reach; none for any other address."""
    if ip.version == 4:
        return []
    bits = int(ip)
    for net, offsets, inverted in _CARRIERS:
        if ip in net:
            return [ipaddress.IPv4Address(_rfc6052_bits(bits, offset) ^ (0xFFFFFFFF if inverted else 0))
                    for offset in offsets]
    return []


def _rfc6052_bits(bits: int, offset: int) -> int:
    """The 32 bits from ``offset`` (from the left of 128), skipping bits 64-71 (RFC 6052's
    "u" octet, always zero) when the span crosses them."""
    if offset in (48, 56):  # 32 bits around the u octet: (64 - offset) before it, the rest after
        before = 64 - offset
        high = (bits >> 64) & ((1 << before) - 1)
        low = (bits >> (128 - 72 - (32 - before))) & ((1 << (32 - before)) - 1)
        return (high << (32 - before)) | low
    if offset == 64:
        return (bits >> (128 - 72 - 32)) & 0xFFFFFFFF
    return (bits >> (128 - offset - 32)) & 0xFFFFFFFF


def _allowed_address(address: str, networks: list[Network]) -> bool:
    """Is ``address`` in the allow-list's networks, or public? An IPv6 address that carries
    an IPv4 one is judged by the IPv4 address inside (``[::127.0.0.1]``, 6to4
    ``[2002:7f00:1::1]`` and NAT64 ``[64:ff9b::a9fe:a9fe]`` are loopback and link-local)."""
    ip = ipaddress.ip_address(address.split("%")[0])
    if any(ip in net for net in networks if net.version == ip.version):
        return True
    inside = carried_ipv4(ip)
    if inside:
        return all(_allowed_address(str(v4), networks) for v4 in inside)
    return ip.is_global and not ip.is_multicast


def _allow_list(allow: tuple[str, ...]) -> tuple[set[str], list[Network]]:
    """The allow-list's host names (lower case) and its networks (addresses and ranges)."""
    names = {a.lower() for a in allow if "/" not in a and not _is_ip(a)}
    return names, [ipaddress.ip_network(a, strict=False) for a in allow if "/" in a or _is_ip(a)]


def check_url(url: object, allow: tuple[str, ...]) -> str:
    """``url`` if the server may post to it, else ``Unprocessable`` with the reason."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL:
        raise Unprocessable(f"url must be a string of 1 to {MAX_URL} characters", code="invalid_webhook_url")
    try:
        parts = urlsplit(url)
    except ValueError:  # a bracketed host that is no IPv6 address
        raise Unprocessable(f"the host of url {url[:80]!r} is no IPv6 address", code="webhook_host_unknown") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Unprocessable("url must be an http:// or https:// URL with a host", code="invalid_webhook_url")
    if parts.username or parts.password:
        raise Unprocessable("url must not carry a user name or password", code="invalid_webhook_url")
    host = parts.hostname
    names, networks = _allow_list(allow)
    if host.lower() in names:
        return url
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        addresses = {info[4][0] for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)}
    except (OSError, ValueError, UnicodeError):
        raise Unprocessable(f"the host {host!r} of url does not resolve", code="webhook_host_unknown") from None
    refused = sorted(a for a in addresses if not _allowed_address(str(a), networks))
    if refused:
        raise Unprocessable(f"url resolves to {', '.join(map(str, refused))}, a loopback, private or reserved "
                            "address outside this server's webhook allow-list", code="webhook_url_not_allowed")
    return url


class DeadlineExceeded(Exception):
    """A delivery's exchange outlasted its deadline: a failed attempt."""


class PeerRefused(Exception):
    """The connection reached an address outside the allow-list (the name moved after the check).
    Not an OSError, so urllib3 neither retries it nor hides it in a MaxRetryError."""


def checked_session(allow: tuple[str, ...], on_socket: Callable[[socket.socket], None] | None = None
                    ) -> requests.Session:
    """A session whose every connection is refused, before a byte is sent, unless the address
    it actually reached is allowed. ``check_url`` resolves the name, and the connection would
    resolve it again: a name that answers a public address to the check and a private one to
    the connection (DNS rebinding) is caught here, on the socket itself. Names the allow-list
    admits by name are not checked by address, as in ``check_url``; proxies from the
    environment are not used (the peer would be the proxy). ``on_socket`` is handed each
    socket it connects (a delivery's deadline cuts them)."""
    names, networks = _allow_list(allow)

    def checked(connection_class: type[Any]) -> type[Any]:
        class Checked(connection_class):
            def _new_conn(self) -> socket.socket:  # urllib3's raw connect, before TLS and the request
                sock = super()._new_conn()
                peer = sock.getpeername()[0]
                if self.host.lower() not in names and not _allowed_address(peer, networks):
                    sock.close()
                    raise PeerRefused(f"{self.host} now resolves to {peer}, a loopback, private or reserved "
                                       "address outside this server's webhook allow-list")
                if on_socket is not None:
                    on_socket(sock)
                return sock
        return Checked

    class Adapter(requests.adapters.HTTPAdapter):
        def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
            super().init_poolmanager(*args, **kwargs)
            pools: dict[str, Any] = {}
            known: dict[str, Any] = self.poolmanager.pool_classes_by_scheme
            for scheme, pool in known.items():
                pools[scheme] = type(f"Checked{pool.__name__}", (pool,), {"ConnectionCls": checked(pool.ConnectionCls)})
            self.poolmanager.pool_classes_by_scheme = pools

    session = requests.Session()
    session.trust_env = False
    for prefix in ("http://", "https://"):
        session.mount(prefix, Adapter())
    return session


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


# -- a subscription and its deliveries, as folds of their streams ------------------------------
@dataclass
class Subscription:
    id: str
    owner: str  # a player id, or OPERATOR
    scope: str
    game_id: str | None
    url: str
    preset: str
    secret: str
    created_at: str
    active: bool = True
    #: secrets replaced by a rotation, each with the Unix time its grace period ends
    replaced: list[tuple[str, float]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "owner": self.owner, "scope": self.scope, "game_id": self.game_id, "url": self.url,
                "preset": self.preset, "created_at": self.created_at, "active": self.active}

    def signature(self, delivery_id: str, at: datetime, body: str) -> str:
        """The ``webhook-signature`` header: a ``v1,`` signature by the current secret, then
        one by each replaced secret still in its grace period, space-separated as Standard
        Webhooks allows (a receiver accepts the request if any one matches its secret)."""
        secrets_now = [self.secret, *(old for old, until in self.replaced if until > at.timestamp())]
        return " ".join(Webhook(secret).sign(delivery_id, at, body) for secret in secrets_now)


@dataclass
class DeliveryLog:
    """What happened to the deliveries of one game for one subscription."""

    version: int = 0  # of the log's stream
    cursor: int = 0  # the last game version delivered or dead-lettered in order
    attempts: dict[str, int] = field(default_factory=dict)
    delivered: set[str] = field(default_factory=set)
    dead: dict[str, int] = field(default_factory=dict)  # delivery id -> game version
    replaying: dict[str, int] = field(default_factory=dict)  # dead letters asked for again
    retry_at: float = 0.0

    def apply(self, record: Recorded) -> None:
        data = record.event["data"]
        kind = record.event["type"]
        self.version = record.version
        if kind == DELIVERED:
            self.delivered.add(data["delivery_id"])
            self.dead.pop(data["delivery_id"], None)
            self.replaying.pop(data["delivery_id"], None)
            self.cursor = max(self.cursor, data["version"])
            self.retry_at = 0.0
        elif kind == FAILED:
            self.attempts[data["delivery_id"]] = data["attempt"]
            self.retry_at = data["retry_at"]
        elif kind == DEAD:
            self.dead[data["delivery_id"]] = data["version"]
            self.replaying.pop(data["delivery_id"], None)
            self.cursor = max(self.cursor, data["version"])
            self.retry_at = 0.0
        elif kind == REPLAYED and data["delivery_id"] in self.dead:
            self.attempts.pop(data["delivery_id"], None)
            self.replaying[data["delivery_id"]] = self.dead[data["delivery_id"]]


def _event(kind: str, data: dict[str, Any], secret: dict[str, Any] | None = None) -> dict[str, Any]:
    out = Event(kind, data, secret=secret).to_json()
    return {**out, "source": "webhooks", "actor": None, "v": 1, "at": _now_iso()}


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _delivery_id(sub: str, game_id: str, version: int) -> str:
    return f"msg_{sub}_{game_id}_{version}"


class Webhooks:
    def __init__(self, store: EventStore, loader: GameLoader, settings: WebhookSettings,
                 post: Callable[..., Any] | None = None, wake: Callable[[str], None] | None = None):
        self.store = store
        self.loader = loader
        self.settings = settings
        self._post = post or self._checked_post
        #: tells the runner that delivers (a thread, or RQ jobs) a game has news for it; the
        #: runner builds its webhooks with its own (``InProcessDeliveries``, ``RqDeliveries``)
        self.wake: Callable[[str], None] = wake or (lambda game_id: None)
        self._any, self._checked_at = False, -1e9

    # -- subscriptions ----------------------------------------------------------------------
    def subscribe(self, owner: str, url: Any, scope: str, game_id: str | None = None,
                  preset: str = RAW) -> dict[str, Any]:
        if scope not in SCOPES:
            raise Unprocessable(f"scope must be one of {', '.join(SCOPES)}", code="invalid_input")
        if preset not in PRESETS:
            raise Unprocessable(f"preset must be one of {', '.join(PRESETS)}", code="invalid_input")
        if (scope == PUBLIC) != (owner == OPERATOR):
            raise Forbidden("only an operator subscribes to every game's public events; a player subscribes "
                            f"to {PLAYER_GAMES!r} or one {ONE_GAME!r}" if scope == PUBLIC else
                            "the operator token subscribes to the public scope only")
        if scope == ONE_GAME:
            if not isinstance(game_id, str):
                raise Unprocessable("scope 'game' needs a game_id", code="invalid_input")
            self.loader.load(game_id)  # NotFound for an unknown game
        else:
            game_id = None
        if preset == CHAT and owner == OPERATOR:
            raise Forbidden("the chat preset tells a player it is their turn: it needs a player's subscription")
        check_url(url, self.settings.allow)
        if owner != OPERATOR:
            self._check_quota(owner, game_id)
        sub_id = uuid.uuid4().hex[:16]
        secret = _new_secret()
        created = _event(SUBSCRIBED, {"owner": owner, "scope": scope, "game_id": game_id, "url": url,
                                      "preset": preset}, secret={"secret": secret})
        self.store.append(_sub_stream(sub_id), 0, [created])
        self.store.set_add(_owner_set(owner), sub_id)
        self.store.set_add(_scope_set(scope, game_id, owner), sub_id)
        self.store.set_add(_ALL, sub_id)
        self._any = True
        return {**self.load(sub_id).to_json(), "secret": secret}

    def _check_quota(self, owner: str, game_id: str | None) -> None:
        """A player holds at most ``per_player`` subscriptions, ``per_game`` of them for one game."""
        mine = self.store.set_members(_owner_set(owner))
        limit = self.settings.per_player
        if limit and len(mine) >= limit:
            raise TooManyRequests(f"you already have {len(mine)} webhook subscriptions (at most {limit}); "
                                  "delete one before adding another", code="too_many_webhooks", retry_after=60)
        limit = self.settings.per_game
        if game_id is not None and limit:
            for_game = set(mine) & set(self.store.set_members(_scope_set(ONE_GAME, game_id, owner)))
            if len(for_game) >= limit:
                raise TooManyRequests(f"you already have {len(for_game)} webhook subscriptions for game {game_id} "
                                      f"(at most {limit}); delete one before adding another",
                                      code="too_many_webhooks", retry_after=60)

    def load(self, sub_id: str) -> Subscription:
        records = self.store.read(_sub_stream(sub_id))
        if not records or records[0].event["type"] != SUBSCRIBED:
            raise NotFound(f"no webhook subscription {sub_id!r}")
        data, first = records[0].event["data"], records[0].event
        sub = Subscription(sub_id, data["owner"], data["scope"], data["game_id"], data["url"], data["preset"],
                           first["secret"]["secret"], first["at"])
        for record in records[1:]:
            if record.event["type"] == UNSUBSCRIBED:
                sub.active = False
            elif record.event["type"] == ROTATED:
                sub.replaced.append((sub.secret, record.event["data"]["grace_until"]))
                sub.secret = record.event["secret"]["secret"]
        return sub

    def rotate_secret(self, sub_id: str, owner: str) -> dict[str, Any]:
        """A new signing secret, shown once, in this answer. The replaced one still signs
        every delivery beside it for ``secret_grace`` seconds, so a receiver can switch to
        the new secret at any time within that period without rejecting a request."""
        stream = _sub_stream(sub_id)
        for _ in range(5):
            sub = self.owned(sub_id, owner)
            if not sub.active:
                raise NotFound(f"no webhook subscription {sub_id!r} of yours")
            secret, grace_until = _new_secret(), time.time() + self.settings.secret_grace
            try:
                self.store.append(stream, self.store.version(stream),
                                  [_event(ROTATED, {"grace_until": grace_until}, secret={"secret": secret})])
            except VersionConflict:
                continue  # rotated or deleted meanwhile: look again
            until = datetime.fromtimestamp(grace_until, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
            return {**self.load(sub_id).to_json(), "secret": secret, "previous_secret_valid_until": until}
        raise Conflict("the subscription kept changing; try again", code="busy")

    def owned(self, sub_id: str, owner: str) -> Subscription:
        sub = self.load(sub_id) if _safe_id(sub_id) else None
        if sub is None or sub.owner != owner:
            raise NotFound(f"no webhook subscription {sub_id!r} of yours")
        return sub

    def of_owner(self, owner: str) -> list[dict[str, Any]]:
        subs = [self.load(s) for s in sorted(self.store.set_members(_owner_set(owner)))]
        return [s.to_json() for s in sorted(subs, key=lambda s: s.created_at) if s.active]

    def unsubscribe(self, sub_id: str, owner: str) -> None:
        sub = self.owned(sub_id, owner)
        if sub.active:
            try:
                self.store.append(_sub_stream(sub_id), self.store.version(_sub_stream(sub_id)),
                                  [_event(UNSUBSCRIBED, {})])
            except VersionConflict:
                pass
        for name in (_owner_set(owner), _scope_set(sub.scope, sub.game_id, owner), _ALL):
            self.store.set_remove(name, sub_id)

    def deliveries(self, sub_id: str, owner: str, limit: int = 100) -> list[dict[str, Any]]:
        """The latest outcomes of the subscription's deliveries, newest first. Only the last
        ``limit`` outcomes of each game's log are read: none older can be among the latest."""
        self.owned(sub_id, owner)
        out = []
        for game_id in self.store.set_members(_games_set(sub_id)):
            log_stream = _log_stream(sub_id, game_id)
            for record in self.store.read(log_stream, max(0, self.store.version(log_stream) - limit)):
                out.append({"delivery_id": record.event["data"]["delivery_id"], "game_id": game_id,
                            "outcome": {DELIVERED: "delivered", FAILED: "failed", DEAD: "dead_lettered",
                                        REPLAYED: "replay_requested"}[record.event["type"]],
                            **{k: v for k, v in record.event["data"].items() if k != "delivery_id"},
                            "at": record.event["at"]})
        return sorted(out, key=lambda d: d["at"], reverse=True)[:limit]

    def replay_failed(self, sub_id: str, owner: str) -> list[str]:
        """Send every dead-lettered delivery again (the same ``webhook-id``)."""
        self.owned(sub_id, owner)
        replayed = []
        for game_id in self.store.set_members(_games_set(sub_id)):
            stream = _log_stream(sub_id, game_id)
            for _ in range(5):
                journal = self._journal(sub_id, game_id)
                wanted = sorted(set(journal.dead) - set(journal.replaying))
                if not wanted:
                    break
                try:
                    self.store.append(stream, journal.version, [_event(REPLAYED, {"delivery_id": d}) for d in wanted])
                    replayed += wanted
                    break
                except VersionConflict:
                    continue
            self.wake(game_id)
        return replayed

    # -- who gets a game's events --------------------------------------------------------------
    def targets(self, game: Game) -> list[str]:
        names = [_scope_set(PUBLIC, None, OPERATOR), _scope_set(ONE_GAME, game.id, "")]
        names += [_scope_set(PLAYER_GAMES, None, player) for player in game.table.players.values()]
        found: set[str] = set()
        for name in names:
            found.update(self.store.set_members(name))
        return sorted(found)

    def subscriptions_changed(self) -> None:
        """Another process subscribed or unsubscribed: look again at the next append."""
        self._checked_at = -1e9

    def has_subscriptions(self) -> bool:
        """Is any URL subscribed? (read at most once a second: appends ask it)"""
        now = time.monotonic()
        if now - self._checked_at > 1.0:
            self._any, self._checked_at = bool(self.store.set_members(_ALL)), now
        return self._any

    # -- delivering ------------------------------------------------------------------------------
    def _journal(self, sub_id: str, game_id: str) -> DeliveryLog:
        journal = DeliveryLog()
        for record in self.store.read(_log_stream(sub_id, game_id)):
            journal.apply(record)
        return journal

    def deliver(self, sub_id: str, game_id: str) -> float | None:
        """Deliver what is due of ``game_id`` to the subscription, in order; the seconds until
        a retry is due (None: nothing left, or another runner is on it)."""
        sub = self.load(sub_id)
        if not sub.active:
            return None
        game = self.loader.load(game_id)
        journal = self._journal(sub_id, game_id)
        if journal.retry_at > time.time():
            return journal.retry_at - time.time()
        self.store.set_add(_games_set(sub_id), game_id)
        for delivery_id, version, body in self._due(sub, game, journal):
            attempt = journal.attempts.get(delivery_id, 0) + 1
            ok, status, error = self._send(sub, delivery_id, body)
            data: dict[str, Any] = {"delivery_id": delivery_id, "version": version, "attempt": attempt,
                                    "status": status}
            if ok:
                events = [_event(DELIVERED, data)]
            else:
                delay = self.settings.backoff * 2 ** (attempt - 1)
                events = [_event(FAILED, {**data, "error": error, "retry_at": time.time() + delay})]
                if attempt >= self.settings.max_attempts:
                    events.append(_event(DEAD, {"delivery_id": delivery_id, "version": version}))
            try:
                self.store.append(_log_stream(sub_id, game_id), journal.version, events)
            except VersionConflict:
                return None  # another runner recorded this one first and goes on from there
            base = journal.version
            for offset, body_event in enumerate(events, start=1):
                journal.apply(Recorded(_log_stream(sub_id, game_id), base + offset, body_event))
            if not ok and attempt < self.settings.max_attempts:
                return self.settings.backoff * 2 ** (attempt - 1)
        return None

    def _due(self, sub: Subscription, game: Game, journal: DeliveryLog) -> Iterator[tuple[str, int, str]]:
        """(delivery id, game version, body) of every delivery due, oldest first: dead letters
        asked for again, then the game's events after the cursor."""
        player = None if sub.owner == OPERATOR else {"id": sub.owner}
        viewer = audience(game, player)
        replays = set(journal.replaying.values())
        records = self.store.read(stream_of(game.id), journal.cursor, game.version)
        older = self.store.read(stream_of(game.id), min(replays) - 1, max(replays)) if replays else []
        for record in [r for r in older if r.version in replays] + records:
            if record.event.get("at", "") < sub.created_at and record.version not in replays:
                continue
            body = self._body(sub, game, record, viewer)
            if body is not None:
                yield _delivery_id(sub.id, game.id, record.version), record.version, body

    def _body(self, sub: Subscription, game: Game, record: Recorded, viewer: Any) -> str | None:
        if sub.preset == CHAT:
            seat = game.table.seat_of(sub.owner)
            if record.event["type"] == CLOCK_WARNED:  # the reminder at 80% of the seat's time
                if seat is None or record.event["data"]["seat"] != seat:
                    return None
                text = (f"Your clock in game {game.id} ({game.rules.title}) runs out in "
                        f"{_duration(record.event['data']['seconds_left'])}, at {record.event['data']['deadline']}.")
                return dumps({"text": text, "content": text, "game_id": game.id, "version": record.version}).decode()
            after = record.event.get("after")
            if not after or seat is None or seat not in after.get("to_move", ()) or record.event.get("actor") == seat:
                return None
            text = f"Your turn in game {game.id} ({game.rules.title}), at version {record.version}."
            return dumps({"text": text, "content": text, "game_id": game.id, "version": record.version}).decode()
        return dumps({"type": "game.event", "timestamp": record.event.get("at"),
                      "data": {"game_id": game.id, "game_type": game.table.game_type,
                               "event": public_event(record, viewer)}}).decode()

    def _checked_post(self, url: str, **kwargs: Any) -> requests.Response:
        """POST within the delivery's deadline (``settings.timeout``) for the whole exchange:
        requests' own timeout bounds each read, so a receiver that drips its answer a byte at a
        time would hold the delivery for ever; at the deadline its socket is shut instead."""
        sockets: list[socket.socket] = []
        expired = threading.Event()
        lock = threading.Lock()

        def cut(sock: socket.socket) -> None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:  # closed already
                pass

        def opened(sock: socket.socket) -> None:
            with lock:
                sockets.append(sock)
                if expired.is_set():
                    cut(sock)

        def deadline() -> None:
            with lock:
                expired.set()
                for sock in sockets:
                    cut(sock)

        timer = threading.Timer(self.settings.timeout, deadline)
        timer.daemon = True
        timer.start()
        try:
            with checked_session(self.settings.allow, opened) as session:
                answer = session.post(url, **kwargs)
        except requests.RequestException:
            if expired.is_set():
                raise DeadlineExceeded(f"no complete answer within the delivery's deadline of "
                                       f"{self.settings.timeout:g} s") from None
            raise
        finally:
            timer.cancel()
        if expired.is_set():
            raise DeadlineExceeded(f"no complete answer within the delivery's deadline of {self.settings.timeout:g} s")
        return answer

    def _send(self, sub: Subscription, delivery_id: str, body: str) -> tuple[bool, int | None, str | None]:
        try:
            check_url(sub.url, self.settings.allow)
        except Unprocessable as refused:
            return False, None, refused.detail
        now = datetime.now(UTC)
        headers = {"content-type": "application/json", "webhook-id": delivery_id,
                   "webhook-timestamp": str(int(now.timestamp())),
                   "webhook-signature": sub.signature(delivery_id, now, body)}
        try:
            answer = self._post(sub.url, data=body.encode(), headers=headers, timeout=self.settings.timeout,
                                allow_redirects=False)
        except (PeerRefused, DeadlineExceeded) as refused:
            return False, None, str(refused)
        except requests.RequestException as exc:
            return False, None, type(exc).__name__
        ok = 200 <= answer.status_code < 300
        return ok, answer.status_code, None if ok else f"HTTP {answer.status_code}"


def _duration(seconds: float) -> str:
    """``seconds`` as a person reads a time left: "3 days 4 hours", "5 minutes", "12 seconds"."""
    whole = max(0, round(seconds))
    parts = [(whole // 86_400, "day"), (whole % 86_400 // 3600, "hour"), (whole % 3600 // 60, "minute"),
             (whole % 60, "second")]
    shown = [f"{n} {unit}{'s' if n != 1 else ''}" for n, unit in parts if n][:2]
    return " ".join(shown) or "0 seconds"


def _new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def _safe_id(text: str) -> bool:
    return len(text) == 16 and all(c in "0123456789abcdef" for c in text)


def _sub_stream(sub_id: str) -> str:
    return f"webhook-{sub_id}"


def _log_stream(sub_id: str, game_id: str) -> str:
    return f"webhook-{sub_id}-{game_id}"


def _owner_set(owner: str) -> str:
    return f"webhooks:owner:{owner}"


def _games_set(sub_id: str) -> str:
    return f"webhooks:games:{sub_id}"


def _scope_set(scope: str, game_id: str | None, owner: str) -> str:
    if scope == PUBLIC:
        return "webhooks:public"
    if scope == ONE_GAME:
        return f"webhooks:game:{game_id}"
    return f"webhooks:player:{owner}"


# -- runners ---------------------------------------------------------------------------------------
#: the webhooks a runner delivers for, built by the runner with its own ``wake`` (``game_changed``)
WebhooksFor = Callable[[Callable[[str], None]], Webhooks]


class InProcessDeliveries:
    """The embedded store's runner: ``threads`` threads of this process deliver (in the
    background process ``serve`` supervises); an append only queues its game. Each
    subscription's deliveries of a game are one key: a slow receiver holds one thread for at
    most the deadline of a delivery, then waits out its backoff in the timer's queue while the
    other threads serve everyone else."""

    def __init__(self, webhooks: WebhooksFor, threads: int = 8):
        self.webhooks = webhooks(self.game_changed)
        self.timer = TimerThread("webhooks", self._work, retry_on_error=self.webhooks.settings.backoff,
                                 threads=threads)

    def __call__(self, stream: str) -> None:  # the service's after_append
        if stream.startswith("game-") and self.webhooks.has_subscriptions():
            self.game_changed(game_of(stream))

    def game_changed(self, game_id: str) -> None:
        self.timer.schedule(0.0, ("", game_id))

    def idle(self) -> bool:
        return self.timer.idle()

    def _work(self, key: Any) -> float | None:
        sub_id, game_id = key
        if sub_id:
            return self.webhooks.deliver(sub_id, game_id)
        for target in self.webhooks.targets(self.webhooks.loader.load(game_id)):  # "" : find who wants it
            self.timer.schedule(0.0, (target, game_id))
        return None
