"""What ``evolve`` keeps (rulings §1.1). Plain lists and dicts; ``copy_state`` is hand-rolled."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from domain.games.dynasties.options import DynastiesOptions

# Phases of a round (§1.3); "over" once the game has ended.
SETUP: Final = "setup"
ENQUIRE: Final = "enquire_prospects"
TRIBUTE: Final = "tribute"
RAISING: Final = "raising_the_family"
CONCLUSION: Final = "conclusion"
GRAVE: Final = "into_the_grave"
DRAW: Final = "draw_and_retirement"
OVER: Final = "game_over"

#: Blocking decisions (``pending``).
CONCLAVE_CHOICE: Final = "conclave_choice"
RETIREMENT: Final = "retirement"


class PendingDecision(NamedTuple):
    """The one blocking decision: ``conclave_choice(seat)`` up to ``card_count`` cards, or
    ``retirement(seat, card_count)`` (the rulings' ``count``, which would hide ``tuple.count``)."""

    kind: str
    seat: int
    card_count: int


@dataclass
class Placement:
    """A Noble placed this Turn (R24): by whom, which, and whether it activated. Never changed
    once made. Where the engine is compiled a native class with its own compiled ``__init__``
    (one is made for every Noble placed; a named tuple is made through Python calls)."""

    seat: int
    card: str
    activated: bool

    def __init__(self, seat: int, card: str, activated: bool):
        self.seat = seat
        self.card = card
        self.activated = activated

    def __reduce__(self) -> tuple[type[Placement], tuple[int, str, bool]]:
        # pickled as a call of the class with its fields, by either engine: a native class
        # with a compiled ``__init__`` is not made by ``__new__`` alone, as pickle makes others
        return Placement, (self.seat, self.card, self.activated)


@dataclass(eq=True, init=False)
class DynastiesState:
    """A native class where the engine is compiled (its fields are read by every rule, so
    they are C struct slots there, not dictionary entries); it pickles across the compiled
    and the pure-Python engine alike (``tests/unit/kernel/test_compiled_engine.py``).

    Made by ``new_state`` (a game as it stands once set up) and ``copy_state``, each on an
    instance made without ``__init__`` and each naming every field: a dataclass's generated
    ``__init__`` runs as Python even where the engine is compiled, several times the cost."""

    options: DynastiesOptions
    seats: int
    starting_gold: int
    legacy_at_start: int
    legacy: int
    treasury: list[int]
    debt: list[int]
    hands: list[list[str]]
    families: list[list[str]]
    tribute_commit: list[str | None]
    rewarded: list[set[str]]
    #: Commit-reveal (R17a): each seat's sealed hash, and the salt that opened it.
    tribute_hash: list[str | None]
    tribute_salt: list[str | None]
    stakes: int
    #: The last Conclusion left the Stakes in place (R46); I5 allows them then.
    stakes_carried: bool
    deck: list[str]  # index 0 is the top
    graveyard: list[str]
    tribute_zone: list[str]
    #: This round's revealed Tributes (R20 sends them back to the Graveyard on a stalemate).
    tributes: list[str]
    #: The Coronation kept in the TZ from an earlier round (R34), if any.
    enshrined: str | None
    current_dynasty: str | None
    crowned_card: str | None
    round: int
    phase: str
    first_player: int | None
    anchor: int
    turn: int
    tie_break: bool
    turn_leader: int | None
    #: Seats that place in this Turn, in order (R23); ``turn_cursor`` indexes the next one.
    turn_order: list[int]
    turn_cursor: int
    turn_placements: list[Placement]
    next_leader: int | None
    #: The seat due to place has already Enquired for this placement (R13).
    placer_enquired: bool
    pending: PendingDecision | None
    #: A Conclave emptied the Stakes under ``empty_stakes_ends_round`` (R40).
    stakes_emptied: bool
    last_stakes_winner: int | None
    tied_seats: list[int]
    draw_queue: list[int]
    draw_starter: int | None
    #: Enquires of this round, public: ``{seat, card, price}``.
    enquiries: list[dict[str, Any]]
    outcome: dict[str, Any] | None

    @property
    def next_placer(self) -> int | None:
        if self.phase != RAISING or self.turn_cursor >= len(self.turn_order):
            return None
        return self.turn_order[self.turn_cursor]


def new_state(options: DynastiesOptions, seats: int, starting_gold: int, legacy: int) -> DynastiesState:
    """The state once set up (rulings §1.2), before the shuffle: every Treasury holds the starting
    gold; no hand, Family, deck or round yet (``clear_round`` sets what each round starts without).
    A field left out is missing from the state, which the random-play tests read (every rule
    reads it)."""
    new = DynastiesState.__new__(DynastiesState)
    new.options = options
    new.seats = seats
    new.starting_gold = starting_gold
    new.legacy_at_start = legacy
    new.legacy = legacy
    new.treasury = [starting_gold] * seats
    new.debt = [0] * seats
    new.hands = [[] for _ in range(seats)]
    new.families = [[] for _ in range(seats)]
    new.tribute_commit = [None] * seats
    new.tribute_hash = [None] * seats
    new.tribute_salt = [None] * seats
    new.stakes = 0
    new.stakes_carried = False
    new.deck = []
    new.graveyard = []
    new.tribute_zone = []
    new.enshrined = None
    new.current_dynasty = None
    new.crowned_card = None
    new.round = 0
    new.phase = SETUP
    new.anchor = 0
    new.placer_enquired = False
    new.pending = None
    new.tied_seats = []
    new.outcome = None
    clear_round(new)
    return new


def clear_round(state: DynastiesState) -> None:
    """What a round starts without (R8): no reward yet, no Turn, no First Player, no Tribute, no
    Enquire and no draw order; the Stakes neither emptied nor won."""
    state.rewarded = [set() for _ in range(state.seats)]
    state.turn = 0
    state.tie_break = False
    state.turn_leader = None
    state.turn_order = []
    state.turn_cursor = 0
    state.turn_placements = []
    state.next_leader = None
    state.first_player = None
    state.tributes = []
    state.stakes_emptied = False
    state.last_stakes_winner = None
    state.draw_queue = []
    state.draw_starter = None
    state.enquiries = []


def copy_state(state: DynastiesState) -> DynastiesState:
    """An independent copy. Lists are copied; tuples, strings and the options (never changed
    after SetupStarted) are shared. Hand-rolled, field by field, on an instance made without
    ``__init__``: a native class has no ``__dict__`` to copy, and the dataclass's ``__init__``
    (an argument a field) costs about three times these assignments. A field left out here
    is missing from the copy, which the copy test reads field by field."""
    new = DynastiesState.__new__(DynastiesState)
    new.options = state.options
    new.seats = state.seats
    new.starting_gold = state.starting_gold
    new.legacy_at_start = state.legacy_at_start
    new.legacy = state.legacy
    new.treasury = state.treasury[:]
    new.debt = state.debt[:]
    new.hands = [hand[:] for hand in state.hands]
    new.families = [family[:] for family in state.families]
    new.tribute_commit = state.tribute_commit[:]
    new.rewarded = [set(keys) for keys in state.rewarded]
    new.tribute_hash = state.tribute_hash[:]
    new.tribute_salt = state.tribute_salt[:]
    new.stakes = state.stakes
    new.stakes_carried = state.stakes_carried
    new.deck = state.deck[:]
    new.graveyard = state.graveyard[:]
    new.tribute_zone = state.tribute_zone[:]
    new.tributes = state.tributes[:]
    new.enshrined = state.enshrined
    new.current_dynasty = state.current_dynasty
    new.crowned_card = state.crowned_card
    new.round = state.round
    new.phase = state.phase
    new.first_player = state.first_player
    new.anchor = state.anchor
    new.turn = state.turn
    new.tie_break = state.tie_break
    new.turn_leader = state.turn_leader
    new.turn_order = state.turn_order[:]
    new.turn_cursor = state.turn_cursor
    new.turn_placements = state.turn_placements[:]
    new.next_leader = state.next_leader
    new.placer_enquired = state.placer_enquired
    new.pending = state.pending
    new.stakes_emptied = state.stakes_emptied
    new.last_stakes_winner = state.last_stakes_winner
    new.tied_seats = state.tied_seats[:]
    new.draw_queue = state.draw_queue[:]
    new.draw_starter = state.draw_starter
    new.enquiries = state.enquiries[:]
    new.outcome = state.outcome
    return new
