"""Loading a game: fold its stream, from this process's cache or a snapshot plus the tail.

A game is the fold of its stream: the platform's events build the ``Table`` (who sits
where, the options, export consent), the game's own events go through its rules'
``evolve``, and events that a standing ``MovesUndone`` took back are skipped. Three ways
to get there, each giving the same game:

* the **cache** (an LRU of folded games per process) plus the events after it;
* a **snapshot** (a pickled fold every ``snapshot_every`` events, keyed by the rules'
  version, never the source of truth: deleting every snapshot changes no answer) plus the
  tail after it;
* the whole stream from its first event.

An undo that takes back a version the cached or snapshotted game already holds makes
that base useless: the loader then folds from further back. ``at`` loads the game as it
was at a past version (time travel).

A store can go back in time behind a process's back: a Redis failover to a replica that
lacked the last writes, a restore from an older AOF or backup. A cached game (or a
snapshot) is therefore never trusted blindly: its tail is read from its own version on,
and unless the store still holds that version, with the same event (``Game.head``, a
fingerprint of it), the copy is dropped, the fact logged, and the game loaded again from
what the store holds. A command decided on a cached copy that the store is behind is
refused by the append's version check (``Appender.append`` drops the copy then), so the
retry decides on the store's truth.
"""

from __future__ import annotations

import base64
import logging
import pickle
import threading
from collections import OrderedDict
from collections.abc import Mapping

from domain.kernel import GameRules
from domain.kernel.table import Table, read_event, undone_versions
from service.adapters.codec import digest as event_digest
from service.adapters.store import EventStore, Recorded
from service.base.errors import NotFound, Unprocessable
from service.streams.envelopes import NewEvent, is_platform, is_undo, stored_shape, stream_of
from service.streams.game import Game

log = logging.getLogger(__name__)


class GameLoader:
    def __init__(self, store: EventStore, registry: Mapping[str, GameRules], *, cache_size: int = 512,
                 snapshot_every: int = 0):
        self.store = store
        self.registry = registry
        self.snapshot_every = snapshot_every
        self._cache: OrderedDict[str, Game] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def rules(self, kind: str) -> GameRules:
        if kind not in self.registry:
            raise Unprocessable(f"unknown game type {kind!r}; known types: {', '.join(sorted(self.registry))}",
                                code="unknown_game_type")
        return self.registry[kind]

    def current_version(self, game_id: str) -> int:
        """The game's latest version, read from the store without reading or folding an
        event (0: no such game)."""
        return self.store.version(stream_of(game_id))

    def load(self, game_id: str, at: int | None = None, *, trust_cache: bool = False,
             known_version: int = 0) -> Game:
        """The game folded to its latest version, or to version ``at`` (time travel).

        ``trust_cache``: answer from this process's cache without asking the store for a
        newer tail (a command does this: its append checks the version anyway, and a
        conflict loads again). ``known_version``: the stream's version the caller has just
        read (a conditional GET reads it for its ETag); a cached game at that version is the
        answer as is, with no read."""
        if at is None:
            with self._lock:
                cached = self._cache.get(game_id)
            # a cached game newer than the version just read is suspect (the store may have gone
            # back): its tail is read and checked below
            if cached is not None and (trust_cache or (known_version and cached.version == known_version)):
                return cached
            if cached is not None:
                tail = self._tail_after(cached, self.store.read(stream_of(game_id), cached.version - 1))
                game = self.extend(cached, tail) if tail is not None else None
                if game is not None:
                    self.remember(game)
                    return game
        game = self._load_fresh(game_id, at)
        if at is None:
            self.remember(game)
        elif game.version < at:
            raise NotFound(f"game {game_id} has only {game.version} events; there is no version {at}")
        return game

    def _load_fresh(self, game_id: str, at: int | None) -> Game:
        """From the newest usable snapshot plus the tail, else from the first event."""
        stream = stream_of(game_id)
        limit = at
        while self.snapshot_every:
            snapshot = self._load_snapshot(game_id, limit)
            if snapshot is None:
                break
            tail = self._tail_after(snapshot, self.store.read(stream, snapshot.version - 1, at), cached=False)
            game = self.extend(snapshot, tail) if tail is not None else None
            if game is not None:
                return game
            limit = snapshot.version - 1  # an undo reached behind this snapshot, or the store: try an older one
        return self.fold(game_id, self.store.read(stream, 0, at))

    def _tail_after(self, base: Game, records: list[Recorded], cached: bool = True) -> list[Recorded] | None:
        """``records`` (read from ``base.version`` on) after ``base``, if the store still holds
        ``base``'s last event; else None, the copy dropped and the fact logged."""
        if records and records[0].version == base.version and (
                not base.head or event_digest(records[0].event) == base.head):
            return records[1:]
        stored = "another event" if records and records[0].version == base.version else "no such version"
        log.warning("game %s: the %s at version %d is not what the store holds (%s): the store went back in "
                    "time (a failover or a restore); loading the game again from the store",
                    base.id, "cached copy" if cached else "snapshot", base.version, stored)
        if cached:
            self.forget(base.id)
        return None

    def forget(self, game_id: str) -> None:
        """Drop this process's cached copy of a game (the store no longer holds it)."""
        with self._lock:
            self._cache.pop(game_id, None)

    def remember(self, game: Game) -> None:
        with self._lock:
            current = self._cache.get(game.id)
            if current is None or current.version < game.version:
                self._cache[game.id] = game
                self._cache.move_to_end(game.id)
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)

    def fold(self, game_id: str, records: list[Recorded]) -> Game:
        """The game from its first event on."""
        if not records:
            raise NotFound(f"no game with id {game_id!r}")
        table = Table()
        table.apply(read_event(records[0].event))
        empty = Game(game_id, records[0].version, table, self.rules(table.game_type),
                     imported=records[0].event.get("imported"), head=event_digest(records[0].event))
        game = self.extend(empty, records[1:], fresh=True)
        assert game is not None, "an undo cannot reach behind the first event"
        return game

    def extend(self, base: Game, tail: list[Recorded], fresh: bool = False) -> Game | None:
        """``base`` with ``tail`` applied (``base`` itself is left as it was, unless
        ``fresh``: nobody else holds it); None if an undo in the tail takes back a version
        that ``base`` already contains (the caller must fold from further back)."""
        if not tail:
            return base
        undone = undone_versions((r.version, r.event) for r in tail)
        if undone and min(undone) <= base.version:
            return None
        table = base.table if fresh else base.table.copy()
        state = base.state if (fresh or base.state is None) else base.rules.copy(base.state)
        for record in tail:
            if record.version in undone:
                continue
            if is_platform(record.event):
                table.apply(read_event(record.event))
            else:
                state = base.rules.evolve(state, read_event(record.event, base.rules.upcasters))
        table.finished = table.endings.outcome is not None or (
            state is not None and (table.clocks.forfeited is not None or base.rules.outcome(state) is not None))
        return Game(base.id, tail[-1].version, table, base.rules, state, base.undone | undone, base.imported,
                    event_digest(tail[-1].event))

    def advance(self, game: Game, events: list[NewEvent], fresh: bool = False) -> Game:
        """The game as it will be once ``events`` are stored (nothing is written); ``fresh``:
        nobody else holds ``game``, which may then be changed rather than copied."""
        stream = stream_of(game.id)
        records = [Recorded(stream, game.version + i + 1, stored_shape(new)) for i, new in enumerate(events)]
        if any(is_undo(r.event) for r in records):
            return self.fold(game.id, self.store.read(stream, 0, game.version) + records)
        if game.version == 0:
            return self.fold(game.id, records)
        advanced = self.extend(game, records, fresh=fresh)
        assert advanced is not None
        return advanced

    def played(self, game: Game, events: list[NewEvent], state: object) -> Game:
        """The game once a seat's move is stored: ``state`` is what the rules' ``play`` left
        after ``events`` (the game's own events of one command), so nothing is folded again.
        The table is ``game``'s own unless the move ends the game or the game has a turn clock:
        a game's own events change nothing else of it, and only those two bring the platform
        events that the append applies to the new game's table (``Appender._append``)."""
        finished = game.rules.outcome(state) is not None
        table = game.table
        if finished != table.finished or table.has_clock:
            table = table.copy()
            table.finished = finished
        return Game(game.id, game.version + len(events), table, game.rules, state, game.undone, game.imported)

    # -- snapshots: a cache of folded games, never the source of truth ----------------------
    @staticmethod
    def snapshot_schema(rules: GameRules) -> str:
        return f"{rules.kind}:{getattr(rules, 'rules_version', '1')}:pickle{pickle.DEFAULT_PROTOCOL}"

    def maybe_snapshot(self, before: int, after: Game) -> None:
        """Keep a snapshot of ``after`` if the append from ``before`` crossed a multiple of
        ``snapshot_every``."""
        every = self.snapshot_every
        if every and after.state is not None and after.version // every > before // every:
            blob = pickle.dumps((after.table, after.state, sorted(after.undone)))
            self.store.save_snapshot(stream_of(after.id), after.version, self.snapshot_schema(after.rules),
                                     {"pickle": base64.b64encode(blob).decode(), "head": after.head})

    def _load_snapshot(self, game_id: str, at_most: int | None) -> Game | None:
        first = self.store.read(stream_of(game_id), 0, 1)
        if not first:
            raise NotFound(f"no game with id {game_id!r}")
        rules = self.rules(first[0].event["data"]["game_type"])
        found = self.store.load_snapshot(stream_of(game_id), self.snapshot_schema(rules), at_most)
        if found is None:
            return None
        version, body = found
        table, state, undone = pickle.loads(base64.b64decode(body["pickle"]))
        return Game(game_id, version, table, rules, state, frozenset(undone), first[0].event.get("imported"),
                    body.get("head", ""))
