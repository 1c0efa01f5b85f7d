"""The use cases: what the API can ask of the server. Game-agnostic.

Command handling is one path for every game: load the stream (cache or snapshot plus
tail) -> fold -> ``decide`` -> append at the expected version. Everything a caller
reads goes through ``domain.kernel.events.redact`` with the caller's seat.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from domain.kernel import Command, Event, GameRules, Rng, RuleViolation, redact
from domain.kernel.events import EVERYONE
from domain.kernel.table import (
    PLATFORM,
    UNDONE,
    Table,
    game_created,
    game_started,
    moves_undone,
    seat_taken,
    undone_versions,
)
from service.adapters.store import DuplicateRequest, EventStore, Recorded, VersionConflict
from service.errors import Conflict, Forbidden, NotFound, Unauthorized, Unprocessable

#: How often a command is retried against a newer state when no expected version was given.
CONFLICT_RETRIES = 20
GAME_SOURCE = "game"


def stream_of(game_id: str) -> str:
    return f"game-{game_id}"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Game:
    """A game folded up to ``version``: the platform's table and the game's own state."""

    id: str
    version: int
    table: Table
    rules: GameRules
    state: Any = None
    undone: frozenset[int] = frozenset()

    @property
    def over(self) -> bool:
        return self.state is not None and self.rules.outcome(self.state) is not None

    def viewer_for(self, player: Mapping[str, Any] | None) -> int | None:
        return self.table.seat_of(player["id"]) if player else None

    def summary(self) -> dict[str, Any]:
        table = self.table
        outcome = self.rules.outcome(self.state) if self.state is not None else None
        return {
            "id": self.id,
            "type": table.game_type,
            "status": "finished" if outcome else table.status,
            "options": table.options,
            "seats": [
                {"seat": s, "player_id": table.players.get(s),
                 "name": table.names.get(table.players[s]) if s in table.players else None}
                for s in range(table.seats)
            ],
            "to_move": self.rules.to_move(self.state) if self.state is not None else [],
            "version": self.version,
            "outcome": outcome.to_json() if outcome else None,
        }


@dataclass(frozen=True)
class Pending:
    """An event about to be appended: by whom (a seat, or None for the server) and from where."""

    event: Event
    actor: int | None = None
    source: str = PLATFORM


@dataclass
class Clock:
    now: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))

    def iso(self) -> str:
        return self.now().isoformat(timespec="milliseconds").replace("+00:00", "Z")


class GameService:
    def __init__(self, store: EventStore, registry: Mapping[str, GameRules], *,
                 clock: Clock | None = None, after_append: Callable[[str], None] | None = None,
                 cache_size: int = 512, snapshot_every: int = 0):
        self.store = store
        self.registry = dict(registry)
        self.clock = clock or Clock()
        self.after_append = after_append or (lambda stream: None)
        self.snapshot_every = snapshot_every
        self._cache: OrderedDict[str, Game] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    # -- players -------------------------------------------------------------------
    def create_player(self, name: str) -> dict[str, Any]:
        player_id = uuid.uuid4().hex[:16]
        token = secrets.token_urlsafe(32)
        self.store.add_player(player_id, name, hash_token(token))
        return {"id": player_id, "name": name, "token": token}

    def authenticate(self, token: str | None) -> dict[str, Any] | None:
        if token is None:
            return None
        player = self.store.player_by_token(hash_token(token))
        if player is None:
            raise Unauthorized("the bearer token is not a known player's token")
        return player

    def get_player(self, player_id: str) -> dict[str, Any]:
        player = self.store.player(player_id)
        if player is None:
            raise NotFound(f"no player with id {player_id!r}")
        return player

    # -- game types ------------------------------------------------------------------
    def game_types(self) -> list[dict[str, Any]]:
        return [
            {"type": rules.kind, "title": rules.title, "min_seats": rules.min_seats, "max_seats": rules.max_seats,
             "options": [spec.to_json() for spec in rules.options],
             "commands": [{"type": c.type, "args": c.args, "description": c.description} for c in rules.commands]}
            for rules in self.registry.values()
        ]

    def _rules(self, kind: str) -> GameRules:
        if kind not in self.registry:
            raise Unprocessable(f"unknown game type {kind!r}; known types: {', '.join(sorted(self.registry))}",
                                code="unknown_game_type")
        return self.registry[kind]

    # -- lifecycle -------------------------------------------------------------------
    def create_game(self, player: Mapping[str, Any], kind: str, options: Mapping[str, Any], seats: int,
                    idempotency_key: str | None = None) -> Game:
        rules = self._rules(kind)
        if not rules.min_seats <= seats <= rules.max_seats:
            raise Unprocessable(f"{rules.title} is for {rules.min_seats} to {rules.max_seats} seats, not {seats}",
                                code="invalid_option", option="seats")
        checked = rules.check_options(dict(options))
        if idempotency_key:
            game_id = hashlib.sha256(f"{player['id']}:{idempotency_key}".encode()).hexdigest()[:16]
        else:
            game_id = uuid.uuid4().hex[:16]
        events = [Pending(game_created(kind, checked, seats, player["id"], secrets.token_hex(16)))]
        try:
            self._append(game_id, 0, events)
        except (VersionConflict, DuplicateRequest):
            pass  # the same idempotent request made it first: answer with that game
        return self.load(game_id)

    def join_game(self, game_id: str, player: Mapping[str, Any], seat: int | None = None) -> tuple[Game, int]:
        for _ in range(CONFLICT_RETRIES):
            game = self.load(game_id)
            table = game.table
            if table.seat_of(player["id"]) is not None:
                raise Conflict("you already have a seat at this game", code="already_seated")
            if table.started:
                raise Conflict("the game has already started; no seat is open", code="game_started")
            open_seats = table.open_seats()
            if seat is None:
                seat = open_seats[0]
            elif not 0 <= seat < table.seats:
                raise Unprocessable(f"seat must be between 0 and {table.seats - 1}", code="invalid_seat")
            elif seat not in open_seats:
                raise Conflict(f"seat {seat} is taken; open seats: {open_seats}", code="seat_taken")
            events = [Pending(seat_taken(seat, player["id"], player["name"]))]
            if len(open_seats) == 1:
                events += self._start_events(game, {**table.players, seat: player["id"]})
            try:
                self._append(game_id, game.version, events)
                return self.load(game_id), seat
            except VersionConflict:
                continue
        raise Conflict("the game is too busy; try again")

    def _start_events(self, game: Game, joined: dict[int, str]) -> list[Pending]:
        table = game.table
        rng = Rng(table.seed, game.version)
        players = [joined[s] for s in range(table.seats)]
        if table.options.get("seating") == "random":
            players = rng.shuffled(players)
        events = [Pending(game_started(players))]
        events += [Pending(e, source=GAME_SOURCE) for e in game.rules.setup(table.seats, table.options, rng)]
        return events

    # -- loading ---------------------------------------------------------------------
    def load(self, game_id: str, at: int | None = None) -> Game:
        stream = stream_of(game_id)
        if at is not None:
            game = self._fold(game_id, self.store.read(stream, 0, at))
            if game.version < at:
                raise NotFound(f"game {game_id} has only {game.version} events; there is no version {at}")
            return game
        with self._lock:
            cached = self._cache.get(game_id)
        if cached is not None:
            tail = self.store.read(stream, cached.version)
            if not tail:
                return cached
            if not any(_is_undo(r.event) for r in tail):
                game = self._apply_tail(cached, tail)
                self._remember(game)
                return game
        game = self._fold(game_id, self.store.read(stream))
        self._remember(game)
        return game

    def _remember(self, game: Game) -> None:
        with self._lock:
            current = self._cache.get(game.id)
            if current is None or current.version < game.version:
                self._cache[game.id] = game
                self._cache.move_to_end(game.id)
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)

    def _fold(self, game_id: str, records: list[Recorded]) -> Game:
        if not records:
            raise NotFound(f"no game with id {game_id!r}")
        table = Table()
        table.apply(Event.from_json(records[0].event))
        game = Game(game_id, 0, table, self._rules(table.game_type))
        game.undone = frozenset(undone_versions((r.version, r.event) for r in records))
        return self._apply_tail(game, records[1:], fresh=True, first_version=records[0].version)

    def _apply_tail(self, base: Game, tail: list[Recorded], fresh: bool = False, first_version: int = 0) -> Game:
        table = base.table if fresh else _copy_table(base.table)
        state = base.state if (fresh or base.state is None) else base.rules.copy(base.state)
        for record in tail:
            if record.version in base.undone:
                continue
            event = Event.from_json(record.event)
            if record.event.get("source") == PLATFORM:
                table.apply(event)
            else:
                state = base.rules.evolve(state, event)
        version = tail[-1].version if tail else (first_version or base.version)
        table.finished = state is not None and base.rules.outcome(state) is not None
        return Game(base.id, version, table, base.rules, state, base.undone)

    # -- commands --------------------------------------------------------------------
    def submit_command(self, game_id: str, player: Mapping[str, Any], command: Command,
                       expected_version: int | None = None, idempotency_key: str | None = None) -> dict[str, Any]:
        stream = stream_of(game_id)
        fingerprint = _fingerprint("command", command.to_json(), expected_version)
        replay = self._replayed(stream, player, idempotency_key, fingerprint)
        if replay is not None:
            return replay
        for _ in range(CONFLICT_RETRIES):
            game = self.load(game_id)
            seat = self._seat(game, player)
            if expected_version is not None and expected_version != game.version:
                raise Conflict(f"the game is at version {game.version}, not {expected_version}",
                               code="version_conflict", current_version=game.version)
            if game.over:
                raise RuleViolation("the game is over")
            events = game.rules.decide(game.state, seat, command, Rng(game.table.seed, game.version))
            try:
                return self._append_and_answer(game, stream, seat, [Pending(e, seat, GAME_SOURCE) for e in events], player,
                                               idempotency_key, fingerprint)
            except VersionConflict as conflict:
                if expected_version is not None:
                    raise Conflict(f"the game moved on to version {conflict.current}",
                                   code="version_conflict", current_version=conflict.current) from None
            except DuplicateRequest as duplicate:
                return self._answer_duplicate(stream, player, duplicate.record, fingerprint)
        raise Conflict("the game is too busy; try again", code="busy")

    def undo(self, game_id: str, player: Mapping[str, Any], idempotency_key: str | None = None) -> dict[str, Any]:
        """Take back the caller's latest move, if nothing has happened since that forbids it."""
        stream = stream_of(game_id)
        fingerprint = _fingerprint("undo", None, None)
        replay = self._replayed(stream, player, idempotency_key, fingerprint)
        if replay is not None:
            return replay
        for _ in range(CONFLICT_RETRIES):
            game = self.load(game_id)
            seat = self._seat(game, player)
            if game.over:
                raise RuleViolation("the game is over; nothing can be undone")
            first, last = self._undoable_move(self.store.read(stream), seat)
            try:
                return self._append_and_answer(game, stream, seat, [Pending(moves_undone(seat, first, last), seat)],
                                               player, idempotency_key, fingerprint)
            except VersionConflict:
                continue
            except DuplicateRequest as duplicate:
                return self._answer_duplicate(stream, player, duplicate.record, fingerprint)
        raise Conflict("the game is too busy; try again", code="busy")

    @staticmethod
    def _undoable_move(records: list[Recorded], seat: int) -> tuple[int, int]:
        """The versions of ``seat``'s latest standing move, or the reason it cannot be undone."""
        undone = undone_versions((r.version, r.event) for r in records)
        standing = [r for r in records if r.version not in undone and not _is_undo(r.event)]
        if not standing or standing[-1].event.get("actor") is None:
            raise RuleViolation("you have no move to undo")
        batch = standing[-1].event["batch"]
        move = [r for r in standing if r.event.get("batch") == batch]
        if move[0].event.get("actor") != seat:
            raise RuleViolation("another seat has acted since your last move; it can no longer be undone")
        if any(r.event.get("barrier") for r in move):
            raise RuleViolation("your last move revealed hidden information or drew cards; it cannot be undone")
        return move[0].version, move[-1].version

    def _seat(self, game: Game, player: Mapping[str, Any] | None) -> int:
        if player is None:
            raise Unauthorized("send your player token as 'Authorization: Bearer <token>'")
        seat = game.table.seat_of(player["id"])
        if seat is None:
            raise Forbidden("you do not have a seat at this game")
        if not game.table.started:
            raise Conflict("the game has not started: seats are still open", code="not_started")
        return seat

    def _append(self, game_id: str, expected: int, events: list[Pending],
                idempotency: tuple[str, dict[str, Any]] | None = None) -> int:
        stream = stream_of(game_id)
        at = self.clock.iso()
        batch = expected + 1
        envelopes = []
        for pending in events:
            body = pending.event.to_json()
            body.update(source=pending.source, actor=pending.actor, at=at, batch=batch)
            envelopes.append(body)
        version = self.store.append(stream, expected, envelopes, idempotency)
        self.after_append(stream)
        self._maybe_snapshot(game_id, version)
        return version

    def _append_and_answer(self, game: Game, stream: str, seat: int, events: list[Pending],
                           player: Mapping[str, Any], idempotency_key: str | None, fingerprint: str) -> dict[str, Any]:
        record = {"fingerprint": fingerprint, "first": game.version + 1, "last": game.version + len(events),
                  "seat": seat}
        idem = (f"{player['id']}:{idempotency_key}", record) if idempotency_key else None
        self._append(game.id, game.version, events, idem)
        return self._answer(stream, record)

    def _answer(self, stream: str, record: dict[str, Any]) -> dict[str, Any]:
        game_id = stream.removeprefix("game-")
        events = self.store.read(stream, record["first"] - 1, record["last"])
        viewer = EVERYONE if self.load(game_id).over else record["seat"]
        return {"version": record["last"], "events": [public_event(r, viewer) for r in events]}

    def _replayed(self, stream: str, player: Mapping[str, Any] | None, key: str | None,
                  fingerprint: str) -> dict[str, Any] | None:
        if not key or player is None:
            return None
        record = self.store.idempotency_record(stream, f"{player['id']}:{key}")
        return self._answer_duplicate(stream, player, record, fingerprint) if record else None

    def _answer_duplicate(self, stream, player, record, fingerprint) -> dict[str, Any]:
        if record["fingerprint"] != fingerprint:
            raise Unprocessable("this Idempotency-Key was already used for a different request",
                                code="idempotency_key_reused")
        return self._answer(stream, record)

    def _maybe_snapshot(self, game_id: str, version: int) -> None:
        pass  # snapshots: see service.snapshots (issue 5)

    # -- reading ---------------------------------------------------------------------
    def state(self, game_id: str, player: Mapping[str, Any] | None, at: int | None = None) -> dict[str, Any]:
        current = self.load(game_id)
        viewer = current.viewer_for(player)
        game = current if at is None else self.load(game_id, at)
        view = game.rules.view(game.state, viewer) if game.state is not None else None
        return {"version": game.version, "seat": viewer, "status": game.summary()["status"], "view": view}

    def legal_commands(self, game_id: str, player: Mapping[str, Any] | None) -> dict[str, Any]:
        game = self.load(game_id)
        seat = self._seat(game, player)
        commands = [] if game.over else game.rules.legal_commands(game.state, seat)
        return {"version": game.version, "seat": seat, "commands": [c.to_json() for c in commands]}

    def events(self, game_id: str, player: Mapping[str, Any] | None, after: int = 0,
               limit: int = 100) -> dict[str, Any]:
        game = self.load(game_id)
        viewer = EVERYONE if game.over else game.viewer_for(player)
        records = self.store.read(stream_of(game_id), after, after + limit)
        return {"version": game.version, "events": [public_event(r, viewer) for r in records],
                "next_after": records[-1].version if records and records[-1].version < game.version else None}


def _is_undo(event: Mapping[str, Any]) -> bool:
    return event.get("source") == PLATFORM and event["type"] == UNDONE


def _copy_table(table: Table) -> Table:
    copy = Table(**{**table.__dict__})
    copy.players = dict(table.players)
    copy.names = dict(table.names)
    return copy


def _fingerprint(kind: str, body: Any, expected: int | None) -> str:
    from service.adapters.codec import dumps

    return hashlib.sha256(dumps([kind, body, expected])).hexdigest()


def public_event(record: Recorded, viewer: int | str | None) -> dict[str, Any]:
    """A stored event as ``viewer`` may see it, with its version and envelope facts."""
    event = record.event
    out = redact(Event.from_json(event), viewer)
    out.update(version=record.version, source=event.get("source", GAME_SOURCE), actor=event.get("actor"),
               at=event.get("at"))
    return out
