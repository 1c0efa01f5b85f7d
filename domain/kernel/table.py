"""The platform's own events around every game: creation, seats, start, undo.

A game stream starts with platform events (``source: "platform"``) that say which game
is played with which options by whom, then the game's own events. ``Table`` is their
fold; it knows nothing of any game's rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from mypy_extensions import mypyc_attr

from domain.kernel.clocks import CLOCK_EVENTS, CLOCK_OPTIONS, Clocks
from domain.kernel.endings import ENDING_EVENTS, Endings
from domain.kernel.errors import InvalidOptions
from domain.kernel.events import Event
from domain.kernel.fairness import SEED_REVEALED, seed_commitment
from domain.kernel.invitations import INVITATION_EVENTS, Invitations
from domain.kernel.rng import Rng
from domain.kernel.rules import OptionSpec, check_options
from domain.kernel.stand_ins import MIN_SEATS, SEAT_RECLAIMED, SEAT_TAKEN_OVER
from domain.kernel.upcasting import GAME, Upcasters

PLATFORM = "platform"

GAME_CREATED = "GameCreated"
SEAT_TAKEN = "SeatTaken"
GAME_STARTED = "GameStarted"
UNDONE = "MovesUndone"
EXPORT_CONSENTED = "ExportConsented"
EXPORT_CONSENT_WITHDRAWN = "ExportConsentWithdrawn"

#: Options every game has; the platform applies them, the game's rules never see them.
PLATFORM_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("seating", "choice", "as_joined",
               "Seat order: as the players joined, or shuffled by the platform when the game starts.",
               choices=("as_joined", "random")),
    OptionSpec("open_information", "bool", False,
               "A teaching game: every seat and every spectator sees everything, hidden cards included."),
    *CLOCK_OPTIONS,
)


def split_options(given: object) -> tuple[dict[str, Any], dict[str, Any]]:
    """``given`` as (the platform's options checked with defaults, the game's options unchecked).
    It may be anything a client sent (typed ``object``, so the compiled engine checks it here)."""
    if not isinstance(given, dict):
        raise InvalidOptions("options", "must be an object")
    names = {spec.name for spec in PLATFORM_OPTIONS}
    platform = check_options(PLATFORM_OPTIONS, {k: v for k, v in given.items() if k in names})
    return platform, {k: v for k, v in given.items() if k not in names}


WAITING = "waiting"  # seats still open
ACTIVE = "active"
FINISHED = "finished"


def game_created(kind: str, options: dict[str, Any], seats: int, created_by: str, seed: str,
                 secret_options: tuple[str, ...] = (), salt: str = "") -> Event:
    """A new game. Options named in ``secret_options`` (a given deal) go with the seed into
    the part nobody sees; the public record says only that they were set. With a ``salt``
    the public record carries the seed's commitment (``domain.kernel.fairness``)."""
    public = {name: value for name, value in options.items() if name not in secret_options}
    hidden = {name: options[name] for name in secret_options if options.get(name) is not None}
    data: dict[str, Any] = {"game_type": kind, "options": public, "seats": seats, "created_by": created_by}
    if hidden:
        data["secret_options"] = sorted(hidden)
    if salt:
        data["seed_commitment"] = seed_commitment(salt, seed)
    secret = {"seed": seed, **({"salt": salt} if salt else {}), **({"options": hidden} if hidden else {})}
    return Event(GAME_CREATED, data, secret=secret, secret_to=frozenset())


def seat_taken(seat: int, player_id: str, name: str, bot: dict[str, str] | None = None) -> Event:
    """``bot``: the seat is reserved for a computer opponent, ``{kind, level}``."""
    data: dict[str, Any] = {"seat": seat, "player_id": player_id, "name": name}
    if bot is not None:
        data["bot"] = dict(bot)
    return Event(SEAT_TAKEN, data)


def _seat_taken_v1_to_v2(body: dict[str, Any]) -> dict[str, Any]:
    """Version 1 (before names were shown) stored ``{seat, player}``; version 2 stores
    ``{seat, player_id, name}``. A v1 seat had no name on record, so it shows the id."""
    data = dict(body["data"])
    player_id = data.pop("player")
    body["data"] = {**data, "player_id": player_id, "name": player_id}
    return body


#: The schema history of the platform's own events.
PLATFORM_UPCASTERS = Upcasters(PLATFORM, steps={(SEAT_TAKEN, 1): _seat_taken_v1_to_v2})


def is_platform_body(body: Mapping[str, Any]) -> bool:
    return bool(body.get("source", GAME) == PLATFORM)


def read_event(body: dict[str, Any], game: Upcasters | None = None) -> Event:
    """A stored body as an event of today's shape: a platform event through the platform's
    schema history, a game's own event through ``game`` (its game's ``upcasters``; a reader
    that does not know the game, and reads only the platform's events, may leave it out)."""
    return Event.from_json(body, PLATFORM_UPCASTERS if is_platform_body(body) else game)


def game_started(players: list[str]) -> Event:
    """``players[s]`` sits at seat ``s`` for the rest of the game (after any random seating)."""
    return Event(GAME_STARTED, {"players": players}, barrier=True)


def export_consented(seat: int) -> Event:
    """``seat`` agrees that the whole game, hidden cards included, may be exported now."""
    return Event(EXPORT_CONSENTED, {"seat": seat})


def export_consent_withdrawn(seat: int) -> Event:
    """``seat`` takes its consent back: no copy of the unfinished game leaves after this."""
    return Event(EXPORT_CONSENT_WITHDRAWN, {"seat": seat})


def moves_undone(seat: int, first: int, last: int) -> Event:
    return Event(UNDONE, {"seat": seat, "first_version": first, "last_version": last})


@mypyc_attr(native_class=False)
@dataclass
class Table:
    game_type: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    seats: int = 0
    created_by: str = ""
    seed: str = ""
    #: the salt of the seed's commitment, and the commitment published at creation
    salt: str = ""
    seed_commitment: str | None = None
    #: the seed and salt as ``SeedRevealed`` told them at the game's end (None before)
    revealed: dict[str, str] | None = None
    #: who sits where: seat -> player id (before the start: in the order they joined)
    players: dict[int, str] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    started: bool = False
    finished: bool = False
    export_consent: set[int] = field(default_factory=set)
    #: options kept secret (their values are in ``options``, from the event's secret part)
    secret_options: tuple[str, ...] = ()
    #: the turn clocks (``domain.kernel.clocks``), when the game has them
    clocks: Clocks = field(default_factory=Clocks)
    #: players that are computer opponents: player id -> ``{kind, level}``
    bots: dict[str, dict[str, str]] = field(default_factory=dict)
    #: resignation, abort, agreement and rematch (``domain.kernel.endings``)
    endings: Endings = field(default_factory=Endings)
    #: invitations to the table's seats (``domain.kernel.invitations``)
    invitations: Invitations = field(default_factory=Invitations)
    #: a private table: not in the lobby, seats taken by invitation only
    private: bool = False
    #: the game this one is a rematch of (None: none)
    rematch_of: str | None = None
    #: the computer opponent that takes a seat its person left, ``{kind, level}`` (None: no
    #: stand-in, the game ends as a game of two does: ``domain.kernel.stand_ins``)
    stand_in: dict[str, str] | None = None
    #: seats a stand-in plays now: seat -> the player who left it (and may reclaim it)
    left: dict[int, str] = field(default_factory=dict)

    @property
    def status(self) -> str:
        if self.finished:
            return FINISHED
        return ACTIVE if self.started else WAITING

    def rng(self, version: int) -> Rng:
        """The randomness of whatever is decided on the game at ``version``: the seed's, only."""
        return Rng(self.seed, version)

    def seat_of(self, player_id: str | None) -> int | None:
        for seat, pid in self.players.items():
            if pid == player_id:
                return seat
        return None

    @property
    def has_clock(self) -> bool:
        return self.options.get("clock_bank_seconds") is not None

    @property
    def open_information(self) -> bool:
        return bool(self.options.get("open_information"))

    def public_options(self) -> dict[str, Any]:
        """The options anyone may read (secret ones are only said to be set)."""
        return {k: ("(secret)" if k in self.secret_options else v) for k, v in self.options.items()}

    def game_options(self) -> dict[str, Any]:
        """The options the game's rules read (the platform's own taken out)."""
        names = {spec.name for spec in PLATFORM_OPTIONS}
        return {k: v for k, v in self.options.items() if k not in names}

    def consenting(self) -> set[int]:
        """The seats that agree to the game leaving the server during play: those that
        consented, and the bot seats (the server's own players, with nothing of their own to
        keep: a seat's copy still leaves a bot's hidden cards out)."""
        return self.export_consent | set(self.bot_seats())

    def may_export(self) -> bool:
        """A finished game, or one whose every seat consented, may leave the server whole."""
        return self.finished or (self.started and len(self.consenting()) == self.seats)

    def bot_seats(self) -> dict[int, dict[str, str]]:
        """Seats played by a bot: seat -> ``{kind, level}`` (after any random seating)."""
        return {seat: self.bots[player] for seat, player in self.players.items() if player in self.bots}

    def people(self) -> set[int]:
        """The seats played by persons now (neither a bot nor a stand-in)."""
        return set(range(self.seats)) - set(self.bot_seats())

    def may_stand_in(self, seat: int) -> bool:
        """Does the game go on with a stand-in in ``seat`` if its person leaves it now? At a table
        of three seats or more that has a stand-in, while another seat is a person's."""
        return (self.stand_in is not None and self.seats >= MIN_SEATS and seat in self.people()
                and bool(self.people() - {seat}))

    def seat_left_by(self, player_id: str | None) -> int | None:
        """The seat a stand-in plays for ``player_id``, who may reclaim it (None: none)."""
        for seat, pid in self.left.items():
            if pid == player_id:
                return seat
        return None

    def open_seats(self) -> list[int]:
        return [s for s in range(self.seats) if s not in self.players]

    def apply(self, event: Event) -> None:
        if event.type == GAME_CREATED:
            self.game_type = event.data["game_type"]
            self.options = dict(event.data["options"])
            self.seats = event.data["seats"]
            self.created_by = event.data["created_by"]
            self.seed = (event.secret or {}).get("seed", "")
            self.salt = (event.secret or {}).get("salt", "")
            self.seed_commitment = event.data.get("seed_commitment")
            self.options.update((event.secret or {}).get("options", {}))
            self.secret_options = tuple(event.data.get("secret_options", ()))
            self.private = bool(event.data.get("private", False))
            self.rematch_of = event.data.get("rematch_of")
            stand_in = event.data.get("stand_in")
            self.stand_in = dict(stand_in) if stand_in else None
        elif event.type == SEAT_TAKEN:
            self.players[event.data["seat"]] = event.data["player_id"]
            self.names[event.data["player_id"]] = event.data["name"]
            if "bot" in event.data:
                self.bots[event.data["player_id"]] = dict(event.data["bot"])
        elif event.type == GAME_STARTED:
            self.players = dict(enumerate(event.data["players"]))
            self.started = True
        elif event.type == SEAT_TAKEN_OVER:
            seat, stand_in = event.data["seat"], event.data["stand_in"]
            self.left[seat] = event.data["player_id"]
            self.players[seat] = stand_in["player_id"]
            self.names[stand_in["player_id"]] = stand_in["name"]
            self.bots[stand_in["player_id"]] = dict(stand_in["bot"])
        elif event.type == SEAT_RECLAIMED:
            seat = event.data["seat"]
            self.left.pop(seat, None)
            self.players[seat] = event.data["player_id"]
            self.names[event.data["player_id"]] = event.data["name"]
            self.clocks.banks.pop(seat, None)  # a reclaimed seat's clock starts a fresh bank
        elif event.type in CLOCK_EVENTS:
            self.clocks.apply(event)
        elif event.type in ENDING_EVENTS:
            self.endings.apply(event)
        elif event.type in INVITATION_EVENTS:
            self.invitations.apply(event)
        elif event.type == SEED_REVEALED:
            self.revealed = {"seed": event.data["seed"], "salt": event.data["salt"]}
        elif event.type == EXPORT_CONSENTED:
            self.export_consent.add(event.data["seat"])
        elif event.type == EXPORT_CONSENT_WITHDRAWN:
            self.export_consent.discard(event.data["seat"])

    def copy(self) -> Table:
        """A copy that later events may change without touching this one (the options are
        shared: only ``GameCreated`` sets them)."""
        return replace(self, players=dict(self.players), names=dict(self.names), bots=dict(self.bots),
                       left=dict(self.left), export_consent=set(self.export_consent), clocks=self.clocks.copy(),
                       endings=self.endings.copy(), invitations=self.invitations.copy())


def undone_versions(events: Iterable[tuple[int, dict[str, Any]]]) -> set[int]:
    """Versions that a ``MovesUndone`` event (itself standing) has taken back."""
    undone: set[int] = set()
    for version, event in events:
        if event.get("source") == PLATFORM and event["type"] == UNDONE and version not in undone:
            undone.update(range(event["data"]["first_version"], event["data"]["last_version"] + 1))
    return undone
