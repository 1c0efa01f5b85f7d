"""A player's own feed: what happened for them across every table, as durable events.

Each player has a stream of their own in the store (``feed-<player id>``), numbered 1, 2,
3 ... like a game's. ``PlayerFeed.record`` is told of every append to a game (the
``Appender``'s ``on_stored``) and writes the notices it means for each person at that
table, in one append per player (each game append is told once, so each notice is
written once):

* ``invitation_received`` (to the invited player), ``invitation_declined`` (to who sent
  it), ``invitation_cancelled`` (to the invited player);
* ``seated``, ``game_started``, ``your_turn`` (with the title of the question put to the
  seat, its own: nothing another seat may not see), ``game_over`` (with the outcome);
* ``end_proposed``, ``rematch_offered``, ``rematch_started``;
* ``seat_taken_over`` (to the person who left a seat a stand-in now plays: they may reclaim it);
* ``chat_mention`` (``service.play.chat``);
* ``clock_warning`` (``ClockWarned``: the seat's clock run has used 80% of its time; the
  clocks' lane appends it, ``GameService.warn_clock``).

``GET /players/me/events`` pages through it and ``GET /players/me/stream`` follows it
(Server-Sent Events, ``id:`` the notice's number): the store's log carries each append, so
the process's ``LiveHub`` hands new notices to every open feed of the player as it does a
game's events. A feed stream is no game: projections ignore its events (``restated``).

On Redis a feed keeps its newest ``GAMES_FEED_KEPT`` notices (100 by default; the oldest
leave as new ones come, so a person's feed does not grow for as long as they play); a page
asked from before the oldest kept starts at it. The embedded store keeps every notice.

A notice is written after the game's append it follows; if the process dies between the
two, that notice is lost (the game's stream, the source of truth, has the event).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from domain.kernel.clocks import CLOCK_WARNED
from domain.kernel.endings import END_PROPOSED, REMATCH_OFFERED, REMATCH_STARTED
from domain.kernel.invitations import INVITATION_CANCELLED, INVITATION_DECLINED, INVITATION_SENT
from domain.kernel.stand_ins import SEAT_TAKEN_OVER
from domain.kernel.table import GAME_STARTED, PLATFORM, SEAT_TAKEN
from service.adapters.store import EventStore, Recorded, VersionConflict
from service.players.live_hub import next_wait
from service.streams.appending import CONFLICT_RETRIES, Clock
from service.streams.game import Game

if TYPE_CHECKING:
    from service.players.live_hub import LiveHub

log = logging.getLogger(__name__)

FEED_PREFIX = "feed-"
#: the store's set of a player's games in play (a hint, checked against each game)
PLAYING_SET = "playing:"


def feed_stream(player_id: str) -> str:
    return f"{FEED_PREFIX}{player_id}"


def is_feed(stream: str) -> bool:
    return stream.startswith(FEED_PREFIX)


def notices(before: Game, after: Game, stored: list[Recorded]) -> dict[str, list[dict[str, Any]]]:
    """The notices one append to a game means, per player (persons only: bots read no feed)."""
    table = after.table
    game_id = after.id
    out: dict[str, list[dict[str, Any]]] = {}

    def person(player_id: str | None) -> bool:
        return player_id is not None and player_id not in table.bots

    def tell(player_id: str | None, kind: str, **data: Any) -> None:
        if person(player_id):
            out.setdefault(str(player_id), []).append({"type": kind, "data": {"game_id": game_id, **data}})

    def others(seat: int | None) -> list[str]:
        return [p for s, p in sorted(table.players.items()) if s != seat]

    for record in stored:
        body = record.event
        if body.get("source") != PLATFORM:
            continue
        kind, data = body["type"], body["data"]
        if kind == INVITATION_SENT and data["invitee"] is not None:
            tell(data["invitee"], "invitation_received", invitation_id=data["invitation_id"], seat=data["seat"],
                 by=table.names.get(data["by"], data["by"]), game_type=table.game_type, private=table.private,
                 expires_at=data["expires_at"])
        elif kind in (INVITATION_DECLINED, INVITATION_CANCELLED):
            invitation = table.invitations.by_id[data["invitation_id"]]
            if kind == INVITATION_DECLINED:
                tell(invitation.by, "invitation_declined", invitation_id=invitation.id,
                     invitee=invitation.invitee_name)
            else:
                tell(invitation.invitee, "invitation_cancelled", invitation_id=invitation.id)
        elif kind == SEAT_TAKEN:
            tell(data["player_id"], "seated", seat=data["seat"], game_type=table.game_type)
        elif kind == GAME_STARTED:
            for seat, player in enumerate(data["players"]):
                tell(player, "game_started", seat=seat, game_type=table.game_type)
        elif kind in (END_PROPOSED, REMATCH_OFFERED):
            for player in others(data["seat"]):
                tell(player, "end_proposed" if kind == END_PROPOSED else "rematch_offered", by_seat=data["seat"])
        elif kind == CLOCK_WARNED:
            tell(table.players.get(data["seat"]), "clock_warning", seat=data["seat"], deadline=data["deadline"],
                 seconds_left=data["seconds_left"])
        elif kind == SEAT_TAKEN_OVER:  # told to who left: they may reclaim it
            tell(data["player_id"], "seat_taken_over", seat=data["seat"], reason=data["reason"],
                 stand_in=data["stand_in"]["bot"])
        elif kind == REMATCH_STARTED:
            for player in table.players.values():
                tell(player, "rematch_started", rematch=data["game_id"])
    if after.over and not before.over and table.started:
        facts = after.public_facts()
        for seat, player in sorted(table.players.items()):
            tell(player, "game_over", seat=seat, outcome=facts["outcome"], version=after.version)
    elif not after.over:
        was = set(before.public_facts()["to_move"]) if before.state is not None and not before.over else set()
        for seat in after.public_facts()["to_move"]:
            if seat not in was:
                asked = after.prompt(seat)
                tell(table.players.get(seat), "your_turn", seat=seat, version=after.version,
                     prompt=asked.text if asked is not None else None)
    return out


class PlayerFeed:
    def __init__(self, store: EventStore, clock: Clock, cache_size: int = 4096):
        self.store = store
        self.clock = clock
        #: the last version this process wrote or read of each feed (a guess: an append at a
        #: stale one is refused by the store and tried again at the stored version)
        self._versions: dict[str, int] = {}
        self._cache_size = cache_size

    def record(self, before: Game, after: Game, stored: list[Recorded]) -> None:
        """Write the notices of one append to a game (never fails the append: logged)."""
        try:
            for player, items in notices(before, after, stored).items():
                self.post(player, items, f"{after.id}:{stored[0].version}")
            if after.table.started and not before.table.started:
                for player in after.table.players.values():
                    if player not in after.table.bots:
                        self.store.set_add(PLAYING_SET + player, after.id)
        except Exception:
            log.exception("the player feed could not record game %s at version %s", after.id, after.version)

    def post(self, player_id: str, items: list[dict[str, Any]], key: str) -> None:
        """Append ``items`` to the player's feed (``key`` names them in the log if it fails).
        Each game append is told once (``Appender.on_stored``), so nothing is written twice.
        The append goes at the version this process last saw (no read first); the store
        refuses a stale guess, and the next try is at the version it holds."""
        stream = feed_stream(player_id)
        at = self.clock.iso()
        bodies = [{**item, "at": at} for item in items]
        version = self._versions.get(stream)
        for _ in range(CONFLICT_RETRIES):
            if version is None:
                version = self.store.version(stream)
            try:
                self.store.append(stream, version, bodies)
            except VersionConflict:
                version = None
                continue
            if len(self._versions) >= self._cache_size:
                self._versions.clear()
            self._versions[stream] = version + len(bodies)
            return
        log.error("the feed of %s stayed too busy to record %s", player_id, key)

    def page(self, player_id: str, after: int, limit: int) -> dict[str, Any]:
        stream = feed_stream(player_id)
        records = self.store.read(stream, after, after + limit)
        last = self.store.version(stream)
        if not records and after < last:  # ``after`` is older than the oldest notice a Redis feed keeps
            records = self.store.read(stream, after)[:limit]
        return {"events": [shown(r) for r in records], "last_id": last,
                "next_after": records[-1].version if records and records[-1].version < last else None}

    def follow(self, hub: LiveHub, player: Mapping[str, Any], after: int, *, heartbeat: float,
               max_seconds: float | None, credential: str | None, connection: Any) -> Iterator[Any]:
        """The player's notices after ``after`` as they come: the backlog, then each batch from
        the hub (subscribed first, so nothing falls between), None (a heartbeat) while nothing happens;
        it ends after ``max_seconds`` or once the hub ends it (token changed, client gone)."""
        stream = feed_stream(str(player["id"]))
        held = (str(player["id"]), credential) if credential else None
        subscriber = hub.subscribe(stream, held, connection)
        try:
            started = last_sent = time.monotonic()
            for record in self.store.read(stream, after):
                yield shown(record)
                after = record.version
                last_sent = time.monotonic()
            while True:
                wait = next_wait(started, last_sent, heartbeat, max_seconds)
                if wait is None:
                    return
                batch = subscriber.get(wait)
                if subscriber.ended is not None:
                    return
                if batch is None:
                    if time.monotonic() - last_sent >= heartbeat:
                        yield None  # a heartbeat
                        last_sent = time.monotonic()
                    continue
                for record in batch.records:
                    if record.version > after:
                        yield shown(record)
                        after = record.version
                        last_sent = time.monotonic()
        finally:
            subscriber.close()


def shown(record: Recorded) -> dict[str, Any]:
    """A notice as its player reads it: its number in the feed, kind, facts and time."""
    body = record.event
    return {"id": record.version, "type": body["type"], "data": body["data"], "at": body.get("at")}
