"""What ``evolve`` keeps for a game of Pax Pamir (rules.md section 4, informative).

Plain lists, dicts and Counters; ``copy_state`` is hand-rolled for speed. Rulers, star
totals, influence, hostages and supplies are never stored: ``queries`` derives them
(R-CMP-5, section 4 "derived values").

Places are short strings, so events and command arguments stay plain JSON (``places``
builds and reads them, and nothing else does):

* a card is at ``deck``, ``market:<row>:<col>``, ``hand:<seat>``, ``court:<seat>``,
  ``prizes:<seat>``, ``discard`` or ``out`` (unused in this game);
* a piece is one of ``army:<region>``, ``road:<border>``, ``tribe:<region>``, ``spy:<card>``,
  ``gift:<value>``; ``supply`` when it is not in play;
* rupees move between ``bank``, ``seat:<n>`` and ``market:<row>:<col>``; ``removed`` is
  the bank too, named apart where the rules say rupees are removed from the game.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Final

from domain.games.pax_pamir.data.board import (
    MARKET_COLUMNS,
    MARKET_ROWS,
    STARTING_FAVORED_SUIT,
    Border,
    Coalition,
    Region,
)
from domain.games.pax_pamir.options import PaxOptions
from domain.kernel.steps import Frame

SUPPLY: Final = "supply"


@dataclass
class Player:
    loyalty: Coalition | None = None
    rupees: int = 0
    vp: int = 0
    hand: list[int] = field(default_factory=list)
    #: left to right (R-PLY-1)
    court: list[int] = field(default_factory=list)
    prizes: list[int] = field(default_factory=list)
    #: the gift spaces (2, 4, 6) holding one of this player's cylinders (R-GFT)
    gifts: set[int] = field(default_factory=set)

    def copy(self) -> Player:
        return Player(self.loyalty, self.rupees, self.vp, self.hand[:], self.court[:], self.prizes[:], set(self.gifts))


@dataclass
class Wakhan:
    """Wakhan, the automated opponent (rules.md section 20): her seat (the last one) and her
    AI deck. The deck's order is nobody's to see; the discard pile is public, its last card
    face up (the card she plays by), and so is the back of the deck's top card."""

    seat: int
    deck: list[int] = field(default_factory=list)  # index 0 is the top
    discard: list[int] = field(default_factory=list)
    next_back: dict[str, Any] | None = None

    @property
    def card(self) -> int | None:
        return self.discard[-1] if self.discard else None

    def copy(self) -> Wakhan:
        return Wakhan(self.seat, self.deck[:], self.discard[:], self.next_back)


@dataclass
class PaxState:
    seats: int
    options: PaxOptions
    players: list[Player]
    deck: list[int] = field(default_factory=list)  # index 0 is the top
    out_of_game: list[int] = field(default_factory=list)
    market: list[list[int | None]] = field(
        default_factory=lambda: [[None] * MARKET_COLUMNS for _ in range(MARKET_ROWS)])
    market_rupees: list[list[int]] = field(default_factory=lambda: [[0] * MARKET_COLUMNS for _ in range(MARKET_ROWS)])
    discard: list[int] = field(default_factory=list)
    favored: str = STARTING_FAVORED_SUIT
    armies: dict[Region, Counter[Coalition]] = field(default_factory=lambda: {r: Counter() for r in Region})
    roads: dict[Border, Counter[Coalition]] = field(default_factory=lambda: {b: Counter() for b in Border})
    tribes: dict[Region, Counter[int]] = field(default_factory=lambda: {r: Counter() for r in Region})
    #: spies on a court card: card -> seat -> count
    spies: dict[int, Counter[int]] = field(default_factory=dict)
    #: persistent event effects until the next Dominance Check (R-EVT-1): effect -> seat (None: global)
    effects: dict[str, int | None] = field(default_factory=dict)
    #: the seat whose turn it is, and its actions left (R-TRN-2)
    active: int | None = None
    actions_left: int = 0
    #: per-turn flags (R-TRN-7)
    used_cards: set[int] = field(default_factory=set)
    marked: set[tuple[int, int]] = field(default_factory=set)
    placed: Counter[str] = field(default_factory=Counter)
    #: bribe offers declined and bribes given up this turn: three at most before a bribe can
    #: only be paid in full (R-BRB-4, section 23 item 16)
    declined_bribes: int = 0
    #: the frame stack (kernel steps); only frame events change it
    frames: list[Frame] = field(default_factory=list)
    #: rupees that entered (+) or left (-) the players' and market's hands from the bank
    bank_flow: int = 0
    checks_resolved: int = 0
    #: section 20: None without Wakhan
    wakhan: Wakhan | None = None
    outcome: dict[str, Any] | None = None

    @property
    def over(self) -> bool:
        return self.outcome is not None


def is_wakhan(s: PaxState, seat: int | None) -> bool:
    """Is ``seat`` Wakhan's (section 20)?"""
    return s.wakhan is not None and seat == s.wakhan.seat


def _counter(counts: Counter[Any]) -> Counter[Any]:
    """A copy of a Counter, without ``Counter.__init__``'s Python-level update (4x faster)."""
    copy: Counter[Any] = Counter.__new__(Counter)
    dict.update(copy, counts)
    return copy


def copy_state(s: PaxState) -> PaxState:
    """An independent copy. Containers are copied; ints, strings, tuples, frozensets, frames
    and the options (never changed after setup) are shared. Field by field, on an instance
    made without ``__init__`` (a native class has no ``__dict__`` to copy, and the
    dataclass's ``__init__`` runs its default factories first). A field left out here is
    missing from the copy, which ``tests/unit/pax_pamir/test_copy_state.py`` reads field by field."""
    new = PaxState.__new__(PaxState)
    new.seats = s.seats
    new.options = s.options
    new.players = [p.copy() for p in s.players]
    new.deck = s.deck[:]
    new.out_of_game = s.out_of_game[:]
    new.market = [row[:] for row in s.market]
    new.market_rupees = [row[:] for row in s.market_rupees]
    new.discard = s.discard[:]
    new.favored = s.favored
    new.armies = {k: _counter(v) for k, v in s.armies.items()}
    new.roads = {k: _counter(v) for k, v in s.roads.items()}
    new.tribes = {k: _counter(v) for k, v in s.tribes.items()}
    new.spies = {k: _counter(v) for k, v in s.spies.items()}
    new.effects = dict(s.effects)
    new.active = s.active
    new.actions_left = s.actions_left
    new.used_cards = set(s.used_cards)
    new.marked = set(s.marked)
    new.placed = _counter(s.placed)
    new.declined_bribes = s.declined_bribes
    new.frames = s.frames[:]
    new.bank_flow = s.bank_flow
    new.checks_resolved = s.checks_resolved
    new.wakhan = s.wakhan.copy() if s.wakhan is not None else None
    new.outcome = s.outcome
    return new


__all__ = ["PaxState", "Player", "SUPPLY", "Wakhan", "copy_state", "is_wakhan"]
