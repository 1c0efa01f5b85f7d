"""Invariants of a game of Pax Pamir, checked event by event (and at each decision point).

Feed ``observe(before, event, after)`` for every event of a stream, in order (``before``
is the state before the event, None before ``SetupStarted``), and ``at_decision(state)``
whenever the game waits for a seat. Each failure names what broke. The property tests
(``tests/property/test_pax_pamir_*.py``) drive this class; the helpers below (where each
card is, which cards a seat may see) serve the secrecy tests too.

What is checked, with the rules.md ids:

* pieces (R-CMP-1, R-CMP-2): 12 blocks per coalition and 10 cylinders per seat, in play
  plus supply, never a negative count anywhere, spies only on cards in a court, gifts only
  on the spaces 2, 4 and 6;
* cards (R-CMP-6): every card 1-116 in exactly one place (deck, out of the game, market,
  a hand, a court, prizes, the discard pile);
* rupees (R-CMP-3): no seat and no market slot below zero; what the seats and the market
  hold equals what came out of the bank, counted independently from the ``RupeesMoved``
  events (``bank``/``removed`` are the bank), and equals the state's own ``bank_flow``;
* the turn (R-TRN-2): 0 to 2 actions left; at the action menu every patriot in a court and
  every prize matches its owner's loyalty (R-LOY, R-INF); rupees never rest on Public
  Withdrawal at a decision point (section 16.2, section 23 item 4);
* the end (R-DOM-8, R-END-2): nothing happens after ``GameEnded``; its winners hold the
  most VP, then the most military stars, then the most rupees;
* Wakhan (section 20): her 24 AI cards each in exactly one place (her AI deck or discard),
  the face-up one's back read off the deck's top; at a decision point her pragmatic loyalty
  is a coalition no human holds (she is exempt from the loyalty checks above).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import (
    BLOCKS_PER_COALITION,
    CYLINDERS_PER_PLAYER,
    GIFT_VALUES,
    MARKET_COLUMNS,
    MARKET_ROWS,
    Coalition,
    Region,
    Suit,
)
from domain.games.pax_pamir.data.cards import ALL_CARDS, COURT_CARDS, PUBLIC_WITHDRAWAL
from domain.games.pax_pamir.state import PaxState, is_wakhan
from domain.games.pax_pamir.wakhan.ai_cards import AI_CARDS
from domain.kernel.events import Event

EVERY_CARD = frozenset(ALL_CARDS)
#: Where rupees come from and go to outside the seats and the market (evolve: the bank).
BANK_PLACES = frozenset({"bank", "removed"})
#: The turn menu step: the one decision point where a turn is between actions.
MENU_STEP = "turn"
SUITS = frozenset(Suit)


class InvariantViolation(AssertionError):
    pass


# -- where the cards are ----------------------------------------------------------------------

def card_places(s: PaxState) -> Iterator[tuple[str, int]]:
    """(place, card) for every card the state holds anywhere."""
    for number in s.deck:
        yield "deck", number
    for number in s.out_of_game:
        yield "out", number
    for row in range(MARKET_ROWS):
        for column in range(MARKET_COLUMNS):
            number = s.market[row][column]
            if number is not None:
                yield f"market:{row}:{column}", number
    for seat, player in enumerate(s.players):
        for number in player.hand:
            yield f"hand:{seat}", number
        for number in player.court:
            yield f"court:{seat}", number
        for number in player.prizes:
            yield f"prizes:{seat}", number
    for number in s.discard:
        yield "discard", number


def public_cards(s: PaxState) -> set[int]:
    """Cards face up for everyone: the market, every court, every prize, the discard pile."""
    cards = {n for row in s.market for n in row if n is not None}
    for player in s.players:
        cards.update(player.court)
        cards.update(player.prizes)
    cards.update(s.discard)
    return cards


def announced_cards(s: PaxState) -> set[int]:
    """A card being played is shown to the table from the moment the play starts (a ruler
    asks a bribe for it before it reaches the court): the card of every ``play`` frame."""
    return {f.locals["card"] for f in s.frames if f.step == "play" and "card" in f.locals}


def visible_cards(s: PaxState, viewer: int | None) -> set[int]:
    """Cards ``viewer`` (a seat, None for a spectator) may see named in ``s``: the public
    ones, its own hand (every hand with ``open_hands``) and any card being played."""
    cards = public_cards(s) | announced_cards(s)
    if s.options.open_hands:
        for player in s.players:
            cards.update(player.hand)
    elif viewer is not None:
        cards.update(s.players[viewer].hand)
    return cards


def hidden_cards(s: PaxState, viewer: int | None) -> set[int]:
    """Every card ``viewer`` may not see named now (other hands, the deck, the unused cards)."""
    return set(EVERY_CARD) - visible_cards(s, viewer)


#: Keys under which events, frames and views name cards.
CARD_KEYS = frozenset({"card", "cards", "keep", "deck", "out", "hand", "hands", "court", "prizes", "discard",
                       "used_cards", "out_of_game"})


def named_cards(value: Any, key: str | None = None) -> set[int]:
    """Card numbers named in a JSON value: integers 1-116 under one of ``CARD_KEYS`` (at
    any depth), and the keys of ``spies`` and ``faces`` (a card number per entry)."""
    found: set[int] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            if k in ("spies", "faces") and isinstance(v, dict):
                found |= {int(n) for n in v if str(n).isdigit()}
            found |= named_cards(v, k if k in CARD_KEYS else key)
    elif isinstance(value, list | tuple):
        for item in value:
            found |= named_cards(item, key)
    elif key is not None and isinstance(value, int) and not isinstance(value, bool) and value in EVERY_CARD:
        found.add(value)
    return found


# -- the checks --------------------------------------------------------------------------------

class PaxInvariants:
    def __init__(self) -> None:
        self.events = 0
        self.previous: Event | None = None
        self.bank_flow = 0
        self.over = False

    def fail(self, what: str, message: str) -> None:
        last = self.previous.type if self.previous is not None else "-"
        raise InvariantViolation(f"{what} after event #{self.events} ({last}): {message}")

    # -- per event -----------------------------------------------------------------------------

    def observe(self, before: PaxState | None, event: Event, after: PaxState) -> None:
        self.events += 1
        self.previous = event
        if self.over:
            self.fail("R-DOM-8", f"{event.type} came after GameEnded")
        if event.type == "RupeesMoved":
            self._rupees_moved(event)
        elif event.type == "PieceMoved" and event.data["src"] == event.data["dst"]:
            self.fail("pieces", f"a piece moved from {event.data['src']} to itself")
        elif event.type == "GameEnded":
            self.over = True
            self._game_ended(event, after)
        if event.type != "SetupStarted":
            self.check_state(after)

    def _rupees_moved(self, event: Event) -> None:
        amount, src, dst = event.data["amount"], event.data["src"], event.data["dst"]
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
            self.fail("R-CMP-3", f"{amount!r} rupees moved from {src} to {dst}")
        if src == dst:
            self.fail("R-CMP-3", f"rupees moved from {src} to itself")
        if src in BANK_PLACES:
            self.bank_flow += amount
        if dst in BANK_PLACES:
            self.bank_flow -= amount

    def _game_ended(self, event: Event, s: PaxState) -> None:
        vp = [p.vp for p in s.players]
        if event.data["vp"] != vp:
            self.fail("R-END-2", f"GameEnded reports VP {event.data['vp']}, the seats hold {vp}")

        def key(seat: int) -> tuple[int, int, int]:
            military = sum(COURT_CARDS[n].rank for n in s.players[seat].court if COURT_CARDS[n].suit == Suit.MILITARY)
            return s.players[seat].vp, military, s.players[seat].rupees

        best = max(key(seat) for seat in range(s.seats))
        expected = [seat for seat in range(s.seats) if key(seat) == best]
        if sorted(event.data["winners"]) != expected:
            self.fail("R-END-2", f"winners {event.data['winners']}, expected {expected} from {[key(x) for x in range(s.seats)]}")

    # -- the state after any event ---------------------------------------------------------------

    def check_state(self, s: PaxState) -> None:
        self._pieces(s)
        self._cards(s)
        self._rupees(s)
        if not 0 <= s.actions_left <= q.ACTIONS_PER_TURN:
            self.fail("R-TRN-2", f"{s.actions_left} actions left")
        if s.favored not in SUITS:
            self.fail("R-CMP-7", f"the favored suit is {s.favored!r}")
        for seat, player in enumerate(s.players):
            if player.vp < 0:
                self.fail("R-DOM", f"seat {seat} has {player.vp} VP")
        if s.wakhan is not None:
            self._wakhan(s)

    def _wakhan(self, s: PaxState) -> None:
        her = s.wakhan
        assert her is not None
        placed = Counter(her.deck + her.discard)
        if placed and (set(placed) != set(AI_CARDS) or max(placed.values()) > 1):
            self.fail("section 20", f"AI cards in the deck {her.deck} and the discard {her.discard}")
        if her.card is not None and her.deck and her.next_back != AI_CARDS[her.deck[0]].back():
            self.fail("section 20", f"the back shown {her.next_back} is not the deck's top card's")

    def _pieces(self, s: PaxState) -> None:
        for coalition in Coalition:
            counts = [s.armies[r][coalition] for r in Region] + [c[coalition] for c in s.roads.values()]
            if min(counts) < 0:
                self.fail("R-CMP-1", f"a negative count of {coalition} blocks: {counts}")
            if sum(counts) > BLOCKS_PER_COALITION:
                self.fail("R-CMP-1", f"{sum(counts)} {coalition} blocks in play, more than {BLOCKS_PER_COALITION}")
        for place in (*s.armies.values(), *s.roads.values()):
            if set(place) - set(Coalition):
                self.fail("R-CMP-1", f"blocks of no coalition: {dict(place)}")
        in_courts = {n for player in s.players for n in player.court}
        for number, spies in s.spies.items():
            if min(spies.values(), default=0) < 0:
                self.fail("R-CMP-2", f"a negative spy count on card {number}: {dict(spies)}")
            if sum(spies.values()) and number not in in_courts:
                self.fail("R-SPY", f"spies {dict(spies)} on card {number}, which is in no court")
        for region, tribes in s.tribes.items():
            if min(tribes.values(), default=0) < 0:
                self.fail("R-CMP-2", f"a negative tribe count in {region}: {dict(tribes)}")
        seats = range(s.seats)
        for seat in seats:
            gifts = s.players[seat].gifts
            if not gifts <= set(GIFT_VALUES):
                self.fail("R-CMP-4", f"seat {seat} has gifts on {sorted(gifts)}")
            in_play = (sum(s.tribes[r][seat] for r in Region) + sum(c[seat] for c in s.spies.values()) + len(gifts))
            if in_play > CYLINDERS_PER_PLAYER:
                self.fail("R-CMP-2", f"seat {seat} has {in_play} cylinders in play, more than {CYLINDERS_PER_PLAYER}")
        owners = {owner for place in (*s.tribes.values(), *s.spies.values()) for owner, n in place.items() if n}
        if not owners <= set(seats):
            self.fail("R-CMP-2", f"cylinders of seats {sorted(owners - set(seats))}, who are not at the table")

    def _cards(self, s: PaxState) -> None:
        counted = Counter(number for _, number in card_places(s))
        if len(counted) == len(EVERY_CARD) and max(counted.values()) == 1 and set(counted) == EVERY_CARD:
            return
        twice = {n: [p for p, m in card_places(s) if m == n] for n, c in counted.items() if c > 1}
        self.fail("R-CMP-6", f"cards missing {sorted(EVERY_CARD - set(counted))}, "
                             f"unknown {sorted(set(counted) - EVERY_CARD)}, in two places {twice}")

    def _rupees(self, s: PaxState) -> None:
        held = sum(p.rupees for p in s.players)
        on_market = sum(sum(row) for row in s.market_rupees)
        for seat, player in enumerate(s.players):
            if player.rupees < 0:
                self.fail("R-CMP-3", f"seat {seat} has {player.rupees} rupees")
        for row in range(MARKET_ROWS):
            for column in range(MARKET_COLUMNS):
                if s.market_rupees[row][column] < 0:
                    self.fail("R-CMP-3", f"market slot {row}:{column} has {s.market_rupees[row][column]} rupees")
        if held + on_market != self.bank_flow:
            self.fail("R-CMP-3", f"seats hold {held} and the market {on_market} rupees, but the bank paid out "
                                 f"{self.bank_flow} net")
        if s.bank_flow != self.bank_flow:
            self.fail("R-CMP-3", f"the state counts {s.bank_flow} rupees out of the bank, the events {self.bank_flow}")

    # -- at a decision point -----------------------------------------------------------------------

    def at_decision(self, s: PaxState) -> None:
        """Between commands: the state a seat decides on."""
        for row in range(MARKET_ROWS):
            for column in range(MARKET_COLUMNS):
                if s.market[row][column] == PUBLIC_WITHDRAWAL and s.market_rupees[row][column]:
                    self.fail("R-EVT 16.2", f"{s.market_rupees[row][column]} rupees rest on Public Withdrawal")
        if s.wakhan is not None and not s.over and s.players[s.wakhan.seat].loyalty is not None:
            held = {p.loyalty for seat, p in enumerate(s.players) if not is_wakhan(s, seat)}
            if s.players[s.wakhan.seat].loyalty in held:
                self.fail("section 20", f"her pragmatic loyalty {s.players[s.wakhan.seat].loyalty} is a human's")
        if s.over or not s.frames or s.frames[-1].step != MENU_STEP:
            return
        for seat, player in enumerate(s.players):
            if is_wakhan(s, seat):  # she holds patriots and prizes of any coalition (section 20)
                continue
            for number in player.court:
                patriot = COURT_CARDS[number].patriot
                if patriot is not None and patriot != player.loyalty:
                    self.fail("R-LOY", f"seat {seat} ({player.loyalty}) keeps the {patriot} patriot {number}")
            for number in player.prizes:
                if COURT_CARDS[number].prize != player.loyalty:
                    self.fail("R-BTR-4", f"seat {seat} ({player.loyalty}) keeps the {COURT_CARDS[number].prize} "
                                         f"prize {number}")


__all__ = ["CARD_KEYS", "EVERY_CARD", "InvariantViolation", "PaxInvariants", "announced_cards", "card_places",
           "hidden_cards", "named_cards", "public_cards", "visible_cards"]
