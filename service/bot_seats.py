"""Bot seats: computer opponents that play as ordinary seats of the service.

A seat reserved for a bot at ``POST /games`` is taken by a player of its own (``SeatTaken``
says ``bot: {kind, level}``). Whenever an append leaves a bot seat prompted
(``BotSeats.__call__``, the appender's ``after_move``), a driver is asked to move for the
game: on the embedded store a worker thread of the server process (``ThreadDriver``), on
Redis an RQ job run by the workers (``RqDriver``, ``bot_move_job``); either runs
``play_one``.

``play_one`` is a client of the use cases like any other: it reads the bot seat's legal
commands, state and events through ``GameService`` as that seat's player, which passes
every read through ``service.game.audience``; the bot (a pure function of ``domain.kernel.bots``)
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
import queue
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from domain.kernel import Command
from domain.kernel.bots import Seen, bot_kinds, offered
from domain.kernel.prompt import short
from domain.kernel.table import undone_versions
from service.envelopes import GAME_SOURCE
from service.errors import Conflict, Unprocessable
from service.game import Game

log = logging.getLogger(__name__)

#: the store set of games that have bot seats and are not over
BOT_GAMES = "bot-games"
#: decisions a ``play_one`` call makes again when the game moved on under it
RETRIES = 5
#: events read per page when a bot reads its seat's record
PAGE = 1000
#: threads of a server process that play bot seats on the embedded store
THREADS = 2


class Driver(Protocol):
    def request(self, game_id: str, version: int) -> None:
        """Have ``play_one`` run for ``game_id`` soon (``version``: the game's, for de-duplication)."""


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
        kind = kinds.get(bot["kind"])
        if kind is None:
            raise Unprocessable(f"bots[{index}]: {rules.title} has no bot kind {short(bot['kind'])}; "
                                f"it offers {', '.join(kinds)}", code="invalid_bots", option="bots")
        level = bot.get("level") or kind.default_level
        if level not in kind.levels:
            raise Unprocessable(f"bots[{index}]: {kind.name} has no level {short(level)}; "
                                f"its levels are {', '.join(kind.levels)}", code="invalid_bots", option="bots")
        seat = bot.get("seat")
        if seat is not None:
            if not 0 <= seat < seats:
                raise Unprocessable(f"bots[{index}]: seat must be between 0 and {seats - 1}",
                                    code="invalid_bots", option="bots")
            if seat in reserved:
                raise Unprocessable(f"bots[{index}]: seat {seat} is already reserved for a bot",
                                    code="invalid_bots", option="bots")
        reserved[seat if seat is not None else -1 - index] = {"kind": kind.name, "level": level}
    free = [seat for seat in reversed(range(seats)) if seat not in reserved]
    return dict(sorted((seat if seat >= 0 else free.pop(0), bot) for seat, bot in reserved.items()))


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
            self.driver.request(game.id, game.version)


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
        raise Conflict("the game moved on while the bot read it", code="version_conflict")
    undone = undone_versions((e["version"], e) for e in events)
    standing = [e for e in events if e["source"] == GAME_SOURCE and e["version"] not in undone]
    listed = [Command(c["type"], c["args"]) for c in legal["commands"]]
    commands = offered(service.load(game_id, trust_cache=True).rules, state["view"], standing, seat, listed, key)
    return (version, Seen(seat, state["view"], standing, commands)) if commands else None


def play_one(service: Any, game_id: str, think: float = 0.0, clock: Callable[[], float] = time.monotonic,
             sleep: Callable[[float], None] = time.sleep) -> bool:
    """One move of a prompted bot seat of ``game_id``; False when no bot is asked anything."""
    for _ in range(RETRIES):
        game = service.load(game_id)
        seats = prompted_bots(game)
        if not seats:
            if game.over:
                service.store.set_remove(BOT_GAMES, game_id)
            return False
        seat = seats[0]
        info = game.table.bot_seats()[seat]
        player = {"id": game.table.players[seat], "name": game.table.names.get(game.table.players[seat], "")}
        started = clock()
        try:
            key = bot_key(game, seat)
            read = seen_by(service, game_id, player, seat, key)
            if read is None:
                continue
            version, shown = read
            kind = bot_kinds(game.rules)[info["kind"]]
            bot = kind.bot(info["level"])
            command = bot(game.rules, shown, random.Random(f"{key}:{version}"), clock)
            wait = think - (clock() - started)
            if wait > 0:
                sleep(wait)
            service.submit_command(game_id, player, command, expected_version=version,
                                   idempotency_key=f"bot-{version}")
            return True
        except Conflict as conflict:
            if conflict.code != "version_conflict":
                raise
            continue  # another seat moved meanwhile (simultaneous Tributes): decide again
    return False


def sweep(service: Any, driver: Driver) -> int:
    """Ask for a move in every game whose bot is prompted (repairs a lost request)."""
    asked = 0
    for game_id in list(service.store.set_members(BOT_GAMES)):
        try:
            game = service.load(game_id)
        except Exception:  # noqa: BLE001 - a game gone from the store: forget it
            service.store.set_remove(BOT_GAMES, game_id)
            continue
        if game.over:
            service.store.set_remove(BOT_GAMES, game_id)
        elif prompted_bots(game):
            driver.request(game_id, game.version)
            asked += 1
    return asked


class ThreadDriver:
    """The embedded store's driver: ``threads`` daemon threads of this process play bot moves
    (a bot's think time holds one of them), one request per game waiting at a time."""

    def __init__(self, think: float = 0.0, threads: int = THREADS):
        self.think = think
        self.threads = threads
        self.service: Any = None
        self._queue: queue.Queue[str] = queue.Queue()
        self._waiting: set[str] = set()
        self._lock = threading.Lock()
        self._started = False

    def attach(self, service: Any) -> None:
        self.service = service

    def request(self, game_id: str, version: int) -> None:
        with self._lock:
            if game_id in self._waiting:
                return
            self._waiting.add(game_id)
            if not self._started:
                self._started = True
                for number in range(self.threads):
                    threading.Thread(target=self._run, name=f"bot-seats-{number}", daemon=True).start()
        self._queue.put(game_id)

    def _run(self) -> None:
        while True:
            game_id = self._queue.get()
            with self._lock:
                self._waiting.discard(game_id)
            try:
                play_one(self.service, game_id, self.think)
            except Exception:  # never let the thread die; the next request or sweep tries again
                log.exception("a bot move in game %s failed", game_id)
