"""The use cases: what the API can ask of the server. Game-agnostic.

Command handling is one path for every game: load the stream (cache or snapshot plus
tail) -> fold -> ``decide`` -> append at the expected version. Everything a caller
reads goes through ``domain.kernel.events.redact`` with the caller's seat.
"""

from __future__ import annotations

import base64
import hashlib
import pickle
import re
import secrets
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from domain.kernel import Command, DomainError, Event, GameRules, Rng, RuleViolation, redact
from domain.kernel.events import EVERYONE
from domain.kernel.table import (
    GAME_CREATED,
    PLATFORM,
    PLATFORM_OPTIONS,
    UNDONE,
    Table,
    export_consented,
    game_created,
    game_started,
    moves_undone,
    seat_taken,
    split_options,
    undone_versions,
)
from domain.kernel.upcasting import current_version
from service.adapters.codec import dumps, loads
from service.adapters.store import DuplicateRequest, EventStore, Recorded, VersionConflict
from service.errors import (
    Conflict,
    Forbidden,
    NotFound,
    ServiceError,
    TooManyRequests,
    Unauthorized,
    Unprocessable,
)
from service.signing import VALID, Signer, signer_for

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
    #: for a game that came in through ``POST /games/import``: ``{ranked, from, signature}``
    imported: dict[str, Any] | None = None

    @property
    def ranked(self) -> bool:
        """Does this game count for scoreboards and players' records? (an imported log only
        when this server signed it and it was not here already)"""
        return self.imported is None or bool(self.imported.get("ranked"))

    @property
    def over(self) -> bool:
        return self.state is not None and self.rules.outcome(self.state) is not None

    def viewer_for(self, player: Mapping[str, Any] | None) -> int | None:
        return self.table.seat_of(player["id"]) if player else None

    def audience(self, player: Mapping[str, Any] | None) -> int | str | None:
        """Who a reader counts as: everyone once the game is over or in a game of open
        information; otherwise the reader's seat (None for a spectator)."""
        if self.over or self.table.open_information:
            return EVERYONE
        return self.viewer_for(player)

    def summary(self) -> dict[str, Any]:
        table = self.table
        outcome = self.rules.outcome(self.state) if self.state is not None else None
        return {
            "id": self.id,
            "type": table.game_type,
            "status": "finished" if outcome else table.status,
            "options": table.public_options(),
            "seats": [
                {"seat": s, "player_id": table.players.get(s),
                 "name": table.names.get(table.players[s]) if s in table.players else None}
                for s in range(table.seats)
            ],
            "to_move": self.rules.to_move(self.state) if self.state is not None else [],
            "version": self.version,
            "outcome": outcome.to_json() if outcome else None,
            "ranked": self.ranked,
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
                 cache_size: int = 512, snapshot_every: int = 0, signing_keys: tuple[str, ...] = (),
                 max_waiting_games: int = 0):
        self.store = store
        self.registry = dict(registry)
        self.clock = clock or Clock()
        self.after_append = after_append or (lambda stream: None)
        self.snapshot_every = snapshot_every
        self._cache: OrderedDict[str, Game] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self.signing_keys = tuple(signing_keys)
        self.max_waiting_games = max_waiting_games
        self._signer: Signer | None = None

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

    def rotate_token(self, token: str) -> dict[str, Any]:
        """A new token for the caller; the one it came with stops working at once."""
        player = self.authenticate(token)
        new = secrets.token_urlsafe(32)
        if not self.store.replace_token(player["id"], hash_token(token), hash_token(new)):
            raise Unauthorized("this token was revoked or rotated meanwhile")
        return {**player, "token": new}

    def revoke_token(self, token: str) -> None:
        """The caller's token stops working (a leaked token: rotate instead, to keep access)."""
        player = self.authenticate(token)
        if not self.store.replace_token(player["id"], hash_token(token), None):
            raise Unauthorized("this token was revoked or rotated meanwhile")

    def get_player(self, player_id: str) -> dict[str, Any]:
        player = self.store.player(player_id)
        if player is None:
            raise NotFound(f"no player with id {player_id!r}")
        return player

    # -- game types ------------------------------------------------------------------
    def game_types(self) -> list[dict[str, Any]]:
        return [
            {"type": rules.kind, "title": rules.title, "min_seats": rules.min_seats, "max_seats": rules.max_seats,
             "options": [spec.to_json() for spec in (*PLATFORM_OPTIONS, *rules.options_type.specs())],
             "commands": [{"type": verb.type, "args": verb.args, "description": verb.description,
                           "arguments": [verb.arg.to_json()] if verb.arg else []} for verb in rules.commands]}
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
        platform, own = split_options(dict(options))
        game_options = rules.check_options(own)
        game_options.validate_seats(seats)
        checked = {**platform, **game_options.to_json()}
        if idempotency_key:
            game_id = hashlib.sha256(f"{player['id']}:{idempotency_key}".encode()).hexdigest()[:16]
        else:
            game_id = uuid.uuid4().hex[:16]
        self._check_waiting_quota(player["id"], game_id)
        events = [Pending(game_created(kind, checked, seats, player["id"], secrets.token_hex(16),
                                       rules.options_type.secret_names()))]
        try:
            game = self._append(Game(game_id, 0, Table(), rules), events)
        except VersionConflict:  # the same idempotent request made it first: answer with that game
            return self.load(game_id)
        self.store.set_add(_waiting_set(player["id"]), game_id)
        return game

    def _check_waiting_quota(self, player_id: str, game_id: str) -> None:
        """At most ``max_waiting_games`` games created by one player wait for seats at once.
        The store's set of them is a hint kept beside the events; before refusing, every
        member is checked against its game (started, or gone, frees the place)."""
        limit = self.max_waiting_games
        if not limit:
            return
        members = self.store.set_members(_waiting_set(player_id))
        if len(members) < limit or game_id in members:
            return
        for member in members:
            try:
                still_waiting = not self.load(member).table.started
            except NotFound:
                still_waiting = False
            if not still_waiting:
                self.store.set_remove(_waiting_set(player_id), member)
                members.remove(member)
        if len(members) >= limit:
            raise TooManyRequests(f"you already have {len(members)} games waiting for players (at most {limit}); "
                                  "fill or wait for one before creating another",
                                  code="too_many_waiting_games", retry_after=60)

    def join_game(self, game_id: str, player: Mapping[str, Any], wanted: int | None = None) -> tuple[Game, int]:
        """Seat ``player`` at ``wanted`` (or the first open seat); the last seat starts the game."""
        for _ in range(CONFLICT_RETRIES):
            game = self.load(game_id)
            table = game.table
            if table.seat_of(player["id"]) is not None:
                raise Conflict("you already have a seat at this game", code="already_seated")
            if table.started:
                raise Conflict("the game has already started; no seat is open", code="game_started")
            open_seats = table.open_seats()
            seat = open_seats[0] if wanted is None else wanted
            if not 0 <= seat < table.seats:
                raise Unprocessable(f"seat must be between 0 and {table.seats - 1}", code="invalid_seat")
            if seat not in open_seats:
                raise Conflict(f"seat {seat} is taken; open seats: {open_seats}", code="seat_taken")
            events = [Pending(seat_taken(seat, player["id"], player["name"]))]
            if len(open_seats) == 1:
                events += self._start_events(game, {**table.players, seat: player["id"]})
            try:
                joined = self._append(game, events), seat
            except VersionConflict:
                continue
            if joined[0].table.started and self.max_waiting_games:
                self.store.set_remove(_waiting_set(table.created_by), game_id)
            return joined
        raise Conflict("the game is too busy; try again")

    def _start_events(self, game: Game, joined: dict[int, str]) -> list[Pending]:
        table = game.table
        rng = Rng(table.seed, game.version)
        players = [joined[s] for s in range(table.seats)]
        if table.options.get("seating") == "random":
            players = rng.shuffled(players)
        events = [Pending(game_started(players))]
        options = game.rules.options_type.from_json(table.game_options())
        events += [Pending(e, source=GAME_SOURCE) for e in game.rules.setup(table.seats, options, rng)]
        return events

    # -- loading ---------------------------------------------------------------------
    def current_version(self, game_id: str) -> int:
        """The game's latest version, read from the store without reading or folding an
        event (0: no such game). Answers built now depend on nothing else of the game."""
        return self.store.version(stream_of(game_id))

    def load(self, game_id: str, at: int | None = None, *, trust_cache: bool = False) -> Game:
        """The game folded to its latest version, or to version ``at`` (time travel).

        ``trust_cache``: answer from this process's cache without asking the store for a
        newer tail (a command does this: its append checks the version anyway, and a
        conflict loads again)."""
        if at is None:
            with self._lock:
                cached = self._cache.get(game_id)
            if cached is not None and trust_cache:
                return cached
            if cached is not None:
                game = self._extend(cached, self.store.read(stream_of(game_id), cached.version))
                if game is not None:
                    self._remember(game)
                    return game
        game = self._load_fresh(game_id, at)
        if at is None:
            self._remember(game)
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
            game = self._extend(snapshot, self.store.read(stream, snapshot.version, at))
            if game is not None:
                return game
            limit = snapshot.version - 1  # an undo reached behind this snapshot: try an older one
        return self._fold(game_id, self.store.read(stream, 0, at))

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
        empty = Game(game_id, records[0].version, table, self._rules(table.game_type),
                     imported=records[0].event.get("imported"))
        game = self._extend(empty, records[1:], fresh=True)
        assert game is not None, "an undo cannot reach behind the first event"
        return game

    def _extend(self, base: Game, tail: list[Recorded], fresh: bool = False) -> Game | None:
        """``base`` with ``tail`` applied; None if an undo in the tail takes back a version
        that ``base`` already contains (the caller must fold from further back)."""
        if not tail:
            return base
        undone = undone_versions((r.version, r.event) for r in tail)
        if undone and min(undone) <= base.version:
            return None
        table = base.table if fresh else _copy_table(base.table)
        state = base.state if (fresh or base.state is None) else base.rules.copy(base.state)
        for record in tail:
            if record.version in undone:
                continue
            if _is_platform(record.event):
                _apply_platform(table, Event.from_json(record.event))
            else:
                state = base.rules.evolve(state, Event.from_json(record.event))
        table.finished = state is not None and base.rules.outcome(state) is not None
        return Game(base.id, tail[-1].version, table, base.rules, state, base.undone | undone, base.imported)

    # -- snapshots: a cache of folded games, never the source of truth ---------------
    def _snapshot_schema(self, rules: GameRules) -> str:
        return f"{rules.kind}:{getattr(rules, 'rules_version', '1')}:pickle{pickle.DEFAULT_PROTOCOL}"

    def _maybe_snapshot(self, before: int, after: Game) -> None:
        every = self.snapshot_every
        if every and after.state is not None and after.version // every > before // every:
            blob = pickle.dumps((after.table, after.state, sorted(after.undone)))
            self.store.save_snapshot(stream_of(after.id), after.version, self._snapshot_schema(after.rules),
                                     {"pickle": base64.b64encode(blob).decode()})

    def _load_snapshot(self, game_id: str, at_most: int | None) -> Game | None:
        first = self.store.read(stream_of(game_id), 0, 1)
        if not first:
            raise NotFound(f"no game with id {game_id!r}")
        rules = self._rules(first[0].event["data"]["game_type"])
        found = self.store.load_snapshot(stream_of(game_id), self._snapshot_schema(rules), at_most)
        if found is None:
            return None
        version, body = found
        table, state, undone = pickle.loads(base64.b64decode(body["pickle"]))
        return Game(game_id, version, table, rules, state, frozenset(undone), first[0].event.get("imported"))

    # -- commands --------------------------------------------------------------------
    def submit_command(self, game_id: str, player: Mapping[str, Any], command: Command,
                       expected_version: int | None = None, idempotency_key: str | None = None) -> dict[str, Any]:
        stream = stream_of(game_id)
        fingerprint = _fingerprint("command", command.to_json(), expected_version)
        replay = self._replayed(stream, player, idempotency_key, fingerprint)
        if replay is not None:
            return replay
        try:
            return self._submit(game_id, stream, player, command, expected_version, idempotency_key, fingerprint)
        except (DomainError, Conflict):
            # a concurrent retry with the same key may have been stored after our first look:
            # the rules now refuse the move it made ("you have already given your Tribute") or
            # the version moved on. The client asked for that first answer, not the refusal.
            replay = self._replayed(stream, player, idempotency_key, fingerprint)
            if replay is not None:
                return replay
            raise

    def _submit(self, game_id: str, stream: str, player: Mapping[str, Any], command: Command,
                expected_version: int | None, idempotency_key: str | None, fingerprint: str) -> dict[str, Any]:
        for attempt in range(CONFLICT_RETRIES):
            # The first attempt decides on the cached game, with no read: the append refuses
            # it if the game moved on meanwhile (another process), and a refusal is only
            # given once the newest version has been looked at.
            trusted = attempt == 0
            game = self.load(game_id, trust_cache=trusted)
            if trusted and expected_version is not None and expected_version != game.version:
                game, trusted = self.load(game_id), False  # the cache may be behind what the client saw
            try:
                seat, events = self._decide(game, player, command, expected_version)
            except (DomainError, Conflict, Forbidden):
                if trusted and self.load(game_id).version != game.version:
                    continue  # the cached game was behind: decide again on the newest
                raise
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

    def _decide(self, game: Game, player: Mapping[str, Any], command: Command,
                expected_version: int | None) -> tuple[int, list[Event]]:
        seat = self._seat(game, player)
        if expected_version is not None and expected_version != game.version:
            raise Conflict(f"the game is at version {game.version}, not {expected_version}",
                           code="version_conflict", current_version=game.version)
        if game.over:
            raise RuleViolation("the game is over")
        accepted = [spec.type for spec in game.rules.commands]
        if command.type not in accepted:
            raise RuleViolation(f"{game.rules.title} has no command {command.type!r}; "
                                f"it accepts: {', '.join(accepted)}")
        return seat, game.rules.decide(game.state, seat, command, Rng(game.table.seed, game.version))

    def undo(self, game_id: str, player: Mapping[str, Any], idempotency_key: str | None = None) -> dict[str, Any]:
        """Take back the caller's latest move, if nothing has happened since that forbids it."""
        stream = stream_of(game_id)
        fingerprint = _fingerprint("undo", None, None)
        replay = self._replayed(stream, player, idempotency_key, fingerprint)
        if replay is not None:
            return replay
        try:
            return self._undo(game_id, stream, player, idempotency_key, fingerprint)
        except (DomainError, Conflict):  # as for commands: a concurrent retry may have made it
            replay = self._replayed(stream, player, idempotency_key, fingerprint)
            if replay is not None:
                return replay
            raise

    def _undo(self, game_id: str, stream: str, player: Mapping[str, Any], idempotency_key: str | None,
              fingerprint: str) -> dict[str, Any]:
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
            raise RuleViolation("your last move revealed hidden information or drew cards, or handed the "
                                "decision to another seat; it cannot be undone")
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

    def _append(self, game: Game, events: list[Pending],
                idempotency: tuple[str, dict[str, Any]] | None = None) -> Game:
        """Append ``events`` at ``game.version``; returns the game after them."""
        return self._write(game, events, idempotency)[0]

    def _write(self, game: Game, events: list[Pending],
               idempotency: tuple[str, dict[str, Any]] | None = None) -> tuple[Game, list[Recorded]]:
        """Append ``events`` at ``game.version``; the game after them, and what was stored.

        The last event of the batch carries the public facts that follow from it (whose
        move it is, the status, the outcome) so that read models never fold hidden state.
        """
        after = self._advance(game, events)
        at = self.clock.iso()
        envelopes = []
        for pending in events:
            body = _body(pending)
            body.update(at=at, batch=game.version + 1)
            envelopes.append(body)
        summary = after.summary()
        envelopes[-1]["after"] = {"status": summary["status"], "to_move": summary["to_move"],
                                  "outcome": summary["outcome"]}
        self.store.append(stream_of(game.id), game.version, envelopes, idempotency)
        self._remember(after)
        self.after_append(stream_of(game.id))
        self._maybe_snapshot(game.version, after)
        return after, [Recorded(stream_of(game.id), game.version + i + 1, body) for i, body in enumerate(envelopes)]

    def _advance(self, game: Game, events: list[Pending]) -> Game:
        """The game as it will be once ``events`` are stored (nothing is written)."""
        records = [Recorded(stream_of(game.id), game.version + i + 1, _body(p)) for i, p in enumerate(events)]
        if any(_is_undo(r.event) for r in records):
            return self._fold(game.id, self.store.read(stream_of(game.id), 0, game.version) + records)
        if game.version == 0:
            return self._fold(game.id, records)
        advanced = self._extend(game, records)
        assert advanced is not None
        return advanced

    def _append_and_answer(self, game: Game, stream: str, seat: int, events: list[Pending],
                           player: Mapping[str, Any], idempotency_key: str | None, fingerprint: str) -> dict[str, Any]:
        record = {"fingerprint": fingerprint, "first": game.version + 1, "last": game.version + len(events),
                  "seat": seat}
        idem = (f"{player['id']}:{idempotency_key}", record) if idempotency_key else None
        after, stored = self._write(game, events, idem)
        return self._answer(stream, record, after, stored)

    def _answer(self, stream: str, record: dict[str, Any], game: Game | None = None,
                events: list[Recorded] | None = None) -> dict[str, Any]:
        """What a command's POST answers: its events as the acting seat may see them."""
        game = game or self.load(stream.removeprefix("game-"))
        if events is None:  # a replayed request: read back what the first one stored
            events = self.store.read(stream, record["first"] - 1, record["last"])
        viewer = EVERYONE if game.audience(None) == EVERYONE else record["seat"]
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

    # -- reading ---------------------------------------------------------------------
    def state(self, game_id: str, player: Mapping[str, Any] | None, at: int | None = None) -> dict[str, Any]:
        current = self.load(game_id)
        seat = current.viewer_for(player)
        game = current if at is None else self.load(game_id, at)
        # looking back at a finished game, everything is revealed; during play, only what the seat saw then
        viewer = current.audience(player) if at is not None or current.table.open_information else seat
        view = game.rules.view(game.state, viewer) if game.state is not None else None
        return {"version": game.version, "seat": seat, "status": game.summary()["status"], "view": view}

    def legal_commands(self, game_id: str, player: Mapping[str, Any] | None) -> dict[str, Any]:
        game = self.load(game_id)
        seat = self._seat(game, player)
        if game.over:
            return {"version": game.version, "seat": seat, "prompt": None, "commands": []}
        asked = game.rules.prompt(game.state, seat)
        commands = game.rules.legal_commands(game.state, seat)
        return {"version": game.version, "seat": seat,
                "prompt": {"text": asked.text, "choices": asked.to_json()["choices"]} if asked else None,
                "commands": [c.to_json() for c in commands]}

    def list_games(self, kind: str | None = None, status: str | None = None) -> list[dict[str, Any]]:
        """Games from the lobby projection (see ``service.read_models``), latest activity first."""
        from service.read_models import read_models_of

        return read_models_of(self).list_games(kind, status)

    def events(self, game_id: str, player: Mapping[str, Any] | None, after: int = 0,
               limit: int = 100) -> dict[str, Any]:
        game = self.load(game_id)
        viewer = game.audience(player)
        records = self.store.read(stream_of(game_id), after, after + limit)
        return {"version": game.version, "events": [public_event(r, viewer) for r in records],
                "next_after": records[-1].version if records and records[-1].version < game.version else None}

    def replay(self, game_id: str, player: Mapping[str, Any] | None, after: int = 0,
               limit: int = 50) -> dict[str, Any]:
        """The game step by step: each standing event with the view right after it.

        During play each step shows what the caller could see then; once the game is
        over, everything is revealed to anyone.
        """
        current = self.load(game_id)
        viewer = current.audience(player)
        records = self.store.read(stream_of(game_id), 0, current.version)
        rules, state = current.rules, None
        steps = []
        for record in records:
            if record.version in current.undone or _is_undo(record.event):
                continue
            if not _is_platform(record.event):  # platform events change no view
                state = rules.evolve(state, Event.from_json(record.event))
            if record.version > after:
                view = rules.view(state, viewer) if state is not None else None
                steps.append({"event": public_event(record, viewer), "view": view})
                if len(steps) == limit:
                    break
        last = steps[-1]["event"]["version"] if steps else None
        return {"version": current.version, "steps": steps,
                "next_after": last if last is not None and last < current.version else None}

    # -- portable logs ---------------------------------------------------------------
    def consent_to_export(self, game_id: str, player: Mapping[str, Any]) -> dict[str, Any]:
        """The caller's seat agrees to export the game before it is over (every seat must)."""
        return self._change_consent(game_id, player, give=True)

    def withdraw_export_consent(self, game_id: str, player: Mapping[str, Any]) -> dict[str, Any]:
        """The caller's seat takes its consent back: no copy of the unfinished game leaves after it."""
        return self._change_consent(game_id, player, give=False)

    def _change_consent(self, game_id: str, player: Mapping[str, Any], give: bool) -> dict[str, Any]:
        for _ in range(CONFLICT_RETRIES):
            game = self.load(game_id)
            seat = self._seat(game, player)
            if (seat in game.table.export_consent) == give or game.over:
                return self._consent(game)
            event = export_consented(seat) if give else export_consent_withdrawn(seat)
            try:
                return self._consent(self._append(game, [Pending(event, seat)]))
            except VersionConflict:
                continue
        raise Conflict("the game is too busy; try again", code="busy")

    @staticmethod
    def _consent(game: Game) -> dict[str, Any]:
        return {"version": game.version, "consented": sorted(game.table.export_consent),
                "may_export": game.table.may_export()}

    @property
    def signer(self) -> Signer:
        if self._signer is None:
            self._signer = signer_for(self.signing_keys, self.store)
        return self._signer

    def export(self, game_id: str, player: Mapping[str, Any] | None = None) -> str:
        """A game as JSON Lines: a signed header, then every stored event in order.

        A finished game is exported whole, secrets included, to anyone. Before the end
        only a seated player may export, once every seat consented, and that seat's copy
        hides what the seat may not see (other hands, face-down cards, the deck, the seed).
        """
        game = self.load(game_id)
        viewer: int | str = EVERYONE
        if not game.over:
            if player is None:
                raise Unauthorized("a game in play is exported only to its seated players: send your token")
            seat = game.table.seat_of(player["id"])
            if seat is None:
                raise Forbidden("a game in play is exported only to its seated players")
            if not game.table.may_export():
                missing = sorted(set(range(game.table.seats)) - game.table.export_consent)
                raise Conflict(f"a game is exported once it is over, or when every seat consents; "
                               f"seats {missing} have not consented", code="export_not_allowed")
            viewer = seat
        records = self.store.read(stream_of(game_id), 0, game.version)
        lines = [{"version": r.version, **_redacted_body(r.event, viewer)} for r in records]
        header: dict[str, Any] = {
            "format": LOG_FORMAT, "format_version": 2, "game_id": game.id, "game_type": game.table.game_type,
            "rules_version": getattr(game.rules, "rules_version", "1"), "options": game.table.options,
            "seats": game.summary()["seats"], "events": len(records), "finished": game.over,
            "ranked": game.ranked, "redacted_for": None if viewer == EVERYONE else viewer,
            "digest": (_digest(game, [r.event for r in records]) if viewer == EVERYONE
                       else hashlib.sha256(dumps(lines, sort=True)).hexdigest()),
            "exported_at": self.clock.iso(),
        }
        header["signature"] = self.signer.sign(header, lines)
        return "".join(dumps(line).decode() + "\n" for line in [header, *lines])

    def import_game(self, text: str) -> Game:
        """A game from an exported log; refused whole if anything is off.

        Every public fact is recomputed from the events (the status, whose move, the
        outcome); the file's own are dropped. A log this server signed, of a game that is
        not here yet, comes back under its own id and counts for rankings; any other log
        (unsigned, signed elsewhere, altered, or a game this server already has) becomes a
        new, unranked game: replay and study, never scoreboards or players' records.
        """
        lines = [line for line in text.splitlines() if line.strip()]
        if not lines:
            raise Unprocessable("the log is empty", code="invalid_log")
        try:
            parsed = [loads(line) for line in lines]
        except ValueError as exc:
            raise Unprocessable(f"the log is not JSON Lines: {exc}", code="invalid_log") from None
        header, bodies = parsed[0], parsed[1:]
        if not bodies:
            raise Unprocessable("the log has a header but no events", code="invalid_log")
        if not isinstance(header, dict) or header.get("format") != LOG_FORMAT:
            raise Unprocessable(f"the first line must be a {LOG_FORMAT!r} header", code="invalid_log")
        if header.get("events") != len(bodies):
            raise Unprocessable(f"the header announces {header.get('events')} events but the log has "
                                f"{len(bodies)}: it is truncated or padded", code="invalid_log")
        for number, body in enumerate(bodies, start=1):
            if not isinstance(body, dict) or body.get("version") != number or not isinstance(body.get("type"), str):
                raise Unprocessable(f"line {number + 1} is not event version {number}", code="invalid_log")
        if header.get("redacted_for") is not None:
            raise Unprocessable("this copy was exported during play and hides what its seat could not see; "
                                "import the game's export once it is over", code="invalid_log")
        if header.get("game_type") not in self.registry:
            raise Unprocessable(f"unknown game type {header.get('game_type')!r}", code="invalid_log")
        verdict = self.signer.verify(header, bodies)
        # envelope facts the server derives itself are never taken from a file
        envelopes = [{k: v for k, v in body.items() if k not in ("version", "after", "imported")}
                     for body in bodies]
        probe_id = uuid.uuid4().hex[:16]
        try:
            game, afters = self._refold(probe_id, envelopes)
        except ServiceError:
            raise
        except DomainError as exc:
            raise Unprocessable(f"the log breaks the game's rules: {exc}", code="invalid_log") from None
        except Exception as exc:  # a tampered log may break the fold in any way
            raise Unprocessable(f"the events do not fold into a game: {exc!r}", code="invalid_log") from None
        if not game.table.may_export():
            raise Unprocessable("the log is of a game that was neither finished nor consented to export",
                                code="invalid_log")
        if _digest(game, [{k: v for k, v in b.items() if k != "version"} for b in bodies]) != header.get("digest"):
            raise Unprocessable("the events or the final state they fold to differ from the header's digest: "
                                "the log was altered", code="invalid_log")
        for envelope, after in zip(envelopes, afters, strict=True):
            if after is not None:
                envelope["after"] = after
        origin = header.get("game_id") if isinstance(header.get("game_id"), str) else None
        signed = verdict == VALID
        if signed and header.get("ranked", True) and origin and _GAME_ID.fullmatch(origin):
            envelopes[0]["imported"] = {"ranked": True, "from": origin, "signature": verdict}
            try:  # at version 0: a game already on this server conflicts, atomically
                self.store.append(stream_of(origin), 0, envelopes)
                self.after_append(stream_of(origin))
                return self.load(origin)
            except VersionConflict:
                reason = "already_here"
        else:
            reason = verdict if not signed else "unranked_at_origin"
        envelopes[0]["imported"] = {"ranked": False, "from": origin, "signature": verdict, "reason": reason}
        self.store.append(stream_of(probe_id), 0, envelopes)
        self.after_append(stream_of(probe_id))
        return self.load(probe_id)

    def _refold(self, game_id: str, envelopes: list[dict[str, Any]]) -> tuple[Game, list[dict[str, Any] | None]]:
        """The game the events fold to, and the public facts after each append (batch), as
        this server computes them. Options are checked against the game's bounds."""
        records = [Recorded(stream_of(game_id), i + 1, body) for i, body in enumerate(envelopes)]
        first = Event.from_json(records[0].event)
        if records[0].event.get("source") != PLATFORM or first.type != GAME_CREATED:
            raise Unprocessable("the events do not fold into a game: the first event must be the platform's "
                                "GameCreated", code="invalid_log")
        rules = self._rules(first.data.get("game_type"))
        seats = first.data.get("seats")
        if isinstance(seats, bool) or not isinstance(seats, int) or not rules.min_seats <= seats <= rules.max_seats:
            raise Unprocessable(f"{rules.title} is for {rules.min_seats} to {rules.max_seats} seats",
                                code="invalid_log")
        if not isinstance(first.data.get("options"), dict):
            raise Unprocessable("the log's GameCreated has no options", code="invalid_log")
        game = self._fold(game_id, records[:1])
        # every option (secret ones included) within this server's bounds, else InvalidOptions
        split_options(dict(game.table.options))
        rules.check_options(game.table.game_options()).validate_seats(seats)
        afters: list[dict[str, Any] | None] = []
        for index, record in enumerate(records):
            if index:
                game = self._extend(game, [record]) or self._fold(game_id, records[:index + 1])
            last_of_batch = index + 1 == len(records) or \
                records[index + 1].event.get("batch") != record.event.get("batch")
            afters.append(_after(game) if last_of_batch else None)
        return game, afters


def _after(game: Game) -> dict[str, Any]:
    summary = game.summary()
    return {"status": summary["status"], "to_move": summary["to_move"], "outcome": summary["outcome"]}


def _redacted_body(event: dict[str, Any], viewer: int | str) -> dict[str, Any]:
    """A stored event as ``viewer`` may see it, keeping the envelope (a seat's export copy)."""
    if viewer == EVERYONE or event.get("secret") is None or Event.from_json(event).visible_to(viewer):
        return event
    return {**{k: v for k, v in event.items() if k != "secret"}, "redacted": True}


#: the platform event that takes a seat's export consent back (handled here, beside the kernel's Table)
EXPORT_CONSENT_WITHDRAWN = "ExportConsentWithdrawn"


def export_consent_withdrawn(seat: int) -> Event:
    return Event(EXPORT_CONSENT_WITHDRAWN, {"seat": seat})


def _apply_platform(table: Table, event: Event) -> None:
    if event.type == EXPORT_CONSENT_WITHDRAWN:
        table.export_consent.discard(event.data["seat"])
    else:
        table.apply(event)


_GAME_ID = re.compile("[0-9a-f]{16}")


def _body(pending: Pending) -> dict[str, Any]:
    """The stored shape of an event: the event, where it came from, its schema version."""
    event = pending.event
    return {**event.to_json(), "source": pending.source, "actor": pending.actor,
            "v": current_version(pending.source, event.type)}


def _waiting_set(player_id: str) -> str:
    return f"waiting-games:{player_id}"


def _is_platform(event: Mapping[str, Any]) -> bool:
    return event.get("source") == PLATFORM


def _is_undo(event: Mapping[str, Any]) -> bool:
    return _is_platform(event) and event["type"] == UNDONE


def _copy_table(table: Table) -> Table:
    copy = Table(**{**table.__dict__})
    copy.players = dict(table.players)
    copy.names = dict(table.names)
    copy.export_consent = set(table.export_consent)
    return copy


LOG_FORMAT = "game-log"


def _digest(game: Game, envelopes: list[dict[str, Any]]) -> str:
    """A fingerprint of a log: every stored event, and what the game folds to (the
    everything-revealed view and the outcome). Any edit to an event line changes it."""
    outcome = game.rules.outcome(game.state)
    final = {"view": game.rules.view(game.state, EVERYONE), "outcome": outcome.to_json() if outcome else None}
    return hashlib.sha256(dumps({"events": envelopes, "final": final}, sort=True)).hexdigest()


def _fingerprint(kind: str, body: Any, expected: int | None) -> str:
    return hashlib.sha256(dumps([kind, body, expected])).hexdigest()


def public_event(record: Recorded, viewer: int | str | None) -> dict[str, Any]:
    """A stored event as ``viewer`` may see it, with its version and envelope facts.

    The platform's own secrets (the game's seed, secret options such as a given deal) are
    never sent to anyone, not even to everyone in a game of open information: the seed
    would tell the draws still to come."""
    event = record.event
    out = redact(Event.from_json(event), None if _is_platform(event) else viewer)
    out.update(version=record.version, source=event.get("source", GAME_SOURCE), actor=event.get("actor"),
               at=event.get("at"))
    return out
