"""What ``evolve`` keeps (rulings §1.1). Plain lists and dicts; ``copy_state`` is hand-rolled."""

from __future__ import annotations

from dataclasses import dataclass, field
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


class Placement(NamedTuple):
    seat: int
    card: str
    activated: bool


def placement(seat: int, card: str, activated: bool) -> Placement:
    """``Placement(seat, card, activated)``, made by ``tuple.__new__`` itself: a named tuple's
    own ``__new__`` is a Python function, and one is made for every Noble placed."""
    return tuple.__new__(Placement, (seat, card, activated))


@dataclass(eq=True)
class DynastiesState:
    """A native class where the engine is compiled (its fields are read by every rule, so
    they are C struct slots there, not dictionary entries); it pickles across the compiled
    and the pure-Python engine alike (``tests/unit/kernel/test_compiled_engine.py``)."""

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
    tribute_hash: list[str | None] = field(default_factory=list)
    tribute_salt: list[str | None] = field(default_factory=list)
    stakes: int = 0
    #: The last Conclusion left the Stakes in place (R46); I5 allows them then.
    stakes_carried: bool = False
    deck: list[str] = field(default_factory=list)  # index 0 is the top
    graveyard: list[str] = field(default_factory=list)
    tribute_zone: list[str] = field(default_factory=list)
    #: This round's revealed Tributes (R20 sends them back to the Graveyard on a stalemate).
    tributes: list[str] = field(default_factory=list)
    #: The Coronation kept in the TZ from an earlier round (R34), if any.
    enshrined: str | None = None
    current_dynasty: str | None = None
    crowned_card: str | None = None
    round: int = 0
    phase: str = SETUP
    first_player: int | None = None
    anchor: int = 0
    turn: int = 0
    tie_break: bool = False
    turn_leader: int | None = None
    #: Seats that place in this Turn, in order (R23); ``turn_cursor`` indexes the next one.
    turn_order: list[int] = field(default_factory=list)
    turn_cursor: int = 0
    turn_placements: list[Placement] = field(default_factory=list)
    next_leader: int | None = None
    #: The seat due to place has already Enquired for this placement (R13).
    placer_enquired: bool = False
    pending: PendingDecision | None = None
    #: A Conclave emptied the Stakes under ``empty_stakes_ends_round`` (R40).
    stakes_emptied: bool = False
    last_stakes_winner: int | None = None
    tied_seats: list[int] = field(default_factory=list)
    draw_queue: list[int] = field(default_factory=list)
    draw_starter: int | None = None
    #: Enquires of this round, public: ``{seat, card, price}``.
    enquiries: list[dict[str, Any]] = field(default_factory=list)
    outcome: dict[str, Any] | None = None

    @property
    def next_placer(self) -> int | None:
        if self.phase != RAISING or self.turn_cursor >= len(self.turn_order):
            return None
        return self.turn_order[self.turn_cursor]


def copy_state(state: DynastiesState) -> DynastiesState:
    """An independent copy. Lists are copied; tuples, strings and the options (never changed
    after SetupStarted) are shared. Hand-rolled, field by field (a native class has no
    ``__dict__`` to copy): about as fast as the dictionary copy it replaces, and many times
    faster than ``deepcopy``."""
    return DynastiesState(
        options=state.options, seats=state.seats, starting_gold=state.starting_gold,
        legacy_at_start=state.legacy_at_start, legacy=state.legacy, treasury=state.treasury[:],
        debt=state.debt[:], hands=[hand[:] for hand in state.hands],
        families=[family[:] for family in state.families], tribute_commit=state.tribute_commit[:],
        rewarded=[set(keys) for keys in state.rewarded], tribute_hash=state.tribute_hash[:],
        tribute_salt=state.tribute_salt[:], stakes=state.stakes, stakes_carried=state.stakes_carried,
        deck=state.deck[:], graveyard=state.graveyard[:], tribute_zone=state.tribute_zone[:],
        tributes=state.tributes[:], enshrined=state.enshrined, current_dynasty=state.current_dynasty,
        crowned_card=state.crowned_card, round=state.round, phase=state.phase, first_player=state.first_player,
        anchor=state.anchor, turn=state.turn, tie_break=state.tie_break, turn_leader=state.turn_leader,
        turn_order=state.turn_order[:], turn_cursor=state.turn_cursor,
        turn_placements=state.turn_placements[:], next_leader=state.next_leader,
        placer_enquired=state.placer_enquired, pending=state.pending, stakes_emptied=state.stakes_emptied,
        last_stakes_winner=state.last_stakes_winner, tied_seats=state.tied_seats[:],
        draw_queue=state.draw_queue[:], draw_starter=state.draw_starter, enquiries=state.enquiries[:],
        outcome=state.outcome)
