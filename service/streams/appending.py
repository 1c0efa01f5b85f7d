"""Appending: events stored at the version they were decided on, retried on a conflict,
and a command's answer, the same for its first request and for every retry of it.

Optimistic concurrency: a command is decided on the game at version N and its events are
appended only if the stream is still at N (the store refuses otherwise, atomically). A
use case that decided on a stale game is simply run again on the newer one:
``retry_on_conflict`` is the one loop that does this, for every use case.

Idempotency: a request with an ``Idempotency-Key`` stores, atomically with its events, a
record (its fingerprint, the versions it made, the acting seat). A retry with the same key
gets the first request's answer rebuilt from that record, never a second move; the same
key with a different request is refused.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ParamSpec, TypeVar

from domain.kernel import Event
from domain.kernel.fairness import seed_revealed
from service.adapters.codec import digest, dumps
from service.adapters.store import Recorded, StreamRecorder, VersionConflict
from service.base.errors import Conflict, Unprocessable
from service.streams.clock_rules import clock_events
from service.streams.envelopes import NewEvent, public_event, stamp, stream_of
from service.streams.game import Game, audience
from service.streams.loading import GameLoader

#: How often a use case is run again on a newer game after its append met a conflict.
CONFLICT_RETRIES = 20

T = TypeVar("T")
P = ParamSpec("P")


def retry_on_conflict(attempt: Callable[[], T], retries: int = CONFLICT_RETRIES,
                      first: Callable[[], T] | None = None) -> T:
    """``attempt()`` until it does not raise ``VersionConflict`` (it loads the game anew
    each time); after ``retries`` conflicts in a row the game is too busy. ``first``: the
    first attempt, where it differs (a move decided on the cached game, with no read)."""
    for tried in range(retries):
        try:
            return (first if first is not None and not tried else attempt)()
        except VersionConflict:
            continue
    raise Conflict("the game is too busy; try again", code="busy")


def retried(use_case: Callable[P, T]) -> Callable[P, T]:
    """A use case run again from its start (it loads the newest game) when its append met a
    conflict: ``retry_on_conflict`` around the whole method."""
    @functools.wraps(use_case)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return retry_on_conflict(lambda: use_case(*args, **kwargs))

    return run


class News:
    """An append's news, told to each of ``hearers`` in turn (``Appender.after_append``)."""

    def __init__(self, *hearers: Callable[[str], None]):
        self.hearers = hearers

    def __call__(self, stream: str) -> None:
        for hear in self.hearers:
            hear(stream)


@dataclass
class Clock:
    now: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))

    def iso(self) -> str:
        return iso(self.now())


def iso(moment: datetime) -> str:
    """A UTC time as the envelopes keep it: ``2026-12-02T01:02:03.456Z``."""
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def fingerprint(*request: Any) -> str:
    """What identifies a request for its Idempotency-Key (its kind, then what it carries):
    the same key must come with the same request."""
    return hashlib.sha256(dumps(list(request))).hexdigest()


class Appender:
    """``on_stored``: told of each append, the game before, after, and what was stored (the
    players' feeds); ``after_append``: told of the stream (the projections, and the runners of
    webhooks and clocks); ``after_move``: told of the game after (bot seats: is a bot prompted now?)."""

    def __init__(self, store: StreamRecorder, loader: GameLoader, clock: Clock,
                 after_append: Callable[[str], None], after_move: Callable[[Game], None] | None = None,
                 on_stored: Callable[[Game, Game, list[Recorded]], None] | None = None):
        self.store = store
        self.loader = loader
        self.clock = clock
        self.after_append = after_append
        self.after_move = after_move or (lambda game: None)
        self.on_stored = on_stored or (lambda before, after, stored: None)

    def append(self, game: Game, events: list[NewEvent],
               idempotency: tuple[str, dict[str, Any]] | None = None,
               played: Any = None, token_generation: int | None = None) -> tuple[Game, list[Recorded]]:
        """Append ``events`` at ``game.version`` (``VersionConflict`` if the stream moved on);
        the game after them, and what was stored. ``played``: the game's state after the
        events, as the rules' ``play`` left it (then nothing is folded again). ``token_generation``:
        the store refuses the append if a token was rotated or revoked since. The append also
        stops and starts the turn clocks its events call for (``service.background.clocks``), and the one
        that ends a game reveals its seed (``domain.kernel.fairness``)."""
        after, stored, _ = self._append(game, events, idempotency, played, token_generation)
        return after, stored

    def _append(self, game: Game, events: list[NewEvent], idempotency: tuple[str, dict[str, Any]] | None,
                played: Any, token_generation: int | None) -> tuple[Game, list[Recorded], list[NewEvent]]:
        """``append``, and every event stored (``events`` and the platform's own after them),
        in the order of what was stored."""
        now = self.clock.now()
        after = self.loader.advance(game, events) if played is None else self.loader.played(game, events, played)
        more = clock_events(game, after, events, now) if after.table.has_clock else []
        if after.over and not game.over and after.table.salt and after.table.revealed is None:
            more.append(NewEvent(seed_revealed(after.table.seed, after.table.salt)))
        if more:  # the platform's own events of this append: clocks, the seed's reveal
            # ``after`` is this append's own, and so is its table unless ``played`` left it shared
            after = self.loader.advance(after, more, fresh=after.table is not game.table)
            events = [*events, *more]
            if idempotency is not None:  # a retry's answer shows them too
                idempotency[1]["last"] = game.version + len(events)
        stream = stream_of(game.id)
        envelopes = stamp(events, game.version, iso(now), after.public_facts())
        try:
            self.store.append(stream, game.version, envelopes, idempotency, game.head,
                              token_generation=token_generation)
        except VersionConflict as conflict:
            if conflict.current <= game.version:  # the store went back behind the copy decided on
                self.loader.forget(game.id)
            raise
        # ``after`` was made for this append (``played``/``advance``: its events are not
        # empty) and nobody holds it yet: its head is set in place, not copied
        after.head = digest(envelopes[-1])
        self.loader.remember(after)
        stored = [Recorded(stream, game.version + i + 1, body) for i, body in enumerate(envelopes)]
        self.on_stored(game, after, stored)  # before the catch-up: it covers the feeds' notices too
        self.after_append(stream)
        self.after_move(after)
        self.loader.maybe_snapshot(game.version, after)
        return after, stored, events

    def append_stored_log(self, game_id: str, envelopes: list[dict[str, Any]]) -> None:
        """Store a whole log as it comes (an import): at version 0, so a game already here
        conflicts, atomically."""
        self.store.append(stream_of(game_id), 0, envelopes)
        self.after_append(stream_of(game_id))

    # -- a move's answer, first time and on every retry --------------------------------------
    def append_and_answer(self, game: Game, seat: int, events: list[NewEvent], player: Mapping[str, Any],
                          idempotency_key: str | None, request: str, played: Any = None,
                          token_generation: int | None = None) -> dict[str, Any]:
        """Append a seat's move and answer with its events as that seat may see them.
        ``request`` is the request's fingerprint, kept with an idempotency key."""
        record = {"fingerprint": request, "first": game.version + 1, "last": game.version + len(events),
                  "seat": seat}
        idempotency = (f"{player['id']}:{idempotency_key}", record) if idempotency_key else None
        after, stored, appended = self._append(game, events, idempotency, played, token_generation)
        return self._answer(after, {**record, "last": after.version}, stored, [new.event for new in appended])

    def replayed(self, game_id: str, player: Mapping[str, Any] | None, key: str | None,
                 request: str) -> dict[str, Any] | None:
        """The first answer to this request, if one with the same key was stored."""
        if not key or player is None:
            return None
        record = self.store.idempotency_record(stream_of(game_id), f"{player['id']}:{key}")
        return self.answer_again(game_id, record, request) if record else None

    def answer_again(self, game_id: str, record: dict[str, Any], request: str) -> dict[str, Any]:
        if record["fingerprint"] != request:
            raise Unprocessable("this Idempotency-Key was already used for a different request",
                                code="idempotency_key_reused")
        stored = self.store.read(stream_of(game_id), record["first"] - 1, record["last"])
        return self._answer(self.loader.load(game_id), record, stored)

    @staticmethod
    def _answer(game: Game, record: dict[str, Any], events: list[Recorded],
                decided: list[Event] | None = None) -> dict[str, Any]:
        """The answer to a move: its stored ``events`` as its seat may see them. ``decided``:
        the same events as this process decided them, just stored (none read back)."""
        viewer = audience(game, seat=record["seat"])
        upcasters = game.rules.upcasters
        shown = ([public_event(r, viewer, upcasters) for r in events] if decided is None else
                 [public_event(r, viewer, upcasters, event) for r, event in zip(events, decided, strict=True)])
        return {"version": record["last"], "events": shown, "to_move": game.public_facts()["to_move"]}
