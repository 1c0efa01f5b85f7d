"""Bot seats: computer opponents that play as ordinary seats of the service.

A seat reserved for a bot at ``POST /games`` is taken by a player of its own (``SeatTaken``
says ``bot: {kind, level}``). Whenever an append leaves a bot seat prompted
(``BotSeats.__call__``, the appender's ``after_move``), a driver is asked to move for the
game: on the embedded store the threads of a ``BotLane`` (in the background process that
``serve`` supervises, its decisions in a pool of processes: ``service.running.background``), on
Redis an RQ job on the bots' lane (``service.background.rq_bots``). Either ``decide``s at once and ``play``s the
decision when the bot's think time is over: a thread or a worker never sleeps through a
think time (the lane keeps the decision and comes back, RQ schedules the play).

A bot is a client of the use cases like any other: it reads the bot seat's legal
commands, state and events through ``GameService`` as that seat's player, which passes
every read through ``service.streams.game.audience``; the bot (a pure function of ``domain.kernel.bots``)
is handed only that (``Seen``), never the store or the game's state. It posts its command
through ``submit_command`` with ``expected_version`` and an ``Idempotency-Key`` per decision
(``bot-<version>``): a job killed and retried, or two jobs for one decision, act once.
Decisions are deterministic in what the seat sees (the bot's generator is seeded with the
seat's own secret key, ``bot_key``, and the version: a retry decides the same, and no client,
who knows the game's id but not its seed, can foretell a bot's random choices), and its
events carry ``bot: "<kind>:<level>"``.

A lost request (a process that died between its append and its enqueue) is repaired by
``sweep``: the games with bot seats are kept in a store set, and every worker start (and
every lag sweep of an RQ worker) asks for a move in each one whose bot is prompted.
"""

from __future__ import annotations

import hashlib
import logging
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from domain.kernel import Command
from domain.kernel.bots import Seen, bot_kinds, seen_from
from domain.kernel.prompt import short
from domain.kernel.table import undone_versions
from service.adapters.store import VersionConflict
from service.background.timers import TimerThread
from service.base.errors import Conflict, Forbidden, Unprocessable
from service.streams.appending import retry_on_conflict
from service.streams.envelopes import GAME_SOURCE, stream_of
from service.streams.game import Game

log = logging.getLogger(__name__)

#: the store set of games that have bot seats and are not over
BOT_GAMES = "bot-games"
#: decisions a ``play_one`` call makes again when the game moved on under it
RETRIES = 5
#: events read per page when a bot reads its seat's record
PAGE = 1000
#: threads of a process that play bot seats on the embedded store (each holds a search while it runs)
THREADS = 2


class BotTables(Protocol):
    """What a bot lane needs of the game service: the games, as any client reads them, and
    the command its bot posts (``seen_by``, ``decide``, ``play``). The service is given its
    lane as it is built (it builds it with ``service=self``: ``service.wiring.bootstrap``)."""

    def load(self, game_id: str, at: int | None = None, *, trust_cache: bool = False, known_version: int = 0
             ) -> Game: ...

    def submit_command(self, game_id: str, player: Mapping[str, Any], command: Command,
                       expected_version: int | None = None, idempotency_key: str | None = None, *,
                       token_generation: int | None = None) -> dict[str, Any]: ...


class Driver(Protocol):
    def request(self, game_id: str, version: int, prompted_at: float | None = None) -> None:
        """Have the prompted bot of ``game_id`` decide soon and play when its think time is
        over (``version``: the game's, for de-duplication; ``prompted_at``: when it was asked)."""


def check_bot_seats(rules: Any, seats: int, bots: Sequence[Mapping[str, Any]]) -> dict[int, dict[str, str]]:
    """The seats ``POST /games`` reserves for bots, checked: seat -> ``{kind, level}``. A bot
    without a seat takes the last seat still open, so people joining take the first ones;
    one seat at least is left for a person."""
    if not bots:
        return {}
    kinds = bot_kinds(rules)
    if len(bots) >= seats:
        raise Unprocessable(f"{len(bots)} bots for {seats} seats: leave at least one seat for a person",
                            code="invalid_bots", option="bots")
    reserved: dict[int, dict[str, str]] = {}
    for index, bot in enumerate(bots):
        checked = _kind_and_level(rules, kinds, bot, f"bots[{index}]", "bots")
        seat = bot.get("seat")
        if seat is not None:
            if not 0 <= seat < seats:
                raise Unprocessable(f"bots[{index}]: seat must be between 0 and {seats - 1}",
                                    code="invalid_bots", option="bots")
            if seat in reserved:
                raise Unprocessable(f"bots[{index}]: seat {seat} is already reserved for a bot",
                                    code="invalid_bots", option="bots")
        reserved[seat if seat is not None else -1 - index] = checked
    free = [seat for seat in reversed(range(seats)) if seat not in reserved]
    return dict(sorted((seat if seat >= 0 else free.pop(0), bot) for seat, bot in reserved.items()))


def check_stand_in(rules: Any, wanted: Mapping[str, Any] | None, chosen: bool = True) -> dict[str, str] | None:
    """The stand-in ``POST /games`` asks for (``domain.kernel.stand_ins``), checked: ``{kind, level}``,
    or None for none. ``chosen``: the creator named it (an unknown kind is refused); else it is the
    default, and a game without that kind has no stand-in."""
    kinds = bot_kinds(rules)
    if wanted is None or (not chosen and wanted["kind"] not in kinds):
        return None
    return _kind_and_level(rules, kinds, wanted, "stand_in", "stand_in")


def _kind_and_level(rules: Any, kinds: Mapping[str, Any], wanted: Mapping[str, Any], where: str,
                    option: str) -> dict[str, str]:
    """``{kind, level}`` of a bot the request names at ``where`` (its level: the kind's default
    when it names none), or ``Unprocessable`` saying which kind or level the game lacks."""
    kind = kinds.get(wanted["kind"])
    if kind is None:
        raise Unprocessable(f"{where}: {rules.title} has no bot kind {short(wanted['kind'])}; "
                            f"it offers {', '.join(kinds)}", code="invalid_bots", option=option)
    level = wanted.get("level") or kind.default_level
    if level not in kind.levels:
        raise Unprocessable(f"{where}: {kind.name} has no level {short(level)}; "
                            f"its levels are {', '.join(kind.levels)}", code="invalid_bots", option=option)
    return {"kind": kind.name, "level": level}


def bot_problem(rules: Any, info: Any) -> str | None:
    """Why ``info`` (the ``bot`` of a seat in an imported log) is not one of ``rules``' bot
    kinds at one of its levels; None when it is."""
    if not isinstance(info, dict) or set(info) != {"kind", "level"}:
        return "a bot seat is an object of two fields, kind and level"
    kind = bot_kinds(rules).get(info["kind"]) if isinstance(info["kind"], str) else None
    if kind is None:
        return f"{rules.title} has no bot kind {short(info['kind'])}; it offers {', '.join(bot_kinds(rules))}"
    if not isinstance(info["level"], str) or info["level"] not in kind.levels:
        return f"{kind.name} has no level {short(info['level'])}; its levels are {', '.join(kind.levels)}"
    return None


def bot_label(info: dict[str, str]) -> str:
    return f"{info['kind']}:{info['level']}"


def prompted_bots(game: Game) -> list[int]:
    """Bot seats the game waits for now."""
    if not game.table.bots or game.state is None or game.over or not game.table.started:
        return []  # no bot at the table (the common case): nothing to ask the rules
    bots = game.table.bot_seats()
    return [seat for seat in game.rules.to_move(game.state) if seat in bots]


class BotSeats:
    """The appender's ``after_move``: a prompted bot seat asks its driver for a move."""

    def __init__(self, driver: Driver | None = None):
        self.driver = driver

    def __call__(self, game: Game) -> None:
        if self.driver is not None and prompted_bots(game):
            self.driver.request(game.id, game.version, time.time())


def bot_key(game: Game, seat: int) -> str:
    """The bot seat's own secret (the salts of its sealed Tributes, R17a): derived from the
    game's seed, which no client knows before the game ends, and the seat."""
    return hashlib.sha256(f"{game.table.seed}:bot-key:{seat}".encode()).hexdigest()


def seen_by(service: Any, game_id: str, player: dict[str, Any], seat: int, key: str = "") -> tuple[int, Seen] | None:
    """What ``player``'s seat is shown now, read as any client reads it (``None``: nothing is
    asked of it). The version it was read at, and the bot's input (``key``: the seat's own
    secret, for a choice it must compute, ``offered``)."""
    legal = service.legal_commands(game_id, player)
    if legal["prompt"] is None:
        return None
    version = legal["version"]
    state = service.state(game_id, player)
    events: list[dict[str, Any]] = []
    after = 0
    while True:
        page = service.events(game_id, player, after, PAGE)
        events.extend(page["events"])
        if page["next_after"] is None:
            break
        after = page["next_after"]
    if state["version"] != version or (events and events[-1]["version"] != version):
        raise VersionConflict(stream_of(game_id), version, state["version"])  # moved on while the bot read it
    undone = undone_versions((e["version"], e) for e in events)
    standing = [e for e in events if e["source"] == GAME_SOURCE and e["version"] not in undone]
    listed = [Command(c["type"], c["args"]) for c in legal["commands"]]
    seen = seen_from(service.load(game_id, trust_cache=True).rules, seat, state["view"], standing, listed, key)
    return (version, seen) if seen.commands else None


@dataclass(frozen=True)
class Decision:
    """A bot seat's answer to the prompt it was shown at ``version``, to be played once its
    think time is over (``due``: seconds since the epoch)."""

    game_id: str
    seat: int
    player: dict[str, str]
    version: int
    command: Command
    due: float

    def to_job(self) -> dict[str, Any]:
        return {"game_id": self.game_id, "seat": self.seat, "player": self.player, "version": self.version,
                "command": self.command.to_json(), "due": self.due}

    @classmethod
    def from_job(cls, job: Mapping[str, Any]) -> Decision:
        command = Command(job["command"]["type"], job["command"].get("args", {}))
        return cls(job["game_id"], int(job["seat"]), dict(job["player"]), int(job["version"]), command,
                   float(job["due"]))


class Search(Protocol):
    def __call__(self, game_type: str, rules: Any, kind: str, level: str, shown: Seen, seed: str) -> Command:
        """The bot's choice among ``shown.commands`` (a pure function of what the seat sees)."""


def search_here(game_type: str, rules: Any, kind: str, level: str, shown: Seen, seed: str) -> Command:
    """Run the bot in this thread (budgets read the monotonic clock)."""
    return bot_kinds(rules)[kind].bot(level)(rules, shown, random.Random(seed), time.monotonic)


def decide(service: Any, game_id: str, think: float = 0.0, search: Search = search_here,
           prompted_at: float | None = None) -> Decision | None:
    """The move of the first prompted bot seat of ``game_id``, decided now and due ``think``
    seconds after the bot was prompted (``prompted_at``, else now); None when no bot is asked
    anything. ``VersionConflict`` when the game moved on while the bot read it."""
    game = service.load(game_id)
    seats = prompted_bots(game)
    if not seats:
        if game.over:
            service.store.set_remove(BOT_GAMES, game_id)
        return None
    seat = seats[0]
    info = game.table.bot_seats()[seat]
    player = {"id": game.table.players[seat], "name": game.table.names.get(game.table.players[seat], "")}
    prompted = time.time() if prompted_at is None else prompted_at
    started = time.monotonic()
    key = bot_key(game, seat)
    read = seen_by(service, game_id, player, seat, key)
    if read is None:
        return None
    version, shown = read
    command = search(game.table.game_type, game.rules, info["kind"], info["level"], shown, f"{key}:{version}")
    log.info("bot-decision game=%s version=%d seat=%d decide_ms=%.1f", game_id, version, seat,
             (time.monotonic() - started) * 1000)
    return Decision(game_id, seat, player, version, command, prompted + think)


def play(service: Any, decision: Decision) -> bool:
    """Post the decision as its seat's command, once (its idempotency key is the decision's
    version: a retry, or a second job for the same decision, answers with the first); False
    when the game moved on since it was decided (decide again), or the seat is no longer the
    bot's (its person reclaimed it from a stand-in: ``domain.kernel.stand_ins``)."""
    try:
        service.submit_command(decision.game_id, decision.player, decision.command,
                               expected_version=decision.version, idempotency_key=f"bot-{decision.version}")
    except Conflict as conflict:
        if conflict.extra.get("code") != "version_conflict":
            raise
        return False
    except Forbidden:  # the bot has no seat here any more
        return False
    return True


class Decider(Protocol):
    def __call__(self, service: Any, game_id: str, think: float, prompted_at: float | None) -> Decision | None:
        """``decide``, here or elsewhere (``DecisionPool``)."""


def decide_here(service: Any, game_id: str, think: float, prompted_at: float | None) -> Decision | None:
    """``decide`` in this thread, the search included."""
    return decide(service, game_id, think, search_here, prompted_at)


def move(service: Any, game_id: str, think: float = 0.0, prompted_at: float | None = None,
         keep: Callable[[Decision], None] | None = None, decider: Decider = decide_here) -> str:
    """Decide the move of a prompted bot seat of ``game_id`` and play it, or hand it to
    ``keep`` when its think time is not over yet (a lane keeps it and plays it then). A game
    that moves on under the bot (another seat's simultaneous answer) is read and decided
    again, its think time from then, by the service's one loop of retries
    (``retry_on_conflict``), ``RETRIES`` times at most. Says what became of it: "played",
    "kept", "nothing asked" or "gave up"."""
    try:
        return retry_on_conflict(lambda: _move_once(service, game_id, think, None, keep, decider), RETRIES,
                                 first=lambda: _move_once(service, game_id, think, prompted_at, keep, decider))
    except Conflict as busy:
        if busy.extra.get("code") != "busy":
            raise
        return "gave up"


def _move_once(service: Any, game_id: str, think: float, prompted_at: float | None,
               keep: Callable[[Decision], None] | None, decider: Decider) -> str:
    """Read, decide, play: ``VersionConflict`` when the game moved on under the bot."""
    decision = decider(service, game_id, think, prompted_at)
    if decision is None:
        return "nothing asked"
    if keep is not None and decision.due > time.time():
        keep(decision)
        return "kept"
    if not play(service, decision):
        raise VersionConflict(stream_of(game_id), decision.version, -1)
    return "played"


def play_one(service: Any, game_id: str, search: Search = search_here) -> bool:
    """Decide and play one move of a prompted bot seat of ``game_id`` now (no think time);
    False when no bot is asked anything."""
    def deciding(service: Any, game_id: str, think: float, prompted_at: float | None) -> Decision | None:
        return decide(service, game_id, think, search, prompted_at)

    return move(service, game_id, decider=deciding) == "played"


def sweep(service: Any, driver: Driver, quiet: dict[str, int] | None = None) -> int:
    """Ask for a move in every game whose bot is prompted (repairs a lost request, or a play
    waiting for a scheduler that died). The bot was prompted when the game's last event was
    stored, so its think time counts from then: a repaired move is due at once.

    ``quiet``, kept by the caller from one sweep to the next: the games this sweep found
    waiting for a person, with their versions. Whether a bot is asked follows from the game's
    events alone (a stand-in taking a seat is one), so such a game is not loaded again until
    its version moves: a sweep over thousands of games waiting for their people reads their
    versions (in one round trip where the store can) and loads only the games that moved."""
    games = list(service.store.set_members(BOT_GAMES))
    known = quiet or {}  # none yet (the worker's first sweep): every game is loaded, no version read
    versions = service.store.versions([stream_of(game_id) for game_id in games]) if known else [0] * len(games)
    still: dict[str, int] = {}
    asked = 0
    for game_id, version in zip(games, versions, strict=True):
        if version and known.get(game_id) == version:
            still[game_id] = version
            continue
        try:
            game = service.load(game_id)
        except Exception:  # noqa: BLE001 - a game gone from the store: forget it
            service.store.set_remove(BOT_GAMES, game_id)
            continue
        if game.over:
            service.store.set_remove(BOT_GAMES, game_id)
        elif prompted_bots(game):
            driver.request(game_id, game.version, _stored_at(service, game))
            asked += 1
        else:
            still[game_id] = game.version
    if quiet is not None:
        quiet.clear()
        quiet.update(still)
    return asked


def _stored_at(service: Any, game: Game) -> float | None:
    """When the game's last event was stored (seconds since the epoch; None: unknown)."""
    last = service.store.read(stream_of(game.id), game.version - 1)
    at = last[-1].event.get("at") if last else None
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() if isinstance(at, str) else None


class BotLane:
    """The embedded store's driver: ``threads`` threads take the games whose bot is asked,
    one request per game at a time; each has the bot decide (``decider``: in the background
    process a pool of processes that read and search, ``service.running.background.DecisionPool``),
    and plays the answer when its think time is over. A thread waits for nobody's think time: a decision
    that is not due yet is kept and its game comes back when it is."""

    def __init__(self, service: BotTables, think: float = 0.0, decider: Decider = decide_here,
                 threads: int = THREADS):
        self.service = service
        self.think = think
        self.decider = decider
        self.timer = TimerThread("bots", self._work, retry_on_error=2.0, threads=threads)
        self._decided: dict[str, Decision] = {}
        self._prompted: dict[str, float] = {}
        self._lock = threading.Lock()

    def request(self, game_id: str, version: int, prompted_at: float | None = None) -> None:
        with self._lock:
            self._prompted.setdefault(game_id, time.time() if prompted_at is None else prompted_at)
        self.timer.schedule(0.0, game_id)

    def idle(self) -> bool:
        return self.timer.idle()

    def _work(self, key: Any) -> float | None:
        game_id = str(key)
        with self._lock:
            decision = self._decided.pop(game_id, None)
            prompted = self._prompted.pop(game_id, None)
        if decision is not None:
            if decision.due > time.time():  # asked again before it was due: keep it
                return self._keep(decision)
            if play(self.service, decision):
                return None
        kept: list[float] = []
        move(self.service, game_id, self.think, prompted, keep=lambda d: kept.append(self._keep(d)),
             decider=self.decider)
        return kept[0] if kept else None

    def _keep(self, decision: Decision) -> float:
        """Keep a decision until it is due; the seconds until then."""
        with self._lock:
            self._decided[decision.game_id] = decision
        return max(0.0, decision.due - time.time())
