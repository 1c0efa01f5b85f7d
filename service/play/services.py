"""The use cases: what the API can ask of the server. Game-agnostic.

(About 370 lines, over this codebase's 300: it is the list of the API's use cases, about
twenty, each a few lines over the mechanisms below; splitting them would only scatter the
list.)

Each use case is short and reads as its steps; the mechanisms live in one module each:

* ``service.streams.loading``: a game from the cache, a snapshot plus the tail, or its first event;
* ``service.streams.appending``: an append at the decided version, ``retry_on_conflict``, and a
  move's answer for its first request and every idempotent retry;
* ``service.streams.envelopes``: the stored shape of an event, stream names, ``public_event``;
* ``service.streams.game``: ``Game`` and ``audience``, who a reader counts as;
* ``service.streams.undo_policy``, ``service.streams.replay``, ``service.play.portable_logs``;
* ``service.background.read_models``: the lobby, scoreboards and histories.

A command: load (cache) -> ``decide`` -> append at that version; a conflict decides again
on the newer game. Everything a caller reads goes through ``public_event`` or the game's
``view`` with the caller's audience.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from domain.kernel import Command, DomainError, GameRules, RuleViolation
from domain.kernel.bots import bot_kinds
from domain.kernel.clocks import (
    clock_timed_out,
    clock_warned,
    clocks_paused,
    clocks_resumed,
    pause_voted,
    seat_forfeited,
    warn_at,
)
from domain.kernel.events import EVERYONE
from domain.kernel.fairness import SECRET_BITS
from domain.kernel.stand_ins import DEFAULT_KIND, SEAT_TAKEN_OVER, TIMED_OUT, seat_taken_over
from domain.kernel.table import (
    PLATFORM_OPTIONS,
    Table,
    export_consent_withdrawn,
    export_consented,
    game_created,
    moves_undone,
    seat_taken,
    split_options,
)
from projections.base import STREAM_PREFIX
from service.adapters.store import DuplicateRequest, EventStore, VersionConflict
from service.background.bot_seats import (
    BOT_GAMES,
    BotSeats,
    BotTables,
    Driver,
    bot_label,
    check_bot_seats,
    check_stand_in,
)
from service.background.clocks import ClockedGames, Timeouts
from service.background.projections_runner import ProjectionRunner
from service.background.read_models import ReadModels
from service.background.webhooks import Webhooks
from service.base.errors import Conflict, Forbidden, NotFound, TooManyRequests, Unauthorized, Unprocessable
from service.play.chat import Chat
from service.play.lifecycle import Lifecycle
from service.play.portable_logs import PortableLogs
from service.players.live_hub import LiveHub
from service.players.player_feed import PlayerFeed
from service.players.players import Players
from service.streams.appending import Appender, Clock, News, fingerprint, iso, retried, retry_on_conflict
from service.streams.clock_rules import deadline_in, timeout_command
from service.streams.envelopes import GAME_SOURCE, NewEvent, game_of, public_event, stream_of
from service.streams.game import Game, audience, opening_events
from service.streams.loading import GameLoader
from service.streams.replay import replay_steps
from service.streams.undo_policy import undoable_move

if TYPE_CHECKING:
    from redis import Redis

#: the stand-in of a table whose creator chose none (``domain.kernel.stand_ins``)
DEFAULT_STAND_IN: Mapping[str, Any] = {"kind": DEFAULT_KIND}


@dataclass(frozen=True)
class Move:
    """A seat's command as the client sent it (``GameService.submit_command``)."""

    game_id: str
    player: Mapping[str, Any]
    command: Command
    expected_version: int | None
    idempotency_key: str | None
    token_generation: int | None

    @cached_property
    def request(self) -> str:
        """Its fingerprint, kept and compared only with an Idempotency-Key."""
        if not self.idempotency_key:
            return ""
        return fingerprint("command", self.command.to_json(), self.expected_version)


class GameService:
    """The use cases. Built by ``service.wiring.bootstrap.build_service`` (the composition root), which
    gives it every collaborator of the deployment: ``after_append``, the read models' news of
    an append (a catch-up, or jobs; nothing where workers tail the log); ``deliveries``, the
    webhooks' runner, and ``webhooks`` it delivers for; ``timeouts`` and ``bots``, the clocks'
    and bot seats' runners, made here from factories given this service (they act on it, and
    it tells them of each append); ``job_queue``, the RQ deployment's Redis (/health probes it);
    ``loader``, ``players``, ``feed`` and ``clock``, shared with those runners. What it makes
    itself is its own inside: the appender (which tells the runners), the portable logs, the
    live hub, lifecycle and chat, each given at construction too. Without the runners (tests,
    tools), a service of one process that nobody runs background work for."""

    def __init__(self, store: EventStore, registry: Mapping[str, GameRules], *,
                 clock: Clock | None = None, after_append: Callable[[str], None] | None = None,
                 read_models: ReadModels | None = None, cache_size: int = 512, snapshot_every: int = 0,
                 signing_keys: tuple[str, ...] = (), max_waiting_games: int = 0, stream_poll: float = 0.2,
                 bots: Callable[[BotTables], Driver | None] | None = None, max_bot_games: int = 0,
                 webhooks: Webhooks | None = None, deliveries: Callable[[str], None] | None = None,
                 timeouts: Callable[[ClockedGames], Timeouts | None] | None = None, job_queue: Redis | None = None,
                 loader: GameLoader | None = None, players: Players | None = None, feed: PlayerFeed | None = None):
        self.store = store
        self.registry = dict(registry)
        self.players = players or Players(store)
        self.loader = loader or GameLoader(store, self.registry, cache_size=cache_size, snapshot_every=snapshot_every)
        clock = clock or Clock()
        #: each player's own feed of notices (``service.players.player_feed``), told of every append
        self.feed = feed or PlayerFeed(store, clock)
        #: pushes (``service.background.webhooks``; None: no webhooks) and who delivers them
        self.webhooks = webhooks
        self.deliveries = deliveries or _nobody
        #: the turn clocks' timeouts (``service.background.clocks``; None: another process runs them)
        self.timeouts = timeouts(self) if timeouts is not None else None
        #: told of the game after each append: is a bot prompted? (``service.background.bot_seats``)
        self.bots = BotSeats(bots(self) if bots is not None else None)
        self.appender = Appender(store, self.loader, clock,
                                 News(after_append or _nobody, self.deliveries, self.timeouts or _nobody),
                                 self.bots, self.feed.record)
        self.logs = PortableLogs(self.loader, self.appender, self.appender.clock, tuple(signing_keys), self.players)
        #: without a worker or a catch-up after appends, a read catches the models up itself
        self.read_models = read_models or ReadModels(ProjectionRunner(store), catch_up_on_read=True)
        self.max_waiting_games = max_waiting_games
        #: games with a bot seat one player may have running (not over) at once (0: no limit)
        self.max_bot_games = max_bot_games
        #: one store poll serves every live stream of this process (``service.play.live_feed``)
        self.live_hub = LiveHub(store, self._followed, poll=stream_poll, credentials=self.players)
        #: resign, abort, agreement, rematch and invitations (``service.play.lifecycle``)
        self.lifecycle = Lifecycle(self)
        #: chat rooms beside each game (``service.play.chat``)
        self.chat = Chat(self)
        #: the job queue's Redis connection in an RQ deployment (probed by /health), else None
        self.job_queue = job_queue

    def _followed(self, stream: str) -> Game | None:
        """What the live hub hands a stream's followers with its new events: the game (None
        for a stream that is no game: a player's feed, a game's chat)."""
        return self.load(game_of(stream)) if stream.startswith(STREAM_PREFIX) else None

    # -- game types ------------------------------------------------------------------
    def game_types(self) -> list[dict[str, Any]]:
        return [
            {"type": rules.kind, "title": rules.title, "min_seats": rules.min_seats, "max_seats": rules.max_seats,
             "default_seats": rules.default_seats,
             "options": [spec.to_json() for spec in (*PLATFORM_OPTIONS, *rules.options_type.specs())],
             "commands": [{"type": verb.type, "args": verb.args, "description": verb.description,
                           "arguments": [verb.arg.to_json()] if verb.arg else []} for verb in rules.commands],
             "bots": [{"kind": kind.name, "description": kind.description, "levels": list(kind.levels),
                       "default_level": kind.default_level} for kind in bot_kinds(rules).values()],
             "cards_url": f"/game-types/{rules.kind}/cards" if getattr(rules, "card_catalogue", None) else None}
            for rules in self.registry.values()
        ]

    def card_catalogue(self, kind: str) -> dict[str, Any]:
        """What is printed on each of a game's cards (``GET /game-types/{type}/cards``): public, the same
        for every game of the type; NotFound for an unknown type or one with no catalogue."""
        rules = self.registry.get(kind)
        catalogue = getattr(rules, "card_catalogue", None)
        if catalogue is None:
            raise NotFound(f"no card catalogue for {kind!r}; games with one: "
                           f"{', '.join(sorted(k for k, r in self.registry.items() if getattr(r, 'card_catalogue', None)))}")
        return catalogue

    # -- lifecycle -------------------------------------------------------------------
    def create_game(self, player: Mapping[str, Any], kind: str, options: Mapping[str, Any], seats: int,
                    idempotency_key: str | None = None, bots: Sequence[Mapping[str, Any]] = (),
                    private: bool = False, stand_in: Mapping[str, Any] | None = DEFAULT_STAND_IN) -> Game:
        """``bots``: seats reserved for computer opponents, ``{seat?, kind, level?}`` each;
        ``private``: a table left out of the lobby, whose seats are taken by invitation only
        (``service.play.lifecycle``); ``stand_in``: the computer opponent, ``{kind, level?}``, that
        takes a seat its person left in a game of three or more (None: none, the game ends;
        ``domain.kernel.stand_ins``)."""
        rules = self.loader.rules(kind)
        platform, own = split_options(dict(options))
        game_options = rules.check_setup(seats, own)
        checked = {**platform, **game_options.to_json()}
        reserved = check_bot_seats(rules, seats, bots)
        standing_in = check_stand_in(rules, stand_in, chosen=stand_in is not DEFAULT_STAND_IN)
        if idempotency_key:  # the same request again finds the game it made
            game_id = hashlib.sha256(f"{player['id']}:{idempotency_key}".encode()).hexdigest()[:16]
        else:
            game_id = uuid.uuid4().hex[:16]
        self._check_quota(_waiting_set(player["id"]), self.max_waiting_games, game_id, lambda g: not g.table.started,
                          "games waiting for players", "fill or wait for one before creating another",
                          "too_many_waiting_games")
        if reserved:
            self._check_quota(_bot_games_set(player["id"]), self.max_bot_games, game_id, lambda g: not g.over,
                              "games with bots running", "finish one before starting another", "too_many_bot_games")
        created = game_created(kind, checked, seats, player["id"], secrets.token_hex(SECRET_BITS // 8),
                               rules.options_type.secret_names(), salt=secrets.token_hex(SECRET_BITS // 8))
        if private:
            created.data["private"] = True
        created.data["stand_in"] = standing_in
        events = [NewEvent(created)]
        for seat, bot in reserved.items():  # each bot is a player of its own; its token is never used
            robot = self.players.create(f"{bot['kind']} bot ({bot['level']})")
            events.append(NewEvent(seat_taken(seat, robot["id"], robot["name"], bot)))
        try:
            game, _ = self.appender.append(Game(game_id, 0, Table(), rules), events)
        except VersionConflict:  # the same idempotent request made it first: answer with that game
            self.store.confirm(stream_of(game_id))  # once it is as durable as our own append would be
            return self.load(game_id)
        self.store.set_add(_waiting_set(player["id"]), game_id)
        if reserved:
            self.store.set_add(BOT_GAMES, game_id)
            self.store.set_add(_bot_games_set(player["id"]), game_id)
        return game

    def _check_quota(self, name: str, limit: int, game_id: str, counted: Callable[[Game], bool], what: str,
                     remedy: str, code: str) -> None:
        """At most ``limit`` games of one player's (the store's set ``name``) are ``counted``
        at once: waiting for seats, or running with bots. The set is a hint kept beside the
        events; before refusing, every member is checked against its game (one no longer
        counted, or gone, frees its place)."""
        if not limit:
            return
        members = self.store.set_members(name)
        if len(members) < limit or game_id in members:
            return
        for member in list(members):
            try:
                still_counted = counted(self.load(member))
            except NotFound:
                still_counted = False
            if not still_counted:
                self.store.set_remove(name, member)
                members.remove(member)
        if len(members) >= limit:
            raise TooManyRequests(f"you already have {len(members)} {what} (at most {limit}); {remedy}",
                                  code=code, retry_after=60)

    @retried
    def join_game(self, game_id: str, player: Mapping[str, Any], wanted: int | None = None) -> tuple[Game, int]:
        """Seat ``player`` at ``wanted`` (or the first open seat); the last seat starts the game."""
        game = self.load(game_id)
        seat = self._open_seat(game, player, wanted)
        events = [NewEvent(seat_taken(seat, player["id"], player["name"]))]
        if len(game.table.open_seats()) == 1:
            events += opening_events(game, {**game.table.players, seat: player["id"]})
        joined, _ = self.appender.append(game, events)
        if joined.table.started and self.max_waiting_games:
            self.store.set_remove(_waiting_set(game.table.created_by), game_id)
        return joined, seat

    def _open_seat(self, game: Game, player: Mapping[str, Any], wanted: int | None) -> int:
        """The seat ``player`` may take: ``wanted``, else the first open one not held for an invitation."""
        table = game.table
        if table.seat_of(player["id"]) is not None:
            raise Conflict("you already have a seat at this game", code="already_seated")
        if table.started:
            raise Conflict("the game has already started; no seat is open", code="game_started")
        if table.private and player["id"] != table.created_by:
            raise Forbidden("this table is private: a seat is taken by accepting an invitation",
                            code="private_table")
        if game.over:
            raise Conflict("the table was called off", code="game_over")
        held = table.invitations.reserved_seats(self.appender.clock.iso())
        open_seats = [s for s in table.open_seats() if s not in held]
        if not open_seats:
            raise Conflict("every open seat is held for an invitation", code="seat_taken")
        seat = open_seats[0] if wanted is None else wanted
        if not 0 <= seat < table.seats:
            raise Unprocessable(f"seat must be between 0 and {table.seats - 1}", code="invalid_seat")
        if seat not in open_seats:
            raise Conflict(f"seat {seat} is taken; open seats: {open_seats}", code="seat_taken")
        return seat

    # -- loading ---------------------------------------------------------------------
    def current_version(self, game_id: str) -> int:
        """The game's latest version without reading or folding an event (0: no such game).
        Answers built now depend on nothing else of the game."""
        return self.loader.current_version(game_id)

    def caller_and_version(self, game_id: str, token: str | None) -> tuple[dict[str, Any] | None, int]:
        """The player of ``token`` (None without one) and the game's latest version, read
        together: a token this process checked before costs no lookup (``Players``)."""
        if token is None:
            return None, self.current_version(game_id)
        if not self.store.tokens_cacheable:
            return self.players.authenticate(token), self.current_version(game_id)
        version, generation = self.store.version_and_token_generation(stream_of(game_id))
        return self.players.authenticate_at(token, generation), version

    def load(self, game_id: str, at: int | None = None, *, trust_cache: bool = False,
             known_version: int = 0) -> Game:
        return self.loader.load(game_id, at, trust_cache=trust_cache, known_version=known_version)

    # -- moves -----------------------------------------------------------------------
    def submit_command(self, game_id: str, player: Mapping[str, Any], command: Command,
                       expected_version: int | None = None, idempotency_key: str | None = None, *,
                       token_generation: int | None = None) -> dict[str, Any]:
        """``token_generation``: the one the caller's token was checked at; the append stores
        nothing if a token was rotated or revoked since (``TokensChanged``, ``Players.as_checked``)."""
        move = Move(game_id, player, command, expected_version, idempotency_key, token_generation)
        return self._idempotent(game_id, player, idempotency_key, move.request, lambda: retry_on_conflict(
            lambda: self._play(move, self.load(game_id)), first=lambda: self._play(move, *self._cached(move))))

    def _cached(self, move: Move) -> tuple[Game, bool]:
        """The game a move is first decided on: the cached copy, with no read (the append
        refuses it if the game moved on meanwhile, in another process), unless the client
        saw another version than it (the cache may be behind); and whether it is the cached copy."""
        game = self.load(move.game_id, trust_cache=True)
        if move.expected_version is not None and move.expected_version != game.version:
            return self.load(move.game_id), False
        return game, True

    def _play(self, move: Move, game: Game, cached: bool = False) -> dict[str, Any]:
        """One attempt at a move: decided on ``game``, appended at its version, answered.
        A refusal is only given once the newest version has been looked at."""
        try:
            seat, (events, played) = self._decide(game, move.player, move.command, move.expected_version)
        except (DomainError, Conflict, Forbidden):
            if cached:  # refused on the cached copy: decide again if the store holds another game
                stored = self.load(move.game_id)
                if (stored.version, stored.head) != (game.version, game.head):
                    raise VersionConflict(stream_of(move.game_id), game.version, -1) from None
            raise
        bot = game.table.bot_seats().get(seat) if game.table.bots else None
        label = bot_label(bot) if bot else None
        new = [NewEvent(e, seat, GAME_SOURCE, upcasters=game.rules.upcasters, bot=label) for e in events]
        try:
            return self.appender.append_and_answer(game, seat, new, move.player, move.idempotency_key,
                                                   move.request, played, token_generation=move.token_generation)
        except VersionConflict as conflict:
            if move.expected_version is not None:  # the client's version is not the game's any more: 409
                raise Conflict(f"the game moved on to version {conflict.current}",
                               code="version_conflict", current_version=conflict.current) from None
            raise

    def _decide(self, game: Game, player: Mapping[str, Any], command: Command,
                expected_version: int | None) -> tuple[int, tuple[list[Any], Any]]:
        """The seat, and what its command does: the events and the state after them (played
        on a copy: the cached game stays as it was until the append succeeds)."""
        seat = self._seat(game, player)
        if expected_version is not None and expected_version != game.version:
            raise Conflict(f"the game is at version {game.version}, not {expected_version}",
                           code="version_conflict", current_version=game.version)
        if game.table.clocks.forfeited is not None:  # the platform's ending: the rules know nothing of it
            raise RuleViolation("the game is over: a seat ran out of time")
        if game.table.endings.outcome is not None:  # resigned, aborted or ended by agreement
            raise RuleViolation(f"the game is over ({game.table.endings.outcome.details['reason']})")
        return seat, game.rules.play(game.rules.copy(game.state), seat, command, game.table.rng(game.version))

    def undo(self, game_id: str, player: Mapping[str, Any], idempotency_key: str | None = None) -> dict[str, Any]:
        """Take back the caller's latest move, if nothing has happened since that forbids it."""
        request = fingerprint("undo", None, None)
        return self._idempotent(game_id, player, idempotency_key, request,
                                lambda: self._undo(game_id, player, idempotency_key, request))

    @retried
    def _undo(self, game_id: str, player: Mapping[str, Any], idempotency_key: str | None,
              request: str) -> dict[str, Any]:
        game = self.load(game_id)
        seat = self._seat(game, player)
        if game.over:
            raise RuleViolation("the game is over; nothing can be undone")
        first, last = undoable_move(self.store.read(stream_of(game_id)), seat)
        return self.appender.append_and_answer(game, seat, [NewEvent(moves_undone(seat, first, last), seat)],
                                               player, idempotency_key, request)

    # -- turn clocks (service.background.clocks) ------------------------------------------------------
    def time_out(self, game_id: str, seat: int, started_version: int) -> float | None:
        """Act for ``seat`` whose clock (started at ``started_version``) ran out: its game's
        default on a timeout, else a stand-in takes the seat (a game of three or more that goes
        on: ``domain.kernel.stand_ins``), else a forfeit. Nothing if that clock no longer runs
        (the seat moved in time, or this timeout already acted); the seconds left if it is not due.
        Seats whose clocks ran out earlier are acted on first (``Clocks.run_out``: the
        earliest deadline, then the clock started first, then the lower seat), whichever
        seat's timeout runs first: no seat loses on time to one whose time ran out before."""
        stand_ins: dict[int, dict[str, Any]] = {}  # made once per call, whatever the retries
        for _ in range(len(self.load(game_id).table.clocks.running)):
            earlier, left = self._time_out_first(game_id, seat, started_version, stand_ins)
            if not earlier:
                return left
        return None

    @retried
    def _time_out_first(self, game_id: str, seat: int, started_version: int,
                        stand_ins: dict[int, dict[str, Any]]) -> tuple[bool, float | None]:
        """Act for the seat whose clock ran out first, if ``seat``'s did: whether that was an
        earlier seat (look again), and the seconds left if ``seat``'s is not due."""
        game = self.load(game_id)
        run = game.table.clocks.running.get(seat)
        if game.over or run is None or run.started_version != started_version:
            return False, None
        now = self.appender.clock.now()
        left = deadline_in(run.deadline, now)
        if left > 0:
            return False, left
        first = game.table.clocks.run_out(iso(now))[0]
        events = self._timed_out(game, first, game.table.clocks.running[first].started_version, stand_ins)
        self.appender.append(game, events)
        if any(new.event.type == SEAT_TAKEN_OVER for new in events):
            self.store.set_add(BOT_GAMES, game_id)  # its stand-in plays from now on (the bots' sweep too)
        return first != seat, None

    def _timed_out(self, game: Game, seat: int, started_version: int,
                   stand_ins: dict[int, dict[str, Any]]) -> list[NewEvent]:
        """What the server plays for a seat out of time: the game's default, else a stand-in
        takes the seat, else a forfeit."""
        command = timeout_command(game, seat)
        if command is not None:
            decided = game.rules.decide(game.state, seat, command, game.table.rng(game.version))
            return [NewEvent(clock_timed_out(seat, started_version, command.type)),
                    *(NewEvent(e, seat, GAME_SOURCE, upcasters=game.rules.upcasters) for e in decided)]
        if game.may_stand_in(seat):
            return [NewEvent(clock_timed_out(seat, started_version, "takeover")),
                    self.stand_in_for(game, seat, TIMED_OUT, stand_ins)]
        return [NewEvent(clock_timed_out(seat, started_version, "forfeit")), NewEvent(seat_forfeited(seat))]

    def stand_in_for(self, game: Game, seat: int, reason: str, made: dict[int, dict[str, Any]]) -> NewEvent:
        """The event by which the table's stand-in takes ``seat`` from its person (its bot is a
        player of its own, made once into ``made``: an attempt tried again uses the same one)."""
        bot = game.table.stand_in
        assert bot is not None, "only a table with a stand-in (Game.may_stand_in)"
        if seat not in made:
            made[seat] = self.players.create(f"{bot['kind']} bot ({bot['level']})")
        robot = made[seat]
        return NewEvent(seat_taken_over(seat, game.table.players[seat], reason, robot["id"], robot["name"], bot), seat)

    @retried
    def warn_clock(self, game_id: str, seat: int, started_version: int) -> float | None:
        """Remind ``seat`` that its clock run (started at ``started_version``) has used
        ``WARN_SHARE`` of its time: a ``ClockWarned`` event in the game's stream, from which the
        seat's player's feed (``clock_warning``) and webhooks tell it. Once per run: nothing if
        the run was reminded already, no longer goes on (the seat moved, the game ended, the
        clocks were paused), is a bot's, or is past its deadline (a lane that was down: the
        timeout acts instead); the seconds until it is due if it is not yet. The
        clocks' lane calls it (``Timeouts``)."""
        game = self.load(game_id)
        table = game.table
        run = table.clocks.running.get(seat)
        if game.over or run is None or run.started_version != started_version or run.warned \
                or table.players.get(seat) in table.bots:
            return None
        now = self.appender.clock.now()
        due = deadline_in(warn_at(run.since, run.deadline), now)
        if due > 0:
            return due
        left = round(deadline_in(run.deadline, now), 1)
        if left <= 0:  # too late to remind (a lane that was down): the timeout acts instead
            return None
        self.appender.append(game, [NewEvent(clock_warned(seat, started_version, run.deadline, left))])
        return None

    @retried
    def vote_pause(self, game_id: str, player: Mapping[str, Any]) -> dict[str, Any]:
        """The caller's seat votes to pause the clocks; they stop once every seat played by
        a person has voted (bot seats neither vote nor hold a pause up)."""
        game = self._clocked(game_id, player)
        seat = self._seat(game, player)
        clocks = game.table.clocks
        if not clocks.paused and seat not in clocks.pause_votes:
            events = [NewEvent(pause_voted(seat), seat)]
            people = set(range(game.table.seats)) - set(game.table.bot_seats())
            if clocks.pause_votes | {seat} >= people:
                events.append(NewEvent(clocks_paused(), seat))
            game, _ = self.appender.append(game, events)
        return {"version": game.version, **game.table.clocks.to_json(game.table.seats)}

    @retried
    def resume_clocks(self, game_id: str, player: Mapping[str, Any]) -> dict[str, Any]:
        """Any seat resumes paused clocks (and a seat's pause vote is withdrawn with it)."""
        game = self._clocked(game_id, player)
        seat = self._seat(game, player)
        if game.table.clocks.paused or game.table.clocks.pause_votes:
            game, _ = self.appender.append(game, [NewEvent(clocks_resumed(seat), seat)])
        return {"version": game.version, **game.table.clocks.to_json(game.table.seats)}

    def _clocked(self, game_id: str, player: Mapping[str, Any]) -> Game:
        game = self.load(game_id)
        if not game.table.has_clock:
            raise Conflict("this game has no turn clock (option clock_bank_seconds)", code="no_clock")
        if game.over:
            raise Conflict("the game is over; its clocks are stopped", code="game_over")
        return game

    def _idempotent(self, game_id: str, player: Mapping[str, Any], key: str | None, request: str,
                    run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """``run()`` once per Idempotency-Key: a retry gets the first answer."""
        replay = self.appender.replayed(game_id, player, key, request)
        if replay is not None:
            return replay
        try:
            return run()
        except DuplicateRequest as duplicate:  # a concurrent retry with this key was stored first
            return self.appender.answer_again(game_id, duplicate.record, request)
        except (DomainError, Conflict):
            # a concurrent retry with the same key may have been stored after our first look:
            # the rules now refuse the move it made ("you have already given your Tribute") or
            # the version moved on. The client asked for that first answer, not the refusal.
            replay = self.appender.replayed(game_id, player, key, request)
            if replay is not None:
                return replay
            raise

    def _seat(self, game: Game, player: Mapping[str, Any] | None) -> int:
        if player is None:
            raise Unauthorized("send your player token as 'Authorization: Bearer <token>'")
        seat = game.table.seat_of(player["id"])
        if seat is None:
            raise Forbidden("you do not have a seat at this game")
        if not game.table.started:
            raise Conflict("the game has not started: seats are still open", code="not_started")
        return seat

    # -- reading ---------------------------------------------------------------------
    def state(self, game_id: str, player: Mapping[str, Any] | None, at: int | None = None,
              known_version: int = 0) -> dict[str, Any]:
        current = self.load(game_id, known_version=known_version)
        game = current if at is None else self.load(game_id, at)
        viewer = audience(current, player, live=at is None)
        view = game.rules.view(game.state, viewer) if game.state is not None else None
        clocks = {"clocks": game.table.clocks.to_json(game.table.seats)} if game.table.has_clock else {}
        return {"version": game.version, "seat": current.seat_of(player), "status": game.public_facts()["status"],
                "view": view, **clocks}

    def legal_commands(self, game_id: str, player: Mapping[str, Any] | None, known_version: int = 0
                       ) -> dict[str, Any]:
        """``known_version``: the version just read for the answer's ETag (see ``load``)."""
        game = self.load(game_id, known_version=known_version)
        seat = self._seat(game, player)
        if game.over:
            return {"version": game.version, "seat": seat, "prompt": None, "commands": []}
        asked = game.prompt(seat)
        commands = game.legal_commands(seat)
        return {"version": game.version, "seat": seat,
                "prompt": {"text": asked.text, "choices": asked.to_json()["choices"]} if asked else None,
                "commands": [c.to_json() for c in commands]}

    def events(self, game_id: str, player: Mapping[str, Any] | None, after: int = 0,
               limit: int = 100) -> dict[str, Any]:
        game = self.load(game_id)
        viewer = audience(game, player)
        records = self.store.read(stream_of(game_id), after, after + limit)
        return {"version": game.version, "events": [public_event(r, viewer, game.rules.upcasters) for r in records],
                "next_after": records[-1].version if records and records[-1].version < game.version else None}

    def replay(self, game_id: str, player: Mapping[str, Any] | None, after: int = 0,
               limit: int = 50, as_seat: int | None = None, view_every: int = 1) -> dict[str, Any]:
        """The game step by step: each standing event with the view right after it. During
        play each step shows what the caller could see then; once it is over, everything,
        or with ``as_seat`` what that seat could see then (a finished game is public: anyone
        may look at it through any seat's eyes; during play only the caller's own seat).
        ``view_every``: which steps carry their view (see ``replay_steps``)."""
        game = self.load(game_id)
        viewer = audience(game, player)
        if as_seat is not None:
            if not 0 <= as_seat < game.table.seats:  # no such seat: nothing to look through
                raise NotFound(f"this game has no seat {as_seat}: its seats are 0 to {game.table.seats - 1}")
            if viewer != EVERYONE and viewer != as_seat:
                raise Forbidden("during play a replay shows your own seat's view only; any seat's once the game is over")
            viewer = as_seat
        records = self.store.read(stream_of(game_id), 0, game.version)
        return replay_steps(game, records, viewer, after, limit, view_every)

    # -- read models -----------------------------------------------------------------
    def list_games(self, kind: str | None = None, status: str | None = None) -> list[dict[str, Any]]:
        """Games from the lobby projection, latest activity first (tools and tests)."""
        return self.read_models.list_games(kind, status)

    def lobby(self, kind: str | None, status: str | None, offset: int, limit: int | None) -> dict[str, Any]:
        """A page of the lobby (``GET /games``) and the total."""
        return self.read_models.lobby(kind, status, offset, limit)

    def scoreboard(self, kind: str, offset: int = 0, limit: int | None = None) -> dict[str, Any]:
        if kind not in self.registry:
            raise NotFound(f"no game type {kind!r}; known types: {', '.join(sorted(self.registry))}")
        return self.read_models.scoreboard(kind, offset, limit)

    def games_of_player(self, player_id: str, offset: int = 0, limit: int | None = None) -> dict[str, Any]:
        self.players.get(player_id)  # NotFound for an unknown player
        return self.read_models.player_games(player_id, offset, limit)

    def projections_status(self) -> dict[str, Any]:
        return self.read_models.status()

    # -- portable logs ---------------------------------------------------------------
    def consent_to_export(self, game_id: str, player: Mapping[str, Any]) -> dict[str, Any]:
        """The caller's seat agrees to export the game before it is over (every seat must)."""
        return self._change_consent(game_id, player, give=True)

    def withdraw_export_consent(self, game_id: str, player: Mapping[str, Any]) -> dict[str, Any]:
        """The caller's seat takes its consent back: no copy of the unfinished game leaves after it."""
        return self._change_consent(game_id, player, give=False)

    @retried
    def _change_consent(self, game_id: str, player: Mapping[str, Any], give: bool) -> dict[str, Any]:
        game = self.load(game_id)
        seat = self._seat(game, player)
        if (seat in game.table.export_consent) != give and not game.over:
            event = export_consented(seat) if give else export_consent_withdrawn(seat)
            game, _ = self.appender.append(game, [NewEvent(event, seat)])
        return {"version": game.version, "consented": sorted(game.table.consenting()),
                "may_export": game.table.may_export()}

    def export(self, game_id: str, player: Mapping[str, Any] | None = None) -> str:
        """A game as JSON Lines: a signed header, then every stored event in order.

        A finished game is exported whole, secrets included, to anyone. Before the end
        only a seated player may export, once every seat consented, and that seat's copy
        hides what the seat may not see (other hands, face-down cards, the deck, the seed).
        """
        game = self.load(game_id)
        if game.state is None:  # aborted before it started: no game was played
            raise Conflict("this table was called off before its game started: there is nothing to export",
                           code="export_not_allowed")
        if game.over:
            return self.logs.export(game, EVERYONE)
        if player is None:
            raise Unauthorized("a game in play is exported only to its seated players: send your token")
        seat = game.seat_of(player)
        if seat is None:
            raise Forbidden("a game in play is exported only to its seated players")
        if not game.table.may_export():
            missing = sorted(set(range(game.table.seats)) - game.table.consenting())
            raise Conflict(f"a game is exported once it is over, or when every seat consents; "
                           f"seats {missing} have not consented", code="export_not_allowed")
        return self.logs.export(game, seat)

    def signing_keys(self) -> list[dict[str, Any]]:
        """The public keys that sign (first) and verify this server's exports."""
        return self.logs.signer.published()

    def import_game(self, text: str) -> Game:
        """A game from an exported log (``service.play.portable_logs``): a log this server
        signed, of a game not here yet, keeps its id and its ranking; any other becomes a
        new, unranked game."""
        game = self.logs.import_log(text)
        if game.table.bot_seats() and not game.over:  # its bot seats play on here, as they did there
            self.store.set_add(BOT_GAMES, game.id)
            self.appender.after_move(game)
        return game


def _nobody(stream: str) -> None:
    """An append's news where nobody here acts on it."""


def _waiting_set(player_id: str) -> str:
    return f"waiting-games:{player_id}"


def _bot_games_set(player_id: str) -> str:
    return f"bot-games:{player_id}"
